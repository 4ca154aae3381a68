//! Rung 6: float4 global loads, `A` stored transposed in shared memory.

use super::index::PLAIN;
use super::float4::{tiled_kernel, Tiling};

/// 128 × 128 × 8 block tile, 8 × 8 results per thread, 256 threads, plain
/// shared tiles, one stage.
pub const VECTORIZED: Tiling =
    Tiling { bm: 128, bn: 128, bk: 8, tm: 8, tn: 8, wm: 0, wn: 0, a_smem: PLAIN, b_smem: PLAIN, stages: 1, interior_loop: false, edge_loop: false };

tiled_kernel! {
    /// Vectorized: rung 5 with 16-byte global loads (`ld.global.v4`, one
    /// float4 of `A` and one of `B` per thread per tile instead of 8 scalar
    /// loads) and the `A` tile stored transposed, `(BK, BM)`, so the compute
    /// loop reads a thread's 8 `A` values as two `ld.shared.v4` instead of 8
    /// strided scalars; `B` likewise. Interior blocks run without bounds
    /// checks; the `C` epilogue is float4 too. Left over: the transposed
    /// store of `A` and the float4 reads of `B` are 2-way bank conflicts
    /// (see the index tests). Expected: a large step over rung 5 (measured
    /// ratios: BENCHMARKS.md).
    sgemm_vectorized = VECTORIZED
}
