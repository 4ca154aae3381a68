//! Split-k for skinny and deep products (few block tiles of `C`, long
//! `k`): block `z` of the grid runs slice `z` of the `k` tiles with the
//! warptiled engine and writes its partial product to slice `z` of an
//! f32 workspace; a second kernel sums the slices in slice order (the
//! same order every run: deterministic) and applies `α`, `β`.

use super::float4::Tiling;
use super::index::{split_k_slices, SPLIT_K_MIN_TILES};
use super::k09_warptile::WT_64X64X16_W32X32;
use super::{write_c, GemmParams};
use crate::arch::Global;
use crate::gemm::index::SplitKWorkspace;
use crate::gemm::reduce::{reduce_config, split_k_reduce, ReduceEpilogue};
use crate::kernel;
use crate::launch::LaunchConfig;

/// The tiling of the split-k kernel: rung 9's 64 × 64 × 16 warp tile
/// (small tiles: the most blocks per slice).
pub const SPLIT_K_TILING: Tiling = WT_64X64X16_W32X32;

/// Grid of the split-k kernel: the tiling's blocks over `C` (`p.m × p.n`,
/// `p.ldc` the workspace's leading dimension), `slices` deep in z.
pub const fn split_k_config(p: &GemmParams, ks: u32) -> LaunchConfig {
    let mut cfg = SPLIT_K_TILING.config(p);
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

/// The SIMT ladder's epilogue of the reduction: `C = α·sum + β·C`
/// ([`write_c`]) at `(row, col)` of the user's `C` (`p.ldc`).
impl ReduceEpilogue for GemmParams {
    type Out = f32;
    #[inline(always)]
    unsafe fn store(&self, c: Global<f32>, _z: usize, row: usize, col: usize, sum: f32) {
        unsafe { write_c(self, c, self.c().offset(row, col), sum) }
    }
}

/// `k` per slice for `slices` slices of a problem with `k`: a multiple of
/// the tiling's `bk`, at least [`SPLIT_K_MIN_TILES`] tiles.
pub const fn split_k_depth(k: u32, slices: u32) -> u32 {
    let bk = SPLIT_K_TILING.bk as u32;
    let per = k.div_ceil(if slices == 0 { 1 } else { slices }).next_multiple_of(bk);
    let min = SPLIT_K_MIN_TILES * bk;
    if per < min { min } else { per }
}

kernel! {
    /// Split-k partial products: rung 9's 64 × 64 × 16 engine over the k
    /// tiles of slice `blockIdx.z` (`ks` of `k` each), α = 1 and β = 0
    /// (set by the host in `p`), into slice z of the workspace `ws`
    /// (`m × p.ldc` per slice). Launch: [`split_k_config`].
    pub fn sgemm_split_k_64x64x16_w32x32(p: GemmParams, ks: u32, a: Global<f32>, b: Global<f32>, ws: Global<f32>) {
        const _: () = assert!(SPLIT_K_TILING.validate() && SPLIT_K_TILING.stages == 2, "invalid tiling");
        const T: Tiling = SPLIT_K_TILING;
        super::float4::body::<
            { T.bm }, { T.bn }, { T.bk }, { T.tm }, { T.tn }, { T.wm }, { T.wn }, { T.a_smem }, { T.b_smem }, { T.stages },
            { T.interior_loop }, { T.edge_loop }, true,
        >(p, ks, a, b, ws)
    }
}

kernel! {
    /// Split-k reduction: `C = α·Σ_z slice_z + β·C` per element, the
    /// slices summed in order `z = 0, 1, …` (deterministic; the shared
    /// body [`split_k_reduce`]); β = 0 never reads `C`. `p`: the user's problem (`ldc` of `C`); `ldw`: the
    /// workspace's leading dimension. Launch: [`split_k_reduce_config`].
    pub fn sgemm_split_k_reduce(p: GemmParams, ldw: u32, slices: u32, ws: Global<f32>, c: Global<f32>) {
        split_k_reduce(ws, split_k_workspace(&p, ldw, slices), c, &p)
    }
}
