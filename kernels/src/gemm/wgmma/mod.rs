//! The Hopper tensor-core engine (sm_90a): `C = act(α·op(A)·op(B) + β·C +
//! bias)` with bf16 or f16 inputs, f32 accumulation and f32 or 16-bit
//! output, or tf32 inputs (f32 rounded by the host) and f32 output,
//! batched, any shape — TMA copies into a ring of 128-byte-swizzled
//! stages, `wgmma` reading them through descriptors, one warp-specialised,
//! persistent block per multiprocessor.
//!
//! * **Warp specialisation.** A block is three warpgroups. The first is
//!   the producer: it gives most of its registers back (`setmaxnreg.dec`)
//!   and one of its threads issues the TMA copies of each stage, waiting
//!   for the stage's `empty` mbarrier before refilling it and announcing
//!   the bytes on its `full` mbarrier. The other two are consumers (each
//!   `64 × BN` of the `128 × BN` block tile, with `setmaxnreg.inc` to hold
//!   `BN / 2` f32 accumulators per thread): they wait for `full`, issue the
//!   stage's four `wgmma` (32 bytes of `k` each: 16 elements, 8 of tf32)
//!   asynchronously, and release the
//!   stage before theirs once `wgmma.wait_group 1` says its reads are over.
//!   Loads run `STAGES` tiles ahead of the math without a block barrier.
//! * **Ping-pong** ([`WgmmaTiling::pingpong`], `128 × 128` tiles): each
//!   consumer computes whole block tiles instead of half of each — the
//!   block's tiles in turn, both `64`-row halves of a tile (two `wgmma`
//!   per `k` step sharing `B`'s descriptor), and only its own stages
//!   released. While one consumer runs its tile's epilogue the other's
//!   k-loop keeps the tensor cores busy. The producer fills the ring in
//!   the walk's order; a consumer starts its turn only once the other has
//!   waited for its tile's last stage (the `turn` mbarriers,
//!   [`index::SmemPlan::turn`]), since a parity wait cannot tell a stage's
//!   uses two phases apart. The consumer index is broadcast from lane 0
//!   and the ring position ([`index::Ring`]) stepped, so the turn
//!   bookkeeping between the `wgmma`s stays in uniform registers.
//! * **Clusters of two** ([`WgmmaTiling::cluster`], ping-pong tiles): the
//!   grid is launched in clusters of [`CLUSTER`] blocks that compute the
//!   tiles of a pair, one above the other ([`index::pair_origin`]), and
//!   share `B`. Each block's producer loads `A` for itself and one of the
//!   stage's two boxes of `B` with a TMA multicast into both blocks, which
//!   completes its bytes on both blocks' `full` barrier (each producer
//!   still expects the whole stage); each consumer warp releases a stage
//!   on its own block's `empty` barrier and on the other block's (whose
//!   producer writes into this block's stage too), so `empty` counts both
//!   blocks' warps. The barriers are initialised, fenced for the cluster
//!   and published by a cluster barrier before any of that; at the end
//!   each producer waits until both blocks have released every stage, so
//!   no block ends while the other may still arrive on its barriers. A
//!   tile of a last, partial pair lies below `C`: it is computed (its box
//!   of `B` is the partner's too) and not stored.
//! * **Operands as stored.** TMA copies each operand tile the way it lies
//!   in global memory; `wgmma` reads k-major tiles (rows of `k`) and
//!   m/n-major ones (rows of `m` or `n`, its transpose flags), so none of
//!   the four 16-bit orientations is copied or transposed first.
//!   Out-of-bounds boxes are zero-filled by TMA: edges need no predicate
//!   in the loop. tf32 is the exception: `wgmma` reads 32-bit operands
//!   k-major only and takes each element's upper 19 bits, so the host
//!   stages both operands once, rounded (`cvt.rna`) and k-major
//!   ([`super::mma::gemm_stage_f32`], [`super::mma::gemm_stage_f32_t`]).
//! * **Persistent blocks.** The grid is one block per multiprocessor (or
//!   fewer tiles); each walks the tiles `gridDim.x` apart in
//!   [`index::tile_origin`]'s grouped order, and the producer starts the
//!   next tile's loads while the consumers finish the last one.
//! * **Split-K.** A problem of fewer tiles than multiprocessors (LLM decode:
//!   a few rows, large `n` and `k`) is cut along `k` too
//!   ([`WgmmaParams::splits`]): every part of every tile is a work unit.
//!   Each unit writes its f32 partial sums to a workspace and counts its
//!   arrival on the tile's counter; the unit that arrives last resets the
//!   counter (a launch leaves the maps buffer as it found it) and adds the
//!   parts in order (its own read back too), so the sum does not
//!   depend on which finished first, and runs the epilogue. One launch,
//!   no reduction pass. The same units spread a last round of few tiles
//!   over the grid ([`WgmmaParams::whole`]): the full rounds' tiles run
//!   whole, the last round's tiles in parts, one per block.
//! * **Swapped tiles** ([`WgmmaTiling::swapped`], products of few rows:
//!   decode). A `128 × 128` tile of a product of `m` ≤ 64 rows spends the
//!   tensor cores on 128 rows, at least half of them TMA's zero fill, and
//!   its stages hold as many bytes of those rows as of `B`. The swapped
//!   kernels compute `Cᵀ = Bᵀ·Aᵀ` in `128 × 64` tiles — the user's `B` as
//!   the kernel's `A` (128 columns of `C`, 64 per consumer), the user's `A`
//!   as its `B` (64 rows of `C`, one `m64n64` `wgmma` per k-step) — so a
//!   stage of `B` costs half the tensor-core time and a third less shared
//!   memory, and the ring holds 9 stages (a swapped plan has no epilogue
//!   buffers: its stores are element by element). Each result goes to `C` at its
//!   transposed place (`epilogue_swapped`); the split-K and the walk are
//!   the other kernels'. The narrow swapped tiles (`bn` = 16, `m` ≤ 16:
//!   one `m64n16` per k-step, 12 stages) carry 16 rows of the user's `A`
//!   a stage instead of 64: TMA's zero-filled rows past `m` still cost
//!   the bytes between L2 and the multiprocessor (ncu, BENCHMARKS.md).
//! * **Epilogue through shared-memory chunks** (`epilogue_tma`, named for
//!   its first store path): `α·acc + β·C +
//!   bias[col]`, then the activation, written from the accumulator
//!   fragment ([`crate::layout::wgmma::d_fragment`]) into two alternating
//!   swizzled shared-memory buffers, 128 bytes of each row at a time, and
//!   stored by TMA (clipped at `C`'s edges) while the consumers go on to
//!   the next tile. Where TMA cannot write `C` (its rows not 16-byte
//!   aligned, or not a whole number of 16-byte pieces) the warpgroup's
//!   threads store each chunk from its buffer instead (`store_chunk`): a
//!   warp's store covers 64 or 128 consecutive bytes of one row, clipped
//!   at the edges.
//!   A bias is copied into shared memory (`cp.async`) at the start of each
//!   tile by both consumers, between two named barriers of the 256 of
//!   them, so the epilogue reads it without a global load's latency; for a
//!   16-bit output's GELU each copying thread then scales its column by
//!   [`act_scale`] (½), as the epilogue scales α and β.
//!
//! The kernels are one table, [`wgmma_table!`](crate::wgmma_table).

pub mod index;

use self::index::{
    align_base, bk, box_dims, chunk_col, chunk_row, epi_at, epi_cols, k_part, operand_desc, pair_origin, part_at, tile_box, tile_boxes, tile_origin, CLUSTER, unit_fragment, unit_work, walk_units, Ring, SmemPlan, BM, CONSUMERS, EPI_BUFFERS,
    CHUNK_WARPS, KSTEPS, THREADS,
};
use super::mma::{act_scale, activate_all, Value, ACT_NONE, BF16, F16_KIND, F32};
use super::GemmParams;
use crate::arch::sm90::{
    cluster_ctarank, cluster_sync, fence_mbarrier_init_cluster, mbarrier_arrive_cluster, tma_load_3d_multicast, bulk_commit_group, bulk_wait_group_read, fence_proxy_async_shared, fence_proxy_tensormap, mbarrier_arrive, mbarrier_arrive_expect_tx, mbarrier_init, mbarrier_wait, setmaxnreg_dec_40,
    setmaxnreg_inc_232, tma_load_3d, wgmma_commit_group, wgmma_fence, wgmma_m64n128k16_bf16, wgmma_m64n128k16_f16,
    tma_store_3d, wgmma_m64n128k8_tf32, wgmma_m64n256k16_bf16, wgmma_m64n256k16_f16, wgmma_m64n256k8_tf32, wgmma_m64n64k16_bf16, wgmma_m64n64k16_f16, wgmma_m64n64k8_tf32, wgmma_m64n16k16_bf16, wgmma_m64n16k16_f16,
    griddepcontrol_launch_dependents, griddepcontrol_wait, wgmma_wait_group, wgmma_wait_group2, TensorMap,
};
use crate::arch::simd::f32x2;
use crate::arch::sm80::shfl_sync_idx;
use crate::arch::{
    block_idx_x, cp_async_4, cp_async_commit, cp_async_wait_group, dynamic_shared, fence_acq_rel_gpu, fma, grid_dim_x, opaque_u32, sync_named, sync_threads,
    thread_idx_x, Global, Shared,
};
use crate::launch::LaunchConfig;
use crate::layout::wgmma::{d_fragment, WARPGROUP, WGMMA_M};
use crate::variant_family;

/// Index of `A`'s tensor map in the kernel's map buffer.
pub const MAP_A: usize = 0;
/// Index of `B`'s tensor map.
pub const MAP_B: usize = 1;
/// Index of `C`'s tensor map (present when [`WgmmaParams::store`] is
/// [`STORE_TMA`]).
pub const MAP_C: usize = 2;

/// The problem, passed by value (`#[repr(C)]`, the same struct on host
/// and device). The operands themselves reach the kernel only through
/// their tensor maps.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WgmmaParams {
    /// Shape, α, β and `ldc` (`lda`/`ldb` are in the tensor maps).
    pub g: GemmParams,
    /// Matrices in the batch.
    pub batch: u32,
    /// 1 when `A` has a matrix per batch index (its map's third
    /// dimension); 0 when one `A` is shared by the batch.
    pub a_batched: u32,
    /// The same for `B`.
    pub b_batched: u32,
    /// [`ACT_NONE`], `ACT_RELU` or `ACT_GELU_TANH` (see [`super::mma`]).
    pub activation: u32,
    /// Elements from one matrix of `C` to the next.
    pub stride_c: u64,
    /// 1: add `bias[col]` (f32, `n` elements) before the activation.
    pub has_bias: u32,
    /// Parts of `k` computed separately (split-K, for problems with too
    /// few tiles to fill the GPU; not for ping-pong tiles). 1: whole tiles.
    /// Above 1: part `s` of tile `t` stores its partial sums at
    /// [`index::part_at`]`(t, s, …)` of the `work` buffer (rows inside
    /// `C`), then adds one to counter `t` of the `u32` words behind the
    /// tensor maps (`maps` from [`MAP_C`]` + 1` on, zero at launch); the
    /// part that finds the others there sets it back to zero, sums all in
    /// order and runs the epilogue.
    pub splits: u32,
    /// Tiles (in walk order) computed whole before the split ones: with
    /// `splits > 1`, tiles `0..whole` are one unit each and the others
    /// `splits` units ([`index::unit_work`]); the workspace and the
    /// counters then count split tiles from `whole`. 0: every tile splits;
    /// a multiple of the grid: the last, partial round of tiles is spread
    /// over every block.
    pub whole: u32,
    /// How results reach `C`: [`STORE_TMA`], [`STORE_THREADS`] or
    /// [`STORE_DIRECT`].
    pub store: u32,
}

/// [`WgmmaParams::store`]: `maps[MAP_C]` is `C`'s tensor map (box
/// [`index::epi_box`], the third dimension the matrices of `C`); results go
/// to `C` through shared memory and TMA stores (`epilogue_tma`).
pub const STORE_TMA: u32 = 1;
/// [`WgmmaParams::store`]: results go through the same shared-memory
/// chunks as with [`STORE_TMA`], then the warpgroup's threads store each
/// chunk row by row, a lane a pair or an element (`store_chunk`): for a `C` that TMA
/// cannot write (its start, rows or matrices not 16-byte aligned, or its
/// rows not a whole number of 16-byte pieces). No map of `C`.
pub const STORE_THREADS: u32 = 2;
/// [`WgmmaParams::store`]: straight from the accumulators
/// (`epilogue_swapped`): swapped tiles, which have no epilogue buffers.
pub const STORE_DIRECT: u32 = 0;

/// A configuration of the engine (all compile-time in the kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WgmmaTiling {
    /// Block tile columns (the `N` of every `wgmma`: 128 or 256).
    pub bn: usize,
    /// Stages of the TMA ring.
    pub stages: usize,
    /// Input element kind ([`BF16`], [`F16_KIND`], or [`F32`] for tf32:
    /// operands the host rounded to tf32, both k-major).
    pub input: usize,
    /// Output element kind ([`F32`] or the input's).
    pub output: usize,
    /// `A` stored transposed (`k × m`, read m-major).
    pub ta: bool,
    /// `B` stored transposed (`n × k`, read k-major).
    pub tb: bool,
    /// Ping-pong consumers (each its own `128 × bn` tiles; `bn` = 128, so
    /// that a consumer's accumulators are as many as a `128 × 256` tile's
    /// half).
    pub pingpong: bool,
    /// Swapped operands (`bn` = 64, or 16 for products of at most 16
    /// rows): the kernel computes `Cᵀ = op(B)ᵀ ·
    /// op(A)ᵀ`, its `A` being the user's `B` and its `B` the user's `A`, and
    /// stores each value at its transposed place in `C` (`epilogue_swapped`).
    /// For products of few rows (decode): `C`'s up to 64 rows are the `64`
    /// columns of a tile whose 128 rows run over `C`'s columns, so a stage
    /// of `B` costs half the tensor-core work of a `128 × 128` tile (whose
    /// rows past `m` are zeros) and the ring holds more stages of it.
    pub swapped: bool,
    /// Clusters of [`CLUSTER`] blocks computing tiles one above the other
    /// ([`index::pair_origin`]): they share each stage's `B`, each block's
    /// producer loading one half with a TMA multicast into both blocks,
    /// and each consumer warp releasing a stage in both: each block issues
    /// the loads of half its `B` (ncu counted more L2 bytes for it than for
    /// the plain ping-pong tile, not fewer: BENCHMARKS.md). Ping-pong tiles
    /// with `B` read n-major (two boxes a stage, one per block).
    pub cluster: bool,
}

impl WgmmaTiling {
    /// Threads per block.
    pub const fn threads(&self) -> usize {
        THREADS
    }
    /// Block tile rows.
    pub const fn bm(&self) -> usize {
        BM
    }
    /// The shared-memory plan.
    pub const fn plan(&self) -> SmemPlan {
        SmemPlan { bn: self.bn, stages: self.stages, pingpong: self.pingpong, swapped: self.swapped, ctas: if self.cluster { CLUSTER } else { 1 } }
    }
    /// f32 accumulators per consumer thread: a consumer's share of the
    /// tile (`64 × bn`, or `128 × bn` when ping-pong) over its 128 threads.
    pub const fn acc_regs(&self) -> usize {
        if self.pingpong { self.bn } else { self.bn / 2 }
    }
    /// Bytes per input element (4 for tf32).
    pub const fn es(&self) -> usize {
        super::mma::input_bytes(self.input)
    }
    /// `A` is read m-major (stored `k × m`).
    pub const fn a_mn_major(&self) -> bool {
        self.ta
    }
    /// `B` is read n-major (stored `k × n`, the row-major default).
    pub const fn b_mn_major(&self) -> bool {
        !self.tb
    }
    /// The TMA box of `A` (innermost first).
    pub const fn a_box(&self) -> [u32; 3] {
        box_dims(self.a_mn_major(), BM, self.es())
    }
    /// The TMA box of `B`.
    pub const fn b_box(&self) -> [u32; 3] {
        box_dims(self.b_mn_major(), self.bn, self.es())
    }
    /// Block tiles of `p` over the batch.
    pub const fn tiles(&self, p: &WgmmaParams) -> usize {
        (p.g.m as usize).div_ceil(BM) * (p.g.n as usize).div_ceil(self.bn) * p.batch as usize
    }
    /// Work units of a launch without split-K: its tiles, or for a
    /// clustered kernel its pairs of tiles ([`index::pair_origin`]).
    pub const fn units(&self, p: &WgmmaParams) -> usize {
        let rows = (p.g.m as usize).div_ceil(BM);
        let rows = if self.cluster { rows.div_ceil(CLUSTER) } else { rows };
        rows * (p.g.n as usize).div_ceil(self.bn) * p.batch as usize
    }
    /// Blocks per cluster: [`CLUSTER`], or 1.
    pub const fn ctas(&self) -> usize {
        self.plan().ctas
    }
    /// Grid of `groups` persistent blocks or, for a clustered kernel,
    /// clusters (the host passes `min(units, multiprocessors)`, or the
    /// clusters that fit at once).
    pub const fn config(&self, groups: u32) -> LaunchConfig {
        let ctas = self.ctas() as u32;
        LaunchConfig { grid: [groups * ctas, 1, 1], block: [THREADS as u32, 1, 1], shared_bytes: self.plan().shared_bytes() as u32, early_launch: false, cluster: ctas }
    }
    /// The orientation `(ta, tb)` of the user's operands this kernel reads:
    /// its own, or for a swapped kernel (its `A` the user's `B` stored
    /// transposed, its `B` the user's `A`) `(!tb, !ta)`.
    pub const fn problem_orientation(&self) -> (bool, bool) {
        if self.swapped { (!self.tb, !self.ta) } else { (self.ta, self.tb) }
    }
    /// Whether the engine supports the configuration.
    pub const fn validate(&self) -> bool {
        let kinds = match self.input {
            BF16 => self.output == F32 || self.output == BF16,
            F16_KIND => self.output == F32 || self.output == F16_KIND,
            // tf32 reads both operands k-major (no transpose for 32-bit
            // elements): `A` as stored (`m × k`), `B` transposed (`n × k`).
            F32 => self.output == F32 && !self.ta && self.tb,
            _ => false,
        };
        // A cluster shares `B`'s two n-major boxes of a stage (one per
        // block) between ping-pong blocks.
        let cluster = !self.cluster || (self.pingpong && self.b_mn_major() && tile_boxes(true, self.bn) == CLUSTER);
        let tile = match (self.pingpong, self.swapped) {
            (true, false) => self.bn == 128,
            (false, false) => self.bn == 128 || self.bn == 256,
            // The narrow swapped tile (`m` ≤ 16): 16-bit inputs only.
            (false, true) => self.bn == 64 || (self.bn == 16 && self.input != F32),
            (true, true) => false,
        };
        // The TMA-store epilogue alternates two buffers chunk by chunk
        // across tiles: an even number of chunks per consumer tile.
        let chunks = 2 * self.acc_regs() / epi_cols(super::mma::input_bytes(self.output));
        kinds && tile && cluster && (self.swapped || chunks % 2 == 0) && self.stages >= 2 && self.plan().shared_bytes() <= 227 * 1024
    }
}

/// One `wgmma` of the engine's shape (`64 × BN × 16`; `× 8` for tf32) and
/// input type into `acc` (`BN / 2` registers: 128, 64, 32, or 8 for the
/// 16-bit types' narrow swapped tile).
#[inline(always)]
unsafe fn mma<I: Value, const TA: bool, const TB: bool, const R: usize>(acc: &mut [u32; R], da: u64, db: u64, accumulate: bool) {
    // SAFETY (casts): `R` is the array's length; each arm runs only for
    // the length its callee takes.
    unsafe {
        match (I::KIND, R) {
            (BF16, 128) => wgmma_m64n256k16_bf16::<TA, TB>(&mut *(acc as *mut [u32; R] as *mut [u32; 128]), da, db, accumulate),
            (BF16, 64) => wgmma_m64n128k16_bf16::<TA, TB>(&mut *(acc as *mut [u32; R] as *mut [u32; 64]), da, db, accumulate),
            (F16_KIND, 128) => wgmma_m64n256k16_f16::<TA, TB>(&mut *(acc as *mut [u32; R] as *mut [u32; 128]), da, db, accumulate),
            (F16_KIND, 64) => wgmma_m64n128k16_f16::<TA, TB>(&mut *(acc as *mut [u32; R] as *mut [u32; 64]), da, db, accumulate),
            (F32, 128) => wgmma_m64n256k8_tf32(&mut *(acc as *mut [u32; R] as *mut [u32; 128]), da, db, accumulate),
            (F32, 64) => wgmma_m64n128k8_tf32(&mut *(acc as *mut [u32; R] as *mut [u32; 64]), da, db, accumulate),
            (BF16, 32) => wgmma_m64n64k16_bf16::<TA, TB>(&mut *(acc as *mut [u32; R] as *mut [u32; 32]), da, db, accumulate),
            (F16_KIND, 32) => wgmma_m64n64k16_f16::<TA, TB>(&mut *(acc as *mut [u32; R] as *mut [u32; 32]), da, db, accumulate),
            (F32, 32) => wgmma_m64n64k8_tf32(&mut *(acc as *mut [u32; R] as *mut [u32; 32]), da, db, accumulate),
            (BF16, 8) => wgmma_m64n16k16_bf16::<TA, TB>(&mut *(acc as *mut [u32; R] as *mut [u32; 8]), da, db, accumulate),
            (F16_KIND, 8) => wgmma_m64n16k16_f16::<TA, TB>(&mut *(acc as *mut [u32; R] as *mut [u32; 8]), da, db, accumulate),
            _ => {}
        }
    }
}

/// The engine (see the module docs). `B_MN` is `!TB` (`B` read n-major);
/// `SW`: swapped operands ([`WgmmaTiling::swapped`]; `p.g` is then the
/// kernel's problem, `m` and `n` the user's `n` and `m`, and `C`, its
/// `ldc`, `stride_c` and `bias` the user's).
///
/// # Safety
/// The launcher built `maps[MAP_A]` and `maps[MAP_B]` for the operands
/// as stored (boxes [`WgmmaTiling::a_box`] / [`WgmmaTiling::b_box`],
/// 128-byte swizzle, zero fill), `c` holds every element of `C` for every
/// batch index, `bias` holds `n` elements when `p.has_bias` is set, and the
/// block has [`THREADS`] threads and the plan's shared memory. With
/// `p.splits > 1`: `work` holds `(tiles − whole) · splits` block tiles of
/// f32 and `maps` one zero `u32` counter per split tile behind its three
/// map slots (zero again when the launch ends).
#[inline(always)]
pub unsafe fn body<I: Value, O: Value, const BN: usize, const ST: usize, const TA: bool, const TB: bool, const B_MN: bool, const PP: bool, const SW: bool, const CL: bool, const R: usize>(
    p: WgmmaParams,
    maps: Global<TensorMap>,
    c: Global<O>,
    bias: Global<f32>,
    work: Global<f32>,
) {
    let cfg = WgmmaTiling { bn: BN, stages: ST, input: I::KIND, output: O::KIND, ta: TA, tb: TB, pingpong: PP, swapped: SW, cluster: CL };
    const { assert!(R == WgmmaTiling { bn: BN, stages: ST, input: I::KIND, output: O::KIND, ta: TA, tb: TB, pingpong: PP, swapped: SW, cluster: CL }.acc_regs(), "R is the configuration's accumulators") };
    let plan = cfg.plan();
    let (a_mn, b_mn) = (cfg.a_mn_major(), cfg.b_mn_major());
    let t = thread_idx_x() as usize;
    let wg = t / WARPGROUP as usize;
    let base = align_base(dynamic_shared::<u8>().addr());
    let at = |off: usize| base + off as u32;
    // Tile counts from 32-bit arithmetic (their upper halves are then known
    // zeros: 64-bit ones took uniform registers ptxas spilled).
    // Work units: the whole tiles, then every part of `k` of the others;
    // a cluster's are pairs of tiles (`tiles_m` then counts rows of pairs).
    let walk = |[m, n, k, batch, splits, whole]: [u32; 6]| {
        let tiles_m = m.div_ceil(BM as u32);
        let tiles_m = if CL { tiles_m.div_ceil(CLUSTER as u32) } else { tiles_m } as usize;
        let tiles_n = n.div_ceil(BN as u32) as usize;
        let tiles = tiles_m * tiles_n * batch as usize;
        let splits = (splits as usize).max(1);
        // Ping-pong tiles do not split (the launcher passes 1 part and no
        // whole tiles; a constant here keeps their walk as it was).
        let whole = if PP { 0 } else { (whole as usize).min(tiles) };
        (tiles_m, tiles_n, splits, whole, walk_units(tiles, whole, splits), k.div_ceil(bk(I::BYTES) as u32) as usize)
    };
    let sizes = [p.g.m, p.g.n, p.g.k, p.batch, p.splits, p.whole];
    let (tiles_m, tiles_n, splits, whole, units, ktiles) = walk(sizes);
    unsafe {
        if t == 0 {
            for s in 0..ST {
                mbarrier_init(at(plan.full(s)), 1);
                mbarrier_init(at(plan.empty(s)), plan.empty_arrivals());
            }
            if PP {
                for g in 0..CONSUMERS {
                    mbarrier_init(at(plan.turn(g)), 1);
                }
            }
            if CL {
                fence_mbarrier_init_cluster();
            }
        }
        // A cluster's blocks arrive on each other's barriers and copy into
        // each other's stages: every block's barriers are initialised
        // before any of that.
        if CL {
            cluster_sync();
        } else {
            sync_threads();
        }
        // The block tile of a work unit's tile for the block of `rank`.
        let origin = |tile: usize, rank: u32, tiles_m: usize, tiles_n: usize| {
            if CL { pair_origin(tile, rank as usize, tiles_m, tiles_n, BN) } else { tile_origin(tile, tiles_m, tiles_n, BN) }
        };
        // Launched early (`LaunchConfig::early_launch`, the host's
        // `Gemm::programmatic_launch`), the block has set up its barriers
        // while the stream's previous kernel ended: wait for that kernel
        // (its writes) before the first memory access. Then the next launch
        // may begin: its blocks take this grid's multiprocessors as they
        // free up and wait here in turn. Both are no-ops in a plain launch.
        griddepcontrol_wait();
        griddepcontrol_launch_dependents();

        if wg == 0 {
            // Producer.
            setmaxnreg_dec_40();
            if t != 0 {
                return;
            }
            fence_proxy_tensormap(maps, MAP_A);
            fence_proxy_tensormap(maps, MAP_B);
            // The ring position, stepped (the producer has 40 registers).
            let mut ring = Ring::<ST>::START;
            // Units in 32 bits here (the launcher checks that they fit).
            let units = units as u32;
            let (rank, first, step) = walk_start::<CL>();
            let mut unit = first;
            while unit < units {
                let (tile, part, parts) = unit_work(unit as usize, whole, splits);
                let (z, m0, n0) = origin(tile, rank, tiles_m, tiles_n);
                let (k0, k1) = k_part(part, parts, ktiles);
                let za = if p.a_batched != 0 { z } else { 0 };
                let zb = if p.b_batched != 0 { z } else { 0 };
                for kt in k0..k1 {
                    // A fresh stage counts as released (parity 1 of phase 0).
                    let s = ring.s as usize;
                    mbarrier_wait(at(plan.empty(s)), ring.phase ^ 1);
                    let full = at(plan.full(s));
                    mbarrier_arrive_expect_tx(full, plan.stage_bytes() as u32);
                    for q in 0..tile_boxes(a_mn, BM) {
                        let (off, xyz) = tile_box(a_mn, q, m0, kt, za, I::BYTES);
                        tma_load_3d(at(plan.a(s) + off), maps, MAP_A, xyz, full);
                    }
                    for q in 0..tile_boxes(b_mn, BN) {
                        let (off, xyz) = tile_box(b_mn, q, n0, kt, zb, I::BYTES);
                        if !CL {
                            tma_load_3d(at(plan.b(s) + off), maps, MAP_B, xyz, full);
                        } else if q == rank as usize {
                            // This block's box of `B`, into both blocks'
                            // stage (the same offsets), completing on both
                            // blocks' `full` barrier.
                            tma_load_3d_multicast(at(plan.b(s) + off), maps, MAP_B, xyz, full, (1 << CLUSTER) - 1);
                        }
                    }
                    ring.step();
                }
                unit = unit.saturating_add(step);
            }
            if CL {
                // Every stage released by both blocks' consumers: their
                // last arrivals on this block's barriers have landed, and
                // this block's copies into the other block are complete
                // (its consumers waited for them), so the block may end.
                for _ in 0..ST {
                    mbarrier_wait(at(plan.empty(ring.s as usize)), ring.phase ^ 1);
                    ring.step();
                }
            }
        } else {
            // Consumers.
            setmaxnreg_inc_232();
            // Ping-pong: the walk again, from the parameters (computed once
            // before the producer/consumer branch, ptxas kept it in local
            // memory across the register reallocation).
            let (tiles_m, _, splits, whole, units, ktiles) = if PP { walk(sizes.map(opaque_u32)) } else { (tiles_m, tiles_n, splits, whole, units, ktiles) };
            // The consumer, broadcast from lane 0: a value ptxas knows is
            // the same across the warp, so what depends on it (whose turn
            // a tile is, the ring position) stays in uniform registers —
            // derived from the thread index, the ping-pong k-loop's
            // bookkeeping went to vector registers and 64-bit arithmetic
            // the warp stalled on between its `wgmma`s.
            let g = shfl_sync_idx((wg - 1) as u32, 0) as usize;
            let tw = t % WARPGROUP as usize;
            let lane = tw % 32;
            // A consumer's accumulators: `acc` (half of the tile), or when
            // ping-pong `lo` and `hi` (the tile's two 64-row halves; two
            // arrays named apart, not halves of one indexed by a loop
            // variable, which put them in local memory).
            let mut acc = [0u32; R];
            let (mut lo, mut hi) = ([0u32; HALF], [0u32; HALF]);
            const { assert!(!PP || (BN == 128 && R == 2 * HALF), "ping-pong halves are 64 × 128") };
            // A swapped tile stores element by element (the launcher
            // passes no map of `C`); the others through shared memory and
            // TMA or the threads' stores.
            let tma = !SW && p.store == STORE_TMA;
            // The ring position of the next k-tile, and the stage of the
            // last one (released once its `wgmma`s completed).
            let mut ring = Ring::<ST>::START;
            let mut prev = 0usize;
            // Units in 32 bits, as in the producer.
            let units = units as u32;
            let (rank, first, step) = walk_start::<CL>();
            let mut unit = first;
            // The block's units in walk order; ping-pong: consumer `g`
            // computes turns `g`, `g + 2`, … and lets the others' stages by.
            // Before a turn's first stage it waits until the other consumer
            // has waited for the last stage of the turn before (the `turn`
            // mbarriers): a stage's `full` barrier tells only the parity of
            // its phase, and a consumer running a whole tile ahead of the
            // loads would take a phase two uses old for the one it wants.
            let mut turn = 0u32;
            while unit < units {
                let (tile, part, parts) = unit_work(unit as usize, whole, splits);
                let (k0, k1) = k_part(part, parts, ktiles);
                let mine = !PP || turn as usize % CONSUMERS == g;
                turn += 1;
                if !mine {
                    ring.skip((k1 - k0) as u32);
                    unit = unit.saturating_add(step);
                    continue;
                }
                // `n`'s tile count again from the parameter (held through
                // the k-loop, ptxas spilled it when the bias copy below
                // came in).
                let tiles_n = opaque_u32(p.g.n).div_ceil(BN as u32) as usize;
                let (z, m0, n0) = origin(tile, rank, tiles_m, tiles_n);
                // Who shares the tile's bias copy: both consumers (a
                // column each of 256 threads), or this one alone.
                let bias_threads = bias_copiers(PP) as u32;
                let (bias_bar, col) = if PP { (epi_barrier(g), tw) } else { (BIAS_BARRIER, g * WARPGROUP as usize + tw) };
                // A swapped tile's bias runs along its rows: its epilogue
                // reads it from global memory.
                let bias_copy = p.has_bias != 0 && !SW;
                if bias_copy {
                    // The tile's bias into shared memory while the k-loop
                    // runs (read from global memory in the epilogue, its
                    // loads' latency stood between the tensor cores' tiles).
                    // The consumers that read it are past the last tile's
                    // reads first.
                    sync_named(bias_bar, bias_threads);
                    const { assert!(BN <= bias_copiers(PP), "a column of the bias per copying thread") };
                    if col < BN {
                        // SAFETY: `col < BN`, inside the plan's bias slot of
                        // `bn` f32; the source index is clamped into the
                        // `n` elements the launcher checked `bias` holds.
                        cp_async_4(bias_tile(plan, g), col, bias, (n0 + col).min(p.g.n as usize - 1));
                    }
                    cp_async_commit();
                }
                if PP && turn > 1 {
                    // Turn `turn - 1` is this consumer's `(turn - 2) / 2`-th
                    // wait (turns 1, 3, … or 2, 4, …).
                    mbarrier_wait(at(plan.turn(g)), ((turn - 2) / 2) & 1);
                }
                // The other consumer's turn barrier.
                let next = || at(plan.turn(CONSUMERS - 1 - g));
                for kt in k0..k1 {
                    let s = ring.s as usize;
                    mbarrier_wait(at(plan.full(s)), ring.phase);
                    if PP && kt + 1 == k1 && tw == 0 {
                        // Every stage of the turn is loaded: the other
                        // consumer's turn may begin.
                        mbarrier_arrive(next());
                    }
                    wgmma_fence();
                    for j in 0..KSTEPS {
                        let db = operand_desc(b_mn, at(plan.b(s)), 0, j);
                        let accumulate = kt > k0 || j > 0;
                        if PP {
                            // Both halves of the tile, `B` shared.
                            mma::<I, TA, B_MN, HALF>(&mut lo, operand_desc(a_mn, at(plan.a(s)), 0, j), db, accumulate);
                            mma::<I, TA, B_MN, HALF>(&mut hi, operand_desc(a_mn, at(plan.a(s)), 1, j), db, accumulate);
                        } else {
                            let da = operand_desc(a_mn, at(plan.a(s)), g, j);
                            mma::<I, TA, B_MN, R>(&mut acc, da, db, accumulate);
                        }
                    }
                    wgmma_commit_group();
                    // The previous stage's group is done: release its stage.
                    if PP {
                        wgmma_wait_group2::<1, HALF>(&mut lo, &mut hi);
                    } else {
                        wgmma_wait_group::<1, R>(&mut acc);
                    }
                    if kt > k0 && lane == 0 {
                        release::<CL>(at(plan.empty(prev)), rank);
                    }
                    prev = s;
                    ring.step();
                }
                if PP {
                    wgmma_wait_group2::<0, HALF>(&mut lo, &mut hi);
                } else {
                    wgmma_wait_group::<0, R>(&mut acc);
                }
                if k1 > k0 && lane == 0 {
                    release::<CL>(at(plan.empty(prev)), rank);
                }
                if PP && k1 == k0 && tw == 0 {
                    mbarrier_arrive(next());
                }
                if k1 == k0 {
                    acc = [0; R];
                    (lo, hi) = ([0; HALF], [0; HALF]);
                }
                if bias_copy {
                    cp_async_wait_group(0);
                    let scale = act_scale::<O>(p.activation);
                    if col < BN && scale != 1.0 {
                        // The copy scaled for the activation ([`act_scale`]):
                        // this thread's own column, its copy complete.
                        // SAFETY: as the copy above.
                        let b = bias_tile(plan, g);
                        b.store(col, scale * b.load(col));
                    }
                    sync_named(bias_bar, bias_threads);
                }
                if !PP && parts > 1 {
                    // The workspace and the counters count split tiles.
                    let unit_of = (tile - whole, part, parts);
                    // SAFETY: the launcher sized `work` and the counters
                    // for the split (see `body`).
                    if !split_k_arrive::<BN, R>(&p, maps, work, &acc, unit_of, (m0, n0), g, tw, plan) {
                        unit = unit.saturating_add(step);
                        continue;
                    }
                    split_k_sum::<BN, R>(&p, work, &mut acc, (unit_of.0, parts), (m0, n0), g, tw);
                }
                let bias_sh = bias_tile(plan, g);
                let base = z * p.stride_c as usize;
                let zc = z;
                if CL && m0 >= p.g.m as usize {
                    // A tile below `C` (the lower one of a last pair):
                    // nothing to store.
                } else if PP {
                    // One half after the other (each a call of its own:
                    // see `lo` and `hi`).
                    epilogue_tma::<O, HALF>(&p, maps, c, bias_sh, &lo, (base, zc), (m0, n0), tw, g, plan);
                    epilogue_tma::<O, HALF>(&p, maps, c, bias_sh, &hi, (base, zc), (m0 + WGMMA_M as usize, n0), tw, g, plan);
                } else if SW {
                    epilogue_swapped::<O, R>(&p, c, bias, &acc, base, (m0 + 64 * g, n0), tw);
                } else {
                    epilogue_tma::<O, R>(&p, maps, c, bias_sh, &acc, (base, zc), (m0 + 64 * g, n0), tw, g, plan);
                }
                unit = unit.saturating_add(step);
            }
            if tma && tw == 0 {
                // The last stores read their buffers before the block's
                // shared memory goes.
                bulk_wait_group_read::<0>();
            }
        }
    }
}

/// This block's rank in its cluster, its first work unit and the step
/// between its units: the cluster's (clusters, `CL`) or the block's own.
/// Read in each branch of the kernel (held across the register
/// reallocation, they took registers the consumers' k-loop needs).
#[inline(always)]
fn walk_start<const CL: bool>() -> (u32, u32, u32) {
    if CL {
        (cluster_ctarank(), block_idx_x() / CLUSTER as u32, grid_dim_x() / CLUSTER as u32)
    } else {
        (0, block_idx_x(), grid_dim_x())
    }
}

/// A consumer warp's release of the stage whose `empty` barrier is at
/// `bar`: an arrival there, and with clusters (`CL`) on the same barrier
/// of the other block (its producer copies into this block's stage too).
#[inline(always)]
unsafe fn release<const CL: bool>(bar: u32, rank: u32) {
    unsafe {
        mbarrier_arrive(bar);
        if CL {
            mbarrier_arrive_cluster(bar, rank ^ 1);
        }
    }
}

/// Accumulators per half of a ping-pong tile (`64 × 128`).
const HALF: usize = 64;

/// Named barrier of consumer `g`'s 128 threads (0 is `sync_threads`).
const fn epi_barrier(g: usize) -> u32 {
    1 + g as u32
}

/// The consumer threads that copy a tile's bias, a column each: both
/// consumers', or when ping-pong the tile's one.
const fn bias_copiers(pingpong: bool) -> usize {
    if pingpong { WARPGROUP as usize } else { CONSUMERS * WARPGROUP as usize }
}

/// Named barrier of both consumers (256 threads) around the tile's bias.
const BIAS_BARRIER: u32 = 1 + CONSUMERS as u32;

/// The block tile's bias that consumer `g` reads in shared memory
/// ([`SmemPlan::bias`]).
#[inline(always)]
fn bias_tile(plan: SmemPlan, g: usize) -> Shared<f32> {
    plan_slot(plan.bias(g))
}

/// Shared memory at offset `off` of the plan (from the aligned base).
#[inline(always)]
fn plan_slot<T>(off: usize) -> Shared<T> {
    let raw = dynamic_shared::<u8>();
    // `opaque_u32`: computed where it is used, not held through the k-loop.
    let at = opaque_u32(align_base(raw.addr()) - raw.addr()) as usize + off;
    raw.offset(at).cast::<T>()
}

/// Split-K, one unit (`(tile, part, splits)`) of a tile: stores this
/// consumer's partial sums inside `C` (rows, and pairs of columns that
/// start inside: a swapped decode tile has 64 columns where `C` has a few
/// rows) to `work`
/// ([`index::part_at`]), publishes them (each thread's
/// `fence.acq_rel.gpu`, then a barrier of both consumers) and adds one to
/// the tile's arrival counter (`maps` past its three map slots), the old
/// count passed to both consumers through shared memory
/// ([`SmemPlan::ticket`]); the last to arrive sets the counter back to zero
/// (a launch leaves its counters as it found them). Returns whether every
/// other part had arrived:
/// then this unit sums the parts ([`split_k_sum`]) and stores the tile.
///
/// # Safety
/// `work` holds the workspace of every unit and `maps` the counters of
/// every split tile (see [`body`]); both consumers call it for the unit.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn split_k_arrive<const BN: usize, const R: usize>(
    p: &WgmmaParams,
    maps: Global<TensorMap>,
    work: Global<f32>,
    acc: &[u32; R],
    (tile, part, splits): (usize, usize, usize),
    (m0, n0): (usize, usize),
    g: usize,
    tw: usize,
    plan: SmemPlan,
) -> bool {
    // Rows and columns of the block tile inside `C` (at least one each).
    let (rows, cols) = (p.g.m as usize - m0, p.g.n as usize - n0);
    macro_rules! groups {
        ($($g:literal)*) => {$(
            if $g < R {
                for pair in 0..8 {
                    let reg = $g + 2 * pair;
                    let (row, col) = unit_fragment(g, tw, reg);
                    // (`reg < R`: the narrow swapped tile's 8 registers.)
                    if reg < R && row < rows && col < cols {
                        let v = f32x2::from_array([f32::from_bits(acc[reg]), f32::from_bits(acc[reg + 1])]);
                        // SAFETY: inside the unit's tile of the workspace;
                        // an even column, 8-byte aligned.
                        unsafe { work.write_vec::<f32x2>(part_at(tile, part, splits, BN, row, col), v) };
                    }
                }
            }
        )*};
    }
    groups!(0 16 32 48 64 80 96 112);
    fence_acq_rel_gpu();
    let consumers = CONSUMERS as u32 * WARPGROUP;
    sync_named(BIAS_BARRIER, consumers);
    let ticket = plan_slot::<u32>(plan.ticket());
    if g == 0 && tw == 0 {
        // SAFETY: the counters follow the map slots (the launcher's
        // buffer); the slot is the plan's.
        unsafe {
            let counters = maps.after::<u32>(MAP_C + 1);
            // The last part to arrive steps the counter back to zero, so
            // the launcher can launch again on the same buffer (cached per
            // stream) without clearing it.
            ticket.store(0, counters.atomic_inc(tile, splits as u32 - 1));
        }
    }
    sync_named(BIAS_BARRIER, consumers);
    // Read before either consumer can reach the next unit's first barrier,
    // after which the slot is written again.
    let last = unsafe { ticket.load(0) } as usize == splits - 1;
    if last {
        // Every part's stores before this unit's loads of them.
        fence_acq_rel_gpu();
    }
    last
}

/// Split-K, the unit that arrived last: its consumer's accumulators
/// become the sum of the tile's parts in order, part by part
/// (`Σ_{s < splits}`, left to right), every part read from `work` (its own
/// too, stored by [`split_k_arrive`]: the accumulators are only written
/// here, which leaves ptxas the registers of a `128 × 256` tile). The order
/// does not depend on which unit arrived last, so neither does the result.
/// Rows outside `C` are read at the last row inside, pairs of columns
/// outside at the last pair stored (the epilogue does not store them).
///
/// The loop runs over the parts with every register group inside it: a
/// part's loads are independent of one another and sit in one loop body,
/// where they can go out together, so the sum need wait out only one
/// memory round trip per part (with the parts inside each group's loop it
/// waited at least one per group and part, at the end of the kernel).
///
/// # Safety
/// As for [`split_k_arrive`], after it returned `true`.
#[inline(always)]
unsafe fn split_k_sum<const BN: usize, const R: usize>(
    p: &WgmmaParams,
    work: Global<f32>,
    acc: &mut [u32; R],
    (tile, splits): (usize, usize),
    (m0, n0): (usize, usize),
    g: usize,
    tw: usize,
) {
    // The last row inside `C`, and the last (even) column of a pair stored.
    let last_row = p.g.m as usize - m0 - 1;
    let last_pair = (p.g.n as usize - n0 - 1) & !1;
    for s in 0..splits {
        macro_rules! groups {
            ($($g:literal)*) => {$(
                if $g < R {
                    let at = |pair: usize| {
                        let (row, col) = unit_fragment(g, tw, $g + 2 * pair);
                        part_at(tile, s, splits, BN, row.min(last_row), col.min(last_pair))
                    };
                    // SAFETY: inside part `s`'s tile, 8-byte aligned.
                    let v: [[f32; 2]; 8] = core::array::from_fn(|pair| unsafe { work.read_vec::<f32x2>(at(pair)) }.to_array());
                    for pair in 0..8.min(R / 2) {
                        let [x, y] = v[pair];
                        let r = $g + 2 * pair;
                        (acc[r], acc[r + 1]) = if s == 0 { (x.to_bits(), y.to_bits()) } else { ((f32::from_bits(acc[r]) + x).to_bits(), (f32::from_bits(acc[r + 1]) + y).to_bits()) };
                    }
                }
            )*};
        }
        groups!(0 16 32 48 64 80 96 112);
    }
}

/// A consumer's `64 × 2R` results to `C` through shared memory: chunk by
/// chunk (64 rows of 128 bytes, [`epi_cols`] columns), each thread writes
/// its fragment's `act(α·acc + β·C + bias[col])` into the chunk's buffer
/// in TMA's swizzled layout ([`epi_at`]), and thread 0 of the warpgroup
/// issues one TMA store of the chunk, which TMA clips at `C`'s edges.
///
/// The stores run while the consumer goes on to the next tile: its writes
/// leave as whole 128-byte lines instead of the 16-byte pieces of eight
/// rows a fragment store instruction writes, which filled the L2's
/// request queue on short-`k` problems. Two buffers alternate, chunk `q`
/// in buffer `q % 2` (a tile has an even number of chunks, so the order
/// goes on across tiles; [`bulk_wait_group_read`] of all but the last
/// store frees the buffer about to be written);
/// a named barrier of the warpgroup before a buffer is written (its old
/// store has read it) and after (every thread's bytes are in, fenced for
/// the async proxy) orders them.
///
/// With [`STORE_THREADS`] (a `C` TMA cannot write) the chunks go through
/// the same buffers, and the warpgroup's threads store each one
/// ([`store_chunk`]) before its buffer is written again.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn epilogue_tma<O: Value, const R: usize>(
    p: &WgmmaParams,
    maps: Global<TensorMap>,
    c: Global<O>,
    bias: Shared<f32>,
    acc: &[u32; R],
    (base, zc): (usize, usize),
    origin: (usize, usize),
    tw: usize,
    g: usize,
    plan: SmemPlan,
) {
    // `β = 0`, no bias, no activation: only `α·acc` rounded and stored.
    let plain = p.g.beta == 0.0 && p.has_bias == 0 && p.activation == ACT_NONE;
    // The fragment's shared-memory addresses are computed here, per tile:
    // hoisted out of the tile loop they held registers through the k-loop
    // (ptxas spilled).
    let tw = opaque_u32(tw as u32) as usize;
    let sh_base = opaque_u32(align_base(dynamic_shared::<u8>().addr()));
    let bufs: [u32; EPI_BUFFERS] = core::array::from_fn(|b| sh_base + plan.epi(g, b) as u32);
    // Registers per chunk (two per pair of columns); a multiple of 16.
    let per_chunk = epi_cols(O::BYTES) / 2;
    // Chunk `q` goes to buffer `q % 2` across tiles: an even number of
    // chunks per tile ([`WgmmaTiling::validate`]; swapped tiles, whose one
    // chunk would break it, never store through TMA but instantiate this).
    // With `STORE_THREADS` each chunk is stored by the threads just before
    // its buffer is written again, the last two after the last: the
    // accumulators of the chunks already in shared memory no longer hold
    // registers then (stored at once, the `128 × 256` kernels spilled).
    const { assert!(EPI_BUFFERS == 2, "two buffers alternate") };
    macro_rules! groups {
        ($($g:literal)*) => {$(
            if $g < R {
                if $g % per_chunk == 0 {
                    if p.store != STORE_TMA && $g >= 2 * per_chunk {
                        // The chunk two back, from the buffer about to be
                        // written.
                        let q = $g / per_chunk - 2;
                        // SAFETY: written and closed by a barrier.
                        unsafe { store_chunk::<O>(p, c, bufs[q % EPI_BUFFERS], base, (origin.0, origin.1 + q * epi_cols(O::BYTES)), tw) };
                    }
                    if tw == 0 {
                        bulk_wait_group_read::<1>();
                    }
                    sync_named(epi_barrier(g), WARPGROUP);
                }
                let buf = bufs[($g / per_chunk) % EPI_BUFFERS];
                let vals = if plain {
                    group_alpha::<R, $g>(p.g.alpha, acc)
                } else {
                    unsafe { group_values::<O, R, $g>(p, c, bias, acc, base, origin, tw) }
                };
                let col0 = ($g / per_chunk) * epi_cols(O::BYTES);
                let sh = dynamic_shared::<O::Pair>();
                for (pair, v) in vals.iter().enumerate() {
                    let (row, col) = d_fragment(tw as u32, ($g + 2 * pair) as u32);
                    let at = epi_at(buf, row, col - col0 as u32, O::BYTES as u32);
                    // SAFETY: inside the buffer (`epi_at` of a chunk's
                    // element), aligned for a pair.
                    unsafe { sh.store_vec::<O::Pair>(((at - sh.addr()) as usize) / core::mem::size_of::<O::Pair>(), O::pair(*v)) };
                }
                if ($g + 16) % per_chunk == 0 {
                    if p.store == STORE_TMA {
                        fence_proxy_async_shared();
                        sync_named(epi_barrier(g), WARPGROUP);
                        if tw == 0 {
                            let xyz = [(origin.1 + col0) as i32, origin.0 as i32, zc as i32];
                            // SAFETY: the buffer is fully written and fenced
                            // (the barrier above); the map is `C`'s.
                            unsafe { tma_store_3d(buf, maps, MAP_C, xyz) };
                            bulk_commit_group();
                        }
                    } else {
                        // The threads store it later (below, or when its
                        // buffer comes round again).
                        sync_named(epi_barrier(g), WARPGROUP);
                    }
                }
            }
        )*};
    }
    groups!(0 16 32 48 64 80 96 112);
    if p.store != STORE_TMA {
        // The last two chunks, both closed by their barriers.
        let chunks = R / per_chunk;
        for q in chunks.saturating_sub(EPI_BUFFERS)..chunks {
            // SAFETY: as above.
            unsafe { store_chunk::<O>(p, c, bufs[q % EPI_BUFFERS], base, (origin.0, origin.1 + q * epi_cols(O::BYTES)), tw) };
        }
    }
}

/// One epilogue chunk from its buffer to `C` by the warpgroup's 128
/// threads ([`STORE_THREADS`]): warp `w` stores rows `w, w + 4, …` of the
/// chunk's 64, its lanes consecutive elements of a row — a pair each
/// where a 16-bit row starts 4-byte aligned, else an element each (a
/// 16-bit row in two passes of 32) — clipped at `C`'s edges. Each store
/// instruction of a warp writes 64 or 128 contiguous bytes, where the
/// fragments' own stores write 16-byte pieces of eight rows (element by
/// element on rows that are not 4-byte aligned). The chunk's rows start
/// at `(r0, c0)` of the matrix of `C` at `base`.
///
/// # Safety
/// `buf` holds the chunk as [`epi_at`] lays it out, written by the whole
/// warpgroup before a barrier this thread passed; `c` holds every element
/// of `C` the launcher checked.
#[inline(always)]
unsafe fn store_chunk<O: Value>(p: &WgmmaParams, c: Global<O>, buf: u32, base: usize, (r0, c0): (usize, usize), tw: usize) {
    let ldc = p.g.ldc as usize;
    let (warp, lane) = ((tw / 32) as u32, (tw % 32) as u32);
    // The chunk's rows and columns inside `C`.
    let rows = (p.g.m as usize).saturating_sub(r0).min(WGMMA_M as usize) as u32;
    let cols = (p.g.n as usize).saturating_sub(c0).min(epi_cols(O::BYTES)) as u32;
    let sh = dynamic_shared::<O>();
    let elem = |row: u32, col: u32| ((epi_at(buf, row, col, O::BYTES as u32) - sh.addr()) / O::BYTES as u32) as usize;
    // Row `row`'s first element in `C` (the same for the whole warp).
    let mut o = base + (r0 + warp as usize) * ldc + c0;
    // A loop, not unrolled (an opaque count): each tile inlines this once
    // per chunk, and unrolled it made the `128 × 256` kernel's epilogue
    // much longer and the kernel markedly slower (BENCHMARKS.md).
    for i in 0..opaque_u32(WGMMA_M / CHUNK_WARPS) {
        let row = chunk_row(warp, i);
        if row >= rows {
            break;
        }
        if O::BYTES == 2 && o % 2 == 0 {
            // A 16-bit row starting 4-byte aligned: a pair per lane, one
            // store of 128 bytes per warp.
            let col = chunk_col(lane, 0, 2);
            // SAFETY: an aligned pair of the chunk's buffer (`epi_at` keeps
            // 4-byte units whole); inside `C` (tested), aligned (`o` even).
            unsafe {
                if col + 1 < cols {
                    c.write_vec::<O::Pair>(o + col as usize, sh.load_vec::<O::Pair>(elem(row, col)));
                } else if col < cols {
                    c.write(o + col as usize, sh.load(elem(row, col)));
                }
            }
        } else {
            for pass in 0..epi_cols(O::BYTES) as u32 / 32 {
                let col = chunk_col(lane, pass, 1);
                if col < cols {
                    // SAFETY: an element of the chunk's buffer; inside `C`
                    // (row and column tested).
                    unsafe { c.write(o + col as usize, sh.load(elem(row, col))) };
                }
            }
        }
        o += CHUNK_WARPS as usize * ldc;
    }
}

/// `α·acc` of registers `G..G + 16`, as pairs.
#[inline(always)]
fn group_alpha<const R: usize, const G: usize>(alpha: f32, acc: &[u32; R]) -> [[f32; 2]; 8] {
    core::array::from_fn(|pair| [f32::from_bits(acc[G + 2 * pair]), f32::from_bits(acc[G + 2 * pair + 1])].map(|x| alpha * x))
}

/// `act(α·acc + β·C + bias[col])` of registers `G..G + 16`, as pairs; the
/// bias from the block tile's copy in shared memory ([`SmemPlan::bias`]).
/// `C` is read at positions clamped into `C` (what lies
/// outside is never stored): loads without a bounds branch, all issued
/// before the first is used (each behind its own branch, they waited out
/// their latency one by one).
/// The activation is chosen once for the group's 16 values
/// ([`activate_all`]).
#[inline(always)]
unsafe fn group_values<O: Value, const R: usize, const G: usize>(
    p: &WgmmaParams,
    c: Global<O>,
    bias: Shared<f32>,
    acc: &[u32; R],
    base: usize,
    (r0, c0): (usize, usize),
    tw: usize,
) -> [[f32; 2]; 8] {
    let (m, n, ldc) = (p.g.m as usize, p.g.n as usize, p.g.ldc as usize);
    // α and β scaled for the activation ([`act_scale`]; the bias copy in
    // shared memory is scaled already).
    let scale = act_scale::<O>(p.activation);
    let alpha = scale * p.g.alpha;
    let mut vals = if p.has_bias != 0 {
        // `α·acc + bias` in one fused multiply-add per value; the pair's
        // two columns of the block tile's bias (an even column: one 8-byte
        // load).
        core::array::from_fn(|pair| {
            let (_, dc) = d_fragment(tw as u32, (G + 2 * pair) as u32);
            let b = unsafe { bias.load_vec::<f32x2>(dc as usize) }.to_array();
            [0, 1].map(|e| fma(alpha, f32::from_bits(acc[G + 2 * pair + e]), b[e]))
        })
    } else {
        group_alpha::<R, G>(alpha, acc)
    };
    // The pair's row and its two columns, clamped into `C`.
    let at = |pair: usize| {
        let (dr, dc) = d_fragment(tw as u32, (G + 2 * pair) as u32);
        let (row, col) = (r0 + dr as usize, c0 + dc as usize);
        (row.min(m - 1), [col.min(n - 1), (col + 1).min(n - 1)])
    };
    if p.g.beta != 0.0 {
        let mut old = [[0.0f32; 2]; 8];
        for pair in 0..8 {
            let (row, [c0, c1]) = at(pair);
            unsafe { old[pair] = [c.read(base + row * ldc + c0).to_f32(), c.read(base + row * ldc + c1).to_f32()] };
        }
        let beta = scale * p.g.beta;
        for pair in 0..8 {
            vals[pair] = [fma(beta, old[pair][0], vals[pair][0]), fma(beta, old[pair][1], vals[pair][1])];
        }
    }
    if p.activation != ACT_NONE {
        // The group's 16 values in one call (see `activate_all`).
        let flat = activate_all::<O, 16>(p.activation, core::array::from_fn(|i| vals[i / 2][i % 2]));
        vals = core::array::from_fn(|pair| [flat[2 * pair], flat[2 * pair + 1]]);
    }
    vals
}

/// One consumer thread's accumulators of a swapped tile
/// ([`WgmmaTiling::swapped`]) to `C`: the kernel's row `j` is `C`'s column,
/// its column `i` `C`'s row, so `act(α·acc + β·C + bias[j])` goes to
/// `C[i][j]`, one element per store (two adjacent accumulators are two rows
/// of `C`). A product of a few rows writes little next to the `B` it
/// reads: no TMA store or staging through shared memory.
///
/// In groups of 16 registers (each read by a constant index: every
/// group's loops are unrolled, so each accumulator stays in a register),
/// every read of a group (`C` for β, the bias) before
/// its first store, at positions clamped into `C`.
#[inline(always)]
unsafe fn epilogue_swapped<O: Value, const R: usize>(p: &WgmmaParams, c: Global<O>, bias: Global<f32>, acc: &[u32; R], base: usize, (r0, c0): (usize, usize), tw: usize) {
    // The kernel's `m` runs over `C`'s columns, its `n` over `C`'s rows.
    let (cols, rows, ldc) = (p.g.m as usize, p.g.n as usize, p.g.ldc as usize);
    macro_rules! groups {
        ($($g:literal)*) => {$(
            if $g < R {
                // `(row, column)` of `C` of register `$g + i`.
                let at = |i: usize| {
                    let (dr, dc) = d_fragment(tw as u32, ($g + i) as u32);
                    (c0 + dc as usize, r0 + dr as usize)
                };
                // α, β and the bias scaled for the activation ([`act_scale`]).
                let scale = act_scale::<O>(p.activation);
                // (The narrow swapped tile has 8 registers: the group's
                // others repeat the last and are not stored.)
                let mut v: [f32; 16] = core::array::from_fn(|i| scale * p.g.alpha * f32::from_bits(acc[($g + i).min(R - 1)]));
                if p.g.beta != 0.0 {
                    let old: [f32; 16] = core::array::from_fn(|i| {
                        let (row, col) = at(i);
                        // SAFETY: clamped into `C`.
                        unsafe { c.read(base + row.min(rows - 1) * ldc + col.min(cols - 1)) }.to_f32()
                    });
                    v = core::array::from_fn(|i| fma(scale * p.g.beta, old[i], v[i]));
                }
                if p.has_bias != 0 {
                    // SAFETY: clamped into the `n` elements the launcher
                    // checked `bias` holds.
                    let b: [f32; 16] = core::array::from_fn(|i| unsafe { bias.read(at(i).1.min(cols - 1)) });
                    v = core::array::from_fn(|i| fma(scale, b[i], v[i]));
                }
                if p.activation != ACT_NONE {
                    v = activate_all::<O, 16>(p.activation, v);
                }
                for (i, x) in v.iter().enumerate() {
                    let (row, col) = at(i);
                    if $g + i < R && row < rows && col < cols {
                        // SAFETY: inside `C` (the launcher checked it holds
                        // every element of every matrix).
                        unsafe { c.write(base + row * ldc + col, O::one(*x)) };
                    }
                }
            }
        )*};
    }
    groups!(0 16 32 48 64 80 96 112);
}

/// Defines a named kernel running [`body`] with the [`WgmmaTiling`]
/// constant `$cfg` (checked by a `const` assertion).
#[allow(unused_macros)]
macro_rules! wgmma_kernel {
    ($(#[$m:meta])* $name:ident = $cfg:path) => {
        $crate::kernel! {
            $(#[$m])*
            pub fn $name(
                p: $crate::gemm::wgmma::WgmmaParams,
                maps: $crate::arch::Global<$crate::arch::sm90::TensorMap>,
                c: $crate::arch::Global<<$crate::gemm::mma::Dt<{ $cfg.output }> as $crate::gemm::mma::Elem>::T>,
                bias: $crate::arch::Global<f32>,
                work: $crate::arch::Global<f32>
            ) {
                const _: () = assert!($cfg.validate(), "invalid wgmma configuration");
                $crate::gemm::wgmma::body::<
                    <$crate::gemm::mma::Dt<{ $cfg.input }> as $crate::gemm::mma::Elem>::T, _,
                    { $cfg.bn }, { $cfg.stages }, { $cfg.ta }, { $cfg.tb }, { !$cfg.tb }, { $cfg.pingpong }, { $cfg.swapped }, { $cfg.cluster }, { $cfg.acc_regs() },
                >(p, maps, c, bias, work)
            }
        }
    };
}

const fn cfg(bn: usize, stages: usize, input: usize, output: usize, ta: bool, tb: bool) -> WgmmaTiling {
    WgmmaTiling { bn, stages, input, output, ta, tb, pingpong: false, swapped: false, cluster: false }
}

const fn swapped(bn: usize, stages: usize, input: usize, output: usize, ta: bool, tb: bool) -> WgmmaTiling {
    WgmmaTiling { swapped: true, ..cfg(bn, stages, input, output, ta, tb) }
}

const fn pingpong(c: WgmmaTiling) -> WgmmaTiling {
    WgmmaTiling { pingpong: true, ..c }
}

macro_rules! tile_consts {
    ($($name:ident = ($bn:literal, $st:literal, $in:ident, $out:ident, $ta:literal, $tb:literal);)*) => {
        $(
            #[doc = concat!("`128 × ", stringify!($bn), " × 64`, ", stringify!($st), " stages.")]
            pub const $name: WgmmaTiling = cfg($bn, $st, $in, $out, $ta, $tb);
        )*
    };
}

tile_consts! {
    WG_BF16_BF16_NN_128X256 = (256, 4, BF16, BF16, false, false);
    WG_BF16_BF16_TN_128X256 = (256, 4, BF16, BF16, true, false);
    WG_BF16_BF16_NT_128X256 = (256, 4, BF16, BF16, false, true);
    WG_BF16_BF16_TT_128X256 = (256, 4, BF16, BF16, true, true);
    WG_BF16_F32_NN_128X256 = (256, 4, BF16, F32, false, false);
    WG_BF16_F32_NT_128X256 = (256, 4, BF16, F32, false, true);
    WG_F16_F16_NN_128X256 = (256, 4, F16_KIND, F16_KIND, false, false);
    WG_F16_F16_NT_128X256 = (256, 4, F16_KIND, F16_KIND, false, true);
    WG_F16_F32_NN_128X256 = (256, 4, F16_KIND, F32, false, false);
    WG_BF16_BF16_NN_128X128 = (128, 6, BF16, BF16, false, false);
    WG_BF16_BF16_NT_128X128 = (128, 6, BF16, BF16, false, true);
    WG_BF16_F32_NN_128X128 = (128, 6, BF16, F32, false, false);
    WG_F16_F16_NN_128X128 = (128, 6, F16_KIND, F16_KIND, false, false);
    WG_TF32_F32_NT_128X256 = (256, 4, F32, F32, false, true);
    WG_TF32_F32_NT_128X128 = (128, 6, F32, F32, false, true);
}

/// bf16 → bf16 ping-pong `128 × 128 × 64` tiles, 6 stages, row-major.
pub const WG_BF16_BF16_NN_PP128: WgmmaTiling = pingpong(WG_BF16_BF16_NN_128X128);
/// bf16 → bf16 ping-pong, `B` stored transposed.
pub const WG_BF16_BF16_NT_PP128: WgmmaTiling = pingpong(WG_BF16_BF16_NT_128X128);
/// bf16 → f32 ping-pong, row-major.
pub const WG_BF16_F32_NN_PP128: WgmmaTiling = pingpong(WG_BF16_F32_NN_128X128);
/// f16 → f16 ping-pong, row-major.
pub const WG_F16_F16_NN_PP128: WgmmaTiling = pingpong(WG_F16_F16_NN_128X128);
/// bf16 → bf16 ping-pong `128 × 128` tiles in clusters of two sharing
/// `B`, 6 stages, row-major.
pub const WG_BF16_BF16_NN_PP128_C2: WgmmaTiling = WgmmaTiling { cluster: true, ..WG_BF16_BF16_NN_PP128 };
/// bf16 → bf16 swapped `128 × 64 × 64` tiles (`C`'s `64 × 128`,
/// [`WgmmaTiling::swapped`]), 9 stages, the user's operands row-major (the
/// swapped kernels are named for the user's orientation: here both kernel
/// operands are read transposed).
pub const WG_BF16_BF16_NN_SW64: WgmmaTiling = swapped(64, 9, BF16, BF16, true, true);
/// bf16 → bf16 swapped, the kernel's `A` k-major: the user's `B` stored
/// transposed (`n × k`, the weights of a linear layer).
pub const WG_BF16_BF16_NT_SW64: WgmmaTiling = swapped(64, 9, BF16, BF16, false, true);
/// bf16 → f32 swapped, the user's operands row-major.
pub const WG_BF16_F32_NN_SW64: WgmmaTiling = swapped(64, 9, BF16, F32, true, true);
/// f16 → f16 swapped, the user's operands row-major.
pub const WG_F16_F16_NN_SW64: WgmmaTiling = swapped(64, 9, F16_KIND, F16_KIND, true, true);
/// tf32 → f32 swapped (the host stages both operands k-major).
pub const WG_TF32_F32_NT_SW64: WgmmaTiling = swapped(64, 9, F32, F32, false, true);
/// bf16 → bf16 narrow swapped `128 × 16 × 64` tiles (`C`'s `16 × 128`:
/// products of at most 16 rows, whose `A` a `64`-column tile reads as 64
/// rows, all but a few of them TMA's zero fill), 12 stages, the user's
/// operands row-major.
pub const WG_BF16_BF16_NN_SW16: WgmmaTiling = swapped(16, 12, BF16, BF16, true, true);
/// bf16 → bf16 narrow swapped, the user's `B` stored transposed.
pub const WG_BF16_BF16_NT_SW16: WgmmaTiling = swapped(16, 12, BF16, BF16, false, true);
/// bf16 → f32 narrow swapped, the user's operands row-major.
pub const WG_BF16_F32_NN_SW16: WgmmaTiling = swapped(16, 12, BF16, F32, true, true);
/// f16 → f16 narrow swapped, the user's operands row-major.
pub const WG_F16_F16_NN_SW16: WgmmaTiling = swapped(16, 12, F16_KIND, F16_KIND, true, true);

/// The wgmma kernels, one row each (see [`crate::variants`]). They are
/// compiled into the sm_90a PTX module only (`ferrotile_sm90a`), and on
/// the host for the emulator.
#[macro_export]
macro_rules! wgmma_table {
    ($then:ident) => { $then! {
        /// The wgmma kernels: tile, types and operand orientation.
        pub enum WgmmaKernel: $crate::gemm::wgmma::WgmmaTiling;

        /// bf16 → bf16, 128 × 256, 4 stages, both operands row-major.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Bf16Bf16Nn128x256 => gemm_wgmma_bf16_bf16_nn_128x256_s4 = wgmma_kernel!(WG_BF16_BF16_NN_128X256), bounds 1;
        /// bf16 → bf16, 128 × 256, 4 stages, `A` stored transposed.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Bf16Bf16Tn128x256 => gemm_wgmma_bf16_bf16_tn_128x256_s4 = wgmma_kernel!(WG_BF16_BF16_TN_128X256), bounds 1;
        /// bf16 → bf16, 128 × 256, 4 stages, `B` stored transposed.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Bf16Bf16Nt128x256 => gemm_wgmma_bf16_bf16_nt_128x256_s4 = wgmma_kernel!(WG_BF16_BF16_NT_128X256), bounds 1;
        /// bf16 → bf16, 128 × 256, 4 stages, both stored transposed.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Bf16Bf16Tt128x256 => gemm_wgmma_bf16_bf16_tt_128x256_s4 = wgmma_kernel!(WG_BF16_BF16_TT_128X256), bounds 1;
        /// bf16 → f32, 128 × 256, 4 stages, both operands row-major.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Bf16F32Nn128x256 => gemm_wgmma_bf16_f32_nn_128x256_s4 = wgmma_kernel!(WG_BF16_F32_NN_128X256), bounds 1;
        /// bf16 → f32, 128 × 256, 4 stages, `B` stored transposed.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Bf16F32Nt128x256 => gemm_wgmma_bf16_f32_nt_128x256_s4 = wgmma_kernel!(WG_BF16_F32_NT_128X256), bounds 1;
        /// f16 → f16, 128 × 256, 4 stages, both operands row-major.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] F16F16Nn128x256 => gemm_wgmma_f16_f16_nn_128x256_s4 = wgmma_kernel!(WG_F16_F16_NN_128X256), bounds 1;
        /// f16 → f16, 128 × 256, 4 stages, `B` stored transposed.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] F16F16Nt128x256 => gemm_wgmma_f16_f16_nt_128x256_s4 = wgmma_kernel!(WG_F16_F16_NT_128X256), bounds 1;
        /// f16 → f32, 128 × 256, 4 stages, both operands row-major.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] F16F32Nn128x256 => gemm_wgmma_f16_f32_nn_128x256_s4 = wgmma_kernel!(WG_F16_F32_NN_128X256), bounds 1;
        /// bf16 → bf16, 128 × 128, 6 stages, both operands row-major (more tiles for smaller problems).
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Bf16Bf16Nn128x128 => gemm_wgmma_bf16_bf16_nn_128x128_s6 = wgmma_kernel!(WG_BF16_BF16_NN_128X128), bounds 1;
        /// bf16 → bf16, 128 × 128, 6 stages, `B` stored transposed.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Bf16Bf16Nt128x128 => gemm_wgmma_bf16_bf16_nt_128x128_s6 = wgmma_kernel!(WG_BF16_BF16_NT_128X128), bounds 1;
        /// bf16 → f32, 128 × 128, 6 stages, both operands row-major.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Bf16F32Nn128x128 => gemm_wgmma_bf16_f32_nn_128x128_s6 = wgmma_kernel!(WG_BF16_F32_NN_128X128), bounds 1;
        /// f16 → f16, 128 × 128, 6 stages, both operands row-major.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] F16F16Nn128x128 => gemm_wgmma_f16_f16_nn_128x128_s6 = wgmma_kernel!(WG_F16_F16_NN_128X128), bounds 1;
        /// tf32 → f32, 128 × 256, 4 stages, `B` stored transposed (the host stages the operands rounded to tf32, k-major).
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Tf32F32Nt128x256 => gemm_wgmma_tf32_f32_nt_128x256_s4 = wgmma_kernel!(WG_TF32_F32_NT_128X256), bounds 1;
        /// tf32 → f32, 128 × 128, 6 stages, `B` stored transposed.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Tf32F32Nt128x128 => gemm_wgmma_tf32_f32_nt_128x128_s6 = wgmma_kernel!(WG_TF32_F32_NT_128X128), bounds 1;
        /// bf16 → bf16, ping-pong 128 × 128 tiles (each consumer its own: one's epilogue under the other's k-loop), 6 stages, row-major.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Bf16Bf16NnPp128 => gemm_wgmma_bf16_bf16_nn_pp128_s6 = wgmma_kernel!(WG_BF16_BF16_NN_PP128), bounds 1;
        /// bf16 → bf16, ping-pong 128 × 128, `B` stored transposed.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Bf16Bf16NtPp128 => gemm_wgmma_bf16_bf16_nt_pp128_s6 = wgmma_kernel!(WG_BF16_BF16_NT_PP128), bounds 1;
        /// bf16 → f32, ping-pong 128 × 128, row-major.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Bf16F32NnPp128 => gemm_wgmma_bf16_f32_nn_pp128_s6 = wgmma_kernel!(WG_BF16_F32_NN_PP128), bounds 1;
        /// f16 → f16, ping-pong 128 × 128, row-major.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] F16F16NnPp128 => gemm_wgmma_f16_f16_nn_pp128_s6 = wgmma_kernel!(WG_F16_F16_NN_PP128), bounds 1;
        /// bf16 → bf16, ping-pong 128 × 128 in clusters of two blocks sharing `B` (TMA multicast), row-major.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Bf16Bf16NnPp128C2 => gemm_wgmma_bf16_bf16_nn_pp128_c2_s6 = wgmma_kernel!(WG_BF16_BF16_NN_PP128_C2), bounds 1;
        /// bf16 → bf16, swapped 128 × 64 tiles (`C`'s 64 × 128: products of few rows), 9 stages, the user's operands row-major.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Bf16Bf16NnSw64 => gemm_wgmma_bf16_bf16_nn_sw64_s9 = wgmma_kernel!(WG_BF16_BF16_NN_SW64), bounds 1;
        /// bf16 → bf16, swapped 128 × 64, the user's `B` stored transposed.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Bf16Bf16NtSw64 => gemm_wgmma_bf16_bf16_nt_sw64_s9 = wgmma_kernel!(WG_BF16_BF16_NT_SW64), bounds 1;
        /// bf16 → f32, swapped 128 × 64, the user's operands row-major.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Bf16F32NnSw64 => gemm_wgmma_bf16_f32_nn_sw64_s9 = wgmma_kernel!(WG_BF16_F32_NN_SW64), bounds 1;
        /// f16 → f16, swapped 128 × 64, the user's operands row-major.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] F16F16NnSw64 => gemm_wgmma_f16_f16_nn_sw64_s9 = wgmma_kernel!(WG_F16_F16_NN_SW64), bounds 1;
        /// tf32 → f32, swapped 128 × 64 (operands staged k-major).
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Tf32F32NtSw64 => gemm_wgmma_tf32_f32_nt_sw64_s9 = wgmma_kernel!(WG_TF32_F32_NT_SW64), bounds 1;
        /// bf16 → bf16, narrow swapped 128 × 16 tiles (`C`'s 16 × 128: products of at most 16 rows), 12 stages, the user's operands row-major.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Bf16Bf16NnSw16 => gemm_wgmma_bf16_bf16_nn_sw16_s12 = wgmma_kernel!(WG_BF16_BF16_NN_SW16), bounds 1;
        /// bf16 → bf16, narrow swapped 128 × 16, the user's `B` stored transposed.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Bf16Bf16NtSw16 => gemm_wgmma_bf16_bf16_nt_sw16_s12 = wgmma_kernel!(WG_BF16_BF16_NT_SW16), bounds 1;
        /// bf16 → f32, narrow swapped 128 × 16, the user's operands row-major.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] Bf16F32NnSw16 => gemm_wgmma_bf16_f32_nn_sw16_s12 = wgmma_kernel!(WG_BF16_F32_NN_SW16), bounds 1;
        /// f16 → f16, narrow swapped 128 × 16, the user's operands row-major.
        [cfg(any(not(target_arch = "nvptx64"), ferrotile_sm90a))] F16F16NnSw16 => gemm_wgmma_f16_f16_nn_sw16_s12 = wgmma_kernel!(WG_F16_F16_NN_SW16), bounds 1;
    } };
}

crate::wgmma_table!(variant_family);
