//! Device side of the device layer: intrinsics and PTX.

use core::arch::nvptx as ptx;

macro_rules! special_reg {
    ($($(#[$m:meta])* $name:ident => $intr:ident;)*) => {$(
        $(#[$m])*
        #[inline(always)]
        pub fn $name() -> u32 {
            unsafe { ptx::$intr() as u32 }
        }
    )*};
}

special_reg! {
    /// `threadIdx.x`
    thread_idx_x => _thread_idx_x;
    /// `threadIdx.y`
    thread_idx_y => _thread_idx_y;
    /// `threadIdx.z`
    thread_idx_z => _thread_idx_z;
    /// `blockIdx.x`
    block_idx_x => _block_idx_x;
    /// `blockIdx.y`
    block_idx_y => _block_idx_y;
    /// `blockIdx.z`
    block_idx_z => _block_idx_z;
    /// `blockDim.x`
    block_dim_x => _block_dim_x;
    /// `blockDim.y`
    block_dim_y => _block_dim_y;
    /// `blockDim.z`
    block_dim_z => _block_dim_z;
    /// `gridDim.x`
    grid_dim_x => _grid_dim_x;
    /// `gridDim.y`
    grid_dim_y => _grid_dim_y;
    /// `gridDim.z`
    grid_dim_z => _grid_dim_z;
}

/// `__syncthreads()`: barrier for every thread of the block.
#[inline(always)]
pub fn sync_threads() {
    unsafe { ptx::_syncthreads() }
}

/// A pointer to device memory passed as a kernel parameter.
#[repr(transparent)]
pub struct Global<T> {
    ptr: *mut T,
}

impl<T> Clone for Global<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Global<T> {}

impl<T: Copy> Global<T> {
    /// Reads element `i`.
    ///
    /// # Safety
    /// `i` is inside the buffer the launcher validated.
    #[inline(always)]
    pub unsafe fn read(self, i: usize) -> T {
        unsafe { *self.ptr.add(i) }
    }

    /// Writes element `i`.
    ///
    /// # Safety
    /// `i` is inside the buffer the launcher validated.
    #[inline(always)]
    pub unsafe fn write(self, i: usize, v: T) {
        unsafe { *self.ptr.add(i) = v }
    }

    /// Reads the `size_of::<V>()` bytes starting at element `i` as one
    /// vector (`f32x4` → `ld.global.v4.f32`).
    ///
    /// # Safety
    /// The elements are inside the buffer and element `i` is aligned to
    /// `align_of::<V>()`.
    #[inline(always)]
    pub unsafe fn read_vec<V: Copy>(self, i: usize) -> V {
        unsafe { *(self.ptr.add(i) as *const V) }
    }

    /// Writes one vector starting at element `i`.
    ///
    /// # Safety
    /// As for [`Global::read_vec`].
    #[inline(always)]
    pub unsafe fn write_vec<V: Copy>(self, i: usize, v: V) {
        unsafe { *(self.ptr.add(i) as *mut V) = v }
    }
}

/// A typed view into the block's dynamic shared memory.
pub struct Shared<T> {
    ptr: *mut T,
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Shared<T> {}

/// The start of the block's dynamic shared memory (16-byte aligned); its
/// size is the `shared_bytes` of the launch.
#[inline(always)]
pub fn dynamic_shared<T>() -> Shared<T> {
    let base = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<core::simd::f32x4>();
    Shared { ptr: base as *mut T }
}

impl<T: Copy> Shared<T> {
    /// The view starting `n` elements further.
    #[inline(always)]
    pub fn offset(self, n: usize) -> Shared<T> {
        Shared { ptr: unsafe { self.ptr.add(n) } }
    }

    /// The same bytes seen as another element type.
    #[inline(always)]
    pub fn cast<U>(self) -> Shared<U> {
        Shared { ptr: self.ptr as *mut U }
    }

    /// Reads element `i`.
    ///
    /// # Safety
    /// `i` is inside the launch's dynamic shared memory.
    #[inline(always)]
    pub unsafe fn load(self, i: usize) -> T {
        unsafe { *self.ptr.add(i) }
    }

    /// Writes element `i`.
    ///
    /// # Safety
    /// As for [`Shared::load`].
    #[inline(always)]
    pub unsafe fn store(self, i: usize, v: T) {
        unsafe { *self.ptr.add(i) = v }
    }

    /// Reads one vector starting at element `i` (`ld.shared.v4` for `f32x4`).
    ///
    /// # Safety
    /// Inside shared memory, element `i` aligned to `align_of::<V>()`.
    #[inline(always)]
    pub unsafe fn load_vec<V: Copy>(self, i: usize) -> V {
        unsafe { *(self.ptr.add(i) as *const V) }
    }

    /// Writes one vector starting at element `i`.
    ///
    /// # Safety
    /// As for [`Shared::load_vec`].
    #[inline(always)]
    pub unsafe fn store_vec<V: Copy>(self, i: usize, v: V) {
        unsafe { *(self.ptr.add(i) as *mut V) = v }
    }
}

/// Single-precision fused multiply-add `a * b + c` (`fma.rn.f32`).
#[inline(always)]
pub fn fma(a: f32, b: f32, c: f32) -> f32 {
    core::f32::math::mul_add(a, b, c)
}
