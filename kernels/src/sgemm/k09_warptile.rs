//! Rung 9: warptiling (block tile → warp tiles → thread tiles), and the
//! configurations the autotuner compares.

use super::index::{PLAIN, SWIZZLED};
use super::tiled::{tiled_kernel, Tiling};

const fn warptile(bm: usize, bn: usize, bk: usize, wm: usize, wn: usize, tm: usize, tn: usize) -> Tiling {
    Tiling { bm, bn, bk, tm, tn, wm, wn, a_smem: SWIZZLED, b_smem: PLAIN, stages: 2 }
}

/// 128 × 128 × 8, warps 2 × 4 of 64 × 32, lanes 8 × 4, 8 × 8 per thread, 256 threads.
pub const WT_128X128X8_W64X32: Tiling = warptile(128, 128, 8, 64, 32, 8, 8);
/// 128 × 128 × 8, warps 4 × 2 of 32 × 64, lanes 4 × 8, 8 × 8 per thread, 256 threads.
pub const WT_128X128X8_W32X64: Tiling = warptile(128, 128, 8, 32, 64, 8, 8);
/// 128 × 128 × 16, warps 2 × 4 of 64 × 32, 256 threads (half the barriers per FMA).
pub const WT_128X128X16_W64X32: Tiling = warptile(128, 128, 16, 64, 32, 8, 8);
/// 128 × 128 × 16, warps 4 × 2 of 32 × 64, 256 threads.
pub const WT_128X128X16_W32X64: Tiling = warptile(128, 128, 16, 32, 64, 8, 8);
/// 128 × 256 × 8, warps 2 × 4 of 64 × 64, 8 × 16 per thread, 256 threads.
pub const WT_128X256X8_W64X64: Tiling = warptile(128, 256, 8, 64, 64, 8, 16);
/// 128 × 64 × 16, warps 2 × 2 of 64 × 32, 8 × 8 per thread, 128 threads
/// (more blocks for medium shapes).
pub const WT_128X64X16_W64X32: Tiling = warptile(128, 64, 16, 64, 32, 8, 8);
/// 64 × 64 × 16, warps 2 × 2 of 32 × 32, 8 × 4 per thread, 128 threads
/// (small shapes: many blocks).
pub const WT_64X64X16_W32X32: Tiling = warptile(64, 64, 16, 32, 32, 8, 4);

tiled_kernel! {
    /// Warptiling: the block tile is split into warp tiles and each lane
    /// owns 2 × 2 sub-tiles of 4 × 4 spread over its warp tile
    /// (`(WMITER, LM, 4)` rows × `(WNITER, LN, 4)` columns) instead of one
    /// contiguous 8 × 8 block. A quarter-warp's float4 reads of `A` are 8
    /// consecutive float4s (or a broadcast) and of `B` one broadcast, so
    /// shared loads are conflict-free without a `B` swizzle, a warp's
    /// operands come from a small region (better register-cache/L0 reuse)
    /// and the `C` stores of a warp cover whole 64-byte runs. Keeps the
    /// swizzled `A` tile and the double-buffered loop. Expected: ≥ 90% of
    /// cuBLAS at 4096³ with the best configuration.
    sgemm_warptile_128x128x8_w64x32 = WT_128X128X8_W64X32
}
tiled_kernel! {
    /// Warptiling, CUTLASS's default SIMT warp shape (32 × 64, lanes 4 × 8).
    sgemm_warptile_128x128x8_w32x64 = WT_128X128X8_W32X64
}
tiled_kernel! {
    /// Warptiling with `BK = 16`: half the barriers and stage switches per
    /// FMA, 32 KiB shared memory.
    sgemm_warptile_128x128x16_w64x32 = WT_128X128X16_W64X32
}
tiled_kernel! {
    /// Warptiling with `BK = 16`, 32 × 64 warps.
    sgemm_warptile_128x128x16_w32x64 = WT_128X128X16_W32X64
}
tiled_kernel! {
    /// Warptiling with a 128 × 256 block tile and 8 × 16 results per thread:
    /// the highest FMA-to-load ratio, fewest blocks; ~1 block per SM.
    sgemm_warptile_128x256x8_w64x64 = WT_128X256X8_W64X64
}
tiled_kernel! {
    /// Warptiling, 128 × 64 block tile, 128 threads: twice the blocks of
    /// 128 × 128 for medium shapes.
    sgemm_warptile_128x64x16_w64x32 = WT_128X64X16_W64X32
}
tiled_kernel! {
    /// Warptiling, 64 × 64 block tile, 128 threads: for small and thin
    /// shapes where 128 × 128 tiles leave SMs idle.
    sgemm_warptile_64x64x16_w32x32 = WT_64X64X16_W32X32
}
