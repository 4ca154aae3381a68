//! The Hopper engine's host side: the tiles, the kernel of each (tile,
//! types, orientation) from the kernels crate's table, the TMA tensor maps
//! (encoded by the driver on CUDA, by [`EmuTensorMap`] on the emulator,
//! once per operands and boxes: the handle keeps a launch's maps block,
//! [`Context::upload_cached`]), and the persistent launch.

use std::any::Any;

use cudarc::driver::sys;
use ferrotile_kernels as k;
use k::arch::sm90::{EmuTensorMap, TensorMap};
use k::gemm::mma::{Dt, BF16, F16_KIND, F32};
use k::gemm::wgmma::index::epi_box;
use k::gemm::wgmma::{WgmmaKernel, WgmmaParams, WgmmaTiling};

use super::mma::{no_kernel, stage_both, typed, HostElem, Stored, STAGED_PITCH, TMA_PITCH};
use super::{Activation, GemmElement, GemmParams, Problem};
use crate::launch::TensorMaps;
use crate::{Backend, Buffer, Context, Error, LaunchConfig, Result};

/// A wgmma tile configuration (sm_90a: Hopper GPUs): the block tile the
/// kernel computes, `128 × 256`, `128 × 128`, or `64 × 128` of `C`
/// computed as its transpose, `k` tiles of 64.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WgmmaTile {
    /// 128 × 256 block tiles, 4 stages: every orientation for bf16 → bf16,
    /// the row-major ones for the other types.
    B128x256,
    /// 128 × 128 block tiles, 6 stages (twice the tiles: problems with few
    /// of the large ones).
    B128x128,
    /// Ping-pong 128 × 128 block tiles, 6 stages: each consumer warpgroup
    /// computes its own tiles, so one's epilogue runs under the other's
    /// k-loop; row-major operands, `B` also transposed for bf16 → bf16.
    /// Its k-loop reads more operand bytes per flop than the `128 × 256`
    /// tile's; `Auto` takes it where the epilogues it hides weigh more —
    /// short `k`, and a fused bias, activation or `β·C`.
    P128x128,
    /// The ping-pong `128 × 128` tile in clusters of two blocks computing
    /// tiles one above the other: they share `B`, each block's producer
    /// loading one half of each stage's `B` into both blocks (TMA
    /// multicast). bf16 → bf16, row-major operands. Measured as fast as
    /// the plain ping-pong tile, not faster (BENCHMARKS.md, "Clusters of
    /// two"): not chosen by `Auto`.
    P128x128x2,
    /// Swapped tiles for products of few rows (decode: `m` ≤ 64, large `n`
    /// and `k`), 9 stages: the kernel computes `Cᵀ = Bᵀ·Aᵀ` in `128 × 64`
    /// tiles, 128 columns of `C` by its first 64 rows, and stores each value
    /// transposed. A `128 × 128` tile of such a product computes 128 rows of
    /// which at most 64 are `C`'s, and its stages hold `A`'s zero-filled rows;
    /// this one spends half the tensor-core time per byte of `B` and keeps
    /// more of `B` in flight. `Auto` also takes it for products of fewer
    /// tiles than multiprocessors where its whole `64 × 128` tiles beat
    /// split `128 × 128` ones (its estimated time). Kernels: bf16 → bf16, bf16 → f32 and
    /// f16 → f16 with the user's operands row-major, bf16 → bf16 with `B`
    /// stored transposed, and tf32 (operands staged, any orientation); none
    /// for f16 → f32.
    S64x128,
    /// Narrow swapped tiles for products of at most 16 rows (decode of a
    /// few tokens): `Cᵀ = Bᵀ·Aᵀ` in `128 × 16` tiles, 128 columns of `C`
    /// by its first 16 rows, 12 stages. The `64 × 128` swapped tile reads
    /// `A` as 64 rows a stage, TMA's zero fill beyond `m`, and ncu counts
    /// those rows' bytes between L2 and the multiprocessors as if they were
    /// read (half as many again as `B`'s at one row: BENCHMARKS.md, "Decode:
    /// a narrow swapped tile"); this one's stages carry 16. `Auto` takes it
    /// for `m` ≤ 16 where it has a kernel: bf16 → bf16 (the user's `B`
    /// row-major or transposed), bf16 → f32 and f16 → f16 with both row-major.
    S16x128,
}

impl WgmmaTile {
    /// Every tile.
    pub const ALL: &'static [WgmmaTile] = &[WgmmaTile::B128x256, WgmmaTile::B128x128, WgmmaTile::P128x128, WgmmaTile::P128x128x2, WgmmaTile::S64x128, WgmmaTile::S16x128];

    /// The tile's name.
    pub fn name(self) -> &'static str {
        match self {
            WgmmaTile::B128x256 => "wgmma_128x256",
            WgmmaTile::B128x128 => "wgmma_128x128",
            WgmmaTile::P128x128 => "wgmma_pp_128x128",
            WgmmaTile::P128x128x2 => "wgmma_pp_128x128_c2",
            WgmmaTile::S64x128 => "wgmma_swap_64x128",
            WgmmaTile::S16x128 => "wgmma_swap_16x128",
        }
    }

    /// Block tile columns.
    fn bn(self) -> usize {
        match self {
            WgmmaTile::B128x256 => 256,
            WgmmaTile::B128x128 | WgmmaTile::P128x128 | WgmmaTile::P128x128x2 => 128,
            WgmmaTile::S64x128 => 64,
            WgmmaTile::S16x128 => 16,
        }
    }

    /// Whether the tile's kernels swap the operands.
    fn swapped(self) -> bool {
        matches!(self, WgmmaTile::S64x128 | WgmmaTile::S16x128)
    }

    /// Whether the tile's consumers ping-pong.
    fn pingpong(self) -> bool {
        matches!(self, WgmmaTile::P128x128 | WgmmaTile::P128x128x2)
    }

    /// Whether the tile's blocks run in clusters sharing `B`.
    fn cluster(self) -> bool {
        self == WgmmaTile::P128x128x2
    }

    /// Whether kernel configuration `c` is this tile.
    pub fn matches(self, c: &WgmmaTiling) -> bool {
        c.bn == self.bn() && c.pingpong == self.pingpong() && c.swapped == self.swapped() && c.cluster == self.cluster()
    }

    /// The kernels of this tile.
    pub fn kernels(self) -> impl Iterator<Item = WgmmaKernel> {
        WgmmaKernel::ALL.iter().copied().filter(move |k| self.matches(&k.config()))
    }

    /// The tile for a problem on a GPU of `sms` multiprocessors: the one
    /// with the shortest [`estimate`] among `128 × 256`, `128 × 128`, the
    /// swapped `64 × 128` and the ping-pong `128 × 128` (the first of them
    /// on a tie) that have a kernel for the types and orientation; `None`
    /// when none has. A product of at most [`SWAP_ROWS`] rows takes the
    /// swapped tile ([`WgmmaTile::S64x128`]) where it has a kernel; the
    /// ping-pong tile only from [`PINGPONG_MIN_KTILES`] k-tiles on.
    /// `fused`: the call adds a bias, applies an activation or reads `C`
    /// (`β ≠ 0`): a longer epilogue.
    pub(super) fn auto(p: &Problem, input: usize, output: usize, transposes: (bool, bool), sms: usize, fused: bool) -> Option<WgmmaTile> {
        let usable = |t: WgmmaTile| kernel_for(t, input, output, transposes).is_ok();
        if p.g.m as usize <= NARROW_SWAP_ROWS && usable(WgmmaTile::S16x128) {
            return Some(WgmmaTile::S16x128);
        }
        if p.g.m as usize <= SWAP_ROWS && usable(WgmmaTile::S64x128) {
            return Some(WgmmaTile::S64x128);
        }
        let ktiles = (p.g.k as usize).div_ceil(k::gemm::wgmma::index::bk(k::gemm::mma::input_bytes(input)));
        let (m, n) = (p.g.m as usize, p.g.n as usize);
        let es = if output == F32 { 4 } else { 2 };
        let threaded_c = !tma_storable(es, n, p.g.ldc as usize, p.batch, p.strides[2]);
        // A row-major `A` 16- but not 128-byte aligned apart: the tiles
        // that would stage it pay the copy ([`STAGE_ROWS_PER_UNIT`]).
        let lda_bytes = p.g.lda as usize * k::gemm::mma::input_bytes(input);
        let a_off_lines = input != F32 && !transposes.0 && lda_bytes.is_multiple_of(TMA_PITCH) && !lda_bytes.is_multiple_of(STAGED_PITCH);
        let time = |t: WgmmaTile| {
            // The kernel's problem: a swapped tile's rows are `C`'s columns.
            let (rows, cols) = if t.swapped() { (n, m) } else { (m, n) };
            let copy = if a_off_lines && restages_a(t.bn(), t.swapped(), false, m, n) { (m * p.batch) as f64 / STAGE_ROWS_PER_UNIT } else { 0.0 };
            estimate(t, rows.div_ceil(128) * cols.div_ceil(t.bn()) * p.batch, ktiles, sms.max(1), (fused, threaded_c)) + copy
        };
        [WgmmaTile::B128x256, WgmmaTile::B128x128, WgmmaTile::S64x128, WgmmaTile::P128x128]
            .into_iter()
            .filter(|&t| usable(t) && (!t.pingpong() || ktiles >= PINGPONG_MIN_KTILES))
            .min_by(|&x, &y| time(x).total_cmp(&time(y)))
    }

    /// Work of one block tile, in `128 × 128` tiles.
    fn work(self) -> f64 {
        match self {
            WgmmaTile::B128x256 => 2.0,
            WgmmaTile::B128x128 | WgmmaTile::P128x128 | WgmmaTile::P128x128x2 => 1.0,
            WgmmaTile::S64x128 => 0.5,
            WgmmaTile::S16x128 => 0.125,
        }
    }

    /// Throughput against the `128 × 128` tile's when both fill the GPU
    /// (the same flops in whole rounds: 4096³, 8192³, 4096 × 14336 × 4096).
    fn speed(self) -> f64 {
        match self {
            WgmmaTile::B128x256 => WIDE_TILE_SPEEDUP,
            WgmmaTile::B128x128 | WgmmaTile::P128x128 | WgmmaTile::P128x128x2 => 1.0,
            WgmmaTile::S64x128 => SWAP_TILE_SPEED,
            // Not weighed against the others (`Auto` takes it by `m`
            // alone); a quarter of the `64 × 128` tile's work per stage.
            WgmmaTile::S16x128 => SWAP_TILE_SPEED / 4.0,
        }
    }
}

/// The estimated time of a launch of `tiles` block tiles of `t` over
/// `ktiles` k-tiles on `sms` multiprocessors, in the time one `128 × 128`
/// tile's k-loop takes over the whole `k` at full throughput: the rounds
/// of the persistent grid ([`waves`], split-K included) times the tile's
/// work over its throughput and its epilogue (the tensor cores idle
/// through it: [`EPILOGUE_KTILES`], or [`FUSED_EPILOGUE_KTILES`] when
/// `fused`; [`THREADED_C_KTILES`] more when `threaded_c`, `C`'s rows
/// stored by the threads, for every tile but the swapped ones),
/// plus, where [`split_k`] splits, what the parts cost beyond their
/// k-loops — each part's partial sums stored, the counter, the last part
/// reading every part back before its epilogue — [`SPLIT_PART_KTILES`]
/// k-tiles of the tile's work per part. The ping-pong tile is never split
/// and runs each epilogue (one warpgroup's, as long as the cooperative
/// tile's two side by side: [`PINGPONG_EPILOGUE_SHARE`]) under the other
/// consumer's next k-loop: a tile costs its k-loop or, where the epilogue
/// is longer, half of both, and a block's last epilogue counts whole.
pub(super) fn estimate(t: WgmmaTile, tiles: usize, ktiles: usize, sms: usize, (fused, threaded_c): (bool, bool)) -> f64 {
    let stores = if threaded_c && !t.swapped() { THREADED_C_KTILES } else { 0.0 };
    let values = if fused { FUSED_EPILOGUE_KTILES } else { EPILOGUE_KTILES };
    let epilogue = (values + stores) / ktiles.max(1) as f64;
    if t.pingpong() {
        // One warpgroup runs a whole tile's epilogue under the other's
        // next k-loop (its values in about the cooperative tile's time,
        // its threads' stores of `C` in twice: they are issued one by
        // one): a tile takes its k-loop, or half its k-loop and epilogue
        // where the epilogue is the longer; a block's last is not hidden.
        let own = (PINGPONG_EPILOGUE_SHARE * values + 2.0 * stores) / ktiles.max(1) as f64;
        let per_tile = (1.0 / t.speed()).max(0.5 / t.speed() + 0.5 * own);
        return tiles.div_ceil(sms) as f64 * t.work() * per_tile + own * t.work();
    }
    let parts = split_k(tiles, ktiles, sms).parts;
    let reduce = if parts > 1 { parts as f64 * SPLIT_PART_KTILES / ktiles.max(1) as f64 } else { 0.0 };
    waves(tiles, ktiles, sms) * t.work() * (1.0 / t.speed() + epilogue) + reduce * t.work()
}

/// What the epilogue of a `128 × 128` share of a tile costs when the
/// tensor cores wait for it, in k-tiles of its k-loop ([`estimate`]): the
/// values scaled, rounded and stored. Between the bounds the H200
/// measured (BENCHMARKS.md, "The ping-pong k-loop"): the ping-pong tile
/// ahead at `k` = 1024 (8192 × 8192 and 16384 × 4096), the `128 × 256`
/// one at 2048³ and 4096³.
pub const EPILOGUE_KTILES: f64 = 4.0;

/// What a tile's epilogue costs more, in k-tiles as [`EPILOGUE_KTILES`],
/// when `C`'s rows cannot take TMA stores ([`tma_storable`]: rows not
/// whole 16-byte pieces, as with an odd `n`) and the threads store them
/// through the epilogue buffer, element by element on rows that start
/// inside a 4-byte word — except in the swapped tiles, which store every
/// result straight from its register either way. Added, not scaled: the
/// stores do not grow with a fused epilogue's math. Measured on an H200
/// (BENCHMARKS.md, "`C` stored by the threads, in `Auto`'s estimate"),
/// every tile forced at shapes whose `C` the threads store: the ping-pong
/// tile, which runs each epilogue under the other consumer's k-loop,
/// 10–15 % ahead of the `128 × 256` one that the estimate took without
/// this term at 4095 × 14335 × 4096 and 5119² × 4096 (plain and fused),
/// the swapped tile 13–16 % ahead at 512 × 127³ and 256 × 255 × 1023 × 63.
/// 12 moves `Auto` to the faster tile at each of them and at no shape
/// measured to a slower one (the aligned twins keep their tiles).
pub const THREADED_C_KTILES: f64 = 12.0;

/// Whether `C` (`cols` elements of `es` bytes per row, rows `ld` apart,
/// `matrices` of them `stride` apart) can be stored by TMA: every row and
/// matrix whole 16-byte pieces (its buffer 16-byte aligned, as every
/// [`Buffer`] is).
fn tma_storable(es: usize, cols: usize, ld: usize, matrices: usize, stride: usize) -> bool {
    let pieces = |elems: usize| (elems * es).is_multiple_of(16);
    pieces(ld) && pieces(cols) && (matrices == 1 || (stride != 0 && pieces(stride)))
}

/// The fewest k-tiles `Auto` gives the ping-pong tile. With one k-tile a
/// consumer's k-loop is a single batch of `wgmma`s with little to run an
/// epilogue under, and on the H200 the tile only tied the `128 × 256` one
/// there (batches of `k` = 64 with `B` stored transposed); from two k-tiles
/// on it was the fastest at most short-`k` shapes measured (BENCHMARKS.md,
/// "Short `k`: the ping-pong tile").
pub const PINGPONG_MIN_KTILES: usize = 2;

/// How long one ping-pong warpgroup's epilogue of its whole `128 × 128`
/// tile takes, in [`EPILOGUE_KTILES`] (or [`FUSED_EPILOGUE_KTILES`]) of
/// the cooperative tile, whose two warpgroups each take half of it — a
/// fit, not profiled (one reading: the epilogue waits on latencies, shared
/// memory, the TMA stores, the special-function pipe, more than on issue
/// slots, so a warpgroup with twice the values takes about as long). The
/// threads' stores of a `C` TMA cannot write ([`THREADED_C_KTILES`]) are
/// issued one by one and count twice. Fitted on the H200 over 71 shapes and epilogues with
/// every tile forced, `k` = 64 to 8192 (BENCHMARKS.md, "Short `k`: the
/// ping-pong tile"): 1 puts `Auto` within 4 % of the fastest tile at all
/// but one, where 2 (the model before: twice as long) left it 2–16 %
/// behind at 31, most of them short `k`.
pub const PINGPONG_EPILOGUE_SHARE: f64 = 1.0;

/// [`EPILOGUE_KTILES`] with a fused bias, activation or `β·C`: the ping-pong
/// tile ahead at `k` = 1024 (by 12–14 %), the `128 × 256` one at 2048³,
/// 4096³ and 8192³ (by 0.5–4 %; BENCHMARKS.md, "The ping-pong k-loop").
/// Refitted with [`WIDE_TILE_SPEEDUP`] (12 before): the estimate's replica
/// lost least at 4–5, and on nine fused shapes held out of that fit `Auto`
/// lost 34.8 points to the fastest tile at 12 and 9.9 at 5 (BENCHMARKS.md,
/// "The wide tile's lead, refitted", run 6).
pub const FUSED_EPILOGUE_KTILES: f64 = 5.0;

/// The most rows of `C` `Auto` computes in swapped tiles: the swapped
/// tile's columns, so that one tile covers every row.
pub const SWAP_ROWS: usize = 64;

/// The most rows of `C` `Auto` computes in narrow swapped tiles
/// ([`WgmmaTile::S16x128`]): their columns.
pub const NARROW_SWAP_ROWS: usize = 16;

/// How much faster a `128 × 256` tile computes than a `128 × 128` one when
/// both fill the GPU (fewer operand bytes per flop). The H200's records
/// since 2026-11-28 put the ratio of their times at 4096³ and 8192³ at
/// 1.04–1.07 (1.17–1.21 before, 1.26–1.27 on the H100 on 2026-11-26);
/// a replica of [`WgmmaTile::auto`]'s estimate over 147 (shape,
/// epilogue) pairs of forced-tile timings (BENCHMARKS.md, "The wide
/// tile's lead, refitted") lost least to the fastest tile from 1.08 to
/// 1.12: 1.1.
pub const WIDE_TILE_SPEEDUP: f64 = 1.1;

/// The fewest rows of `C` from which a row-major `B` (read n-major)
/// whose rows are 16- but not 128-byte aligned apart is staged to a
/// 128-byte pitch first. Each 128-byte row of its TMA boxes then straddles
/// two 128-byte lines: on an H200, 4096 × 4099 × 4096 on such a `B`
/// (`ldb` 4104) ran at 61.7 % of the aligned call, on rows 128 bytes apart
/// (`ldb` 4160) at 90.4 % (BENCHMARKS.md, "Odd `lda`: residue maps"). The
/// copy moves `B` twice at memory speed, about `350 / m` of the product's
/// time at tensor-core speed: a tenth or less from 2048 rows on. At 1024
/// rows the two are even (that `B` read as it lies 67–68 % of the aligned
/// call, its copy about as much); restaged, 2048 and 4096 rows ran at 75 %
/// and 78–81 %.
pub const RESTAGE_B_MIN_ROWS: usize = 2048;

/// The fewest rows and columns of `C` from which a row-major `A` whose
/// rows are 16- but not 128-byte aligned apart is staged to a 128-byte
/// pitch first when the tile is `128` wide (the ping-pong and cooperative
/// `128 × 128` tiles, which read each row of `A` once per `128` columns of
/// `C`, twice as often as the `128 × 256` tile, [`restages_a`]). Each
/// 128-byte row of `A`'s k-major boxes otherwise straddles two 128-byte
/// lines: on an H200 the ping-pong tile ran 3072 × 3072 × 3000 in 0.121 ms
/// on such an `A` and 0.099–0.100 with it restaged, the copy included
/// (`128 × 256`: 0.100–0.102 either way; BENCHMARKS.md, "An `A` 16 bytes
/// off its lines"). Both sides large, as [`RESTAGE_B_MIN_ROWS`] for `B`:
/// the copy is then a small share of the product (and
/// [`auto`](WgmmaTile::auto) counts it).
pub const RESTAGE_A_MIN: usize = 2048;

/// Rows of `A` whose staging copy takes about as long as one `128 × 128`
/// tile's k-loop at full throughput, whatever `k` (both grow with it): a
/// row read and written is `4k` bytes against the tile's `2 · 128² · k`
/// flops. On an H200 (about 3 TB/s for the copy, 650 TFLOP/s over 132
/// multiprocessors) about 5,000; `Auto` adds `rows / this` to the
/// estimate of a `128`-wide tile whose `A` [`restages_a`] would stage.
pub const STAGE_ROWS_PER_UNIT: f64 = 5000.0;

/// Whether the launcher stages a row-major `A` (read k-major, `!a_mn_major`)
/// to a 128-byte pitch for a tile of `bn` columns (`swapped`: the user's
/// operands exchanged) in an `m × n` product: `128`-wide unswapped tiles of
/// at least [`RESTAGE_A_MIN`] rows and columns (the copy happens only where
/// `A`'s rows are not already 128-byte aligned apart).
fn restages_a(bn: usize, swapped: bool, a_mn_major: bool, m: usize, n: usize) -> bool {
    bn == 128 && !swapped && !a_mn_major && m >= RESTAGE_A_MIN && n >= RESTAGE_A_MIN
}

/// The swapped `64 × 128` tile's throughput against the `128 × 128` one's
/// when both fill the GPU, as measured at 4096³ (BENCHMARKS.md, "Few
/// tiles").
pub const SWAP_TILE_SPEED: f64 = 0.6;

/// What a part of a split tile costs beyond its k-loop, in k-tiles of the
/// tile ([`estimate`]): inside the range the few-tile shapes measured
/// allow — the swapped tile's whole tiles beating split `128 × 128` ones
/// where the parts are short (1024³, 512 × 2048 × 2048), the split ones
/// ahead where they are long (1024 × 1024 × 8192; BENCHMARKS.md, "Few
/// tiles").
pub const SPLIT_PART_KTILES: f64 = 8.0;

/// The kernel of tile `t` for these types and orientation, or
/// `BadArgument { arg: "variant" }` listing what the tile has.
pub(super) fn kernel_for(t: WgmmaTile, input: usize, output: usize, (ta, tb): (bool, bool)) -> Result<WgmmaKernel> {
    let found = t.kernels().find(|k| {
        let c = k.config();
        (c.input, c.output, c.problem_orientation()) == (input, output, (ta, tb))
    });
    found.ok_or_else(|| no_kernel(t.name(), input, output, (ta, tb), t.kernels().map(|k| k.name())))
}

/// Whether `ctx` can run the wgmma kernels: a GPU of compute capability
/// 9.0 (the sm_90a module), or the emulator.
pub(super) fn runs_on(ctx: &Context) -> bool {
    match ctx.device_info() {
        Some(info) => info.compute_capability == (9, 0),
        None => true,
    }
}

/// A table-declared wgmma kernel that can launch itself on type-erased
/// buffers (checked against the kernel's types).
trait WgmmaLaunch {
    // Every operand of the kernel, as it takes them.
    #[allow(clippy::too_many_arguments)]
    fn launch(self, ctx: &Context, cfg: LaunchConfig, p: WgmmaParams, maps: &Buffer<u64>, c: &dyn Any, bias: Option<&Buffer<f32>>, work: Option<&Buffer<f32>>) -> Result<()>;
}

/// One `launch!` arm per row of the kernels crate's `wgmma_table!`.
macro_rules! wgmma_launcher {
    (
        $(#[$emeta:meta])* pub enum $Enum:ident: $Cfg:ty;
        $( $(#[$doc:meta])* [$gate:meta] $V:ident => $kernel:ident = $define:ident!($cfg:ident), bounds $lb:literal; )*
    ) => {
        impl WgmmaLaunch for $Enum {
            fn launch(self, ctx: &Context, cfg: LaunchConfig, p: WgmmaParams, maps: &Buffer<u64>, c: &dyn Any, bias: Option<&Buffer<f32>>, work: Option<&Buffer<f32>>) -> Result<()> {
                let maps = TensorMaps(maps);
                match self {
                    $( #[$gate] $Enum::$V => {
                        type Out = <Dt<{ k::gemm::wgmma::$cfg.output }> as HostElem>::T;
                        let c = typed::<Out>(c, "c")?;
                        launch!(ctx, ferrotile_kernels::gemm::wgmma::$kernel, cfg, p, maps, c, bias, work)
                    } )*
                }
            }
        }
    };
}
ferrotile_kernels::wgmma_table!(wgmma_launcher);

/// Blocks of a persistent launch on the emulator: fewer than the tiles of
/// most tests, so that blocks walk several tiles.
const EMULATOR_BLOCKS: usize = 3;

/// How far TMA's loads through a map promote their L2 fills.
///
/// The swapped tiles stream their `A` (the user's `B`: a decode step's
/// weights) from memory once, in boxes of 128-byte rows: with 256-byte
/// promotion such boxes read a matrix at about 94 % of a copy's rate on
/// an H200, with 128-byte promotion (or none) at about 101 %, and the
/// swapped tiles' decode calls gained 1–6 points of a copy (BENCHMARKS.md,
/// "What a decode kernel can read"). The other tiles read each operand
/// from L2 many times and keep 256 bytes (not measured otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum L2Promotion {
    /// 128 bytes: the swapped tiles' maps.
    Bytes128,
    /// 256 bytes: the other tiles' maps and `C`'s.
    Bytes256,
}

impl L2Promotion {
    /// The promotion of tiles that are (`swapped`) or are not swapped.
    fn for_tile(swapped: bool) -> L2Promotion {
        if swapped {
            L2Promotion::Bytes128
        } else {
            L2Promotion::Bytes256
        }
    }
}

/// The TMA map of an operand as stored: `rows × cols` (`cols` contiguous,
/// leading dimension `ld`), `matrices` of them `stride` elements apart,
/// boxes of `box_`, L2 fills promoted by `promotion`.
struct MapSpec {
    rows: usize,
    cols: usize,
    ld: usize,
    matrices: usize,
    stride: usize,
    box_: [u32; 3],
    promotion: L2Promotion,
}

impl MapSpec {
    /// The words that determine the map of `spec` over `buf` (the handle's
    /// cache key of a launch's maps, [`Context::upload_cached`]).
    fn key<T: GemmElement>(&self, buf: &Buffer<T>) -> [u64; 10] {
        let [b0, b1, b2] = self.box_.map(u64::from);
        let dims = [self.rows, self.cols, self.ld, self.matrices, self.stride].map(|d| d as u64);
        [buf.device_ptr(), buf.len() as u64, T::KIND as u64, dims[0], dims[1], dims[2], dims[3], dims[4], b0 | b1 << 21 | b2 << 42, self.promotion as u64]
    }
}

/// Encodes `spec` over `buf` for `ctx`'s backend.
fn tensor_map<T: GemmElement>(ctx: &Context, buf: &Buffer<T>, spec: &MapSpec, arg: &'static str) -> Result<TensorMap> {
    let es = std::mem::size_of::<T>();
    // A batch of one still has a third dimension: its stride is one
    // matrix (any multiple of 16 bytes past the last row will do).
    let stride = if spec.matrices > 1 { spec.stride } else { spec.rows * spec.ld };
    let dims = [spec.cols as u64, spec.rows as u64, spec.matrices as u64];
    let strides = [(spec.ld * es) as u64, (stride * es) as u64];
    let too_big = dims.iter().any(|&d| d > u32::MAX as u64) || strides.iter().any(|&s| s >= 1 << 40);
    if too_big {
        return Err(Error::BadArgument { arg, detail: format!("{dims:?} elements with strides {strides:?} bytes exceed what a TMA tensor map describes") });
    }
    match ctx.backend() {
        Backend::Emulator => Ok(EmuTensorMap {
            base: buf.device_ptr(),
            len: (buf.len() * es) as u64,
            elem_bytes: es as u32,
            dims: dims.map(|d| d as u32),
            strides,
            box_: spec.box_,
        }
        .encode()),
        Backend::Cuda => {
            let dtype = match T::KIND {
                BF16 => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
                F16_KIND => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                // tf32 operands, staged rounded: f32 bits moved as they are.
                _ => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
            };
            let mut map = std::mem::MaybeUninit::<sys::CUtensorMap>::uninit();
            let element_strides = [1u32; 3];
            // SAFETY: the pointers reach arrays of the rank's length (the
            // strides one shorter), alive for the call; the map is written
            // by the driver before it is read.
            let r = unsafe {
                sys::cuTensorMapEncodeTiled(
                    map.as_mut_ptr(),
                    dtype,
                    3,
                    buf.device_ptr() as *mut std::ffi::c_void,
                    dims.as_ptr(),
                    strides.as_ptr(),
                    spec.box_.as_ptr(),
                    element_strides.as_ptr(),
                    sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                    sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
                    match spec.promotion {
                        L2Promotion::Bytes128 => sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                        L2Promotion::Bytes256 => sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                    },
                    sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
                )
            };
            if r != sys::CUresult::CUDA_SUCCESS {
                return Err(Error::Driver { op: "encoding a TMA tensor map", detail: format!("{r:?} for {arg}: dims {dims:?}, strides {strides:?} bytes, box {:?}", spec.box_) });
            }
            // SAFETY: initialised by the successful call.
            Ok(TensorMap(unsafe { map.assume_init() }.opaque))
        }
    }
}

/// The spec of `C`'s tensor map for the kernel's TMA-store epilogue (box
/// [`epi_box`]): `Some` when TMA can write `C` — its start, its rows and
/// its matrices 16-byte aligned, and its rows a whole number of 16-byte
/// pieces — else `None` (the kernel's threads then store its chunks).
///
/// The last condition is measured, not documented: on an H100 a store
/// whose box crosses the last column wrote the whole 16-byte piece holding
/// it (a 65-column f32 `C` with rows of 68 lost columns 65–67 of its
/// padding); the emulator's stores do the same.
fn store_spec<O: GemmElement>(c: &Buffer<O>, rows: usize, cols: usize, ld: usize, matrices: usize, stride: usize) -> Option<MapSpec> {
    let es = std::mem::size_of::<O>();
    let aligned = c.device_ptr().is_multiple_of(16) && tma_storable(es, cols, ld, matrices, stride);
    aligned.then(|| MapSpec { rows, cols, ld, matrices, stride, box_: epi_box(es), promotion: L2Promotion::Bytes256 })
}

/// The words of a launch's maps buffer: `A`'s and `B`'s maps, then `C`'s
/// when the epilogue stores through TMA. With `counters` (split-K: one per
/// tile), the third slot is always there (zeros without `C`'s map) and
/// `counters` zero `u32` follow it, the tiles' arrival counters
/// ([`WgmmaParams::splits`]), which every launch leaves at zero.
fn map_words(ab: &[TensorMap; 2], c: Option<TensorMap>, counters: usize) -> Vec<u64> {
    let third = c.or((counters > 0).then_some(TensorMap([0; 16])));
    let mut words: Vec<u64> = ab.iter().chain(third.as_ref()).flat_map(|m| m.0).collect();
    // Whole map slots of counters (32 to a slot): the buffer holds maps.
    words.resize(words.len() + counters.div_ceil(32) * 16, 0);
    words
}

/// Runs the wgmma kernel of `tile` on `p` (types `I` → `O`, checked by the
/// caller): operands whose rows or matrices do not start 16-byte aligned
/// are staged into aligned copies first (TMA's requirement), the tensor
/// maps go to device memory, one persistent block per multiprocessor.
#[allow(clippy::too_many_arguments)]
pub(super) fn run<I: GemmElement, O: GemmElement>(
    ctx: &Context,
    tile: WgmmaTile,
    (ta, tb): (bool, bool),
    act: Activation,
    (forced_splits, programmatic): (Option<usize>, bool),
    p: &Problem,
    a: &Buffer<I>,
    b: &Buffer<I>,
    bias: Option<&Buffer<f32>>,
    c: &mut Buffer<O>,
) -> Result<()> {
    if !runs_on(ctx) {
        let cc = ctx.device_info().map(|i| i.compute_capability);
        return Err(Error::BadArgument {
            arg: "variant",
            detail: format!("`{}` runs on Hopper GPUs (compute capability 9.0), not on {cc:?}; use Auto or an Mma tile", tile.name()),
        });
    }
    let tf32 = I::KIND == F32;
    // The orientation the kernel reads (tf32 operands are staged k-major).
    let kernel_t = super::mma::kernel_orientation(I::KIND, (ta, tb));
    let kernel = kernel_for(tile, I::KIND, O::KIND, kernel_t)?;
    let config = kernel.config();
    let g = p.g;
    let (m, n, kk) = (g.m as usize, g.n as usize, g.k as usize);
    // The kernel's problem: `C = A·B`, or swapped `Cᵀ = Bᵀ·Aᵀ` (its `A`
    // the user's `B`, its `m` the user's `n`).
    let sw = config.swapped;
    let (km, kn) = if sw { (n, m) } else { (m, n) };
    // The kernel's producer counts its work units (tiles × parts of `k`)
    // in 32 bits.
    let most_units = km.div_ceil(config.bm()).saturating_mul(kn.div_ceil(config.bn)).saturating_mul(p.batch).saturating_mul(MAX_SPLITS);
    if most_units > u32::MAX as usize {
        return Err(Error::BadArgument { arg: "c", detail: format!("{m} × {n} × {} batch: more block tiles than the wgmma kernels count", p.batch) });
    }
    let [sa, sb] = Stored::operands(p, (ta, tb));
    // tf32: both operands k-major and rounded (`wgmma` reads them from
    // shared memory as they are), so always staged; `A` transposed when
    // stored `k × m`, `B` when stored `k × n`.
    // A row-major `B` of a large product is also staged where its rows are
    // 16- but not 128-byte aligned apart ([`RESTAGE_B_MIN_ROWS`]).
    let b_pitch = if !config.swapped && config.b_mn_major() && m >= RESTAGE_B_MIN_ROWS { STAGED_PITCH } else { TMA_PITCH };
    // And a row-major `A` read by `128`-wide tiles of a large product.
    let a_pitch = if restages_a(config.bn, config.swapped, config.a_mn_major(), m, n) { STAGED_PITCH } else { TMA_PITCH };
    let (staged_a, staged_b) = stage_both(ctx, (a, sa, tf32 && ta, a_pitch), (b, sb, tf32 && !tb, b_pitch), p.batch, tf32)?;
    let (a, sa) = staged_a.as_ref().map_or((a, sa), |(buf, s)| (buf, *s));
    let (b, sb) = staged_b.as_ref().map_or((b, sb), |(buf, s)| (buf, *s));
    // The kernel's operands (named for the errors by the user's).
    let [(a, sa, arg_a), (b, sb, arg_b)] = if sw { [(b, sb, "b"), (a, sa, "a")] } else { [(a, sa, "a"), (b, sb, "b")] };
    let matrices = |s: &Stored| if p.batch > 1 && s.stride != 0 { p.batch } else { 1 };
    let promotion = L2Promotion::for_tile(sw);
    let map_a = MapSpec { rows: sa.rows, cols: sa.cols, ld: sa.ld, matrices: matrices(&sa), stride: sa.stride, box_: config.a_box(), promotion };
    let map_b = MapSpec { rows: sb.rows, cols: sb.cols, ld: sb.ld, matrices: matrices(&sb), stride: sb.stride, box_: config.b_box(), promotion };
    let params = WgmmaParams {
        g: GemmParams { m: km as u32, n: kn as u32, lda: sa.ld as u32, ldb: sb.ld as u32, ..g },
        batch: p.batch as u32,
        a_batched: (map_a.matrices > 1) as u32,
        b_batched: (map_b.matrices > 1) as u32,
        activation: act.code(),
        stride_c: p.strides[2] as u64,
        has_bias: bias.is_some() as u32,
        splits: 1,
        whole: 0,
        // Set below, with the launch that stores through `C`'s map.
        store: k::gemm::wgmma::STORE_DIRECT,
    };
    let tiles = config.tiles(&params);
    let sms = match ctx.device_info() {
        Some(info) => info.sm_count.max(1) as usize,
        None => EMULATOR_BLOCKS,
    };
    // Persistent blocks, or clusters of them: as many as run at once.
    let groups = if config.cluster { ctx.max_active_clusters(kernel.name(), config.config(1), EMULATOR_BLOCKS)? } else { sms };
    // The launch of `units` work units: persistent blocks (clusters),
    // launched early when asked (`Gemm::programmatic_launch`: every thread
    // of the kernel waits for the previous grid before its first memory
    // access).
    let launch_config =
        |units: usize| LaunchConfig { early_launch: programmatic, ..config.config(units.min(groups).min(k::launch::MAX_GRID_X as usize / config.ctas()) as u32) };
    // Ping-pong tiles do not split (their consumers take whole tiles).
    let split = parts(config.pingpong, forced_splits, tiles, kk.div_ceil(k::gemm::wgmma::index::bk(config.es())), sms);
    // Swapped tiles store element by element, without `C`'s map.
    let map_c = if sw { None } else { store_spec(c, m, n, g.ldc as usize, p.batch, p.strides[2]) };
    let store = match map_c {
        Some(_) => k::gemm::wgmma::STORE_TMA,
        None if sw => k::gemm::wgmma::STORE_DIRECT,
        None => k::gemm::wgmma::STORE_THREADS,
    };
    // The launch's maps (and `counters` split-K counters) in device memory:
    // the handle's cached block for these operands and boxes, encoded and
    // uploaded only when it has none (a decode step on the same weights
    // launches at once).
    let maps = |counters: usize| {
        let mut key: Vec<u64> = map_a.key(a).into_iter().chain(map_b.key(b)).collect();
        key.extend(map_c.as_ref().map(|s| s.key(&*c)).into_iter().flatten());
        key.push(counters as u64);
        ctx.upload_cached(&key, || {
            let ab = [tensor_map(ctx, a, &map_a, arg_a)?, tensor_map(ctx, b, &map_b, arg_b)?];
            let c = map_c.as_ref().map(|s| tensor_map(ctx, &*c, s, "c")).transpose()?;
            Ok(map_words(&ab, c, counters))
        })
    };
    if split.parts == 1 {
        let maps = maps(0)?;
        let params = WgmmaParams { store, ..params };
        return kernel.launch(ctx, launch_config(config.units(&params)), params, &maps, &*c, bias, None);
    }
    // Split-K: every part of a split tile stores its f32 partial sums to
    // `work` (rows inside `C`; nothing there needs clearing) and counts
    // itself on the tile's counter, uploaded zero with the maps; the last
    // part adds them in order and runs the epilogue. One launch, the whole
    // tiles (if any) first.
    let split_tiles = tiles - split.whole;
    let work = ctx.workspace(split_tiles * split.parts * config.bm() * config.bn)?;
    let maps = maps(split_tiles)?;
    let params = WgmmaParams { store, splits: split.parts as u32, whole: split.whole as u32, ..params };
    let units = k::gemm::wgmma::index::walk_units(tiles, split.whole, split.parts);
    kernel.launch(ctx, launch_config(units), params, &maps, &*c, bias, Some(&*work))
}

/// How a launch cuts its block tiles into work units: the first `whole`
/// (in walk order) run whole, every other one in `parts` parts of `k`
/// ([`WgmmaParams::whole`], [`WgmmaParams::splits`]). `parts == 1`: no
/// split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Split {
    pub whole: usize,
    pub parts: usize,
}

impl Split {
    /// Every tile whole.
    const NONE: Split = Split { whole: 0, parts: 1 };
}

/// The split of `tiles` block tiles of `ktiles` k-tiles on `sms`
/// multiprocessors. The tiles of the last round of the persistent grid
/// (all of them when fewer than `sms`) are split when they fill at most
/// half the GPU: into enough parts to give every multiprocessor a unit,
/// each at least [`MIN_SPLIT_KTILES`] k-tiles long (so the reduction stays
/// small next to the GEMM), at most [`MAX_SPLITS`] (at most
/// [`MAX_TAIL_PARTS`] behind full rounds), then as few as cover `ktiles`
/// with that part length (no empty part). The full rounds' tiles run
/// whole before them, so that blocks end with a part instead of a few
/// blocks with a whole tile (`Split::NONE` when nothing is split).
pub(super) fn split_k(tiles: usize, ktiles: usize, sms: usize) -> Split {
    let last = tiles % sms.max(1);
    if last == 0 || 2 * last > sms {
        return Split::NONE;
    }
    let want = (sms / last).min(ktiles / MIN_SPLIT_KTILES).min(MAX_SPLITS);
    if want <= 1 {
        return Split::NONE;
    }
    // Behind full rounds, at most MAX_TAIL_PARTS.
    let want = if tiles > last { want.min(MAX_TAIL_PARTS) } else { want };
    Split { whole: tiles - last, parts: covering(want, ktiles) }
}

/// Rounds of the persistent grid a problem of `tiles` block tiles of
/// `ktiles` k-tiles takes on `sms` multiprocessors: whole rounds, and for
/// tiles [`split_k`] spreads in parts (a last round behind full ones, or
/// all of them when they are fewer than half the multiprocessors) the
/// share of a tile one part computes.
pub(super) fn waves(tiles: usize, ktiles: usize, sms: usize) -> f64 {
    let split = split_k(tiles, ktiles, sms);
    if split.parts == 1 {
        return tiles.div_ceil(sms) as f64;
    }
    (split.whole / sms) as f64 + ktiles.div_ceil(split.parts) as f64 / ktiles as f64
}

/// The fewest parts of `ceil(ktiles / want)` k-tiles that cover `ktiles`
/// (`want ≥ 1`, `ktiles ≥ 1`): `want` or fewer, none of them empty (the
/// kernel's [`k_part`](k::gemm::wgmma::index::k_part) chunks).
fn covering(want: usize, ktiles: usize) -> usize {
    ktiles.div_ceil(ktiles.div_ceil(want))
}

/// The split of a launch: none for ping-pong tiles (their consumers take
/// whole tiles), else the caller's [`crate::Gemm::split_k`] count for
/// every tile ([`forced_split`]) or, without one, [`split_k`]'s.
pub(super) fn parts(pingpong: bool, forced: Option<usize>, tiles: usize, ktiles: usize, sms: usize) -> Split {
    match forced {
        _ if pingpong => Split::NONE,
        Some(s) => Split { whole: 0, parts: forced_split(s, ktiles) },
        None => split_k(tiles, ktiles, sms),
    }
}

/// Parts of `k` for a caller's [`crate::Gemm::split_k`]`(s)` over `ktiles`
/// k-tiles: `s` clamped to `1..=`[`MAX_SPLITS`] and to `ktiles`, then as
/// few as cover `ktiles` with that part length (no empty part).
pub(super) fn forced_split(s: usize, ktiles: usize) -> usize {
    let ktiles = ktiles.max(1);
    covering(s.clamp(1, MAX_SPLITS).min(ktiles), ktiles)
}

/// The shortest part of `k` split-K makes, in k-tiles of 64.
pub const MIN_SPLIT_KTILES: usize = 4;
/// The most parts of `k`.
pub const MAX_SPLITS: usize = 32;
/// The most parts of a tile of a last round behind full ones. The unit
/// that arrives last reads every part back, one memory round trip each,
/// before its epilogue, at the very end of the launch: on the H100, 4 parts
/// beat 2, 8 and 16 on the three shapes measured (BENCHMARKS.md, "A last
/// round of few tiles").
pub const MAX_TAIL_PARTS: usize = 4;

#[cfg(test)]
mod tests {
    use super::*;

    /// Split-K in one launch: on small integers (every partial sum exact,
    /// whatever the order) the result is the exact product bit for bit —
    /// every part added once, the epilogue after the sum; on random
    /// values, repeated calls agree bit for bit (the parts summed in one
    /// order, whichever unit arrived last on the emulator's parallel
    /// blocks).
    #[test]
    fn split_k_in_one_launch_sums_every_part_once_in_order() -> Result<()> {
        use crate::gemm::{Gemm, GemmVariant};
        let ctx = Context::emulator();
        let mut rng = crate::testing::Rng::new(0x0051_e77d);
        // Every tile split (fewer tiles than blocks), and (the last two)
        // whole tiles first, then the last round's tiles in parts.
        let shapes = [(WgmmaTile::B128x128, 5usize, 100usize, 777usize, false), (WgmmaTile::B128x256, 33, 200, 1031, false), (WgmmaTile::B128x128, 100, 50, 513, false), (WgmmaTile::B128x128, 769, 9, 513, true), (WgmmaTile::B128x256, 200, 300, 1031, true)];
        for (tile, m, n, kk, tail) in shapes {
            let c = kernel_for(tile, BF16, F32, (false, false))?.config();
            let tiles = m.div_ceil(c.bm()) * n.div_ceil(c.bn);
            let split = split_k(tiles, kk.div_ceil(64), EMULATOR_BLOCKS);
            assert!(split.parts > 1 && (split.whole > 0) == tail, "{m}x{n}x{kk} splits on the emulator: {split:?}");
            let ints = |len: usize, rng: &mut crate::testing::Rng| -> Vec<half::bf16> { (0..len).map(|_| half::bf16::from_f32((rng.f32() * 4.0).floor())).collect() };
            let (a, b) = (ints(m * kk, &mut rng), ints(kk * n, &mut rng));
            let g = Gemm::new(m, n, kk).variant(GemmVariant::Wgmma(tile)).alpha(2.0);
            let (da, db) = (ctx.upload(&a)?, ctx.upload(&b)?);
            let mut dc = ctx.upload(&vec![f32::NAN; m * n])?;
            g.run(&ctx, &da, &db, &mut dc)?;
            let got = dc.download()?;
            for i in 0..m {
                for j in 0..n {
                    let exact: f32 = (0..kk).map(|l| a[i * kk + l].to_f32() * b[l * n + j].to_f32()).sum();
                    assert_eq!(got[i * n + j].to_bits(), (2.0 * exact).to_bits(), "{m}x{n}x{kk} ({i}, {j})");
                }
            }
            let rand = |len: usize, rng: &mut crate::testing::Rng| -> Vec<half::bf16> { (0..len).map(|_| half::bf16::from_f32(rng.f32())).collect() };
            let (da, db) = (ctx.upload(&rand(m * kk, &mut rng))?, ctx.upload(&rand(kk * n, &mut rng))?);
            let mut first = None;
            for _ in 0..4 {
                let mut dc = ctx.upload(&vec![f32::NAN; m * n])?;
                g.activation(Activation::GeluTanh).run(&ctx, &da, &db, &mut dc)?;
                let bits: Vec<u32> = dc.download()?.iter().map(|x| x.to_bits()).collect();
                assert!(first.get_or_insert_with(|| bits.clone()) == &bits, "{m}x{n}x{kk}: a repeated call differs");
            }
        }
        Ok(())
    }

    /// A batch whose last matrix's tile is the last round's (7 tiles, one
    /// per matrix, on the emulator's 3 blocks: six whole, the seventh in
    /// parts): every matrix exact on small integers, bit for bit, with
    /// β and a bias.
    #[test]
    fn a_split_last_round_in_a_batch_is_exact() -> Result<()> {
        use crate::gemm::{Gemm, GemmVariant};
        let ctx = Context::emulator();
        let mut rng = crate::testing::Rng::new(0xba7c4);
        let (m, n, kk, batch) = (100usize, 50usize, 600usize, 7usize);
        let tile = WgmmaTile::B128x128;
        let split = split_k(batch, kk.div_ceil(64), EMULATOR_BLOCKS);
        assert_eq!(split, Split { whole: 6, parts: 2 });
        let ints = |len: usize, rng: &mut crate::testing::Rng| -> Vec<half::bf16> { (0..len).map(|_| half::bf16::from_f32((rng.f32() * 4.0).floor())).collect() };
        let (a, b) = (ints(batch * m * kk, &mut rng), ints(batch * kk * n, &mut rng));
        let bias: Vec<f32> = (0..n).map(|j| j as f32).collect();
        let g = Gemm::new(m, n, kk).batch(batch).variant(GemmVariant::Wgmma(tile)).beta(0.5);
        let (da, db, dbias) = (ctx.upload(&a)?, ctx.upload(&b)?, ctx.upload(&bias)?);
        let mut dc = ctx.upload(&vec![2.0f32; batch * m * n])?;
        g.run_with_bias(&ctx, &da, &db, &dbias, &mut dc)?;
        let got = dc.download()?;
        for z in 0..batch {
            for i in 0..m {
                for j in 0..n {
                    let exact: f32 = (0..kk).map(|l| a[(z * m + i) * kk + l].to_f32() * b[(z * kk + l) * n + j].to_f32()).sum();
                    assert_eq!(got[(z * m + i) * n + j].to_bits(), (exact + 1.0 + j as f32).to_bits(), "matrix {z} ({i}, {j})");
                }
            }
        }
        Ok(())
    }

    proptest::proptest! {
        /// Any problem: a split has no empty part, parts of at least
        /// MIN_SPLIT_KTILES k-tiles, and behind full rounds a multiple of
        /// the grid of whole tiles and at most one part per block.
        #[test]
        fn splits_leave_no_part_empty_and_every_block_one_part(tiles in 0usize..5000, ktiles in 1usize..2000, sms in 1usize..200) {
            let Split { whole, parts } = split_k(tiles, ktiles, sms);
            if parts > 1 {
                let chunk = ktiles.div_ceil(parts);
                proptest::prop_assert!(chunk * (parts - 1) < ktiles && chunk >= MIN_SPLIT_KTILES);
                proptest::prop_assert!(parts <= MAX_SPLITS && whole < tiles && whole % sms == 0);
                proptest::prop_assert!((tiles - whole) * parts <= sms);
                proptest::prop_assert!(whole == 0 || parts <= MAX_TAIL_PARTS);
            } else {
                proptest::prop_assert_eq!(whole, 0);
            }
        }
    }

    /// The swapped tiles' maps promote L2 fills by 128 bytes, the others'
    /// by 256, and a map's cache key tells the two apart (a block encoded
    /// for one never serves the other).
    #[test]
    fn swapped_maps_promote_128_bytes_and_key_it() -> Result<()> {
        assert_eq!(L2Promotion::for_tile(true), L2Promotion::Bytes128);
        assert_eq!(L2Promotion::for_tile(false), L2Promotion::Bytes256);
        let ctx = Context::emulator();
        let buf = ctx.upload(&[half::bf16::ZERO; 64 * 64])?;
        let spec = |promotion| MapSpec { rows: 64, cols: 64, ld: 64, matrices: 1, stride: 0, box_: [64, 64, 1], promotion };
        assert_ne!(spec(L2Promotion::Bytes128).key(&buf), spec(L2Promotion::Bytes256).key(&buf));
        assert_eq!(spec(L2Promotion::Bytes128).key(&buf), spec(L2Promotion::Bytes128).key(&buf));
        Ok(())
    }

    /// One handle, one `Gemm`, operand and output buffers in turn: the
    /// cached maps block of an earlier call never serves a call on other
    /// buffers (the key names the buffers), and a repeated call finds its
    /// block (the products exact either way).
    #[test]
    fn maps_follow_the_operands_of_each_call() -> Result<()> {
        use crate::gemm::{Gemm, GemmVariant};
        let ctx = Context::emulator();
        let mut rng = crate::testing::Rng::new(0x3a9_5ca);
        for (tile, m, n, kk) in [(WgmmaTile::B128x128, 70usize, 150usize, 100usize), (WgmmaTile::S16x128, 9, 200, 130)] {
            let ints = |len: usize, rng: &mut crate::testing::Rng| -> Vec<half::bf16> { (0..len).map(|_| half::bf16::from_f32((rng.f32() * 4.0).floor())).collect() };
            let a = [ints(m * kk, &mut rng), ints(m * kk, &mut rng)];
            let b = [ints(kk * n, &mut rng), ints(kk * n, &mut rng)];
            let (da, db) = ([ctx.upload(&a[0])?, ctx.upload(&a[1])?], [ctx.upload(&b[0])?, ctx.upload(&b[1])?]);
            let mut dc = [ctx.alloc::<f32>(m * n)?, ctx.alloc::<f32>(m * n)?];
            let g = Gemm::new(m, n, kk).variant(GemmVariant::Wgmma(tile));
            for (ia, ib, ic) in [(0, 0, 0), (1, 1, 1), (0, 1, 0), (1, 0, 1), (1, 0, 0), (0, 0, 1), (0, 0, 1)] {
                dc[ic].copy_from(&vec![f32::NAN; m * n])?;
                g.run(&ctx, &da[ia], &db[ib], &mut dc[ic])?;
                let got = dc[ic].download()?;
                for i in 0..m {
                    for j in 0..n {
                        let exact: f32 = (0..kk).map(|l| a[ia][i * kk + l].to_f32() * b[ib][l * n + j].to_f32()).sum();
                        assert_eq!(got[i * n + j], exact, "{}: a{ia} b{ib} c{ic} ({i}, {j})", tile.name());
                    }
                }
            }
        }
        Ok(())
    }

    /// `Gemm::split_k` reaches the wgmma engine: forced parts (none, a
    /// few, more than the k-tiles, more than [`MAX_SPLITS`]) and a split
    /// turned off all give the exact product on small integers, bit for
    /// bit; the forced count has no empty part.
    #[test]
    fn forced_splits_give_the_exact_product() -> Result<()> {
        use crate::gemm::{Gemm, GemmVariant};
        for (s, ktiles) in [(1, 1), (3, 1), (3, 10), (7, 10), (40, 100), (40, 2000), (0, 5)] {
            let parts = forced_split(s, ktiles);
            assert!((1..=MAX_SPLITS.min(ktiles)).contains(&parts), "{s} over {ktiles}: {parts}");
            let (k0, k1) = k::gemm::wgmma::index::k_part(parts - 1, parts, ktiles);
            assert!(k0 < k1, "{s} over {ktiles}: the last of {parts} parts is empty");
        }
        let ctx = Context::emulator();
        let mut rng = crate::testing::Rng::new(0xf0_5ce);
        let (m, n, kk) = (70usize, 150usize, 333usize);
        let ints = |len: usize, rng: &mut crate::testing::Rng| -> Vec<half::bf16> { (0..len).map(|_| half::bf16::from_f32((rng.f32() * 4.0).floor())).collect() };
        let (a, b) = (ints(m * kk, &mut rng), ints(kk * n, &mut rng));
        let (da, db) = (ctx.upload(&a)?, ctx.upload(&b)?);
        for tile in [WgmmaTile::B128x128, WgmmaTile::B128x256] {
            let c = kernel_for(tile, BF16, F32, (false, false))?.config();
            let tiles = m.div_ceil(c.bm()) * n.div_ceil(c.bn);
            assert_eq!(parts(false, None, tiles, kk.div_ceil(64), EMULATOR_BLOCKS), Split::NONE, "{}: Auto does not split", tile.name());
            // 6 k-tiles: 5 parts would leave one empty (chunks of 2), so 3.
            for (s, want) in [(1, 1), (2, 2), (5, 3), (6, 6), (9, 6), (64, 6)] {
                assert_eq!(parts(false, Some(s), tiles, kk.div_ceil(64), EMULATOR_BLOCKS), Split { whole: 0, parts: want }, "{}: split {s}", tile.name());
                assert_eq!(parts(true, Some(s), tiles, kk.div_ceil(64), EMULATOR_BLOCKS), Split::NONE, "ping-pong tiles do not split");
                let g = Gemm::new(m, n, kk).variant(GemmVariant::Wgmma(tile)).split_k(s).beta(0.5);
                let mut dc = ctx.upload(&vec![2.0f32; m * n])?;
                g.run(&ctx, &da, &db, &mut dc)?;
                let got = dc.download()?;
                for i in 0..m {
                    for j in 0..n {
                        let exact: f32 = (0..kk).map(|l| a[i * kk + l].to_f32() * b[l * n + j].to_f32()).sum();
                        assert_eq!(got[i * n + j].to_bits(), (exact + 1.0).to_bits(), "{} split {s}: ({i}, {j})", tile.name());
                    }
                }
            }
        }
        Ok(())
    }

    #[test]
    fn every_kernel_is_reachable_and_valid() {
        for k in WgmmaKernel::ALL {
            let c = k.config();
            assert!(c.validate(), "{k:?}");
            let tiles: Vec<WgmmaTile> = WgmmaTile::ALL.iter().copied().filter(|t| t.matches(&c)).collect();
            assert_eq!(tiles.len(), 1, "{k:?} is tile {tiles:?}");
            assert_eq!(kernel_for(tiles[0], c.input, c.output, c.problem_orientation()).ok(), Some(*k));
        }
        // bf16 → bf16 has every orientation on the large tile.
        for t in [(false, false), (true, false), (false, true), (true, true)] {
            assert!(kernel_for(WgmmaTile::B128x256, BF16, BF16, t).is_ok(), "{t:?}");
        }
        assert!(matches!(kernel_for(WgmmaTile::B128x128, F16_KIND, F32, (true, true)), Err(Error::BadArgument { arg: "variant", .. })));
        // The ping-pong tile has the row-major kernels (and NT for bf16 → bf16) only.
        assert!(matches!(kernel_for(WgmmaTile::P128x128, BF16, BF16, (true, false)), Err(Error::BadArgument { arg: "variant", .. })));
        assert!(matches!(kernel_for(WgmmaTile::P128x128, F32, F32, (false, true)), Err(Error::BadArgument { arg: "variant", .. })));
    }

    #[test]
    fn split_k_only_where_tiles_leave_the_gpu_idle() {
        let parts = |tiles, ktiles, sms| split_k(tiles, ktiles, sms).parts;
        // Enough tiles: no split.
        assert_eq!(split_k(128, 64, 132), Split::NONE);
        assert_eq!(split_k(67, 64, 132), Split::NONE);
        // Decode, 64 × 8192 × 8192 on 128 × 256 tiles: 32 tiles, 128 k-tiles.
        assert_eq!(split_k(32, 128, 132), Split { whole: 0, parts: 4 });
        // One tile, deep k: capped at MAX_SPLITS parts of ≥ 4 k-tiles.
        assert_eq!(parts(1, 1000, 132), 32);
        assert_eq!(parts(1, 17, 3), 3);
        // Short k: parts would be too short.
        assert_eq!(parts(1, 7, 132), 1);
        // A last round of 16 tiles behind four full ones (4093 × 4099 ×
        // 4091 on 128 × 256 tiles): 8 parts would give every block one,
        // capped at MAX_TAIL_PARTS (16 k-tiles each).
        assert_eq!(split_k(544, 64, 132), Split { whole: 528, parts: MAX_TAIL_PARTS });
        // A last round more than half full (4096³: 116 of 132) or none
        // (three full rounds): no split.
        assert_eq!(split_k(512, 64, 132), Split::NONE);
        assert_eq!(split_k(396, 64, 132), Split::NONE);
        // 8192 × 8192 × 1024 on 128 × 128 tiles: 31 rounds and 4 tiles,
        // those in 4 parts of 4 k-tiles.
        assert_eq!(split_k(4096, 16, 132), Split { whole: 4092, parts: 4 });
        for (tiles, ktiles, sms) in [(1, 17, 132), (3, 130, 132), (10, 99, 132), (2, 9, 3), (544, 64, 132), (7, 9, 3), (139, 1000, 132)] {
            let Split { whole, parts: s } = split_k(tiles, ktiles, sms);
            let chunk = ktiles.div_ceil(s);
            assert!(chunk * (s - 1) < ktiles, "{tiles} {ktiles} {sms}: part {s} of {chunk} would be empty");
            assert!(s == 1 || chunk >= MIN_SPLIT_KTILES);
            // Every block gets the same whole tiles and at most one part.
            assert!(s == 1 || (whole % sms == 0 && (tiles - whole) * s <= sms), "{tiles} {ktiles} {sms}: {whole} whole, {s} parts");
        }
    }

    #[test]
    fn waves_count_a_split_last_round_as_its_parts() {
        assert_eq!(waves(512, 64, 132), 4.0);
        assert_eq!(waves(544, 64, 132), 4.25);
        // Less than half a round, split: the share of a tile of one part.
        assert_eq!(waves(32, 128, 132), 0.25);
        // Less than one round, not split: one.
        assert_eq!(waves(100, 64, 132), 1.0);
        assert_eq!(waves(1056, 64, 132), 8.0);
    }

    #[test]
    fn auto_weighs_waves_against_tile_throughput() {
        let pick = |m, n, k, batch| {
            let p = crate::gemm::Gemm::new(m, n, k).batch(batch).problem().unwrap();
            WgmmaTile::auto(&p, BF16, BF16, (false, false), 132, false)
        };
        // One wave of wide tiles (128 of 132) beats two of narrow ones.
        assert_eq!(pick(2048, 2048, 2048, 1), Some(WgmmaTile::B128x256));
        assert_eq!(pick(8192, 8192, 8192, 1), Some(WgmmaTile::B128x256));
        // Narrow tiles fill one wave where wide ones would idle half the GPU.
        assert_eq!(pick(1024, 2048, 1024, 1), Some(WgmmaTile::B128x128));
        assert_eq!(pick(2048, 1024, 512, 1), Some(WgmmaTile::B128x128));
        // Where narrow tiles would be split in parts of short `k`, the
        // swapped tile's whole tiles; with deep `k` the split narrow ones.
        assert_eq!(pick(1024, 1024, 1024, 1), Some(WgmmaTile::S64x128));
        assert_eq!(pick(512, 2048, 2048, 1), Some(WgmmaTile::S64x128));
        assert_eq!(pick(1024, 1024, 8192, 1), Some(WgmmaTile::B128x128));
        // Four waves of wide tiles and a last round of 16 split in parts
        // (544, whose parts add their sums) against eight full rounds of
        // ping-pong tiles (1056) that hide their epilogues: the ping-pong
        // tile (on the H200 also the faster, BENCHMARKS.md).
        assert_eq!(pick(4093, 4099, 4091, 1), Some(WgmmaTile::P128x128));
        // The batch counts: 4 × 1024² is 128 wide tiles.
        assert_eq!(pick(1024, 1024, 4096, 4), Some(WgmmaTile::B128x256));
        // `C` stored by the threads (odd `n`): the unswapped tiles'
        // epilogues take longer (THREADED_C_KTILES), the swapped tile's do
        // not, the ping-pong tile's run under the other consumer's k-loop
        // — so batches of small odd products take the swapped tile, large
        // odd products the ping-pong one (each the faster on the H200),
        // and their aligned twins the tiles they took before.
        // (The aligned twins of the batches take the ping-pong tile, which
        // hides their short k-loops' epilogues: the next test.)
        assert_eq!(pick(127, 127, 127, 512), Some(WgmmaTile::S64x128));
        assert_eq!(pick(128, 128, 128, 512), Some(WgmmaTile::P128x128));
        assert_eq!(pick(255, 255, 255, 64), Some(WgmmaTile::S64x128));
        assert_eq!(pick(256, 256, 256, 64), Some(WgmmaTile::P128x128));
        // Short `k` with `C` stored by the threads: one ping-pong
        // warpgroup issues twice the stores; the swapped tile.
        assert_eq!(pick(2000, 3001, 512, 1), Some(WgmmaTile::S64x128));
        assert_eq!(pick(4095, 14335, 4096, 1), Some(WgmmaTile::P128x128));
        assert_eq!(pick(4096, 14336, 4096, 1), Some(WgmmaTile::B128x256));
        assert_eq!(pick(5119, 5119, 4096, 1), Some(WgmmaTile::P128x128));
        // A row-major `A` 16 bytes off its lines (`k` = 1000: rows of 2000
        // bytes) in a large product: the `128`-wide tiles would stage it
        // (STAGE_ROWS_PER_UNIT), so the `128 × 256` tile, which reads it
        // as it lies; the aligned twin keeps the ping-pong tile.
        assert_eq!(pick(8192, 2048, 1000, 1), Some(WgmmaTile::B128x256));
        assert_eq!(pick(8192, 2048, 1024, 1), Some(WgmmaTile::P128x128));
        // At most SWAP_ROWS rows: the swapped tile; one more row: not.
        assert_eq!(pick(1, 8192, 8192, 1), Some(WgmmaTile::S16x128));
        assert_eq!(pick(NARROW_SWAP_ROWS, 8192, 8192, 1), Some(WgmmaTile::S16x128));
        assert_eq!(pick(NARROW_SWAP_ROWS + 1, 8192, 8192, 1), Some(WgmmaTile::S64x128));
        assert_eq!(pick(SWAP_ROWS, 14336, 4096, 1), Some(WgmmaTile::S64x128));
        assert_eq!(pick(SWAP_ROWS + 1, 14336, 4096, 1), Some(WgmmaTile::B128x128));
        // 5120² × 4096: six full rounds of wide tiles and 8 split tiles
        // against twelve of ping-pong ones and 16 (the ping-pong tile 0.8 %
        // ahead on the H200, BENCHMARKS.md, "The wide tile's lead,
        // refitted").
        assert_eq!(pick(5120, 5120, 4096, 1), Some(WgmmaTile::P128x128));
        // One round of 72 wide tiles on 132 multiprocessors against one of
        // 132 narrow ones and 12 split: the narrow tile (the wide one 8 %
        // behind on the H200); as many tiles of twice the work, and
        // `k` deeper: the same.
        assert_eq!(pick(1536, 1536, 4096, 1), Some(WgmmaTile::B128x128));
        assert_eq!(pick(1792, 4096, 8192, 1), Some(WgmmaTile::B128x128));
        // f16 → f32 has only a wide-tile kernel: that one, even where the
        // narrow or the swapped tile would be chosen.
        let p = crate::gemm::Gemm::new(1024, 1024, 1024).problem().unwrap();
        assert_eq!(WgmmaTile::auto(&p, F16_KIND, F32, (false, false), 132, false), Some(WgmmaTile::B128x256));
        let decode = crate::gemm::Gemm::new(1, 8192, 8192).problem().unwrap();
        assert_eq!(WgmmaTile::auto(&decode, F16_KIND, F32, (false, false), 132, false), Some(WgmmaTile::B128x256));
    }

    #[test]
    fn auto_takes_the_ping_pong_tile_where_the_epilogues_weigh_most() {
        let pick = |m, n, k, fused| {
            let p = crate::gemm::Gemm::new(m, n, k).problem().unwrap();
            WgmmaTile::auto(&p, BF16, BF16, (false, false), 132, fused)
        };
        for fused in [false, true] {
            // Short `k`: the epilogues hidden under the other consumer's
            // k-loop weigh more than the narrower tile's operand bytes.
            assert_eq!(pick(8192, 8192, 1024, fused), Some(WgmmaTile::P128x128), "fused {fused}");
            assert_eq!(pick(16384, 4096, 1024, fused), Some(WgmmaTile::P128x128), "fused {fused}");
            // Long `k`: the wide tile.
            assert_eq!(pick(4096, 4096, 4096, fused), Some(WgmmaTile::B128x256), "fused {fused}");
            assert_eq!(pick(8192, 8192, 8192, fused), Some(WgmmaTile::B128x256), "fused {fused}");
            assert_eq!(pick(2048, 2048, 2048, fused), Some(WgmmaTile::B128x256), "fused {fused}");
            // One tile per block hides nothing: the cooperative tile.
            assert_eq!(pick(1024, 2048, 1024, fused), Some(WgmmaTile::B128x128), "fused {fused}");
        }
        // The fused epilogue tips 4096 × 4096 × 3072 to the ping-pong tile
        // (2 % ahead there on the H200, BENCHMARKS.md, "The wide tile's
        // lead, refitted", run 6).
        assert_eq!(pick(4096, 4096, 3072, false), Some(WgmmaTile::B128x256));
        assert_eq!(pick(4096, 4096, 3072, true), Some(WgmmaTile::P128x128));
        // Short `k` (2 to 15 k-tiles), batched or not, where the ping-pong
        // tile ran 2–16 % ahead of the tile the model before chose (one
        // warpgroup's epilogue counted twice the cooperative tile's) on
        // the H200: the ping-pong tile, plain and fused.
        for (m, n, k, batch) in [
            (128, 128, 128, 512),
            (256, 256, 256, 128),
            (512, 512, 512, 64),
            (1024, 1024, 256, 32),
            (4096, 4096, 256, 1),
            (4096, 4096, 512, 1),
            (8192, 8192, 256, 1),
            (8192, 8192, 512, 1),
            (4096, 14336, 512, 1),
            (16384, 4096, 768, 1),
            (4096, 4096, 960, 1),
        ] {
            let p = crate::gemm::Gemm::new(m, n, k).batch(batch).problem().unwrap();
            for fused in [false, true] {
                assert_eq!(WgmmaTile::auto(&p, BF16, BF16, (false, false), 132, fused), Some(WgmmaTile::P128x128), "{batch} × {m}×{n}×{k}, fused {fused}");
            }
        }
        // One k-tile (below PINGPONG_MIN_KTILES; the tiles tied there):
        // not the ping-pong tile.
        for (m, n, k, batch) in [(1024, 1024, 64, 64), (256, 1024, 64, 256), (512, 512, 64, 128)] {
            let p = crate::gemm::Gemm::new(m, n, k).batch(batch).problem().unwrap();
            for fused in [false, true] {
                assert_ne!(WgmmaTile::auto(&p, BF16, BF16, (false, false), 132, fused), Some(WgmmaTile::P128x128), "{batch} × {m}×{n}×{k}, fused {fused}");
            }
        }
        // f16 → f32 has no ping-pong kernel.
        let p = crate::gemm::Gemm::new(8192, 8192, 1024).problem().unwrap();
        assert_eq!(WgmmaTile::auto(&p, F16_KIND, F32, (false, false), 132, true), Some(WgmmaTile::B128x256));
    }
}
