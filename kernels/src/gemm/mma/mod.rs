//! The tensor-core engine (sm_80 `mma.sync`; runs on Ampere, Ada and
//! Hopper): `C = act(α·op(A)·op(B) + β·C + bias)` with bf16 or f16 inputs
//! (f32 accumulation, f32 or 16-bit output) or f32 inputs rounded to tf32,
//! batched, any shape.
//!
//! The CUTLASS design the seeds end with, in four levels:
//!
//! 1. **Block tile** `BM × BN`, walked along `K` in tiles of `BK`: a
//!    `STAGES`-deep ring of shared-memory stages, each filled by 16-byte
//!    `cp.async` copies issued `STAGES − 1` tiles ahead of the one being
//!    computed, so loads overlap the math; one barrier per `k` tile.
//! 2. **Shared tiles** keep each operand as it is stored in global memory
//!    (the contiguous dimension contiguous), in 128-byte panels swizzled
//!    with [`index::SWIZZLE`]: every 16-byte copy and every `ldmatrix` phase
//!    is bank-conflict-free ([`index`]'s tests).
//! 3. **Warp tile** `WM × WN`: each warp loads its fragments with
//!    `ldmatrix.x4` (`.trans` when the stored operand is the other major)
//!    and issues `(WM/16) · (WN/8)` `mma.m16n8k16` (`mma.m16n8k8` for tf32)
//!    per `k` step into f32 accumulators held in registers.
//! 4. **Epilogue**: each lane's accumulators, at the positions of the `mma`
//!    C fragment, become `α·acc + β·C + bias[col]`, then the activation,
//!    converted to the output type and stored, predicated at the edges.
//!
//! Edges: copies of chunks past `M`, `N` or `K` store zeros (whole chunks)
//! or copy element by element (a chunk cut by the edge), so any shape runs
//! on the same kernel; the host stages operands whose rows do not start
//! 16-byte aligned (a leading dimension not a multiple of 8 16-bit
//! elements) into an aligned copy first.
//!
//! The kernels are one table, [`mma_table!`](crate::mma_table): each row a
//! tile configuration, input and output type and operand orientation.

pub mod index;
pub mod stage;

pub use stage::*;

use core::simd::f32x2;

use self::index::{a_rows, a_rows_tf32, a_trans_rows, b_rows, b_trans_rows, b_trans_rows_tf32, block_tile, copy_passes, SmemTile};
use super::GemmParams;
use crate::arch::{
    block_idx_x, block_idx_z, cp_async_16, cp_async_commit, cp_async_wait_group, cvt_rna_tf32_f32, cvt_rn_bf16x2_f32, cvt_rn_f16x2_f32,
    dynamic_shared, exp2_approx, fma, ldmatrix_x4, ldmatrix_x4_trans, mma_m16n8k16_bf16, mma_m16n8k16_f16, mma_m16n8k8_tf32, sync_threads,
    thread_idx_x, Global, Shared,
};
use crate::launch::LaunchConfig;
use crate::layout::fragment::mma_m16n8_c;
use crate::numeric::{unpack_bf16x2, unpack_f16x2, Bf16, F16};
use crate::variant_family;

/// Element kind `f32` (tf32 operands are stored as f32).
pub const F32: usize = 0;
/// Element kind bfloat16.
pub const BF16: usize = 1;
/// Element kind binary16.
pub const F16_KIND: usize = 2;

/// The element type of kind `K` ([`F32`], [`BF16`], [`F16_KIND`]): `Dt<K>`
/// implements [`Elem`], so a configuration constant names its types.
pub struct Dt<const K: usize>;

/// Element types of the engine's operands and results.
pub trait Elem {
    /// The type.
    type T: Copy + Default;
}
impl Elem for Dt<F32> {
    type T = f32;
}
impl Elem for Dt<BF16> {
    type T = Bf16;
}
impl Elem for Dt<F16_KIND> {
    type T = F16;
}

/// What the engine reads and writes of an element type.
pub trait Value: Copy + Default {
    /// Bytes per element.
    const BYTES: usize;
    /// The element kind ([`F32`], [`BF16`], [`F16_KIND`]).
    const KIND: usize;
    /// The value as f32.
    fn to_f32(self) -> f32;
    /// Two results packed for one store (the lower column first).
    type Pair: Copy;
    /// Two f32 results rounded and packed.
    fn pair(v: [f32; 2]) -> Self::Pair;
    /// One f32 result rounded.
    fn one(v: f32) -> Self;
    /// The two values of a pair.
    fn unpair(p: Self::Pair) -> [f32; 2];
}

impl Value for f32 {
    const BYTES: usize = 4;
    const KIND: usize = F32;
    type Pair = f32x2;
    fn to_f32(self) -> f32 {
        self
    }
    fn pair(v: [f32; 2]) -> f32x2 {
        f32x2::from_array(v)
    }
    fn one(v: f32) -> f32 {
        v
    }
    fn unpair(p: f32x2) -> [f32; 2] {
        p.to_array()
    }
}

impl Value for Bf16 {
    const BYTES: usize = 2;
    const KIND: usize = BF16;
    type Pair = u32;
    fn to_f32(self) -> f32 {
        Bf16::to_f32(self)
    }
    fn pair(v: [f32; 2]) -> u32 {
        cvt_rn_bf16x2_f32(v[0], v[1])
    }
    fn one(v: f32) -> Bf16 {
        crate::arch::cvt_rn_bf16_f32(v)
    }
    fn unpair(p: u32) -> [f32; 2] {
        let (lo, hi) = unpack_bf16x2(p);
        [lo.to_f32(), hi.to_f32()]
    }
}

impl Value for F16 {
    const BYTES: usize = 2;
    const KIND: usize = F16_KIND;
    type Pair = u32;
    fn to_f32(self) -> f32 {
        crate::arch::cvt_f32_f16(self)
    }
    fn pair(v: [f32; 2]) -> u32 {
        cvt_rn_f16x2_f32(v[0], v[1])
    }
    fn one(v: f32) -> F16 {
        crate::arch::cvt_rn_f16_f32(v)
    }
    fn unpair(p: u32) -> [f32; 2] {
        let (lo, hi) = unpack_f16x2(p);
        [crate::arch::cvt_f32_f16(lo), crate::arch::cvt_f32_f16(hi)]
    }
}

/// The activation applied last in the epilogue.
pub const ACT_NONE: u32 = 0;
/// `max(x, 0)`.
pub const ACT_RELU: u32 = 1;
/// GELU, tanh approximation: `x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³)))`.
pub const ACT_GELU_TANH: u32 = 2;

/// The problem, passed by value to every tensor-core kernel (`#[repr(C)]`,
/// the same struct on host and device).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MmaParams {
    /// Shape, leading dimensions, α and β (as the SIMT ladder). With an
    /// operand transposed, its leading dimension is that of the stored
    /// matrix (`k × m` for `Aᵀ`, `n × k` for `Bᵀ`).
    pub g: GemmParams,
    /// Elements from one matrix of the batch to the next in `A` (0 with one
    /// matrix, or to share `A` across the batch).
    pub stride_a: u64,
    /// The same for `B`.
    pub stride_b: u64,
    /// The same for `C`.
    pub stride_c: u64,
    /// [`ACT_NONE`], [`ACT_RELU`] or [`ACT_GELU_TANH`].
    pub activation: u32,
    /// 1: add `bias[col]` (an f32 vector of `n` elements) before the
    /// activation; 0: the bias argument is not read.
    pub has_bias: u32,
}

/// A configuration of the engine: tiles, pipeline depth, types and operand
/// orientation (all compile-time in the kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaTiling {
    /// Block tile rows.
    pub bm: usize,
    /// Block tile columns.
    pub bn: usize,
    /// `k` per stage (elements).
    pub bk: usize,
    /// Warp tile rows (a multiple of 16).
    pub wm: usize,
    /// Warp tile columns (a multiple of 16).
    pub wn: usize,
    /// Shared-memory stages of the `cp.async` ring (≥ 2).
    pub stages: usize,
    /// Input element kind ([`BF16`], [`F16_KIND`], or [`F32`] for tf32).
    pub input: usize,
    /// Output element kind ([`F32`], or the input's 16-bit kind).
    pub output: usize,
    /// `A` stored transposed (`k × m`).
    pub ta: bool,
    /// `B` stored transposed (`n × k`).
    pub tb: bool,
}

/// Consecutive block rows that walk the grid together ([`block_tile`]).
pub const BLOCK_GROUP: usize = 8;

impl MmaTiling {
    /// Threads per block.
    pub const fn threads(&self) -> usize {
        (self.bm / self.wm) * (self.bn / self.wn) * 32
    }
    /// Bytes per input element.
    pub const fn es(&self) -> usize {
        if self.input == F32 { 4 } else { 2 }
    }
    /// `k` of one `mma` (16 for 16-bit inputs, 8 for tf32).
    pub const fn mma_k(&self) -> usize {
        if self.input == F32 { 8 } else { 16 }
    }
    /// The shared `A` tile of one stage.
    pub const fn a_tile(&self) -> SmemTile {
        if self.ta { SmemTile { rows: self.bk, cols: self.bm, es: self.es() } } else { SmemTile { rows: self.bm, cols: self.bk, es: self.es() } }
    }
    /// The shared `B` tile of one stage.
    pub const fn b_tile(&self) -> SmemTile {
        if self.tb { SmemTile { rows: self.bn, cols: self.bk, es: self.es() } } else { SmemTile { rows: self.bk, cols: self.bn, es: self.es() } }
    }
    /// Bytes of one stage.
    pub const fn stage_bytes(&self) -> usize {
        self.a_tile().bytes() + self.b_tile().bytes()
    }
    /// Dynamic shared memory per block.
    pub const fn shared_bytes(&self) -> u32 {
        (self.stages * self.stage_bytes()) as u32
    }
    /// Grid for `p` with `batch` matrices: block tiles along x (in
    /// [`block_tile`] order), the batch along z (at most 65535; the host
    /// launches larger batches in parts).
    pub const fn config(&self, p: &MmaParams, batch: u32) -> LaunchConfig {
        let tiles = (p.g.m as usize).div_ceil(self.bm) * (p.g.n as usize).div_ceil(self.bn);
        LaunchConfig { grid: [tiles as u32, 1, batch], block: [self.threads() as u32, 1, 1], shared_bytes: self.shared_bytes() }
    }
    /// Whether the engine supports the configuration.
    pub const fn validate(&self) -> bool {
        let t = self.threads();
        let kinds = match self.input {
            F32 => self.output == F32,
            BF16 => self.output == F32 || self.output == BF16,
            F16_KIND => self.output == F32 || self.output == F16_KIND,
            _ => false,
        };
        kinds
            && !(self.input == F32 && (self.ta || !self.tb))
            && self.bm % self.wm == 0
            && self.bn % self.wn == 0
            && self.wm % 16 == 0
            && self.wn % 16 == 0
            && self.bk % self.mma_k() == 0
            && self.stages >= 2
            && self.stages <= 8
            && t >= 32
            && t <= 1024
            && self.a_tile().is_valid()
            && self.b_tile().is_valid()
            && self.a_tile().copy_plan_ok(t)
            && self.b_tile().copy_plan_ok(t)
            && self.shared_bytes() <= 227 * 1024
    }
}

/// One operand as the stage loader sees it: the stored matrix
/// (`rows × cols`, leading dimension `ld`, starting at element `base`) and
/// the shared tile.
#[derive(Clone, Copy)]
struct Operand {
    base: usize,
    ld: usize,
    rows: usize,
    cols: usize,
    tile: SmemTile,
}

/// Copies the stored block `(r0.., c0..)` of `op` into the shared tile at
/// `dst` (`threads` threads, thread `t`), at the edges of the matrix:
/// 16-byte `cp.async` for chunks inside it, zeros for chunks past it,
/// element copies for a chunk cut by its last column.
#[inline(always)]
unsafe fn load_tile_edge<I: Value>(src: Global<I>, op: Operand, (r0, c0): (usize, usize), dst: Shared<I>, t: usize, threads: usize) {
    let tile = op.tile;
    let ce = tile.chunk_elems();
    for pass in 0..copy_passes(tile.chunks(), threads) {
        let (r, c) = tile.chunk(t + pass * threads);
        let (gr, gc) = (r0 + r, c0 + c);
        let at = tile.offset(r, c) / I::BYTES;
        let row = op.base + gr * op.ld;
        unsafe {
            if gr < op.rows && gc + ce <= op.cols {
                cp_async_16(dst, at, src, row + gc);
            } else {
                for e in 0..ce {
                    let v = if gr < op.rows && gc + e < op.cols { src.read(row + gc + e) } else { I::default() };
                    dst.store(at + e, v);
                }
            }
        }
    }
}

/// A thread's copies of one operand's tiles inside the matrix, computed
/// once: its first chunk's global element (at `k` tile 0) and shared
/// element, the steps to its next chunks (a constant in shared memory: see
/// [`SmemTile::pass_bytes`]), and the global step of one `k` tile.
#[derive(Clone, Copy)]
struct CopyPlan {
    src0: usize,
    src_pass: usize,
    src_k: usize,
    dst0: usize,
    dst_pass: usize,
    passes: usize,
}

impl CopyPlan {
    /// The plan of thread `t` for `op`, whose tile at `k` tile 0 starts at
    /// `(r0, c0)` of the stored matrix and moves by `src_k` elements per
    /// `k` tile.
    #[inline(always)]
    fn new<I: Value>(op: Operand, (r0, c0): (usize, usize), src_k: usize, t: usize, threads: usize) -> CopyPlan {
        let tile = op.tile;
        let (r, c) = tile.chunk(t);
        CopyPlan {
            src0: op.base + (r0 + r) * op.ld + c0 + c,
            src_pass: tile.pass_rows(threads) * op.ld,
            src_k,
            dst0: tile.offset(r, c) / I::BYTES,
            dst_pass: tile.pass_bytes(threads) / I::BYTES,
            passes: copy_passes(tile.chunks(), threads),
        }
    }

    /// `k` tile `kt` into the stage at `dst`: one unpredicated 16-byte
    /// `cp.async` per chunk (the tile lies inside the matrix).
    #[inline(always)]
    unsafe fn copy<I: Value>(&self, src: Global<I>, kt: usize, dst: Shared<I>) {
        let from = self.src0 + kt * self.src_k;
        for pass in 0..self.passes {
            unsafe { cp_async_16(dst, self.dst0 + pass * self.dst_pass, src, from + pass * self.src_pass) };
        }
    }
}

/// `e^x` from the device's `ex2` (`2^(x · log2 e)`).
#[inline(always)]
fn exp(x: f32) -> f32 {
    exp2_approx(x * core::f32::consts::LOG2_E)
}

/// The activation `act` of `x`.
#[inline(always)]
pub fn activate(act: u32, x: f32) -> f32 {
    match act {
        ACT_RELU => {
            if x > 0.0 {
                x
            } else {
                0.0
            }
        }
        ACT_GELU_TANH => {
            // tanh(y) = 1 − 2 / (e^{2y} + 1), exact at ±∞.
            let y = 0.797_884_56 * fma(0.044_715 * x, x * x, x);
            let tanh = 1.0 - 2.0 / (exp(2.0 * y) + 1.0);
            0.5 * x * (1.0 + tanh)
        }
        _ => x,
    }
}

/// The engine: one block computes one `BM × BN` tile of one matrix of the
/// batch (see the module docs).
///
/// # Safety
/// The launcher checked the buffers: `a`, `b`, `c` hold every element the
/// layouts of `p` reach for every batch index, their rows start 16-byte
/// aligned (leading dimensions and batch strides multiples of 16 bytes),
/// and `bias` holds `n` elements when `p.has_bias` is set.
#[inline(always)]
pub unsafe fn body<
    I: Value,
    O: Value,
    const BM: usize,
    const BN: usize,
    const BK: usize,
    const WM: usize,
    const WN: usize,
    const ST: usize,
    const TA: bool,
    const TB: bool,
    const MI: usize,
    const NI: usize,
>(
    p: MmaParams,
    a: Global<I>,
    b: Global<I>,
    c: Global<O>,
    bias: Global<f32>,
) {
    let cfg = MmaTiling { bm: BM, bn: BN, bk: BK, wm: WM, wn: WN, stages: ST, input: I::KIND, output: O::KIND, ta: TA, tb: TB };
    let threads = cfg.threads();
    let (m, n, k) = (p.g.m as usize, p.g.n as usize, p.g.k as usize);
    let t = thread_idx_x() as usize;
    let (lane, warp) = (t % 32, t / 32);
    let (wr, wc) = (warp / (BN / WN), warp % (BN / WN));
    let (tm, tn) = block_tile(block_idx_x() as usize, m.div_ceil(BM), n.div_ceil(BN), BLOCK_GROUP);
    let (m0, n0) = (tm * BM, tn * BN);
    let batch = block_idx_z() as usize;

    // The stored operands: A is m × k (or k × m), B is k × n (or n × k).
    let (at, bt) = (cfg.a_tile(), cfg.b_tile());
    let (lda, ldb) = (p.g.lda as usize, p.g.ldb as usize);
    let base_a = batch * p.stride_a as usize;
    let base_b = batch * p.stride_b as usize;
    let op_a = if TA { Operand { base: base_a, ld: lda, rows: k, cols: m, tile: at } } else { Operand { base: base_a, ld: lda, rows: m, cols: k, tile: at } };
    let op_b = if TB { Operand { base: base_b, ld: ldb, rows: n, cols: k, tile: bt } } else { Operand { base: base_b, ld: ldb, rows: k, cols: n, tile: bt } };
    // Tile origins in the stored matrices for k tile `kt`, and the global
    // step of one k tile.
    let a_origin = |kt: usize| if TA { (kt * BK, m0) } else { (m0, kt * BK) };
    let b_origin = |kt: usize| if TB { (n0, kt * BK) } else { (kt * BK, n0) };
    let plan_a = CopyPlan::new::<I>(op_a, a_origin(0), if TA { BK * lda } else { BK }, t, threads);
    let plan_b = CopyPlan::new::<I>(op_b, b_origin(0), if TB { BK } else { BK * ldb }, t, threads);

    let smem = dynamic_shared::<I>();
    let stage_elems = cfg.stage_bytes() / I::BYTES;
    let sa = |s: usize| smem.offset(s * stage_elems);
    let sb = |s: usize| smem.offset(s * stage_elems + at.bytes() / I::BYTES);
    let ktiles = k.div_ceil(BK);
    // Tiles 0..full_k lie inside the matrices when the block tile does: no
    // predicate in their copies.
    let interior = m0 + BM <= m && n0 + BN <= n;
    let full_k = if interior { k / BK } else { 0 };
    let load = |kt: usize, s: usize| unsafe {
        if kt < full_k {
            plan_a.copy(a, kt, sa(s));
            plan_b.copy(b, kt, sb(s));
        } else {
            load_tile_edge(a, op_a, a_origin(kt), sa(s), t, threads);
            load_tile_edge(b, op_b, b_origin(kt), sb(s), t, threads);
        }
    };
    let lanes = Lanes::new::<I, TA, TB>(at, bt, (wr * WM, wc * WN), lane);

    let mut acc = [[[0.0f32; 4]; NI]; MI];
    unsafe {
        // Prologue: the first ST − 1 tiles in flight, one group each.
        for s in 0..ST - 1 {
            if s < ktiles {
                load(s, s);
            }
            cp_async_commit();
        }
        for kt in 0..ktiles {
            // Tile kt has landed (this thread's copies), and every thread's
            // after the barrier; the stage refilled below was last read
            // before it.
            cp_async_wait_group(ST as u32 - 2);
            sync_threads();
            let next = kt + ST - 1;
            if next < ktiles {
                load(next, next % ST);
            }
            cp_async_commit();
            compute::<I, BK, TA, TB, MI, NI>(at, bt, sa(kt % ST), sb(kt % ST), &lanes, lane, &mut acc);
        }
        cp_async_wait_group(0);
        epilogue::<O, MI, NI>(&p, c, bias, batch * p.stride_c as usize, (m0 + wr * WM, n0 + wc * WN), lane, &acc);
    }
}

/// A lane's `ldmatrix` row offsets (bytes in a stage) for the first A and
/// B fragments of its warp tile; every other fragment is
/// [`SmemTile::delta`] away.
struct Lanes {
    a: usize,
    b: usize,
}

impl Lanes {
    #[inline(always)]
    fn new<I: Value, const TA: bool, const TB: bool>(at: SmemTile, bt: SmemTile, (wm0, wn0): (usize, usize), lane: usize) -> Lanes {
        let tf32 = I::KIND == F32;
        let a = match (tf32, TA) {
            (false, false) => a_rows(lane, wm0, 0),
            (false, true) => a_trans_rows(lane, wm0, 0),
            (true, _) => a_rows_tf32(lane, wm0, 0),
        };
        let b = match (tf32, TB) {
            (false, false) => b_rows(lane, 0, wn0),
            (false, true) => b_trans_rows(lane, 0, wn0),
            (true, _) => b_trans_rows_tf32(lane, 0, wn0),
        };
        Lanes { a: at.offset(a.0, a.1), b: bt.offset(b.0, b.1) }
    }
}

/// One shared stage into the warp's accumulators: per `k` step, the
/// warp's A fragments (`MI` of 16 rows), then B fragments two at a time
/// (`NI` of 8 columns), each used at once by every A fragment.
#[inline(always)]
unsafe fn compute<I: Value, const BK: usize, const TA: bool, const TB: bool, const MI: usize, const NI: usize>(
    at: SmemTile,
    bt: SmemTile,
    sa: Shared<I>,
    sb: Shared<I>,
    lanes: &Lanes,
    lane: usize,
    acc: &mut [[[f32; 4]; NI]; MI],
) {
    let tf32 = I::KIND == F32;
    let kstep = if tf32 { 8 } else { 16 };
    // The element offset of the fragment `(dr, dc)` away from the lane's
    // first one.
    let at_a = |dr: usize, dc: usize| {
        let (add, x) = at.delta(dr, dc);
        ((lanes.a ^ x) + add) / I::BYTES
    };
    let at_b = |dr: usize, dc: usize| {
        let (add, x) = bt.delta(dr, dc);
        ((lanes.b ^ x) + add) / I::BYTES
    };
    for ks in 0..BK / kstep {
        let k0 = ks * kstep;
        let mut af = [[0u32; 4]; MI];
        unsafe {
            for (mi, f) in af.iter_mut().enumerate() {
                // A [m][k]: rows m, cols k; A [k][m]: rows k, cols m.
                let (dr, dc) = if TA { (k0, mi * 16) } else { (mi * 16, k0) };
                *f = if TA && !tf32 { ldmatrix_x4_trans(sa, at_a(dr, dc)) } else { ldmatrix_x4(sa, at_a(dr, dc)) };
                if tf32 {
                    *f = f.map(|x| cvt_rna_tf32_f32(f32::from_bits(x)));
                }
            }
            for nj in 0..NI / 2 {
                // B [k][n]: rows k, cols n; B [n][k]: rows n, cols k.
                let (dr, dc) = if TB { (nj * 16, k0) } else { (k0, nj * 16) };
                let r = if TB || tf32 { ldmatrix_x4(sb, at_b(dr, dc)) } else { ldmatrix_x4_trans(sb, at_b(dr, dc)) };
                let r = if tf32 { r.map(|x| cvt_rna_tf32_f32(f32::from_bits(x))) } else { r };
                for h in 0..2 {
                    let (ni, bf) = (2 * nj + h, [r[2 * h], r[2 * h + 1]]);
                    for mi in 0..MI {
                        acc[mi][ni] = if tf32 {
                            mma_m16n8k8_tf32(af[mi], bf, acc[mi][ni])
                        } else if I::KIND == F16_KIND {
                            mma_m16n8k16_f16(af[mi], bf, acc[mi][ni])
                        } else {
                            mma_m16n8k16_bf16(af[mi], bf, acc[mi][ni])
                        };
                    }
                }
            }
        }
    }
    let _ = lane;
}

/// The warp's accumulators to `C`: `act(α·acc + β·C + bias[col])`, two
/// neighbouring columns per store where both are inside `C` and aligned.
/// The loop over the fragments unrolls (every accumulator index a
/// constant, so they stay in registers). The plain product inside `C`
/// (β = 0, no bias, no activation) is stored inline, two values per
/// store; everything else goes through one call per pair
/// ([`store_pair_edge`]), which keeps the unrolled code small enough for
/// the accumulators to stay in registers.
#[inline(always)]
unsafe fn epilogue<O: Value, const MI: usize, const NI: usize>(
    p: &MmaParams,
    c: Global<O>,
    bias: Global<f32>,
    base: usize,
    (row0, col0): (usize, usize),
    lane: usize,
    acc: &[[[f32; 4]; NI]; MI],
) {
    let (m, n, ldc) = (p.g.m as usize, p.g.n as usize, p.g.ldc as usize);
    // The warp tile inside C, every pair aligned for one store, nothing
    // but α to apply.
    let plain = row0 + MI * 16 <= m
        && col0 + NI * 8 <= n
        && ldc % 2 == 0
        && base % 2 == 0
        && p.g.beta == 0.0
        && p.has_bias == 0
        && p.activation == ACT_NONE;
    for mi in 0..MI {
        for ni in 0..NI {
            for h in 0..2 {
                let (r, cc) = mma_m16n8_c(lane, 2 * h);
                let at = (row0 + mi * 16 + r, col0 + ni * 8 + cc);
                let v = [acc[mi][ni][2 * h], acc[mi][ni][2 * h + 1]];
                unsafe {
                    if plain {
                        c.write_vec::<O::Pair>(base + at.0 * ldc + at.1, O::pair([p.g.alpha * v[0], p.g.alpha * v[1]]));
                    } else {
                        store_pair_edge(*p, c, bias, base, at, v);
                    }
                }
            }
        }
    }
}

/// One pair of results, at `(row, col)` and `(row, col + 1)` of one matrix
/// of `C` (starting at element `base`): scaled, added to `β·C` and the
/// bias, activated, rounded, stored (both in one store when they are
/// inside `C` and the pair is aligned). Not inlined (see [`epilogue`]).
#[inline(never)]
unsafe fn store_pair_edge<O: Value>(p: MmaParams, c: Global<O>, bias: Global<f32>, base: usize, (row, col): (usize, usize), acc: [f32; 2]) {
    let (m, n, ldc) = (p.g.m as usize, p.g.n as usize, p.g.ldc as usize);
    if row >= m || col >= n {
        return;
    }
    let o = base + row * ldc + col;
    let both = col + 1 < n;
    let pair = both && o % 2 == 0;
    let mut v = [p.g.alpha * acc[0], p.g.alpha * acc[1]];
    unsafe {
        if p.g.beta != 0.0 {
            let old = if pair { O::unpair(c.read_vec::<O::Pair>(o)) } else { [c.read(o).to_f32(), if both { c.read(o + 1).to_f32() } else { 0.0 }] };
            v = [fma(p.g.beta, old[0], v[0]), fma(p.g.beta, old[1], v[1])];
        }
        if p.has_bias != 0 {
            v[0] += bias.read(col);
            if both {
                v[1] += bias.read(col + 1);
            }
        }
        if p.activation != ACT_NONE {
            v = [activate(p.activation, v[0]), activate(p.activation, v[1])];
        }
        if pair {
            c.write_vec::<O::Pair>(o, O::pair(v));
        } else {
            c.write(o, O::one(v[0]));
            if both {
                c.write(o + 1, O::one(v[1]));
            }
        }
    }
}

/// Defines a named kernel running [`body`] with the [`MmaTiling`] constant
/// `$cfg` (checked by a `const` assertion).
macro_rules! mma_kernel {
    ($(#[$m:meta])* $name:ident = $cfg:path) => {
        $crate::kernel! {
            $(#[$m])*
            pub fn $name(
                p: $crate::gemm::mma::MmaParams,
                a: $crate::arch::Global<<$crate::gemm::mma::Dt<{ $cfg.input }> as $crate::gemm::mma::Elem>::T>,
                b: $crate::arch::Global<<$crate::gemm::mma::Dt<{ $cfg.input }> as $crate::gemm::mma::Elem>::T>,
                c: $crate::arch::Global<<$crate::gemm::mma::Dt<{ $cfg.output }> as $crate::gemm::mma::Elem>::T>,
                bias: $crate::arch::Global<f32>
            ) {
                const _: () = assert!($cfg.validate(), "invalid tensor-core configuration");
                $crate::gemm::mma::body::<
                    _, _,
                    { $cfg.bm }, { $cfg.bn }, { $cfg.bk }, { $cfg.wm }, { $cfg.wn }, { $cfg.stages },
                    { $cfg.ta }, { $cfg.tb }, { $cfg.wm / 16 }, { $cfg.wn / 8 },
                >(p, a, b, c, bias)
            }
        }
    };
}

/// The configurations: tile sizes, pipeline depth, then types and
/// orientation (`nn`: `A` and `B` row-major; `tn`: `A` stored
/// transposed; `nt`: `B` stored transposed; `tt`: both).
const fn cfg(bm: usize, bn: usize, bk: usize, wm: usize, wn: usize, stages: usize, input: usize, output: usize, ta: bool, tb: bool) -> MmaTiling {
    MmaTiling { bm, bn, bk, wm, wn, stages, input, output, ta, tb }
}

macro_rules! tile_consts {
    ($($name:ident = ($bm:literal, $bn:literal, $bk:literal, $wm:literal, $wn:literal, $st:literal, $in:ident, $out:ident, $ta:literal, $tb:literal);)*) => {
        $(
            #[doc = concat!("`", stringify!($bm), " × ", stringify!($bn), " × ", stringify!($bk), "`, warps of `", stringify!($wm), " × ", stringify!($wn), "`, ", stringify!($st), " stages.")]
            pub const $name: MmaTiling = cfg($bm, $bn, $bk, $wm, $wn, $st, $in, $out, $ta, $tb);
        )*
    };
}

tile_consts! {
    MMA_BF16_F32_NN_128X128 = (128, 128, 32, 64, 64, 4, BF16, F32, false, false);
    MMA_BF16_BF16_NN_128X128 = (128, 128, 32, 64, 64, 4, BF16, BF16, false, false);
    MMA_BF16_F32_TN_128X128 = (128, 128, 32, 64, 64, 4, BF16, F32, true, false);
    MMA_BF16_F32_NT_128X128 = (128, 128, 32, 64, 64, 4, BF16, F32, false, true);
    MMA_BF16_F32_TT_128X128 = (128, 128, 32, 64, 64, 4, BF16, F32, true, true);
    MMA_BF16_BF16_TN_128X128 = (128, 128, 32, 64, 64, 4, BF16, BF16, true, false);
    MMA_BF16_BF16_NT_128X128 = (128, 128, 32, 64, 64, 4, BF16, BF16, false, true);
    MMA_BF16_BF16_TT_128X128 = (128, 128, 32, 64, 64, 4, BF16, BF16, true, true);
    MMA_BF16_F32_NN_128X256 = (128, 256, 32, 64, 64, 4, BF16, F32, false, false);
    MMA_BF16_BF16_NN_128X256 = (128, 256, 32, 64, 64, 4, BF16, BF16, false, false);
    MMA_BF16_F32_NN_64X64 = (64, 64, 32, 32, 32, 4, BF16, F32, false, false);
    MMA_BF16_BF16_NN_64X64 = (64, 64, 32, 32, 32, 4, BF16, BF16, false, false);
    MMA_F16_F32_NN_128X128 = (128, 128, 32, 64, 64, 4, F16_KIND, F32, false, false);
    MMA_F16_F16_NN_128X128 = (128, 128, 32, 64, 64, 4, F16_KIND, F16_KIND, false, false);
    MMA_F16_F32_TN_128X128 = (128, 128, 32, 64, 64, 4, F16_KIND, F32, true, false);
    MMA_F16_F32_NT_128X128 = (128, 128, 32, 64, 64, 4, F16_KIND, F32, false, true);
    MMA_F16_F32_TT_128X128 = (128, 128, 32, 64, 64, 4, F16_KIND, F32, true, true);
    MMA_F16_F16_TN_128X128 = (128, 128, 32, 64, 64, 4, F16_KIND, F16_KIND, true, false);
    MMA_F16_F16_NT_128X128 = (128, 128, 32, 64, 64, 4, F16_KIND, F16_KIND, false, true);
    MMA_F16_F16_TT_128X128 = (128, 128, 32, 64, 64, 4, F16_KIND, F16_KIND, true, true);
    MMA_F16_F32_NN_128X256 = (128, 256, 32, 64, 64, 4, F16_KIND, F32, false, false);
    MMA_F16_F16_NN_128X256 = (128, 256, 32, 64, 64, 4, F16_KIND, F16_KIND, false, false);
    MMA_F16_F32_NN_64X64 = (64, 64, 32, 32, 32, 4, F16_KIND, F32, false, false);
    MMA_F16_F16_NN_64X64 = (64, 64, 32, 32, 32, 4, F16_KIND, F16_KIND, false, false);
    MMA_TF32_NT_128X128 = (128, 128, 32, 64, 32, 3, F32, F32, false, true);
    MMA_TF32_NT_64X64 = (64, 64, 32, 32, 32, 3, F32, F32, false, true);
}

/// The tensor-core kernels, one row each (see [`crate::variants`]).
#[macro_export]
macro_rules! mma_table {
    ($then:ident) => { $then! {
        /// The tensor-core kernels: tile, types and operand orientation.
        pub enum MmaKernel: $crate::gemm::mma::MmaTiling;

        /// bf16 × bf16 → f32, 128 × 128 × 32 tile of four 64 × 64 warps, 4 stages, both operands row-major.
        [cfg(all())] Bf16F32Nn128x128 => gemm_mma_bf16_f32_nn_128x128x32_s4 = mma_kernel!(MMA_BF16_F32_NN_128X128), bounds 2;
        /// bf16 → bf16 output, 128 × 128.
        [cfg(all())] Bf16Bf16Nn128x128 => gemm_mma_bf16_bf16_nn_128x128x32_s4 = mma_kernel!(MMA_BF16_BF16_NN_128X128), bounds 2;
        /// bf16 → f32, `A` stored transposed.
        [cfg(all())] Bf16F32Tn128x128 => gemm_mma_bf16_f32_tn_128x128x32_s4 = mma_kernel!(MMA_BF16_F32_TN_128X128), bounds 2;
        /// bf16 → f32, `B` stored transposed.
        [cfg(all())] Bf16F32Nt128x128 => gemm_mma_bf16_f32_nt_128x128x32_s4 = mma_kernel!(MMA_BF16_F32_NT_128X128), bounds 2;
        /// bf16 → f32, both stored transposed.
        [cfg(all())] Bf16F32Tt128x128 => gemm_mma_bf16_f32_tt_128x128x32_s4 = mma_kernel!(MMA_BF16_F32_TT_128X128), bounds 2;
        /// bf16 → bf16, `A` stored transposed.
        [cfg(all())] Bf16Bf16Tn128x128 => gemm_mma_bf16_bf16_tn_128x128x32_s4 = mma_kernel!(MMA_BF16_BF16_TN_128X128), bounds 2;
        /// bf16 → bf16, `B` stored transposed.
        [cfg(all())] Bf16Bf16Nt128x128 => gemm_mma_bf16_bf16_nt_128x128x32_s4 = mma_kernel!(MMA_BF16_BF16_NT_128X128), bounds 2;
        /// bf16 → bf16, both stored transposed.
        [cfg(all())] Bf16Bf16Tt128x128 => gemm_mma_bf16_bf16_tt_128x128x32_s4 = mma_kernel!(MMA_BF16_BF16_TT_128X128), bounds 2;
        /// bf16 → f32, 128 × 256 tile of eight 64 × 64 warps, 4 stages (large shapes).
        [cfg(all())] Bf16F32Nn128x256 => gemm_mma_bf16_f32_nn_128x256x32_s4 = mma_kernel!(MMA_BF16_F32_NN_128X256), bounds 1;
        /// bf16 → bf16, 128 × 256.
        [cfg(all())] Bf16Bf16Nn128x256 => gemm_mma_bf16_bf16_nn_128x256x32_s4 = mma_kernel!(MMA_BF16_BF16_NN_128X256), bounds 1;
        /// bf16 → f32, 64 × 64 tile of four 32 × 32 warps (small shapes: many blocks).
        [cfg(all())] Bf16F32Nn64x64 => gemm_mma_bf16_f32_nn_64x64x32_s4 = mma_kernel!(MMA_BF16_F32_NN_64X64), bounds 0;
        /// bf16 → bf16, 64 × 64.
        [cfg(all())] Bf16Bf16Nn64x64 => gemm_mma_bf16_bf16_nn_64x64x32_s4 = mma_kernel!(MMA_BF16_BF16_NN_64X64), bounds 0;
        /// f16 × f16 → f32, 128 × 128.
        [cfg(all())] F16F32Nn128x128 => gemm_mma_f16_f32_nn_128x128x32_s4 = mma_kernel!(MMA_F16_F32_NN_128X128), bounds 2;
        /// f16 → f16, 128 × 128.
        [cfg(all())] F16F16Nn128x128 => gemm_mma_f16_f16_nn_128x128x32_s4 = mma_kernel!(MMA_F16_F16_NN_128X128), bounds 2;
        /// f16 → f32, `A` stored transposed.
        [cfg(all())] F16F32Tn128x128 => gemm_mma_f16_f32_tn_128x128x32_s4 = mma_kernel!(MMA_F16_F32_TN_128X128), bounds 2;
        /// f16 → f32, `B` stored transposed.
        [cfg(all())] F16F32Nt128x128 => gemm_mma_f16_f32_nt_128x128x32_s4 = mma_kernel!(MMA_F16_F32_NT_128X128), bounds 2;
        /// f16 → f32, both stored transposed.
        [cfg(all())] F16F32Tt128x128 => gemm_mma_f16_f32_tt_128x128x32_s4 = mma_kernel!(MMA_F16_F32_TT_128X128), bounds 2;
        /// f16 → f16, `A` stored transposed.
        [cfg(all())] F16F16Tn128x128 => gemm_mma_f16_f16_tn_128x128x32_s4 = mma_kernel!(MMA_F16_F16_TN_128X128), bounds 2;
        /// f16 → f16, `B` stored transposed.
        [cfg(all())] F16F16Nt128x128 => gemm_mma_f16_f16_nt_128x128x32_s4 = mma_kernel!(MMA_F16_F16_NT_128X128), bounds 2;
        /// f16 → f16, both stored transposed.
        [cfg(all())] F16F16Tt128x128 => gemm_mma_f16_f16_tt_128x128x32_s4 = mma_kernel!(MMA_F16_F16_TT_128X128), bounds 2;
        /// f16 → f32, 128 × 256.
        [cfg(all())] F16F32Nn128x256 => gemm_mma_f16_f32_nn_128x256x32_s4 = mma_kernel!(MMA_F16_F32_NN_128X256), bounds 1;
        /// f16 → f16, 128 × 256.
        [cfg(all())] F16F16Nn128x256 => gemm_mma_f16_f16_nn_128x256x32_s4 = mma_kernel!(MMA_F16_F16_NN_128X256), bounds 1;
        /// f16 → f32, 64 × 64.
        [cfg(all())] F16F32Nn64x64 => gemm_mma_f16_f32_nn_64x64x32_s4 = mma_kernel!(MMA_F16_F32_NN_64X64), bounds 0;
        /// f16 → f16, 64 × 64.
        [cfg(all())] F16F16Nn64x64 => gemm_mma_f16_f16_nn_64x64x32_s4 = mma_kernel!(MMA_F16_F16_NN_64X64), bounds 0;
        /// f32 inputs rounded to tf32 (`cvt.rna`), f32 output, 128 × 128 of
        /// eight 64 × 32 warps, 3 stages, `B` read n-major. `ldmatrix`
        /// cannot transpose 32-bit elements, so the host stages a row-major
        /// `B` (and a k-major `A`) transposed first.
        [cfg(all())] Tf32Nt128x128 => gemm_mma_tf32_nt_128x128x32_s3 = mma_kernel!(MMA_TF32_NT_128X128), bounds 1;
        /// tf32, 64 × 64, `B` read n-major.
        [cfg(all())] Tf32Nt64x64 => gemm_mma_tf32_nt_64x64x32_s3 = mma_kernel!(MMA_TF32_NT_64X64), bounds 0;
    } };
}

crate::mma_table!(variant_family);
