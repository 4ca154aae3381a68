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

use cudarc::cublas::{result, sys, CudaBlas};

use crate::backend::Inner;
use crate::gemm::Gemm;
use crate::{Buffer, Context, Error, Result};

/// The `library` of the [`Error::LibraryMissing`] returned when `libcublas`
/// cannot be loaded.
pub const CUBLAS: &str = "cuBLAS";

/// A cuBLAS handle bound to a context's stream; create once, call
/// [`Cublas::sgemm`] many times (creating a handle costs milliseconds).
pub struct Cublas {
    blas: Arc<CudaBlas>,
    /// The context the handle was created on: calls on any other context
    /// (whose buffers cuBLAS would read as pointers of this one) are refused.
    owner: Arc<Inner>,
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
        let blas = CudaBlas::new(c.stream.clone())
            .map_err(|e| Error::Driver { op: "creating a cuBLAS handle", detail: e.to_string() })?;
        // SAFETY: the handle is valid; the mode is a valid enumerator.
        unsafe { sys::cublasSetMathMode(*blas.handle(), sys::cublasMath_t::CUBLAS_DEFAULT_MATH) }
            .result()
            .map_err(|e| Error::Driver { op: "setting the cuBLAS math mode", detail: e.to_string() })?;
        Ok(Cublas { blas: Arc::new(blas), owner: ctx.inner.clone() })
    }

    /// `C = α·A·B + β·C` (row-major, with `g`'s shape, leading dimensions,
    /// α and β; its variant is ignored), validated as [`Gemm::run`] does.
    ///
    /// Errors: as [`Gemm::run`], and [`Error::BadArgument`] `ctx` when `ctx`
    /// is not the context this handle was created on.
    pub fn sgemm(&self, ctx: &Context, g: &Gemm, a: &Buffer<f32>, b: &Buffer<f32>, c: &mut Buffer<f32>) -> Result<()> {
        self.check_context(ctx)?;
        let p = g.checked(ctx, a, b, c)?;
        let int = |arg: &'static str, v: u32| -> Result<i32> {
            i32::try_from(v).map_err(|_| Error::BadArgument { arg, detail: format!("{v} does not fit cuBLAS's int") })
        };
        let (m, n, k) = (int("m", p.m)?, int("n", p.n)?, int("k", p.k)?);
        let (lda, ldb, ldc) = (int("lda", p.lda)?, int("ldb", p.ldb)?, int("ldc", p.ldc)?);
        // Row-major C = op(A)·op(B) is column-major Cᵀ = op(B)ᵀ·op(A)ᵀ: B
        // first; a row-major operand read column-major is already its
        // transpose, so a transposed one needs OP_T.
        let op = |t: bool| if t { sys::cublasOperation_t::CUBLAS_OP_T } else { sys::cublasOperation_t::CUBLAS_OP_N };
        let (ta, tb) = g.transposes();
        // SAFETY: the buffers hold the elements their layouts reach
        // (checked above) and live on the handle's stream's context.
        unsafe {
            result::sgemm(
                *self.blas.handle(),
                op(tb),
                op(ta),
                n,
                m,
                k,
                &p.alpha,
                b.device_ptr() as *const f32,
                ldb,
                a.device_ptr() as *const f32,
                lda,
                &p.beta,
                c.device_ptr() as *mut f32,
                ldc,
            )
        }
        .map_err(|e| Error::Launch { kernel: "cublasSgemm", detail: e.to_string() })
    }
}

impl Cublas {
    /// `ctx` must be the handle's own context: buffers are checked against
    /// `ctx`, so this makes them the handle's buffers too.
    fn check_context(&self, ctx: &Context) -> Result<()> {
        if Arc::ptr_eq(&self.owner, &ctx.inner) {
            Ok(())
        } else {
            Err(Error::BadArgument { arg: "ctx", detail: "the cuBLAS handle was created on another context".into() })
        }
    }
}

/// One cuBLAS SGEMM on `ctx` (creates a handle per call; use [`Cublas`]
/// to time it). Errors as [`Cublas::new`] and [`Cublas::sgemm`].
pub fn cublas_sgemm(ctx: &Context, g: &Gemm, a: &Buffer<f32>, b: &Buffer<f32>, c: &mut Buffer<f32>) -> Result<()> {
    Cublas::new(ctx)?.sgemm(ctx, g, a, b, c)
}
