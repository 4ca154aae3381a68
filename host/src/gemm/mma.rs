//! The tensor-core engine's host side: the tile configurations, the kernel
//! of each (tile, types, orientation) from the kernels crate's table,
//! operand staging, and the launches.

use std::any::Any;

use ferrotile_kernels as k;
use k::gemm::mma::{Dt, MmaKernel, MmaParams, StageParams, BF16, F16_KIND, F32};

use super::{Activation, GemmElement, GemmParams, Problem};
use crate::backend::Scratch;
use crate::launch::At;
use crate::{Buffer, Context, Error, LaunchConfig, Result};

/// A tensor-core tile configuration: the block tile the kernel computes.
/// The kernel follows from it, the types and the operands' orientation
/// ([`MmaTile::kernels`] lists what exists).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MmaTile {
    /// 128 × 128 block tiles of four 64 × 64 warp tiles (`k` tiles of 64
    /// for bf16/f16, 32 for tf32): every type and orientation.
    B128x128,
    /// 64 × 64 block tiles of four 32 × 32 warp tiles: row-major 16-bit
    /// operands and tf32 (small problems: more blocks).
    B64x64,
    /// Experiment: 128 × 128 with `k` tiles of 32 (twice the barriers per
    /// `mma`); bf16, row-major.
    #[cfg(ferrotile_experiments)]
    B128x128K32,
    /// Experiment: 128 × 256 of eight 64 × 64 warps; bf16, row-major.
    #[cfg(ferrotile_experiments)]
    B128x256,
    /// Experiment: 128 × 128 of eight 64 × 32 warps; bf16, row-major.
    #[cfg(ferrotile_experiments)]
    B128x128W8,
    /// Experiment: 256 × 128 of eight 64 × 64 warps; bf16, row-major.
    #[cfg(ferrotile_experiments)]
    B256x128,
}

impl MmaTile {
    /// Every tile of the build.
    pub const ALL: &'static [MmaTile] = &[
        MmaTile::B128x128,
        MmaTile::B64x64,
        #[cfg(ferrotile_experiments)]
        MmaTile::B128x128K32,
        #[cfg(ferrotile_experiments)]
        MmaTile::B128x256,
        #[cfg(ferrotile_experiments)]
        MmaTile::B128x128W8,
        #[cfg(ferrotile_experiments)]
        MmaTile::B256x128,
    ];

    /// The tile's name.
    pub fn name(self) -> &'static str {
        match self {
            MmaTile::B128x128 => "mma_128x128",
            MmaTile::B64x64 => "mma_64x64",
            #[cfg(ferrotile_experiments)]
            MmaTile::B128x128K32 => "mma_128x128x32",
            #[cfg(ferrotile_experiments)]
            MmaTile::B128x256 => "mma_128x256",
            #[cfg(ferrotile_experiments)]
            MmaTile::B128x128W8 => "mma_128x128_w8",
            #[cfg(ferrotile_experiments)]
            MmaTile::B256x128 => "mma_256x128",
        }
    }

    /// Whether kernel configuration `c` is this tile.
    pub fn matches(self, c: &k::gemm::mma::MmaTiling) -> bool {
        let warps = (c.bm / c.wm) * (c.bn / c.wn);
        let tf32 = c.input == F32;
        match self {
            MmaTile::B128x128 => (c.bm, c.bn) == (128, 128) && ((!tf32 && c.bk == 64 && warps == 4) || (tf32 && c.bk == 32)),
            MmaTile::B64x64 => (c.bm, c.bn) == (64, 64),
            #[cfg(ferrotile_experiments)]
            MmaTile::B128x128K32 => (c.bm, c.bn, c.bk) == (128, 128, 32) && warps == 4 && !tf32,
            #[cfg(ferrotile_experiments)]
            MmaTile::B128x256 => (c.bm, c.bn) == (128, 256),
            #[cfg(ferrotile_experiments)]
            MmaTile::B128x128W8 => (c.bm, c.bn, c.bk) == (128, 128, 32) && warps == 8 && !tf32,
            #[cfg(ferrotile_experiments)]
            MmaTile::B256x128 => (c.bm, c.bn) == (256, 128),
        }
    }

    /// Blocks of the tile for `m × n` (over the batch).
    fn blocks(self, m: usize, n: usize, batch: usize) -> usize {
        let (bm, bn) = match self {
            MmaTile::B64x64 => (64, 64),
            _ => (128, 128),
        };
        m.div_ceil(bm) * n.div_ceil(bn) * batch
    }

    /// The kernels of this tile (every type and orientation it has).
    pub fn kernels(self) -> impl Iterator<Item = MmaKernel> {
        MmaKernel::ALL.iter().copied().filter(move |k| self.matches(&k.config()))
    }

    /// The tile for a problem: 128 × 128 when its blocks fill the GPU at
    /// least once, 64 × 64 below (more, smaller blocks); a tile without a
    /// kernel for the types and orientation is skipped.
    pub(super) fn auto(p: &Problem, input: usize, transposes: (bool, bool)) -> MmaTile {
        /// Multiprocessors of the GPUs the choice was made for (H100/H200).
        const SMS: usize = 132;
        let has = |t: MmaTile| MmaKernel::ALL.iter().any(|k| matches_kernel(*k, t, input, transposes));
        let big = MmaTile::B128x128.blocks(p.g.m as usize, p.g.n as usize, p.batch) >= SMS;
        let wanted = if big { [MmaTile::B128x128, MmaTile::B64x64] } else { [MmaTile::B64x64, MmaTile::B128x128] };
        wanted.into_iter().find(|&t| has(t)).unwrap_or(MmaTile::B128x128)
    }
}

/// Whether kernel `k` is tile `t` for inputs of kind `input` and the
/// orientation (any output type).
fn matches_kernel(k: MmaKernel, t: MmaTile, input: usize, (ta, tb): (bool, bool)) -> bool {
    let c = k.config();
    t.matches(&c) && c.input == input && (c.ta, c.tb) == (ta, tb)
}

/// The kernel of tile `t` for these types and orientation, or
/// `BadArgument { arg: "variant" }` listing what the tile has.
pub(super) fn kernel_for(t: MmaTile, input: usize, output: usize, (ta, tb): (bool, bool)) -> Result<MmaKernel> {
    let found = MmaKernel::ALL.iter().copied().find(|&k| matches_kernel(k, t, input, (ta, tb)) && k.config().output == output);
    found.ok_or_else(|| no_kernel(t.name(), input, output, (ta, tb), t.kernels().map(|k| k.name())))
}

/// `BadArgument { arg: "variant" }`: tile `tile` has no kernel for these
/// types and orientation; the message lists the kernels it has.
pub(super) fn no_kernel<'a>(tile: &str, input: usize, output: usize, (ta, tb): (bool, bool), has: impl Iterator<Item = &'a str>) -> Error {
    let kind_name = |kind: usize| match kind {
        F32 => "f32",
        BF16 => "bf16",
        F16_KIND => "f16",
        _ => "?",
    };
    Error::BadArgument {
        arg: "variant",
        detail: format!(
            "`{tile}` has no kernel for {}{} inputs, {} output, A {}, B {}; it has: {}",
            kind_name(input),
            if input == F32 { " (tf32)" } else { "" },
            kind_name(output),
            if ta { "transposed" } else { "row-major" },
            if tb { "transposed" } else { "row-major" },
            has.collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The orientation of the kernel that runs operands stored `(ta, tb)`:
/// the same for 16-bit inputs; for tf32 always `A` m-major, `B` n-major
/// (the host stages the others transposed).
pub(super) fn kernel_orientation(input: usize, (ta, tb): (bool, bool)) -> (bool, bool) {
    if input == F32 { (false, true) } else { (ta, tb) }
}

/// The host type of a kernels-crate element kind.
pub(super) trait HostElem {
    type T: GemmElement;
}
impl HostElem for Dt<F32> {
    type T = f32;
}
impl HostElem for Dt<BF16> {
    type T = half::bf16;
}
impl HostElem for Dt<F16_KIND> {
    type T = half::f16;
}

/// `b` as a buffer of `T` (the kernel's own type; the dispatch above
/// chose the kernel by the buffers' types, so this cannot fail unless
/// that choice is wrong).
pub(super) fn typed<'a, T: GemmElement>(b: &'a dyn Any, arg: &'static str) -> Result<&'a Buffer<T>> {
    b.downcast_ref::<Buffer<T>>().ok_or_else(|| Error::BadArgument { arg, detail: format!("not a {} buffer", T::NAME) })
}

/// A table-declared tensor-core kernel that can launch itself on
/// type-erased buffers (checked against the kernel's types).
trait MmaLaunch {
    #[allow(clippy::too_many_arguments)]
    fn launch(
        self,
        ctx: &Context,
        cfg: LaunchConfig,
        p: MmaParams,
        ab: (&dyn Any, &dyn Any),
        c: &dyn Any,
        offsets: [usize; 3],
        bias: Option<&Buffer<f32>>,
    ) -> Result<()>;
}

/// One `launch!` arm per row of the kernels crate's `mma_table!`.
macro_rules! mma_launcher {
    (
        $(#[$emeta:meta])* pub enum $Enum:ident: $Cfg:ty;
        $( $(#[$doc:meta])* [$gate:meta] $V:ident => $kernel:ident = $define:ident!($cfg:ident), bounds $lb:literal; )*
    ) => {
        impl MmaLaunch for $Enum {
            fn launch(
                self,
                ctx: &Context,
                cfg: LaunchConfig,
                p: MmaParams,
                (a, b): (&dyn Any, &dyn Any),
                c: &dyn Any,
                [oa, ob, oc]: [usize; 3],
                bias: Option<&Buffer<f32>>,
            ) -> Result<()> {
                match self {
                    $( #[$gate] $Enum::$V => {
                        type In = <Dt<{ k::gemm::mma::$cfg.input }> as HostElem>::T;
                        type Out = <Dt<{ k::gemm::mma::$cfg.output }> as HostElem>::T;
                        let a = At::new(typed::<In>(a, "a")?, oa);
                        let b = At::new(typed::<In>(b, "b")?, ob);
                        let c = At::new(typed::<Out>(c, "c")?, oc);
                        launch!(ctx, ferrotile_kernels::gemm::mma::$kernel, cfg, p, a, b, c, bias)
                    } )*
                }
            }
        }
    };
}
ferrotile_kernels::mma_table!(mma_launcher);

/// Most matrices of a batch one launch takes (the grid's z extent).
const MAX_BATCH_PER_LAUNCH: usize = 65_535;

/// An operand as stored: rows, elements per row, leading dimension and
/// batch stride.
#[derive(Clone, Copy, Debug)]
pub(super) struct Stored {
    pub(super) rows: usize,
    pub(super) cols: usize,
    pub(super) ld: usize,
    pub(super) stride: usize,
}

impl Stored {
    /// `A` and `B` of `p` as stored, `A` transposed (`k × m`) when `ta`,
    /// `B` (`n × k`) when `tb`.
    pub(super) fn operands(p: &Problem, (ta, tb): (bool, bool)) -> [Stored; 2] {
        let (m, n, k) = (p.g.m as usize, p.g.n as usize, p.g.k as usize);
        [
            Stored { rows: if ta { k } else { m }, cols: if ta { m } else { k }, ld: p.g.lda as usize, stride: p.strides[0] },
            Stored { rows: if tb { n } else { k }, cols: if tb { k } else { n }, ld: p.g.ldb as usize, stride: p.strides[1] },
        ]
    }
}

/// Runs the tensor-core kernel of `tile` on `p` (types `I` → `O`, checked
/// by the caller): operands whose rows do not start 16-byte aligned are
/// staged into aligned copies first, large batches go in parts.
#[allow(clippy::too_many_arguments)]
pub(super) fn run<I: GemmElement, O: GemmElement>(
    ctx: &Context,
    tile: MmaTile,
    (ta, tb): (bool, bool),
    act: Activation,
    p: &Problem,
    a: &Buffer<I>,
    b: &Buffer<I>,
    bias: Option<&Buffer<f32>>,
    c: &mut Buffer<O>,
) -> Result<()> {
    let kernel = kernel_for(tile, I::KIND, O::KIND, kernel_orientation(I::KIND, (ta, tb)))?;
    let g = p.g;
    let [sa, sb] = Stored::operands(p, (ta, tb));
    // tf32 kernels read `A` m-major and `B` n-major (`ldmatrix` cannot
    // transpose 32-bit elements): the other orientation is staged
    // transposed.
    let tf32 = I::KIND == F32;
    let (staged_a, staged_b) = stage_both(ctx, (a, sa, tf32 && ta, TMA_PITCH), (b, sb, tf32 && !tb, TMA_PITCH), p.batch, false)?;
    let (a, sa) = staged_a.as_ref().map_or((a, sa), |(buf, s)| (buf, *s));
    let (b, sb) = staged_b.as_ref().map_or((b, sb), |(buf, s)| (buf, *s));
    let params = MmaParams {
        g: GemmParams { lda: sa.ld as u32, ldb: sb.ld as u32, ..g },
        stride_a: sa.stride as u64,
        stride_b: sb.stride as u64,
        stride_c: p.strides[2] as u64,
        activation: act.code(),
        has_bias: bias.is_some() as u32,
    };
    let config = kernel.config();
    for first in (0..p.batch).step_by(MAX_BATCH_PER_LAUNCH) {
        let count = (p.batch - first).min(MAX_BATCH_PER_LAUNCH);
        let offsets = [first * sa.stride, first * sb.stride, first * p.strides[2]];
        let cfg = config.config(&params, count as u32);
        kernel.launch(ctx, cfg, params, (a, b), &*c, offsets, bias)?;
    }
    Ok(())
}

/// Row pitch, in bytes, of the operands [`stage`] copies: a multiple of
/// 128 bytes, so that every 128-byte row of a TMA box (and of a `cp.async`
/// tile row) lies in one 128-byte line; with rows only 16-byte aligned the
/// wgmma engine's loads of the other operand's rows split across two lines
/// and the product runs markedly slower (BENCHMARKS.md, odd shapes).
pub const STAGED_PITCH: usize = 128;

/// The row pitch (bytes) TMA and `cp.async` need an operand's rows to be
/// a multiple of: otherwise it is staged ([`stage`]).
pub const TMA_PITCH: usize = 16;

/// A copy of `src` whose rows start 16-byte aligned (leading dimension
/// and batch stride multiples of 16 bytes), when they do not already, or
/// `transpose`d, or (f32 only) with every element rounded to tf32 when
/// `round_tf32` (both always copied; a transposed copy is the stored
/// matrix's transpose, through shared-memory tiles). A batch stride of 0
/// (one matrix shared by the batch) stays 0. The copy's rows are
/// [`STAGED_PITCH`] bytes apart or a multiple of it.
pub(super) fn stage<'c, T: GemmElement>(ctx: &'c Context, src: &Buffer<T>, s: Stored, batch: usize, transpose: bool, round_tf32: bool) -> Result<Staged<'c, T>> {
    let Some(st) = staging::<T>(ctx, s, batch, transpose, round_tf32, TMA_PITCH)? else { return Ok(None) };
    launch_stage(ctx, src, &st)?;
    Ok(Some((st.dst, st.stored)))
}

/// What [`stage`] returns: the copy (a staging buffer of the handle,
/// [`Context::scratch`]) and its layout, or `None`.
pub(super) type Staged<'c, T> = Option<(Scratch<'c, T>, Stored)>;

/// Both operands of a product (`(buffer, layout, transpose, pitch)`)
/// staged as [`stage`] stages each — and also where their rows are not a
/// multiple of `pitch` bytes apart ([`TMA_PITCH`], or [`STAGED_PITCH`]
/// where rows only 16-byte aligned apart cost the product more than the
/// copy) —, in one launch when both need a plain copy
/// ([`k::gemm::mma::gemm_stage2_bf16`] and its twins): at small sizes a
/// launch costs more than its copy.
pub(super) fn stage_both<'c, T: GemmElement>(
    ctx: &'c Context,
    a: (&Buffer<T>, Stored, bool, usize),
    b: (&Buffer<T>, Stored, bool, usize),
    batch: usize,
    round_tf32: bool,
) -> Result<(Staged<'c, T>, Staged<'c, T>)> {
    let sa = staging(ctx, a.1, batch, a.2, round_tf32, a.3)?;
    let sb = staging(ctx, b.1, batch, b.2, round_tf32, b.3)?;
    // One launch's rows are both copies' rows (counted in 32 bits).
    let paired = |x: &Staging<T>, y: &Staging<T>| x.params.transpose == 0 && y.params.transpose == 0 && x.params.rows.checked_add(y.params.rows).is_some();
    match (&sa, &sb) {
        (Some(x), Some(y)) if paired(x, y) => launch_stage2(ctx, (a.0, x), (b.0, y))?,
        _ => {
            for (src, st) in [(a.0, &sa), (b.0, &sb)] {
                if let Some(st) = st {
                    launch_stage(ctx, src, st)?;
                }
            }
        }
    }
    Ok((sa.map(|st| (st.dst, st.stored)), sb.map(|st| (st.dst, st.stored))))
}

/// A staging copy [`stage`] will make: its buffer, its layout and the
/// copy's parameters.
struct Staging<'c, T: GemmElement> {
    dst: Scratch<'c, T>,
    stored: Stored,
    params: StageParams,
}

/// The copy [`stage`] makes of an operand stored as `s` (its buffer lent
/// by the handle, [`Context::scratch`]), or `None` when the operand needs
/// none: its rows a multiple
/// of `pitch` bytes apart (and its matrices of 16), not transposed, not
/// rounded.
fn staging<T: GemmElement>(ctx: &Context, s: Stored, batch: usize, transpose: bool, round_tf32: bool, pitch: usize) -> Result<Option<Staging<'_, T>>> {
    let align = TMA_PITCH / std::mem::size_of::<T>();
    let strided = batch > 1 && s.stride != 0;
    let round_tf32 = round_tf32 && T::KIND == F32;
    if !transpose && !round_tf32 && s.ld.is_multiple_of(pitch / std::mem::size_of::<T>()) && (!strided || s.stride.is_multiple_of(align)) {
        return Ok(None);
    }
    let (rows, cols) = if transpose { (s.cols, s.rows) } else { (s.rows, s.cols) };
    let ld = cols.next_multiple_of(STAGED_PITCH / std::mem::size_of::<T>());
    let matrices = if strided { batch } else { 1 };
    let stride = if strided { rows * ld } else { 0 };
    // A plain copy writes every element, padding included (`zero_pad`):
    // no clearing first. The transposed copy writes only the matrix.
    let len = matrices * rows * ld;
    let dst = if transpose { ctx.scratch_zeroed::<T>(len)? } else { ctx.scratch::<T>(len)? };
    let params = StageParams {
        rows: s.rows as u32,
        cols: s.cols as u32,
        ld_src: s.ld as u32,
        ld_dst: ld as u32,
        batch: matrices as u32,
        transpose: transpose as u32,
        stride_src: s.stride as u64,
        stride_dst: stride as u64,
        zero_pad: 1,
        round_tf32: round_tf32 as u32,
    };
    Ok(Some(Staging { dst, stored: Stored { rows, cols, ld, stride }, params }))
}

/// The launch of one staging copy.
fn launch_stage<T: GemmElement>(ctx: &Context, src: &Buffer<T>, st: &Staging<'_, T>) -> Result<()> {
    let sp = st.params;
    let cfg = k::gemm::mma::stage_config(&sp, std::mem::size_of::<T>() as u32);
    let (src_any, dst_any): (&dyn Any, &dyn Any) = (src, &*st.dst);
    match T::KIND {
        BF16 => {
            let (from, to) = (typed::<half::bf16>(src_any, "a")?, typed::<half::bf16>(dst_any, "a")?);
            launch!(ctx, ferrotile_kernels::gemm::mma::gemm_stage_bf16, cfg, from, to, sp)
        }
        F16_KIND => {
            let (from, to) = (typed::<half::f16>(src_any, "a")?, typed::<half::f16>(dst_any, "a")?);
            launch!(ctx, ferrotile_kernels::gemm::mma::gemm_stage_f16, cfg, from, to, sp)
        }
        _ => {
            let (from, to) = (typed::<f32>(src_any, "a")?, typed::<f32>(dst_any, "a")?);
            if sp.transpose != 0 {
                launch!(ctx, ferrotile_kernels::gemm::mma::gemm_stage_f32_t, k::gemm::mma::stage_t_config(&sp), from, to, sp)
            } else {
                launch!(ctx, ferrotile_kernels::gemm::mma::gemm_stage_f32, cfg, from, to, sp)
            }
        }
    }
}

/// The launch of two plain staging copies at once.
fn launch_stage2<T: GemmElement>(ctx: &Context, (src_a, a): (&Buffer<T>, &Staging<'_, T>), (src_b, b): (&Buffer<T>, &Staging<'_, T>)) -> Result<()> {
    let sp = k::gemm::mma::Stage2Params { a: a.params, b: b.params };
    let cfg = k::gemm::mma::stage2_config(&sp, std::mem::size_of::<T>() as u32);
    let bufs: [&dyn Any; 4] = [src_a, &*a.dst, src_b, &*b.dst];
    macro_rules! two {
        ($t:ty, $kernel:ident) => {{
            let [sa, da, sb, db] = [typed::<$t>(bufs[0], "a")?, typed::<$t>(bufs[1], "a")?, typed::<$t>(bufs[2], "b")?, typed::<$t>(bufs[3], "b")?];
            launch!(ctx, ferrotile_kernels::gemm::mma::$kernel, cfg, sa, da, sb, db, sp)
        }};
    }
    match T::KIND {
        BF16 => two!(half::bf16, gemm_stage2_bf16),
        F16_KIND => two!(half::f16, gemm_stage2_f16),
        _ => two!(f32, gemm_stage2_f32),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Launches per call on the emulator: `A` and `B` both staged in one
    /// launch when both need a plain copy (odd `k` and odd `n`), one when
    /// only one does — the products right.
    #[test]
    fn both_operands_stage_in_one_launch() -> Result<()> {
        use crate::gemm::{Gemm, GemmVariant};
        use crate::testing::Rng;
        use half::bf16;
        let ctx = Context::emulator();
        let mut rng = Rng::new(0x57a9e2);
        // Both staged (`k` odd: `A`'s rows, `n` odd: `B`'s), `A` alone, `B`
        // alone, neither; a larger product first, so that the smaller ones
        // stage into the handle's kept, longer buffers (`Context::scratch`)
        // holding its values.
        for ((m, n, k), staging) in [((70, 91, 77), 1), ((33, 41, 31), 1), ((33, 40, 31), 1), ((33, 41, 32), 1), ((32, 40, 32), 0)] {
            for variant in [GemmVariant::Mma(MmaTile::B128x128), GemmVariant::Wgmma(crate::gemm::WgmmaTile::B128x128)] {
                let a: Vec<bf16> = (0..m * k).map(|_| bf16::from_f32((rng.f32() * 4.0).floor())).collect();
                let b: Vec<bf16> = (0..k * n).map(|_| bf16::from_f32((rng.f32() * 4.0).floor())).collect();
                let (da, db) = (ctx.upload(&a)?, ctx.upload(&b)?);
                let mut dc = ctx.upload(&vec![f32::NAN; m * n])?;
                let before = Context::thread_launch_count();
                Gemm::new(m, n, k).variant(variant).run(&ctx, &da, &db, &mut dc)?;
                assert_eq!(Context::thread_launch_count() - before, staging + 1, "{m}x{n}x{k} {variant:?}");
                let got = dc.download()?;
                for i in 0..m {
                    for j in 0..n {
                        let want: f32 = (0..k).map(|l| a[i * k + l].to_f32() * b[l * n + j].to_f32()).sum();
                        assert_eq!(got[i * n + j], want, "{m}x{n}x{k} {variant:?} ({i}, {j})");
                    }
                }
            }
        }
        Ok(())
    }

    /// The staging copy (the kernel on the emulator) copies every element
    /// bit for bit whichever position of a 16-byte chunk a row starts at
    /// (every leading dimension residue, batch strides moving it too, the
    /// source exactly as long as the copy reads, so the last chunks read
    /// element by element), zeroes the padding, rounds f32 to tf32 when
    /// asked; alone and as the second copy of a paired launch.
    #[test]
    fn staging_copies_every_alignment_bit_for_bit() -> Result<()> {
        use crate::testing::Rng;
        use half::bf16;
        let ctx = Context::emulator();
        let mut rng = Rng::new(0x5ea9e);
        fn check<T: GemmElement>(ctx: &Context, src: &[T], s: Stored, batch: usize, round: bool, bits: impl Fn(T) -> u32, staged: impl Fn(T) -> u32) -> Result<()> {
            let d = ctx.upload(src)?;
            let _op = ctx.op(&[], &[])?;
            let per = TMA_PITCH / std::mem::size_of::<T>();
            let needed = round || !s.ld.is_multiple_of(per) || (batch > 1 && !s.stride.is_multiple_of(per));
            let Some((copy, st)) = stage(ctx, &d, s, batch, false, round)? else {
                assert!(!needed, "{s:?} batch {batch} needs a copy");
                return Ok(());
            };
            let (paired, _) = stage_both(ctx, (&d, s, false, TMA_PITCH), (&d, s, false, TMA_PITCH), batch, round)?;
            for got in [copy.download()?, paired.expect("staged").0.download()?] {
                assert_eq!(st.ld % (STAGED_PITCH / std::mem::size_of::<T>()), 0);
                for b in 0..if s.stride == 0 { 1 } else { batch } {
                    for r in 0..s.rows {
                        for c in 0..st.ld {
                            let want = if c < s.cols { staged(src[b * s.stride + r * s.ld + c]) } else { 0 };
                            assert_eq!(bits(got[b * st.stride + r * st.ld + c]), want, "{s:?} batch {batch}: ({b}, {r}, {c})");
                        }
                    }
                }
            }
            Ok(())
        }
        // (rows, cols, ld, stride, batch): every `ld` residue mod 8, `ld`
        // aligned with an odd batch stride, one row, one column, a row of
        // whole chunks.
        let mut shapes: Vec<(usize, usize, usize, usize, usize)> = (0..8).map(|e| (5, 17 + e, 24 + e, 0, 1)).collect();
        // Every way the last whole chunk can end near the source's end, in
        // rows shorter and longer than a warp's segment of 128 chunks.
        shapes.extend((8..=24).chain(256..=264).chain(1020..=1028).flat_map(|cols| (cols..cols + 8).map(move |ld| (2, cols, ld, 0, 1))));
        shapes.extend([(3, 40, 40, 123, 3), (4, 9, 11, 47, 2), (1, 1, 1, 0, 1), (7, 1, 3, 0, 1), (1, 70, 70, 71, 2), (9, 64, 65, 0, 1), (300, 200, 203, 0, 1), (67, 1000, 1001, 67 * 1001 + 5, 2), (5, 1100, 1107, 0, 1), (3, 4099, 4099, 3 * 4099 + 1, 3), (127, 127, 127, 127 * 127, 4), (33, 9, 9, 33 * 9 + 1, 3), (20, 300, 301, 0, 1)]);
        for (rows, cols, ld, stride, batch) in shapes {
            let s = Stored { rows, cols, ld, stride };
            let len = if stride == 0 { 0 } else { (batch - 1) * stride } + (rows - 1) * ld + cols;
            let h: Vec<bf16> = (0..len).map(|_| bf16::from_bits(rng.next_u64() as u16)).collect();
            check(&ctx, &h, s, batch, false, |x| x.to_bits() as u32, |x| x.to_bits() as u32)?;
            let f: Vec<f32> = (0..len).map(|_| rng.f32() * 3.0 - 1.5).collect();
            for round in [false, true] {
                let tf32 = move |x: f32| if round { k::numeric::tf32_rna(x) } else { x.to_bits() };
                check(&ctx, &f, s, batch, round, f32::to_bits, tf32)?;
            }
        }
        Ok(())
    }

    #[test]
    fn every_kernel_is_reachable_and_valid() {
        for k in MmaKernel::ALL {
            let c = k.config();
            assert!(c.validate(), "{k:?}");
            let tiles: Vec<MmaTile> = MmaTile::ALL.iter().copied().filter(|t| t.matches(&c)).collect();
            assert_eq!(tiles.len(), 1, "{k:?} is tile {tiles:?}");
            assert_eq!(kernel_for(tiles[0], c.input, c.output, (c.ta, c.tb)).ok(), Some(*k));
        }
        // Every type pair and orientation has the 128 × 128 tile.
        for (i, o) in [(BF16, F32), (BF16, BF16), (F16_KIND, F32), (F16_KIND, F16_KIND), (F32, F32)] {
            for t in [(false, false), (true, false), (false, true), (true, true)] {
                let t = kernel_orientation(i, t);
                assert!(kernel_for(MmaTile::B128x128, i, o, t).is_ok(), "{i} {o} {t:?}");
            }
        }
        assert!(matches!(kernel_for(MmaTile::B64x64, BF16, F32, (true, false)), Err(Error::BadArgument { arg: "variant", .. })));
    }
}
