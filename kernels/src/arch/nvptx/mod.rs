//! Device side of the device layer: intrinsics and PTX.

use core::arch::nvptx as ptx;

pub(super) mod sm80;
pub(super) mod sm90;

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

/// `bar.sync id, threads`: waits until `threads` threads (whole warps)
/// have arrived at named barrier `id` (1..16; 0 is [`sync_threads`]'s).
/// Orders the arriving threads' shared-memory accesses like
/// [`sync_threads`], among them only.
#[inline(always)]
pub fn sync_named(id: u32, threads: u32) {
    unsafe { core::arch::asm!("bar.sync {i}, {n};", i = in(reg32) id, n = in(reg32) threads, options(nostack)) }
}

/// `__syncwarp()`: `bar.warp.sync` with the full mask; the calling warp's
/// 32 lanes wait for each other, and their shared-memory accesses before
/// it are ordered before those after it.
#[inline(always)]
pub fn sync_warp() {
    unsafe { core::arch::asm!("bar.warp.sync -1;", options(nostack)) }
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

impl<T> Global<T> {
    /// The buffer from element `n` on, as elements of `U` (a second array
    /// the launcher placed behind the first in one allocation).
    ///
    /// # Safety
    /// The buffer holds at least `n` elements and element `n` is aligned
    /// for `U`.
    #[inline(always)]
    pub unsafe fn after<U>(self, n: usize) -> Global<U> {
        Global { ptr: unsafe { self.ptr.add(n) } as *mut U }
    }
}

impl Global<u32> {
    /// Steps element `i` up by one, or back to zero from `last` and
    /// above, and returns its old value, atomically, with acquire and
    /// release semantics at GPU scope (`atom.acq_rel.gpu.inc.u32`).
    ///
    /// # Safety
    /// `i` is inside the buffer the launcher validated.
    #[inline(always)]
    pub unsafe fn atomic_inc(self, i: usize, last: u32) -> u32 {
        let old: u32;
        unsafe {
            core::arch::asm!(
                "atom.acq_rel.gpu.inc.u32 {d}, [{p}], {v};",
                d = out(reg32) old,
                p = in(reg64) self.ptr.add(i),
                v = in(reg32) last,
                options(nostack),
            );
        }
        old
    }
}

/// `fence.acq_rel.gpu`: this thread's memory accesses before the fence are
/// ordered before those after it for every thread of the GPU (with a
/// barrier and an atomic, it publishes a block's stores to another block).
#[inline(always)]
pub fn fence_acq_rel_gpu() {
    unsafe { core::arch::asm!("fence.acq_rel.gpu;", options(nostack)) }
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

    /// The view's `.shared` address (what TMA, mbarrier and `wgmma`
    /// descriptors take).
    #[inline(always)]
    pub fn addr(self) -> u32 {
        shared_addr(self.ptr)
    }

    /// Reads element `i`.
    ///
    /// # Safety
    /// `i` is inside the launch's dynamic shared memory, aligned for `T`,
    /// and `T` is valid for every bit pattern (unwritten shared memory
    /// holds garbage).
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

/// `x`, through an empty `asm!` the compiler may not move or see through:
/// arithmetic on the result stays where it is written instead of being
/// hoisted out of a loop (where its results would hold registers for the
/// whole loop).
#[inline(always)]
pub fn opaque_u32(x: u32) -> u32 {
    let mut x = x;
    unsafe { core::arch::asm!("// opaque {x}", x = inout(reg32) x, options(nomem, nostack, preserves_flags)) };
    x
}

/// `floor(a · b / 2³²)` as one `mul.hi.u32` (LLVM forms it from the 64-bit
/// product only when both widenings are in the multiply's basic block; in
/// a loop it hoists the invariant one and emits a 64-bit multiply).
#[inline(always)]
pub fn mul_hi_u32(a: u32, b: u32) -> u32 {
    let d: u32;
    unsafe {
        core::arch::asm!("mul.hi.u32 {d}, {a}, {b};", d = out(reg32) d, a = in(reg32) a, b = in(reg32) b, options(pure, nomem, nostack));
    }
    d
}

/// `c + a₀ · b₀ + a₁ · b₁` for the two u16 halves `a₀, a₁` of `a` and the
/// low two bytes `b₀, b₁` of `b`, modulo 2³² (`dp2a.lo.u32.u32`): with
/// `b = 0x0101` the sum of both halves, `0x0001` or `0x0100` one of them,
/// in one instruction.
#[inline(always)]
pub fn dp2a_lo(a: u32, b: u32, c: u32) -> u32 {
    let d: u32;
    unsafe {
        core::arch::asm!(
            "dp2a.lo.u32.u32 {d}, {a}, {b}, {c};",
            d = out(reg32) d,
            a = in(reg32) a,
            b = in(reg32) b,
            c = in(reg32) c,
            options(pure, nomem, nostack)
        );
    }
    d
}

/// `2^x` to about 2 ulp (`ex2.approx.ftz.f32`: subnormal results flush to
/// zero); the fast path of `exp` in epilogues.
#[inline(always)]
pub fn exp2_approx(x: f32) -> f32 {
    let y: f32;
    unsafe {
        core::arch::asm!("ex2.approx.ftz.f32 {y}, {x};", y = out(reg32) y, x = in(reg32) x, options(pure, nomem, nostack));
    }
    y
}

/// `tanh(x)` in one special-function instruction (`tanh.approx.f32`,
/// sm_75 on; a relative error of about 2^-11): GELU's tanh where the
/// output has 16-bit elements, whose rounding is coarser.
#[inline(always)]
pub fn tanh_approx(x: f32) -> f32 {
    let y: f32;
    unsafe {
        core::arch::asm!("tanh.approx.f32 {y}, {x};", y = out(reg32) y, x = in(reg32) x, options(pure, nomem, nostack));
    }
    y
}

/// `1 / x` to 1 ulp (`rcp.approx.ftz.f32`; subnormals flush to zero): a
/// division's cost cut to one special-function instruction in epilogues.
#[inline(always)]
pub fn rcp_approx(x: f32) -> f32 {
    let y: f32;
    unsafe {
        core::arch::asm!("rcp.approx.ftz.f32 {y}, {x};", y = out(reg32) y, x = in(reg32) x, options(pure, nomem, nostack));
    }
    y
}

/// The 32-bit `.shared` state-space address of a generic pointer into
/// shared memory (what `cp.async` takes as its destination).
#[inline(always)]
fn cvta_to_shared<T>(p: *mut T) -> u32 {
    let a: u32;
    unsafe {
        core::arch::asm!(
            "{{ .reg .u64 sa64; cvta.to.shared.u64 sa64, {p}; cvt.u32.u64 {a}, sa64; }}",
            p = in(reg64) p,
            a = out(reg32) a,
            options(pure, nomem, nostack),
        );
    }
    a
}

/// The `.shared` address of `p` (inside the dynamic shared memory): the
/// converted base plus the byte offset, so that the conversion is one
/// loop-invariant instruction and the offset stays 32-bit arithmetic.
#[inline(always)]
fn shared_addr<T>(p: *mut T) -> u32 {
    let base = dynamic_shared::<u8>().ptr;
    cvta_to_shared(base).wrapping_add((p as usize).wrapping_sub(base as usize) as u32)
}

/// `cp.async.cg.shared.global [dst + i], [src + j], 16`: starts an
/// asynchronous copy of the 16 bytes at element `j` of `src` to element `i`
/// of `dst`, through L2 only (`.cg`), without passing through registers.
/// The copy joins the thread's current group ([`cp_async_commit`]); its
/// bytes are in shared memory once [`cp_async_wait_group`] has waited for
/// that group, and visible to other threads after the next barrier.
///
/// # Safety
/// 16 bytes at `src + j` are inside the buffer, both addresses are 16-byte
/// aligned, and nothing reads or writes the destination until the copy's
/// group has been waited for.
#[inline(always)]
pub unsafe fn cp_async_16<T: Copy>(dst: Shared<T>, i: usize, src: Global<T>, j: usize) {
    unsafe {
        let d = shared_addr(dst.ptr.add(i));
        core::arch::asm!(
            "cp.async.cg.shared.global [{d}], [{s}], 16;",
            d = in(reg32) d,
            s = in(reg64) src.ptr.add(j),
            options(nostack),
        );
    }
}

/// [`cp_async_16`] that reads only the first `src_bytes` (0..=16) bytes
/// of the source and zero-fills the rest of the 16 destination bytes
/// (`cp.async.cg.shared.global [dst], [src], 16, src_bytes`): predicated
/// edge loads without a branch.
///
/// # Safety
/// As for [`cp_async_16`], except that only `src_bytes` bytes at
/// `src + j` must be inside the buffer (with 0, any 16-byte aligned element
/// of the buffer, e.g. 0, will do).
#[inline(always)]
pub unsafe fn cp_async_16_zfill<T: Copy>(dst: Shared<T>, i: usize, src: Global<T>, j: usize, src_bytes: u32) {
    unsafe {
        let d = shared_addr(dst.ptr.add(i));
        core::arch::asm!(
            "cp.async.cg.shared.global [{d}], [{s}], 16, {n};",
            d = in(reg32) d,
            s = in(reg64) src.ptr.add(j),
            n = in(reg32) src_bytes,
            options(nostack),
        );
    }
}

/// `cp.async.ca.shared.global [dst + i], [src + j], 4, src_bytes`: an
/// asynchronous copy of one 4-byte element (through L1: `.cg` takes only
/// 16-byte copies), reading `src_bytes` (0 or 4) bytes and zero-filling
/// the rest. Element-wise copies can transpose a tile on its way to
/// shared memory.
///
/// # Safety
/// As for [`cp_async_16_zfill`], with 4-byte alignment.
#[inline(always)]
pub unsafe fn cp_async_4_zfill<T: Copy>(dst: Shared<T>, i: usize, src: Global<T>, j: usize, src_bytes: u32) {
    unsafe {
        let d = shared_addr(dst.ptr.add(i));
        core::arch::asm!(
            "cp.async.ca.shared.global [{d}], [{s}], 4, {n};",
            d = in(reg32) d,
            s = in(reg64) src.ptr.add(j),
            n = in(reg32) src_bytes,
            options(nostack),
        );
    }
}

/// [`cp_async_4_zfill`] of a whole element (`cp.async.ca.shared.global
/// [dst], [src], 4`).
///
/// # Safety
/// As for [`cp_async_16`], with 4-byte alignment.
#[inline(always)]
pub unsafe fn cp_async_4<T: Copy>(dst: Shared<T>, i: usize, src: Global<T>, j: usize) {
    unsafe {
        let d = shared_addr(dst.ptr.add(i));
        core::arch::asm!(
            "cp.async.ca.shared.global [{d}], [{s}], 4;",
            d = in(reg32) d,
            s = in(reg64) src.ptr.add(j),
            options(nostack),
        );
    }
}

/// `cp.async.commit_group`: closes the thread's current group of
/// asynchronous copies (possibly empty) and starts a new one.
#[inline(always)]
pub fn cp_async_commit() {
    unsafe { core::arch::asm!("cp.async.commit_group;", options(nostack)) }
}

/// `cp.async.wait_group n`: waits until at most the `n` most recently
/// committed groups of this thread are still in flight (`n` is a
/// compile-time constant after inlining; above 7 it waits for every group,
/// which is always correct).
#[inline(always)]
pub fn cp_async_wait_group(n: u32) {
    macro_rules! wait {
        ($($k:literal)*) => {
            match n {
                $($k => unsafe { core::arch::asm!(concat!("cp.async.wait_group ", $k, ";"), options(nostack)) },)*
                _ => unsafe { core::arch::asm!("cp.async.wait_all;", options(nostack)) },
            }
        };
    }
    wait!(0 1 2 3 4 5 6 7)
}
