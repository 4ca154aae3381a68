//! One launch site per kernel for both backends.
//!
//! `launch!(ctx, kernels::path::to::kernel, cfg, arg, …)` passes each
//! argument to the CUDA launch as its device representation and to the
//! emulator as its host representation, so arguments are written once.

use ferrotile_kernels::arch::Global;
use ferrotile_kernels::image::{ImageParams, SlideParams, VolumeParams, WindowParams};
use ferrotile_kernels::arch::sm90::TensorMap;
use ferrotile_kernels::gemm::mma::{BiasActParams, MmaParams, Stage2Params, StageParams};
use ferrotile_kernels::gemm::wgmma::WgmmaParams;
use ferrotile_kernels::gemm::GemmParams;

use crate::backend::{Buffer, Element};

/// A value that can be a kernel argument on both backends.
pub(crate) trait KernelArg {
    /// What the emulated kernel receives.
    type Emu: Copy + Send + Sync;
    /// What the CUDA kernel receives (its bytes are the PTX parameter).
    type Dev: Copy;
    fn emu(&self, name: &'static str) -> Self::Emu;
    fn dev(&self) -> Self::Dev;
}

/// Buffers, shared or exclusive borrows alike: the device address on CUDA,
/// a bounds-checked view on the emulator.
macro_rules! buffer_arg {
    ($($r:ty),*) => {$(
        impl<T: Element> KernelArg for $r {
            type Emu = Global<T::Device>;
            type Dev = u64;
            fn emu(&self, name: &'static str) -> Global<T::Device> {
                self.global(name)
            }
            fn dev(&self) -> u64 {
                self.device_ptr()
            }
        }
    )*};
}
buffer_arg!(&Buffer<T>, &mut Buffer<T>);

/// A buffer seen from element `offset` on: a kernel argument for a
/// sub-problem (a chunk of rows of a matrix launched on its own). On CUDA
/// the device address moves by `offset` elements; on the emulator the
/// view starts there and is bounds-checked against the rest of the buffer.
pub(crate) struct At<'a, T: Element> {
    buf: &'a Buffer<T>,
    offset: usize,
}

impl<'a, T: Element> At<'a, T> {
    /// `buf` from element `offset` (≤ its length) on.
    pub(crate) fn new(buf: &'a Buffer<T>, offset: usize) -> Self {
        assert!(offset <= buf.len(), "offset {offset} past a buffer of {} elements", buf.len());
        At { buf, offset }
    }
}

impl<T: Element> KernelArg for At<'_, T> {
    type Emu = Global<T::Device>;
    type Dev = u64;
    fn emu(&self, name: &'static str) -> Global<T::Device> {
        self.buf.global_from(name, self.offset)
    }
    fn dev(&self) -> u64 {
        self.buf.device_ptr() + (self.offset * std::mem::size_of::<T>()) as u64
    }
}

/// An optional buffer argument (the bias of a GEMM, a workspace): the
/// buffer when present; when absent a null pointer on CUDA and an empty
/// view on the emulator (any access is a reported fault).
impl<T: Element> KernelArg for Option<&Buffer<T>> {
    type Emu = Global<T::Device>;
    type Dev = u64;
    fn emu(&self, name: &'static str) -> Global<T::Device> {
        match self {
            Some(buf) => buf.global(name),
            // SAFETY: an empty view: the emulator faults on any access.
            None => unsafe { Global::from_raw_parts(std::ptr::NonNull::dangling().as_ptr(), 0, name) },
        }
    }
    fn dev(&self) -> u64 {
        self.map_or(0, |buf| buf.device_ptr())
    }
}

/// TMA tensor maps in a buffer of `u64` (16 per map): the device address
/// on CUDA, a bounds-checked view of [`TensorMap`]s on the emulator.
pub(crate) struct TensorMaps<'a>(pub(crate) &'a Buffer<u64>);

impl KernelArg for TensorMaps<'_> {
    type Emu = Global<TensorMap>;
    type Dev = u64;
    fn emu(&self, name: &'static str) -> Global<TensorMap> {
        const WORDS: usize = std::mem::size_of::<TensorMap>() / 8;
        let view = self.0.global(name);
        assert!(view.len().is_multiple_of(WORDS), "a tensor-map buffer holds whole maps");
        // SAFETY: the host allocation holds `len` u64s and outlives the
        // launch; the emulator reads maps unaligned (a host `Vec<u64>` is
        // only 8-byte aligned).
        unsafe { Global::from_raw_parts(self.0.device_ptr() as *mut TensorMap, view.len() / WORDS, name) }
    }
    fn dev(&self) -> u64 {
        self.0.device_ptr()
    }
}

/// Pointer to a parameter value, as `cuLaunchKernel` wants it.
///
/// Implemented only for the sized parameter types themselves (never for
/// references), so a `&dyn ParamPtr` always points at the value.
pub(crate) trait ParamPtr {
    fn param_ptr(&self) -> *mut std::ffi::c_void;
}

macro_rules! param_ptr {
    ($($t:ty),*) => {$(
        impl ParamPtr for $t {
            fn param_ptr(&self) -> *mut std::ffi::c_void {
                self as *const $t as *mut std::ffi::c_void
            }
        }
    )*};
}

macro_rules! by_value {
    ($($t:ty),*) => {$(
        impl KernelArg for $t {
            type Emu = $t;
            type Dev = $t;
            fn emu(&self, _: &'static str) -> $t { *self }
            fn dev(&self) -> $t { *self }
        }
        param_ptr!($t);
    )*};
}
param_ptr!(u64);
by_value!(u32, i32, f32, GemmParams, MmaParams, WgmmaParams, StageParams, Stage2Params, BiasActParams, ImageParams, SlideParams, VolumeParams, WindowParams);

/// `launch!(ctx, kernel_path, cfg, args…)`: validates nothing (callers
/// validate first), launches on the context's backend.
macro_rules! launch {
    ($ctx:expr, $($kernel:ident)::+, $cfg:expr, $($arg:expr),+ $(,)?) => {{
        #[allow(unused_imports)]
        use $crate::launch::{KernelArg as _, ParamPtr as _};
        let ctx: &$crate::Context = $ctx;
        let cfg: $crate::LaunchConfig = $cfg;
        let name: &'static str = $crate::launch::last_segment(stringify!($($kernel)::+));
        ctx.check_launch(name, &cfg)?;
        debug_assert!(
            $crate::stream::in_op(),
            "{name} launched outside an ordered operation: the public function must open one (Context::op) over its buffers"
        );
        ctx.count_launch();
        match ctx.backend() {
            $crate::Backend::Cuda => {
                // The values live until the end of this block; cuLaunchKernel
                // copies them.
                let values: &[&dyn $crate::launch::ParamPtr] = &[$(&(&$arg).dev()),+];
                let mut ptrs: Vec<*mut std::ffi::c_void> =
                    values.iter().map(|v| $crate::launch::ParamPtr::param_ptr(*v)).collect();
                ctx.launch_cuda(name, cfg, &mut ptrs)
            }
            $crate::Backend::Emulator => {
                let spec = ferrotile_kernels::arch::emu::LaunchSpec {
                    kernel: name,
                    grid: cfg.grid.into(),
                    block: cfg.block.into(),
                    shared_bytes: cfg.shared_bytes as usize,
                    dependent: cfg.early_launch,
                    cluster: cfg.cluster,
                };
                let thread = || unsafe { $($kernel)::+($((&$arg).emu(stringify!($arg))),+) };
                ferrotile_kernels::arch::emu::launch(spec, &thread)
                    .map_err(|e| $crate::Error::Emulator { kernel: name, detail: e.to_string() })
            }
        }
    }};
}

/// `"kernels::sgemm::sgemm_naive"` → `"sgemm_naive"` (the PTX entry name).
pub(crate) const fn last_segment(path: &'static str) -> &'static str {
    let b = path.as_bytes();
    let mut i = b.len();
    while i > 0 {
        if b[i - 1] == b':' || b[i - 1] == b' ' {
            break;
        }
        i -= 1;
    }
    let (_, tail) = b.split_at(i);
    match std::str::from_utf8(tail) {
        Ok(s) => s,
        Err(_) => path,
    }
}
