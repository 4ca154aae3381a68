//! Rung 9: warptiling (block tile → warp tiles → thread tiles), and the
//! configurations the autotuner compares.
//!
//! The block tile is split into warp tiles and each lane owns sub-tiles of
//! 4 × 4 spread over its warp tile (`(WMITER, LM, 4)` rows × `(WNITER, LN,
//! 4)` columns) instead of one contiguous block. A quarter-warp's float4
//! reads of `A` are 8 consecutive float4s (or a broadcast) and of `B` one
//! broadcast, so shared loads are conflict-free without a `B` swizzle, a
//! warp's operands come from a small region (better register reuse) and
//! the `C` stores of a warp cover whole 64-byte runs. Keeps rung 8's
//! swizzled `A` tile and double-buffered loop, and adds the interior loop
//! (see [`Tiling::interior_loop`]).
//!
//! The configurations are one table, [`simt_warptile_table!`]: the default
//! build ships the ladder's rung and Auto's candidates; the others are
//! experiments kept for the record (feature `experiments`). Their measured
//! numbers are in BENCHMARKS.md.

use super::float4::{tiled_kernel, tiled_kernel_tn, Tiling};
use super::index::{PLAIN, SWIZZLED};
use crate::variant_family;

/// Rung 9's warp-tiled [`Tiling`] (swizzled transposed `A` tile, plain `B`
/// tile, double-buffered with the interior loop); rung 10's transposing
/// engine computes from it too.
pub(super) const fn warptile(bm: usize, bn: usize, bk: usize, wm: usize, wn: usize, tm: usize, tn: usize) -> Tiling {
    Tiling { bm, bn, bk, tm, tn, wm, wn, a_smem: SWIZZLED, b_smem: PLAIN, stages: 2, interior_loop: true, edge_loop: true }
}

/// 128 × 128 × 8, warps 2 × 4 of 64 × 32, lanes 8 × 4, 8 × 8 per thread,
/// 256 threads; one predicated main loop (as rung 8).
pub const WT_128X128X8_W64X32: Tiling = Tiling { interior_loop: false, edge_loop: false, ..warptile(128, 128, 8, 64, 32, 8, 8) };
/// 128 × 128 × 8, warps 4 × 2 of 32 × 64, lanes 4 × 8, 8 × 8 per thread,
/// 256 threads; one predicated main loop (as rung 8).
pub const WT_128X128X8_W32X64: Tiling = Tiling { interior_loop: false, edge_loop: false, ..warptile(128, 128, 8, 32, 64, 8, 8) };
/// [`WT_128X128X8_W32X64`] with the interior loop (fewer registers in the
/// hot loop: fits the 128 registers of two blocks per SM).
pub const WT_128X128X8_W32X64_IL: Tiling = warptile(128, 128, 8, 32, 64, 8, 8);
/// [`WT_128X128X8_W32X64_IL`] without the edge loop: under two blocks'
/// register budget the clamped offsets would spill.
pub const WT_128X128X8_W32X64_IL_NOEDGE: Tiling = Tiling { edge_loop: false, ..WT_128X128X8_W32X64_IL };
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
/// 256 × 128 × 8, warps 4 × 2 of 64 × 64, 16 × 8 per thread, 256 threads.
pub const WT_256X128X8_W64X64: Tiling = warptile(256, 128, 8, 64, 64, 16, 8);
/// 64 × 128 × 16, warps 2 × 2 of 32 × 64, 8 × 8 per thread, 128 threads.
pub const WT_64X128X16_W32X64: Tiling = warptile(64, 128, 16, 32, 64, 8, 8);
/// 128 × 64 × 8, warps 2 × 2 of 64 × 32, 8 × 8 per thread, 128 threads.
pub const WT_128X64X8_W64X32: Tiling = warptile(128, 64, 8, 64, 32, 8, 8);
/// 128 × 128 × 8, warps 2 × 2 of 64 × 64, 8 × 16 per thread (lanes 8 × 4),
/// 128 threads: cuBLAS's warp tile (64 × 64) and per-thread work (128
/// results) in a block of 4 warps.
pub const WT_128X128X8_W64X64: Tiling = warptile(128, 128, 8, 64, 64, 8, 16);
/// [`WT_128X128X8_W64X64`] with 16 × 8 per thread (lanes 4 × 8).
pub const WT_128X128X8_W64X64_T16X8: Tiling = warptile(128, 128, 8, 64, 64, 16, 8);
/// 128 × 128 × 8, warps 4 × 1 of 32 × 128, 8 × 16 per thread (lanes 4 × 8),
/// 128 threads.
pub const WT_128X128X8_W32X128: Tiling = warptile(128, 128, 8, 32, 128, 8, 16);

/// Rung 9's configurations, one row each (see [`crate::variants`]): the
/// variant, its kernel, the tiling, and the blocks per SM of its launch
/// bounds (`(threads, n)`, what CUDA C++ writes `__launch_bounds__`;
/// 0: none). A row with bounds is listed only if `cargo xtask
/// ptxas-report` shows no spills under the register cap they imply.
#[macro_export]
macro_rules! simt_warptile_table {
    ($then:ident) => { $then! {
        /// The configurations of the warptiled rung (block tile, `BK`, warp
        /// tile; `Lb2`/`Lb3`: launch bounds for 2 or 3 blocks per SM).
        pub enum WarpConfig: $crate::gemm::simt::Tiling;

        /// The ladder's rung 9 and Auto's pick for large shapes: 128 × 128
        /// × 8 with 4 warps of 32 × 128 stacked along `M` (8 × 16 results
        /// per thread, lanes 4 × 8) and launch bounds `(128, 2)`. Each warp
        /// spans all 128 columns of the block tile, so the four warps read
        /// the same `B` float4s of every `k` row (one `B` row per `k`,
        /// shared by the whole block) and each its own 32 rows of `A`; two
        /// independent blocks per SM overlap one block's barrier with the
        /// other's FMAs.
        [cfg(all())] B128x128x8W32x128Lb2 => sgemm_warptile_128x128x8_w32x128_lb2 = tiled_kernel!(WT_128X128X8_W32X128), bounds 2;
        /// Small and thin shapes: 64 × 64 × 16, 128 threads, where
        /// 128 × 128 tiles leave SMs idle.
        [cfg(all())] B64x64x16W32x32 => sgemm_warptile_64x64x16_w32x32 = tiled_kernel!(WT_64X64X16_W32X32), bounds 0;
        /// Medium shapes: 64 × 128 × 16 with 128 threads and launch bounds
        /// `(128, 3)`: three independent blocks per SM, so one block's
        /// barrier overlaps two others' FMAs.
        [cfg(all())] B64x128x16W32x64Lb3 => sgemm_warptile_64x128x16_w32x64_lb3 = tiled_kernel!(WT_64X128X16_W32X64), bounds 3;
        /// 128 × 64 × 8 with 128 threads and launch bounds `(128, 3)`.
        [cfg(all())] B128x64x8W64x32Lb3 => sgemm_warptile_128x64x8_w64x32_lb3 = tiled_kernel!(WT_128X64X8_W64X32), bounds 3;

        /// Warptiling, 128 × 128 × 8, warps 64 × 32, one block of 8 warps
        /// per SM.
        [cfg(ferrotile_experiments)] B128x128x8W64x32 => sgemm_warptile_128x128x8_w64x32 = tiled_kernel!(WT_128X128X8_W64X32), bounds 0;
        /// Warptiling, CUTLASS's default SIMT warp shape (32 × 64, lanes 4 × 8).
        [cfg(ferrotile_experiments)] B128x128x8W32x64 => sgemm_warptile_128x128x8_w32x64 = tiled_kernel!(WT_128X128X8_W32X64), bounds 0;
        /// Warptiling with `BK = 16`: half the barriers and stage switches
        /// per FMA, 32 KiB shared memory.
        [cfg(ferrotile_experiments)] B128x128x16W64x32 => sgemm_warptile_128x128x16_w64x32 = tiled_kernel!(WT_128X128X16_W64X32), bounds 0;
        /// Warptiling with `BK = 16`, 32 × 64 warps.
        [cfg(ferrotile_experiments)] B128x128x16W32x64 => sgemm_warptile_128x128x16_w32x64 = tiled_kernel!(WT_128X128X16_W32X64), bounds 0;
        /// A 128 × 256 block tile, 8 × 16 results per thread: the highest
        /// FMA-to-load ratio, fewest blocks; about one block per SM.
        [cfg(ferrotile_experiments)] B128x256x8W64x64 => sgemm_warptile_128x256x8_w64x64 = tiled_kernel!(WT_128X256X8_W64X64), bounds 0;
        /// 128 × 64 block tile, 128 threads: twice the blocks of 128 × 128
        /// for medium shapes.
        [cfg(ferrotile_experiments)] B128x64x16W64x32 => sgemm_warptile_128x64x16_w64x32 = tiled_kernel!(WT_128X64X16_W64X32), bounds 0;
        /// Launch bounds `(256, 2)` on [`WT_128X128X8_W32X64_IL`]: ptxas
        /// keeps it at 128 registers so that two blocks (16 warps) share an
        /// SM instead of one; the second block's warps fill the idle issue
        /// slots of the first's barriers and shared-load latency. The
        /// interior loop is what makes it fit: with rung 8's single
        /// predicated loop the same bounds spill.
        [cfg(ferrotile_experiments)] B128x128x8W32x64Lb2 => sgemm_warptile_128x128x8_w32x64_lb2 = tiled_kernel!(WT_128X128X8_W32X64_IL_NOEDGE), bounds 2;
        /// The 128 × 256 tile transposed: 16 × 8 results per thread, one
        /// block per SM.
        [cfg(ferrotile_experiments)] B256x128x8W64x64 => sgemm_warptile_256x128x8_w64x64 = tiled_kernel!(WT_256X128X8_W64X64), bounds 0;
        /// 128 × 128 × 8 with 4 warps of 64 × 64 (8 × 16 results per
        /// thread) and launch bounds `(128, 2)`: the 8 warps per SM and the
        /// per-thread work of cuBLAS's 256 × 128 kernel, as two independent
        /// blocks, with 6 shared loads per 128 FMAs instead of 4 per 64.
        [cfg(ferrotile_experiments)] B128x128x8W64x64Lb2 => sgemm_warptile_128x128x8_w64x64_lb2 = tiled_kernel!(WT_128X128X8_W64X64), bounds 2;
        /// The same with 16 × 8 results per thread (lanes 4 × 8 in the
        /// warp): the other lane arrangement changes which lanes share `A`
        /// and `B` float4s in a quarter-warp and ptxas's allocation.
        [cfg(ferrotile_experiments)] B128x128x8W64x64T16x8Lb2 => sgemm_warptile_128x128x8_w64x64_t16x8_lb2 = tiled_kernel!(WT_128X128X8_W64X64_T16X8), bounds 2;
    } };
}

crate::simt_warptile_table!(variant_family);

/// The `A`-transposed twins of the rung 9 tilings `Auto` runs (see
/// [`crate::variants`]): the same tiling on `A` stored transposed
/// (`op(A) = Aᵀ`, `_tn`), its tile read as stored — `(BK, BM)`, float4s
/// along `m` — and stored to shared memory as float4s (the row-major
/// tile takes four scalar stores per float4 to turn it), so a transposed
/// `A` needs no transposed copy before the product. The host runs a twin
/// where its base tiling is `Auto`'s pick ([`WarpTConfig::twin`]); a
/// transposed `B` is still copied first (twins reading `Bᵀ` as stored,
/// its float4s turned by scalar stores, ran slower than the copy:
/// BENCHMARKS.md).
#[macro_export]
macro_rules! simt_warptile_t_table {
    ($then:ident) => { $then! {
        /// The `A`-transposed twins of the warptiled rung's shipped tilings.
        pub enum WarpTConfig: $crate::gemm::simt::Tiling;

        /// [`WarpConfig::B128x128x8W32x128Lb2`] on `Aᵀ`.
        [cfg(all())] B128x128x8W32x128Lb2Tn => sgemm_warptile_128x128x8_w32x128_lb2_tn = tiled_kernel_tn!(WT_128X128X8_W32X128), bounds 2;
        /// [`WarpConfig::B64x64x16W32x32`] on `Aᵀ`.
        [cfg(all())] B64x64x16W32x32Tn => sgemm_warptile_64x64x16_w32x32_tn = tiled_kernel_tn!(WT_64X64X16_W32X32), bounds 0;
        /// [`WarpConfig::B64x128x16W32x64Lb3`] on `Aᵀ`.
        [cfg(all())] B64x128x16W32x64Lb3Tn => sgemm_warptile_64x128x16_w32x64_lb3_tn = tiled_kernel_tn!(WT_64X128X16_W32X64), bounds 3;
        /// [`WarpConfig::B128x64x8W64x32Lb3`] on `Aᵀ`.
        [cfg(all())] B128x64x8W64x32Lb3Tn => sgemm_warptile_128x64x8_w64x32_lb3_tn = tiled_kernel_tn!(WT_128X64X8_W64X32), bounds 3;
    } };
}

crate::simt_warptile_t_table!(variant_family);

impl WarpTConfig {
    /// The twin of `base` for an `A` stored transposed: the kernel named
    /// `base`'s with `_tn` (`None`: `base` has none).
    pub fn twin(base: WarpConfig) -> Option<WarpTConfig> {
        let name = base.name();
        WarpTConfig::ALL.iter().copied().find(|t| t.name().strip_suffix("_tn") == Some(name))
    }
}
