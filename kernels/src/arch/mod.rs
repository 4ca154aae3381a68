//! The device layer: what `cuda_std` offers, for both targets.
//!
//! On `nvptx64` every function is one intrinsic or one instruction. On the
//! host the same names are backed by the CPU emulator ([`emu`]): indices come
//! from the emulated thread, [`sync_threads`] is a real block barrier, and
//! every global and shared access is checked.
//!
//! Memory is only reached through two typed handles:
//!
//! * [`Global<T>`]: a kernel parameter pointing at device memory. On the
//!   device it is a bare pointer (`#[repr(transparent)]`, so the PTX
//!   signature is what the host passes); on the host it also carries the
//!   buffer's length and name so the emulator can bounds-check every access.
//! * [`Shared<T>`]: a view into the block's dynamic shared memory, carved
//!   with [`Shared::offset`] / [`Shared::cast`] from [`dynamic_shared`].
//!
//! The warp-level instructions of the tensor-core path (`ldmatrix`,
//! `mma.sync`, `shfl.sync`, the bf16 / f16 / tf32 conversions) are in
//! [`sm80`] and re-exported here.

#[cfg(target_arch = "nvptx64")]
mod nvptx;
#[cfg(target_arch = "nvptx64")]
pub use nvptx::*;

#[cfg(not(target_arch = "nvptx64"))]
pub mod emu;
#[cfg(not(target_arch = "nvptx64"))]
pub use emu::device::*;

pub mod simd;
pub mod sm80;
pub use sm80::*;
pub mod sm90;

/// Alignment (bytes) of the start of dynamic shared memory on both targets.
pub const SHARED_ALIGN: usize = 16;

/// Linear index of the calling thread inside its block (x fastest).
#[inline(always)]
pub fn thread_linear() -> u32 {
    (thread_idx_z() * block_dim_y() + thread_idx_y()) * block_dim_x() + thread_idx_x()
}

/// Threads per block.
#[inline(always)]
pub fn block_threads() -> u32 {
    block_dim_x() * block_dim_y() * block_dim_z()
}

/// Global x index: `block_idx_x * block_dim_x + thread_idx_x`.
#[inline(always)]
pub fn global_x() -> u32 {
    block_idx_x() * block_dim_x() + thread_idx_x()
}

/// Global y index: `block_idx_y * block_dim_y + thread_idx_y`.
#[inline(always)]
pub fn global_y() -> u32 {
    block_idx_y() * block_dim_y() + thread_idx_y()
}

/// Global z index: `block_idx_z * block_dim_z + thread_idx_z`.
#[inline(always)]
pub fn global_z() -> u32 {
    block_idx_z() * block_dim_z() + thread_idx_z()
}

/// Block row of a grid launched with its rows folded into z
/// ([`crate::launch::LaunchConfig::fold_rows`]): `blockIdx.z · gridDim.y +
/// blockIdx.y` (`blockIdx.y` when the rows fit).
#[inline(always)]
pub fn block_row() -> u32 {
    block_idx_z() * grid_dim_y() + block_idx_y()
}

/// Global y index on a folded grid: `block_row() · blockDim.y + threadIdx.y`.
#[inline(always)]
pub fn global_row() -> u32 {
    block_row() * block_dim_y() + thread_idx_y()
}
