//! Backends (CUDA through the driver API, or the CPU emulator), contexts
//! and device buffers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DeviceRepr, DriverError};
use ferrotile_kernels::launch::LaunchConfig;

use crate::error::{Error, Result};

/// The PTX built by `cargo xtask build-ptx` for the `sm_80` baseline (runs
/// on Ampere and later, Hopper included), deflated by `build.rs`: the fully
/// unrolled kernels make the text several MB, and every binary embeds it.
const PTX_SM80_DEFLATED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/sm_80.ptx.deflate"));

/// The embedded PTX as text.
pub(crate) fn ptx_sm80() -> Result<String> {
    let bytes = miniz_oxide::inflate::decompress_to_vec(PTX_SM80_DEFLATED)
        .map_err(|e| Error::Driver { op: "unpacking the embedded PTX", detail: format!("{e:?}") })?;
    String::from_utf8(bytes).map_err(|e| Error::Driver { op: "unpacking the embedded PTX", detail: e.to_string() })
}

/// Element types a [`Buffer`] can hold.
pub trait Element: Copy + Send + Sync + Default + DeviceRepr + std::fmt::Debug + 'static + sealed::Sealed {}
macro_rules! element {
    ($($t:ty),*) => {$( impl sealed::Sealed for $t {} impl Element for $t {} )*};
}
element!(f32, f64, u8, u16, u32, i32, u64);
mod sealed {
    pub trait Sealed {}
}

/// Which backend a [`Context`] runs kernels on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// A CUDA device through the driver API.
    Cuda,
    /// The CPU emulator (same kernel bodies, checked).
    Emulator,
}

/// What the CUDA device is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The device's name.
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
    /// Multiprocessors.
    pub sm_count: i32,
    /// Largest dynamic shared memory a block may opt into, in bytes.
    pub max_shared_per_block: i32,
}

pub(crate) struct Cuda {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) stream: Arc<CudaStream>,
    module: Arc<CudaModule>,
    functions: Mutex<HashMap<&'static str, Arc<CudaFunction>>>,
    pub(crate) info: DeviceInfo,
}

pub(crate) enum Inner {
    Cuda(Box<Cuda>),
    Emulator,
}

/// A device to run kernels on: a CUDA device with the PTX module loaded
/// once, or the CPU emulator. Cheap to share by reference; no global state.
pub struct Context {
    pub(crate) inner: Inner,
}

fn driver(op: &'static str) -> impl FnOnce(DriverError) -> Error {
    move |e| Error::Driver { op, detail: e.to_string() }
}

impl Context {
    /// Opens CUDA device `ordinal` and loads ferrotile's PTX.
    ///
    /// Errors: [`Error::NoDriver`] when `libcuda.so.1` cannot be loaded,
    /// [`Error::NoDevice`] when the driver sees no device.
    pub fn cuda(ordinal: usize) -> Result<Context> {
        // SAFETY: only probes whether the library can be opened.
        if !unsafe { sys::is_culib_present() } {
            return Err(Error::NoDriver);
        }
        let count = CudaContext::device_count().map_err(|e| match e.0 {
            sys::CUresult::CUDA_ERROR_NO_DEVICE => Error::NoDevice,
            _ => Error::Driver { op: "counting devices", detail: e.to_string() },
        })?;
        if count <= 0 {
            return Err(Error::NoDevice);
        }
        if ordinal >= count as usize {
            return Err(Error::BadArgument { arg: "ordinal", detail: format!("device {ordinal} of {count}") });
        }
        let ctx = CudaContext::new(ordinal).map_err(driver("creating a context"))?;
        // One stream, used in order: no per-buffer event tracking needed.
        // SAFETY: every buffer of this context is used on its one stream.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.default_stream();
        let module = ctx
            .load_module(cudarc::nvrtc::Ptx::from_src(ptx_sm80()?))
            .map_err(driver("loading the PTX module"))?;
        use sys::CUdevice_attribute as A;
        let info = DeviceInfo {
            name: ctx.name().map_err(driver("reading the device name"))?,
            compute_capability: ctx.compute_capability().map_err(driver("reading the compute capability"))?,
            sm_count: ctx.attribute(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).map_err(driver("reading attributes"))?,
            max_shared_per_block: ctx
                .attribute(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
                .map_err(driver("reading attributes"))?,
        };
        Ok(Context {
            inner: Inner::Cuda(Box::new(Cuda { ctx, stream, module, functions: Mutex::new(HashMap::new()), info })),
        })
    }

    /// The CPU emulator backend: always available.
    pub fn emulator() -> Context {
        Context { inner: Inner::Emulator }
    }

    /// CUDA device 0 when there is one, else the emulator.
    pub fn auto() -> Context {
        Context::cuda(0).unwrap_or_else(|_| Context::emulator())
    }

    /// The backend this context runs on.
    pub fn backend(&self) -> Backend {
        match self.inner {
            Inner::Cuda(_) => Backend::Cuda,
            Inner::Emulator => Backend::Emulator,
        }
    }

    /// The CUDA device, if this is a CUDA context.
    pub fn device_info(&self) -> Option<&DeviceInfo> {
        match &self.inner {
            Inner::Cuda(c) => Some(&c.info),
            Inner::Emulator => None,
        }
    }

    /// A buffer holding a copy of `data`.
    pub fn upload<T: Element>(&self, data: &[T]) -> Result<Buffer<T>> {
        match &self.inner {
            Inner::Cuda(c) => {
                let bytes = std::mem::size_of_val(data);
                let s = c.stream.clone_htod(data).map_err(|e| oom_or(e, bytes, "copying to the device"))?;
                Ok(Buffer::cuda(s, data.len(), &c.stream))
            }
            Inner::Emulator => Ok(Buffer::host(data.to_vec())),
        }
    }

    /// A buffer of `len` elements, zero-filled.
    pub fn alloc<T: Element>(&self, len: usize) -> Result<Buffer<T>> {
        match &self.inner {
            Inner::Cuda(c) => {
                let bytes = len.saturating_mul(std::mem::size_of::<T>());
                // SAFETY: the memory is zeroed right after.
                let mut s = unsafe { c.stream.alloc::<T>(len) }.map_err(|e| oom_or(e, bytes, "allocating"))?;
                // SAFETY: all-zero bytes are a valid value of every Element.
                let r = unsafe { cudarc::driver::result::memset_d8_async(raw_ptr(&s, &c.stream), 0, bytes, c.stream.cu_stream()) };
                r.map_err(driver("clearing a buffer"))?;
                let _ = &mut s;
                Ok(Buffer::cuda(s, len, &c.stream))
            }
            Inner::Emulator => Ok(Buffer::host(vec![T::default(); len])),
        }
    }

    /// Waits until every launched kernel has finished; reports a kernel
    /// fault that happened since the last check.
    pub fn synchronize(&self) -> Result<()> {
        match &self.inner {
            Inner::Cuda(c) => c.stream.synchronize().map_err(driver("synchronizing")),
            Inner::Emulator => Ok(()),
        }
    }

    /// Runs `f` `warmup` times, then `iters` times, and returns the median
    /// time of one call: CUDA events around each call on a CUDA context,
    /// the host clock on the emulator.
    pub fn time<F: FnMut() -> Result<()>>(&self, warmup: usize, iters: usize, mut f: F) -> Result<Duration> {
        for _ in 0..warmup {
            f()?;
        }
        self.synchronize()?;
        let iters = iters.max(1);
        let mut times = Vec::with_capacity(iters);
        match &self.inner {
            Inner::Cuda(c) => {
                let flags = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
                let start = c.ctx.new_event(flags).map_err(driver("creating an event"))?;
                let end = c.ctx.new_event(flags).map_err(driver("creating an event"))?;
                for _ in 0..iters {
                    start.record(&c.stream).map_err(driver("recording an event"))?;
                    f()?;
                    end.record(&c.stream).map_err(driver("recording an event"))?;
                    end.synchronize().map_err(driver("waiting for an event"))?;
                    let ms = start.elapsed_ms(&end).map_err(driver("reading an event"))?;
                    times.push(Duration::from_secs_f64(ms as f64 / 1e3));
                }
            }
            Inner::Emulator => {
                for _ in 0..iters {
                    let t = Instant::now();
                    f()?;
                    times.push(t.elapsed());
                }
            }
        }
        times.sort();
        Ok(times[times.len() / 2])
    }

    /// The loaded function `name`; raises its dynamic shared-memory limit
    /// when a launch asks for more than the default 48 KiB.
    pub(crate) fn cuda_function(&self, name: &'static str, shared_bytes: u32) -> Result<(Arc<CudaFunction>, &Cuda)> {
        let Inner::Cuda(c) = &self.inner else { unreachable!("cuda_function on the emulator") };
        let mut fs = c.functions.lock().unwrap_or_else(|e| e.into_inner());
        let f = match fs.get(name) {
            Some(f) => f.clone(),
            None => {
                let f = Arc::new(c.module.load_function(name).map_err(|e| Error::Launch {
                    kernel: name,
                    detail: format!("not in the PTX module ({e}); rebuild with `cargo xtask build-ptx`"),
                })?);
                fs.insert(name, f.clone());
                f
            }
        };
        if shared_bytes > 48 * 1024 {
            if shared_bytes as i64 > c.info.max_shared_per_block as i64 {
                return Err(Error::BadArgument {
                    arg: "shared memory",
                    detail: format!(
                        "`{name}` needs {shared_bytes} bytes per block, the device allows {}",
                        c.info.max_shared_per_block
                    ),
                });
            }
            f.set_attribute(
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                shared_bytes as i32,
            )
            .map_err(driver("raising the shared-memory limit"))?;
        }
        Ok((f, c))
    }

    /// Launches a kernel on the CUDA backend with raw parameter pointers.
    pub(crate) fn launch_cuda(&self, name: &'static str, cfg: LaunchConfig, params: &mut [*mut std::ffi::c_void]) -> Result<()> {
        let (f, c) = self.cuda_function(name, cfg.shared_bytes)?;
        // SAFETY: the caller passes one pointer per kernel parameter, each to
        // a value of the parameter's type, alive for the call.
        unsafe {
            cudarc::driver::result::launch_kernel(
                f.cu_function(),
                (cfg.grid[0], cfg.grid[1], cfg.grid[2]),
                (cfg.block[0], cfg.block[1], cfg.block[2]),
                cfg.shared_bytes,
                c.stream.cu_stream(),
                params,
            )
        }
        .map_err(|e| Error::Launch { kernel: name, detail: e.to_string() })
    }
}

fn oom_or(e: DriverError, bytes: usize, op: &'static str) -> Error {
    if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
        Error::OutOfMemory { bytes }
    } else {
        Error::Driver { op, detail: e.to_string() }
    }
}

fn raw_ptr<T>(s: &CudaSlice<T>, stream: &CudaStream) -> sys::CUdeviceptr {
    use cudarc::driver::DevicePtr;
    s.device_ptr(stream).0
}

pub(crate) enum Storage<T: Element> {
    Cuda { slice: CudaSlice<T>, ptr: sys::CUdeviceptr, stream: Arc<CudaStream> },
    Host { ptr: *mut T, cap: usize },
}

/// A typed buffer in device memory (or host memory for the emulator).
pub struct Buffer<T: Element> {
    pub(crate) storage: Storage<T>,
    len: usize,
}

// SAFETY: the host storage is an owned allocation, accessed through `&`/`&mut`.
unsafe impl<T: Element> Send for Buffer<T> {}
unsafe impl<T: Element> Sync for Buffer<T> {}

impl<T: Element> Buffer<T> {
    fn cuda(slice: CudaSlice<T>, len: usize, stream: &Arc<CudaStream>) -> Self {
        let ptr = raw_ptr(&slice, stream);
        Buffer { storage: Storage::Cuda { slice, ptr, stream: stream.clone() }, len }
    }

    fn host(v: Vec<T>) -> Self {
        let mut v = std::mem::ManuallyDrop::new(v);
        let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
        Buffer { storage: Storage::Host { ptr, cap }, len }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Copies the buffer back to the host (waits for pending kernels).
    pub fn download(&self) -> Result<Vec<T>> {
        match &self.storage {
            Storage::Cuda { slice, stream, .. } => stream.clone_dtoh(slice).map_err(driver("copying to the host")),
            // SAFETY: ptr/len describe the owned allocation.
            Storage::Host { ptr, .. } => Ok(unsafe { std::slice::from_raw_parts(*ptr, self.len) }.to_vec()),
        }
    }

    /// Overwrites the buffer with `data` (same length).
    pub fn copy_from(&mut self, data: &[T]) -> Result<()> {
        if data.len() != self.len {
            return Err(Error::LengthMismatch { arg: "data", expected: self.len, actual: data.len() });
        }
        match &mut self.storage {
            Storage::Cuda { slice, stream, .. } => stream.memcpy_htod(data, slice).map_err(driver("copying to the device")),
            Storage::Host { ptr, .. } => {
                // SAFETY: same length, owned allocation, exclusive borrow.
                unsafe { std::slice::from_raw_parts_mut(*ptr, self.len) }.copy_from_slice(data);
                Ok(())
            }
        }
    }

    /// Device-to-device copy of `src` (same length) into this buffer: the
    /// copy-bandwidth ceiling the memory-bound benchmarks compare against.
    pub fn copy_from_buffer(&mut self, src: &Buffer<T>) -> Result<()> {
        if src.len != self.len {
            return Err(Error::LengthMismatch { arg: "src", expected: self.len, actual: src.len });
        }
        match (&mut self.storage, &src.storage) {
            (Storage::Cuda { ptr: dst, stream, .. }, Storage::Cuda { ptr: s, .. }) => {
                let bytes = self.len * std::mem::size_of::<T>();
                // SAFETY: both allocations hold `bytes` bytes.
                unsafe { cudarc::driver::result::memcpy_dtod_async(*dst, *s, bytes, stream.cu_stream()) }
                    .map_err(driver("copying device to device"))
            }
            (Storage::Host { ptr: d, .. }, Storage::Host { ptr: s, .. }) => {
                // SAFETY: distinct owned allocations of `len` elements.
                unsafe { std::ptr::copy_nonoverlapping(*s, *d, self.len) };
                Ok(())
            }
            _ => Err(Error::BadArgument { arg: "src", detail: "buffer belongs to another backend".into() }),
        }
    }

    /// Fills every element with `v` (e.g. a NaN poison before a test run).
    pub fn fill(&mut self, v: T) -> Result<()> {
        let data = vec![v; self.len];
        self.copy_from(&data)
    }

    /// The device address (CUDA) or host address (emulator), for launches.
    pub(crate) fn device_ptr(&self) -> u64 {
        match &self.storage {
            Storage::Cuda { ptr, .. } => *ptr,
            Storage::Host { ptr, .. } => *ptr as u64,
        }
    }

    /// The emulator's view of the buffer.
    pub(crate) fn global(&self, name: &'static str) -> ferrotile_kernels::arch::Global<T> {
        match &self.storage {
            // SAFETY: the allocation holds `len` elements and outlives the
            // launch (the launch borrows the buffer).
            Storage::Host { ptr, .. } => unsafe { ferrotile_kernels::arch::Global::from_raw_parts(*ptr, self.len, name) },
            Storage::Cuda { .. } => unreachable!("emulator launch with a CUDA buffer"),
        }
    }

    /// Whether the buffer lives on `ctx`'s backend.
    pub(crate) fn is_on(&self, ctx: &Context) -> bool {
        matches!(
            (&self.storage, &ctx.inner),
            (Storage::Cuda { .. }, Inner::Cuda(_)) | (Storage::Host { .. }, Inner::Emulator)
        )
    }
}

impl<T: Element> Drop for Buffer<T> {
    fn drop(&mut self) {
        if let Storage::Host { ptr, cap } = self.storage {
            // SAFETY: rebuilt from the Vec's own parts.
            drop(unsafe { Vec::from_raw_parts(ptr, self.len, cap) });
        }
    }
}

impl<T: Element> std::fmt::Debug for Buffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let where_ = match self.storage {
            Storage::Cuda { .. } => "cuda",
            Storage::Host { .. } => "emulator",
        };
        write!(f, "Buffer<{}>({} elements, {where_})", std::any::type_name::<T>(), self.len)
    }
}
