//! GEMM `C = act(α·op(A)·op(B) + β·C + bias)`, row-major with leading
//! dimensions, batched, on CUDA cores (the f32 ladder) or tensor cores
//! (bf16, f16, and f32 inputs as tf32).
//!
//! ```
//! use ferrotile::gemm::{Gemm, GemmVariant};
//! # fn main() -> ferrotile::Result<()> {
//! let ctx = ferrotile::Context::emulator(); // or Context::auto()
//! let (m, n, k) = (48, 40, 24);
//! let a = ctx.upload(&vec![1.0f32; m * k])?;
//! let b = ctx.upload(&vec![0.5f32; k * n])?;
//! let mut c = ctx.alloc::<f32>(m * n)?;
//! // Buffers are borrowed, so the same ones serve every call.
//! let g = Gemm::new(m, n, k).alpha(2.0);
//! g.run(&ctx, &a, &b, &mut c)?;
//! assert_eq!(c.download()?[0], 24.0);
//! g.variant(GemmVariant::Naive).beta(1.0).run(&ctx, &a, &b, &mut c)?;
//! assert_eq!(c.download()?[0], 48.0);
//!
//! // bf16 inputs, f32 output, on the tensor cores; a batch of 3 products.
//! use half::bf16;
//! let a16 = ctx.upload(&vec![bf16::from_f32(1.0); 3 * m * k])?;
//! let b16 = ctx.upload(&vec![bf16::from_f32(0.5); 3 * k * n])?;
//! let mut c32 = ctx.alloc::<f32>(3 * m * n)?;
//! Gemm::new(m, n, k).batch(3).run(&ctx, &a16, &b16, &mut c32)?;
//! assert!(c32.download()?.iter().all(|&x| x == 12.0));
//! # Ok(()) }
//! ```
//!
//! Types: `a` and `b` are `f32`, [`half::bf16`] or [`half::f16`]; `c` is
//! `f32` or the input type. f32 × f32 runs on the f32 ladder, or on the
//! tensor cores as tf32 with [`Gemm::tf32`] (on a Hopper GPU the wgmma
//! engine, which reads tf32 operands k-major from shared memory as they
//! are: both operands are first copied rounded to tf32, `A` transposed
//! when stored `k × m`, `B` when stored `k × n`; the copies come from the
//! context's memory pool).
//!
//! # What `Auto` runs for f32 (the f32 ladder)
//!
//! Every shape and layout runs on a float4 rung (rung 9's warp tiles);
//! what that rung cannot read as stored is staged first, and products
//! with too few block tiles are split along `k`:
//!
//! | the problem | what runs |
//! | --- | --- |
//! | any `m × n × k` | the rung of [`AUTO_TABLE`] nearest to the shape ([`pick`]), or where its blocks fit one wave another bounded rung of the table estimated 10 % faster ([`auto_variant`]); blocks on the edge of `C` run the same unpredicated loop as interior ones (clamped reads), only the `k` tail is predicated |
//! | `A` stored transposed, its rows and `C`'s a multiple of 4 apart, neither split nor peeled below | the rung's twin that reads `A` as stored ([`WarpTConfig`], [`Gemm::transposed_twin_on`]); a transposed `B` copied as in the next row |
//! | `A` and/or `B` stored transposed (otherwise) | a packed row-major copy made by the transpose kernels (one matrix, rows of a multiple of 4) or the staging copy (otherwise), then as above |
//! | `k`, `lda`, `ldb` or a batch stride not a multiple of 4 | that operand staged into rows of a multiple of 4, then as above |
//! | `ldc` not a multiple of 4 | the epilogue stores scalars |
//! | `ldc` a multiple of 4, `C`'s batch stride not | computed into a packed copy of `C` (holding `C` when β ≠ 0), copied back |
//! | one matrix whose rows or columns past the last whole tile are a thin remainder (at most an eighth of the tile) whose blocks cost at least a tenth of the waves (4097³, 2049³ on 128 × 128 tiles) | the bulk of whole tiles on the rung, the remaining rows and columns as thin products of their own, split along `k` where Auto would split them ([`peel_plan`], [`Gemm::peel_edges`]) |
//! | one matrix whose 64 × 64 tiles of `C` are fewer than the GPU's multiprocessors, `k` ≥ 512 (skinny: `m` or `n` of a few tiles; deep: small `m · n`, large `k`) | split-k ([`split_k_plan`]): a rung 9 tile (the least padding of `C` among those that give every SM a block) over slices of `k` filling one wave, into a workspace, then a reduction summing the slices in order (deterministic) with α, β |
//! | one matrix whose unsplit blocks fit in one uneven or thin wave (some SMs get a block more than others, or fewer than their launch bounds allow), `k` ≥ 512 | split-k where the estimated time ([`one_wave_cost`]) drops by at least [`SPLIT_K_MIN_GAIN`] |
//!
//! A rung chosen with [`Gemm::variant`] runs as chosen (no staging, no
//! split; a float4 rung refuses layouts it cannot read, rung 5 reads
//! transposed operands directly, a rung 9 tiling with a twin a transposed
//! `A`); [`Gemm::split_k`] forces or turns off
//! the split on the `Auto` path.

mod mma;
mod simt;
mod wgmma;

use std::any::Any;

use ferrotile_kernels as k;
#[cfg(ferrotile_experiments)]
pub use ferrotile_kernels::gemm::simt::StageTConfig;
use ferrotile_kernels::gemm::simt::Tiling;
pub use ferrotile_kernels::gemm::simt::{GemmParams, SplitConfig, StageConfig, WarpConfig, WarpTConfig};
pub use mma::MmaTile;
pub use wgmma::WgmmaTile;
pub use simt::{auto_variant, one_wave_cost, peel_plan, pick, plan_chunks, split_k_plan, split_k_slices, tile_rate, tiling_rate, AutoEntry, GemmChunk, AUTO_TABLE, BLOCK_OVERHEAD_DEPTH, PEEL_MAX_FRACTION, SPLIT_K_MIN_GAIN, TILE_RATES};

use crate::{check, Buffer, Context, Element, Error, Result};

/// Element types of GEMM operands and results: `f32`, [`half::bf16`],
/// [`half::f16`].
pub trait GemmElement: Element + sealed::Sealed {
    /// The kernels' kind of the type (`ferrotile_kernels::gemm::mma::F32`, `BF16`, `F16_KIND`).
    const KIND: usize;
    /// The type's name in messages.
    const NAME: &'static str;
}
impl GemmElement for f32 {
    const KIND: usize = k::gemm::mma::F32;
    const NAME: &'static str = "f32";
}
impl GemmElement for half::bf16 {
    const KIND: usize = k::gemm::mma::BF16;
    const NAME: &'static str = "bf16";
}
impl GemmElement for half::f16 {
    const KIND: usize = k::gemm::mma::F16_KIND;
    const NAME: &'static str = "f16";
}
mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for half::bf16 {}
    impl Sealed for half::f16 {}
}

/// The activation of the fused epilogue, applied last:
/// `C = act(α·op(A)·op(B) + β·C + bias)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Activation {
    /// None: `C = α·op(A)·op(B) + β·C + bias`.
    #[default]
    None,
    /// `max(x, 0)`.
    Relu,
    /// GELU with the tanh approximation,
    /// `x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³)))` (the form of GPT-2 and
    /// PyTorch's `gelu(approximate="tanh")`).
    GeluTanh,
}

impl Activation {
    /// The kernels' code of the activation.
    pub const fn code(self) -> u32 {
        match self {
            Activation::None => k::gemm::mma::ACT_NONE,
            Activation::Relu => k::gemm::mma::ACT_RELU,
            Activation::GeluTanh => k::gemm::mma::ACT_GELU_TANH,
        }
    }

    /// The activation of `x` in f64 (the references' definition).
    pub fn apply_f64(self, x: f64) -> f64 {
        match self {
            Activation::None => x,
            Activation::Relu => x.max(0.0),
            Activation::GeluTanh => 0.5 * x * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x * x * x)).tanh()),
        }
    }
}

/// The kernels a [`Gemm`] can run on: the f32 ladder's rungs (CUDA
/// cores) and the tensor-core tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GemmVariant {
    /// The fastest kernel for the shape and types: for f32, the ladder's
    /// rung from [`AUTO_TABLE`] on any layout (operands it cannot read
    /// staged, skinny and deep products split along `k`: the table in
    /// the [module docs](self)); for bf16, f16 and tf32 on a Hopper GPU
    /// (compute capability 9.0), the wgmma tile of the shortest estimated
    /// time (tf32 operands staged rounded and k-major first; products of
    /// at most 64 rows, and products of few tiles whose `128 × 128` tiles
    /// would be split in short parts of `k`, computed as `Cᵀ = Bᵀ·Aᵀ`,
    /// [`WgmmaTile::S64x128`], or at most 16 rows [`WgmmaTile::S16x128`]
    /// where it has a kernel); otherwise the tensor-core tile that suits
    /// the shape (`MmaTile`).
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
    /// Tensor cores (`mma.sync`): bf16, f16, or f32 as tf32, in one of the
    /// tile configurations.
    Mma(MmaTile),
    /// Hopper tensor cores (`wgmma` fed by TMA, sm_90a): bf16, f16, or f32
    /// as tf32, in one of the tile configurations; on a GPU of compute
    /// capability 9.0 (or the emulator).
    Wgmma(WgmmaTile),
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

    /// Every f32 rung and every warptile and multistage configuration (the
    /// tensor-core tiles are [`MmaTile::ALL`]).
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
            GemmVariant::Mma(t) => t.name(),
            GemmVariant::Wgmma(t) => t.name(),
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

/// A GEMM problem; a builder: `Gemm::new(m, n, k).alpha(2.0).run(…)`.
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
    batch: usize,
    strides: Option<[usize; 3]>,
    activation: Activation,
    tf32: bool,
    split_k: Option<usize>,
    split_k_tiling: Option<SplitConfig>,
    peel: Option<bool>,
    programmatic: bool,
}

/// A validated problem: the kernels' parameters and the batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Problem {
    /// Shape, leading dimensions, α, β.
    pub g: GemmParams,
    /// Matrices in the batch.
    pub batch: usize,
    /// Elements from one matrix of `A`, `B`, `C` to the next.
    pub strides: [usize; 3],
    /// Whether `A`, `B` are stored transposed.
    pub transposes: (bool, bool),
}

impl Gemm {
    /// `C (m × n) = A (m × k) · B (k × n)`, α = 1, β = 0, packed rows, one
    /// matrix, no epilogue.
    pub fn new(m: usize, n: usize, k: usize) -> Self {
        Gemm {
            m,
            n,
            k,
            lda: None,
            ldb: None,
            ldc: None,
            alpha: 1.0,
            beta: 0.0,
            transpose_a: false,
            transpose_b: false,
            variant: GemmVariant::Auto,
            batch: 1,
            strides: None,
            activation: Activation::None,
            tf32: false,
            split_k: None,
            split_k_tiling: None,
            peel: None,
            programmatic: true,
        }
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
    /// dimension ≥ m, default m) and `C = α·Aᵀ·op(B) + β·C`. On the f32
    /// ladder `Auto` stages a transposed operand into a row-major copy
    /// (the transpose kernels) and runs a float4 rung; rung 5
    /// ([`GemmVariant::Blocktile2d`]) reads it directly through the
    /// transposed layout; another rung chosen explicitly is an error. The
    /// tensor-core kernels read transposed operands with `ldmatrix.trans`.
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
    /// Picks a kernel (default [`GemmVariant::Auto`]).
    pub fn variant(mut self, v: GemmVariant) -> Self {
        self.variant = v;
        self
    }
    /// `count` independent products (strided-batched GEMM): matrix `i` of
    /// the batch starts [`Gemm::batch_strides`] elements after matrix
    /// `i − 1` in each buffer. Default 1.
    pub fn batch(mut self, count: usize) -> Self {
        self.batch = count;
        self
    }
    /// Elements from one matrix of the batch to the next in `a`, `b`, `c`
    /// (0 shares one matrix across the batch, for `a` or `b`). Default: the
    /// stored matrices packed one after the other (`rows × ld` each).
    pub fn batch_strides(mut self, a: usize, b: usize, c: usize) -> Self {
        self.strides = Some([a, b, c]);
        self
    }
    /// The activation of the fused epilogue (tensor-core kernels).
    pub fn activation(mut self, act: Activation) -> Self {
        self.activation = act;
        self
    }
    /// f32 inputs on the tensor cores: each element rounded to tf32 (10
    /// mantissa bits, `cvt.rna.tf32.f32`) before the product, accumulated
    /// in f32. Several times faster than the f32 ladder, with tf32's
    /// precision (relative errors near 1e-4 to 1e-3).
    pub fn tf32(mut self, yes: bool) -> Self {
        self.tf32 = yes;
        self
    }

    /// Split-k: `k` in `slices` parts whose partial products are summed
    /// in part order (deterministic). 1 turns it off; without this call
    /// the engine chooses. On the f32 ladder's `Auto` path a second kernel
    /// sums the slices ([`split_k_plan`]; ignored for a batch and a chosen
    /// rung); on the wgmma engine every part of a tile is a work unit of
    /// the one launch and the last to finish sums them (at most 32 parts
    /// of at least one k-tile; ignored by the ping-pong tiles; a count
    /// given here splits every tile, the engine's own choice only the
    /// tiles of a last round that fills at most half the GPU); ignored by
    /// the mma.sync engine.
    pub fn split_k(mut self, slices: usize) -> Self {
        self.split_k = Some(slices.max(1));
        self
    }

    /// The tile of the split-k kernel (without this call `Auto` chooses:
    /// [`split_k_plan`]); applies when `k` is split.
    pub fn split_k_tiling(mut self, tiling: SplitConfig) -> Self {
        self.split_k_tiling = Some(tiling);
        self
    }

    /// Edge peeling on the f32 ladder's `Auto` path ([`simt::peel_plan`]):
    /// `true` computes the rows and columns of `C` past the last whole
    /// block tile as separate thin products whenever there are any,
    /// `false` never; without this call `Auto` peels them where they are a
    /// thin remainder (at most an eighth of a tile) whose blocks would cost
    /// at least a tenth of the launch's waves ([`peel_plan`]). Ignored for
    /// a batch, a split `k`, a chosen rung, and the tensor-core engines.
    pub fn peel_edges(mut self, on: bool) -> Self {
        self.peel = Some(on);
        self
    }

    /// On a Hopper GPU, whether the wgmma kernel is launched as a
    /// programmatic dependent of the stream's previous kernel (CUDA's
    /// programmatic dependent launch; on by default): its blocks may start
    /// and set up their barriers while that kernel's last blocks run, and
    /// wait for it to end (its writes visible) before they touch memory.
    /// Short products issued back to back gain most; `false` launches it
    /// plainly. Ignored by the other engines and on the emulator.
    pub fn programmatic_launch(mut self, on: bool) -> Self {
        self.programmatic = on;
        self
    }

    /// The bulk `m' × n'` that [`Gemm::run`] computes apart from the
    /// peeled edges on `ctx` with f32 inputs (`None`: no peeling;
    /// [`Gemm::peel_edges`]).
    pub fn peel_plan_on(&self, ctx: &Context) -> Result<Option<(usize, usize)>> {
        let p = self.problem()?;
        Ok(match self.engine::<f32, f32>(&p, sm_count(ctx), hopper_sms(ctx), false)? {
            Engine::Simt(v, _) => self.peel_on(ctx, &p, v, self.split_on(ctx, &p)),
            _ => None,
        })
    }

    /// The `A`-transposed twin ([`WarpTConfig`]) `Auto` runs on `ctx` with
    /// f32 inputs: `A` stored transposed, read as stored by the twin of the
    /// rung 9 tiling `Auto` picks (a transposed `B` copied first), where
    /// neither split-k nor peeling applies and the stored `A` and `C` read
    /// as float4s; `None` otherwise (a transposed `A` is then copied).
    pub fn transposed_twin_on(&self, ctx: &Context) -> Result<Option<WarpTConfig>> {
        let p = self.problem()?;
        Ok(match self.engine::<f32, f32>(&p, sm_count(ctx), hopper_sms(ctx), false)? {
            Engine::Simt(v @ GemmVariant::Warptile(w), _) if self.transposes().0 => {
                let split = self.split_on(ctx, &p);
                let peel = self.peel_on(ctx, &p, v, split);
                let [sa, _] = mma::Stored::operands(&p, self.transposes());
                simt::reads_a_transposed(v, split, peel, &p, sa).then(|| WarpTConfig::twin(w)).flatten()
            }
            _ => None,
        })
    }

    /// [`Gemm::peel_plan_on`] for `Auto`'s rung `v` on `p`, whose split is
    /// `split` ([`Gemm::split_on`]).
    fn peel_on(&self, ctx: &Context, p: &Problem, v: GemmVariant, split: (SplitConfig, usize)) -> Option<(usize, usize)> {
        if self.variant != GemmVariant::Auto || self.tf32 || p.batch != 1 || split.1 > 1 {
            return None;
        }
        simt::peel_plan(self.m, self.n, v, sm_count(ctx), self.peel)
    }

    /// The split-k tiling and slices [`Gemm::run`] uses on `ctx` for `p`
    /// (1 slice: none): only `Auto` on f32 without tf32, one matrix.
    fn split_on(&self, ctx: &Context, p: &Problem) -> (SplitConfig, usize) {
        let sms = sm_count(ctx);
        let (auto, slices) = split_k_plan(self.m, self.n, self.k, sms);
        let tiling = self.split_k_tiling.unwrap_or(auto);
        if self.variant != GemmVariant::Auto || self.tf32 || p.batch != 1 {
            return (tiling, 1);
        }
        (tiling, self.split_k.unwrap_or(slices))
    }

    /// The split-k slices [`Gemm::run`] uses on `ctx` with f32 inputs (1:
    /// none, or an invalid problem): only `Auto` without tf32, one matrix.
    pub fn split_k_slices_on(&self, ctx: &Context) -> usize {
        self.split_k_plan_on(ctx).1
    }

    /// The split-k tiling and slices [`Gemm::run`] uses on `ctx` with f32
    /// inputs ([`split_k_plan`]; 1 slice: none, or an invalid problem).
    pub fn split_k_plan_on(&self, ctx: &Context) -> (SplitConfig, usize) {
        self.problem().map_or((SplitConfig::B64x64x16W32x32, 1), |p| self.split_on(ctx, &p))
    }

    /// The validated kernel parameters of one matrix of the batch.
    pub fn params(&self) -> Result<GemmParams> {
        Ok(self.problem()?.g)
    }

    /// The validated problem.
    pub(crate) fn problem(&self) -> Result<Problem> {
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
        let g = GemmParams {
            m,
            n,
            k,
            lda: ld("lda", self.lda, if self.transpose_a { m } else { k })?,
            ldb: ld("ldb", self.ldb, if self.transpose_b { k } else { n })?,
            ldc: ld("ldc", self.ldc, n)?,
            alpha: self.alpha,
            beta: self.beta,
        };
        check::dim("batch", self.batch)?;
        // The stored matrices: (rows, ld) of A, B, C.
        let stored = [
            if self.transpose_a { (self.k, g.lda) } else { (self.m, g.lda) },
            if self.transpose_b { (self.n, g.ldb) } else { (self.k, g.ldb) },
            (self.m, g.ldc),
        ];
        let mut packed = [0usize; 3];
        for (i, (arg, (rows, ld))) in ["rows * lda", "rows * ldb", "m * ldc"].into_iter().zip(stored).enumerate() {
            // Offsets are computed in usize on the device: the largest must fit.
            packed[i] = check::product(arg, &[rows, ld as usize])?;
        }
        let strides = self.strides.unwrap_or(packed);
        let p = Problem { g, batch: self.batch, strides, transposes: self.transposes() };
        p.required_lens()?;
        // The matrices of C must not overlap (A and B may: they are read).
        if self.batch > 1 && strides[2] < (self.m - 1) * g.ldc as usize + self.n {
            return Err(Error::BadArgument {
                arg: "batch_strides",
                detail: format!("the stride of c, {}, is less than one matrix of c ({} elements): results would overlap", strides[2], (self.m - 1) * g.ldc as usize + self.n),
            });
        }
        Ok(p)
    }

    /// The kernel that runs for input and output types `I`, `O`: the
    /// chosen one, or for [`GemmVariant::Auto`] the pick for the shape.
    ///
    /// Without a context, `Auto` resolves as on a device without the
    /// Hopper kernels ([`Gemm::resolved_variant_on`] asks a context).
    pub fn resolved_variant_for<I: GemmElement, O: GemmElement>(&self) -> Result<GemmVariant> {
        let p = self.problem()?;
        self.engine::<I, O>(&p, simt::DEFAULT_SMS, None, false).map(|e| e.variant())
    }

    /// The kernel that runs on `ctx` for input and output types `I`, `O`
    /// (`Auto` takes the wgmma engine on a Hopper GPU), for [`Gemm::run`]:
    /// with a bias ([`Gemm::run_with_bias`]) `Auto` may take another tile,
    /// one that hides the longer epilogue.
    pub fn resolved_variant_on<I: GemmElement, O: GemmElement>(&self, ctx: &Context) -> Result<GemmVariant> {
        let p = self.problem()?;
        self.engine::<I, O>(&p, sm_count(ctx), hopper_sms(ctx), false).map(|e| e.variant())
    }

    /// [`Gemm::resolved_variant_for`] with f32 inputs and output.
    pub fn resolved_variant(&self) -> Result<GemmVariant> {
        self.resolved_variant_for::<f32, f32>()
    }

    /// Whether an activation is set ([`Gemm::activation`]).
    pub fn has_epilogue(&self) -> bool {
        self.activation != Activation::None
    }

    /// Whether f32 inputs run as tf32 ([`Gemm::tf32`]).
    pub fn is_tf32(&self) -> bool {
        self.tf32
    }

    /// Whether `op(A)` and `op(B)` are transposed ([`Gemm::transpose_a`],
    /// [`Gemm::transpose_b`]).
    pub fn transposes(&self) -> (bool, bool) {
        (self.transpose_a, self.transpose_b)
    }

    /// Elements `a`, `b` and `c` must hold (their stored layouts' extent,
    /// over the whole batch).
    pub fn required_lens(&self) -> Result<[usize; 3]> {
        self.problem()?.required_lens()
    }

    /// The validated problem, once `a`, `b`, `c` (and `bias`) are checked
    /// to hold the elements they must and to belong to `ctx` (what
    /// [`Gemm::run`] and the cuBLAS ceilings check before launching).
    pub(crate) fn checked<I: Element, O: Element>(
        &self,
        ctx: &Context,
        a: &Buffer<I>,
        b: &Buffer<I>,
        c: &Buffer<O>,
        bias: Option<&Buffer<f32>>,
    ) -> Result<Problem> {
        let p = self.problem()?;
        let [la, lb, lc] = p.required_lens()?;
        check::len_at_least("a", a, la)?;
        check::len_at_least("b", b, lb)?;
        check::len_at_least("c", c, lc)?;
        if let Some(bias) = bias {
            check::len_at_least("bias", bias, self.n)?;
            check::backend(ctx, &[("bias", bias.is_on(ctx))])?;
        }
        check::backend(ctx, &[("a", a.is_on(ctx)), ("b", b.is_on(ctx)), ("c", c.is_on(ctx))])?;
        Ok(p)
    }

    /// Runs on `ctx`: `a`, `b` of type `I` (f32, bf16 or f16), `c` of type
    /// `O` (f32 or `I`). The buffers must hold at least the elements their
    /// layouts reach over the batch (`(batch − 1) · stride + (rows − 1) · ld
    /// + cols`).
    ///
    /// Errors (nothing is launched): [`Error::BadArgument`] naming `m`, `n`,
    /// `k` or `batch` (zero or too big), `lda`/`ldb`/`ldc` (shorter than a
    /// row, or not a multiple of 4 for a float4 rung chosen explicitly),
    /// `batch_strides` (results of the batch overlapping), `c` (an output
    /// type the input type has no kernel for), `variant` (a kernel for
    /// other types or orientations), `activation` (a fused epilogue on the
    /// f32 ladder), or a buffer of another context;
    /// [`Error::LengthMismatch`] naming a buffer that is too short.
    pub fn run<I: GemmElement, O: GemmElement>(&self, ctx: &Context, a: &Buffer<I>, b: &Buffer<I>, c: &mut Buffer<O>) -> Result<()> {
        self.run_inner(ctx, a, b, None, c)
    }

    /// [`Gemm::run`] with a bias: `C = act(α·op(A)·op(B) + β·C + bias)`,
    /// `bias[col]` (f32, `n` elements) added to every row before the
    /// activation, in the tensor-core kernels' epilogue.
    ///
    /// Errors: as [`Gemm::run`], and `bias` too short or of another
    /// context; `bias` on the f32 ladder (run it as tf32, or add the bias
    /// yourself).
    pub fn run_with_bias<I: GemmElement, O: GemmElement>(
        &self,
        ctx: &Context,
        a: &Buffer<I>,
        b: &Buffer<I>,
        bias: &Buffer<f32>,
        c: &mut Buffer<O>,
    ) -> Result<()> {
        self.run_inner(ctx, a, b, Some(bias), c)
    }

    fn run_inner<I: GemmElement, O: GemmElement>(
        &self,
        ctx: &Context,
        a: &Buffer<I>,
        b: &Buffer<I>,
        bias: Option<&Buffer<f32>>,
        c: &mut Buffer<O>,
    ) -> Result<()> {
        let p = self.checked(ctx, a, b, c, bias)?;
        let _op = ctx.op(&[a.tracker(), b.tracker(), bias.and_then(|b| b.tracker())], &[c.tracker()])?;
        match self.engine::<I, O>(&p, sm_count(ctx), hopper_sms(ctx), bias.is_some())? {
            Engine::Simt(v, staged) => {
                if bias.is_some() || self.activation != Activation::None {
                    return Err(Error::BadArgument {
                        arg: if bias.is_some() { "bias" } else { "activation" },
                        detail: format!("the f32 ladder (`{}`) has no fused epilogue; use .tf32(true) or bf16/f16 inputs", v.name()),
                    });
                }
                let (a, b) = (as_f32(a, "a")?, as_f32(b, "b")?);
                let c = as_f32_mut(c, "c")?;
                let split = self.split_on(ctx, &p);
                let peel = self.peel_on(ctx, &p, v, split);
                if staged || split.1 > 1 || peel.is_some() {
                    simt::run_any(ctx, v, split, peel, self.transposes(), &p, a, b, c)
                } else {
                    simt::run(ctx, v, self.transposes(), &p, a, b, c)
                }
            }
            Engine::Mma(tile) => mma::run(ctx, tile, self.transposes(), self.activation, &p, a, b, bias, c),
            Engine::Wgmma(tile) => wgmma::run(ctx, tile, self.transposes(), self.activation, (self.split_k, self.programmatic), &p, a, b, bias, c),
        }
    }

    /// Which engine and kernel run `p` for types `I`, `O`, checked against
    /// the types, the orientation and the chosen variant. `sms`: the GPU's
    /// multiprocessors (the f32 `Auto` weighs its blocks against them,
    /// [`simt::auto_variant`]). `hopper`: the
    /// multiprocessors of the Hopper GPU the problem runs on (`Auto` then
    /// takes the wgmma engine where it has a kernel), `None` elsewhere.
    /// `bias`: the call adds one.
    fn engine<I: GemmElement, O: GemmElement>(&self, p: &Problem, sms: usize, hopper: Option<usize>, bias: bool) -> Result<Engine> {
        // A longer epilogue: `Auto` weighs the tiles that hide it.
        let fused = bias || self.activation != Activation::None || p.g.beta != 0.0;
        use k::gemm::mma::{BF16, F16_KIND, F32};
        let tensor = match (I::KIND, O::KIND) {
            (F32, F32) => self.tf32,
            (BF16, F32 | BF16) | (F16_KIND, F32 | F16_KIND) => true,
            _ => {
                return Err(Error::BadArgument {
                    arg: "c",
                    detail: format!("{} output for {} inputs: the output is f32 or the input type", O::NAME, I::NAME),
                });
            }
        };
        let (ta, tb) = self.transposes();
        if tensor {
            // The orientation the kernels read (tf32 operands are staged k-major).
            let kernel_t = mma::kernel_orientation(I::KIND, (ta, tb));
            let tile = match self.variant {
                GemmVariant::Auto => {
                    let wg = hopper.and_then(|sms| WgmmaTile::auto(p, I::KIND, O::KIND, kernel_t, sms, fused));
                    match wg {
                        Some(t) => return Ok(Engine::Wgmma(t)),
                        None => MmaTile::auto(p, I::KIND, kernel_t),
                    }
                }
                GemmVariant::Wgmma(t) => {
                    return wgmma::kernel_for(t, I::KIND, O::KIND, kernel_t).map(|_| Engine::Wgmma(t));
                }
                GemmVariant::Mma(t) => t,
                v => {
                    return Err(Error::BadArgument {
                        arg: "variant",
                        detail: format!("`{}` is an f32 rung; {} inputs{} run on the tensor cores (Auto or Mma)", v.name(), I::NAME, if self.tf32 { " as tf32" } else { "" }),
                    });
                }
            };
            mma::kernel_for(tile, I::KIND, O::KIND, kernel_t).map(|_| Engine::Mma(tile))
        } else {
            let v = match self.variant {
                // Every layout runs on a float4 rung: what it cannot read
                // as stored is staged (simt::run_staged).
                GemmVariant::Auto => {
                    let v = simt::auto_variant(self.m, self.n, self.k, sms);
                    return Ok(Engine::Simt(v, simt::needs_staging(p)));
                }
                GemmVariant::Mma(t) => {
                    return Err(Error::BadArgument {
                        arg: "variant",
                        detail: format!("`{}` is a tensor-core tile; f32 inputs run on it with .tf32(true)", t.name()),
                    });
                }
                GemmVariant::Wgmma(t) => {
                    return Err(Error::BadArgument { arg: "variant", detail: format!("`{}` is a tensor-core tile for bf16 or f16 inputs", t.name()) });
                }
                v => v,
            };
            // Transposed operands: rung 5 reads any layout; a rung 9 tiling
            // with an `A`-transposed twin (`WarpTConfig::twin`) runs the
            // twin on `Aᵀ` and a row-major `B`.
            let twin = matches!(v, GemmVariant::Warptile(w) if WarpTConfig::twin(w).is_some()) && !tb;
            if (ta || tb) && v != GemmVariant::Blocktile2d && !twin {
                return Err(Error::BadArgument {
                    arg: "variant",
                    detail: format!(
                        "`{}` reads row-major operands; transposed f32 operands run on Blocktile2d or Auto (a transposed A alone also on the warptile tilings with a twin, WarpTConfig)",
                        v.name()
                    ),
                });
            }
            if v.needs_float4() {
                for (arg, ld) in [("lda", p.g.lda), ("ldb", p.g.ldb), ("ldc", p.g.ldc)] {
                    if ld % 4 != 0 {
                        return Err(Error::BadArgument {
                            arg,
                            detail: format!("{ld} is not a multiple of 4, which `{}` (float4 loads) needs; use Auto or Blocktile2d", v.name()),
                        });
                    }
                }
                if p.batch > 1 && p.strides.iter().any(|s| s % 4 != 0) {
                    return Err(Error::BadArgument {
                        arg: "batch_strides",
                        detail: format!("{:?} are not multiples of 4, which `{}` (float4 loads) needs; use Auto or Blocktile2d", p.strides, v.name()),
                    });
                }
            }
            Ok(Engine::Simt(v, false))
        }
    }
}

impl Problem {
    /// Elements `a`, `b`, `c` must hold: `(batch − 1) · stride + extent`.
    pub(crate) fn required_lens(&self) -> Result<[usize; 3]> {
        let one = self.g.required_lens_op(self.transposes.0, self.transposes.1);
        let mut out = [0; 3];
        for (i, arg) in ["a", "b", "c"].into_iter().enumerate() {
            out[i] = (self.batch - 1)
                .checked_mul(self.strides[i])
                .and_then(|x| x.checked_add(one[i]))
                .ok_or_else(|| Error::BadArgument { arg, detail: "the batch reaches past the address space".into() })?;
        }
        Ok(out)
    }
}

/// Which engine runs a problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Engine {
    /// The f32 ladder, on this rung; `true`: on staged copies of operands
    /// it cannot read as stored (`Auto` only).
    Simt(GemmVariant, bool),
    /// Tensor cores, with this tile.
    Mma(MmaTile),
    /// Hopper tensor cores, with this tile.
    Wgmma(WgmmaTile),
}

impl Engine {
    fn variant(self) -> GemmVariant {
        match self {
            Engine::Simt(v, _) => v,
            Engine::Mma(t) => GemmVariant::Mma(t),
            Engine::Wgmma(t) => GemmVariant::Wgmma(t),
        }
    }
}

/// The multiprocessors of `ctx`'s GPU ([`simt::DEFAULT_SMS`] on the
/// emulator).
fn sm_count(ctx: &Context) -> usize {
    ctx.device_info().map_or(simt::DEFAULT_SMS, |i| i.sm_count.max(1) as usize)
}

/// The multiprocessors of `ctx`'s GPU when it runs the wgmma kernels (a
/// Hopper GPU), for `Auto`.
fn hopper_sms(ctx: &Context) -> Option<usize> {
    ctx.device_info().filter(|i| i.compute_capability == (9, 0)).map(|i| i.sm_count.max(1) as usize)
}

/// `x = act(x + bias[col])` over the `rows × cols` matrix in `x` (leading
/// dimension `ld`) as a separate pass: the epilogue of a GEMM computed
/// without one (the tensor-core kernels fuse it: [`Gemm::run_with_bias`]).
///
/// Errors: a dimension zero or too big, `ld` below `cols`, `x` or `bias`
/// too short, a buffer of another context.
pub fn bias_activation<T: GemmElement>(
    ctx: &Context,
    x: &mut Buffer<T>,
    bias: &Buffer<f32>,
    act: Activation,
    (rows, cols, ld): (usize, usize, usize),
) -> Result<()> {
    use k::gemm::mma::{bias_act_config, BiasActParams};
    let p = BiasActParams { rows: check::dim("rows", rows)?, cols: check::dim("cols", cols)?, ld: check::dim("ld", ld)?, activation: act.code() };
    if ld < cols {
        return Err(Error::BadArgument { arg: "ld", detail: format!("{ld} is less than the row length {cols}") });
    }
    check::len_at_least("x", x, check::product("rows * ld", &[rows - 1, ld])? + cols)?;
    check::len_at_least("bias", bias, cols)?;
    check::backend(ctx, &[("x", x.is_on(ctx)), ("bias", bias.is_on(ctx))])?;
    let cfg = bias_act_config(&p);
    let _op = ctx.op(&[bias.tracker()], &[x.tracker()])?;
    let any: &mut dyn Any = x;
    if let Some(x) = any.downcast_mut::<Buffer<f32>>() {
        return launch!(ctx, ferrotile_kernels::gemm::mma::gemm_bias_act_f32, cfg, x, bias, p);
    }
    if let Some(x) = any.downcast_mut::<Buffer<half::bf16>>() {
        return launch!(ctx, ferrotile_kernels::gemm::mma::gemm_bias_act_bf16, cfg, x, bias, p);
    }
    match any.downcast_mut::<Buffer<half::f16>>() {
        Some(x) => launch!(ctx, ferrotile_kernels::gemm::mma::gemm_bias_act_f16, cfg, x, bias, p),
        None => unreachable!("GemmElement is f32, bf16 or f16"),
    }
}

/// `b` as an f32 buffer (the f32 ladder's dispatch; `T` is f32 there).
fn as_f32<'a, T: Element>(b: &'a Buffer<T>, arg: &'static str) -> Result<&'a Buffer<f32>> {
    (b as &dyn Any).downcast_ref::<Buffer<f32>>().ok_or_else(|| Error::BadArgument { arg, detail: "not an f32 buffer".into() })
}

/// `b` as a mutable f32 buffer.
fn as_f32_mut<'a, T: Element>(b: &'a mut Buffer<T>, arg: &'static str) -> Result<&'a mut Buffer<f32>> {
    (b as &mut dyn Any).downcast_mut::<Buffer<f32>>().ok_or_else(|| Error::BadArgument { arg, detail: "not an f32 buffer".into() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::bf16;

    /// What the call fuses reaches `Auto`'s tile choice on a Hopper GPU of
    /// 132 multiprocessors: at 4096 × 4096 × 3072 the plain call takes the
    /// `128 × 256` tile, one with a bias, an activation or `β ≠ 0` the
    /// ping-pong tile, which hides the longer epilogue.
    #[test]
    fn the_fused_epilogue_reaches_the_tile_choice() {
        let g = Gemm::new(4096, 4096, 3072);
        let pick = |g: &Gemm, bias: bool| g.engine::<bf16, bf16>(&g.problem().unwrap(), 132, Some(132), bias).unwrap().variant();
        assert_eq!(pick(&g, false), GemmVariant::Wgmma(WgmmaTile::B128x256));
        assert_eq!(pick(&g, true), GemmVariant::Wgmma(WgmmaTile::P128x128));
        assert_eq!(pick(&g.activation(Activation::GeluTanh), false), GemmVariant::Wgmma(WgmmaTile::P128x128));
        assert_eq!(pick(&g.beta(0.5), false), GemmVariant::Wgmma(WgmmaTile::P128x128));
        // α alone is no epilogue of its own.
        assert_eq!(pick(&g.alpha(2.0), false), GemmVariant::Wgmma(WgmmaTile::B128x256));
    }
}
