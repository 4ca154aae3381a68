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
        early_launch: false,
            cluster: 1,
    }
    .fold_rows()
}

// ---------------------------------------------------------------------------
// Volume geometry
// ---------------------------------------------------------------------------

/// Threads per block of [`volume_affine`](super::volume_affine): (cols, rows, planes).
pub const VOLUME_BLOCK: [u32; 3] = [32, 4, 2];

/// One thread per element, 3D blocks of 32 × 4 × 2.
pub const fn volume_config(v: VolumeParams) -> LaunchConfig {
    let [bx, by, bz] = volume_blocks(v);
    LaunchConfig { grid: [bx, min_u32(by, MAX_GRID_YZ), min_u32(bz, MAX_GRID_YZ)], block: VOLUME_BLOCK, shared_bytes: 0, early_launch: false, cluster: 1 }
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

mod hslide;
mod slide;
mod window;
pub use self::hslide::*;
pub use self::slide::*;
pub use self::window::*;

#[cfg(test)]
mod tests;
