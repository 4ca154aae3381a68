//! SGEMM `C = α·A·B + β·C`, f32, row-major with leading dimensions.

use ferrotile_kernels as k;
use ferrotile_kernels::sgemm::GemmParams;

use crate::{check, Buffer, Context, Error, Result};

/// The rungs of the SGEMM ladder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GemmVariant {
    /// The fastest rung that applies to the shape.
    Auto,
    /// One thread per element, uncoalesced.
    Naive,
}

impl GemmVariant {
    /// Every concrete rung, in ladder order.
    pub const LADDER: &'static [GemmVariant] = &[GemmVariant::Naive];

    /// The kernel's name.
    pub fn name(self) -> &'static str {
        match self {
            GemmVariant::Auto => "auto",
            GemmVariant::Naive => "sgemm_naive",
        }
    }
}

/// An SGEMM problem; a builder: `Gemm::new(m, n, k).alpha(2.0).run(…)`.
#[derive(Clone, Copy, Debug)]
pub struct Gemm {
    m: usize,
    n: usize,
    k: usize,
    lda: Option<usize>,
    ldb: Option<usize>,
    ldc: Option<usize>,
    alpha: f32,
    beta: f32,
    variant: GemmVariant,
}

impl Gemm {
    /// `C (m × n) = A (m × k) · B (k × n)`, α = 1, β = 0, packed rows.
    pub fn new(m: usize, n: usize, k: usize) -> Self {
        Gemm { m, n, k, lda: None, ldb: None, ldc: None, alpha: 1.0, beta: 0.0, variant: GemmVariant::Auto }
    }
    /// Scale of the product.
    pub fn alpha(mut self, alpha: f32) -> Self {
        self.alpha = alpha;
        self
    }
    /// Scale of the old C.
    pub fn beta(mut self, beta: f32) -> Self {
        self.beta = beta;
        self
    }
    /// Leading dimension of A (default k).
    pub fn lda(mut self, lda: usize) -> Self {
        self.lda = Some(lda);
        self
    }
    /// Leading dimension of B (default n).
    pub fn ldb(mut self, ldb: usize) -> Self {
        self.ldb = Some(ldb);
        self
    }
    /// Leading dimension of C (default n).
    pub fn ldc(mut self, ldc: usize) -> Self {
        self.ldc = Some(ldc);
        self
    }
    /// Picks a rung (default [`GemmVariant::Auto`]).
    pub fn variant(mut self, v: GemmVariant) -> Self {
        self.variant = v;
        self
    }

    /// The validated kernel parameters.
    pub fn params(&self) -> Result<GemmParams> {
        let m = check::dim("m", self.m)?;
        let n = check::dim("n", self.n)?;
        let k = check::dim("k", self.k)?;
        let ld = |arg: &'static str, v: Option<usize>, min: u32| -> Result<u32> {
            let v = v.unwrap_or(min as usize);
            if v < min as usize {
                return Err(Error::BadArgument { arg, detail: format!("{v} is less than the row length {min}") });
            }
            check::dim(arg, v)
        };
        let p = GemmParams {
            m,
            n,
            k,
            lda: ld("lda", self.lda, k)?,
            ldb: ld("ldb", self.ldb, n)?,
            ldc: ld("ldc", self.ldc, n)?,
            alpha: self.alpha,
            beta: self.beta,
        };
        // Offsets are computed in usize on the device too; make sure the
        // largest one fits comfortably.
        check::product("m * lda", &[self.m, p.lda as usize])?;
        check::product("k * ldb", &[self.k, p.ldb as usize])?;
        check::product("m * ldc", &[self.m, p.ldc as usize])?;
        Ok(p)
    }

    /// Runs on `ctx`. `a`, `b`, `c` must hold at least the elements their
    /// layouts reach (`(rows - 1) * ld + cols`).
    pub fn run(&self, ctx: &Context, a: &Buffer<f32>, b: &Buffer<f32>, c: &mut Buffer<f32>) -> Result<()> {
        let p = self.params()?;
        let [la, lb, lc] = p.required_lens();
        check::len_at_least("a", a, la)?;
        check::len_at_least("b", b, lb)?;
        check::len_at_least("c", c, lc)?;
        check::backend(ctx, &[("a", a.is_on(ctx)), ("b", b.is_on(ctx)), ("c", c.is_on(ctx))])?;
        match self.variant {
            GemmVariant::Auto | GemmVariant::Naive => {
                launch!(ctx, k::sgemm::sgemm_naive, k::sgemm::naive_config(&p), p, a, b, c)
            }
        }
    }
}
