//! Backends (CUDA through the driver API, or the CPU emulator), contexts
//! and device buffers.
//!
//! # Threads: what is `Send` and `Sync`, and why
//!
//! * [`Context`] is `Send + Sync`: share one by reference (or in an `Arc`)
//!   across threads. After creation it changes only through a `Mutex`
//!   (the cache of looked-up kernels) and atomics (the launch counter,
//!   whether it has streams). A CUDA context enqueues on its **default
//!   stream** (a non-blocking stream of its own, not the legacy null
//!   stream) unless the handle is bound to another of its streams
//!   ([`Context::on`], [`crate::Stream`]): launches and copies from any
//!   number of threads through one handle are submitted to one stream (the
//!   driver's launch and copy calls are thread-safe, and every call makes
//!   the context current on the calling thread), so they run in submission
//!   order; work on different streams may overlap on the GPU. The emulator
//!   context holds no state: each launch runs to completion on the calling
//!   thread (its blocks on rayon's pool), whatever its stream.
//! * [`Buffer`] is `Send + Sync`. Every function reads its inputs through
//!   `&Buffer` and writes its output through `&mut Buffer`, so two threads
//!   can never launch a write to one buffer at the same time, nor read one
//!   while another writes it: the borrow checker forbids it, as for any
//!   Rust value. On CUDA a launch returns before the kernel finishes; what
//!   keeps a later use of the buffer (from any thread, on any stream)
//!   after the kernel is stream order on one stream and, across streams,
//!   the buffer's events (`stream.rs`: a reader waits for the last write,
//!   a writer for the last write and the reads since, the free on drop for
//!   every use), all on the device, without a host wait.
//! * The kernels' parameters and the emulator's views of buffers live only
//!   for the launch.
//!
//! `tests/cases/stress.rs` runs GEMM, transpose and blur from 8 threads
//! (one shared context, and one context per thread) with every result
//! checked.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DeviceRepr, DriverError};
use ferrotile_kernels::launch::LaunchConfig;

use crate::error::{Error, Result};

/// One PTX module built by `cargo xtask build-ptx`, deflated by
/// `build.rs` (the fully unrolled kernels make the text several MB, and
/// every binary embeds it), with the cubins ptxas compiled from it.
pub(crate) struct PtxModule {
    /// The module's file, `host/ptx/<name>.ptx`.
    pub(crate) name: &'static str,
    pub(crate) deflated: &'static [u8],
    /// Compute capabilities (major, minor) the module is loaded on.
    pub(crate) loads_on: fn((i32, i32)) -> bool,
    /// Compiled machine code of the module (`host/ptx/<name>.<arch>.cubin`),
    /// each with the compute capabilities it runs on. On those the cubin
    /// is loaded as it is; on any other GPU (or if the driver refuses it)
    /// the driver compiles the PTX, which takes tens of seconds the first
    /// time on a machine (it caches the result).
    pub(crate) cubins: &'static [Cubin],
}

/// A cubin of a [`PtxModule`].
pub(crate) struct Cubin {
    /// The GPU it was compiled for (`sm_90`).
    pub(crate) arch: &'static str,
    pub(crate) deflated: &'static [u8],
    /// Compute capabilities it runs on (a cubin runs on its own major
    /// version from its minor version up; an `a` target on its own only).
    pub(crate) runs_on: fn((i32, i32)) -> bool,
}

macro_rules! embedded {
    ($file:literal) => {
        include_bytes!(concat!(env!("OUT_DIR"), "/", $file, ".deflate"))
    };
}

/// The modules: the `sm_80` baseline (Ampere and later, Hopper included),
/// the Hopper kernels (`sm_90a` PTX runs on compute capability 9.0 only)
/// and, with the `experiments` feature, the experiment kernels.
pub(crate) const PTX_MODULES: &[PtxModule] = &[
    PtxModule {
        name: "sm_80",
        deflated: embedded!("sm_80.ptx"),
        loads_on: |cc| cc >= (8, 0),
        cubins: &[
            Cubin { arch: "sm_80", deflated: embedded!("sm_80.sm_80.cubin"), runs_on: |cc| cc.0 == 8 },
            Cubin { arch: "sm_90", deflated: embedded!("sm_80.sm_90.cubin"), runs_on: |cc| cc == (9, 0) },
        ],
    },
    PtxModule {
        name: "sm_90a",
        deflated: embedded!("sm_90a.ptx"),
        loads_on: |cc| cc == (9, 0),
        cubins: &[Cubin { arch: "sm_90a", deflated: embedded!("sm_90a.sm_90a.cubin"), runs_on: |cc| cc == (9, 0) }],
    },
    #[cfg(ferrotile_experiments)]
    PtxModule {
        name: "experiments/sm_80",
        deflated: embedded!("experiments-sm_80.ptx"),
        loads_on: |cc| cc >= (8, 0),
        cubins: &[
            Cubin { arch: "sm_80", deflated: embedded!("experiments-sm_80.sm_80.cubin"), runs_on: |cc| cc.0 == 8 },
            Cubin { arch: "sm_90", deflated: embedded!("experiments-sm_80.sm_90.cubin"), runs_on: |cc| cc == (9, 0) },
        ],
    },
];

/// The kernel (`.entry`) names of a PTX text.
fn ptx_entries(ptx: &str) -> std::collections::HashSet<String> {
    ptx.lines()
        .filter_map(|l| l.trim_start().strip_prefix(".visible .entry ").or_else(|| l.trim_start().strip_prefix(".entry ")))
        .filter_map(|rest| rest.split('(').next())
        .map(|name| name.trim().to_string())
        .collect()
}

/// An embedded PTX module as text.
pub(crate) fn ptx_text(deflated: &[u8]) -> Result<String> {
    String::from_utf8(inflate(deflated)?).map_err(|e| Error::Driver { op: "unpacking the embedded PTX", detail: e.to_string() })
}

fn inflate(deflated: &[u8]) -> Result<Vec<u8>> {
    miniz_oxide::inflate::decompress_to_vec(deflated).map_err(|e| Error::Driver { op: "unpacking the embedded PTX", detail: format!("{e:?}") })
}

/// Loads module `m` on a device of compute capability `cc`: its cubin for
/// the device if it has one and the driver takes it, else its PTX.
fn load_module(ctx: &Arc<CudaContext>, m: &PtxModule, text: String, cc: (i32, i32)) -> Result<Arc<CudaModule>> {
    let mut refused = String::new();
    if let Some(cubin) = m.cubins.iter().find(|c| (c.runs_on)(cc)) {
        match ctx.load_module(cudarc::nvrtc::Ptx::from_binary(inflate(cubin.deflated)?)) {
            Ok(module) => return Ok(module),
            // A driver too old for this ptxas's cubins: its own compiler takes the PTX.
            Err(e) => refused = format!(" (its {} cubin was refused too: {e})", cubin.arch),
        }
    }
    ctx.load_module(cudarc::nvrtc::Ptx::from_src(text))
        .map_err(|e| Error::Driver { op: "loading a PTX module", detail: format!("{}: {e}{refused}", m.name) })
}

/// Element types a [`Buffer`] can hold.
pub trait Element: Copy + Send + Sync + Default + DeviceRepr + cudarc::driver::ValidAsZeroBits + std::fmt::Debug + 'static + sealed::Sealed {
    /// The type the kernels see for it (the same bits): itself, or for
    /// `half::bf16` / `half::f16` the kernels crate's own
    /// [`Bf16`](ferrotile_kernels::numeric::Bf16) / [`F16`](ferrotile_kernels::numeric::F16).
    type Device: Copy + Send + Sync;
}
macro_rules! element {
    ($($t:ty => $d:ty),*) => {$( impl sealed::Sealed for $t {} impl Element for $t { type Device = $d; } )*};
}
element!(f32 => f32, f64 => f64, u8 => u8, u16 => u16, u32 => u32, i32 => i32, u64 => u64);
element!(half::bf16 => ferrotile_kernels::numeric::Bf16, half::f16 => ferrotile_kernels::numeric::F16);
// The device views are the same bits: a buffer of `T` is read as `T::Device`.
const _: () = {
    use std::mem::{align_of, size_of};
    assert!(size_of::<half::bf16>() == size_of::<ferrotile_kernels::numeric::Bf16>());
    assert!(align_of::<half::bf16>() == align_of::<ferrotile_kernels::numeric::Bf16>());
    assert!(size_of::<half::f16>() == size_of::<ferrotile_kernels::numeric::F16>());
    assert!(align_of::<half::f16>() == align_of::<ferrotile_kernels::numeric::F16>());
};
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
    /// The default stream: a non-blocking stream of the context's own (not
    /// the legacy null stream).
    pub(crate) stream: Arc<CudaStream>,
    /// Whether a [`crate::Stream`] has been created: from then on every
    /// operation records its buffers' uses (`stream::Tracker`).
    pub(crate) multi: AtomicBool,
    /// The loaded modules, each with the names of its kernels.
    modules: Vec<(Arc<CudaModule>, std::collections::HashSet<String>)>,
    /// Loaded functions, each with the dynamic shared-memory limit it has
    /// been raised to (bytes; 0 while at the default 48 KiB).
    functions: Mutex<HashMap<&'static str, (Arc<CudaFunction>, u32)>>,
    pub(crate) info: DeviceInfo,
    /// The first device fault (a sticky error) seen on this context; once
    /// set, nothing more is launched on it.
    fault: std::sync::OnceLock<String>,
}

impl Cuda {
    /// Passes `r` through, remembering a device fault it carries.
    pub(crate) fn note<T>(&self, r: Result<T>) -> Result<T> {
        r.map_err(|e| self.noted(e))
    }

    /// Passes `e` through, remembering it if it is a device fault.
    pub(crate) fn noted(&self, e: Error) -> Error {
        if let Error::DeviceFault { detail, .. } = &e {
            let _ = self.fault.set(detail.clone());
        }
        e
    }
}

pub(crate) enum Inner {
    Cuda(Box<Cuda>),
    Emulator,
}

/// An argument block a handle uploaded, by its words ([`Context::upload_cached`]).
type UploadedBlock = (Vec<u64>, Arc<Buffer<u64>>);

/// A device to run kernels on: a CUDA device with the PTX module loaded
/// once, or the CPU emulator. Cheap to share by reference; no global state.
///
/// Every context has an identity: each [`Buffer`] remembers the context it
/// was allocated on, and every function that launches checks that its
/// buffers belong to the context it was given (two contexts on the same
/// device, or two emulator contexts, are different contexts).
///
/// Each handle (the context's own, and each of [`Context::on`]) keeps what
/// its calls would otherwise upload or allocate again: the argument blocks
/// of its last 8 tensor-core calls (their TMA tensor maps, a few hundred
/// bytes each), its largest split-K workspace up to 64 MiB, and the two
/// largest buffers (up to 64 MiB each) its last GEMM calls staged
/// operands into (copies with aligned rows, transposed or rounded to
/// tf32). They
/// go with the handle; [`Context::release_cached_memory`] drops the
/// workspace and the staging buffers at once.
pub struct Context {
    pub(crate) inner: Arc<Inner>,
    /// The stream this handle enqueues on ([`Context::on`]); `None`: the
    /// context's default stream.
    pub(crate) stream: Option<Arc<CudaStream>>,
    /// Work submitted to the device: kernel launches and cuBLAS calls
    /// (see [`Context::launch_count`]), shared by the handles of a context.
    launches: Arc<AtomicU64>,
    /// Small argument blocks this handle uploaded, by key
    /// ([`Context::upload_cached`]).
    uploads: Mutex<Vec<UploadedBlock>>,
    /// The f32 workspace this handle's last split-K launch used
    /// ([`Context::workspace`]).
    workspace: Mutex<Option<Buffer<f32>>>,
    /// Staging buffers (`Buffer<T>` of any element type) this handle's
    /// last calls used ([`Context::scratch`]).
    scratch: Mutex<Vec<Box<dyn std::any::Any + Send + Sync>>>,
}

/// Staging buffers a handle keeps between calls ([`Context::scratch`]):
/// a product stages at most two operands.
const SCRATCH_KEPT: usize = 2;

/// The largest staging buffer a handle keeps, in bytes (64 MiB).
const SCRATCH_KEPT_BYTES: usize = 64 << 20;

/// A handle's staging buffer while one operation uses it
/// ([`Context::scratch`]): back to the handle when dropped (kept if it is
/// at most [`SCRATCH_KEPT_BYTES`] and the handle holds fewer than
/// [`SCRATCH_KEPT`], or a smaller one it then lets go).
pub(crate) struct Scratch<'a, T: Element> {
    ctx: &'a Context,
    buf: Option<Buffer<T>>,
}

impl<T: Element> std::ops::Deref for Scratch<'_, T> {
    type Target = Buffer<T>;
    fn deref(&self) -> &Buffer<T> {
        self.buf.as_ref().expect("a staging buffer is held until dropped")
    }
}

impl<T: Element> std::ops::DerefMut for Scratch<'_, T> {
    fn deref_mut(&mut self) -> &mut Buffer<T> {
        self.buf.as_mut().expect("a staging buffer is held until dropped")
    }
}

impl<T: Element> Drop for Scratch<'_, T> {
    fn drop(&mut self) {
        let Some(buf) = self.buf.take() else { return };
        let bytes = |b: &Buffer<T>| b.len() * std::mem::size_of::<T>();
        if bytes(&buf) > SCRATCH_KEPT_BYTES {
            return;
        }
        let mut kept = self.ctx.scratch.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() >= SCRATCH_KEPT {
            // Let the smallest kept buffer of this type go for a larger one;
            // keep the others (another type's, or larger).
            let smallest = kept.iter().enumerate().filter_map(|(i, b)| b.downcast_ref::<Buffer<T>>().map(|b| (bytes(b), i))).min();
            match smallest {
                Some((size, i)) if size < bytes(&buf) => drop(kept.swap_remove(i)),
                _ => return,
            }
        }
        kept.push(Box::new(buf));
    }
}

/// Argument blocks a handle keeps uploaded ([`Context::upload_cached`]).
const UPLOAD_CACHE: usize = 8;

/// The largest workspace a handle keeps between calls
/// ([`Context::workspace`]), in f32 elements (64 MiB).
const WORKSPACE_KEPT: usize = 16 << 20;

/// A handle's workspace while one operation uses it
/// ([`Context::workspace`]): back to the handle when dropped (kept if it is
/// at most [`WORKSPACE_KEPT`] elements and larger than what the handle
/// holds then).
pub(crate) struct Workspace<'a> {
    ctx: &'a Context,
    buf: Option<Buffer<f32>>,
}

impl std::ops::Deref for Workspace<'_> {
    type Target = Buffer<f32>;
    fn deref(&self) -> &Buffer<f32> {
        self.buf.as_ref().expect("a workspace holds its buffer until dropped")
    }
}

impl Drop for Workspace<'_> {
    fn drop(&mut self) {
        let Some(buf) = self.buf.take() else { return };
        if buf.len() > WORKSPACE_KEPT {
            return;
        }
        let mut kept = self.ctx.workspace.lock().unwrap_or_else(|e| e.into_inner());
        if kept.as_ref().is_none_or(|k| k.len() < buf.len()) {
            *kept = Some(buf);
        }
    }
}

thread_local! {
    /// Submissions by this thread (see [`Context::thread_launch_count`]).
    static THREAD_LAUNCHES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

pub(crate) fn driver(op: &'static str) -> impl FnOnce(DriverError) -> Error {
    move |e| if is_sticky(&e) { Error::DeviceFault { op, detail: e.to_string() } } else { Error::Driver { op, detail: e.to_string() } }
}

/// Whether a driver error is one of CUDA's sticky errors: the device
/// faulted while running a kernel, and the context is unusable.
pub(crate) fn is_sticky(e: &DriverError) -> bool {
    use sys::CUresult as R;
    matches!(
        e.0,
        R::CUDA_ERROR_ILLEGAL_ADDRESS
            | R::CUDA_ERROR_LAUNCH_FAILED
            | R::CUDA_ERROR_HARDWARE_STACK_ERROR
            | R::CUDA_ERROR_ILLEGAL_INSTRUCTION
            | R::CUDA_ERROR_MISALIGNED_ADDRESS
            | R::CUDA_ERROR_INVALID_ADDRESS_SPACE
            | R::CUDA_ERROR_INVALID_PC
            | R::CUDA_ERROR_ASSERT
            | R::CUDA_ERROR_ECC_UNCORRECTABLE
    )
}

/// The memory pool `cuMemAllocAsync` serves `device` from.
pub(crate) fn device_pool(device: sys::CUdevice) -> Result<sys::CUmemoryPool> {
    let mut pool = std::mem::MaybeUninit::uninit();
    // SAFETY: an out pointer and a device handle.
    unsafe { sys::cuDeviceGetMemPool(pool.as_mut_ptr(), device) }.result().map_err(driver("reading a device's memory pool"))?;
    // SAFETY: written by the successful call.
    Ok(unsafe { pool.assume_init() })
}

/// Keeps freed memory in `device`'s memory pool instead of returning it to
/// the driver at every synchronisation (the pool's release threshold,
/// which is 0 by default): a call that allocates scratch (staged
/// operands, split-K partial products, a sharded product's panels) on
/// each run would otherwise map that memory again after every
/// synchronisation, which costs more than the kernels it serves at
/// common sizes. Devices without memory pools (allocations not
/// stream-ordered) are left alone.
fn keep_freed_memory(device: sys::CUdevice) -> Result<()> {
    let mut pools = 0i32;
    // SAFETY: an out pointer, an attribute and a device handle.
    unsafe { sys::cuDeviceGetAttribute(&mut pools, sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, device) }
        .result()
        .map_err(driver("reading attributes"))?;
    if pools == 0 {
        return Ok(());
    }
    let mut keep = u64::MAX;
    // SAFETY: the attribute takes a u64 (cuuint64_t) by pointer.
    unsafe {
        sys::cuMemPoolSetAttribute(device_pool(device)?, sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, (&mut keep as *mut u64).cast())
    }
    .result()
    .map_err(driver("keeping freed memory in the device's pool"))
}

impl Context {
    /// Opens CUDA device `ordinal` and loads ferrotile's PTX.
    ///
    /// The device's memory pool then keeps freed memory for later
    /// allocations rather than returning it to the driver at each
    /// synchronisation (as PyTorch's caching allocator does): calls that
    /// allocate scratch each time stay fast. The memory stays with the
    /// process until [`Context::release_cached_memory`] (or the process
    /// ends); other contexts and libraries allocating from the same pool
    /// in this process share that behaviour.
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
        // ferrotile orders each buffer's uses across streams itself
        // (`stream::Tracker`): cudarc's per-slice events stay off.
        // SAFETY: every use of this context's slices goes through an
        // ordered operation (`stream::Op`), and drops settle first.
        unsafe { ctx.disable_event_tracking() };
        // The default stream: non-blocking, not the legacy null stream.
        let stream = ctx.new_stream().map_err(driver("creating the default stream"))?;
        keep_freed_memory(ctx.cu_device())?;
        let cc = ctx.compute_capability().map_err(driver("reading the compute capability"))?;
        let modules = PTX_MODULES
            .iter()
            .filter(|m| (m.loads_on)(cc))
            .map(|m| {
                let text = ptx_text(m.deflated)?;
                let names = ptx_entries(&text);
                Ok((load_module(&ctx, m, text, cc)?, names))
            })
            .collect::<Result<Vec<_>>>()?;
        use sys::CUdevice_attribute as A;
        let info = DeviceInfo {
            name: ctx.name().map_err(driver("reading the device name"))?,
            compute_capability: cc,
            sm_count: ctx.attribute(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).map_err(driver("reading attributes"))?,
            max_shared_per_block: ctx
                .attribute(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
                .map_err(driver("reading attributes"))?,
        };
        Ok(Context {
            inner: Arc::new(Inner::Cuda(Box::new(Cuda {
                ctx,
                stream,
                multi: AtomicBool::new(false),
                modules,
                functions: Mutex::new(HashMap::new()),
                info,
                fault: std::sync::OnceLock::new(),
            }))),
            stream: None,
            launches: Arc::new(AtomicU64::new(0)),
            uploads: Mutex::new(Vec::new()),
            workspace: Mutex::new(None),
            scratch: Mutex::new(Vec::new()),
        })
    }

    /// Returns the device memory that freed buffers left in the device's
    /// memory pool to the driver (see [`Context::cuda`]: the pool keeps it
    /// for later allocations), after dropping the split-K workspace and the
    /// staging buffers this handle keeps between calls. Waits for this
    /// handle's stream first. A no-op on the emulator but for the kept
    /// buffers.
    pub fn release_cached_memory(&self) -> Result<()> {
        // This handle's kept workspace goes back to the pool first (freed on
        // its stream, after the launches that used it).
        self.workspace.lock().unwrap_or_else(|e| e.into_inner()).take();
        self.scratch.lock().unwrap_or_else(|e| e.into_inner()).clear();
        match &*self.inner {
            Inner::Cuda(c) => {
                self.synchronize()?;
                c.ctx.bind_to_thread().map_err(driver("making the context current"))?;
                // SAFETY: the device's current pool; trimming only returns
                // memory no allocation holds.
                unsafe { sys::cuMemPoolTrimTo(device_pool(c.ctx.cu_device())?, 0) }.result().map_err(driver("trimming the memory pool"))
            }
            Inner::Emulator => Ok(()),
        }
    }

    /// The CPU emulator backend: always available.
    pub fn emulator() -> Context {
        Context { inner: Arc::new(Inner::Emulator), stream: None, launches: Arc::new(AtomicU64::new(0)), uploads: Mutex::new(Vec::new()), workspace: Mutex::new(None), scratch: Mutex::new(Vec::new()) }
    }

    /// A handle of this context on `stream` (`None`: the default stream).
    pub(crate) fn with_stream(&self, stream: Option<Arc<CudaStream>>) -> Context {
        Context { inner: self.inner.clone(), stream, launches: self.launches.clone(), uploads: Mutex::new(Vec::new()), workspace: Mutex::new(None), scratch: Mutex::new(Vec::new()) }
    }

    /// The stream this handle enqueues on.
    pub(crate) fn stream_of<'a>(&'a self, c: &'a Cuda) -> &'a Arc<CudaStream> {
        self.stream.as_ref().unwrap_or(&c.stream)
    }

    /// The stream this handle enqueues on (`None` on the emulator).
    pub(crate) fn cuda_stream(&self) -> Option<&Arc<CudaStream>> {
        match &*self.inner {
            Inner::Cuda(c) => Some(self.stream_of(c)),
            Inner::Emulator => None,
        }
    }

    /// Whether `self` and `other` are the same context (not merely the
    /// same device or backend).
    pub fn same_as(&self, other: &Context) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// CUDA device 0 when there is one, else the emulator.
    pub fn auto() -> Context {
        Context::cuda(0).unwrap_or_else(|_| Context::emulator())
    }

    /// The backend this context runs on.
    pub fn backend(&self) -> Backend {
        match *self.inner {
            Inner::Cuda(_) => Backend::Cuda,
            Inner::Emulator => Backend::Emulator,
        }
    }

    /// How many kernels (and cuBLAS calls) this context has submitted
    /// since it was created: every launch that passed the
    /// launch-configuration check counts, whether or not it then
    /// succeeded. Copies (uploads, downloads, `copy_from_buffer`) do not
    /// count. The reliability tests use it to assert that a refused
    /// call launched nothing.
    #[doc(hidden)]
    pub fn launch_count(&self) -> u64 {
        self.launches.load(Ordering::Relaxed)
    }

    /// How many kernels (and cuBLAS calls) the calling thread has submitted,
    /// on any context: [`Context::launch_count`] for one thread, exact even
    /// while other threads launch on the same contexts (the tests run in
    /// parallel on shared contexts).
    #[doc(hidden)]
    pub fn thread_launch_count() -> u64 {
        THREAD_LAUNCHES.with(|n| n.get())
    }

    /// Counts one submission (see [`Context::launch_count`]).
    pub(crate) fn count_launch(&self) {
        self.launches.fetch_add(1, Ordering::Relaxed);
        THREAD_LAUNCHES.with(|n| n.set(n.get() + 1));
    }

    /// Free and total device memory in bytes (`cuMemGetInfo`), or `None`
    /// on the emulator: for the soak test's before/after comparison.
    #[doc(hidden)]
    pub fn device_memory(&self) -> Option<Result<(usize, usize)>> {
        match &*self.inner {
            Inner::Cuda(c) => Some(c.ctx.mem_get_info().map_err(driver("reading the device memory"))),
            Inner::Emulator => None,
        }
    }

    /// The CUDA device, if this is a CUDA context.
    pub fn device_info(&self) -> Option<&DeviceInfo> {
        match &*self.inner {
            Inner::Cuda(c) => Some(&c.info),
            Inner::Emulator => None,
        }
    }

    /// A buffer holding a copy of `data`.
    ///
    /// Errors: [`Error::OutOfMemory`] when the device (or, on the emulator,
    /// the host) cannot hold it; the context stays usable.
    pub fn upload<T: Element>(&self, data: &[T]) -> Result<Buffer<T>> {
        match &*self.inner {
            // The driver refuses a zero-byte allocation: an empty buffer
            // holds one unused element (its length stays 0).
            Inner::Cuda(_) if data.is_empty() => self.alloc(0),
            Inner::Cuda(c) => {
                let bytes = std::mem::size_of_val(data);
                let stream = self.stream_of(c);
                let s = stream.clone_htod(data).map_err(|e| oom_or(e, bytes, "copying to the device"))?;
                let track = crate::stream::Tracker::born(c, stream)?;
                Ok(Buffer::cuda(s, data.len(), &c.stream, track, &self.inner))
            }
            Inner::Emulator => {
                let mut v = host_vec::<T>(data.len())?;
                v.extend_from_slice(data);
                Ok(Buffer::host(v, &self.inner))
            }
        }
    }

    /// A device copy of the words `make` builds, shared with the earlier
    /// calls on this handle that asked for the same `key`: the last
    /// [`UPLOAD_CACHE`] blocks stay uploaded, so a kernel launched again on
    /// the same arguments (the wgmma engine's tensor maps: a decode step on
    /// the same weights) launches without building its block or copying it
    /// to the device first. `key` must determine the words (`make` runs
    /// only when no block of that key is kept; its error is returned and
    /// nothing kept). Every use is on this handle's stream, so a launch that
    /// writes into the block must leave it as it found it (the split-K
    /// counters return to zero).
    pub(crate) fn upload_cached(&self, key: &[u64], make: impl FnOnce() -> Result<Vec<u64>>) -> Result<Arc<Buffer<u64>>> {
        // A poisoned lock only means a panic elsewhere while it was held:
        // the list is still a list of uploaded blocks.
        let mut cache = self.uploads.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = cache.iter().position(|(k, _)| k == key) {
            let hit = cache.remove(i);
            let buf = hit.1.clone();
            cache.insert(0, hit);
            return Ok(buf);
        }
        let buf = Arc::new(self.upload(&make()?)?);
        cache.truncate(UPLOAD_CACHE - 1);
        cache.insert(0, (key.to_vec(), buf.clone()));
        Ok(buf)
    }

    /// A scratch buffer of at least `len` f32 elements for the launches of
    /// one operation on this handle's stream that write every element they
    /// read (split-K partial sums): the handle keeps the last one up to
    /// [`WORKSPACE_KEPT`] elements, so that calls repeated on it (decode
    /// steps) launch without an allocation before them. The buffer is the
    /// caller's until the returned guard drops (a second thread on the same
    /// handle meanwhile gets a fresh one: the emulator runs its launches at
    /// once, and an operation's launches must not interleave with
    /// another's); it is dropped after the operation's launches are enqueued,
    /// so the next user's launches follow them on the stream. The kept
    /// buffer goes with the handle or [`Context::release_cached_memory`].
    pub(crate) fn workspace(&self, len: usize) -> Result<Workspace<'_>> {
        let kept = self.workspace.lock().unwrap_or_else(|e| e.into_inner()).take_if(|w| w.len() >= len);
        let buf = match kept {
            Some(w) => w,
            None => self.alloc_unzeroed(len)?,
        };
        Ok(Workspace { ctx: self, buf: Some(buf) })
    }

    /// A staging buffer of at least `len` elements for one operation: the
    /// smallest such buffer this handle kept from its earlier calls, or a
    /// new one ([`Context::alloc_unzeroed`]: the operation writes every
    /// element it reads, on this handle's stream, before reading it). It
    /// goes back to the handle when dropped ([`Scratch`]), after the
    /// operation's launches are enqueued: the next user's launches follow
    /// them on the stream. A call needs no allocation when its staged
    /// operands' shapes repeat, and its operands' tensor maps (cached by
    /// address) stay valid.
    pub(crate) fn scratch<T: Element>(&self, len: usize) -> Result<Scratch<'_, T>> {
        let kept = {
            let mut kept = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
            let best = kept.iter().enumerate().filter_map(|(i, b)| b.downcast_ref::<Buffer<T>>().filter(|b| b.len() >= len).map(|b| (b.len(), i))).min();
            best.map(|(_, i)| kept.swap_remove(i))
        };
        let buf = match kept.map(|b| b.downcast::<Buffer<T>>()) {
            Some(Ok(b)) => *b,
            _ => self.alloc_unzeroed(len)?,
        };
        Ok(Scratch { ctx: self, buf: Some(buf) })
    }

    /// A new zero-filled staging buffer of `len` elements ([`Context::alloc`]),
    /// for an operation that reads elements it does not write; kept on
    /// drop as [`Context::scratch`]'s are (for operations that write every
    /// element they read).
    pub(crate) fn scratch_zeroed<T: Element>(&self, len: usize) -> Result<Scratch<'_, T>> {
        Ok(Scratch { ctx: self, buf: Some(self.alloc(len)?) })
    }

    /// A buffer of `len` elements, zero-filled.
    ///
    /// Errors: [`Error::OutOfMemory`] when the device (or, on the emulator,
    /// the host) cannot hold it; the context stays usable.
    pub fn alloc<T: Element>(&self, len: usize) -> Result<Buffer<T>> {
        self.alloc_with(len, true)
    }

    /// [`Context::alloc`] without the clearing, for scratch buffers whose
    /// every element the next operation on this stream writes before
    /// anything reads it (on CUDA the contents are whatever the memory
    /// held: any bytes are a value of every [`Element`]; the emulator
    /// still zero-fills).
    pub(crate) fn alloc_unzeroed<T: Element>(&self, len: usize) -> Result<Buffer<T>> {
        self.alloc_with(len, false)
    }

    /// A buffer of `len` elements on this handle's stream, cleared to zero
    /// with `clear` (the emulator always zero-fills).
    fn alloc_with<T: Element>(&self, len: usize, clear: bool) -> Result<Buffer<T>> {
        match &*self.inner {
            Inner::Cuda(c) => {
                // The driver refuses a zero-byte allocation: an empty
                // buffer holds one unused element (its length stays 0).
                let bytes = len.max(1).checked_mul(std::mem::size_of::<T>()).ok_or(Error::OutOfMemory { bytes: usize::MAX })?;
                let stream = self.stream_of(c);
                // SAFETY: device memory; every bit pattern is a valid
                // Element (all-zero bytes included), and without `clear`
                // the caller writes it before it is read.
                let s = unsafe { stream.alloc::<T>(len.max(1)) }.map_err(|e| oom_or(e, bytes, "allocating"))?;
                if clear {
                    // SAFETY: `bytes` bytes of the allocation just made.
                    let r = unsafe { cudarc::driver::result::memset_d8_async(raw_ptr(&s, stream), 0, bytes, stream.cu_stream()) };
                    r.map_err(driver("clearing a buffer"))?;
                }
                let track = crate::stream::Tracker::born(c, stream)?;
                Ok(Buffer::cuda(s, len, &c.stream, track, &self.inner))
            }
            Inner::Emulator => {
                let mut v = host_vec::<T>(len)?;
                v.resize(len, T::default());
                Ok(Buffer::host(v, &self.inner))
            }
        }
    }

    /// Waits until every kernel launched on this handle's stream (the
    /// default stream, or the one of [`Context::on`]) has finished; reports
    /// a kernel fault that happened since the last check.
    pub fn synchronize(&self) -> Result<()> {
        match &*self.inner {
            Inner::Cuda(c) => c.note(self.stream_of(c).synchronize().map_err(driver("synchronizing"))),
            Inner::Emulator => Ok(()),
        }
    }

    /// The first device fault seen on this context (the driver's message),
    /// if any: then the context is unusable and every call on it returns
    /// [`Error::DeviceFault`] (see there). `None` on the emulator, whose
    /// kernel faults are [`Error::Emulator`] and leave the context usable.
    pub fn fault(&self) -> Option<&str> {
        match &*self.inner {
            Inner::Cuda(c) => c.fault.get().map(String::as_str),
            Inner::Emulator => None,
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
        match &*self.inner {
            Inner::Cuda(c) => {
                let flags = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
                let start = c.ctx.new_event(flags).map_err(driver("creating an event"))?;
                let end = c.ctx.new_event(flags).map_err(driver("creating an event"))?;
                let stream = self.stream_of(c);
                for _ in 0..iters {
                    start.record(stream).map_err(driver("recording an event"))?;
                    f()?;
                    end.record(stream).map_err(driver("recording an event"))?;
                    c.note(end.synchronize().map_err(driver("waiting for an event")))?;
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
    ///
    /// The limit only ever goes up: threads sharing the context launch the
    /// same function with different shared sizes after the lock is
    /// released, and lowering the limit for one would make another's
    /// launch (already past this point, asking for more) fail.
    pub(crate) fn cuda_function(&self, name: &'static str, shared_bytes: u32) -> Result<(Arc<CudaFunction>, &Cuda)> {
        let Inner::Cuda(c) = &*self.inner else { unreachable!("cuda_function on the emulator") };
        let mut fs = c.functions.lock().unwrap_or_else(|e| e.into_inner());
        if !fs.contains_key(name) {
            // Only the module that has the kernel is asked: a failed
            // lookup is an API error that compute-sanitizer reports.
            let module = c.modules.iter().find(|(_, names)| names.contains(name));
            let found = module.and_then(|(m, _)| m.load_function(name).ok());
            let f = Arc::new(found.ok_or_else(|| Error::Launch {
                kernel: name,
                detail: "not in the PTX modules; rebuild with `cargo xtask build-ptx`".into(),
            })?);
            fs.insert(name, (f, 0));
        }
        let (f, raised) = fs.get_mut(name).expect("inserted above");
        if shared_bytes > 48 * 1024 && shared_bytes > *raised {
            // Within the device's limit: checked by `check_launch`.
            f.set_attribute(
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                shared_bytes as i32,
            )
            .map_err(driver("raising the shared-memory limit"))?;
            *raised = shared_bytes;
        }
        Ok((f.clone(), c))
    }

    /// Checks a launch configuration against the limits of the device (or
    /// of the CUDA model, on the emulator) before anything is launched, so
    /// that an oversized problem is a typed error naming the kernel, not a
    /// late driver failure. Callers pick configurations that fit (folded
    /// grids, chunked problems); this is the guard behind them.
    pub(crate) fn check_launch(&self, kernel: &'static str, cfg: &LaunchConfig) -> Result<()> {
        use ferrotile_kernels::launch::{MAX_GRID_X, MAX_GRID_YZ};
        let threads = cfg.threads_per_block();
        let problem = if cfg.grid.contains(&0) || cfg.block.contains(&0) {
            Some("a zero extent".to_string())
        } else if cfg.grid[0] > MAX_GRID_X || cfg.grid[1] > MAX_GRID_YZ || cfg.grid[2] > MAX_GRID_YZ {
            Some(format!("more blocks than the limits {MAX_GRID_X} × {MAX_GRID_YZ} × {MAX_GRID_YZ}"))
        } else if threads > 1024 || cfg.block[2] > 64 {
            Some(format!("{threads} threads per block (at most 1024, 64 in z)"))
        } else if !(1..=8).contains(&cfg.cluster) || !cfg.grid[0].is_multiple_of(cfg.cluster) {
            Some(format!("clusters of {} blocks (1 to 8, dividing the grid's x extent)", cfg.cluster))
        } else {
            match &*self.inner {
                Inner::Cuda(c) if cfg.cluster > 1 && c.info.compute_capability.0 < 9 => Some(format!(
                    "clusters of {} blocks; the device (compute capability {}.{}) has none",
                    cfg.cluster, c.info.compute_capability.0, c.info.compute_capability.1
                )),
                Inner::Cuda(c) if cfg.shared_bytes as i64 > c.info.max_shared_per_block as i64 => Some(format!(
                    "{} bytes of shared memory per block; the device allows {}",
                    cfg.shared_bytes, c.info.max_shared_per_block
                )),
                _ => None,
            }
        };
        match problem {
            None => Ok(()),
            Some(p) => Err(Error::Launch {
                kernel,
                detail: format!("launch configuration grid {:?} × block {:?} has {p}; nothing was launched", cfg.grid, cfg.block),
            }),
        }
    }

    /// How many clusters of launch `cfg` of kernel `name` (its
    /// `cfg.cluster` blocks each, `cfg.shared_bytes` of shared memory per
    /// block) the device runs at once (`cuOccupancyMaxActiveClusters`): the
    /// clusters of a persistent grid. On the emulator, `emulated`.
    pub(crate) fn max_active_clusters(&self, name: &'static str, cfg: LaunchConfig, emulated: usize) -> Result<usize> {
        if !matches!(&*self.inner, Inner::Cuda(_)) {
            return Ok(emulated);
        }
        let (f, c) = self.cuda_function(name, cfg.shared_bytes)?;
        c.ctx.bind_to_thread().map_err(driver("making the context current"))?;
        let mut attrs = [cluster_attribute(cfg.cluster)];
        let config = launch_config_ex(&cfg, std::ptr::null_mut(), &mut attrs);
        let mut n: std::ffi::c_int = 0;
        // SAFETY: `config` and its one attribute live for the call; `n` is
        // written by it.
        unsafe { sys::cuOccupancyMaxActiveClusters(&mut n, f.cu_function(), &config) }.result().map_err(driver("asking how many clusters fit"))?;
        if n < 1 {
            return Err(Error::Launch { kernel: name, detail: format!("no cluster of {} blocks fits on the device", cfg.cluster) });
        }
        Ok(n as usize)
    }

    /// Launches a kernel on the CUDA backend with raw parameter pointers.
    pub(crate) fn launch_cuda(&self, name: &'static str, cfg: LaunchConfig, params: &mut [*mut std::ffi::c_void]) -> Result<()> {
        if let Inner::Cuda(c) = &*self.inner
            && let Some(first) = c.fault.get() {
                return Err(Error::DeviceFault { op: "launching a kernel (nothing was launched)", detail: first.clone() });
            }
        let (f, c) = self.cuda_function(name, cfg.shared_bytes)?;
        // The calling thread may never have used this context (a buffer
        // made on one thread, launched on from another): make it current.
        c.ctx.bind_to_thread().map_err(driver("making the context current"))?;
        let stream = self.stream_of(c).cu_stream();
        // A programmatic dependent launch where the kernel asks for it (it
        // waits for the previous kernel itself) and the device has it; a
        // cluster where the kernel is written for one (sm_90 on).
        let early = cfg.early_launch && c.info.compute_capability.0 >= 9;
        let mut attrs: Vec<sys::CUlaunchAttribute> = Vec::with_capacity(2);
        if early {
            attrs.push(sys::CUlaunchAttribute {
                id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
                pad: [0; 4],
                value: sys::CUlaunchAttributeValue { programmaticStreamSerializationAllowed: 1 },
            });
        }
        if cfg.cluster > 1 {
            attrs.push(cluster_attribute(cfg.cluster));
        }
        let launched = if !attrs.is_empty() {
            let config = launch_config_ex(&cfg, stream, &mut attrs);
            // SAFETY: as below; `config` and its attributes live for the
            // call.
            unsafe { sys::cuLaunchKernelEx(&config, f.cu_function(), params.as_mut_ptr(), std::ptr::null_mut()) }.result()
        } else {
            // SAFETY: the caller passes one pointer per kernel parameter,
            // each to a value of the parameter's type, alive for the call.
            unsafe {
                cudarc::driver::result::launch_kernel(
                    f.cu_function(),
                    (cfg.grid[0], cfg.grid[1], cfg.grid[2]),
                    (cfg.block[0], cfg.block[1], cfg.block[2]),
                    cfg.shared_bytes,
                    stream,
                    params,
                )
            }
        };
        launched.map_err(|e| {
            c.noted(if is_sticky(&e) {
                Error::DeviceFault { op: "launching a kernel", detail: format!("{name}: {e}") }
            } else {
                Error::Launch {
                    kernel: name,
                    detail: format!("grid {:?} × block {:?}, {} bytes of shared memory: {e}", cfg.grid, cfg.block, cfg.shared_bytes),
                }
            })
        })
    }
}

pub(crate) fn oom_or(e: DriverError, bytes: usize, op: &'static str) -> Error {
    if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
        Error::OutOfMemory { bytes }
    } else {
        driver(op)(e)
    }
}

/// An empty host vector with room for `len` elements, or
/// [`Error::OutOfMemory`]: the emulator's allocations must not abort the
/// process when the host cannot satisfy them. An allocation larger than
/// the host's physical memory is refused up front (with Linux's memory
/// overcommit, reserving it could succeed and filling it would then get
/// the process killed).
pub(crate) fn host_vec<T>(len: usize) -> Result<Vec<T>> {
    let bytes = len.saturating_mul(std::mem::size_of::<T>());
    if bytes > isize::MAX as usize || host_memory_bytes().is_some_and(|total| bytes > total) {
        return Err(Error::OutOfMemory { bytes });
    }
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| Error::OutOfMemory { bytes })?;
    Ok(v)
}

/// The host's physical memory (`MemTotal` of `/proc/meminfo`), where the
/// system reports it.
fn host_memory_bytes() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: usize = info.lines().find_map(|l| l.strip_prefix("MemTotal:"))?.trim().trim_end_matches("kB").trim().parse().ok()?;
    kib.checked_mul(1024)
}

pub(crate) fn raw_ptr<T>(s: &CudaSlice<T>, stream: &CudaStream) -> sys::CUdeviceptr {
    use cudarc::driver::DevicePtr;
    s.device_ptr(stream).0
}

/// Who frees a CUDA buffer's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ownership {
    /// The buffer: dropping it drops the `CudaSlice` (which frees the
    /// memory on the slice's stream, after ferrotile's stream's work).
    Owned,
    /// The application (`Buffer::from_raw_device_ptr`): dropping the
    /// buffer leaks the slice, never frees.
    Borrowed,
    /// Given away (`Buffer::into_cudarc`): the slice has been moved out.
    Released,
}

pub(crate) enum Storage<T: Element> {
    /// `stream` is the context's default stream (the buffer's own methods
    /// run there); `slice.stream()` is the one it was allocated on, and
    /// is freed on (the default stream, the stream of a
    /// [`Context::on`] handle, or the application's for
    /// `Buffer::from_cudarc`); `track` orders its uses across streams.
    Cuda {
        slice: std::mem::ManuallyDrop<CudaSlice<T>>,
        ptr: sys::CUdeviceptr,
        stream: Arc<CudaStream>,
        ownership: Ownership,
        track: Arc<crate::stream::Tracker>,
    },
    Host { ptr: *mut T, cap: usize },
}

/// A typed buffer in device memory (or host memory for the emulator).
///
/// A buffer belongs to the [`Context`] that allocated it; launches check
/// this identity, so a buffer of another context (another device, another
/// context on the same device, or the emulator) is refused with a typed
/// error instead of reaching a kernel.
///
/// Every launching function takes its inputs as `&Buffer` and its output
/// as `&mut Buffer`, so one buffer cannot be both input and output: the
/// borrow checker refuses it at compile time, and no run-time aliasing
/// check is needed.
///
/// ```compile_fail,E0502
/// # let ctx = ferrotile::Context::emulator();
/// let a = ctx.upload(&[1.0f32; 4])?;
/// let mut c = ctx.upload(&[1.0f32; 4])?;
/// ferrotile::vec_add(&ctx, &a, &c, &mut c)?; // `c` as input and output
/// # Ok::<(), ferrotile::Error>(())
/// ```
pub struct Buffer<T: Element> {
    pub(crate) storage: Storage<T>,
    pub(crate) len: usize,
    pub(crate) owner: Arc<Inner>,
}

// SAFETY: the host storage is an owned allocation, accessed through `&`/`&mut`;
// the CUDA storage is cudarc's `CudaSlice` (itself `Send + Sync`), a device
// address whose uses are ordered by stream order and the buffer's events
// (a `Mutex`-guarded `Tracker`; see the module documentation).
unsafe impl<T: Element> Send for Buffer<T> {}
unsafe impl<T: Element> Sync for Buffer<T> {}

// The thread-safety the module documentation promises, checked.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Context>();
    send_sync::<Buffer<f32>>();
    send_sync::<Buffer<half::bf16>>();
};

impl<T: Element> Buffer<T> {
    pub(crate) fn cuda(slice: CudaSlice<T>, len: usize, stream: &Arc<CudaStream>, track: Arc<crate::stream::Tracker>, owner: &Arc<Inner>) -> Self {
        Self::cuda_with(slice, len, stream, track, owner, Ownership::Owned)
    }

    pub(crate) fn cuda_with(
        slice: CudaSlice<T>,
        len: usize,
        stream: &Arc<CudaStream>,
        track: Arc<crate::stream::Tracker>,
        owner: &Arc<Inner>,
        ownership: Ownership,
    ) -> Self {
        let ptr = raw_ptr(&slice, stream);
        let slice = std::mem::ManuallyDrop::new(slice);
        Buffer { storage: Storage::Cuda { slice, ptr, stream: stream.clone(), ownership, track }, len, owner: owner.clone() }
    }

    fn host(v: Vec<T>, owner: &Arc<Inner>) -> Self {
        let mut v = std::mem::ManuallyDrop::new(v);
        let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
        Buffer { storage: Storage::Host { ptr, cap }, len, owner: owner.clone() }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Copies the buffer back to the host on the context's default stream
    /// (waits for it, and for the buffer's last write on any stream;
    /// [`Context::download`] downloads on a handle's stream).
    pub fn download(&self) -> Result<Vec<T>> {
        if self.len == 0 {
            return Ok(Vec::new());
        }
        let _op = crate::stream::Op::new(&self.owner, None, &[self.tracker()], &[])?;
        match &self.storage {
            Storage::Cuda { slice, stream, .. } => {
                let r = stream.clone_dtoh(&**slice).map_err(driver("copying to the host"));
                match &*self.owner {
                    Inner::Cuda(c) => c.note(r),
                    Inner::Emulator => r,
                }
            }
            // SAFETY: ptr/len describe the owned allocation.
            Storage::Host { ptr, .. } => Ok(unsafe { std::slice::from_raw_parts(*ptr, self.len) }.to_vec()),
        }
    }

    /// Overwrites the buffer with `data` (same length), on the context's
    /// default stream ([`Context::copy_from_host`] on a handle's stream).
    pub fn copy_from(&mut self, data: &[T]) -> Result<()> {
        self.copy_from_on(None, data)
    }

    /// [`Buffer::copy_from`] on `on` (`None`: the default stream).
    pub(crate) fn copy_from_on(&mut self, on: Option<&Arc<CudaStream>>, data: &[T]) -> Result<()> {
        if data.len() != self.len {
            return Err(Error::LengthMismatch { arg: "data", expected: self.len, actual: data.len() });
        }
        if self.len == 0 {
            return Ok(());
        }
        let _op = crate::stream::Op::new(&self.owner, on, &[], &[self.tracker()])?;
        match &mut self.storage {
            Storage::Cuda { slice, stream, .. } => on.unwrap_or(stream).memcpy_htod(data, &mut **slice).map_err(driver("copying to the device")),
            Storage::Host { ptr, .. } => {
                // SAFETY: same length, owned allocation, exclusive borrow.
                unsafe { std::slice::from_raw_parts_mut(*ptr, self.len) }.copy_from_slice(data);
                Ok(())
            }
        }
    }

    /// Device-to-device copy of `src` (same length) into this buffer, on
    /// the context's default stream ([`Context::copy`] on a handle's
    /// stream): the copy-bandwidth ceiling the memory-bound benchmarks
    /// compare against.
    pub fn copy_from_buffer(&mut self, src: &Buffer<T>) -> Result<()> {
        self.copy_from_buffer_on(None, src)
    }

    /// [`Buffer::copy_from_buffer`] on `on` (`None`: the default stream).
    pub(crate) fn copy_from_buffer_on(&mut self, on: Option<&Arc<CudaStream>>, src: &Buffer<T>) -> Result<()> {
        if src.len != self.len {
            return Err(Error::LengthMismatch { arg: "src", expected: self.len, actual: src.len });
        }
        if !Arc::ptr_eq(&self.owner, &src.owner) {
            return Err(Error::BadArgument { arg: "src", detail: "buffer belongs to another context than the destination".into() });
        }
        if self.len == 0 {
            return Ok(());
        }
        let _op = crate::stream::Op::new(&self.owner, on, &[src.tracker()], &[self.tracker()])?;
        match (&mut self.storage, &src.storage) {
            (Storage::Cuda { ptr: dst, stream, .. }, Storage::Cuda { ptr: s, .. }) => {
                let stream = on.unwrap_or(stream);
                let bytes = self.len * std::mem::size_of::<T>();
                stream.context().bind_to_thread().map_err(driver("making the context current"))?;
                // SAFETY: both allocations hold `bytes` bytes.
                unsafe { cudarc::driver::result::memcpy_dtod_async(*dst, *s, bytes, stream.cu_stream()) }
                    .map_err(driver("copying device to device"))
            }
            (Storage::Host { ptr: d, .. }, Storage::Host { ptr: s, .. }) => {
                // SAFETY: distinct owned allocations of `len` elements.
                unsafe { std::ptr::copy_nonoverlapping(*s, *d, self.len) };
                Ok(())
            }
            _ => unreachable!("buffers of one context share its backend"),
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
    pub(crate) fn global(&self, name: &'static str) -> ferrotile_kernels::arch::Global<T::Device> {
        self.global_from(name, 0)
    }

    /// The emulator's view of the buffer from element `offset` (≤ len) on.
    pub(crate) fn global_from(&self, name: &'static str, offset: usize) -> ferrotile_kernels::arch::Global<T::Device> {
        assert!(offset <= self.len, "view offset {offset} past a buffer of {} elements", self.len);
        match &self.storage {
            // SAFETY: the allocation holds `len` elements, `offset ≤ len`,
            // and it outlives the launch (the launch borrows the buffer);
            // `T::Device` has `T`'s size and alignment (checked above).
            Storage::Host { ptr, .. } => unsafe {
                ferrotile_kernels::arch::Global::from_raw_parts(ptr.add(offset) as *mut T::Device, self.len - offset, name)
            },
            Storage::Cuda { .. } => unreachable!("emulator launch with a CUDA buffer"),
        }
    }

    /// Whether the buffer was allocated on `ctx` (the same context, not
    /// only the same backend or device).
    pub(crate) fn is_on(&self, ctx: &Context) -> bool {
        Arc::ptr_eq(&self.owner, &ctx.inner)
    }
}

impl<T: Element> Drop for Buffer<T> {
    fn drop(&mut self) {
        match &mut self.storage {
            Storage::Host { ptr, cap } => {
                // SAFETY: rebuilt from the Vec's own parts.
                drop(unsafe { Vec::from_raw_parts(*ptr, self.len, *cap) });
            }
            Storage::Cuda { slice, stream, ownership, track, .. } => {
                if *ownership == Ownership::Released {
                    return;
                }
                // The memory is freed (or, borrowed, handed back) on the
                // slice's stream: it first waits for every use ferrotile
                // enqueued on any stream. For a borrowed buffer that is the
                // default stream, which its safety contract names.
                let _ = track.settle(slice.stream(), stream);
                // SAFETY: taken once, here; the field is not used again.
                let slice = unsafe { std::mem::ManuallyDrop::take(slice) };
                if *ownership == Ownership::Borrowed {
                    slice.leak();
                } else {
                    drop(slice);
                }
            }
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


/// `cuLaunchKernelEx`'s attribute for clusters of `cluster` blocks along x.
fn cluster_attribute(cluster: u32) -> sys::CUlaunchAttribute {
    sys::CUlaunchAttribute {
        id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
        pad: [0; 4],
        value: sys::CUlaunchAttributeValue { clusterDim: sys::CUlaunchAttributeValue_union__bindgen_ty_1 { x: cluster, y: 1, z: 1 } },
    }
}

/// Launch `cfg` as `cuLaunchKernelEx`'s configuration on `stream` with
/// `attrs`, which the caller keeps alive while the configuration is used.
fn launch_config_ex(cfg: &LaunchConfig, stream: sys::CUstream, attrs: &mut [sys::CUlaunchAttribute]) -> sys::CUlaunchConfig {
    sys::CUlaunchConfig {
        gridDimX: cfg.grid[0],
        gridDimY: cfg.grid[1],
        gridDimZ: cfg.grid[2],
        blockDimX: cfg.block[0],
        blockDimY: cfg.block[1],
        blockDimZ: cfg.block[2],
        sharedMemBytes: cfg.shared_bytes,
        hStream: stream,
        attrs: attrs.as_mut_ptr(),
        numAttrs: attrs.len() as u32,
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workspace_is_lent_to_one_operation_at_a_time_and_kept() {
        let ctx = Context::emulator();
        let first = ctx.workspace(100).unwrap();
        let at = first.device_ptr();
        assert!(first.len() >= 100);
        // While lent, another operation on the handle gets its own.
        let second = ctx.workspace(10).unwrap();
        assert_ne!(second.device_ptr(), at, "a lent workspace was lent again");
        drop(second);
        drop(first);
        // Back: the larger of the two is kept and lent again for any
        // length it holds.
        let again = ctx.workspace(60).unwrap();
        assert_eq!(again.device_ptr(), at, "the kept workspace was not lent again");
        drop(again);
        // A longer one replaces it.
        let longer = ctx.workspace(1000).unwrap();
        let long_at = longer.device_ptr();
        assert_ne!(long_at, at);
        drop(longer);
        assert_eq!(ctx.workspace(1).unwrap().device_ptr(), long_at);
        // Beyond the kept size: allocated for the call, not kept.
        let huge = ctx.workspace(WORKSPACE_KEPT + 1).unwrap();
        assert!(huge.len() > WORKSPACE_KEPT);
        drop(huge);
        assert_eq!(ctx.workspace(1).unwrap().device_ptr(), long_at, "a workspace past the limit was kept");
        // Another handle keeps its own; releasing the cached memory drops it.
        let other = ctx.with_stream(None);
        assert_ne!(other.workspace(1).unwrap().device_ptr(), long_at);
        ctx.release_cached_memory().unwrap();
        assert!(ctx.workspace.lock().unwrap().is_none(), "release_cached_memory kept the workspace");
    }

    #[test]
    fn staging_buffers_are_lent_once_and_the_two_largest_kept_by_type() {
        use half::bf16;
        let ctx = Context::emulator();
        let (a, b) = (ctx.scratch::<bf16>(100).unwrap(), ctx.scratch::<bf16>(100).unwrap());
        let (a_at, b_at) = (a.device_ptr(), b.device_ptr());
        assert_ne!(a_at, b_at, "a lent staging buffer was lent again");
        assert!(a.len() >= 100);
        drop((a, b));
        // Both kept; the smallest that holds the length is lent, and not
        // to another element type.
        let c = ctx.scratch::<bf16>(50).unwrap();
        assert!([a_at, b_at].contains(&c.device_ptr()), "a kept staging buffer was not lent again");
        let f = ctx.scratch::<f32>(10).unwrap();
        assert!(![a_at, b_at].contains(&f.device_ptr()), "a bf16 buffer was lent as f32");
        drop(f);
        // Two kept now (the other bf16 one and the f32 one): `c`, no longer
        // than the kept bf16 one, is not kept; a longer one replaces it...
        let longer = ctx.scratch::<bf16>(1000).unwrap();
        let long_at = longer.device_ptr();
        drop(c);
        drop(longer);
        assert_eq!(ctx.scratch::<bf16>(500).unwrap().device_ptr(), long_at);
        // ... while a shorter one is not kept in its place.
        drop(ctx.scratch_zeroed::<bf16>(7).unwrap());
        assert_eq!(ctx.scratch.lock().unwrap().len(), SCRATCH_KEPT);
        assert_eq!(ctx.scratch::<bf16>(1).unwrap().device_ptr(), long_at, "a shorter buffer displaced a longer one");
        // Beyond the kept size: allocated for the call, not kept.
        let huge = ctx.scratch::<u8>(SCRATCH_KEPT_BYTES + 1).unwrap();
        drop(huge);
        assert!(ctx.scratch.lock().unwrap().iter().all(|b| !b.is::<Buffer<u8>>()), "a buffer past the limit was kept");
        // Another handle keeps its own; releasing the cached memory drops them.
        assert_ne!(ctx.with_stream(None).scratch::<bf16>(1).unwrap().device_ptr(), long_at);
        ctx.release_cached_memory().unwrap();
        assert!(ctx.scratch.lock().unwrap().is_empty(), "release_cached_memory kept a staging buffer");
    }

    #[test]
    fn a_launch_of_bad_clusters_is_refused_naming_the_kernel() {
        let ctx = Context::emulator();
        let cfg = |grid: u32, cluster: u32| LaunchConfig { cluster, ..LaunchConfig::linear(grid, 128) };
        for (grid, cluster) in [(4, 0), (18, 9), (3, 2), (10, 4)] {
            match ctx.check_launch("k", &cfg(grid, cluster)) {
                Err(Error::Launch { kernel: "k", detail }) => {
                    assert!(detail.contains(&format!("clusters of {cluster} blocks")) && detail.contains("nothing was launched"), "{detail}")
                }
                other => panic!("grid {grid}, clusters of {cluster}: {other:?}"),
            }
        }
        for (grid, cluster) in [(4, 1), (4, 2), (8, 8), (3, 1)] {
            assert!(ctx.check_launch("k", &cfg(grid, cluster)).is_ok(), "grid {grid}, clusters of {cluster}");
        }
        assert_eq!(ctx.max_active_clusters("k", cfg(2, 2), 5).unwrap(), 5, "the emulator's clusters");
    }

    #[test]
    fn upload_cache_shares_equal_blocks_and_keeps_the_last_eight() {
        let ctx = Context::emulator();
        // Blocks keyed by `i`; `made` counts the blocks built.
        let made = std::cell::Cell::new(0);
        let block = |i: u64| [i, i + 1, 7];
        let get = |c: &Context, i: u64| {
            c.upload_cached(&[i], || {
                made.set(made.get() + 1);
                Ok(block(i).to_vec())
            })
            .unwrap()
        };
        let first = get(&ctx, 0);
        assert_eq!(first.download().unwrap(), block(0));
        // The same key: the same buffer, whatever came between (up to 7
        // other blocks), and the block not built again.
        for i in 1..UPLOAD_CACHE as u64 {
            let b = get(&ctx, i);
            assert!(!Arc::ptr_eq(&b, &first), "block {i} shares block 0's buffer");
            assert_eq!(b.download().unwrap(), block(i));
        }
        assert_eq!(made.get(), UPLOAD_CACHE);
        assert!(Arc::ptr_eq(&get(&ctx, 0), &first), "a cached block was uploaded again");
        assert_eq!(made.get(), UPLOAD_CACHE, "a cached block was built again");
        // Block 0 is the most recent again: 8 new blocks push it out, and
        // it is built and uploaded anew.
        for i in 100..100 + UPLOAD_CACHE as u64 {
            get(&ctx, i);
        }
        let again = get(&ctx, 0);
        assert!(!Arc::ptr_eq(&again, &first), "more than {UPLOAD_CACHE} blocks kept");
        assert_eq!(again.download().unwrap(), block(0));
        // A failed build keeps nothing: the next call builds again.
        let failed = ctx.upload_cached(&[555], || Err(Error::BadArgument { arg: "a", detail: "no".into() }));
        assert!(matches!(failed, Err(Error::BadArgument { arg: "a", .. })));
        let before = made.get();
        get(&ctx, 555);
        assert_eq!(made.get(), before + 1);
        // Another handle keeps its own blocks (its own stream).
        let other = ctx.with_stream(None);
        assert!(!Arc::ptr_eq(&get(&other, 0), &again));
    }

    #[test]
    fn sticky_driver_errors_are_device_faults() {
        // (A DriverError's message comes from the driver, absent here: the
        // classification is tested on the codes.)
        use sys::CUresult as R;
        for code in [R::CUDA_ERROR_ILLEGAL_ADDRESS, R::CUDA_ERROR_LAUNCH_FAILED, R::CUDA_ERROR_ILLEGAL_INSTRUCTION, R::CUDA_ERROR_MISALIGNED_ADDRESS] {
            assert!(is_sticky(&DriverError(code)), "{code:?}");
        }
        for code in [R::CUDA_ERROR_INVALID_VALUE, R::CUDA_ERROR_NOT_FOUND, R::CUDA_ERROR_OUT_OF_MEMORY, R::CUDA_ERROR_NOT_READY] {
            assert!(!is_sticky(&DriverError(code)), "{code:?}");
        }
        assert_eq!(oom_or(DriverError(R::CUDA_ERROR_OUT_OF_MEMORY), 64, "allocating"), Error::OutOfMemory { bytes: 64 });
        let shown = Error::DeviceFault { op: "copying to the host", detail: "an illegal memory access".into() }.to_string();
        assert!(shown.contains("copying to the host") && shown.contains("unusable"), "{shown}");
    }

    #[test]
    fn each_module_lists_its_own_kernels() {
        let names = ptx_entries(&ptx_text(PTX_MODULES[0].deflated).unwrap());
        assert!(names.contains("sgemm_naive") && names.contains("gemm_mma_bf16_f32_nn_128x128x64_s3"), "{} names", names.len());
        assert!(!names.contains("sgemm_warptile_128x128x8_w64x32"), "an experiment in the default module");
        assert!(!names.iter().any(|n| n.starts_with("gemm_wgmma")), "a Hopper kernel in the sm_80 module");
        assert!(names.iter().all(|n| !n.is_empty() && !n.contains('(')));
        // The Hopper module holds every wgmma kernel and nothing else.
        let hopper = ptx_entries(&ptx_text(PTX_MODULES[1].deflated).unwrap());
        let want: std::collections::HashSet<String> =
            ferrotile_kernels::gemm::wgmma::WgmmaKernel::ALL.iter().map(|k| k.name().to_string()).collect();
        assert_eq!(hopper, want);
        assert!(!(PTX_MODULES[1].loads_on)((8, 0)) && (PTX_MODULES[1].loads_on)((9, 0)) && !(PTX_MODULES[1].loads_on)((10, 0)));
    }

    /// Each embedded cubin is CUDA machine code (ELF, `EM_CUDA`) holding
    /// every kernel of its module, chosen on its own GPU generation only,
    /// and within a module at most one cubin fits a device.
    #[test]
    fn each_cubin_holds_its_modules_kernels_for_its_gpus() {
        const EM_CUDA: u16 = 190;
        for m in PTX_MODULES {
            let names = ptx_entries(&ptx_text(m.deflated).unwrap());
            for c in m.cubins {
                let bin = inflate(c.deflated).unwrap();
                assert_eq!(&bin[..4], b"\x7fELF", "{} {}", m.name, c.arch);
                assert_eq!(u16::from_le_bytes([bin[18], bin[19]]), EM_CUDA, "{} {}", m.name, c.arch);
                for n in &names {
                    let section = format!(".text.{n}\0");
                    assert!(bin.windows(section.len()).any(|w| w == section.as_bytes()), "{} {}: no code for {n}", m.name, c.arch);
                }
                let digits: String = c.arch.trim_start_matches("sm_").chars().take_while(char::is_ascii_digit).collect();
                let cc = (digits[..digits.len() - 1].parse::<i32>().unwrap(), digits[digits.len() - 1..].parse::<i32>().unwrap());
                assert!((c.runs_on)(cc), "{} {}: not chosen on {cc:?}", m.name, c.arch);
                assert!(!(c.runs_on)((cc.0 + 1, 0)) && !(c.runs_on)((cc.0 - 1, 0)), "{} {}: chosen on another generation", m.name, c.arch);
            }
            for cc in [(8, 0), (8, 6), (8, 9), (9, 0), (10, 0), (12, 0)] {
                assert!(m.cubins.iter().filter(|c| (c.runs_on)(cc)).count() <= 1, "{}: two cubins for {cc:?}", m.name);
            }
        }
    }
}
