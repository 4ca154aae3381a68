//! Rung 2: global-memory coalescing.

use super::{write_c, GemmParams};
use crate::arch::{fma, global_x, global_y, Global};
use crate::kernel;
use crate::launch::LaunchConfig;

/// Threads per block of [`sgemm_coalesced`]: 32 columns × 8 rows.
pub const COALESCED_BLOCK: [u32; 2] = [32, 8];

/// One thread per element of `C`; x runs over columns.
pub const fn coalesced_config(p: &GemmParams) -> LaunchConfig {
    LaunchConfig::cover_2d(p.n, p.m, COALESCED_BLOCK)
}

kernel! {
    /// Global-memory coalescing: the naive kernel with x running over the
    /// *columns* of `C`. A warp's 32 lanes now share one row of `A` (one
    /// broadcast load per step) and read 32 consecutive floats of a row of
    /// `B`; the `C` store is 128 contiguous bytes. Expected: several times
    /// the naive rung (sectors per load drop from 32 to 4), still far from
    /// compute-bound (every operand comes from L1/L2 `k` times).
    pub fn sgemm_coalesced(p: GemmParams, a: Global<f32>, b: Global<f32>, c: Global<f32>) {
        let (col, row) = (global_x() as usize, global_y() as usize);
        let (la, lb, lc) = (p.a(), p.b(), p.c());
        if lc.in_bounds(row, col) {
            let mut acc = 0.0f32;
            for i in 0..p.k as usize {
                acc = fma(a.read(la.offset(row, i)), b.read(lb.offset(i, col)), acc);
            }
            write_c(&p, c, lc.offset(row, col), acc);
        }
    }
}
