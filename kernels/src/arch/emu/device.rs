//! Host side of the device layer: the same API as on nvptx, backed by the
//! emulator's per-thread state, with every access checked.

use core::marker::PhantomData;
use core::mem::{align_of, size_of};
use std::format;

use super::sched::{barrier, current, fault, AsyncCopy};

macro_rules! index_fn {
    ($($(#[$m:meta])* $name:ident => |$b:ident, $t:ident| $e:expr;)*) => {$(
        $(#[$m])*
        #[inline]
        pub fn $name() -> u32 {
            let ($b, $t) = current();
            let _ = (&$b, &$t);
            $e
        }
    )*};
}

index_fn! {
    /// `threadIdx.x`
    thread_idx_x => |b, t| t.idx[0];
    /// `threadIdx.y`
    thread_idx_y => |b, t| t.idx[1];
    /// `threadIdx.z`
    thread_idx_z => |b, t| t.idx[2];
    /// `blockIdx.x`
    block_idx_x => |b, t| b.block_idx[0];
    /// `blockIdx.y`
    block_idx_y => |b, t| b.block_idx[1];
    /// `blockIdx.z`
    block_idx_z => |b, t| b.block_idx[2];
    /// `blockDim.x`
    block_dim_x => |b, t| b.block_dim.x;
    /// `blockDim.y`
    block_dim_y => |b, t| b.block_dim.y;
    /// `blockDim.z`
    block_dim_z => |b, t| b.block_dim.z;
    /// `gridDim.x`
    grid_dim_x => |b, t| b.grid_dim.x;
    /// `gridDim.y`
    grid_dim_y => |b, t| b.grid_dim.y;
    /// `gridDim.z`
    grid_dim_z => |b, t| b.grid_dim.z;
}

/// `__syncthreads()`: waits until every thread of the block arrives.
#[inline]
pub fn sync_threads() {
    barrier()
}

/// `bar.sync id, threads`: waits until `threads` threads (whole warps) have
/// arrived at named barrier `id` (1..16). The race checker's barrier
/// intervals still end only at [`sync_threads`]; inside one, a shared-memory
/// access is ordered before another thread's later access when the warps of
/// both completed a named barrier together in between (bytes passed from
/// one warpgroup to another through a barrier of both are not a race; a
/// barrier the writer's warp did not take part in does not order them;
/// nor do two barriers chained through a third warp: the checker is not
/// transitive, so it may report a race that is not one, never the reverse;
/// two exceptions, sound because barriers do order transitively: a read
/// that the earlier reads of its byte are all ordered before replaces
/// them, so a write ordered after it is ordered after them; and an
/// mbarrier arrival passes on to the warps that wait for its phase what
/// the arriving warp had synchronised with before it).
#[inline]
pub fn sync_named(id: u32, threads: u32) {
    super::sched::named_barrier(id, threads)
}

/// `__syncwarp()`: waits until the calling warp's 32 lanes arrive (a warp
/// collective with no registers), ordering their shared-memory accesses.
#[inline]
pub fn sync_warp() {
    super::warp::collective(super::warp::WarpOp::SyncWarp, [0; 10]);
}

/// A device buffer passed to a kernel; on the host it carries its length
/// and name so that every access is bounds-checked.
pub struct Global<T> {
    ptr: *mut T,
    len: usize,
    name: &'static str,
}

impl<T> Clone for Global<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Global<T> {}
// SAFETY: the emulator's blocks share buffers the way GPU blocks do; the
// kernels write disjoint elements (checked by the tests' references).
unsafe impl<T> Send for Global<T> {}
unsafe impl<T> Sync for Global<T> {}

impl<T: Copy> Global<T> {
    /// Wraps host memory for an emulated launch.
    ///
    /// # Safety
    /// `ptr` is valid for reads and writes of `len` elements for as long as
    /// the launch runs.
    pub unsafe fn from_raw_parts(ptr: *mut T, len: usize, name: &'static str) -> Self {
        Global { ptr, len, name }
    }

    /// The buffer's length in elements.
    pub fn len(self) -> usize {
        self.len
    }

    /// Whether the buffer is empty.
    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    /// The buffer's name (the kernel argument it was passed as).
    pub fn name(self) -> &'static str {
        self.name
    }

    #[inline]
    fn check(self, op: &str, i: usize, n: usize, align: usize) {
        if super::sched::awaiting_grid() {
            fault(format!(
                "{op} of `{}` before griddepcontrol.wait in a programmatic dependent launch (the previous kernel may still be running)",
                self.name
            ));
        }
        if i.checked_add(n).is_none_or(|end| end > self.len) {
            fault(format!(
                "out-of-bounds {op} of `{}` at index {i} (+{n} elements), buffer length {}",
                self.name, self.len
            ));
        }
        if (i * size_of::<T>()) % align != 0 {
            fault(format!(
                "misaligned {op} of `{}` at index {i}: {} bytes from the buffer start, needs {align}-byte alignment",
                self.name,
                i * size_of::<T>()
            ));
        }
    }

    /// Reads element `i` (checked).
    ///
    /// # Safety
    /// Always safe on the host (a bad index is reported as a fault); unsafe
    /// for symmetry with the device.
    #[inline]
    pub unsafe fn read(self, i: usize) -> T {
        self.check("read", i, 1, 1);
        unsafe { self.ptr.add(i).read() }
    }

    /// Reads element `i` (checked) from memory that may be less aligned
    /// than `T` (the emulator's tensor maps live in 8-byte aligned host
    /// buffers).
    pub(crate) unsafe fn read_unaligned(self, i: usize) -> T {
        self.check("read", i, 1, 1);
        unsafe { self.ptr.add(i).read_unaligned() }
    }

    /// Writes element `i` (checked).
    ///
    /// # Safety
    /// See [`Global::read`].
    #[inline]
    pub unsafe fn write(self, i: usize, v: T) {
        self.check("write", i, 1, 1);
        unsafe { self.ptr.add(i).write(v) }
    }

    /// Reads one vector of `size_of::<V>()` bytes starting at element `i`;
    /// checks bounds and `align_of::<V>()` alignment (device buffers start
    /// 256-byte aligned, so alignment is relative to the buffer start).
    ///
    /// # Safety
    /// See [`Global::read`].
    #[inline]
    pub unsafe fn read_vec<V: Copy>(self, i: usize) -> V {
        self.check("vector read", i, size_of::<V>() / size_of::<T>(), align_of::<V>());
        unsafe { (self.ptr.add(i) as *const V).read_unaligned() }
    }

    /// Writes one vector starting at element `i` (checked as for reads).
    ///
    /// # Safety
    /// See [`Global::read`].
    #[inline]
    pub unsafe fn write_vec<V: Copy>(self, i: usize, v: V) {
        self.check("vector write", i, size_of::<V>() / size_of::<T>(), align_of::<V>());
        unsafe { (self.ptr.add(i) as *mut V).write_unaligned(v) }
    }
}

impl<T> Global<T> {
    /// The buffer from element `n` on, as elements of `U` (a second array
    /// the launcher placed behind the first in one allocation); its length
    /// the whole `U` in the rest.
    ///
    /// # Safety
    /// The buffer holds at least `n` elements and element `n` is aligned
    /// for `U` (both checked here).
    pub unsafe fn after<U>(self, n: usize) -> Global<U> {
        if n > self.len {
            fault(format!("`{}` viewed from element {n}, buffer length {}", self.name, self.len));
        }
        let ptr = unsafe { self.ptr.add(n) } as *mut U;
        if !(ptr as usize).is_multiple_of(align_of::<U>()) {
            fault(format!("`{}` viewed from element {n}: misaligned for {}", self.name, core::any::type_name::<U>()));
        }
        Global { ptr, len: (self.len - n) * size_of::<T>() / size_of::<U>(), name: self.name }
    }
}

impl Global<u32> {
    /// Steps element `i` (checked) up by one, or back to zero from `last`
    /// and above, and returns its old value, atomically, with acquire and
    /// release semantics (PTX `atom.inc.u32`; a host atomic).
    ///
    /// # Safety
    /// See [`Global::read`].
    pub unsafe fn atomic_inc(self, i: usize, last: u32) -> u32 {
        self.check("atomic inc", i, 1, 4);
        // SAFETY: in bounds and 4-byte aligned (checked); other blocks
        // reach the word only through this method while the launch runs.
        let word = unsafe { core::sync::atomic::AtomicU32::from_ptr(self.ptr.add(i)) };
        // A compare-and-swap loop (`fetch_update` is deprecated on newer
        // stable Rust, its successor missing from the pinned nightly).
        use core::sync::atomic::Ordering::{AcqRel, Acquire};
        let mut old = word.load(Acquire);
        loop {
            let new = if old >= last { 0 } else { old + 1 };
            match word.compare_exchange_weak(old, new, AcqRel, Acquire) {
                Ok(_) => return old,
                Err(now) => old = now,
            }
        }
    }
}

/// `fence.acq_rel.gpu` on the device; on the host a sequentially
/// consistent fence (the emulated blocks' threads are OS threads).
#[inline]
pub fn fence_acq_rel_gpu() {
    core::sync::atomic::fence(core::sync::atomic::Ordering::SeqCst)
}

/// A typed view into the block's dynamic shared memory. On the host it is
/// a byte offset; every access is checked and recorded for race detection.
pub struct Shared<T> {
    off: usize,
    _t: PhantomData<*mut T>,
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Shared<T> {}

/// The start of the block's dynamic shared memory (16-byte aligned).
#[inline]
pub fn dynamic_shared<T>() -> Shared<T> {
    Shared { off: 0, _t: PhantomData }
}

impl<T: Copy> Shared<T> {
    /// The view starting `n` elements further.
    #[inline]
    pub fn offset(self, n: usize) -> Shared<T> {
        Shared { off: self.off + n * size_of::<T>(), _t: PhantomData }
    }

    /// The same bytes seen as another element type.
    #[inline]
    pub fn cast<U>(self) -> Shared<U> {
        Shared { off: self.off, _t: PhantomData }
    }

    /// The view's `.shared` address (the emulator: its byte offset in the
    /// block's dynamic shared memory, which starts at address 0).
    #[inline]
    pub fn addr(self) -> u32 {
        self.off as u32
    }

    fn access<R>(self, op: &str, i: usize, n: usize, align: usize, f: impl FnOnce(*mut u8, &mut super::sched::SharedState, u32) -> Result<R, std::string::String>) -> R {
        let (b, t) = current();
        let start = i.checked_mul(size_of::<T>()).and_then(|x| x.checked_add(self.off));
        let mut sh = b.shared.borrow_mut();
        let len = sh.len;
        let Some(start) = start.filter(|s| s.checked_add(n).is_some_and(|e| e <= len)) else {
            drop(sh);
            fault(format!(
                "out-of-bounds shared-memory {op}: element {i} of a view at byte {} ({n} bytes), dynamic shared memory is {len} bytes",
                self.off
            ));
        };
        if start % align != 0 {
            drop(sh);
            fault(format!("misaligned shared-memory {op} at byte {start}: needs {align}-byte alignment"));
        }
        let base = sh.bytes();
        // SAFETY: start..start+n is inside the block's buffer (checked above).
        match f(unsafe { base.add(start) }, &mut sh, t.linear) {
            Ok(r) => r,
            Err(msg) => {
                drop(sh);
                fault(format!("{msg} ({op})"))
            }
        }
    }

    fn start(self, i: usize) -> usize {
        self.off + i * size_of::<T>()
    }

    /// Reads element `i` (checked, race-tracked).
    ///
    /// # Safety
    /// On the host the index and alignment are checked (a bad one is a
    /// reported fault, the thread stops), and a read of bytes no thread
    /// wrote is reported at the end of the barrier interval. The read
    /// itself still happens, and shared memory starts as a poison pattern:
    /// `T` must be valid for every bit pattern (integers, floats and
    /// vectors of them), as on the device, where unwritten shared memory
    /// holds garbage.
    #[inline]
    pub unsafe fn load(self, i: usize) -> T {
        let at = self.start(i);
        self.access("load", i, size_of::<T>(), align_of::<T>(), |p, sh, tid| {
            sh.on_read(at, size_of::<T>(), tid)?;
            Ok(unsafe { (p as *const T).read() })
        })
    }

    /// Writes element `i` (checked, race-tracked).
    ///
    /// # Safety
    /// See [`Shared::load`].
    #[inline]
    pub unsafe fn store(self, i: usize, v: T) {
        let at = self.start(i);
        self.access("store", i, size_of::<T>(), align_of::<T>(), |p, sh, tid| {
            sh.on_write(at, size_of::<T>(), tid)?;
            unsafe { (p as *mut T).write(v) };
            Ok(())
        })
    }

    /// Reads one vector starting at element `i` (checked as
    /// [`Shared::load`], with the vector's alignment).
    ///
    /// # Safety
    /// See [`Shared::load`]: `V` must be valid for every bit pattern.
    #[inline]
    pub unsafe fn load_vec<V: Copy>(self, i: usize) -> V {
        let at = self.start(i);
        self.access("vector load", i, size_of::<V>(), align_of::<V>(), |p, sh, tid| {
            sh.on_read(at, size_of::<V>(), tid)?;
            Ok(unsafe { (p as *const V).read() })
        })
    }

    /// Writes one vector starting at element `i`.
    ///
    /// # Safety
    /// See [`Shared::load`].
    #[inline]
    pub unsafe fn store_vec<V: Copy>(self, i: usize, v: V) {
        let at = self.start(i);
        self.access("vector store", i, size_of::<V>(), align_of::<V>(), |p, sh, tid| {
            sh.on_write(at, size_of::<V>(), tid)?;
            unsafe { (p as *mut V).write(v) };
            Ok(())
        })
    }
}

impl<T: Copy> Shared<T> {
    /// Reads the 16-byte row at element `i` for `ldmatrix`: checked for
    /// bounds and 16-byte alignment, recorded as this thread's read (races,
    /// uninitialised bytes).
    pub(crate) fn ldmatrix_row(self, i: usize) -> [u32; 4] {
        let at = self.start(i);
        self.access("ldmatrix row read", i, 16, 16, |p, sh, tid| {
            sh.on_read(at, 16, tid)?;
            // SAFETY: 16 bytes inside the buffer (checked by `access`).
            Ok(unsafe { (p as *const [u32; 4]).read_unaligned() })
        })
    }
}

/// `cp.async.cg.shared.global` of 16 bytes: element `j` of `src` to
/// element `i` of `dst`.
///
/// The emulator reads the source when the copy is issued (checked: bounds
/// and 16-byte alignment) and records the destination as written by this
/// thread in the current barrier interval (checked for races and bounds),
/// but the bytes only land in shared memory when
/// [`cp_async_wait_group`] completes the copy's group, where the write is
/// recorded again. So a kernel that reads a destination before waiting
/// reads the old bytes (wrong results, or an uninitialised read), and one
/// that forgets the barrier after waiting is reported as a race. A
/// barrier alone does not complete copies, as on the device.
///
/// # Safety
/// Always safe on the host; unsafe for symmetry with the device.
#[inline]
pub unsafe fn cp_async_16<T: Copy>(dst: Shared<T>, i: usize, src: Global<T>, j: usize) {
    unsafe { cp_async_16_zfill(dst, i, src, j, 16) }
}

/// [`cp_async_16`] that reads only `src_bytes` (0..=16, whole elements) of
/// the source and zero-fills the rest. The source index must be 16-byte
/// aligned and inside the buffer even when `src_bytes` is 0.
///
/// # Safety
/// Always safe on the host; unsafe for symmetry with the device.
pub unsafe fn cp_async_16_zfill<T: Copy>(dst: Shared<T>, i: usize, src: Global<T>, j: usize, src_bytes: u32) {
    unsafe { cp_async_sized(dst, i, src, j, src_bytes, 16) }
}

/// `cp.async.ca` of one 4-byte element, reading `src_bytes` (0 or 4) of
/// it (see [`cp_async_16`] for how the emulator completes copies).
///
/// # Safety
/// Always safe on the host; unsafe for symmetry with the device.
pub unsafe fn cp_async_4_zfill<T: Copy>(dst: Shared<T>, i: usize, src: Global<T>, j: usize, src_bytes: u32) {
    unsafe { cp_async_sized(dst, i, src, j, src_bytes, 4) }
}

/// [`cp_async_4_zfill`] of a whole element.
///
/// # Safety
/// Always safe on the host; unsafe for symmetry with the device.
pub unsafe fn cp_async_4<T: Copy>(dst: Shared<T>, i: usize, src: Global<T>, j: usize) {
    unsafe { cp_async_sized(dst, i, src, j, 4, 4) }
}

/// A `size`-byte asynchronous copy reading `src_bytes` of it.
unsafe fn cp_async_sized<T: Copy>(dst: Shared<T>, i: usize, src: Global<T>, j: usize, src_bytes: u32, size: usize) {
    let n = src_bytes as usize;
    if n > size || n % size_of::<T>() != 0 {
        fault(format!("cp.async source size {n} is not a whole number of elements in 0..={size} bytes"));
    }
    // The whole `size`-byte source window must lie inside the buffer, even
    // when fewer bytes are read: compute-sanitizer's memcheck flags a copy
    // whose window reaches past an allocation (seen on an H200), so the
    // emulator is as strict.
    src.check("cp.async read", j, size / size_of::<T>(), size);
    let mut data = [0u8; 16];
    // SAFETY: the n bytes at element j are inside the buffer (checked).
    unsafe { core::ptr::copy_nonoverlapping(src.ptr.add(j) as *const u8, data.as_mut_ptr(), n) };
    let at = dst.start(i);
    dst.access("cp.async", i, size, size, |_, sh, tid| sh.on_write(at, size, tid));
    let (_, t) = current();
    let mut c = t.copies.borrow_mut();
    let group = c.committed;
    c.pending.push(AsyncCopy { dst: at, data, size, group });
}

/// `cp.async.commit_group`: closes the current group of copies.
#[inline]
pub fn cp_async_commit() {
    let (_, t) = current();
    t.copies.borrow_mut().committed += 1;
}

/// `cp.async.wait_group n`: completes every copy except those of the `n`
/// most recently committed groups (and of the open group): their bytes
/// are written to shared memory now, recorded as this thread's writes.
pub fn cp_async_wait_group(n: u32) {
    let (b, t) = current();
    let done: std::vec::Vec<AsyncCopy> = {
        let mut c = t.copies.borrow_mut();
        let limit = c.committed.saturating_sub(n);
        let (done, keep) = c.pending.drain(..).partition(|x| x.group < limit);
        c.pending = keep;
        done
    };
    for x in done {
        let mut sh = b.shared.borrow_mut();
        if let Err(msg) = sh.on_write(x.dst, x.size, t.linear) {
            drop(sh);
            fault(format!("{msg} (cp.async completion)"));
        }
        // SAFETY: dst..dst+size was bounds-checked when the copy was issued.
        unsafe { core::ptr::copy_nonoverlapping(x.data.as_ptr(), sh.bytes().add(x.dst), x.size) };
    }
}

/// Single-precision fused multiply-add `a * b + c`, rounded once as on the
/// device.
#[inline]
pub fn fma(a: f32, b: f32, c: f32) -> f32 {
    f32::mul_add(a, b, c)
}

/// `x` (on the device an empty `asm!` that keeps the compiler from
/// hoisting arithmetic on it out of a loop).
#[inline]
pub fn opaque_u32(x: u32) -> u32 {
    x
}

/// `floor(a · b / 2³²)` (`mul.hi.u32` on the device).
#[inline]
pub fn mul_hi_u32(a: u32, b: u32) -> u32 {
    ((a as u64 * b as u64) >> 32) as u32
}

/// `c + a₀ · b₀ + a₁ · b₁` for the two u16 halves `a₀, a₁` of `a` and the
/// low two bytes `b₀, b₁` of `b`, modulo 2³² (`dp2a.lo.u32.u32` on the
/// device): with `b = 0x0101` the sum of both halves, `0x0001` or `0x0100`
/// one of them, in one instruction.
#[inline]
pub fn dp2a_lo(a: u32, b: u32, c: u32) -> u32 {
    c.wrapping_add((a & 0xffff) * (b & 0xff)).wrapping_add((a >> 16) * ((b >> 8) & 0xff))
}

/// `2^x` (`ex2.approx.ftz.f32` on the device, within about 2 ulp of the
/// exact value, subnormal results flushed to zero; the emulator computes
/// the correctly rounded value and flushes the same way).
#[inline]
pub fn exp2_approx(x: f32) -> f32 {
    let y = x.exp2();
    if y != 0.0 && y.abs() < f32::MIN_POSITIVE { 0.0 } else { y }
}

/// `tanh(x)` (`tanh.approx.f32` on the device, a relative error of about
/// 2^-11; the emulator computes the correctly rounded value).
#[inline]
pub fn tanh_approx(x: f32) -> f32 {
    x.tanh()
}

/// `1 / x` (`rcp.approx.ftz.f32` on the device, within 1 ulp; the
/// emulator computes the correctly rounded value, subnormal results
/// flushed to zero as on the device).
#[inline]
pub fn rcp_approx(x: f32) -> f32 {
    let y = 1.0 / x;
    if y != 0.0 && y.abs() < f32::MIN_POSITIVE { 0.0 } else { y }
}
