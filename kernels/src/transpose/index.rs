//! Index math of the transpose kernels.

use crate::launch::LaunchConfig;
use crate::layout::Layout2;

/// The input matrix: `ny` rows of `nx`.
#[inline(always)]
pub const fn input_layout(nx: u32, ny: u32) -> Layout2 {
    Layout2::row_major(ny as usize, nx as usize)
}

/// The output matrix: `nx` rows of `ny`.
#[inline(always)]
pub const fn output_layout(nx: u32, ny: u32) -> Layout2 {
    Layout2::row_major(nx as usize, ny as usize)
}

/// Threads per block of the naive rungs (32 × 8, as the seeds' BDIMX × BDIMY).
pub const NAIVE_BLOCK: [u32; 2] = [32, 8];

/// One thread per input element.
pub const fn naive_config(nx: u32, ny: u32) -> LaunchConfig {
    LaunchConfig::cover_2d(nx, ny, NAIVE_BLOCK)
}
