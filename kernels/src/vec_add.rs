//! PMPP chapter 2/3: vector addition on a 1D grid.

use crate::arch::simd::f32x4;

use crate::arch::{block_idx_x, global_x, thread_idx_x, Global};
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

/// float4s per thread of [`vec_add_vec4`].
pub const VEC4_PER_THREAD: u32 = 4;

/// One thread per [`VEC4_PER_THREAD`] float4s (16 elements): blocks of 256
/// threads, each block owning 4096 consecutive elements.
pub const fn vec_add_vec4_config(n: u32) -> LaunchConfig {
    let per_block = VEC_ADD_THREADS * VEC4_PER_THREAD * 4;
    LaunchConfig::linear(n.div_ceil(per_block), VEC_ADD_THREADS)
}

/// Index of the `k`-th float4 of thread `t` of block `b`: a block's float4s
/// are `[b · 1024, (b + 1) · 1024)`, and load `k` of the block's threads
/// reads 256 consecutive float4s (4 KB), so every load instruction of a warp
/// covers 512 contiguous bytes.
#[inline(always)]
pub const fn vec4_index(b: u32, t: u32, k: u32) -> usize {
    (b as usize * VEC4_PER_THREAD as usize + k as usize) * VEC_ADD_THREADS as usize + t as usize
}

kernel! {
    /// Vector add with 16-byte accesses, four float4s per thread: each
    /// thread issues all eight `ld.global.v4.f32` before its first add, so
    /// a warp keeps 8 × 512 bytes in flight instead of 2 × 128 for
    /// [`vec_add`], and there are 16× fewer threads to schedule. A tail of
    /// `n % 4` elements (and any partial float4) takes a scalar path.
    /// Expected: the bandwidth of a device-to-device copy moving the same
    /// 12 bytes per element.
    pub fn vec_add_vec4(a: Global<f32>, b: Global<f32>, c: Global<f32>, n: u32) {
        let (blk, t) = (block_idx_x(), thread_idx_x());
        let full = (n / 4) as usize;
        let mut va = [f32x4::splat(0.0); VEC4_PER_THREAD as usize];
        let mut vb = [f32x4::splat(0.0); VEC4_PER_THREAD as usize];
        for k in 0..VEC4_PER_THREAD {
            let q = vec4_index(blk, t, k);
            if q < full {
                va[k as usize] = a.read_vec::<f32x4>(4 * q);
                vb[k as usize] = b.read_vec::<f32x4>(4 * q);
            }
        }
        for k in 0..VEC4_PER_THREAD {
            let q = vec4_index(blk, t, k);
            if q < full {
                c.write_vec::<f32x4>(4 * q, va[k as usize] + vb[k as usize]);
            } else if q == full {
                // The partial float4 at the end (at most 3 elements).
                let mut i = 4 * q;
                while i < n as usize {
                    c.write(i, a.read(i) + b.read(i));
                    i += 1;
                }
            }
        }
    }
}
