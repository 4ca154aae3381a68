//! PMPP chapter 2/3: vector addition on a 1D grid.

use crate::arch::{global_x, Global};
use crate::kernel;
use crate::launch::LaunchConfig;

/// Threads per block of [`vec_add`].
pub const VEC_ADD_THREADS: u32 = 256;

/// One thread per element: `ceil(n / 256)` blocks of 256 threads.
pub const fn vec_add_config(n: u32) -> LaunchConfig {
    LaunchConfig::linear(n.div_ceil(VEC_ADD_THREADS), VEC_ADD_THREADS)
}

kernel! {
    /// `c[i] = a[i] + b[i]` for `i < n`, one thread per element (PMPP
    /// `vecAddKernel`): the guard covers the last, partial block.
    pub fn vec_add(a: Global<f32>, b: Global<f32>, c: Global<f32>, n: u32) {
        let i = global_x();
        if i < n {
            let i = i as usize;
            c.write(i, a.read(i) + b.read(i));
        }
    }
}
