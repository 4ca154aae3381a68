//! Split-k for skinny and deep products (few block tiles of `C`, long
//! `k`): block `z` of the grid runs slice `z` of the `k` tiles with the
//! warptiled engine (one kernel per tiling of [`simt_split_k_table!`])
//! and writes its partial product to slice `z` of an
//! f32 workspace; a second kernel sums the slices in slice order (the
//! same order every run: deterministic) and applies `α`, `β`.

use super::float4::Tiling;
use super::index::{split_k_slices, SPLIT_K_MIN_DEPTH};
use super::k09_warptile::{WT_128X128X8_W32X128, WT_128X64X8_W64X32, WT_64X128X16_W32X64, WT_64X64X16_W32X32};
use super::{write_c, GemmParams};
use crate::arch::Global;
use crate::gemm::index::SplitKWorkspace;
use crate::gemm::reduce::{reduce_config, split_k_sum};
use crate::launch::LaunchConfig;
use crate::{kernel, variant_family};

/// Grid of a split-k kernel of tiling `t`: its blocks over `C` (`p.m ×
/// p.n`, `p.ldc` the workspace's leading dimension), the slices of `ks`
/// deep in z.
pub const fn split_k_config(t: &Tiling, p: &GemmParams, ks: u32) -> LaunchConfig {
    let mut cfg = t.config(p);
    cfg.grid[2] = split_k_slices(p.k, ks);
    cfg
}

pub use crate::gemm::reduce::REDUCE_THREADS;

/// Grid of the reduction: one thread per element of `C`, rows folded into
/// z beyond the grid's y limit ([`reduce_config`] of one matrix).
pub const fn split_k_reduce_config(p: &GemmParams) -> LaunchConfig {
    reduce_config(p.m, p.n, 1)
}

/// The SIMT workspace: `slices` partial products of `C` (`p.m × p.n`),
/// each with the workspace's leading dimension `ldw`.
#[inline(always)]
pub const fn split_k_workspace(p: &GemmParams, ldw: u32, slices: u32) -> SplitKWorkspace {
    SplitKWorkspace { rows: p.m as usize, cols: p.n as usize, ld: ldw as usize, slices: slices as usize, batch: 1 }
}

/// `k` per slice for `slices` slices of a problem with `k`, for a tiling
/// of depth `bk`: a multiple of `bk`, at least [`SPLIT_K_MIN_DEPTH`].
pub const fn split_k_depth(k: u32, slices: u32, bk: u32) -> u32 {
    let per = k.div_ceil(if slices == 0 { 1 } else { slices }).next_multiple_of(bk);
    if per < SPLIT_K_MIN_DEPTH { SPLIT_K_MIN_DEPTH } else { per }
}

/// Defines a split-k partial-product kernel from a rung 9 [`Tiling`]
/// (a row of [`simt_split_k_table!`]).
macro_rules! split_k_kernel {
    ($(#[$m:meta])* $name:ident = $cfg:path) => {
        $crate::kernel! {
            $(#[$m])*
            ///
            /// Block z runs the `k` tiles of slice z (`ks` of `k` each)
            /// with α = 1 and β = 0 (set by the host in `p`) and writes
            /// slice z of the workspace `ws` (`m × p.ldc` per slice).
            /// Launch: [`split_k_config`].
            pub fn $name(p: GemmParams, ks: u32, a: Global<f32>, b: Global<f32>, ws: Global<f32>) {
                const _: () = assert!($cfg.validate() && $cfg.stages == 2, "split-k runs a valid double-buffered tiling");
                super::float4::body::<
                    { $cfg.bm }, { $cfg.bn }, { $cfg.bk }, { $cfg.tm }, { $cfg.tn },
                    { $cfg.wm }, { $cfg.wn }, { $cfg.a_smem }, { $cfg.b_smem }, { $cfg.stages },
                    { $cfg.interior_loop }, { $cfg.edge_loop }, true, false,
                >(p, ks, a, b, ws)
            }
        }
    };
}

/// The split-k partial-product kernels, one row per rung 9 tiling (see
/// [`crate::variants`]): the host picks the tile that covers `C` with the
/// least padding ([`SplitConfig::padded_area`]), the largest on a tie.
#[macro_export]
macro_rules! simt_split_k_table {
    ($then:ident) => { $then! {
        /// The tilings of the split-k kernels (block tile, `BK`, warp tile;
        /// `Lb2`/`Lb3`: launch bounds for 2 or 3 blocks per SM).
        pub enum SplitConfig: $crate::gemm::simt::Tiling;

        /// Tiny and odd `C`s: rung 9's 64 × 64 × 16 tile, the least padding.
        [cfg(all())] B64x64x16W32x32 => sgemm_split_k_64x64x16_w32x32 = split_k_kernel!(WT_64X64X16_W32X32), bounds 0;
        /// `C` a multiple of 64 rows: 64 × 128 × 16, three blocks per SM.
        [cfg(all())] B64x128x16W32x64Lb3 => sgemm_split_k_64x128x16_w32x64_lb3 = split_k_kernel!(WT_64X128X16_W32X64), bounds 3;
        /// `C` a multiple of 64 columns: 128 × 64 × 8, three blocks per SM.
        [cfg(all())] B128x64x8W64x32Lb3 => sgemm_split_k_128x64x8_w64x32_lb3 = split_k_kernel!(WT_128X64X8_W64X32), bounds 3;
        /// Deep products whose `C` fills 128 × 128 tiles: rung 9's best
        /// tile (the most FMAs per shared load), two blocks per SM.
        [cfg(all())] B128x128x8W32x128Lb2 => sgemm_split_k_128x128x8_w32x128_lb2 = split_k_kernel!(WT_128X128X8_W32X128), bounds 2;
    } };
}

crate::simt_split_k_table!(variant_family);

impl SplitConfig {
    /// Elements of the block tiles that cover an `m × n` `C` (`m · n`
    /// plus the padding of the edge tiles).
    pub const fn padded_area(self, m: usize, n: usize) -> usize {
        let t = self.config();
        t.tiles(m, n) * t.bm * t.bn
    }

    /// Blocks of the kernel one SM holds, as the launch bounds promise
    /// (2 for a row without bounds: its registers and shared memory allow
    /// at least that).
    pub fn blocks_per_sm(self) -> usize {
        super::bounds_blocks_per_sm(self.name()).unwrap_or(2)
    }
}

kernel! {
    /// Split-k reduction: `C = α·Σ_z slice_z + β·C` per element, the
    /// slices summed in order `z = 0, 1, …` (deterministic; the shared
    /// body [`split_k_sum`]), stored by [`write_c`]; β = 0 never reads
    /// `C`. `p`: the user's problem (`ldc` of `C`); `ldw`: the
    /// workspace's leading dimension. Launch: [`split_k_reduce_config`].
    pub fn sgemm_split_k_reduce(p: GemmParams, ldw: u32, slices: u32, ws: Global<f32>, c: Global<f32>) {
        if let Some((_, row, col, sum)) = split_k_sum(ws, split_k_workspace(&p, ldw, slices)) {
            write_c(&p, c, p.c().offset(row, col), sum)
        }
    }
}
