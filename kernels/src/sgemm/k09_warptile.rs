//! Rung 9: warptiling (block tile → warp tiles → thread tiles), and the
//! configurations the autotuner compares.

use super::index::{PLAIN, SWIZZLED};
use super::tiled::{tiled_kernel, Tiling};

/// Rung 9's warp-tiled [`Tiling`] (swizzled transposed `A` tile, plain `B`
/// tile, double-buffered with the interior loop); rung 10's transposing
/// engine computes from it too.
pub(super) const fn warptile(bm: usize, bn: usize, bk: usize, wm: usize, wn: usize, tm: usize, tn: usize) -> Tiling {
    Tiling { bm, bn, bk, tm, tn, wm, wn, a_smem: SWIZZLED, b_smem: PLAIN, stages: 2, interior_loop: true }
}

/// 128 × 128 × 8, warps 2 × 4 of 64 × 32, lanes 8 × 4, 8 × 8 per thread,
/// 256 threads; one predicated main loop (as rung 8).
pub const WT_128X128X8_W64X32: Tiling = Tiling { interior_loop: false, ..warptile(128, 128, 8, 64, 32, 8, 8) };
/// 128 × 128 × 8, warps 4 × 2 of 32 × 64, lanes 4 × 8, 8 × 8 per thread,
/// 256 threads; one predicated main loop (as rung 8).
pub const WT_128X128X8_W32X64: Tiling = Tiling { interior_loop: false, ..warptile(128, 128, 8, 32, 64, 8, 8) };
/// [`WT_128X128X8_W32X64`] with the interior loop (fewer registers in the
/// hot loop: fits the 128 registers of two blocks per SM).
pub const WT_128X128X8_W32X64_IL: Tiling = warptile(128, 128, 8, 32, 64, 8, 8);
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
    /// cuBLAS at 4096³ with the best configuration. Measured (H200): 81%
    /// for the 128 × 128 × 8 kernels (one block of 8 warps per SM); the
    /// launch-bounded `sgemm_warptile_128x128x8_w32x64_lb2` reaches 93–95%,
    /// `sgemm_warptile_128x128x8_w32x128_lb2` 97–99% (H100).
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

/// 256 × 128 × 8, warps 4 × 2 of 64 × 64, 16 × 8 per thread, 256 threads.
pub const WT_256X128X8_W64X64: Tiling = warptile(256, 128, 8, 64, 64, 16, 8);
/// 64 × 128 × 16, warps 2 × 2 of 32 × 64, 8 × 8 per thread, 128 threads.
pub const WT_64X128X16_W32X64: Tiling = warptile(64, 128, 16, 32, 64, 8, 8);
/// 128 × 64 × 8, warps 2 × 2 of 64 × 32, 8 × 8 per thread, 128 threads.
pub const WT_128X64X8_W64X32: Tiling = warptile(128, 64, 8, 64, 32, 8, 8);

tiled_kernel! {
    /// Launch bounds `(256, 2)` on [`WT_128X128X8_W32X64_IL`]: ptxas keeps
    /// it at 128 registers so that two blocks (16 warps) share an SM
    /// instead of one (the unbounded kernel takes 128–141 registers, and
    /// anything above 128 means one block of 256 threads per SM). With 8
    /// warps per SM, the barrier of every `k` tile and the `ld.shared`
    /// latency show as idle issue slots; the second block's warps fill
    /// them. The interior loop is what makes it fit: with rung 8's single
    /// predicated loop the same bounds spill. Its hot loop is 512 FFMA,
    /// 32 `LDS.128`, 2 `LDG.128`, 5 `STS` and ~25 other instructions per
    /// tile. Measured (H200): 93–95% of cuBLAS at 4096³ and 8192³, against
    /// 81% without the bounds.
    sgemm_warptile_128x128x8_w32x64_lb2 = WT_128X128X8_W32X64_IL
}
tiled_kernel! {
    /// The 128 × 256 tile transposed: 16 × 8 results per thread (229–241
    /// registers, one block per SM). Measured (H200): ~87% of cuBLAS, a
    /// little below 128 × 256.
    sgemm_warptile_256x128x8_w64x64 = WT_256X128X8_W64X64
}
tiled_kernel! {
    /// 64 × 128 × 16 with 128 threads and launch bounds `(128, 3)` (≤ 168
    /// registers): three independent blocks per SM, so one block's barrier
    /// overlaps two others' FMAs. Measured (H200): 89–91% of cuBLAS; more
    /// blocks than 128 × 128 for medium shapes.
    sgemm_warptile_64x128x16_w32x64_lb3 = WT_64X128X16_W32X64
}
tiled_kernel! {
    /// 128 × 64 × 8 with 128 threads and launch bounds `(128, 3)`.
    /// Measured (H200): 85% (4096³) to 90% (8192³) of cuBLAS.
    sgemm_warptile_128x64x8_w64x32_lb3 = WT_128X64X8_W64X32
}

/// 128 × 128 × 8, warps 2 × 2 of 64 × 64, 8 × 16 per thread (lanes 8 × 4),
/// 128 threads: cuBLAS's warp tile (64 × 64) and per-thread work (128
/// results) in a block of 4 warps.
pub const WT_128X128X8_W64X64: Tiling = warptile(128, 128, 8, 64, 64, 8, 16);
/// [`WT_128X128X8_W64X64`] with 16 × 8 per thread (lanes 4 × 8).
pub const WT_128X128X8_W64X64_T16X8: Tiling = warptile(128, 128, 8, 64, 64, 16, 8);
/// 128 × 128 × 8, warps 4 × 1 of 32 × 128, 8 × 16 per thread (lanes 4 × 8),
/// 128 threads.
pub const WT_128X128X8_W32X128: Tiling = warptile(128, 128, 8, 32, 128, 8, 16);

tiled_kernel! {
    /// 128 × 128 × 8 with 4 warps of 64 × 64 (8 × 16 results per thread)
    /// and launch bounds `(128, 2)` (≤ 255 registers; 255 on sm_90, no
    /// spills): the 8 warps per SM and the per-thread work of cuBLAS's
    /// 256 × 128 kernel, but as two independent blocks, so one block's
    /// barrier overlaps the other's FMAs, and 6 shared loads per 128 FMAs
    /// instead of 4 per 64 (hot loop: 1024 FFMA of ~1120 instructions per
    /// tile, against 512 of ~580). Measured (H100): 91.6–93.7% of cuBLAS
    /// at 4096³ and 8192³, below the 16 × 8 thread tile.
    sgemm_warptile_128x128x8_w64x64_lb2 = WT_128X128X8_W64X64
}
tiled_kernel! {
    /// [`sgemm_warptile_128x128x8_w64x64_lb2`] with 16 × 8 results per
    /// thread (lanes 4 × 8 in the warp; 235 registers on sm_90, no
    /// spills). Same FMAs and shared loads per tile as the 8 × 16 tile; the
    /// other lane arrangement changes which lanes share `A` and `B` float4s
    /// in a quarter-warp and ptxas's allocation, and measured 2–3 points
    /// faster: 94.4–96.6% (4096³) and 95.7–96.7% (8192³) of cuBLAS over
    /// fifteen H100 runs. Tried on it and dropped: `BK = 16` (253 registers)
    /// 91%; the interior loop's `B` tile copied by 16-byte `cp.async` (237
    /// registers) 85–86%; a serpentine FMA order (odd rows walk the
    /// columns backwards) 95.0–96.2% / 98.2–98.4%.
    sgemm_warptile_128x128x8_w64x64_t16x8_lb2 = WT_128X128X8_W64X64_T16X8
}
tiled_kernel! {
    /// The best SGEMM kernel: 128 × 128 × 8 with 4 warps of 32 × 128
    /// stacked along `M` (8 × 16 results per thread, lanes 4 × 8) and
    /// launch bounds `(128, 2)` (255 registers on sm_90, no spills). Each
    /// warp spans all 128 columns of the block tile, so the four warps read
    /// the same `B` float4s of every `k` row (one `B` row per `k`, shared
    /// by the whole block, against two half rows for 64 × 64 warps) and
    /// each its own 32 rows of `A`. ncu at 4096³: 0.85 issued instructions
    /// per cycle and scheduler (0.82 for the 64 × 64 warps, 0.91 for
    /// cuBLAS, with the same instructions per FMA). Measured (H100, % of
    /// cuBLAS in the same run): 96.9–98.4 at 4096³, 98.8–99.3 at 8192³ over
    /// eight runs; on an H200 98.2–98.8 and 99.4–99.7 over three. With 4 warps of 128 × 32 (16 × 8 per thread) it measured
    /// 92.4–93.5 / 94.9–95.0; with a serpentine FMA order 95.5–95.9 /
    /// 95.9–96.3.
    sgemm_warptile_128x128x8_w32x128_lb2 = WT_128X128X8_W32X128
}

/// The rung-9 kernels with launch bounds (see
/// [`crate::launch::LaunchBounds`]); each entry takes its thread count from
/// the tiling the host launches with. Tried and left out because ptxas
/// spills under the bounds: 128 × 128 × 8 with 64 × 32 warps at `(256, 2)`
/// (8 bytes on sm_90; measured 88–90%), 128 × 128 × 16 at `(256, 2)`
/// (~120 bytes, outside the hot loop; measured 86–88%), 256 × 128 × 16
/// with 512 threads at `(512, 1)`, 128 × 64 at `(128, 4)`.
pub const WARPTILE_BOUNDS: [crate::launch::LaunchBounds; 6] = [
    WT_128X128X8_W32X128.bounds("sgemm_warptile_128x128x8_w32x128_lb2", 2),
    WT_128X128X8_W64X64_T16X8.bounds("sgemm_warptile_128x128x8_w64x64_t16x8_lb2", 2),
    WT_128X128X8_W64X64.bounds("sgemm_warptile_128x128x8_w64x64_lb2", 2),
    WT_128X128X8_W32X64_IL.bounds("sgemm_warptile_128x128x8_w32x64_lb2", 2),
    WT_64X128X16_W32X64.bounds("sgemm_warptile_64x128x16_w32x64_lb3", 3),
    WT_128X64X8_W64X32.bounds("sgemm_warptile_128x64x8_w64x32_lb3", 3),
];
