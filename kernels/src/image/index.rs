//! Index math, rounding rules and launch geometry of the image kernels.
//!
//! Everything here is a pure `const fn`, called by the kernels on the
//! device and by the host launcher and the CPU references, and
//! property-tested below.

use crate::launch::{LaunchConfig, MAX_GRID_YZ};
use crate::layout::{Layout2, Layout3};

// ---------------------------------------------------------------------------
// Layouts
// ---------------------------------------------------------------------------

/// The bytes of an interleaved image: `(y, x, c) → (y * width + x) * channels + c`.
#[inline(always)]
pub const fn pixel_layout(width: u32, height: u32, channels: u32) -> Layout3 {
    Layout3::row_major(height as usize, width as usize, channels as usize)
}

/// The same bytes as a matrix of `height` rows of `width * channels` bytes
/// (the blur works in this byte space: a pixel's horizontal neighbours in
/// its channel are `channels` bytes away).
#[inline(always)]
pub const fn byte_rows(width: u32, height: u32, channels: u32) -> Layout2 {
    Layout2::row_major(height as usize, width as usize * channels as usize)
}

/// A volume of `planes × rows × cols` elements: `plane * rows * cols + row * cols + col`.
#[inline(always)]
pub const fn volume_layout(v: VolumeParams) -> Layout3 {
    Layout3::row_major(v.planes as usize, v.rows as usize, v.cols as usize)
}

// ---------------------------------------------------------------------------
// Rounding rules (shared bit for bit by the GPU, the emulator and the CPU)
// ---------------------------------------------------------------------------

/// Integer luminance weights: PMPP's `0.21 r + 0.72 g + 0.07 b` as
/// `21, 72, 7` out of [`GRAY_DENOM`].
pub const GRAY_WEIGHTS: [u32; 3] = [21, 72, 7];
/// Denominator of [`GRAY_WEIGHTS`].
pub const GRAY_DENOM: u32 = 100;

/// The grayscale rounding rule: `(21 r + 72 g + 7 b + 50) / 100`, integer
/// arithmetic, round half up. The weights sum to 100, so the result is at
/// most 255. No floating point: GPU and CPU agree bit for bit whatever the
/// compiler does with multiply-adds.
#[inline(always)]
pub const fn gray_of(r: u8, g: u8, b: u8) -> u8 {
    let s = GRAY_WEIGHTS[0] * r as u32 + GRAY_WEIGHTS[1] * g as u32 + GRAY_WEIGHTS[2] * b as u32;
    ((s + GRAY_DENOM / 2) / GRAY_DENOM) as u8
}

/// The blur rounding rule: the mean of `count` in-image values whose
/// integer sum is `sum`, rounded half up: `(sum + count / 2) / count`.
#[inline(always)]
pub const fn div_round_half_up(sum: u32, count: u32) -> u32 {
    (sum + count / 2) / count
}

/// Largest `count` for which [`div_round_magic`] is exact (for sums of u8
/// values, `sum ≤ 255 · count`).
pub const MAGIC_MAX_COUNT: u32 = 4096;

/// `ceil(2³² / count)` for `2 ≤ count ≤ MAGIC_MAX_COUNT` (0 otherwise): the
/// reciprocal that turns the division of [`div_round_half_up`] into one
/// `mul.hi.u32`.
#[inline(always)]
pub const fn recip_magic(count: u32) -> u32 {
    if count < 2 || count > MAGIC_MAX_COUNT {
        0
    } else {
        (1u64 << 32).div_ceil(count as u64) as u32
    }
}

/// [`div_round_half_up`] through the reciprocal `magic = recip_magic(count)`.
///
/// Exact when `2 ≤ count ≤ 4096` and `sum ≤ 255 · count`: with
/// `n = sum + count / 2 < 256 · count` and `magic = (2³² + e) / count`,
/// `0 ≤ e < count`, the product `n · magic / 2³²` exceeds `n / count` by
/// less than `n / 2³² < 1 / count`, which is never enough to reach the next
/// integer (tested exhaustively below for every count up to 4096 at the
/// sums nearest each multiple).
#[inline(always)]
pub const fn div_round_magic(sum: u32, count: u32, magic: u32) -> u32 {
    (((sum + count / 2) as u64 * magic as u64) >> 32) as u32
}

/// First in-image coordinate of the window `[i - r, i + r]` along an axis
/// of length `n`.
#[inline(always)]
pub const fn window_lo(i: u32, r: u32) -> u32 {
    i.saturating_sub(r)
}

/// One past the last in-image coordinate of the window `[i - r, i + r]`.
#[inline(always)]
pub const fn window_hi(i: u32, r: u32, n: u32) -> u32 {
    let hi = i.saturating_add(r).saturating_add(1);
    if hi < n { hi } else { n }
}

/// Number of in-image coordinates of the window `[i - r, i + r]` (`i < n`).
#[inline(always)]
pub const fn window_len(i: u32, r: u32, n: u32) -> u32 {
    window_hi(i, r, n) - window_lo(i, r)
}

/// Number of in-image pixels averaged at `(y, x)` by a blur of radius `r`:
/// at radius 1 a corner averages 4 of 9, an edge pixel 6 of 9.
#[inline(always)]
pub const fn blur_count(x: u32, y: u32, r: u32, width: u32, height: u32) -> u32 {
    window_len(x, r, width) * window_len(y, r, height)
}

/// Pixels in a full blur window: `(2r + 1)²`.
#[inline(always)]
pub const fn full_count(r: u32) -> u32 {
    (2 * r + 1) * (2 * r + 1)
}

// ---------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------

/// Largest blur radius the host API accepts (any sum of a window fits u32:
/// `255 · 511² < 2³²`).
pub const MAX_BLUR_RADIUS: u32 = 255;

/// The shape of an image and the blur radius, passed by value to the blur
/// kernels (`.param .align 4 .b8 p[20]`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageParams {
    /// Pixels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Bytes per pixel (1: gray, 3: RGB).
    pub channels: u32,
    /// Blur radius (`BLUR_SIZE`); 0 for kernels without a window.
    pub radius: u32,
    /// [`recip_magic`] of [`full_count`]`(radius)`: interior pixels divide by
    /// one multiply-high.
    pub magic: u32,
}

impl ImageParams {
    /// Parameters of a `width × height × channels` image blurred with `radius`.
    #[inline(always)]
    pub const fn new(width: u32, height: u32, channels: u32, radius: u32) -> Self {
        ImageParams { width, height, channels, radius, magic: recip_magic(full_count(radius)) }
    }

    /// Bytes per row.
    #[inline(always)]
    pub const fn row_bytes(&self) -> u32 {
        self.width * self.channels
    }
}

/// The extents of a volume for [`volume_affine`](super::volume_affine),
/// passed by value.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VolumeParams {
    /// Elements per row (the fastest index).
    pub cols: u32,
    /// Rows per plane.
    pub rows: u32,
    /// Planes.
    pub planes: u32,
}

// ---------------------------------------------------------------------------
// Launch geometry
// ---------------------------------------------------------------------------

/// Threads per block of the PMPP one-thread-per-pixel kernels.
pub const PIXEL_BLOCK: [u32; 2] = [16, 16];

/// One thread per pixel, 16 × 16 blocks: the 62 × 76 picture takes 4 × 5
/// blocks, and the last block column (x ≥ 48, 14 of 16 threads work) and
/// row (y ≥ 64, 12 of 16 work) make four kinds of block.
pub const fn pixel_config(width: u32, height: u32) -> LaunchConfig {
    LaunchConfig::cover_2d(width, height, PIXEL_BLOCK).fold_rows()
}

/// Pixels per thread of [`rgb_to_gray_vec16`](super::rgb_to_gray_vec16):
/// 48 input bytes (three 16-byte loads), 16 output bytes (one store).
pub const GRAY_VEC_PIXELS: u32 = 16;
/// Threads per block of [`rgb_to_gray_vec16`](super::rgb_to_gray_vec16).
pub const GRAY_VEC_THREADS: u32 = 256;

/// One thread per 16-pixel chunk (the last chunk may be partial).
pub const fn gray_vec16_config(pixels: u32) -> LaunchConfig {
    LaunchConfig::linear(pixels.div_ceil(GRAY_VEC_PIXELS).div_ceil(GRAY_VEC_THREADS), GRAY_VEC_THREADS)
}

/// Byte offset of chunk `t`'s RGB input (16-byte aligned).
#[inline(always)]
pub const fn gray_chunk_in(t: u32) -> usize {
    t as usize * (3 * GRAY_VEC_PIXELS) as usize
}

/// Byte offset of chunk `t`'s gray output (16-byte aligned).
#[inline(always)]
pub const fn gray_chunk_out(t: u32) -> usize {
    t as usize * GRAY_VEC_PIXELS as usize
}

/// Largest radius of [`blur_tiled`](super::blur_tiled) (its tile of
/// `(16 + 2r)² · channels` bytes stays below 20 KB).
pub const MAX_TILED_RADIUS: u32 = 32;

/// Side of the shared tile of [`blur_tiled`](super::blur_tiled): the 16 × 16
/// block plus a halo of `r` on every side.
#[inline(always)]
pub const fn tiled_side(r: u32) -> u32 {
    PIXEL_BLOCK[0] + 2 * r
}

/// The tile of [`blur_tiled`](super::blur_tiled): `side` rows of
/// `side * channels` bytes.
#[inline(always)]
pub const fn tiled_layout(r: u32, channels: u32) -> Layout2 {
    Layout2::row_major(tiled_side(r) as usize, (tiled_side(r) * channels) as usize)
}

/// Launch of [`blur_tiled`](super::blur_tiled): one thread per pixel, the
/// tile in dynamic shared memory.
pub const fn blur_tiled_config(p: ImageParams) -> LaunchConfig {
    let bytes = tiled_layout(p.radius, p.channels).size() as u32;
    pixel_config(p.width, p.height).with_shared(bytes.div_ceil(16) * 16)
}

/// Bytes per vector access of the fast blur (one `u32x4`).
pub const FAST_CHUNK: u32 = 16;
/// Output bytes per row of a fast-blur block.
pub const FAST_TILE_W: u32 = 128;
/// Output rows of a fast-blur block.
pub const FAST_TILE_H: u32 = 64;
/// Threads of a fast-blur block: one 16-byte column chunk × one pair of rows each.
pub const FAST_BLOCK: [u32; 2] = [FAST_TILE_W / FAST_CHUNK, FAST_TILE_H / FAST_ROWS_PER_THREAD];
/// Output rows per thread of the fast blur's vertical pass.
pub const FAST_ROWS_PER_THREAD: u32 = 2;
/// Bytes of the input tile row: one 16-byte halo chunk, the tile, one halo chunk.
pub const FAST_IN_STRIDE: u32 = FAST_TILE_W + 2 * FAST_CHUNK;

/// Threads of a fast-blur block.
pub const FAST_THREADS: u32 = FAST_BLOCK[0] * FAST_BLOCK[1];

/// Upper bound of [`fast_load_iters`] over the supported radii (the size
/// of the thread's staging registers).
pub const FAST_MAX_LOAD_ITERS: usize = 4;

/// 16-byte input chunks each thread loads: the tile's chunks over the block.
pub const fn fast_load_iters(r: u32) -> u32 {
    (fast_tile_rows(r) * (FAST_IN_STRIDE / FAST_CHUNK)).div_ceil(FAST_THREADS)
}

/// Whether the fast blur handles `channels` at radius `r`: the horizontal
/// halo `channels · r` fits one 16-byte chunk, and a vertical running sum
/// of `2r + 2` horizontal sums of `2r + 1` bytes fits a u16 lane.
pub const fn fast_supports(channels: u32, r: u32) -> bool {
    r >= 1
        && channels * r <= FAST_CHUNK
        && (2 * r + 2) * (2 * r + 1) * 255 <= u16::MAX as u32
        && fast_load_iters(r) as usize <= FAST_MAX_LOAD_ITERS
}

/// Where the fast blur keeps the sum of output byte `j` (0..16) of a
/// chunk: `(word, half)` of its eight packed words. Word `m` holds bytes
/// `j` and `j + 2` for `j = 4 (m / 2) + m % 2` (the even/odd byte split of
/// a 32-bit word is one instruction, a `(j, j + 1)` pairing is not).
#[inline(always)]
pub const fn hsum_lane(j: usize) -> (usize, usize) {
    (2 * (j / 4) + j % 2, (j % 4) / 2)
}

/// The output byte of lane `half` of packed word `w`: the inverse of [`hsum_lane`].
#[inline(always)]
pub const fn hsum_byte(w: usize, half: usize) -> usize {
    4 * (w / 2) + w % 2 + 2 * half
}

/// Rows of a fast-blur input tile (the tile plus `r` halo rows above and below).
#[inline(always)]
pub const fn fast_tile_rows(r: u32) -> u32 {
    FAST_TILE_H + 2 * r
}

/// The input tile: [`fast_tile_rows`] rows of [`FAST_IN_STRIDE`] bytes;
/// byte `(rr, cc)` holds image byte `(y0 - r + rr, x0 - 16 + cc)` or 0.
#[inline(always)]
pub const fn fast_in_layout(r: u32) -> Layout2 {
    Layout2::row_major(fast_tile_rows(r) as usize, FAST_IN_STRIDE as usize)
}

/// The horizontal sums (u16): [`fast_tile_rows`] rows of [`FAST_TILE_W`].
#[inline(always)]
pub const fn fast_hsum_layout(r: u32) -> Layout2 {
    Layout2::row_major(fast_tile_rows(r) as usize, FAST_TILE_W as usize)
}

/// Dynamic shared memory of the fast blur: the input tile, then the sums.
pub const fn fast_shared_bytes(r: u32) -> u32 {
    (fast_in_layout(r).size() + 2 * fast_hsum_layout(r).size()) as u32
}

/// Launch of the fast blur: one block per 128-byte × 64-row output tile.
pub const fn blur_fast_config(p: ImageParams) -> LaunchConfig {
    LaunchConfig {
        grid: [p.row_bytes().div_ceil(FAST_TILE_W), p.height.div_ceil(FAST_TILE_H), 1],
        block: [FAST_BLOCK[0], FAST_BLOCK[1], 1],
        shared_bytes: fast_shared_bytes(p.radius),
    }
    .fold_rows()
}

// ---------------------------------------------------------------------------
// Sliding-window blur
// ---------------------------------------------------------------------------

/// Bytes of one row that a sliding-blur thread owns: one 16-byte vector.
pub const SLIDE_CHUNK: u32 = 16;
/// Threads per block of the sliding blur (1D blocks).
pub const SLIDE_THREADS: u32 = 128;
/// Rows a sliding-blur thread of `channels` at radius `r` loads ahead of
/// the row it sums (registers: loads in flight per thread). Measured on an
/// H200 at 8192² (one run, % of copy): gray radius 1 81.4 with 4 rows
/// against 76.9 with 2, radius 2 74.2 against 72.1, radius 3 69.3 with 4
/// against 74.2 with 2 (more registers, 4 blocks of 128 per SM instead of
/// 5, and its longer horizontal sum already covers more latency per row);
/// RGB radius 1 79.5 (4) against 76.9 (2), radius 3 44.4 (4) against 54.1
/// (2). 3 rows take as many registers as 4.
pub const fn slide_prefetch(channels: u32, r: u32) -> u32 {
    let _ = channels;
    match r {
        1 | 2 => 4,
        _ => 2,
    }
}
/// Rows ahead of the threads of the first and last chunk of each row (the
/// only ones with clipped columns): one, so that their code path (per-byte
/// divisors) does not raise the kernel's register count (2 rows ahead took
/// gray radius 3 from 96 to 120 registers). They are few and start first
/// ([`slide_thread`]), so their slower strips end before the others.
pub const SLIDE_EDGE_PREFETCH: u32 = 1;
/// Most rows ahead any sliding kernel loads (the unrolled step count).
pub const SLIDE_MAX_PREFETCH: usize = 4;
/// Most packed words a thread sums per row: its 4 words plus 3 halo words
/// on each side (RGB at radius 3 reads 9 bytes beyond each end).
pub const SLIDE_MAX_WORDS: usize = 10;
/// Strip heights the default launch chooses from.
pub const SLIDE_STRIP_RANGE: [u32; 2] = [2, 16];
/// Fewest threads a default launch aims for on a device of `sm_count`
/// multiprocessors: sixteen warps per SM. Tall strips cost fewer halo rows
/// (`2r` extra rows per strip), short ones give more threads. Measured on
/// an H200 (final kernels, one run): at 8192² 16 rows were best or within
/// 3 points of the best for gray and RGB at radius 1 and 3 (2–4 rows lost
/// 10–30 points); at 1920 × 1080 gray wanted 2 rows and RGB 4 (RGB radius
/// 1: 93% of copy at 4 rows, 85% at 8).
pub const fn slide_target_threads(sm_count: u32) -> u32 {
    sm_count.saturating_mul(512)
}

/// Halo words on each side of a thread's chunk: the `channels · r` bytes a
/// window reaches beyond it, rounded up to 32-bit words.
pub const fn slide_halo_words(channels: u32, r: u32) -> u32 {
    (channels * r).div_ceil(4)
}

/// Packed words a sliding-blur thread keeps per row (halo, 4 own, halo).
pub const fn slide_words(channels: u32, r: u32) -> u32 {
    4 + 2 * slide_halo_words(channels, r)
}

/// Whether the sliding blur handles a `width`-pixel image of `channels` at
/// radius `r`: 1 or 3 channels, radius 1–3 (a full 2D window sum
/// `(2r + 1)² · 255` and a running column sum plus one row fit a u16 lane;
/// the halo fits [`SLIDE_MAX_WORDS`]), rows of whole 16-byte chunks (every
/// load and store is one aligned vector, and no chunk is partly outside).
pub const fn slide_supports(width: u32, channels: u32, r: u32) -> bool {
    (channels == 1 || channels == 3)
        && r >= 1
        && r <= 3
        && (width as u64 * channels as u64) % SLIDE_CHUNK as u64 == 0
        && full_count(r) * 255 <= u16::MAX as u32
        && slide_words(channels, r) as usize <= SLIDE_MAX_WORDS
}

/// The shape of a sliding-blur launch, passed by value
/// (`.param .align 4 .b8 p[24]`). Channels and radius are compile-time
/// constants of each kernel.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlideParams {
    /// Pixels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Bytes per row (a multiple of [`SLIDE_CHUNK`]).
    pub row_bytes: u32,
    /// 16-byte chunks per row.
    pub chunks: u32,
    /// Output rows per thread (the strip height).
    pub strip_rows: u32,
    /// Strips: `ceil(height / strip_rows)`.
    pub strips: u32,
}

impl SlideParams {
    /// Parameters of a `width × height × channels` image cut into strips of
    /// `strip_rows` rows (`strip_rows ≥ 1`; the caller checked
    /// [`slide_supports`]).
    pub const fn new(width: u32, height: u32, channels: u32, strip_rows: u32) -> Self {
        let row_bytes = width * channels;
        SlideParams {
            width,
            height,
            row_bytes,
            chunks: row_bytes / SLIDE_CHUNK,
            strip_rows,
            strips: height.div_ceil(strip_rows),
        }
    }

    /// Threads of the launch: one per (chunk, strip).
    pub const fn threads(&self) -> u32 {
        self.chunks * self.strips
    }
}

/// The default strip height: the tallest power of two in
/// [`SLIDE_STRIP_RANGE`] that still gives at least `target_threads`
/// threads (one per 16-byte chunk and strip), else the shortest.
pub const fn slide_strip_rows(chunks: u32, height: u32, target_threads: u32) -> u32 {
    let mut s = SLIDE_STRIP_RANGE[1];
    while s > SLIDE_STRIP_RANGE[0] && (chunks as u64) * (height.div_ceil(s) as u64) < target_threads as u64 {
        s /= 2;
    }
    s
}

/// Edge chunks of a row: the first and the last (one if the row is one chunk).
#[inline(always)]
pub const fn slide_edge_chunks(chunks: u32) -> u32 {
    if chunks >= 2 { 2 } else { 1 }
}

/// Chunk column and strip of sliding-blur thread `g`. The two edge chunks
/// of every strip come first (the threads with clipped columns fill their
/// own warps, so no warp mixes the two code paths but the one at the seam,
/// and they start in the first wave: as the last blocks they made a tail),
/// then the inner chunks, chunks fastest (a warp reads neighbouring chunks
/// of one row: 512 contiguous bytes).
#[inline(always)]
pub const fn slide_thread(g: u32, chunks: u32, strips: u32) -> (u32, u32) {
    let edges = slide_edge_chunks(chunks);
    let inner = chunks - edges;
    if g < edges * strips {
        (if g % edges == 0 { 0 } else { chunks - 1 }, g / edges)
    } else {
        let i = g - edges * strips;
        (1 + i % inner, i / inner)
    }
}

/// Whether the horizontal-first sliding blur walks strip `strip` upwards
/// (from its last row to its first): the even strips do, the odd ones walk
/// down. Strips `2k` and `2k + 1` then both start at the row they share and
/// strips `2k + 1` and `2k + 2` both end at theirs, so the `2r` halo rows a
/// strip reads of its neighbour are read by both threads at about the same
/// time: the second read hits L2. Walking every strip down, a strip reads
/// its upper halo at its start while the neighbour reads those rows at its
/// end, a strip's time later; by then they were often evicted (an H100 read
/// 74 MB from DRAM for a 64 MB image at radius 3).
#[inline(always)]
pub const fn slide_strip_upward(strip: u32) -> bool {
    strip % 2 == 0
}

/// The walk of a strip of rows `y0 .. y1` ([`slide_strip_upward`]): its
/// first row and its step, `(y0, 1)` down, `(y1 - 1, -1)` up (wrapping).
#[inline(always)]
pub const fn slide_strip_walk(y0: u32, y1: u32, upward: bool) -> (u32, u32) {
    if upward { (y1.wrapping_sub(1), u32::MAX) } else { (y0, 1) }
}

/// Row `i` steps along a walk ([`slide_strip_walk`]): `first + step · i`,
/// wrapping. `i` may be "negative" (wrapped): the rows before the strip's
/// first (the prologue reads them), past its far end in the other
/// direction. Rows outside the image come out as large values or as rows
/// [`slide_strip_reads`] rejects.
#[inline(always)]
pub const fn slide_strip_row((first, step): (u32, u32), i: u32) -> u32 {
    first.wrapping_add(step.wrapping_mul(i))
}

/// Whether a thread of a strip of `n` rows at radius `r` reads row
/// `row = slide_strip_row(walk, i)`: `i` within `r` steps of the strip
/// (`-r ≤ i < n + r`, wrapping) and `row` inside the image (a wrapped row
/// above the top is a large value too). Stated on the step `i` rather than
/// on the row so that one test serves both directions.
#[inline(always)]
pub const fn slide_strip_reads(row: u32, i: u32, n: u32, r: u32, height: u32) -> bool {
    (i.wrapping_add(r) < n + 2 * r) & (row < height)
}

/// Whether chunk `col` of a row of `chunks` is an edge chunk.
#[inline(always)]
pub const fn slide_is_edge(col: u32, chunks: u32) -> bool {
    col == 0 || col + 1 == chunks
}

/// Slots of a thread's row ring: the rows of the window, `2r + 1`.
#[inline(always)]
pub const fn slide_ring_slots(r: u32) -> u32 {
    2 * r + 1
}

/// The ring's own words in shared memory, in 16-byte units:
/// `(slot, thread) → slot · threads + thread` (a warp's 32 vectors are 512
/// contiguous bytes: no bank conflict).
#[inline(always)]
pub const fn slide_ring_core(r: u32) -> Layout2 {
    Layout2::row_major(slide_ring_slots(r) as usize, SLIDE_THREADS as usize)
}

/// The ring's halo words, in 32-bit units from the end of the core part:
/// `(slot, halo word, thread)` with the thread fastest.
#[inline(always)]
pub const fn slide_ring_halo(channels: u32, r: u32) -> Layout3 {
    Layout3::row_major(slide_ring_slots(r) as usize, 2 * slide_halo_words(channels, r) as usize, SLIDE_THREADS as usize)
}

/// Dynamic shared memory of a sliding-blur block (the rings of its threads).
pub const fn slide_shared_bytes(channels: u32, r: u32) -> u32 {
    (16 * slide_ring_core(r).size() + 4 * slide_ring_halo(channels, r).size()) as u32
}

/// Launch of the sliding blur of radius `r`: 1D blocks of [`SLIDE_THREADS`].
pub const fn blur_slide_config(p: SlideParams, channels: u32, r: u32) -> LaunchConfig {
    LaunchConfig::linear(p.threads().div_ceil(SLIDE_THREADS), SLIDE_THREADS).with_shared(slide_shared_bytes(channels, r))
}

/// Whether byte `j` of a chunk can have a clipped horizontal window: only
/// the first and last `channels · r` bytes of a row can, and rows are whole
/// chunks, so only bytes within `channels · r` of either end of a chunk.
#[inline(always)]
pub const fn slide_edge_lane(channels: u32, r: u32, j: u32) -> bool {
    j < channels * r || j + channels * r >= SLIDE_CHUNK
}

/// The packed word `W(m) = (V[m], V[m + 2])` (u16 lanes, `m` from the
/// chunk's first byte, negative in the left halo) as one of the even/odd
/// split words `E[i] = (V[4i], V[4i + 2])`, `O[i] = (V[4i + 1], V[4i + 3])`:
/// `(i, kind)` with kind 0 = `E[i]`, 1 = `O[i]`, 2 = `E[i]` high lane with
/// `E[i + 1]` low lane, 3 = the same of `O`.
#[inline(always)]
pub const fn packed_pair(m: i32) -> (i32, u32) {
    (m.div_euclid(4), m.rem_euclid(4) as u32)
}

/// Shift of [`div_round_magic24`].
pub const MAGIC24_SHIFT: u32 = 24;

/// `ceil(2²⁴ / count)`: the multiplier that turns [`div_round_half_up`] of
/// a byte mean into one 32-bit multiply-add whose byte 3 is the quotient.
#[inline(always)]
pub const fn magic24(count: u32) -> u32 {
    (1u32 << MAGIC24_SHIFT).div_ceil(count)
}

/// `(count / 2) · magic24(count)`: the addend of [`div_round_magic24`].
#[inline(always)]
pub const fn magic24_addend(count: u32) -> u32 {
    (count / 2).wrapping_mul(magic24(count))
}

/// [`div_round_half_up`]`(sum, count)` as `(sum · m + (count / 2) · m) >> 24`
/// with `m = magic24(count)` (mod 2³²): exact for `1 ≤ count ≤ 255` and
/// `sum ≤ 255 · count`. With `n = sum + count / 2 < 256 · count` and
/// `m · count = 2²⁴ + e`, `0 ≤ e < count`, `n · m / 2²⁴` exceeds
/// `n / count` by `n · e / (count · 2²⁴) < 1 / count`, too little to reach
/// the next integer, and `n · m < 255.5 · (2²⁴ + e) < 2³²` never wraps
/// (tested exhaustively below).
#[inline(always)]
pub const fn div_round_magic24(sum: u32, count: u32, magic: u32) -> u32 {
    sum.wrapping_mul(magic).wrapping_add((count / 2).wrapping_mul(magic)) >> MAGIC24_SHIFT
}

// ---------------------------------------------------------------------------
// Sliding blur of horizontal sums
// ---------------------------------------------------------------------------

/// Packed words of one chunk row's horizontal sums: 16 u16 lanes, lane of
/// byte `j` at [`hsum_lane`]`(j)`.
pub const HSLIDE_WORDS: usize = 8;

/// Rows a thread of the horizontal-first sliding blur
/// ([`blur_hslide_gray_r1`](super::blur_hslide_gray_r1)) loads ahead of
/// the row it sums (registers hold raw rows: 4 + 2 halo words each): 4,
/// but 2 for RGB at radius 3, whose 4 rows of 10 words would not fit the
/// registers of 5 blocks per SM. Measured on an H200 at 8192² (first
/// run, strip 16, % of copy): gray 89.3 / 83.0 / 75.4 with 4 rows against
/// 87.3 / 81.9 / 72.3 with 2; RGB radius 3 at 5 blocks per SM with 2
/// rows 56.7, with 4 rows at 4 blocks 53.3.
pub const fn hslide_prefetch(channels: u32, r: u32) -> u32 {
    if channels == 3 && r == 3 { 2 } else { 4 }
}

/// Whether the horizontal-first sliding kernel for `channels` at radius
/// `r` walks neighbouring strips in opposite directions
/// ([`slide_strip_upward`]): all but RGB at radius 3, whose alternating
/// walk (two more live registers) spills under its 5-blocks-per-SM bound;
/// it walks every strip down. (Measured on an H100 at 8192² before a
/// refactor made it spill: 72.5–73.5% of copy alternating, 69.2–70.2% down.)
pub const fn hslide_alternates(channels: u32, r: u32) -> bool {
    !(channels == 3 && r == 3)
}

/// Most rows a horizontal-first sliding thread loads before summing the
/// first ([`hslide_prologue_rows`]): the `2r` rows its ring starts with.
pub const HSLIDE_MAX_PROLOGUE: usize = 6;

/// Rows of the ring's start (`2r` in all) that a horizontal-first sliding
/// thread loads together before summing the first of them; the rest are
/// loaded one by one. All `2r`, but 2 for RGB at radius 3 (10 words a
/// row: six rows in flight at once do not fit its registers).
pub const fn hslide_prologue_rows(channels: u32, r: u32) -> u32 {
    if channels == 3 && r == 3 { 2 } else { 2 * r }
}

/// Blocks of [`SLIDE_THREADS`] per SM each horizontal-first sliding
/// kernel is built for: its launch bounds (`.minnctapersm`, so ptxas keeps
/// the registers under `65536 / (128 · n)`, and `cargo xtask
/// ptxas-report` shows no spills) and the strip height
/// ([`hslide_default_strip_rows`]) both use it. 6 (≤ 80 registers) where the
/// kernel fits, else 5 (≤ 96): gray radius 3 takes 96, RGB radius 2 and 3
/// spill under 80. RGB radius 2 measured 77.2% of copy at 5 blocks against
/// 73.4% at 4 (its 119 registers without bounds), H200, 8192², strip 16.
pub const fn hslide_blocks_per_sm(channels: u32, r: u32) -> u32 {
    match (channels, r) {
        (1, 1 | 2) | (3, 1) => 6,
        _ => 5,
    }
}

/// Waves of blocks the default horizontal-first launch is cut into
/// ([`hslide_default_strip_rows`]); [`HSLIDE_SMALL_WAVES`] where that
/// would need the shortest strips.
pub const HSLIDE_WAVES: u32 = 3;
/// Waves of the default launch on images too small for
/// [`HSLIDE_WAVES`] waves of strips taller than the shortest.
pub const HSLIDE_SMALL_WAVES: u32 = 2;

/// The strip height of a horizontal-first sliding launch that fills
/// `waves` whole waves of `blocks_per_sm` blocks on `sm_count` SMs: the
/// fewest rows per strip whose threads (one per chunk and strip) fit
/// `waves · sm_count · blocks_per_sm · 128` threads, at least
/// [`SLIDE_STRIP_RANGE`]`[0]` (small images: fewer threads than a wave).
/// Every inner block of a wave does the same work, so whole waves leave
/// no partly filled last wave; but the edge chunks' threads (1 row ahead:
/// about 1.5 µs per row on an H200, latency-bound) take longest and start
/// first, so strips must stay short enough for them: one wave (strips of
/// 42–149 rows at 8192²) ran as long as its edge threads, 41–60% of copy.
pub const fn hslide_strip_rows(chunks: u32, height: u32, sm_count: u32, blocks_per_sm: u32, waves: u32) -> u32 {
    let slots = waves as u64 * sm_count as u64 * blocks_per_sm as u64 * SLIDE_THREADS as u64;
    let strips = slots / if chunks == 0 { 1 } else { chunks as u64 };
    let rows = if strips == 0 { height as u64 } else { (height as u64).div_ceil(strips) };
    if rows < SLIDE_STRIP_RANGE[0] as u64 { SLIDE_STRIP_RANGE[0] } else { rows as u32 }
}

/// The default strip height of the horizontal-first sliding blur:
/// [`HSLIDE_WAVES`] (3) whole waves ([`hslide_strip_rows`]), or
/// [`HSLIDE_SMALL_WAVES`] (2) where 3 would need the shortest strips
/// (small images: the `2r` halo rows of each strip weigh more there).
/// Measured on an H200 (second run, % of copy): at 8192² 3 waves (strips
/// of 14–17 rows gray, 42–50 RGB) gave gray 83.0 / 78.8 / 72.8 and RGB
/// 82.0 / 78.9 / 59.5 for radius 1–3, 2 waves 75.4 / 71.2 / 70.4 and 73.4 /
/// 69.9 / 60.7, fixed 16 rows 83.4 / 76.9 / 70.4 and 87.8 / 76.5 / 56.2; at
/// 1920 × 1080 2 waves (RGB radius 2 and 3: 3 rows) 80.6 and 65.7 against
/// 73.1 and 62.8 with 3 waves (2 rows).
pub const fn hslide_default_strip_rows(chunks: u32, height: u32, sm_count: u32, blocks_per_sm: u32) -> u32 {
    let s = hslide_strip_rows(chunks, height, sm_count, blocks_per_sm, HSLIDE_WAVES);
    if s > SLIDE_STRIP_RANGE[0] { s } else { hslide_strip_rows(chunks, height, sm_count, blocks_per_sm, HSLIDE_SMALL_WAVES) }
}

/// A thread's ring of horizontal sums in shared memory, in 16-byte units:
/// `(slot, half, thread)` with the thread fastest (a warp's 32 vectors of
/// one slot and half are 512 contiguous bytes: no bank conflict). Slot
/// `s` holds the sums of one window row, half `h` its words `4h .. 4h + 4`.
#[inline(always)]
pub const fn hslide_ring(r: u32) -> Layout3 {
    Layout3::row_major(slide_ring_slots(r) as usize, 2, SLIDE_THREADS as usize)
}

/// Dynamic shared memory of a horizontal-first sliding-blur block.
pub const fn hslide_shared_bytes(r: u32) -> u32 {
    16 * hslide_ring(r).size() as u32
}

/// Launch of the horizontal-first sliding blur of radius `r`: the threads
/// of [`blur_slide_config`], rings of horizontal sums.
pub const fn blur_hslide_config(p: SlideParams, r: u32) -> LaunchConfig {
    LaunchConfig::linear(p.threads().div_ceil(SLIDE_THREADS), SLIDE_THREADS).with_shared(hslide_shared_bytes(r))
}

/// The bias a column-sum lane starts from: `count / 2`, so that the lane
/// holds `sum + count / 2`, the numerator of [`div_round_half_up`], with
/// no add per output.
#[inline(always)]
pub const fn lane_bias(count: u32) -> u32 {
    count / 2
}

/// `floor(a · b / 2³²)`: PTX `mul.hi.u32`.
#[inline(always)]
pub const fn mul_hi(a: u32, b: u32) -> u32 {
    ((a as u64 * b as u64) >> 32) as u32
}

/// Largest count of [`div_round_hi_lane`].
pub const HI_LANE_MAX_COUNT: u32 = 64;
/// Largest low lane [`div_round_hi_lane`] tolerates.
pub const HI_LANE_MAX_LOW: u32 = (1 << 15) - 1;

/// The rounded mean of the high lane of a packed word without extracting
/// it: `word = lo + 2¹⁶ · (sum + count / 2)` with `lo ≤ HI_LANE_MAX_LOW`,
/// `2 ≤ count ≤ HI_LANE_MAX_COUNT`, `sum ≤ 255 · count`; the result is
/// byte 2 of `mul_hi(word, magic24(count) << 8)` (returned shifted down).
///
/// Exact: the product is `floor((n + f) · m / 2²⁴)` shifted up 16 bits,
/// with `n = sum + count / 2`, `f = lo / 2¹⁶ < 1/2`, `m = magic24(count)`,
/// `m · count = 2²⁴ + e`, `e < count`. With `n = q · count + r`,
/// `(n + f) · m / 2²⁴ = q + (r + f) / count + (n + f) · e / (count · 2²⁴)`
/// and `r + f + (n + f) · e / 2²⁴ < count - 1 + 1/2 + 256 · 64² / 2²⁴ < count`
/// (tested exhaustively below). Bytes 0–1 of the product are the low
/// lane's fraction, byte 3 is zero.
#[inline(always)]
pub const fn div_round_hi_lane(word: u32, magic: u32) -> u32 {
    (mul_hi(word, magic << 8) >> 16) & 0xff
}

/// Threads per block of [`volume_affine`](super::volume_affine): (cols, rows, planes).
pub const VOLUME_BLOCK: [u32; 3] = [32, 4, 2];

/// One thread per element, 3D blocks of 32 × 4 × 2.
pub const fn volume_config(v: VolumeParams) -> LaunchConfig {
    let [bx, by, bz] = volume_blocks(v);
    LaunchConfig { grid: [bx, min_u32(by, MAX_GRID_YZ), min_u32(bz, MAX_GRID_YZ)], block: VOLUME_BLOCK, shared_bytes: 0 }
}

const fn min_u32(a: u32, b: u32) -> u32 {
    if a < b { a } else { b }
}

/// Blocks of [`VOLUME_BLOCK`] covering the volume along cols, rows and
/// planes. The grid launched ([`volume_config`]) is this, capped at
/// [`MAX_GRID_YZ`] in y and z; the kernel walks the rest of the block rows
/// and planes in grid-sized strides, so any extent runs.
#[inline(always)]
pub const fn volume_blocks(v: VolumeParams) -> [u32; 3] {
    [v.cols.div_ceil(VOLUME_BLOCK[0]), v.rows.div_ceil(VOLUME_BLOCK[1]), v.planes.div_ceil(VOLUME_BLOCK[2])]
}

// ---------------------------------------------------------------------------
// Sliding-window blur of any radius and width (`blur_window_*`)
// ---------------------------------------------------------------------------

/// Warps of a window-blur block; also the rows of one batch (one warp per
/// row in the horizontal phase).
pub const WIN_WARPS: u32 = 8;
/// Threads of a window-blur block.
pub const WIN_THREADS: u32 = 32 * WIN_WARPS;
/// Rows a window-blur block advances per batch (between its barriers).
pub const WIN_BATCH: u32 = WIN_WARPS;
/// Bytes of a row segment one lane sums horizontally: a multiple of 1, 2,
/// 3 and 4 (a lane's run starts on channel 0 whatever the channel count)
/// and of 8 (its column sums are three 16-byte shared loads).
pub const WIN_RUN: u32 = 24;
/// Bytes of a block's row segment: its band of output bytes and the halo
/// of `channels · radius` bytes on each side ([`win_band`]).
pub const WIN_SEG: u32 = 32 * WIN_RUN;
/// Bytes of one ring row: the segment as 16-byte chunks of the image,
/// starting at the chunk boundary at or before it (up to 15 bytes early).
pub const WIN_RING_ROW: u32 = WIN_SEG + 16;
/// Batches of rows a window-blur block loads ahead (`cp.async` groups in
/// flight while it sums).
pub const WIN_AHEAD: u32 = 2;
/// Leading zero entries of a row of horizontal prefix sums (the sums
/// `channels` bytes before the segment's first byte).
pub const WIN_P_PAD: u32 = 4;
/// u32 entries of a row of horizontal prefix sums.
pub const WIN_P_ROW: u32 = WIN_SEG + WIN_P_PAD;
/// Largest radius of the window blur: a column sum of `2r + 1` bytes fits
/// its u16 lane, and the halo leaves a band of output bytes.
pub const WIN_MAX_RADIUS: u32 = 64;
/// Most dynamic shared memory a window-blur block may take: under the
/// A100's per-block maximum (163 KB), so every radius the kernel accepts
/// launches on sm_80 and sm_90 alike.
pub const WIN_MAX_SHARED: u32 = 160 * 1024;

/// Halo bytes on each side of a band: the `channels · r` bytes a window
/// reaches beyond it.
#[inline(always)]
pub const fn win_halo(channels: u32, r: u32) -> u32 {
    channels * r
}

/// Output bytes per row of a window-blur block: the segment less its two
/// halos (a multiple of `channels`: 768 is a multiple of 1, 2, 3 and 4).
#[inline(always)]
pub const fn win_band(channels: u32, r: u32) -> u32 {
    WIN_SEG - 2 * win_halo(channels, r)
}

/// Ring rows of a window-blur block at radius `r`: the `2r + 1` rows of
/// the window of every row of a batch (`2r + 8` rows), the row leaving
/// before the batch's first, and the [`WIN_AHEAD`] batches in flight.
#[inline(always)]
pub const fn win_slots(r: u32) -> u32 {
    2 * r + 1 + WIN_BATCH * (WIN_AHEAD + 1)
}

/// Steps a block takes before its first output row: the `2r` rows of the
/// first window, rounded up to whole batches (its vertical sums start at
/// zero).
#[inline(always)]
pub const fn win_prologue(r: u32) -> u32 {
    (2 * r).div_ceil(WIN_BATCH) * WIN_BATCH
}

/// The ring of raw rows (bytes): `(slot, byte)`.
#[inline(always)]
pub const fn win_ring(r: u32) -> Layout2 {
    Layout2::row_major(win_slots(r) as usize, WIN_RING_ROW as usize)
}

/// The batch's column sums (u16, after the ring): `(row, segment byte)`;
/// the same bytes hold the batch's output rows later ([`win_out`]).
#[inline(always)]
pub const fn win_vsum() -> Layout2 {
    Layout2::row_major(WIN_BATCH as usize, WIN_SEG as usize)
}

/// The batch's output rows (bytes, over [`win_vsum`]): `(row, byte)`,
/// byte `b` holding image byte `chunk_start + b` of the row, where
/// `chunk_start` is the 16-byte boundary at or before the band's first byte.
#[inline(always)]
pub const fn win_out() -> Layout2 {
    Layout2::row_major(WIN_BATCH as usize, 2 * WIN_SEG as usize)
}

/// The batch's horizontal prefix sums (u32, after the column sums):
/// `(row, WIN_P_PAD + segment byte)`.
#[inline(always)]
pub const fn win_prefix() -> Layout2 {
    Layout2::row_major(WIN_BATCH as usize, WIN_P_ROW as usize)
}

/// Byte offsets of the column sums and the prefix sums in shared memory.
#[inline(always)]
pub const fn win_shared_parts(r: u32) -> (usize, usize) {
    let v = win_ring(r).size();
    (v, v + 2 * win_vsum().size())
}

/// Byte offset of the ring's row records (one u32 per slot, after the
/// prefix sums): the row's distance from its chunk boundary
/// ([`win_chunk_split`]) and whether it was loaded ([`WIN_ROW_LOADED`]).
#[inline(always)]
pub const fn win_meta_offset(r: u32) -> usize {
    win_shared_parts(r).1 + 4 * win_prefix().size()
}

/// Flag of a ring row record: the row is inside the image and the strip's
/// reach, and its bytes were copied.
pub const WIN_ROW_LOADED: u32 = 1 << 8;

/// Dynamic shared memory of a window-blur block at radius `r`.
pub const fn win_shared_bytes(r: u32) -> u32 {
    (win_meta_offset(r) + 4 * win_slots(r) as usize).div_ceil(16) as u32 * 16
}

/// Whether the window blur handles `channels` at radius `r` (any width and
/// height): 1 to 4 channels, radius 1 to [`WIN_MAX_RADIUS`] with a band of
/// at least 64 bytes, the block's shared memory under [`WIN_MAX_SHARED`].
pub const fn win_supports(channels: u32, r: u32) -> bool {
    channels >= 1
        && channels <= 4
        && r >= 1
        && r <= WIN_MAX_RADIUS
        && 2 * win_halo(channels, r) + 64 <= WIN_SEG
        && (2 * r + 1) * 255 <= u16::MAX as u32
        && win_shared_bytes(r) <= WIN_MAX_SHARED
}

/// `(m, s)` such that `div_round_half_up(sum, count) = mul_hi(sum + count
/// / 2, m) >> s` for `2 ≤ count < 2²²` and `sum ≤ 255 · count`:
/// `s = floor(log2(count - 1))`, `m = ceil(2^(32 + s) / count)` (below 2³²
/// because `2^s < count`). With `n = sum + count / 2 < 256 · count` and
/// `m · count = 2^(32 + s) + e`, `e < count`, the product exceeds
/// `n / count` by `n · e / (count · 2^(32 + s)) < 256 · count / 2^(32 + s)
/// < 1 / count` (as `2^s > (count - 1) / 2`): never enough to reach the
/// next integer (tested below for every full window up to radius 64).
pub const fn recip_magic_shift(count: u32) -> (u32, u32) {
    if count < 2 {
        return (0, 0);
    }
    let s = 31 - (count - 1).leading_zeros();
    (((1u64 << (32 + s)).div_ceil(count as u64)) as u32, s)
}

/// [`div_round_half_up`] through [`recip_magic_shift`]`(count) = (m, s)`.
#[inline(always)]
pub const fn div_round_magic_shift(sum: u32, count: u32, m: u32, s: u32) -> u32 {
    mul_hi(sum + count / 2, m) >> s
}

/// The shape of a window-blur launch, passed by value
/// (`.param .align 4 .b8 p[40]`). The channel count is a compile-time
/// constant of each kernel.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowParams {
    /// Pixels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Bytes per row.
    pub row_bytes: u32,
    /// Blur radius.
    pub radius: u32,
    /// Output bytes per row of a block ([`win_band`]).
    pub band: u32,
    /// Bands per row: `ceil(row_bytes / band)`.
    pub bands: u32,
    /// Output rows per block (the strip height).
    pub strip_rows: u32,
    /// Strips: `ceil(height / strip_rows)`.
    pub strips: u32,
    /// [`recip_magic_shift`] of the full window `(2r + 1)²`: multiplier.
    pub magic: u32,
    /// ... and shift.
    pub shift: u32,
}

impl WindowParams {
    /// Parameters of a `width × height × channels` image blurred with radius
    /// `r` in strips of `strip_rows` rows (`strip_rows ≥ 1`; the caller
    /// checked [`win_supports`] and the image size).
    pub const fn new(width: u32, height: u32, channels: u32, r: u32, strip_rows: u32) -> Self {
        let row_bytes = width * channels;
        let band = win_band(channels, r);
        let (magic, shift) = recip_magic_shift(full_count(r));
        WindowParams {
            width,
            height,
            row_bytes,
            radius: r,
            band,
            bands: row_bytes.div_ceil(band),
            strip_rows,
            strips: height.div_ceil(strip_rows),
            magic,
            shift,
        }
    }

    /// Blocks of the launch: one per band and strip.
    pub const fn blocks(&self) -> u32 {
        self.bands * self.strips
    }
}

/// Band and strip of window-blur block `b`: bands fastest, so the blocks
/// running together cover whole rows and read each other's halo bytes at
/// about the same time (the second read hits L2).
#[inline(always)]
pub const fn win_block(b: u32, bands: u32) -> (u32, u32) {
    (b % bands, b / bands)
}

/// Launch of the window blur at radius `r`: one block per band and strip.
pub const fn blur_window_config(p: WindowParams) -> LaunchConfig {
    LaunchConfig::linear(p.blocks(), WIN_THREADS).with_shared(win_shared_bytes(p.radius))
}

/// Blocks per SM the window-blur kernels are built for (their launch
/// bounds: at most 128 registers a thread, so two blocks of
/// [`WIN_THREADS`] fit an SM's registers, as two fit its shared memory at
/// radius 32).
pub const WIN_BLOCKS_BOUND: u32 = 2;

/// Blocks of the window blur at radius `r` that fit one SM (228 KB of
/// shared memory, 1 KB of it reserved per block; at most
/// [`WIN_BLOCKS_BOUND`], its registers).
pub const fn win_blocks_per_sm(r: u32) -> u32 {
    let n = (228 * 1024) / (win_shared_bytes(r) + 1024);
    if n > WIN_BLOCKS_BOUND {
        WIN_BLOCKS_BOUND
    } else if n == 0 {
        1
    } else {
        n
    }
}

/// The default strip height of the window blur: the shortest strips (a
/// multiple of [`WIN_BATCH`] rows) whose blocks fill at most `waves` whole
/// waves of `blocks_per_sm` blocks on `sm_count` SMs, and at least four
/// prologues tall (the `2r` rows a strip reads before its first output are
/// extra work: a quarter at most), at most the image. Whole waves: every
/// block does the same work, so a partly filled last wave would run as
/// long as a full one.
pub const fn win_strip_rows(bands: u32, height: u32, r: u32, sm_count: u32, blocks_per_sm: u32, waves: u32) -> u32 {
    let slots = waves as u64 * sm_count as u64 * blocks_per_sm as u64;
    let strips = slots / if bands == 0 { 1 } else { bands as u64 };
    let rows = if strips == 0 { height as u64 } else { (height as u64).div_ceil(strips) };
    let rows = rows.div_ceil(WIN_BATCH as u64) * WIN_BATCH as u64;
    let floor = 4 * win_prologue(r) as u64;
    let rows = if rows < floor { floor } else { rows };
    let cap = (height as u64).div_ceil(WIN_BATCH as u64) * WIN_BATCH as u64;
    let rows = if rows > cap { cap } else { rows };
    if rows == 0 {
        1
    } else if rows > u32::MAX as u64 {
        u32::MAX
    } else {
        rows as u32
    }
}

/// Image byte (flat offset, may be negative at the left edge) of the first
/// byte of the segment of `row`: `row · row_bytes + band_start - halo`.
#[inline(always)]
pub const fn win_seg_start(row: u32, row_bytes: u32, band_start: u32, halo: u32) -> i64 {
    row as i64 * row_bytes as i64 + band_start as i64 - halo as i64
}

/// The 16-byte chunk boundary at or before flat offset `f` and the
/// distance from it: `(f - f mod 16, f mod 16)` (floor for negative `f`).
#[inline(always)]
pub const fn win_chunk_split(f: i64) -> (i64, u32) {
    let sh = f.rem_euclid(16);
    (f - sh, sh as u32)
}

/// Bytes to copy of the ring row's chunk `k` (16 bytes at flat
/// `chunk_start + 16 k`): the bytes inside both the row's needed range
/// `[lo, hi)` and the image's `[0, total)`, counted from the chunk's first
/// byte (0: skip the chunk; 1–16: `cp.async` with zero fill); `lo` and
/// `hi` lie inside one row, so a needed chunk starts inside the image.
#[inline(always)]
pub const fn win_chunk_bytes(chunk_start: i64, k: u32, lo: i64, hi: i64, total: i64) -> u32 {
    let a = chunk_start + 16 * k as i64;
    if a + 16 <= lo || a >= hi || a < 0 || a >= total {
        0
    } else if a + 16 <= total {
        16
    } else {
        (total - a) as u32
    }
}

/// Mask of the bytes of segment word `t` (bytes `4t .. 4t + 4` of the
/// segment starting at image column byte `seg_x`, possibly negative) that
/// lie inside the row `[0, row_bytes)`: 0xff per byte inside.
#[inline(always)]
pub const fn win_word_mask(seg_x: i64, t: u32, row_bytes: u32) -> u32 {
    let mut m = 0u32;
    let mut j = 0;
    while j < 4 {
        let x = seg_x + 4 * t as i64 + j;
        if x >= 0 && x < row_bytes as i64 {
            m |= 0xff << (8 * j);
        }
        j += 1;
    }
    m
}

/// Relative row `j` of a strip's walk as a ring slot: rows from
/// `-prologue - r - 1` (the first row a block ever references) map to
/// slots `0, 1, …` cyclically.
#[inline(always)]
pub const fn win_slot(j: i32, r: u32) -> u32 {
    let first = -(win_prologue(r) as i32) - r as i32 - 1;
    ((j - first) as u32) % win_slots(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout;
    use crate::layout::analysis::{sectors, WARP};
    use proptest::prelude::*;
    use std::vec;

    #[test]
    fn gray_rule_is_the_rounded_pmpp_weighting() {
        for (r, g, b) in [(0, 0, 0), (255, 255, 255), (255, 0, 0), (0, 255, 0), (0, 0, 255), (10, 200, 30)] {
            let exact = 0.21 * r as f64 + 0.72 * g as f64 + 0.07 * b as f64;
            let got = gray_of(r, g, b) as f64;
            assert!((got - exact).abs() <= 0.5, "{r},{g},{b}: {got} vs {exact}");
        }
        assert_eq!(gray_of(255, 255, 255), 255);
        assert_eq!(gray_of(0, 0, 0), 0);
    }

    #[test]
    fn magic_division_is_exact_for_every_count_up_to_4096() {
        for d in 2..=MAGIC_MAX_COUNT {
            let m = recip_magic(d);
            // The sums nearest every multiple of d, where an error would show,
            // plus both ends of the range.
            let mut q = 0;
            while q * d <= 255 * d {
                for s in [q * d, (q * d).saturating_sub(1), q * d + d / 2, (q * d + d / 2).saturating_sub(1), q * d + d - 1] {
                    if s <= 255 * d {
                        assert_eq!(div_round_magic(s, d, m), div_round_half_up(s, d), "sum {s} count {d}");
                    }
                }
                q += 1;
            }
        }
        assert_eq!(recip_magic(1), 0);
        assert_eq!(recip_magic(MAGIC_MAX_COUNT + 1), 0);
    }

    #[test]
    fn corner_and_edge_counts_at_radius_1() {
        assert_eq!(blur_count(0, 0, 1, 62, 76), 4);
        assert_eq!(blur_count(61, 75, 1, 62, 76), 4);
        assert_eq!(blur_count(5, 0, 1, 62, 76), 6);
        assert_eq!(blur_count(0, 5, 1, 62, 76), 6);
        assert_eq!(blur_count(5, 5, 1, 62, 76), 9);
        assert_eq!(blur_count(0, 0, 1, 1, 1), 1);
        assert_eq!(blur_count(0, 0, 0, 1, 1), 1);
    }

    #[test]
    fn the_62x76_picture_takes_4x5_blocks_of_four_kinds() {
        let c = pixel_config(62, 76);
        assert_eq!((c.grid[0], c.grid[1]), (4, 5));
        let mut kinds = std::collections::BTreeSet::new();
        for by in 0..c.grid[1] {
            for bx in 0..c.grid[0] {
                let working = (0..16).filter(|t| bx * 16 + t < 62).count() * (0..16).filter(|t| by * 16 + t < 76).count();
                kinds.insert(working);
            }
        }
        assert_eq!(kinds.into_iter().collect::<vec::Vec<_>>(), vec![14 * 12, 16 * 12, 14 * 16, 256]);
    }

    #[test]
    fn fast_blur_supports_the_benchmark_radii() {
        for r in 1..=3 {
            assert!(fast_supports(1, r) && fast_supports(3, r));
        }
        assert!(!fast_supports(1, 0));
        assert!(!fast_supports(3, 6));
        assert!(fast_shared_bytes(3) <= 48 * 1024);
        assert_eq!(FAST_BLOCK[0] * FAST_BLOCK[1], 256);
    }

    #[test]
    fn hsum_lanes_are_a_bijection_matching_the_pairing() {
        let mut seen = [[false; 2]; 8];
        for j in 0..16 {
            let (w, h) = hsum_lane(j);
            assert!(!seen[w][h], "lane of byte {j} taken twice");
            seen[w][h] = true;
            // Word m pairs bytes j0 and j0 + 2 with j0 = 4 (m / 2) + m % 2.
            assert_eq!(4 * (w / 2) + w % 2 + 2 * h, j);
            assert_eq!(hsum_byte(w, h), j);
        }
    }

    #[test]
    fn gray_vec16_chunks_are_aligned_and_together_coalesced() {
        // A warp's three input loads together touch exactly the sectors of
        // its 32 × 48 contiguous bytes; its store, 32 × 16 bytes.
        let mut all = std::collections::BTreeSet::new();
        for k in 0..3 {
            let addrs: [Option<usize>; WARP] = core::array::from_fn(|l| Some(gray_chunk_in(l as u32) + 16 * k));
            assert!(addrs.iter().flatten().all(|a| a % 16 == 0));
            assert_eq!(sectors(&addrs, 16), 32);
            for a in addrs.iter().flatten() {
                all.insert(a / 32);
            }
        }
        assert_eq!(all.len(), 32 * 48 / 32);
        let out: [Option<usize>; WARP] = core::array::from_fn(|l| Some(gray_chunk_out(l as u32)));
        assert_eq!(sectors(&out, 16), 16);
    }

    #[test]
    fn magic24_division_is_exact_for_every_byte_mean_up_to_count_255() {
        for count in 1..=255u32 {
            let m = magic24(count);
            for sum in 0..=255 * count {
                assert_eq!(div_round_magic24(sum, count, m), div_round_half_up(sum, count), "sum {sum} count {count}");
            }
            // The product never wraps: the quotient is byte 3 of it.
            let n = 255 * count + count / 2;
            assert!((n as u64) * (m as u64) < 1 << 32, "count {count}");
        }
    }

    #[test]
    fn packed_pairs_are_the_even_odd_split() {
        // V[b] = b + 100 for bytes b of words -3..7; E/O as the kernel builds them.
        let v = |b: i32| (b + 100) as u32;
        let e = |i: i32| v(4 * i) | v(4 * i + 2) << 16;
        let o = |i: i32| v(4 * i + 1) | v(4 * i + 3) << 16;
        for m in -12..24 {
            let (i, kind) = packed_pair(m);
            let w = match kind {
                0 => e(i),
                1 => o(i),
                2 => (e(i) >> 16) | (e(i + 1) << 16),
                _ => (o(i) >> 16) | (o(i + 1) << 16),
            };
            assert_eq!(w, v(m) | v(m + 2) << 16, "m {m}");
        }
    }

    #[test]
    fn slide_windows_stay_inside_the_loaded_halo() {
        for c in [1u32, 3] {
            for r in 1..=3u32 {
                let hw = slide_halo_words(c, r) as i32;
                assert!(slide_supports(16, c, r));
                assert!(slide_words(c, r) as usize <= SLIDE_MAX_WORDS);
                // Output words m = 4q + s (s = 0, 1) sum W(m + c k), |k| ≤ r.
                for q in 0..4 {
                    for s in 0..2 {
                        for k in -(r as i32)..=r as i32 {
                            let (i, kind) = packed_pair(4 * q + s + c as i32 * k);
                            let last = if kind >= 2 { i + 1 } else { i };
                            assert!(i >= -hw && last < 4 + hw, "c {c} r {r} q {q} s {s} k {k}");
                        }
                    }
                }
                // A column sum plus one more row fits a u16 lane (the running
                // update adds before it subtracts).
                assert!((2 * r + 2) * 255 <= u16::MAX as u32);
                assert!(slide_shared_bytes(c, r) <= 48 * 1024);
            }
        }
        assert!(!slide_supports(15, 1, 1) && !slide_supports(16, 1, 0) && !slide_supports(16, 1, 4) && !slide_supports(16, 2, 1));
        assert!(slide_supports(16, 3, 3) && !slide_supports(17, 3, 1));
    }

    #[test]
    fn slide_ring_accesses_are_conflict_free() {
        for (c, r) in [(1u32, 1u32), (1, 3), (3, 3)] {
            let (core, halo) = (slide_ring_core(r), slide_ring_halo(c, r));
            for slot in 0..slide_ring_slots(r) as usize {
                for warp in 0..(SLIDE_THREADS as usize / WARP) {
                    let a: [Option<usize>; WARP] = core::array::from_fn(|l| Some(16 * core.offset(slot, warp * WARP + l)));
                    assert_eq!(layout::analysis::bank_conflict_degree(&a, 16), 1);
                    for k in 0..2 * slide_halo_words(c, r) as usize {
                        let h: [Option<usize>; WARP] =
                            core::array::from_fn(|l| Some(16 * core.size() + 4 * halo.offset(slot, k, warp * WARP + l)));
                        assert_eq!(layout::analysis::bank_conflict_degree(&h, 4), 1);
                    }
                }
            }
            assert_eq!(slide_shared_bytes(c, r) as usize, 16 * core.size() + 4 * halo.size());
        }
    }

    #[test]
    fn default_strips_grow_with_the_image() {
        let t = slide_target_threads(132);
        assert_eq!(slide_strip_rows(512, 8192, t), 16);
        assert_eq!(slide_strip_rows(3 * 512, 8192, t), 16);
        assert_eq!(slide_strip_rows(120, 1080, t), 2);
        assert_eq!(slide_strip_rows(360, 1080, t), 4);
        assert_eq!(slide_strip_rows(1, 1, t), SLIDE_STRIP_RANGE[0]);
        assert_eq!(slide_strip_rows(u32::MAX / 16, 1 << 20, t), SLIDE_STRIP_RANGE[1]);
    }

    #[test]
    fn hi_lane_division_is_exact_for_every_sum_and_count_up_to_64() {
        for count in 2..=HI_LANE_MAX_COUNT {
            let m = magic24(count);
            assert!((m as u64) << 8 < 1 << 32);
            for sum in 0..=255 * count {
                let hi = sum + lane_bias(count);
                for lo in [0, 1, 255 * 49 + 24, HI_LANE_MAX_LOW, (sum * 7919) % (HI_LANE_MAX_LOW + 1)] {
                    let word = lo | hi << 16;
                    assert_eq!(div_round_hi_lane(word, m), div_round_half_up(sum, count), "sum {sum} count {count} lo {lo}");
                    // Byte 3 of the product is zero: the quotient is byte 2.
                    assert_eq!(mul_hi(word, m << 8) >> 24, 0);
                }
            }
        }
    }

    #[test]
    fn hslide_strips_fill_whole_waves() {
        // H200 (132 SMs), gray and RGB at 8192², full HD.
        assert_eq!(hslide_strip_rows(512, 8192, 132, 6, 2), 21);
        assert_eq!(hslide_strip_rows(512, 8192, 132, 5, 2), 25);
        assert_eq!(hslide_strip_rows(120, 1080, 132, 6, 2), 2);
        assert_eq!(hslide_strip_rows(360, 1080, 132, 6, 1), 4);
        assert_eq!(hslide_strip_rows(1, 1, 132, 6, 2), SLIDE_STRIP_RANGE[0]);
        // The defaults of the second H200 run's measurements: 3 waves at
        // 8192², 2 waves at full HD.
        assert_eq!(hslide_default_strip_rows(512, 8192, 132, 6), 14);
        assert_eq!(hslide_default_strip_rows(512, 8192, 132, 5), 17);
        assert_eq!(hslide_default_strip_rows(1536, 8192, 132, 6), 42);
        assert_eq!(hslide_default_strip_rows(1536, 8192, 132, 5), 50);
        assert_eq!(hslide_default_strip_rows(120, 1080, 132, 6), 2);
        assert_eq!(hslide_default_strip_rows(360, 1080, 132, 6), 2);
        assert_eq!(hslide_default_strip_rows(360, 1080, 132, 5), 3);
        for c in [1u32, 3] {
            for r in 1..=3 {
                let n = hslide_blocks_per_sm(c, r);
                // The rings of n blocks fit an SM's 227 KB.
                assert!(n * hslide_shared_bytes(r) <= 227 * 1024);
                assert!(hslide_prefetch(c, r) as usize <= SLIDE_MAX_PREFETCH);
                assert!(hslide_prologue_rows(c, r) as usize <= HSLIDE_MAX_PROLOGUE);
                assert!(hslide_prologue_rows(c, r) <= 2 * r);
            }
        }
    }

    #[test]
    fn hslide_ring_accesses_are_conflict_free() {
        for r in 1..=3u32 {
            let ring = hslide_ring(r);
            for slot in 0..slide_ring_slots(r) as usize {
                for half in 0..2 {
                    for warp in 0..(SLIDE_THREADS as usize / WARP) {
                        let a: [Option<usize>; WARP] = core::array::from_fn(|l| Some(16 * ring.offset(slot, half, warp * WARP + l)));
                        assert_eq!(layout::analysis::bank_conflict_degree(&a, 16), 1);
                    }
                }
            }
            assert!(hslide_shared_bytes(r) <= 48 * 1024);
            // A window sum plus its bias fits a lane and stays under
            // HI_LANE_MAX_LOW (the running update is mod 2³² on whole
            // words, so only the final lanes must fit).
            assert!(full_count(r) * 255 + lane_bias(full_count(r)) <= HI_LANE_MAX_LOW);
            assert!(full_count(r) <= HI_LANE_MAX_COUNT);
        }
    }

    #[test]
    fn magic_shift_division_is_exact_for_every_full_window_up_to_the_largest_radius() {
        for r in 1..=WIN_MAX_RADIUS {
            let count = full_count(r);
            let (m, s) = recip_magic_shift(count);
            // Every sum for the small windows; near every multiple (where an
            // error would show) and both ends for the large ones.
            if r <= 12 {
                for sum in 0..=255 * count {
                    assert_eq!(div_round_magic_shift(sum, count, m, s), div_round_half_up(sum, count), "sum {sum} r {r}");
                }
            } else {
                for q in 0..=255 {
                    for d in [0, 1, count / 2, count / 2 + 1, count - 1] {
                        for sum in [(q * count + d).saturating_sub(1), q * count + d] {
                            if sum <= 255 * count {
                                assert_eq!(div_round_magic_shift(sum, count, m, s), div_round_half_up(sum, count), "sum {sum} r {r}");
                            }
                        }
                    }
                }
            }
        }
        // Other counts too (the proof does not need a square).
        for count in [2u32, 3, 7, 4096, 4097, 4225, 65_535, 1 << 20] {
            let (m, s) = recip_magic_shift(count);
            for sum in [0, 1, count / 2, count, 255 * count - 1, 255 * count] {
                assert_eq!(div_round_magic_shift(sum, count, m, s), div_round_half_up(sum, count), "sum {sum} count {count}");
            }
        }
    }

    #[test]
    fn window_blur_fits_its_shared_memory_and_lanes() {
        for c in 1..=4u32 {
            for r in 1..=WIN_MAX_RADIUS {
                let ok = win_supports(c, r);
                // Radius 1 to 32 (the acceptance range) for every channel count.
                assert!(ok || r > 32, "c {c} r {r}");
                if !ok {
                    continue;
                }
                assert!(win_shared_bytes(r) <= WIN_MAX_SHARED);
                assert_eq!(win_band(c, r) % c, 0);
                // A column sum of 2r + 1 bytes fits its u16 lane; a row of
                // prefix sums fits u32.
                assert!((2 * r + 1) * 255 <= u16::MAX as u32);
                assert!(WIN_SEG as u64 * u16::MAX as u64 <= u32::MAX as u64);
                // The pads cover the prefix sum `c` bytes before the segment.
                assert!(c <= WIN_P_PAD);
                assert!(win_prologue(r) >= 2 * r && win_prologue(r) % WIN_BATCH == 0);
            }
        }
        assert!(!win_supports(1, 0) && !win_supports(5, 1) && !win_supports(1, WIN_MAX_RADIUS + 1));
        // The parts of shared memory start on 16-byte boundaries.
        let (v, p) = win_shared_parts(7);
        assert!(v % 16 == 0 && p % 16 == 0 && win_meta_offset(7) % 16 == 0);
        assert_eq!(WIN_RING_ROW % 16, 0);
        assert!(win_out().size() <= 2 * win_vsum().size());
    }

    #[test]
    fn window_blur_shared_accesses_are_conflict_free() {
        // Vertical: thread t reads ring words base + t (and + 1).
        let a: [Option<usize>; WARP] = core::array::from_fn(|l| Some(4 * (3 + l)));
        assert_eq!(layout::analysis::bank_conflict_degree(&a, 4), 1);
        // Column sums: u32x2 stores 8 bytes apart; u32x4 loads of a lane's 24 sums (48 bytes).
        let s: [Option<usize>; WARP] = core::array::from_fn(|l| Some(2 * win_vsum().offset(1, 4 * l)));
        assert_eq!(layout::analysis::bank_conflict_degree(&s, 8), 1);
        for k in 0..3 {
            let v: [Option<usize>; WARP] = core::array::from_fn(|l| Some(2 * win_vsum().offset(3, (WIN_RUN as usize) * l) + 16 * k));
            assert_eq!(layout::analysis::bank_conflict_degree(&v, 16), 1);
        }
        // Outputs: round k reads prefix sums 32 k + lane (+ offsets).
        for off in [0usize, 5, 130] {
            let q: [Option<usize>; WARP] = core::array::from_fn(|l| Some(4 * (win_prefix().offset(2, WIN_P_PAD as usize + off + l))));
            assert_eq!(layout::analysis::bank_conflict_degree(&q, 4), 1);
        }
    }

    #[test]
    fn window_ring_slots_never_collide_while_in_use() {
        // At batch b the block reads rows i0 - r - 1 ..= i0 + 7 + r and has
        // WIN_AHEAD batches in flight: every one of those rows its own slot.
        for r in [1u32, 2, 3, 8, 31, 64] {
            let p = win_prologue(r) as i32;
            for b in 0..40i32 {
                let i0 = -p + b * WIN_BATCH as i32;
                let lo = i0 - r as i32 - 1;
                let hi = i0 + (WIN_BATCH * (WIN_AHEAD + 1)) as i32 - 1 + r as i32;
                assert_eq!((hi - lo + 1) as u32, win_slots(r));
                let mut seen = std::vec![false; win_slots(r) as usize];
                for j in lo..=hi {
                    let s = win_slot(j, r) as usize;
                    assert!(!seen[s], "r {r} b {b} row {j}");
                    seen[s] = true;
                }
            }
        }
    }

    proptest! {
        #[test]
        fn window_chunks_cover_each_needed_byte_inside_the_image(w in 1u32..3000, h in 1u32..50, c in 1u32..5, r in 1u32..65, band_pick in 0u32..100, row_pick in 0u32..100) {
            prop_assume!(win_supports(c, r));
            let p = WindowParams::new(w, h, c, r, 8);
            let band = band_pick % p.bands;
            let row = row_pick % h;
            let (x0, halo) = (band * p.band, win_halo(c, r));
            prop_assert!(x0 < p.row_bytes);
            let total = p.row_bytes as i64 * h as i64;
            let f = win_seg_start(row, p.row_bytes, x0, halo);
            let (cs, sh) = win_chunk_split(f);
            prop_assert!(cs % 16 == 0 && cs + sh as i64 == f && sh < 16);
            // The segment fits the ring row from its chunk boundary.
            prop_assert!(sh + WIN_SEG <= WIN_RING_ROW);
            let seg_x = x0 as i64 - halo as i64;
            let base = row as i64 * p.row_bytes as i64;
            let lo = base + seg_x.max(0);
            let hi = base + (seg_x + WIN_SEG as i64).min(p.row_bytes as i64);
            let mut covered = std::vec![false; (hi - lo) as usize];
            for k in 0..WIN_RING_ROW / 16 {
                let n = win_chunk_bytes(cs, k, lo, hi, total);
                prop_assert!(n <= 16);
                let a = cs + 16 * k as i64;
                if n > 0 {
                    prop_assert!(a >= 0 && a + n as i64 <= total);
                    prop_assert!(n == 16 || a + n as i64 == total);
                }
                for q in 0..n as i64 {
                    if (lo..hi).contains(&(a + q)) {
                        covered[(a + q - lo) as usize] = true;
                    }
                }
            }
            prop_assert!(covered.iter().all(|&b| b));
            // The masks keep exactly the segment bytes inside the row.
            for t in 0..WIN_SEG / 4 {
                let m = win_word_mask(seg_x, t, p.row_bytes);
                for j in 0..4 {
                    let x = seg_x + 4 * t as i64 + j;
                    prop_assert_eq!((m >> (8 * j)) & 0xff != 0, x >= 0 && x < p.row_bytes as i64);
                }
            }
        }

        #[test]
        fn window_blocks_cover_every_output_byte_once(w in 1u32..5000, h in 1u32..300, c in 1u32..5, r in 1u32..65, strip in 1u32..100) {
            prop_assume!(win_supports(c, r));
            let p = WindowParams::new(w, h, c, r, strip);
            let cfg = blur_window_config(p);
            prop_assert_eq!(cfg.grid[0], p.bands * p.strips);
            prop_assert_eq!(cfg.block[0], WIN_THREADS);
            let mut seen = std::vec![0u8; (p.row_bytes as usize) * (h as usize)];
            for b in 0..p.blocks() {
                let (band, st) = win_block(b, p.bands);
                prop_assert!(band < p.bands && st < p.strips);
                let x0 = band * p.band;
                let bytes = p.band.min(p.row_bytes - x0);
                let (y0, y1) = (st * strip, ((st + 1) * strip).min(h));
                for y in y0..y1 {
                    for x in x0..x0 + bytes {
                        seen[(y * p.row_bytes + x) as usize] += 1;
                    }
                }
            }
            prop_assert!(seen.iter().all(|&s| s == 1));
        }

        #[test]
        fn window_strips_fill_whole_waves(bands in 1u32..200, h in 1u32..20000, r in 1u32..65, sms in 1u32..200, bps in 1u32..5, waves in 1u32..3) {
            let s = win_strip_rows(bands, h, r, sms, bps, waves);
            let cap = h.div_ceil(WIN_BATCH) * WIN_BATCH;
            prop_assert!(s >= 1 && s <= cap);
            prop_assert!(s % WIN_BATCH == 0);
            let blocks = bands as u64 * h.div_ceil(s) as u64;
            let slots = (waves * sms * bps) as u64;
            // Whole waves, unless the floor of four prologues (or one strip
            // per band) asks for fewer, taller strips.
            prop_assert!(blocks <= slots || s == cap || s == 4 * win_prologue(r) || slots < bands as u64);
        }

        #[test]
        fn pixel_layout_is_the_byte_row_layout(w in 1u32..40, h in 1u32..40, c in 1u32..4) {
            let p = pixel_layout(w, h, c);
            let b = byte_rows(w, h, c);
            let mut seen = vec![false; p.size()];
            for y in 0..h as usize { for x in 0..w as usize { for ch in 0..c as usize {
                let o = p.offset(y, x, ch);
                prop_assert_eq!(o, b.offset(y, x * c as usize + ch));
                prop_assert!(!seen[o]);
                seen[o] = true;
            }}}
            prop_assert!(seen.iter().all(|s| *s));
        }

        #[test]
        fn window_matches_brute_force(n in 1u32..300, i in 0u32..300, r in 0u32..300) {
            let i = i % n;
            let brute = (0..n).filter(|&j| (j as i64 - i as i64).abs() <= r as i64).count() as u32;
            prop_assert_eq!(window_len(i, r, n), brute);
            prop_assert_eq!(window_lo(i, r), (0..n).find(|&j| (j as i64 - i as i64).abs() <= r as i64).unwrap());
        }

        #[test]
        fn magic_matches_plain_division(d in 2u32..=MAGIC_MAX_COUNT, f in 0.0f64..=1.0) {
            let s = (f * (255 * d) as f64) as u32;
            prop_assert_eq!(div_round_magic(s, d, recip_magic(d)), div_round_half_up(s, d));
        }

        #[test]
        fn volume_layout_is_the_pmpp_formula(m in 1u32..20, n in 1u32..20, p in 1u32..20) {
            let v = VolumeParams { cols: m, rows: n, planes: p };
            let l = volume_layout(v);
            for plane in 0..p { for row in 0..n { for col in 0..m {
                let o = l.offset(plane as usize, row as usize, col as usize);
                prop_assert_eq!(o, (plane * m * n + row * m + col) as usize);
            }}}
            let c = volume_config(v);
            prop_assert!(c.grid[0] * VOLUME_BLOCK[0] >= m && c.grid[1] * VOLUME_BLOCK[1] >= n && c.grid[2] * VOLUME_BLOCK[2] >= p);
        }

        #[test]
        fn slide_threads_cover_every_chunk_and_strip_once(wc in 1u32..40, h in 1u32..300, strip in 1u32..40, c in prop::sample::select(vec![1u32, 3])) {
            let w = 16 * wc;
            let p = SlideParams::new(w, h, c, strip);
            let cfg = blur_slide_config(p, c, 1);
            prop_assert!(cfg.grid[0] * SLIDE_THREADS >= p.threads());
            let mut seen = vec![false; (p.chunks * p.strips) as usize];
            let mut last_edge = false;
            for g in 0..p.threads() {
                let (col, s) = slide_thread(g, p.chunks, p.strips);
                // Edge threads first, then the inner threads.
                let edge = slide_is_edge(col, p.chunks);
                prop_assert!(!edge || last_edge || g == 0);
                last_edge = edge;
                prop_assert!(col < p.chunks && s < p.strips);
                let i = (s * p.chunks + col) as usize;
                prop_assert!(!seen[i]);
                seen[i] = true;
            }
            prop_assert!(p.strips * strip >= h && (p.strips - 1) * strip < h);
            // A warp's 16-byte loads of one row: 32 chunks of one strip are coalesced.
            if p.chunks >= WARP as u32 {
                let row = byte_rows(w, h, c);
                let a: [Option<usize>; WARP] = core::array::from_fn(|l| Some(row.offset(0, l * SLIDE_CHUNK as usize)));
                prop_assert_eq!(sectors(&a, 16), WARP / 2);
            }
        }

        #[test]
        fn strips_walk_every_row_once_and_neighbours_meet(h in 1u32..400, strip in 1u32..40, r in 1u32..4) {
            let strips = h.div_ceil(strip);
            for st in 0..strips {
                let (y0, y1) = (st * strip, ((st + 1) * strip).min(h));
                let up = slide_strip_upward(st);
                let walk = slide_strip_walk(y0, y1, up);
                let n = y1 - y0;
                // The outputs: every row of the strip once, in walking order.
                let rows: std::vec::Vec<u32> = (0..n).map(|i| slide_strip_row(walk, i)).collect();
                let mut sorted = rows.clone();
                sorted.sort_unstable();
                prop_assert_eq!(sorted, (y0..y1).collect::<std::vec::Vec<_>>());
                prop_assert_eq!(rows[0], if up { y1 - 1 } else { y0 });
                // The prologue's rows (i = -1 ..= -r) lie beyond the
                // strip's first row, against the walking direction.
                for k in 1..=r {
                    let i = 0u32.wrapping_sub(k);
                    let row = slide_strip_row(walk, i);
                    let want = if up { y1 - 1 + k } else { y0.wrapping_sub(k) };
                    prop_assert_eq!(row, want);
                }
                // The rows read, over every step a thread may take (the
                // prologue, the strip, D ≤ 4 rows ahead past its end): each
                // row within r of the strip and inside the image exactly
                // once, nothing else.
                let mut read = std::vec![0u32; h as usize];
                for i in 0..n + r + 4 + r {
                    let i = i.wrapping_sub(r);
                    let row = slide_strip_row(walk, i);
                    if slide_strip_reads(row, i, n, r, h) {
                        prop_assert!(row < h);
                        read[row as usize] += 1;
                    }
                }
                for row in 0..h {
                    let near = row + r >= y0 && row < y1 + r;
                    prop_assert_eq!(read[row as usize], near as u32, "row {}", row);
                }
                // Neighbours start (or end) at the row they share.
                if st + 1 < strips {
                    let (n0, n1) = (y1, ((st + 2) * strip).min(h));
                    let nup = slide_strip_upward(st + 1);
                    prop_assert!(up != nup);
                    if up {
                        // This strip starts at its bottom, the next at its top.
                        prop_assert_eq!(rows[0] + 1, slide_strip_row(slide_strip_walk(n0, n1, nup), 0));
                    } else {
                        // This strip ends at its bottom, the next (upward) at its top.
                        prop_assert_eq!(*rows.last().unwrap() + 1, slide_strip_row(slide_strip_walk(n0, n1, nup), n1 - n0 - 1));
                    }
                }
            }
        }

        #[test]
        fn hslide_strips_never_exceed_their_waves(chunks in 1u32..5000, h in 1u32..20000, sms in 1u32..200, n in 1u32..9, waves in 1u32..4) {
            let s = hslide_strip_rows(chunks, h, sms, n, waves);
            prop_assert!(s >= SLIDE_STRIP_RANGE[0]);
            let threads = chunks as u64 * h.div_ceil(s) as u64;
            let slots = (waves * sms * n * SLIDE_THREADS) as u64;
            // Whole waves (up to block rounding), unless even the shortest
            // strips leave the image short of one wave.
            prop_assert!(threads <= slots || s == SLIDE_STRIP_RANGE[0] || slots < chunks as u64);
            // And no shorter strip would also fit: the tallest strips that do.
            if s > SLIDE_STRIP_RANGE[0] {
                prop_assert!(chunks as u64 * h.div_ceil(s - 1) as u64 > slots);
            }
        }

        #[test]
        fn only_edge_lanes_have_clipped_windows(wc in 1u32..20, c in prop::sample::select(vec![1u32, 3]), r in 1u32..4) {
            let w = 16 * wc;
            let rb = w * c;
            for b in 0..rb {
                if window_len(b / c, r, w) < 2 * r + 1 {
                    prop_assert!(slide_edge_lane(c, r, b % SLIDE_CHUNK), "byte {} of a {}-byte row", b, rb);
                }
            }
        }

        #[test]
        fn fast_tile_covers_every_output_with_its_halo(w in 1u32..2000, h in 1u32..300, ch in prop::sample::select(vec![1u32, 3]), r in 1u32..4) {
            let p = ImageParams::new(w, h, ch, r);
            let c = blur_fast_config(p);
            prop_assert!(c.grid[0] * FAST_TILE_W >= p.row_bytes());
            prop_assert!(c.grid[1] * FAST_TILE_H >= h);
            // The window of an output byte j of a tile row, j ± ch·r, lies in
            // the input row's halo chunks.
            prop_assert!(ch * r <= FAST_CHUNK);
            prop_assert!(fast_in_layout(r).cosize() <= fast_shared_bytes(r) as usize);
        }
    }
}
