//! Zero-copy interop with the application's CUDA memory: `cudarc` device
//! slices in and out ([`Buffer::from_cudarc`], [`Buffer::into_cudarc`]),
//! raw device pointers for everything else
//! ([`Buffer::from_raw_device_ptr`], [`Buffer::raw_device_ptr`]), and the
//! cudarc context and stream a ferrotile [`Context`] runs on.
//!
//! Ordering: every operation of a ferrotile context handle is enqueued, in
//! order, on its stream ([`Context::cudarc_stream`]: the default stream, or
//! the [`crate::Stream`] of [`Context::on`]); ferrotile orders its own
//! streams per buffer (see [`crate::stream`]). Memory that arrives from
//! another stream is ordered after that stream's pending work without a
//! host synchronisation (an event), and memory that goes back is ordered
//! after every ferrotile use, on any stream, the same way; what the
//! application does on any *other* stream it orders itself
//! (`CudaStream::join`). The default stream is non-blocking: it does not
//! synchronise with the legacy null stream.
//!
//! The `cudarc` crate is re-exported as [`crate::cudarc`]: use that version
//! (its types are the ones these functions take and return).

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaSlice, CudaStream};

use crate::backend::{driver, Inner, Ownership, Storage};
use crate::{Buffer, Context, Element, Error, Result};

impl Context {
    /// The cudarc context this CUDA context runs on (`None` on the
    /// emulator): the device's primary context, shared with every other
    /// context on the device.
    pub fn cudarc_context(&self) -> Option<&Arc<CudaContext>> {
        match &*self.inner {
            Inner::Cuda(c) => Some(&c.ctx),
            Inner::Emulator => None,
        }
    }

    /// The stream every operation of this context handle is enqueued on,
    /// in order (`None` on the emulator): the context's default stream (a
    /// non-blocking stream, not the legacy null stream), or the stream of
    /// [`Context::on`]. Order the application's own streams against it
    /// with `CudaStream::join`: for example
    /// `app_stream.join(ctx.cudarc_stream().unwrap())` before reading a
    /// result on `app_stream` without [`Context::synchronize`].
    pub fn cudarc_stream(&self) -> Option<&Arc<CudaStream>> {
        self.cuda_stream()
    }
}

/// Whether two cudarc contexts are the same CUDA context (the same primary
/// context of one device, whichever `Arc` holds it).
fn same_cuda_context(a: &CudaContext, b: &CudaContext) -> bool {
    a.cu_ctx() == b.cu_ctx()
}

/// The alignment, in bytes, of the device memory a [`Buffer`] may view
/// ([`Buffer::from_raw_device_ptr`], `Buffer::from_cust`): the kernels'
/// 16-byte loads and stores (and TMA) need it at the buffer's start.
pub const DEVICE_ALIGN: u64 = 16;

impl<T: Element> Buffer<T> {
    /// Takes a cudarc device slice as a buffer of `ctx`, without copying.
    ///
    /// The slice must live in `ctx`'s CUDA context (the same device's
    /// primary context: a `CudaContext::new(ordinal)` of the application on
    /// that device qualifies). Work already enqueued on the slice's stream
    /// (`slice.stream()`) finishes before any ferrotile operation on the
    /// buffer starts (an event on `ctx`'s stream, no host wait; other
    /// ferrotile streams are then ordered after that one per buffer). The buffer owns the memory:
    /// dropping it frees the slice on the slice's stream after ferrotile's
    /// work; [`Buffer::into_cudarc`] gives it back.
    ///
    /// The slice starts [`DEVICE_ALIGN`]-aligned, as every cudarc
    /// allocation does; one an application made with cudarc's unsafe
    /// `upgrade_device_ptr` must keep to that too (it is not checked here:
    /// the kernels' 16-byte accesses would fault on another start).
    ///
    /// Errors, with the slice handed back: `ctx` is the emulator
    /// ([`Error::BadArgument`] naming `ctx`); the slice belongs to another
    /// CUDA context (`slice`); the driver refuses the event (`Driver`).
    pub fn from_cudarc(ctx: &Context, slice: CudaSlice<T>) -> std::result::Result<Self, (Error, CudaSlice<T>)> {
        let c = match &*ctx.inner {
            Inner::Cuda(c) => c,
            Inner::Emulator => {
                let e = Error::BadArgument { arg: "ctx", detail: "the emulator has no CUDA memory: a cudarc slice needs a CUDA context".into() };
                return Err((e, slice));
            }
        };
        if !same_cuda_context(slice.context(), &c.ctx) {
            let detail = format!("the slice lives in another CUDA context (device {}) than this context's (device {})", slice.ordinal(), c.ctx.ordinal());
            return Err((Error::BadArgument { arg: "slice", detail }, slice));
        }
        let stream = ctx.stream_of(c);
        if !Arc::ptr_eq(slice.stream(), stream)
            && let Err(e) = stream.join(slice.stream()) {
                return Err((driver("ordering after the slice's stream")(e), slice));
            }
        let track = match crate::stream::Tracker::born(c, stream) {
            Ok(t) => t,
            Err(e) => return Err((e, slice)),
        };
        let len = slice.len();
        Ok(Buffer::cuda_with(slice, len, &c.stream, track, &ctx.inner, Ownership::Owned))
    }

    /// Gives the buffer's memory back as a cudarc slice, without copying.
    ///
    /// The slice's stream (`slice.stream()`: the stream of the handle that
    /// allocated it for memory ferrotile allocated, the original stream for
    /// memory from [`Buffer::from_cudarc`]) is ordered after every
    /// ferrotile operation on the buffer enqueued so far, on any stream;
    /// other streams must be ordered by the caller.
    ///
    /// `Err(self)` when the buffer does not own CUDA memory: an emulator
    /// buffer, or one made by [`Buffer::from_raw_device_ptr`].
    pub fn into_cudarc(mut self) -> std::result::Result<CudaSlice<T>, Self> {
        let Storage::Cuda { slice, stream, ownership, track, .. } = &mut self.storage else {
            return Err(self);
        };
        if *ownership != Ownership::Owned {
            return Err(self);
        }
        // The events are best effort only in the sense that a failing
        // driver fails every later call too; record nothing else.
        let _ = track.settle(slice.stream(), stream);
        *ownership = Ownership::Released;
        // SAFETY: taken once; `Released` keeps `Drop` away from it.
        Ok(unsafe { std::mem::ManuallyDrop::take(slice) })
    }

    /// Wraps `len` elements of device memory at `ptr`, owned by the
    /// application, as a buffer of `ctx`, without copying. Dropping the
    /// buffer does not free the memory.
    ///
    /// Checked (nothing else happens on failure): `ctx` is a CUDA context;
    /// `ptr` is [`DEVICE_ALIGN`]-byte aligned (ferrotile's kernels move 16
    /// bytes at a time; allocations start 256-byte aligned, so a view at a
    /// byte offset that is a multiple of 16 qualifies); the driver knows `ptr` as memory of
    /// `ctx`'s device and the allocation holding it reaches at least
    /// `len` elements past it.
    ///
    /// # Safety
    /// * The memory stays allocated, and is not used for anything else,
    ///   until the buffer is dropped **and** the work ferrotile enqueued on
    ///   it has finished: dropping the buffer makes the context's default
    ///   stream wait (on the device) for every use on any ferrotile
    ///   stream, so after the drop [`Context::synchronize`] on the context
    ///   (not a [`Context::on`] handle), or an event recorded on its
    ///   [`Context::cudarc_stream`] that the freeing stream waits for,
    ///   covers them all.
    /// * Work of other streams that writes the memory has finished, or is
    ///   ordered before the stream of the handle that uses the buffer
    ///   ([`Context::cudarc_stream`]) before the buffer is used; nothing else writes it while ferrotile may read or write it.
    /// * The bits are valid values of `T` (every bit pattern is, for the
    ///   element types ferrotile has).
    pub unsafe fn from_raw_device_ptr(ctx: &Context, ptr: sys::CUdeviceptr, len: usize) -> Result<Self> {
        let c = match &*ctx.inner {
            Inner::Cuda(c) => c,
            Inner::Emulator => {
                return Err(Error::BadArgument { arg: "ctx", detail: "the emulator has no CUDA memory: a device pointer needs a CUDA context".into() });
            }
        };
        if !ptr.is_multiple_of(DEVICE_ALIGN) {
            return Err(Error::BadArgument {
                arg: "ptr",
                detail: format!("{ptr:#x} is not {DEVICE_ALIGN}-byte aligned (ferrotile's kernels read and write 16 bytes at a time)"),
            });
        }
        let bytes = len.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| Error::BadArgument { arg: "len", detail: format!("{len} elements overflow the address space") })?;
        c.ctx.bind_to_thread().map_err(driver("binding the context"))?;
        let (ordinal, start, size) = pointer_range(ptr).map_err(|e| Error::BadArgument { arg: "ptr", detail: format!("{ptr:#x} is not device memory the driver knows ({e:?})") })?;
        if ordinal != c.ctx.ordinal() {
            return Err(Error::BadArgument { arg: "ptr", detail: format!("{ptr:#x} is memory of device {ordinal}, not of this context's device {}", c.ctx.ordinal()) });
        }
        let available = (start + size).saturating_sub(ptr) as usize;
        if bytes > available {
            return Err(Error::LengthMismatch { arg: "len", expected: available / std::mem::size_of::<T>().max(1), actual: len });
        }
        // SAFETY: the range is inside one allocation of this device (checked
        // above); the caller keeps it alive and its bits valid (this
        // function's contract); the slice is leaked, never freed.
        let slice = unsafe { c.stream.upgrade_device_ptr::<T>(ptr, len) };
        let track = crate::stream::Tracker::born(c, ctx.stream_of(c))?;
        Ok(Buffer::cuda_with(slice, len, &c.stream, track, &ctx.inner, Ownership::Borrowed))
    }

    /// The device address of a CUDA buffer (`None` on the emulator), for
    /// passing it to other CUDA code. It is valid while the buffer lives;
    /// order that code after the streams that used the buffer
    /// ([`Context::cudarc_stream`] of their handles).
    pub fn raw_device_ptr(&self) -> Option<sys::CUdeviceptr> {
        match &self.storage {
            Storage::Cuda { ptr, .. } => Some(*ptr),
            Storage::Host { .. } => None,
        }
    }
}

/// The device ordinal, start and size of the allocation holding `ptr`
/// (`cuPointerGetAttribute`).
fn pointer_range(ptr: sys::CUdeviceptr) -> std::result::Result<(usize, u64, u64), sys::CUresult> {
    use sys::CUpointer_attribute as A;
    let mut ordinal: i32 = -1;
    let mut start: sys::CUdeviceptr = 0;
    let mut size: usize = 0;
    for (attr, out) in [
        (A::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, &mut ordinal as *mut i32 as *mut std::ffi::c_void),
        (A::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, &mut start as *mut sys::CUdeviceptr as *mut std::ffi::c_void),
        (A::CU_POINTER_ATTRIBUTE_RANGE_SIZE, &mut size as *mut usize as *mut std::ffi::c_void),
    ] {
        // SAFETY: each attribute writes one value of the type `out` points
        // to (int, CUdeviceptr, size_t), per the driver API.
        let r = unsafe { sys::cuPointerGetAttribute(out, attr, ptr) };
        if r != sys::CUresult::CUDA_SUCCESS {
            return Err(r);
        }
    }
    Ok((ordinal.max(0) as usize, start, size as u64))
}
