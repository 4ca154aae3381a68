//! GEMM `C = α·op(A)·op(B) + β·C`, row-major with leading dimensions, and
//! the engines that compute it:
//!
//! * [`simt`]: the f32 ladder on CUDA cores (`sgemm_*` kernels);
//! * [`mma`]: tensor cores through `mma.sync` (sm_80 and later): bf16,
//!   f16 and tf32 inputs, f32 accumulation, batched, fused bias and
//!   activation;
//! * [`wgmma`]: Hopper's asynchronous warpgroup `mma` fed by TMA (sm_90a).
//!
//! `A` is `(m, k)` with leading dimension `lda`, `B` is `(k, n)` with `ldb`,
//! `C` is `(m, n)` with `ldc`.

pub mod index;
pub mod mma;
pub mod reduce;
pub mod simt;
pub mod wgmma;

use crate::arch::{fma, Global};
use crate::layout::Layout2;

/// The epilogue every rung uses: `C[o] = α·acc + β·C[o]`. With β = 0 the
/// old `C` is not read (BLAS semantics: NaN or garbage in `C` does not
/// propagate).
///
/// # Safety
/// `o` is inside `c`.
#[inline(always)]
pub unsafe fn write_c(p: &GemmParams, c: Global<f32>, o: usize, acc: f32) {
    let v = if p.beta == 0.0 { p.alpha * acc } else { fma(p.beta, unsafe { c.read(o) }, p.alpha * acc) };
    unsafe { c.write(o, v) }
}

/// The problem, passed by value to every SGEMM kernel (`#[repr(C)]`, the
/// same struct on host and device).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GemmParams {
    /// Rows of `A` and `C`.
    pub m: u32,
    /// Columns of `B` and `C`.
    pub n: u32,
    /// Columns of `A`, rows of `B`.
    pub k: u32,
    /// Leading dimension of `A` (≥ k).
    pub lda: u32,
    /// Leading dimension of `B` (≥ n).
    pub ldb: u32,
    /// Leading dimension of `C` (≥ n).
    pub ldc: u32,
    /// Scale of the product.
    pub alpha: f32,
    /// Scale of the old `C`.
    pub beta: f32,
}

impl GemmParams {
    /// Layout of `A`.
    #[inline(always)]
    pub const fn a(&self) -> Layout2 {
        Layout2::row_major_ld(self.m as usize, self.k as usize, self.lda as usize)
    }
    /// Layout of `B`.
    #[inline(always)]
    pub const fn b(&self) -> Layout2 {
        Layout2::row_major_ld(self.k as usize, self.n as usize, self.ldb as usize)
    }
    /// Layout of `C`.
    #[inline(always)]
    pub const fn c(&self) -> Layout2 {
        Layout2::row_major_ld(self.m as usize, self.n as usize, self.ldc as usize)
    }
    /// Elements a buffer must hold for `A`, `B` and `C` (the layouts' cosize).
    pub const fn required_lens(&self) -> [usize; 3] {
        [self.a().cosize(), self.b().cosize(), self.c().cosize()]
    }
    /// Layout of `op(A)`, the `(m, k)` operand, when `transposed`: `A` is
    /// stored as a row-major `(k, m)` matrix with leading dimension `lda`
    /// (≥ m) and read as its transpose. [`GemmParams::a`] otherwise.
    #[inline(always)]
    pub const fn a_op(&self, transposed: bool) -> Layout2 {
        if transposed { self.a_stored_t().transposed() } else { self.a() }
    }
    /// Layout of `A` as stored when it is stored transposed: a row-major
    /// `(k, m)` matrix with leading dimension `lda` (≥ m).
    #[inline(always)]
    pub const fn a_stored_t(&self) -> Layout2 {
        Layout2::row_major_ld(self.k as usize, self.m as usize, self.lda as usize)
    }
    /// Layout of `op(B)`, the `(k, n)` operand, when `transposed`: `B` is
    /// stored as a row-major `(n, k)` matrix with leading dimension `ldb`
    /// (≥ k). [`GemmParams::b`] otherwise.
    #[inline(always)]
    pub const fn b_op(&self, transposed: bool) -> Layout2 {
        if transposed { Layout2::row_major_ld(self.n as usize, self.k as usize, self.ldb as usize).transposed() } else { self.b() }
    }
    /// [`GemmParams::required_lens`] for operands stored transposed or not.
    pub const fn required_lens_op(&self, ta: bool, tb: bool) -> [usize; 3] {
        [self.a_op(ta).cosize(), self.b_op(tb).cosize(), self.c().cosize()]
    }
}
