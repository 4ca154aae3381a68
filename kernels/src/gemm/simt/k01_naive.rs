//! Rung 1: naive SGEMM.

use super::{write_c, GemmParams};
use crate::arch::{fma, global_x, global_y, Global};
use crate::kernel;
use crate::launch::LaunchConfig;

/// Threads per block of [`sgemm_naive`] (32 × 32).
pub const NAIVE_BLOCK: [u32; 2] = [32, 32];

/// One thread per element of `C`; x runs over rows (as in the seed).
pub const fn naive_config(p: &GemmParams) -> LaunchConfig {
    LaunchConfig::cover_2d(p.m, p.n, NAIVE_BLOCK)
}

kernel! {
    /// Naive: thread `(x, y)` computes `C[x][y]` with a `k`-long dot product
    /// straight from global memory. Consecutive lanes take consecutive
    /// *rows*, so each lane reads a different row of `A` and writes `C`
    /// `ldc` apart: uncoalesced, the baseline of the ladder.
    pub fn sgemm_naive(p: GemmParams, a: Global<f32>, b: Global<f32>, c: Global<f32>) {
        let (row, col) = (global_x() as usize, global_y() as usize);
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
