//! Rung 8: double-buffered main loop.

use super::float4::{tiled_kernel, Tiling};

/// The swizzled rung with two shared stages.
pub const DOUBLE_BUFFERED: Tiling = Tiling { stages: 2, ..super::SWIZZLED_TILES };

tiled_kernel! {
    /// Double buffering: two shared stages and register prefetch. The global
    /// loads of tile `k + 1` are issued before the FMAs of tile `k` (their
    /// latency hides behind 512 FMAs per thread), stored into the other
    /// stage afterwards, and a single barrier per tile replaces two.
    /// Expected: a step over rung 7 (fewer stalls on `ld.global` and
    /// barriers), at the cost of 16 KiB shared memory and ~8 registers.
    sgemm_double_buffered = DOUBLE_BUFFERED
}
