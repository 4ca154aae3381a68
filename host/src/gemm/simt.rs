//! The SIMT engine's host side: Auto's table for the f32 ladder, launch
//! geometry, chunked launches for grids over the limits, and one launch
//! arm per kernel (generated from the kernels crate's variant tables).

use ferrotile_kernels as k;
use ferrotile_kernels::gemm::simt::GemmParams;
#[cfg(ferrotile_experiments)]
use ferrotile_kernels::gemm::simt::StageTConfig;
use ferrotile_kernels::gemm::simt::{SplitConfig, StageConfig, Tiling, WarpConfig, WarpTConfig};

use super::mma::Stored;
use super::GemmVariant;
use crate::launch::At;
use ferrotile_kernels::gemm::mma::StageParams;
use crate::{Buffer, Context, LaunchConfig, Result};

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
/// 2026-11-26, docs/benchmarks/2026-11-26-h100-autotune/): the fastest of
/// the shipped rung 9 configurations at each shape, with a grid of medium
/// shapes whose blocks fill about one wave (768³–2560³), where the block
/// count decides between the tiles.
pub const AUTO_TABLE: &[AutoEntry] = &[
    AutoEntry { m: 128, n: 128, k: 128, variant: GemmVariant::Warptile(WarpConfig::B64x64x16W32x32) },
    AutoEntry { m: 512, n: 512, k: 512, variant: GemmVariant::Warptile(WarpConfig::B64x64x16W32x32) },
    AutoEntry { m: 1024, n: 1024, k: 1024, variant: GemmVariant::Warptile(WarpConfig::B64x128x16W32x64Lb3) },
    AutoEntry { m: 2048, n: 2048, k: 2048, variant: GemmVariant::Warptile(WarpConfig::B128x128x8W32x128Lb2) },
    AutoEntry { m: 4096, n: 4096, k: 4096, variant: GemmVariant::Warptile(WarpConfig::B128x128x8W32x128Lb2) },
    AutoEntry { m: 8192, n: 8192, k: 8192, variant: GemmVariant::Warptile(WarpConfig::B128x128x8W32x128Lb2) },
    AutoEntry { m: 4096, n: 1024, k: 8192, variant: GemmVariant::Warptile(WarpConfig::B128x128x8W32x128Lb2) },
    AutoEntry { m: 1000, n: 1000, k: 1000, variant: GemmVariant::Warptile(WarpConfig::B64x64x16W32x32) },
    AutoEntry { m: 256, n: 4096, k: 4096, variant: GemmVariant::Warptile(WarpConfig::B64x64x16W32x32) },
    AutoEntry { m: 4096, n: 256, k: 4096, variant: GemmVariant::Warptile(WarpConfig::B64x64x16W32x32) },
    AutoEntry { m: 768, n: 768, k: 768, variant: GemmVariant::Warptile(WarpConfig::B64x64x16W32x32) },
    AutoEntry { m: 1280, n: 1280, k: 1280, variant: GemmVariant::Warptile(WarpConfig::B64x128x16W32x64Lb3) },
    AutoEntry { m: 1408, n: 1408, k: 1408, variant: GemmVariant::Warptile(WarpConfig::B64x128x16W32x64Lb3) },
    AutoEntry { m: 1664, n: 1664, k: 1664, variant: GemmVariant::Warptile(WarpConfig::B128x64x8W64x32Lb3) },
    AutoEntry { m: 1792, n: 1792, k: 1792, variant: GemmVariant::Warptile(WarpConfig::B128x64x8W64x32Lb3) },
    AutoEntry { m: 2560, n: 2560, k: 2560, variant: GemmVariant::Warptile(WarpConfig::B64x128x16W32x64Lb3) },
    AutoEntry { m: 1280, n: 1280, k: 4096, variant: GemmVariant::Warptile(WarpConfig::B64x128x16W32x64Lb3) },
    AutoEntry { m: 2560, n: 640, k: 1280, variant: GemmVariant::Warptile(WarpConfig::B64x128x16W32x64Lb3) },
    AutoEntry { m: 640, n: 2560, k: 1280, variant: GemmVariant::Warptile(WarpConfig::B64x128x16W32x64Lb3) },
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

/// Whether the float4 rungs apply: every leading dimension a multiple of 4
/// (buffers are whole allocations, 256-byte aligned on the device).
pub(super) fn float4_ok(p: &GemmParams) -> bool {
    p.lda.is_multiple_of(4) && p.ldb.is_multiple_of(4) && p.ldc.is_multiple_of(4)
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
            GemmVariant::Mma(_) | GemmVariant::Wgmma(_) => unreachable!("tensor-core tiles launch through gemm::mma and gemm::wgmma"),
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

/// Runs rung `v` on the problem `p`: each matrix of the batch, in chunks
/// when one grid would exceed the launch limits (see [`plan_chunks`]);
/// `(ta, tb)`: whether `A`, `B` are stored transposed (only rung 5 has
/// kernels for that; the caller checked it).
pub(super) fn run(
    ctx: &Context,
    v: GemmVariant,
    (ta, tb): (bool, bool),
    p: &super::Problem,
    a: &Buffer<f32>,
    b: &Buffer<f32>,
    c: &mut Buffer<f32>,
) -> Result<()> {
    run_at(ctx, v, (ta, tb), p, (a, b, c), (0, 0, 0))
}

/// [`run`] on the matrices starting `base` = `(a, b, c)` elements into
/// the buffers (a peeled part of a product).
fn run_at(
    ctx: &Context,
    v: GemmVariant,
    (ta, tb): (bool, bool),
    p: &super::Problem,
    (a, b, c): (&Buffer<f32>, &Buffer<f32>, &mut Buffer<f32>),
    (oa, ob, oc): (usize, usize, usize),
) -> Result<()> {
    use k::launch::{MAX_GRID_X, MAX_GRID_YZ};
    let g = &p.g;
    let chunks = plan_chunks(g, |q| v.launch_config(q), [MAX_GRID_X, MAX_GRID_YZ]);
    for i in 0..p.batch {
        let [sa, sb, sc] = [(oa, p.strides[0]), (ob, p.strides[1]), (oc, p.strides[2])].map(|(o, s)| o + s * i);
        for ch in &chunks {
            let q = GemmParams { m: ch.m, n: ch.n, ..*g };
            // op(A)'s row m0 and op(B)'s column n0, in the stored layouts.
            let a_off = sa + if ta { ch.m0 } else { ch.m0 * g.lda as usize };
            let b_off = sb + if tb { ch.n0 * g.ldb as usize } else { ch.n0 };
            let c_off = sc + ch.m0 * g.ldc as usize + ch.n0;
            launch_chunk(ctx, v, (ta, tb), q, At::new(a, a_off), At::new(b, b_off), At::new(c, c_off))?;
        }
    }
    Ok(())
}

/// The operands the float4 rungs cannot read as stored (`(buffer,
/// layout, transposed)` each), as packed row-major copies whose rows start
/// 16-byte aligned (`None`: read as is). `transposed`: the stored matrix is
/// `op`'s transpose; a packed one (one matrix, or one shared by the batch)
/// whose copy has rows of a multiple of 4 goes through the transpose
/// kernels (full bandwidth, [`transposed_copy`]); the others through the
/// staging copy, both operands in one launch where both need a plain copy
/// ([`super::mma::stage_both`]: at these sizes a launch and its memory
/// round trips cost more than the bytes).
fn stage_operands<'c>(ctx: &'c Context, a: (&Buffer<f32>, Stored, bool), b: (&Buffer<f32>, Stored, bool), batch: usize) -> Result<[super::mma::Staged<'c, f32>; 2]> {
    use super::mma::TMA_PITCH;
    let (ta, tb) = (transposed_copy(ctx, a, batch)?, transposed_copy(ctx, b, batch)?);
    match (ta, tb) {
        (None, None) => {
            let (sa, sb) = super::mma::stage_both(ctx, (a.0, a.1, a.2, TMA_PITCH), (b.0, b.1, b.2, TMA_PITCH), batch, false)?;
            Ok([sa, sb])
        }
        (ta, tb) => Ok([
            ta.map_or_else(|| super::mma::stage(ctx, a.0, a.1, batch, a.2, false), |t| Ok(Some(t)))?,
            tb.map_or_else(|| super::mma::stage(ctx, b.0, b.1, batch, b.2, false), |t| Ok(Some(t)))?,
        ]),
    }
}

/// One operand as [`stage_operands`] stages it alone: its transposed copy
/// through the transpose kernels where that applies ([`transposed_copy`]),
/// else the staging copy (`None`: read as stored).
fn stage_operand<'c>(ctx: &'c Context, op: (&Buffer<f32>, Stored, bool), batch: usize) -> Result<super::mma::Staged<'c, f32>> {
    transposed_copy(ctx, op, batch)?.map_or_else(|| super::mma::stage(ctx, op.0, op.1, batch, op.2, false), |t| Ok(Some(t)))
}

/// A transposed operand's copy through the transpose kernels, where it is
/// one packed matrix (or one shared by the batch) whose copy has rows of a
/// multiple of 4 and a transpose kernel beats a copy; `None` otherwise.
fn transposed_copy<'c>(ctx: &'c Context, (src, s, transpose): (&Buffer<f32>, Stored, bool), batch: usize) -> Result<super::mma::Staged<'c, f32>> {
    use crate::transpose::TransposeVariant;
    let one = batch == 1 || s.stride == 0;
    if !(transpose && one && s.ld == s.cols && s.rows % 4 == 0) {
        return Ok(None);
    }
    // Stored: `rows` rows of `cols`; the copy: `cols` rows of `rows`.
    let (nx, ny) = (s.cols, s.rows);
    let v = TransposeVariant::fastest_for(nx, ny);
    if v == TransposeVariant::Copy {
        return Ok(None);
    }
    // Every element is written by the transpose: no clearing (a kept
    // staging buffer may be longer; the rest is not read).
    let mut dst = ctx.scratch::<f32>(nx * ny)?;
    crate::transpose::launch_variant(ctx, v, src, &mut dst, nx as u32, ny as u32)?;
    Ok(Some((dst, Stored { rows: nx, cols: ny, ld: ny, stride: 0 })))
}

/// Whether `Auto` runs a float4 rung through [`run_any`]: an operand is
/// stored transposed, or a leading dimension or batch stride is not a
/// multiple of 4.
pub(super) fn needs_staging(p: &super::Problem) -> bool {
    let (ta, tb) = p.transposes;
    ta || tb || !float4_ok(&p.g) || (p.batch > 1 && p.strides.iter().any(|s| s % 4 != 0))
}

/// How `Auto` splits `k` for an `m × n × k` product on a GPU of `sms`
/// multiprocessors: the split-k kernel's tiling and the slices (1: no
/// split). Two cases split:
///
/// * **Skinny and deep** (fewer 64 × 64 tiles of `C` than
///   multiprocessors, long `k`): the slices fill one wave of the tiling's
///   blocks (its launch bounds' blocks per SM on every SM), each at least
///   [`SPLIT_K_MIN_DEPTH`](k::gemm::simt::index::SPLIT_K_MIN_DEPTH) deep;
///   the tiling is the one that covers `C` with the least padding among
///   those whose wave gives every SM a block (the larger tile on a tie:
///   more FMAs per shared load), else the one with the most blocks.
/// * **One uneven or thin wave** (the unsplit rung's blocks fit on the
///   GPU at once, but some multiprocessors get one block more than
///   others, as 144 blocks on 132 SMs, or fewer blocks than their launch
///   bounds allow): the split with the least estimated time
///   ([`one_wave_cost`]) when it beats the unsplit rung's by
///   [`SPLIT_K_MIN_GAIN`].
pub fn split_k_plan(m: usize, n: usize, k: usize, sms: usize) -> (SplitConfig, usize) {
    let small = SplitConfig::B64x64x16W32x32;
    let sms = sms.max(1);
    if m == 0 || n == 0 {
        return (small, 1); // an empty `C`: nothing to split
    }
    let room = k / k::gemm::simt::index::SPLIT_K_MIN_DEPTH as usize;
    let tiles = |t: Tiling| t.tiles(m, n);
    if tiles(small.config()) < sms {
        // Slices of one full wave of `c`'s blocks, and those blocks.
        let wave = |c: SplitConfig| {
            let s = ((c.blocks_per_sm() * sms) / tiles(c.config())).min(room).max(1);
            (s, s * tiles(c.config()))
        };
        let area = |c: &SplitConfig| (c.padded_area(m, n), std::cmp::Reverse(c.config().bm * c.config().bn));
        let fills = SplitConfig::ALL.iter().copied().filter(|&c| wave(c).1 >= sms).min_by_key(area);
        let c = fills.unwrap_or_else(|| SplitConfig::ALL.iter().copied().max_by_key(|&c| (wave(c).1, std::cmp::Reverse(area(&c)))).unwrap_or(small));
        let s = wave(c).0;
        return (c, if s < 2 { 1 } else { s });
    }
    // One wave: the unsplit rung against every split that fits in one
    // wave.
    let v = auto_variant(m, n, k, sms);
    let Some(t) = v.tiling() else { return (small, 1) };
    let bps = bounds_blocks_per_sm(v.name());
    let blocks = tiles(t);
    if blocks > bps * sms {
        return (small, 1);
    }
    let unsplit = one_wave_cost(t, bps, blocks, sms, k, 1, m * n);
    // Slice counts whose blocks fit one wave of the tile's launch bounds.
    let best = SplitConfig::ALL
        .iter()
        .flat_map(|&c| (2..=room.min(c.blocks_per_sm() * sms / tiles(c.config()))).map(move |s| (c, s)))
        .map(|(c, s)| {
            let ks = k::gemm::simt::split_k_depth(k as u32, s as u32, c.config().bk as u32) as usize;
            let s = k.div_ceil(ks);
            ((c, s), one_wave_cost(c.config(), c.blocks_per_sm(), tiles(c.config()) * s, sms, ks, s, m * n))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1));
    match best {
        Some((plan, cost)) if cost < (1.0 - SPLIT_K_MIN_GAIN) * unsplit => plan,
        _ => (small, 1),
    }
}

/// The rung `Auto` runs a float4 product on unsplit: [`pick`]'s nearest
/// [`AUTO_TABLE`] entry, unless that rung's blocks fit in one wave on
/// `sms` multiprocessors and another rung of the table with launch bounds
/// whose blocks fit too is estimated faster ([`one_wave_cost`]) by
/// [`SPLIT_K_MIN_GAIN`] (the table was measured at shapes whose waves
/// are full; between them the block count decides).
pub fn auto_variant(m: usize, n: usize, k: usize, sms: usize) -> GemmVariant {
    let v = pick(AUTO_TABLE, m, n, k, true);
    let cost = |v: GemmVariant| -> Option<f64> {
        let t = v.tiling()?;
        let (bps, blocks) = (bounds_blocks_per_sm(v.name()), t.tiles(m, n));
        (blocks <= bps * sms).then(|| one_wave_cost(t, bps, blocks, sms, k, 1, m * n) / tile_rate(&t))
    };
    let Some(base) = cost(v) else { return v };
    let bounded = |v: &GemmVariant| k::gemm::simt::bounds_blocks_per_sm(v.name()).is_some();
    let best = AUTO_TABLE.iter().map(|e| e.variant).filter(bounded).filter_map(|w| Some((w, cost(w)?))).min_by(|a, b| a.1.total_cmp(&b.1));
    match best {
        Some((w, c)) if c < (1.0 - SPLIT_K_MIN_GAIN) * base => w,
        _ => v,
    }
}

/// The least fraction of the unsplit rung's estimated time a split must
/// save before `Auto` takes it (the estimate is coarse).
pub const SPLIT_K_MIN_GAIN: f64 = 0.1;

/// A block's fixed cost (pipeline fill, epilogue, the launch's tail) in
/// steps of `k`: what the H100 measured for short split-k slices (1000³
/// in 3 slices ran its products at two thirds of the rate of 4000-deep
/// ones).
pub const BLOCK_OVERHEAD_DEPTH: usize = 256;

/// FMAs an SM could issue in the time the GPU moves one byte (an H100's
/// f32 FMA rate over its memory bandwidth, rounded: 33.5 T / 3 TB/s).
const FMAS_PER_BYTE: usize = 11;

/// The estimated time of one wave of `blocks` blocks of tiling `t`
/// (launch bounds for `bps` blocks per SM), each `depth` deep, in FMAs
/// of the busiest of `sms` multiprocessors: the blocks spread evenly, so it holds `L = ⌈blocks / sms⌉` of
/// them and issues their FMAs at the rate [`tiling_rate`] gives `L`
/// blocks. With `slices > 1` the split-k workspace traffic is
/// added (each slice of the `elems` elements of `C` written and read,
/// `C` written), spread over the SMs. Each block also pays
/// [`BLOCK_OVERHEAD_DEPTH`].
pub fn one_wave_cost(t: Tiling, bps: usize, blocks: usize, sms: usize, depth: usize, slices: usize, elems: usize) -> f64 {
    let sms = sms.max(1);
    let l = blocks.div_ceil(sms);
    let product = (l * t.bm * t.bn * (depth + BLOCK_OVERHEAD_DEPTH)) as f64 / tiling_rate(l, bps);
    let reduce = if slices > 1 { ((2 * slices + 1) * elems * 4 * FMAS_PER_BYTE) as f64 / sms as f64 } else { 0.0 };
    product + reduce
}

/// The FMA rate of a tile with `l` blocks per SM and launch bounds for
/// `bps`, relative to its rate at full occupancy: `√(min(l, bps) / bps)`
/// (fewer blocks hide less of each other's latency; coarse, between what
/// the H100 measured for one block per SM of the 128 × 128 and the
/// 64 × 128 tiles).
pub fn tiling_rate(l: usize, bps: usize) -> f64 {
    (l.clamp(1, bps.max(1)) as f64 / bps.max(1) as f64).sqrt()
}

/// The rung 9 block tiles' FMA rates at full occupancy relative to the
/// 128 × 128 tile: the products alone at 4096³ on the H100 (2.78, 3.02,
/// 3.19 and 3.52 ms, docs/benchmarks/2026-11-26-h100-splitk/run1).
/// [`auto_variant`] weighs the unsplit tiles with them; the split-k tiles
/// are compared by occupancy alone ([`one_wave_cost`]): at the medium
/// shapes measured (run 5 of that directory) their order does not follow
/// these rates (the 128 × 64 tile was the fastest split of two of five).
pub const TILE_RATES: &[((usize, usize), f64)] = &[((128, 128), 1.0), ((64, 128), 0.92), ((128, 64), 0.87), ((64, 64), 0.79)];

/// The full-occupancy rate of tile `t` ([`TILE_RATES`]; 0.8 for a tile
/// not measured).
pub fn tile_rate(t: &Tiling) -> f64 {
    TILE_RATES.iter().find(|r| r.0 == (t.bm, t.bn)).map_or(0.8, |r| r.1)
}

/// Blocks per SM of `kernel`'s launch bounds (2 without bounds, as
/// [`SplitConfig::blocks_per_sm`] assumes).
fn bounds_blocks_per_sm(kernel: &str) -> usize {
    k::gemm::simt::bounds_blocks_per_sm(kernel).unwrap_or(2)
}

/// The slices of [`split_k_plan`] (1: no split).
pub fn split_k_slices(m: usize, n: usize, k: usize, sms: usize) -> usize {
    split_k_plan(m, n, k, sms).1
}

/// Multiprocessors `Auto` assumes when the context does not say (the
/// emulator): an H100's.
pub(super) const DEFAULT_SMS: usize = 132;

/// Whether [`run_any`] reads an `A` stored transposed as stored, through
/// rung `v`'s twin ([`WarpTConfig::twin`]), instead of a transposed copy:
/// `v` is a rung 9 tiling with a twin, the product is neither split nor
/// peeled, and the stored `A` and `C` read as float4s (leading dimensions
/// and batch strides multiples of 4).
pub(super) fn reads_a_transposed(v: GemmVariant, split: (SplitConfig, usize), peel: Option<(usize, usize)>, p: &super::Problem, sa: Stored) -> bool {
    let GemmVariant::Warptile(w) = v else { return false };
    let one = p.batch == 1;
    let a_aligned = sa.ld.is_multiple_of(4) && (one || sa.stride.is_multiple_of(4));
    let c_aligned = p.g.ldc.is_multiple_of(4) && (one || p.strides[2].is_multiple_of(4));
    WarpTConfig::twin(w).is_some() && split.1 <= 1 && peel.is_none() && a_aligned && c_aligned
}

/// Runs float4 rung `v` on any layout, `k` in `split.1` slices with the
/// split-k tiling `split.0` (split-k, `split.1 > 1`, one matrix only): transposed operands and operands whose
/// rows are not 16-byte aligned are staged into packed row-major copies
/// first ([`stage_operands`]); a `C` whose `ldc` is not a multiple of 4
/// takes the epilogue's scalar stores; a batch of `C`s with a multiple of 4
/// as `ldc` but a batch stride that is not is computed into a packed copy
/// and copied back (split-k's reduction writes any `C`). The copies cost
/// one pass over each staged matrix, against the product's `k` passes.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_any(
    ctx: &Context,
    v: GemmVariant,
    split: (SplitConfig, usize),
    peel: Option<(usize, usize)>,
    (ta, tb): (bool, bool),
    p: &super::Problem,
    a: &Buffer<f32>,
    b: &Buffer<f32>,
    c: &mut Buffer<f32>,
) -> Result<()> {
    let g = p.g;
    let (m, n) = (g.m as usize, g.n as usize);
    let [sa, sb] = Stored::operands(p, (ta, tb));
    if ta && reads_a_transposed(v, split, peel, p, sa) {
        // `A` as stored through the tiling's twin; `B` as stored or its
        // row-major copy (transposed, or rows realigned).
        let staged_b = stage_operand(ctx, (b, sb, tb), p.batch)?;
        let (b, sb) = staged_b.as_ref().map_or((b, sb), |(buf, s)| (buf, *s));
        let q = super::Problem { g: GemmParams { ldb: sb.ld as u32, ..g }, batch: p.batch, strides: [p.strides[0], sb.stride, p.strides[2]], transposes: (true, false) };
        return run(ctx, v, (true, false), &q, a, b, c);
    }
    let [staged_a, staged_b] = stage_operands(ctx, (a, sa, ta), (b, sb, tb), p.batch)?;
    let (a, sa) = staged_a.as_ref().map_or((a, sa), |(buf, s)| (buf, *s));
    let (b, sb) = staged_b.as_ref().map_or((b, sb), |(buf, s)| (buf, *s));
    let mut q = super::Problem {
        g: GemmParams { lda: sa.ld as u32, ldb: sb.ld as u32, ..g },
        batch: p.batch,
        strides: [sa.stride, sb.stride, p.strides[2]],
        transposes: (false, false),
    };
    if split.1 > 1 && p.batch == 1 {
        return run_split_k(ctx, split, &q.g, (a, b, c), (0, 0, 0));
    }
    if let (Some(bulk), 1) = (peel, p.batch) {
        return run_peeled(ctx, v, bulk, &q.g, (a, b, c));
    }
    // The float4 epilogue stores scalars when `ldc` is not a multiple of
    // 4; with one that is, every matrix of `C` must start 16-byte aligned.
    let c_misaligned = g.ldc.is_multiple_of(4) && p.batch > 1 && !p.strides[2].is_multiple_of(4);
    if !c_misaligned {
        return run(ctx, v, (false, false), &q, a, b, c);
    }
    let sc = Stored { rows: m, cols: n, ld: g.ldc as usize, stride: p.strides[2] };
    match super::mma::stage(ctx, c, sc, p.batch, false, false)? {
        None => run(ctx, v, (false, false), &q, a, b, c),
        Some((mut packed, pc)) => {
            q.g.ldc = pc.ld as u32;
            q.strides[2] = pc.stride;
            run(ctx, v, (false, false), &q, a, b, &mut packed)?;
            let sp = StageParams {
                rows: m as u32,
                cols: n as u32,
                ld_src: pc.ld as u32,
                ld_dst: g.ldc,
                batch: if pc.stride == 0 { 1 } else { p.batch as u32 },
                transpose: 0,
                stride_src: pc.stride as u64,
                stride_dst: p.strides[2] as u64,
                zero_pad: 0,
                round_tf32: 0,
            };
            let cfg = k::gemm::mma::stage_config(&sp, 4);
            launch!(ctx, k::gemm::mma::gemm_stage_f32, cfg, &*packed, c, sp)
        }
    }
}

/// Split-k on one matrix whose `A` and `B` rows are 16-byte aligned: the
/// partial products of `slices` slices of `k` (tiling `split`) into an
/// f32 workspace, then the deterministic reduction into `C` with `α`, `β`.
fn run_split_k(
    ctx: &Context,
    (split, slices): (SplitConfig, usize),
    g: &GemmParams,
    (a, b, c): (&Buffer<f32>, &Buffer<f32>, &mut Buffer<f32>),
    (oa, ob, oc): (usize, usize, usize),
) -> Result<()> {
    use k::gemm::simt::{index::split_k_slices as cover, split_k_config, split_k_depth, split_k_reduce_config};
    let t = split.config();
    let ks = split_k_depth(g.k, slices as u32, t.bk as u32);
    let s = cover(g.k, ks);
    let ldw = (g.n as usize).next_multiple_of(4);
    // Every slice's block tiles write every element of their slice (the
    // handle's kept workspace: `Context::workspace`).
    let ws = ctx.workspace(s as usize * g.m as usize * ldw)?;
    let q = GemmParams { ldc: ldw as u32, alpha: 1.0, beta: 0.0, ..*g };
    split.launch(ctx, split_k_config(&t, &q, ks), q, ks, At::new(a, oa), At::new(b, ob), &ws)?;
    launch!(ctx, k::gemm::simt::sgemm_split_k_reduce, split_k_reduce_config(g), *g, ldw as u32, s, &*ws, At::new(c, oc))
}

/// Where `Auto` peels the edges of an `m × n` `C` for its rung `v` on a
/// GPU of `sms` multiprocessors: the bulk `(m', n')` of whole block tiles
/// that rung `v` computes, the rows `m'..m` and the columns `n'..n` of the
/// bulk's rows being thin products of their own; `None`:
/// no peeling. `force`: [`Gemm::peel_edges`](super::Gemm::peel_edges)
/// (`Some(true)`: every remainder, `Some(false)`: none).
///
/// `Auto` peels a side whose remainder is at most an eighth of the tile
/// ([`PEEL_MAX_FRACTION`]) when the bulk's blocks take at least
/// [`SPLIT_K_MIN_GAIN`] fewer waves (the tiling's launch-bound blocks on
/// every SM) than the whole grid's: the remainder's blocks then cost a
/// wave of full-depth blocks for a few rows or columns (4097³ on 128 × 128
/// tiles: 1089 blocks, 5 waves of 264 on an H100; the bulk's 1024, 4),
/// where the thin products read `A` or `B` once. A wave in 17 (8193² ×
/// 1024) measured no gain: the last, nearly empty wave of the whole grid
/// runs faster than a full one, and the thin products cost their launches.
pub fn peel_plan(m: usize, n: usize, v: GemmVariant, sms: usize, force: Option<bool>) -> Option<(usize, usize)> {
    let t = v.tiling()?;
    let cut = |x: usize, tile: usize, any: bool| {
        let r = x % tile;
        if x > tile && r > 0 && (any || r * PEEL_MAX_FRACTION <= tile) { x - r } else { x }
    };
    let forced = force == Some(true);
    let (mb, nb) = (cut(m, t.bm, forced), cut(n, t.bn, forced));
    if (mb, nb) == (m, n) || force == Some(false) {
        return None;
    }
    if forced {
        return Some((mb, nb));
    }
    let slots = (sms.max(1) * bounds_blocks_per_sm(v.name())).max(1);
    let waves = |m: usize, n: usize| t.tiles(m, n).div_ceil(slots) as f64;
    (waves(mb, nb) <= (1.0 - SPLIT_K_MIN_GAIN) * waves(m, n)).then_some((mb, nb))
}

/// The largest remainder [`peel_plan`] peels on its own: `1 / PEEL_MAX_FRACTION`
/// of the tile's side.
pub const PEEL_MAX_FRACTION: usize = 8;

/// Rung `v` on the bulk `m' × n'` of whole block tiles of one matrix
/// (row-major operands whose rows are 16-byte aligned), then the rows
/// `m'..m` (all `n` columns) and the columns `n'..n` of rows `0..m'`, each
/// a thin product run as `Auto` would run it on its own (split-k for
/// long `k`). Every element of `C` is written by exactly one of the three,
/// with `α` and `β`.
fn run_peeled(ctx: &Context, v: GemmVariant, (mb, nb): (usize, usize), g: &GemmParams, (a, b, c): (&Buffer<f32>, &Buffer<f32>, &mut Buffer<f32>)) -> Result<()> {
    let sms = super::sm_count(ctx);
    let (m, n, k) = (g.m as usize, g.n as usize, g.k as usize);
    let one = |g: GemmParams| super::Problem { g, batch: 1, strides: [0; 3], transposes: (false, false) };
    run_at(ctx, v, (false, false), &one(GemmParams { m: mb as u32, n: nb as u32, ..*g }), (a, b, &mut *c), (0, 0, 0))?;
    // A thin part: `rows × cols` of `C` from its row r0 and column c0.
    let mut part = |rows: usize, cols: usize, (r0, c0): (usize, usize)| -> Result<()> {
        let q = GemmParams { m: rows as u32, n: cols as u32, ..*g };
        let base = (r0 * g.lda as usize, c0, r0 * g.ldc as usize + c0);
        match split_k_plan(rows, cols, k, sms) {
            (split, s) if s > 1 => run_split_k(ctx, (split, s), &q, (a, b, &mut *c), base),
            _ => run_at(ctx, auto_variant(rows, cols, k, sms), (false, false), &one(q), (a, b, &mut *c), base),
        }
    };
    if mb < m {
        part(m - mb, n, (mb, 0))?;
    }
    if nb < n {
        part(mb, n - nb, (0, nb))?;
    }
    Ok(())
}

/// One `launch!` arm per split-k tiling (from `simt_split_k_table!`).
macro_rules! split_k_launcher {
    (
        $(#[$emeta:meta])* pub enum $Enum:ident: $Cfg:ty;
        $( $(#[$doc:meta])* [$gate:meta] $V:ident => $kernel:ident = $define:ident!($cfg:ident), bounds $lb:literal; )*
    ) => {
        impl SplitLaunch for $Enum {
            fn launch(self, ctx: &Context, cfg: LaunchConfig, p: GemmParams, ks: u32, a: At<f32>, b: At<f32>, ws: &Buffer<f32>) -> Result<()> {
                match self {
                    $( #[$gate] $Enum::$V => launch!(ctx, ferrotile_kernels::gemm::simt::$kernel, cfg, p, ks, a, b, ws), )*
                }
            }
        }
    };
}

/// A split-k tiling that can launch its partial-product kernel.
trait SplitLaunch {
    /// Launches the kernel on `p` with slices of `ks` into `ws`.
    #[allow(clippy::too_many_arguments)]
    fn launch(self, ctx: &Context, cfg: LaunchConfig, p: GemmParams, ks: u32, a: At<f32>, b: At<f32>, ws: &Buffer<f32>) -> Result<()>;
}
ferrotile_kernels::simt_split_k_table!(split_k_launcher);

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
        $( $(#[$doc:meta])* [$gate:meta] $V:ident => $kernel:ident = $define:ident!($cfg:ident), bounds $lb:literal; )*
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
ferrotile_kernels::simt_warptile_t_table!(simt_launcher);
ferrotile_kernels::simt_multistage_table!(simt_launcher);
#[cfg(ferrotile_experiments)]
ferrotile_kernels::simt_multistage_t_table!(simt_launcher);

/// Launches rung `v` on one (sub-)problem `p` whose operands start at `a`,
/// `b`, `c`.
fn launch_chunk(ctx: &Context, v: GemmVariant, (ta, tb): (bool, bool), p: GemmParams, a: At<f32>, b: At<f32>, c: At<f32>) -> Result<()> {
    let cfg = v.launch_config(&p);
    match v {
        GemmVariant::Auto => unreachable!("Auto is resolved before launching"),
        GemmVariant::Mma(_) | GemmVariant::Wgmma(_) => unreachable!("tensor-core tiles launch through gemm::mma and gemm::wgmma"),
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
        // `A` stored transposed: the tiling's twin, which reads it as
        // stored (the engine checked that there is one and `B` is not).
        GemmVariant::Warptile(w) => match WarpTConfig::twin(w).filter(|_| ta && !tb) {
            Some(t) => t.launch(ctx, cfg, p, a, b, c),
            None => w.launch(ctx, cfg, p, a, b, c),
        },
        GemmVariant::Multistage(w) => w.launch(ctx, cfg, p, a, b, c),
        #[cfg(ferrotile_experiments)]
        GemmVariant::MultistageT(w) => w.launch(ctx, cfg, p, a, b, c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gemm::Gemm;

    /// `Auto` reads a transposed `A` through its tiling's twin where the
    /// stored `A` and `C` read as float4s and nothing is split or peeled;
    /// a transposed `B` alone, an unaligned `lda`, or a split product keep
    /// the copies.
    #[test]
    fn auto_takes_the_a_transposed_twin_where_it_reads_as_stored() -> Result<()> {
        let ctx = Context::emulator();
        let twin = |g: Gemm| g.transposed_twin_on(&ctx);
        let v = auto_variant(1000, 1000, 1000, DEFAULT_SMS);
        let GemmVariant::Warptile(w) = v else { panic!("1000³ runs a warptile tiling, not {}", v.name()) };
        assert_eq!(twin(Gemm::new(1000, 1000, 1000).transpose_a(true))?, WarpTConfig::twin(w));
        assert!(WarpTConfig::twin(w).is_some());
        assert_eq!(twin(Gemm::new(1000, 1000, 1000).transpose_a(true).transpose_b(true))?, WarpTConfig::twin(w));
        assert_eq!(twin(Gemm::new(1000, 1000, 1000).transpose_b(true))?, None);
        assert_eq!(twin(Gemm::new(1000, 1000, 1000).transpose_a(true).lda(1001))?, None);
        assert_eq!(twin(Gemm::new(1000, 1000, 1000).transpose_a(true).ldc(1002))?, None);
        assert_eq!(twin(Gemm::new(1000, 1000, 1000))?, None);
        // Skinny and deep: split-k, the copy.
        assert!(split_k_slices(64, 64, 65536, DEFAULT_SMS) > 1);
        assert_eq!(twin(Gemm::new(64, 64, 65536).transpose_a(true))?, None);
        Ok(())
    }

    /// The split-K reduction is bit for bit `α·(((0 + s₀) + s₁) + …) + β·C`
    /// (one fma) in slice order, reading the workspace with its own
    /// leading dimension; β = 0 never reads `C`. Slices of very different
    /// magnitudes, so that another order or association would show.
    #[test]
    fn split_k_reduction_is_the_ordered_sum_bit_for_bit() -> Result<()> {
        let ctx = Context::emulator();
        let mut rng = crate::testing::Rng::new(0x5_1e7);
        for (m, n, ldc, ldw, slices, beta) in [(1u32, 1u32, 1u32, 4u32, 1u32, 0.5f32), (7, 9, 11, 12, 3, -0.75), (33, 31, 31, 32, 5, 0.0), (5, 130, 131, 132, 2, 1.25)] {
            let g = GemmParams { m, n, k: 1, lda: 1, ldb: n, ldc, alpha: 1.5, beta };
            let slice = m as usize * ldw as usize;
            let ws: Vec<f32> = (0..slices as usize * slice).map(|i| rng.f32() * [1.0, 1e4, 1e-3, 3e7][(i / slice) % 4]).collect();
            let c0: Vec<f32> = (0..m as usize * ldc as usize).map(|_| if beta == 0.0 { f32::NAN } else { rng.f32() }).collect();
            let (wsb, mut cb) = (ctx.upload(&ws)?, ctx.upload(&c0)?);
            let _op = ctx.op(&[], &[])?;
            let c = &mut cb;
            launch!(&ctx, k::gemm::simt::sgemm_split_k_reduce, k::gemm::simt::split_k_reduce_config(&g), g, ldw, slices, &wsb, c)?;
            let got = cb.download()?;
            for r in 0..m as usize {
                for col in 0..ldc as usize {
                    let o = r * ldc as usize + col;
                    if col >= n as usize {
                        assert_eq!(got[o].to_bits(), c0[o].to_bits(), "padding ({r}, {col}) untouched");
                        continue;
                    }
                    let mut sum = 0f32;
                    for z in 0..slices as usize {
                        sum += ws[(z * m as usize + r) * ldw as usize + col];
                    }
                    let want = if beta == 0.0 { g.alpha * sum } else { beta.mul_add(c0[o], g.alpha * sum) };
                    assert_eq!(got[o].to_bits(), want.to_bits(), "{m}x{n}, {slices} slices, ({r}, {col})");
                }
            }
        }
        Ok(())
    }

    /// Auto peels thin remainders whose blocks would cost a wave, nothing
    /// else; forced, every remainder; the bulk is whole tiles.
    #[test]
    fn peel_plans_cut_thin_remainders_that_cost_a_wave() {
        let big = GemmVariant::Warptile(WarpConfig::B128x128x8W32x128Lb2);
        let small = GemmVariant::Warptile(WarpConfig::B64x64x16W32x32);
        assert_eq!(peel_plan(4097, 4097, big, 132, None), Some((4096, 4096)));
        // 33 × 32 = 1056 blocks fill exactly 4 waves of 264: the bulk's
        // 1024 take as many.
        assert_eq!(peel_plan(4097, 4096, big, 132, None), None);
        assert_eq!(peel_plan(2049, 2049, big, 132, None), Some((2048, 2048)));
        // 16 waves against 17: too little to gain (measured).
        assert_eq!(peel_plan(8193, 8193, big, 132, None), None);
        assert_eq!(peel_plan(4096, 4096, big, 132, None), None);
        assert_eq!(peel_plan(4097, 4097, big, 132, Some(false)), None);
        // A remainder of more than an eighth of the tile stays.
        assert_eq!(peel_plan(4096 + 17, 4096 + 17, big, 132, None), None);
        // The same block count in waves: nothing to gain.
        assert_eq!(peel_plan(1025, 1025, big, 132, None), None);
        assert_eq!(peel_plan(130, 133, small, 132, None), None);
        assert_eq!(peel_plan(130, 133, small, 132, Some(true)), Some((128, 128)));
        assert_eq!(peel_plan(63, 133, small, 132, Some(true)), Some((63, 128)));
        assert_eq!(peel_plan(64, 64, small, 132, Some(true)), None);
        assert_eq!(peel_plan(4097, 4097, GemmVariant::Naive, 132, Some(true)), None);
        // The GPU test's shape: Auto's rung there peels on an H100.
        assert_eq!(peel_plan(2049, 2049, auto_variant(2049, 2049, 1024, 132), 132, None), Some((2048, 2048)));
    }

    proptest::proptest! {
        #[test]
        fn peel_plans_keep_whole_tiles_and_thin_remainders(m in 1usize..20000, n in 1usize..20000, vi in 0usize..4, sms in 1usize..200, force in proptest::option::of(proptest::bool::ANY)) {
            let v = GemmVariant::Warptile(WarpConfig::ALL[vi % WarpConfig::ALL.len()]);
            let t = v.tiling().unwrap();
            if let Some((mb, nb)) = peel_plan(m, n, v, sms, force) {
                proptest::prop_assert!(force != Some(false));
                proptest::prop_assert!((mb, nb) != (m, n) && mb >= 1 && nb >= 1 && mb <= m && nb <= n);
                for (x, b, tile) in [(m, mb, t.bm), (n, nb, t.bn)] {
                    proptest::prop_assert!(b == x || b % tile == 0);
                    if force.is_none() {
                        proptest::prop_assert!(b == x || (x - b) * PEEL_MAX_FRACTION <= tile);
                    }
                }
            }
        }
    }

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
            let split = SplitConfig::from_name(b.kernel).map(|c| (c.config().threads() as u32, c.config().shared_bytes()));
            let twin = WarpTConfig::from_name(b.kernel).map(|c| (c.config().threads() as u32, c.config().shared_bytes()));
            let resources = v.and_then(|v| v.block_resources()).or(split).or(twin);
            let (threads, shared) = resources.unwrap_or_else(|| panic!("{} has launch bounds but no float4 variant", b.kernel));
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

    proptest::proptest! {
        /// The split fills at most one wave of the chosen tiling's blocks,
        /// with slices at least the minimum depth. Skinny and deep `C`s
        /// (fewer 64 × 64 tiles than SMs): the tiling pads `C` no more
        /// than any other that gives every SM a block. Others split only
        /// where the unsplit rung's one wave is uneven, and then save at
        /// least the minimum gain in the estimate.
        #[test]
        fn split_k_plans_fill_one_wave_with_the_least_padding(m in 1usize..3000, n in 1usize..3000, k in 1usize..200_000, sms in 1usize..200) {
            let (c, s) = split_k_plan(m, n, k, sms);
            let t = c.config();
            let tiles = |t: Tiling| t.tiles(m, n);
            if s > 1 {
                proptest::prop_assert!(s * tiles(t) <= c.blocks_per_sm() * sms, "{c:?} × {s}: over one wave");
                proptest::prop_assert!(k / s >= k::gemm::simt::index::SPLIT_K_MIN_DEPTH as usize);
                if m.div_ceil(64) * n.div_ceil(64) >= sms {
                    let v = auto_variant(m, n, k, sms);
                    let vt = v.tiling().unwrap();
                    let blocks = tiles(vt);
                    proptest::prop_assert!(blocks <= bounds_blocks_per_sm(v.name()) * sms);
                    let ks = k.div_ceil(s);
                    let split = one_wave_cost(t, c.blocks_per_sm(), tiles(t) * s, sms, ks.next_multiple_of(t.bk), s, m * n);
                    let unsplit = one_wave_cost(vt, bounds_blocks_per_sm(v.name()), blocks, sms, k, 1, m * n);
                    proptest::prop_assert!(split < (1.0 - SPLIT_K_MIN_GAIN) * unsplit, "{split} vs {unsplit}");
                } else if s * tiles(t) >= sms {
                    for o in SplitConfig::ALL {
                        let o_tiles = tiles(o.config());
                        let o_s = (o.blocks_per_sm() * sms / o_tiles).min(k / k::gemm::simt::index::SPLIT_K_MIN_DEPTH as usize).max(1);
                        if o_s * o_tiles >= sms {
                            proptest::prop_assert!(c.padded_area(m, n) <= o.padded_area(m, n), "{c:?} pads more than {o:?}");
                        }
                    }
                }
            }
        }
    }

    proptest::proptest! {
        /// Auto's unsplit rung is the table's nearest one, or a bounded
        /// rung of the table whose blocks fit one wave and whose weighted
        /// estimate beats the nearest one's by the margin.
        #[test]
        fn auto_variant_keeps_the_nearest_entry_unless_one_wave_says_otherwise(m in 1usize..5000, n in 1usize..5000, k in 1usize..20000, sms in 1usize..200) {
            let (v, w) = (pick(AUTO_TABLE, m, n, k, true), auto_variant(m, n, k, sms));
            if v != w {
                proptest::prop_assert!(AUTO_TABLE.iter().any(|e| e.variant == w));
                let cost = |v: GemmVariant| {
                    let t = v.tiling().unwrap();
                    let (bps, blocks) = (bounds_blocks_per_sm(v.name()), t.tiles(m, n));
                    proptest::prop_assert!(blocks <= bps * sms);
                    Ok(one_wave_cost(t, bps, blocks, sms, k, 1, m * n) / tile_rate(&t))
                };
                proptest::prop_assert!(k::gemm::simt::bounds_blocks_per_sm(w.name()).is_some());
                proptest::prop_assert!(cost(w)? < (1.0 - SPLIT_K_MIN_GAIN) * cost(v)?);
            }
        }
    }

    #[test]
    fn split_k_plans_of_degenerate_shapes_do_not_panic() {
        for (m, n, k, sms) in [(0, 0, 0, 0), (1, 1, 1, 0), (0, 7, 9, 132), (5000, 5000, 0, 1), (1, 1, 1 << 30, 1)] {
            let (_, s) = split_k_plan(m, n, k, sms);
            assert!(s >= 1);
        }
        assert!(one_wave_cost(SplitConfig::B64x64x16W32x32.config(), 0, 0, 0, 0, 2, 0).is_finite());
    }

    #[test]
    fn split_k_plans_of_the_benchmark_classes() {
        // Deep: four 128 × 128 tiles, 66 slices fill two blocks on 132 SMs.
        assert_eq!(split_k_plan(256, 256, 65536, 132), (SplitConfig::B128x128x8W32x128Lb2, 66));
        // Skinny: the tiles that fit 64 rows (or columns) without padding.
        assert_eq!(split_k_plan(64, 4096, 4096, 132), (SplitConfig::B64x128x16W32x64Lb3, 12));
        assert_eq!(split_k_plan(4096, 64, 4096, 132), (SplitConfig::B128x64x8W64x32Lb3, 12));
        // Too little k for a wave of large tiles: the most blocks.
        assert_eq!(split_k_plan(512, 512, 512, 132), (SplitConfig::B64x64x16W32x32, 2));
        // Enough tiles already: no split; 64 tiles of 128 × 128 leave half
        // the SMs idle: split.
        assert_eq!(split_k_plan(2048, 2048, 65536, 132).1, 1);
        assert!(split_k_plan(1024, 1024, 65536, 132).1 > 1);
        assert_eq!(split_k_plan(4096, 4096, 4096, 132).1, 1);
        // One wave of one block per SM, each long enough: no split.
        assert_eq!(split_k_plan(1000, 1000, 1000, 132).1, 1);
        assert_eq!(split_k_plan(1024, 1024, 1024, 132).1, 1);
        // One uneven wave (144 blocks of 64 × 128 on 132 SMs), or a thin
        // one of deep blocks: split.
        assert!(split_k_plan(1023, 1025, 1021, 132).1 > 1);
        assert!(split_k_plan(1000, 1000, 4000, 132).1 > 1);
        // 264 blocks of 128 × 64 (two per SM) rather than the table's
        // nearest rung, 282 blocks of 64 × 128 (three on some SMs).
        assert_eq!(auto_variant(3000, 700, 900, 132), GemmVariant::Warptile(WarpConfig::B128x64x8W64x32Lb3));
        assert_eq!(auto_variant(4096, 4096, 4096, 132), GemmVariant::Warptile(WarpConfig::B128x128x8W32x128Lb2));
    }

    #[test]
    fn auto_picks_the_nearest_entry_and_falls_back_without_float4() {
        assert_eq!(pick(AUTO_TABLE, 4000, 4100, 4096, true), GemmVariant::Warptile(WarpConfig::B128x128x8W32x128Lb2));
        assert_eq!(pick(AUTO_TABLE, 4000, 4100, 4096, false), GemmVariant::Blocktile2d);
        assert_eq!(pick(&[], 7, 7, 7, true), GemmVariant::Blocktile2d);
        // Auto stages what the float4 rungs cannot read: still a float4 rung.
        for g in [Gemm::new(64, 64, 64).lda(65), Gemm::new(64, 64, 63), Gemm::new(64, 64, 64).transpose_a(true).transpose_b(true)] {
            assert!(g.resolved_variant().unwrap().needs_float4(), "{g:?}");
        }
    }
}
