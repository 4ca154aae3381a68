//! Interop with the `cust` crate (feature `cust`): a `cust` device slice
//! viewed as a ferrotile [`Buffer`] without a copy
//! ([`Buffer::from_cust`]), a buffer's address as a `cust`
//! [`DevicePointer`] ([`Buffer::cust_device_pointer`]), and ordering between
//! a `cust` [`CustStream`] and a ferrotile context handle's stream through
//! an event, with no host synchronisation ([`Context::wait_for_cust`],
//! [`Context::make_cust_wait`]).
//!
//! `cust` and ferrotile (through cudarc) both work in the device's
//! primary context (`cust::quick_init` / `cust::context::Context::new`
//! retain it, as ferrotile's [`Context::cuda`] does), so device pointers
//! and streams of one are valid in the other; a pointer of another device
//! is refused.
//!
//! **The `cust` crate links `libcuda` when the program is built** (its
//! build script needs a CUDA installation, `CUDA_LIBRARY_PATH` or
//! `/usr/local/cuda`): a program built with this feature does not start
//! where the driver is missing, unlike ferrotile without it (cudarc loads
//! the driver at run time). `cargo xtask cuda-stub` writes a link-only
//! stand-in for machines without CUDA (CI builds the feature with it).
//!
//! The `cust` crate is re-exported as [`crate::cust`].

use cudarc::driver::sys;
use cust::memory::{DeviceCopy, DevicePointer, DeviceSlice};
use cust::stream::Stream as CustStream;

use crate::backend::{driver, Inner};
use crate::{Buffer, Context, Element, Error, Result};

impl<T: Element + DeviceCopy> Buffer<T> {
    /// Views the `cust` device slice `slice` as a buffer of `ctx`, without
    /// copying; dropping the buffer does not free the memory (the slice's
    /// owner does). The checks of [`Buffer::from_raw_device_ptr`] apply:
    /// `ctx` is a CUDA context of the device that holds the memory.
    ///
    /// # Safety
    /// The contract of [`Buffer::from_raw_device_ptr`]: the `cust` buffer
    /// outlives this view and every use ferrotile enqueued on it, and work
    /// of `cust` streams that writes it is ordered before ferrotile uses it
    /// ([`Context::wait_for_cust`]), nothing writing it meanwhile.
    pub unsafe fn from_cust(ctx: &Context, slice: &DeviceSlice<T>) -> Result<Self> {
        let ptr = slice.as_device_ptr().as_raw();
        // SAFETY: forwarded: this function's contract is that one.
        unsafe { Buffer::from_raw_device_ptr(ctx, ptr, slice.len()) }
    }

    /// The buffer's device address as a `cust` pointer (`None` on the
    /// emulator), for `cust` launches and copies. Valid while the buffer
    /// lives; order the `cust` work after ferrotile's
    /// ([`Context::make_cust_wait`]).
    pub fn cust_device_pointer(&self) -> Option<DevicePointer<T>> {
        self.raw_device_ptr().map(DevicePointer::from_raw)
    }
}

impl Context {
    /// This handle's stream waits (on the device) for the work enqueued on
    /// the `cust` stream `stream` so far: what `cust` wrote is then safe
    /// for ferrotile to read. No host synchronisation.
    pub fn wait_for_cust(&self, stream: &CustStream) -> Result<()> {
        let ours = self.cuda_handle("wait_for_cust")?;
        // SAFETY: both streams are live streams of the device's primary
        // context (`cust` keeps `stream` alive for the borrow, the handle
        // keeps its own); CUstream is the same driver handle in both crates.
        unsafe { order(stream.as_inner() as sys::CUstream, ours) }
    }

    /// The `cust` stream `stream` waits (on the device) for the work
    /// enqueued on this handle's stream so far: what ferrotile wrote is
    /// then safe for `cust` to read. No host synchronisation.
    pub fn make_cust_wait(&self, stream: &CustStream) -> Result<()> {
        let ours = self.cuda_handle("make_cust_wait")?;
        // SAFETY: as in `wait_for_cust`.
        unsafe { order(ours, stream.as_inner() as sys::CUstream) }
    }

    /// This handle's CUDA stream, with the context bound to the thread.
    fn cuda_handle(&self, op: &'static str) -> Result<sys::CUstream> {
        match &*self.inner {
            Inner::Cuda(c) => {
                c.ctx.bind_to_thread().map_err(driver("binding the context"))?;
                Ok(self.stream_of(c).cu_stream())
            }
            Inner::Emulator => {
                Err(Error::BadArgument { arg: "self", detail: format!("{op}: the emulator has no CUDA stream") })
            }
        }
    }
}

/// `later` waits for the work enqueued on `first` so far: an event recorded
/// on `first` (timing off), waited for by `later`, then released (the
/// driver keeps it until the wait is done).
///
/// # Safety
/// Both are live streams of the context bound to the thread.
unsafe fn order(first: sys::CUstream, later: sys::CUstream) -> Result<()> {
    let mut event: sys::CUevent = std::ptr::null_mut();
    let flags = sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32;
    // SAFETY: `event` is written by the driver; the streams are live
    // (this function's contract); the event is destroyed once, last.
    unsafe {
        check(sys::cuEventCreate(&mut event, flags), "creating an event")?;
        let recorded = check(sys::cuEventRecord(event, first), "recording an event on the first stream");
        let waited = recorded.and_then(|()| check(sys::cuStreamWaitEvent(later, event, 0), "making the stream wait"));
        let destroyed = check(sys::cuEventDestroy_v2(event), "releasing the event");
        waited.and(destroyed)
    }
}

fn check(r: sys::CUresult, op: &'static str) -> Result<()> {
    match r {
        sys::CUresult::CUDA_SUCCESS => Ok(()),
        e => Err(driver(op)(cudarc::driver::DriverError(e))),
    }
}
