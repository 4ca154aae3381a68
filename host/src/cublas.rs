//! cuBLAS SGEMM, the ceiling of the SGEMM ladder, loaded at run time.
//!
//! `libcublas` is opened with `dlopen` by cudarc (dynamic loading): it is
//! not a build or link dependency. When it cannot be found the functions
//! here return [`Error::LibraryMissing`] with `library` = [`CUBLAS`]
//! instead of letting cudarc panic.
//!
//! cuBLAS is column-major. A row-major `(m, n)` matrix with leading
//! dimension `ld` is the column-major `(n, m)` matrix `Xᵀ` with the same
//! `ld`, so the row-major `C = α·A·B + β·C` is the column-major
//! `Cᵀ = α·Bᵀ·Aᵀ + β·Cᵀ`: `cublasSgemm(N, N, n, m, k, α, B, ldb, A, lda, β,
//! C, ldc)`.

use std::sync::Arc;

use cudarc::cublas::{sys, CudaBlas};

use std::ffi::c_void;

use ferrotile_kernels::gemm::mma as k;

use crate::backend::Inner;
use crate::gemm::{Gemm, GemmElement};
use crate::{Buffer, Context, Error, Result};

/// The `library` of the [`Error::LibraryMissing`] returned when `libcublas`
/// cannot be loaded.
pub const CUBLAS: &str = "cuBLAS";

/// A cuBLAS handle bound to a context handle's stream (the default
/// stream, or the one of [`Context::on`]); create once, call
/// [`Cublas::sgemm`] many times (creating a handle costs milliseconds).
pub struct Cublas {
    blas: Arc<CudaBlas>,
    /// The context the handle was created on: calls on any other context
    /// (whose buffers cuBLAS would read as pointers of this one) are refused.
    owner: Arc<Inner>,
    /// The stream the handle enqueues on (its `CUstream`, as an address):
    /// calls through a handle of another stream are refused, since the
    /// buffers would be ordered on that stream.
    stream: usize,
}

impl std::fmt::Debug for Cublas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Cublas")
    }
}

impl Cublas {
    /// A handle on `ctx`'s stream, with cuBLAS's default math mode (true
    /// fp32 SGEMM: no TF32 tensor cores).
    ///
    /// Errors: [`Error::BadArgument`] `ctx` on the emulator;
    /// [`Error::LibraryMissing`] (`library` = [`CUBLAS`]) when the library
    /// is absent; [`Error::Driver`] with cuBLAS's message when it fails to
    /// initialise.
    pub fn new(ctx: &Context) -> Result<Cublas> {
        let Inner::Cuda(c) = &*ctx.inner else {
            return Err(Error::BadArgument { arg: "ctx", detail: "cuBLAS needs a CUDA context, not the emulator".into() });
        };
        // SAFETY: only probes whether the library can be opened.
        if !unsafe { sys::is_culib_present() } {
            return Err(Error::LibraryMissing {
                library: CUBLAS,
                detail: "libcublas.so could not be opened (install the CUDA toolkit's cuBLAS, or add its directory to LD_LIBRARY_PATH)".into(),
            });
        }
        let blas = CudaBlas::new(ctx.stream_of(c).clone())
            .map_err(|e| Error::Driver { op: "creating a cuBLAS handle", detail: e.to_string() })?;
        // SAFETY: the handle is valid; the mode is a valid enumerator.
        unsafe { sys::cublasSetMathMode(*blas.handle(), sys::cublasMath_t::CUBLAS_DEFAULT_MATH) }
            .result()
            .map_err(|e| Error::Driver { op: "setting the cuBLAS math mode", detail: e.to_string() })?;
        Ok(Cublas { blas: Arc::new(blas), owner: ctx.inner.clone(), stream: ctx.stream_of(c).cu_stream() as usize })
    }

    /// `C = α·A·B + β·C` in f32 (row-major, with `g`'s shape, leading
    /// dimensions, transposes, α and β; its variant is ignored), validated
    /// as [`Gemm::run`] does: [`Cublas::gemm`] for f32.
    ///
    /// Errors: as [`Gemm::run`], and [`Error::BadArgument`] `ctx` when `ctx`
    /// is not the context this handle was created on.
    pub fn sgemm(&self, ctx: &Context, g: &Gemm, a: &Buffer<f32>, b: &Buffer<f32>, c: &mut Buffer<f32>) -> Result<()> {
        self.gemm(ctx, g, a, b, c)
    }

    /// `C = α·op(A)·op(B) + β·C` with cuBLAS's best kernel for the types,
    /// the ceiling of ferrotile's GEMMs: f32 inputs with cuBLAS's default
    /// math (true f32: `cublasSgemm`-equivalent) or, with [`Gemm::tf32`],
    /// TF32 tensor cores (`CUBLAS_COMPUTE_32F_FAST_TF32`); bf16 and f16
    /// inputs with f32 accumulation (`CUBLAS_COMPUTE_32F`), output f32 or
    /// the input type; a batch through `cublasGemmStridedBatchedEx`. The
    /// problem is validated as [`Gemm::run`] does; a fused epilogue
    /// (activation or bias) is not cuBLAS's and is refused.
    ///
    /// Errors: as [`Gemm::run`]; [`Error::BadArgument`] `ctx` (another
    /// context than the handle's) or `activation`.
    pub fn gemm<I: GemmElement, O: GemmElement>(&self, ctx: &Context, g: &Gemm, a: &Buffer<I>, b: &Buffer<I>, c: &mut Buffer<O>) -> Result<()> {
        use sys::cublasComputeType_t as Compute;
        use sys::cudaDataType_t as D;
        self.check_context(ctx)?;
        let p = g.checked(ctx, a, b, c, None)?;
        if g.has_epilogue() {
            return Err(Error::BadArgument { arg: "activation", detail: "cuBLAS's GEMM has no fused activation; run it as a separate pass".into() });
        }
        let dtype = |kind: usize| match kind {
            k::F32 => D::CUDA_R_32F,
            k::BF16 => D::CUDA_R_16BF,
            _ => D::CUDA_R_16F,
        };
        let (tin, tout) = (dtype(I::KIND), dtype(O::KIND));
        if !matches!((I::KIND, O::KIND), (k::F32, k::F32) | (k::BF16, k::F32 | k::BF16) | (k::F16_KIND, k::F32 | k::F16_KIND)) {
            return Err(Error::BadArgument { arg: "c", detail: format!("{} output for {} inputs", O::NAME, I::NAME) });
        }
        let compute = if I::KIND == k::F32 && g.is_tf32() { Compute::CUBLAS_COMPUTE_32F_FAST_TF32 } else { Compute::CUBLAS_COMPUTE_32F };
        let int = |arg: &'static str, v: usize| -> Result<i32> {
            i32::try_from(v).map_err(|_| Error::BadArgument { arg, detail: format!("{v} does not fit cuBLAS's int") })
        };
        let q = &p.g;
        let (m, n, kk) = (int("m", q.m as usize)?, int("n", q.n as usize)?, int("k", q.k as usize)?);
        let (lda, ldb, ldc) = (int("lda", q.lda as usize)?, int("ldb", q.ldb as usize)?, int("ldc", q.ldc as usize)?);
        let batch = int("batch", p.batch)?;
        // Row-major C = op(A)·op(B) is column-major Cᵀ = op(B)ᵀ·op(A)ᵀ: B
        // first; a row-major operand read column-major is already its
        // transpose, so a transposed one needs OP_T.
        let op = |t: bool| if t { sys::cublasOperation_t::CUBLAS_OP_T } else { sys::cublasOperation_t::CUBLAS_OP_N };
        let (ta, tb) = g.transposes();
        let (alpha, beta) = (q.alpha, q.beta);
        let [sa, sb, sc] = p.strides.map(|s| s as i64);
        let _op = ctx.op(&[a.tracker(), b.tracker()], &[c.tracker()])?;
        let handle = *self.blas.handle();
        let (pa, pb, pc) = (a.device_ptr() as *const c_void, b.device_ptr() as *const c_void, c.device_ptr() as *mut c_void);
        let (alpha, beta) = (&alpha as *const f32 as *const c_void, &beta as *const f32 as *const c_void);
        // SAFETY: the buffers hold the elements their layouts reach over
        // the batch (checked above) and belong to the handle's context;
        // α and β live across the call (host pointer mode).
        if let Inner::Cuda(c) = &*ctx.inner {
            c.ctx.bind_to_thread().map_err(|e| Error::Driver { op: "making the context current", detail: e.to_string() })?;
        }
        ctx.count_launch();
        let status = unsafe {
            if batch == 1 {
                sys::cublasGemmEx(handle, op(tb), op(ta), n, m, kk, alpha, pb, tin, ldb, pa, tin, lda, beta, pc, tout, ldc, compute, sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT_TENSOR_OP)
            } else {
                sys::cublasGemmStridedBatchedEx(
                    handle, op(tb), op(ta), n, m, kk, alpha, pb, tin, ldb, sb, pa, tin, lda, sa, beta, pc, tout, ldc, sc, batch, compute,
                    sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT_TENSOR_OP,
                )
            }
        };
        status.result().map_err(|e| Error::Launch { kernel: if batch == 1 { "cublasGemmEx" } else { "cublasGemmStridedBatchedEx" }, detail: e.to_string() })
    }
}

impl Cublas {
    /// `ctx` must be the handle's own context: buffers are checked against
    /// `ctx`, so this makes them the handle's buffers too.
    fn check_context(&self, ctx: &Context) -> Result<()> {
        if !Arc::ptr_eq(&self.owner, &ctx.inner) {
            return Err(Error::BadArgument { arg: "ctx", detail: "the cuBLAS handle was created on another context".into() });
        }
        if ctx.cuda_stream().is_some_and(|s| s.cu_stream() as usize != self.stream) {
            return Err(Error::BadArgument {
                arg: "ctx",
                detail: "the cuBLAS handle enqueues on another stream than this handle's: create one with Cublas::new on this handle".into(),
            });
        }
        Ok(())
    }
}

/// One cuBLAS SGEMM on `ctx` (creates a handle per call; use [`Cublas`]
/// to time it). Errors as [`Cublas::new`] and [`Cublas::sgemm`].
pub fn cublas_sgemm(ctx: &Context, g: &Gemm, a: &Buffer<f32>, b: &Buffer<f32>, c: &mut Buffer<f32>) -> Result<()> {
    Cublas::new(ctx)?.sgemm(ctx, g, a, b, c)
}
