//! The SIMT engine: the f32 GEMM ladder (`sgemm_*` kernels, CUDA cores,
//! one FMA per multiply-add), rung by rung from naive to a multi-stage
//! `cp.async` pipeline.
//!
//! Every rung reads its operands through the layouts built by
//! [`GemmParams`]. Rung files are `kNN_<what>.rs`; `float4.rs` is the
//! engine rungs 6–9 instantiate and `index.rs` their index math;
//! `split_k.rs` runs rung 9's tilings (a table of its own) over slices
//! of `k` for skinny and deep products.

pub mod index;
mod k02_coalesced;
mod k03_shared;
mod k04_blocktile_1d;
mod k05_blocktile_2d;
mod k06_vectorized;
mod k07_conflict_free;
mod k08_double_buffered;
mod k09_warptile;
pub mod k10_multistage;
pub mod float4;
mod k01_naive;
mod split_k;

pub use k02_coalesced::*;
pub use k03_shared::*;
pub use k04_blocktile_1d::*;
pub use k05_blocktile_2d::*;
pub use k06_vectorized::*;
pub use k07_conflict_free::*;
pub use k08_double_buffered::*;
pub use k09_warptile::*;
pub use float4::Tiling;
pub use k01_naive::*;
pub use k10_multistage::*;
pub use split_k::*;

pub use super::{write_c, GemmParams};
use crate::launch::LaunchBounds;

/// Blocks per SM the launch bounds of SIMT GEMM kernel `kernel` promise
/// (`None`: it has none).
pub fn bounds_blocks_per_sm(kernel: &str) -> Option<usize> {
    LAUNCH_BOUNDS.iter().find(|b| b.kernel == kernel).map(|b| b.min_blocks_per_sm as usize)
}

/// Every SIMT GEMM kernel with launch bounds (rung 9's and its transposed
/// twins', rung 10's and split-k's tables).
pub const LAUNCH_BOUNDS: &[LaunchBounds] = {
    const PARTS: &[&[LaunchBounds]] = &[WarpConfig::BOUNDS, WarpTConfig::BOUNDS, StageConfig::BOUNDS, StageTConfig::BOUNDS, SplitConfig::BOUNDS];
    &crate::variants::concat_bounds::<{ crate::variants::total_len(PARTS) }>(PARTS)
};
