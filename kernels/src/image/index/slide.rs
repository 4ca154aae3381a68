//! Index math of the sliding-window blur rung (`blur_slide_*`).

#[allow(unused_imports)]
use super::*;

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
/// (`2r` extra rows per strip), short ones give more threads. Measured
/// (HISTORY.md): at 8192² 16 rows were best or close to it for gray and
/// RGB at radius 1 and 3, short strips lost; at 1920 × 1080 gray wanted 2
/// rows and RGB 4.
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
    (channels == 1 || channels == 3) && slide_shape_fits(width, channels, r)
}

/// [`slide_supports`] for the horizontal-first sliding blur
/// (`blur_hslide_*`), which also has RGBA kernels: 1, 3 or 4 channels.
pub const fn hslide_supports(width: u32, channels: u32, r: u32) -> bool {
    (channels == 1 || channels == 3 || channels == 4) && slide_shape_fits(width, channels, r)
}

/// The radius, row and halo conditions of [`slide_supports`].
const fn slide_shape_fits(width: u32, channels: u32, r: u32) -> bool {
    r >= 1
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
