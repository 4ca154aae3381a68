//! SGEMM `C = α·A·B + β·C`, f32, row-major with leading dimensions.
//!
//! ```no_run
//! use ferrotile::gemm::{Gemm, GemmVariant};
//! # fn main() -> ferrotile::Result<()> {
//! let ctx = ferrotile::Context::auto();
//! let (m, n, k) = (256, 128, 64);
//! let a = ctx.upload(&vec![1.0f32; m * k])?;
//! let b = ctx.upload(&vec![1.0f32; k * n])?;
//! let mut c = ctx.alloc::<f32>(m * n)?;
//! // Buffers are borrowed, so the same ones serve every call.
//! let g = Gemm::new(m, n, k).alpha(2.0);
//! g.run(&ctx, &a, &b, &mut c)?;
//! g.variant(GemmVariant::Naive).beta(1.0).run(&ctx, &a, &b, &mut c)?;
//! # Ok(()) }
//! ```

use ferrotile_kernels as k;
pub use ferrotile_kernels::gemm::simt::{StageConfig, WarpConfig};
#[cfg(ferrotile_experiments)]
pub use ferrotile_kernels::gemm::simt::StageTConfig;
use ferrotile_kernels::gemm::simt::{GemmParams, Tiling};

use crate::launch::At;
use crate::{check, Buffer, Context, Error, LaunchConfig, Result};

/// The rungs of the SGEMM ladder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GemmVariant {
    /// The fastest rung for the shape, from [`AUTO_TABLE`]; the scalar 2D
    /// blocktiled rung when a leading dimension is not a multiple of 4.
    Auto,
    /// 1. One thread per element, uncoalesced.
    Naive,
    /// 2. One thread per element, coalesced.
    Coalesced,
    /// 3. 32 × 32 shared-memory tiles.
    Shared,
    /// 4. 1D blocktiling (8 results per thread).
    Blocktile1d,
    /// 5. 2D blocktiling (8 × 8 per thread), scalar loads: any alignment.
    Blocktile2d,
    /// 6. float4 loads, `A` transposed in shared memory.
    Vectorized,
    /// 7a. Conflict-free by padding the `A` tile.
    Padded,
    /// 7b. Conflict-free by XOR swizzles.
    Swizzled,
    /// 8. Double-buffered main loop.
    DoubleBuffered,
    /// 9. Warptiling, in one of its configurations.
    Warptile(WarpConfig),
    /// 10. Multi-stage `cp.async` pipeline, in one of its configurations.
    Multistage(StageConfig),
    /// 10 (experiment). Rung 9's compute loop fed by a multi-stage
    /// pipeline that transposes `A` on its way to shared memory.
    #[cfg(ferrotile_experiments)]
    MultistageT(StageTConfig),
}

impl GemmVariant {
    /// Every concrete rung, in ladder order (warptiling in its default
    /// configuration).
    pub const LADDER: &'static [GemmVariant] = &[
        GemmVariant::Naive,
        GemmVariant::Coalesced,
        GemmVariant::Shared,
        GemmVariant::Blocktile1d,
        GemmVariant::Blocktile2d,
        GemmVariant::Vectorized,
        GemmVariant::Padded,
        GemmVariant::Swizzled,
        GemmVariant::DoubleBuffered,
        GemmVariant::Warptile(WarpConfig::B128x128x8W32x128Lb2),
    ];

    /// Every concrete rung and every warptile and multistage
    /// configuration.
    pub fn all() -> Vec<GemmVariant> {
        let mut v: Vec<GemmVariant> =
            Self::LADDER.iter().copied().filter(|v| !matches!(v, GemmVariant::Warptile(_) | GemmVariant::Multistage(_))).collect();
        v.extend(WarpConfig::ALL.iter().map(|&c| GemmVariant::Warptile(c)));
        v.extend(StageConfig::ALL.iter().map(|&c| GemmVariant::Multistage(c)));
        #[cfg(ferrotile_experiments)]
        v.extend(StageTConfig::ALL.iter().map(|&c| GemmVariant::MultistageT(c)));
        v
    }

    /// The kernel's name.
    pub fn name(self) -> &'static str {
        match self {
            GemmVariant::Auto => "auto",
            GemmVariant::Naive => "sgemm_naive",
            GemmVariant::Coalesced => "sgemm_coalesced",
            GemmVariant::Shared => "sgemm_shared",
            GemmVariant::Blocktile1d => "sgemm_blocktile_1d",
            GemmVariant::Blocktile2d => "sgemm_blocktile_2d",
            GemmVariant::Vectorized => "sgemm_vectorized",
            GemmVariant::Padded => "sgemm_padded",
            GemmVariant::Swizzled => "sgemm_swizzled",
            GemmVariant::DoubleBuffered => "sgemm_double_buffered",
            GemmVariant::Warptile(c) => c.name(),
            GemmVariant::Multistage(c) => c.name(),
            #[cfg(ferrotile_experiments)]
            GemmVariant::MultistageT(c) => c.name(),
        }
    }

    /// The float4 engine's tiling, for rungs 6–9.
    pub const fn tiling(self) -> Option<Tiling> {
        use k::gemm::simt::*;
        match self {
            GemmVariant::Vectorized => Some(VECTORIZED),
            GemmVariant::Padded => Some(PADDED_TILES),
            GemmVariant::Swizzled => Some(SWIZZLED_TILES),
            GemmVariant::DoubleBuffered => Some(DOUBLE_BUFFERED),
            GemmVariant::Warptile(c) => Some(c.config()),
            _ => None,
        }
    }

    /// Threads per block and dynamic shared bytes of the float4 rungs.
    pub const fn block_resources(self) -> Option<(u32, u32)> {
        match (self.tiling(), self) {
            (Some(t), _) => Some((t.threads() as u32, t.shared_bytes())),
            (_, GemmVariant::Multistage(c)) => Some((c.config().threads() as u32, c.config().shared_bytes())),
            #[cfg(ferrotile_experiments)]
            (_, GemmVariant::MultistageT(c)) => Some((c.config().threads() as u32, c.config().shared_bytes())),
            _ => None,
        }
    }

    /// Whether the rung loads and stores float4s (then `lda`, `ldb`, `ldc`
    /// must be multiples of 4; rung 10's 16-byte `cp.async` too).
    pub const fn needs_float4(self) -> bool {
        self.block_resources().is_some()
    }
}

/// One measured point of the autotune table: at about this shape, this
/// rung was the fastest.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AutoEntry {
    /// Rows of C.
    pub m: usize,
    /// Columns of C.
    pub n: usize,
    /// Inner dimension.
    pub k: usize,
    /// The fastest rung measured there.
    pub variant: GemmVariant,
}

/// What [`GemmVariant::Auto`] picks from: the entry nearest to the problem
/// (distance: sum of |log2| ratios of m, n, k). Regenerate on a GPU with
/// `FERROTILE_AUTOTUNE=1 cargo bench --bench sgemm`, which prints this
/// table. Measured on an NVIDIA H100 80GB HBM3 (driver 580.159.04,
/// 2026-11-22): the fastest float4 rung or configuration at each shape.
pub const AUTO_TABLE: &[AutoEntry] = &[
    AutoEntry { m: 128, n: 128, k: 128, variant: GemmVariant::Warptile(WarpConfig::B64x64x16W32x32) },
    AutoEntry { m: 512, n: 512, k: 512, variant: GemmVariant::Warptile(WarpConfig::B64x64x16W32x32) },
    AutoEntry { m: 1024, n: 1024, k: 1024, variant: GemmVariant::Warptile(WarpConfig::B64x128x16W32x64Lb3) },
    AutoEntry { m: 2048, n: 2048, k: 2048, variant: GemmVariant::Warptile(WarpConfig::B128x128x8W32x128Lb2) },
    AutoEntry { m: 4096, n: 4096, k: 4096, variant: GemmVariant::Warptile(WarpConfig::B128x128x8W32x128Lb2) },
    AutoEntry { m: 8192, n: 8192, k: 8192, variant: GemmVariant::Warptile(WarpConfig::B128x128x8W32x128Lb2) },
    AutoEntry { m: 4096, n: 1024, k: 8192, variant: GemmVariant::Warptile(WarpConfig::B128x128x8W32x128Lb2) },
    AutoEntry { m: 1000, n: 1000, k: 1000, variant: GemmVariant::Warptile(WarpConfig::B128x64x8W64x32Lb3) },
    AutoEntry { m: 256, n: 4096, k: 4096, variant: GemmVariant::Warptile(WarpConfig::B64x64x16W32x32) },
    AutoEntry { m: 4096, n: 256, k: 4096, variant: GemmVariant::Warptile(WarpConfig::B64x64x16W32x32) },
];

/// The rung `table` holds for the entry nearest to `(m, n, k)`; the
/// scalar 2D blocktiled rung when `float4` is false (a leading dimension
/// is not a multiple of 4) or the table is empty.
pub fn pick(table: &[AutoEntry], m: usize, n: usize, k: usize, float4: bool) -> GemmVariant {
    if !float4 {
        return GemmVariant::Blocktile2d;
    }
    let d = |x: usize, y: usize| ((x.max(1) as f64) / (y.max(1) as f64)).log2().abs();
    table
        .iter()
        .map(|e| (d(m, e.m) + d(n, e.n) + d(k, e.k), e.variant))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map_or(GemmVariant::Blocktile2d, |(_, v)| v)
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
    transpose_a: bool,
    transpose_b: bool,
    variant: GemmVariant,
}

impl Gemm {
    /// `C (m × n) = A (m × k) · B (k × n)`, α = 1, β = 0, packed rows.
    pub fn new(m: usize, n: usize, k: usize) -> Self {
        Gemm { m, n, k, lda: None, ldb: None, ldc: None, alpha: 1.0, beta: 0.0, transpose_a: false, transpose_b: false, variant: GemmVariant::Auto }
    }
    /// Scale of the product.
    pub fn alpha(mut self, alpha: f32) -> Self {
        self.alpha = alpha;
        self
    }
    /// Scale of the old C (0: C is not read).
    pub fn beta(mut self, beta: f32) -> Self {
        self.beta = beta;
        self
    }
    /// `op(A) = Aᵀ`: `A` is stored as a row-major `k × m` matrix (leading
    /// dimension ≥ m, default m) and `C = α·Aᵀ·op(B) + β·C`. Transposed
    /// operands run on rung 5 ([`GemmVariant::Blocktile2d`], scalar loads
    /// through the transposed layout); `Auto` picks it, and a float4 rung
    /// chosen explicitly is an error.
    pub fn transpose_a(mut self, yes: bool) -> Self {
        self.transpose_a = yes;
        self
    }
    /// `op(B) = Bᵀ`: `B` is stored as a row-major `n × k` matrix (leading
    /// dimension ≥ k, default k). See [`Gemm::transpose_a`].
    pub fn transpose_b(mut self, yes: bool) -> Self {
        self.transpose_b = yes;
        self
    }
    /// Leading dimension of A (default k, or m with [`Gemm::transpose_a`]).
    pub fn lda(mut self, lda: usize) -> Self {
        self.lda = Some(lda);
        self
    }
    /// Leading dimension of B (default n, or k with [`Gemm::transpose_b`]).
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
            lda: ld("lda", self.lda, if self.transpose_a { m } else { k })?,
            ldb: ld("ldb", self.ldb, if self.transpose_b { k } else { n })?,
            ldc: ld("ldc", self.ldc, n)?,
            alpha: self.alpha,
            beta: self.beta,
        };
        // Offsets are computed in usize on the device too; make sure the
        // largest one fits comfortably.
        if self.transpose_a {
            check::product("k * lda", &[self.k, p.lda as usize])?;
        } else {
            check::product("m * lda", &[self.m, p.lda as usize])?;
        }
        if self.transpose_b {
            check::product("n * ldb", &[self.n, p.ldb as usize])?;
        } else {
            check::product("k * ldb", &[self.k, p.ldb as usize])?;
        }
        check::product("m * ldc", &[self.m, p.ldc as usize])?;
        Ok(p)
    }

    /// The rung that runs: the chosen one, or for [`GemmVariant::Auto`] the
    /// table's pick.
    pub fn resolved_variant(&self) -> Result<GemmVariant> {
        Ok(self.variant_for(&self.params()?))
    }

    /// [`Gemm::resolved_variant`] for this builder's validated `p`.
    fn variant_for(&self, p: &GemmParams) -> GemmVariant {
        let transposed = self.transpose_a || self.transpose_b;
        match self.variant {
            GemmVariant::Auto if transposed => GemmVariant::Blocktile2d,
            GemmVariant::Auto => pick(AUTO_TABLE, self.m, self.n, self.k, float4_ok(p)),
            v => v,
        }
    }

    /// Whether `op(A)` and `op(B)` are transposed ([`Gemm::transpose_a`],
    /// [`Gemm::transpose_b`]).
    pub fn transposes(&self) -> (bool, bool) {
        (self.transpose_a, self.transpose_b)
    }

    /// Elements `a`, `b` and `c` must hold (their stored layouts' extent).
    pub fn required_lens(&self) -> Result<[usize; 3]> {
        Ok(self.params()?.required_lens_op(self.transpose_a, self.transpose_b))
    }

    /// The validated parameters, once `a`, `b`, `c` are checked to hold
    /// [`Gemm::required_lens`] elements and to live on `ctx`'s backend (what
    /// [`Gemm::run`] and the cuBLAS ceiling both check before launching).
    pub(crate) fn checked(&self, ctx: &Context, a: &Buffer<f32>, b: &Buffer<f32>, c: &Buffer<f32>) -> Result<GemmParams> {
        let p = self.params()?;
        let [la, lb, lc] = p.required_lens_op(self.transpose_a, self.transpose_b);
        check::len_at_least("a", a, la)?;
        check::len_at_least("b", b, lb)?;
        check::len_at_least("c", c, lc)?;
        check::backend(ctx, &[("a", a.is_on(ctx)), ("b", b.is_on(ctx)), ("c", c.is_on(ctx))])?;
        Ok(p)
    }

    /// Runs on `ctx`. `a`, `b`, `c` must hold at least the elements their
    /// layouts reach (`(rows - 1) * ld + cols`).
    ///
    /// Errors: [`Error::BadArgument`] naming `m`/`n`/`k` (zero or too big),
    /// `lda`/`ldb`/`ldc` (shorter than a row, or not a multiple of 4 for a
    /// float4 rung chosen explicitly), `variant` (a rung other than
    /// Blocktile2d with transposed operands), or a buffer of another
    /// backend; [`Error::LengthMismatch`] naming a buffer that is too short.
    pub fn run(&self, ctx: &Context, a: &Buffer<f32>, b: &Buffer<f32>, c: &mut Buffer<f32>) -> Result<()> {
        let p = self.checked(ctx, a, b, c)?;
        let v = self.variant_for(&p);
        let transposes = self.transposes();
        if transposes != (false, false) && v != GemmVariant::Blocktile2d {
            return Err(Error::BadArgument {
                arg: "variant",
                detail: format!("`{}` reads row-major operands; transposed operands run on Blocktile2d (or Auto)", v.name()),
            });
        }
        if v.needs_float4() {
            for (arg, ld) in [("lda", p.lda), ("ldb", p.ldb), ("ldc", p.ldc)] {
                if ld % 4 != 0 {
                    return Err(Error::BadArgument {
                        arg,
                        detail: format!("{ld} is not a multiple of 4, which `{}` (float4 loads) needs; use Auto or Blocktile2d", v.name()),
                    });
                }
            }
        }
        launch_variant(ctx, v, transposes, &p, a, b, c)
    }
}

/// Whether the float4 rungs apply: every leading dimension a multiple of 4
/// (buffers are whole allocations, 256-byte aligned on the device).
fn float4_ok(p: &GemmParams) -> bool {
    p.lda % 4 == 0 && p.ldb % 4 == 0 && p.ldc % 4 == 0
}

impl GemmVariant {
    /// The launch geometry of rung `v` for `p` (computed in `kernels`).
    pub fn launch_config(self, p: &GemmParams) -> LaunchConfig {
        use k::gemm::simt as s;
        match self {
            GemmVariant::Auto => unreachable!("Auto is resolved before launching"),
            GemmVariant::Naive => s::naive_config(p),
            GemmVariant::Coalesced => s::coalesced_config(p),
            GemmVariant::Shared => s::shared_config(p),
            GemmVariant::Blocktile1d => s::blocktile_1d_config(p),
            GemmVariant::Blocktile2d => s::blocktile_2d_config(p),
            GemmVariant::Multistage(w) => w.config().config(p),
            #[cfg(ferrotile_experiments)]
            GemmVariant::MultistageT(w) => w.config().config(p),
            v => v.tiling().expect("the remaining rungs are float4 tilings").config(p),
        }
    }
}

/// One sub-problem of a GEMM whose launch grid would exceed the device
/// limits: rows `m0..m0 + m` and columns `n0..n0 + n` of `C`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GemmChunk {
    /// First row of `C`.
    pub m0: usize,
    /// First column of `C`.
    pub n0: usize,
    /// Rows.
    pub m: u32,
    /// Columns.
    pub n: u32,
}

/// Chunks are multiples of this many rows and columns, so that every block
/// tile of a chunk is one of the whole problem's tiles (all tile sides
/// divide it) and float4 offsets stay 16-byte aligned.
const CHUNK_ALIGN: u32 = 256;

/// Splits `p`'s `C` into the fewest row/column chunks whose launch grids
/// (from `config`) fit `max_grid` (`[x, y]` blocks): one chunk, the whole
/// problem, whenever it fits. Each chunk is an independent GEMM over the
/// same `k`; together they cover every element of `C` once.
pub fn plan_chunks(p: &GemmParams, config: impl Fn(&GemmParams) -> LaunchConfig, max_grid: [u32; 2]) -> Vec<GemmChunk> {
    let grid = |cm: u32, cn: u32| config(&GemmParams { m: cm, n: cn, ..*p }).grid;
    let halve = |x: u32| x.div_ceil(2).next_multiple_of(CHUNK_ALIGN);
    let (mut cm, mut cn) = (p.m, p.n);
    loop {
        let g = grid(cm, cn);
        let over = [g[0] > max_grid[0], g[1] > max_grid[1]];
        let Some(d) = over.iter().position(|&o| o) else { break };
        // Halve the side that shrinks the grid dimension over its limit.
        if cm > CHUNK_ALIGN && grid(halve(cm), cn)[d] < g[d] {
            cm = halve(cm);
        } else if cn > CHUNK_ALIGN && grid(cm, halve(cn))[d] < g[d] {
            cn = halve(cn);
        } else {
            break; // not reached on a real device: a 256 × 256 chunk fits
        }
    }
    let mut chunks = Vec::new();
    for m0 in (0..p.m).step_by(cm as usize) {
        for n0 in (0..p.n).step_by(cn as usize) {
            chunks.push(GemmChunk { m0: m0 as usize, n0: n0 as usize, m: cm.min(p.m - m0), n: cn.min(p.n - n0) });
        }
    }
    chunks
}

/// Launches rung `v` on `p`, in chunks when one grid would exceed the
/// launch limits (see [`plan_chunks`]); `(ta, tb)`: whether `A`, `B` are
/// stored transposed (only rung 5 has kernels for that; [`Gemm::run`]
/// checked it).
fn launch_variant(
    ctx: &Context,
    v: GemmVariant,
    (ta, tb): (bool, bool),
    p: &GemmParams,
    a: &Buffer<f32>,
    b: &Buffer<f32>,
    c: &mut Buffer<f32>,
) -> Result<()> {
    use k::launch::{MAX_GRID_X, MAX_GRID_YZ};
    for ch in plan_chunks(p, |q| v.launch_config(q), [MAX_GRID_X, MAX_GRID_YZ]) {
        let q = GemmParams { m: ch.m, n: ch.n, ..*p };
        // op(A)'s row m0 and op(B)'s column n0, in the stored layouts.
        let a_off = if ta { ch.m0 } else { ch.m0 * p.lda as usize };
        let b_off = if tb { ch.n0 * p.ldb as usize } else { ch.n0 };
        let c_off = ch.m0 * p.ldc as usize + ch.n0;
        launch_chunk(ctx, v, (ta, tb), q, At::new(a, a_off), At::new(b, b_off), At::new(c, c_off))?;
    }
    Ok(())
}

/// A table-declared family of f32 GEMM kernels (rung 9's and rung 10's
/// configurations) that can launch itself.
trait SimtLaunch {
    /// Launches the kernel of this configuration on `p`.
    fn launch(self, ctx: &Context, cfg: LaunchConfig, p: GemmParams, a: At<f32>, b: At<f32>, c: At<f32>) -> Result<()>;
}

/// One `launch!` arm per row of a kernels-crate variant table (see
/// `ferrotile_kernels::variants`).
macro_rules! simt_launcher {
    (
        $(#[$emeta:meta])* pub enum $Enum:ident: $Cfg:ty;
        $( $(#[$doc:meta])* [$gate:meta] $V:ident => $kernel:ident = $define:ident!($cfg:path), bounds $lb:literal; )*
    ) => {
        impl SimtLaunch for $Enum {
            fn launch(self, ctx: &Context, cfg: LaunchConfig, p: GemmParams, a: At<f32>, b: At<f32>, c: At<f32>) -> Result<()> {
                match self {
                    $( #[$gate] $Enum::$V => launch!(ctx, ferrotile_kernels::gemm::simt::$kernel, cfg, p, a, b, c), )*
                }
            }
        }
    };
}
ferrotile_kernels::simt_warptile_table!(simt_launcher);
ferrotile_kernels::simt_multistage_table!(simt_launcher);
#[cfg(ferrotile_experiments)]
ferrotile_kernels::simt_multistage_t_table!(simt_launcher);

/// Launches rung `v` on one (sub-)problem `p` whose operands start at `a`,
/// `b`, `c`.
fn launch_chunk(ctx: &Context, v: GemmVariant, (ta, tb): (bool, bool), p: GemmParams, a: At<f32>, b: At<f32>, c: At<f32>) -> Result<()> {
    let cfg = v.launch_config(&p);
    match v {
        GemmVariant::Auto => unreachable!("Auto is resolved before launching"),
        GemmVariant::Naive => launch!(ctx, k::gemm::simt::sgemm_naive, cfg, p, a, b, c),
        GemmVariant::Coalesced => launch!(ctx, k::gemm::simt::sgemm_coalesced, cfg, p, a, b, c),
        GemmVariant::Shared => launch!(ctx, k::gemm::simt::sgemm_shared, cfg, p, a, b, c),
        GemmVariant::Blocktile1d => launch!(ctx, k::gemm::simt::sgemm_blocktile_1d, cfg, p, a, b, c),
        GemmVariant::Blocktile2d => match (ta, tb) {
            (false, false) => launch!(ctx, k::gemm::simt::sgemm_blocktile_2d, cfg, p, a, b, c),
            (true, false) => launch!(ctx, k::gemm::simt::sgemm_blocktile_2d_ta, cfg, p, a, b, c),
            (false, true) => launch!(ctx, k::gemm::simt::sgemm_blocktile_2d_tb, cfg, p, a, b, c),
            (true, true) => launch!(ctx, k::gemm::simt::sgemm_blocktile_2d_tatb, cfg, p, a, b, c),
        },
        GemmVariant::Vectorized => launch!(ctx, k::gemm::simt::sgemm_vectorized, cfg, p, a, b, c),
        GemmVariant::Padded => launch!(ctx, k::gemm::simt::sgemm_padded, cfg, p, a, b, c),
        GemmVariant::Swizzled => launch!(ctx, k::gemm::simt::sgemm_swizzled, cfg, p, a, b, c),
        GemmVariant::DoubleBuffered => launch!(ctx, k::gemm::simt::sgemm_double_buffered, cfg, p, a, b, c),
        GemmVariant::Warptile(w) => w.launch(ctx, cfg, p, a, b, c),
        GemmVariant::Multistage(w) => w.launch(ctx, cfg, p, a, b, c),
        #[cfg(ferrotile_experiments)]
        GemmVariant::MultistageT(w) => w.launch(ctx, cfg, p, a, b, c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_tilings_valid() {
        let all = GemmVariant::all();
        let mut names: Vec<_> = all.iter().map(|v| v.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len());
        for v in all {
            if let Some(t) = v.tiling() {
                assert!(t.validate(), "{v:?}");
            }
            if let GemmVariant::Multistage(c) = v {
                assert!(c.config().validate(), "{v:?}");
            }
        }
    }

    #[test]
    fn launch_bounds_match_the_launched_block_size() {
        for b in k::gemm::simt::LAUNCH_BOUNDS {
            let v = GemmVariant::all().into_iter().find(|v| v.name() == b.kernel);
            let v = v.unwrap_or_else(|| panic!("{} has launch bounds but no variant", b.kernel));
            let (threads, shared) = v.block_resources().expect("bounded kernels are float4 rungs");
            assert_eq!(threads, b.max_threads, "{}", b.kernel);
            // The bounds must leave room for the shared memory too (228 KiB
            // per SM, 1 KiB of it reserved per block).
            assert!((shared + 1024) * b.min_blocks_per_sm <= 228 * 1024, "{}", b.kernel);
        }
    }

    /// Every element of `C` in exactly one chunk, every chunk's grid within
    /// `max`, chunk origins aligned.
    fn check_plan(p: &GemmParams, v: GemmVariant, max: [u32; 2]) -> Vec<GemmChunk> {
        let chunks = plan_chunks(p, |q| v.launch_config(q), max);
        let mut covered = 0u64;
        for ch in &chunks {
            let g = v.launch_config(&GemmParams { m: ch.m, n: ch.n, ..*p }).grid;
            assert!(g[0] <= max[0] && g[1] <= max[1], "{v:?} {ch:?}: grid {g:?} over {max:?}");
            assert!(ch.m0 % CHUNK_ALIGN as usize == 0 && ch.n0 % CHUNK_ALIGN as usize == 0, "{ch:?}");
            assert!(ch.m0 + ch.m as usize <= p.m as usize && ch.n0 + ch.n as usize <= p.n as usize, "{ch:?}");
            covered += ch.m as u64 * ch.n as u64;
        }
        // Disjoint and in bounds, so the areas add up only if they tile C.
        for (i, x) in chunks.iter().enumerate() {
            for y in &chunks[..i] {
                let rows = x.m0 < y.m0 + y.m as usize && y.m0 < x.m0 + x.m as usize;
                let cols = x.n0 < y.n0 + y.n as usize && y.n0 < x.n0 + x.n as usize;
                assert!(!(rows && cols), "{x:?} overlaps {y:?}");
            }
        }
        assert_eq!(covered, p.m as u64 * p.n as u64);
        chunks
    }

    proptest::proptest! {
        #[test]
        fn chunk_plans_tile_c_and_fit(m in 1u32..5000, n in 1u32..5000, gy in 1u32..60, gx in 1u32..60, vi in 0usize..8) {
            let v = [
                GemmVariant::Naive,
                GemmVariant::Coalesced,
                GemmVariant::Shared,
                GemmVariant::Blocktile2d,
                GemmVariant::Vectorized,
                GemmVariant::Warptile(WarpConfig::B128x128x8W32x128Lb2),
                GemmVariant::Warptile(WarpConfig::B64x64x16W32x32),
                GemmVariant::Multistage(StageConfig::B256x128x8S3),
            ][vi];
            let p = GemmParams { m, n, k: 8, lda: 8, ldb: n, ldc: n, alpha: 1.0, beta: 0.0 };
            // Limits small enough to force chunks, large enough for one
            // 256 × 256 chunk (no block tile side is below 8).
            let max = [gx.max(32), gy.max(32)];
            check_plan(&p, v, max);
        }
    }

    #[test]
    fn chunking_only_when_the_grid_is_over_the_limit() {
        let v = GemmVariant::Warptile(WarpConfig::B128x128x8W32x128Lb2);
        let p = GemmParams { m: 4096, n: 4096, k: 8, lda: 8, ldb: 4096, ldc: 4096, alpha: 1.0, beta: 0.0 };
        assert_eq!(check_plan(&p, v, [k::launch::MAX_GRID_X, k::launch::MAX_GRID_YZ]).len(), 1);
        // Millions of rows: 9 M / 128 = 70 313 block rows > 65 535.
        let tall = GemmParams { m: 9_000_000, n: 4, k: 4, lda: 4, ldb: 4, ldc: 4, alpha: 1.0, beta: 0.0 };
        assert_eq!(check_plan(&tall, v, [k::launch::MAX_GRID_X, k::launch::MAX_GRID_YZ]).len(), 2);
        // The naive rung puts n on grid y: it is n that gets split.
        let wide = GemmParams { m: 4, n: 3_000_000, k: 4, lda: 4, ldb: 3_000_000, ldc: 3_000_000, alpha: 1.0, beta: 0.0 };
        let chunks = check_plan(&wide, GemmVariant::Naive, [k::launch::MAX_GRID_X, k::launch::MAX_GRID_YZ]);
        assert!(chunks.len() > 1 && chunks.iter().all(|c| c.m == 4), "{chunks:?}");
    }

    #[test]
    fn auto_picks_the_nearest_entry_and_falls_back_without_float4() {
        assert_eq!(pick(AUTO_TABLE, 4000, 4100, 4096, true), GemmVariant::Warptile(WarpConfig::B128x128x8W32x128Lb2));
        assert_eq!(pick(AUTO_TABLE, 4000, 4100, 4096, false), GemmVariant::Blocktile2d);
        assert_eq!(pick(&[], 7, 7, 7, true), GemmVariant::Blocktile2d);
        let g = Gemm::new(64, 64, 64).lda(65);
        assert_eq!(g.resolved_variant().unwrap(), GemmVariant::Blocktile2d);
    }
}
