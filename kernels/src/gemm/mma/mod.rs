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

use crate::arch::simd::{f32x2, f32x4, u32x2};

use self::index::{a_rows, a_rows_tf32, a_trans_rows, b_rows, b_trans_rows, b_trans_rows_tf32, block_tile, copy_passes, EpilogueTile, SmemTile};
use super::GemmParams;
use crate::arch::{
    block_idx_x, block_idx_z, cp_async_16, cp_async_commit, cp_async_wait_group, cvt_rna_tf32_f32, cvt_rn_bf16x2_f32, cvt_rn_f16x2_f32,
    dynamic_shared, exp2_approx, fma, rcp_approx, tanh_approx, ldmatrix_x4, ldmatrix_x4_trans, mma_m16n8k16_bf16, mma_m16n8k16_f16, mma_m16n8k8_tf32, sync_threads,
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
    /// Four results packed for one store.
    type Quad: Copy;
    /// Four f32 results rounded and packed.
    fn quad(v: [f32; 4]) -> Self::Quad;
    /// The four values of a quad.
    fn unquad(q: Self::Quad) -> [f32; 4];
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
    type Quad = f32x4;
    fn quad(v: [f32; 4]) -> f32x4 {
        f32x4::from_array(v)
    }
    fn unquad(q: f32x4) -> [f32; 4] {
        q.to_array()
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
    type Quad = u32x2;
    fn quad(v: [f32; 4]) -> u32x2 {
        u32x2::from_array([Self::pair([v[0], v[1]]), Self::pair([v[2], v[3]])])
    }
    fn unquad(q: u32x2) -> [f32; 4] {
        let ([a, b], [c, d]) = (Self::unpair(q[0]), Self::unpair(q[1]));
        [a, b, c, d]
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
    type Quad = u32x2;
    fn quad(v: [f32; 4]) -> u32x2 {
        u32x2::from_array([Self::pair([v[0], v[1]]), Self::pair([v[2], v[3]])])
    }
    fn unquad(q: u32x2) -> [f32; 4] {
        let ([a, b], [c, d]) = (Self::unpair(q[0]), Self::unpair(q[1]));
        [a, b, c, d]
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

/// Bytes per element of input kind `input` in the tensor-core engines:
/// 4 for [`F32`] (tf32 operands are stored as f32), 2 for bf16 and f16.
pub const fn input_bytes(input: usize) -> usize {
    if input == F32 { 4 } else { 2 }
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
        input_bytes(self.input)
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
        let ring = self.stages * self.stage_bytes();
        let out = self.epilogue_tile().bytes();
        (if ring > out { ring } else { out }) as u32
    }
    /// The f32 tile the epilogue stages the block's results in (it reuses
    /// the stages' shared memory once the `k` loop is done).
    pub const fn epilogue_tile(&self) -> EpilogueTile {
        EpilogueTile { rows: self.bm, cols: self.bn }
    }
    /// Grid for `p` with `batch` matrices: block tiles along x (in
    /// [`block_tile`] order), the batch along z (at most 65535; the host
    /// launches larger batches in parts).
    pub const fn config(&self, p: &MmaParams, batch: u32) -> LaunchConfig {
        let tiles = (p.g.m as usize).div_ceil(self.bm) * (p.g.n as usize).div_ceil(self.bn);
        LaunchConfig { grid: [tiles as u32, 1, batch], block: [self.threads() as u32, 1, 1], shared_bytes: self.shared_bytes(), early_launch: false, cluster: 1 }
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
            && self.epilogue_tile().pieces() % t == 0
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

/// What the epilogue scales `α·acc + β·C + bias` by before [`activate`]:
/// ½ for the GELU of a 16-bit output, whose `x/2` then comes out of the
/// multiplies and fused multiply-adds the epilogue does anyway (α, β and
/// the bias scaled by it: one multiply per value fewer), 1 otherwise.
#[inline(always)]
pub fn act_scale<O: Value>(act: u32) -> f32 {
    if act == ACT_GELU_TANH && O::BYTES == 2 {
        0.5
    } else {
        1.0
    }
}

/// The activation `act` of a value `x`, for an output of element type
/// `O`, from `s = act_scale::<O>(act) · x` (what the epilogue computes).
#[inline(always)]
pub fn activate<O: Value>(act: u32, s: f32) -> f32 {
    match act {
        ACT_RELU => {
            if s > 0.0 {
                s
            } else {
                0.0
            }
        }
        ACT_GELU_TANH if O::BYTES == 2 => {
            // `s = x/2`: x/2 · (1 + tanh(√(2/π)·(x + 0.044715·x³))) is
            // s + s·tanh(s·(2√(2/π) + 8·0.044715·√(2/π)·s²)). A 16-bit
            // output rounds to 2^-9 (bf16) or 2^-12 (f16) of the value:
            // `tanh.approx` (one special-function instruction, about 2^-11)
            // is below the rounding of bf16 and close to f16's.
            let y = s * fma(0.285_419_26, s * s, 1.595_769);
            fma(s, tanh_approx(y), s)
        }
        ACT_GELU_TANH => {
            // `s = x`. x/2 · (1 + tanh y) = x − x / (e^{2y} + 1), exact at
            // ±∞; the division as one `rcp.approx` (1 ulp) instead of IEEE
            // division.
            let y = 0.797_884_6 * fma(0.044_715 * s, s * s, s);
            s - s * rcp_approx(exp(2.0 * y) + 1.0)
        }
        _ => s,
    }
}

/// [`activate`] of every value of `v`, the activation chosen once for all
/// of them: chosen per value, each value's activation was a basic block
/// of its own between two branches, so the GELUs of a thread's results
/// ran one after another, each waiting out its own latencies (the
/// special-function `tanh` and a chain of dependent multiplies); in one
/// block they interleave.
#[inline(always)]
pub fn activate_all<O: Value, const N: usize>(act: u32, v: [f32; N]) -> [f32; N] {
    match act {
        ACT_RELU => v.map(|x| activate::<O>(ACT_RELU, x)),
        ACT_GELU_TANH => v.map(|x| activate::<O>(ACT_GELU_TANH, x)),
        _ => v,
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
        // The stages are free once every warp is done with them.
        cp_async_wait_group(0);
        sync_threads();
        let et = cfg.epilogue_tile();
        stage_results::<MI, NI>(et, dynamic_shared::<f32>(), (wr * WM, wc * WN), lane, &acc);
        sync_threads();
        epilogue::<O>(et, dynamic_shared::<f32>(), &p, c, bias, batch * p.stride_c as usize, (m0, n0), t, threads);
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

/// The warp's accumulators into the block's f32 result tile in shared
/// memory, at the positions of the `mma` C fragment (two values per
/// store).
#[inline(always)]
unsafe fn stage_results<const MI: usize, const NI: usize>(
    et: EpilogueTile,
    out: Shared<f32>,
    (wm0, wn0): (usize, usize),
    lane: usize,
    acc: &[[[f32; 4]; NI]; MI],
) {
    for mi in 0..MI {
        for ni in 0..NI {
            for h in 0..2 {
                let (r, cc) = mma_m16n8_c(lane, 2 * h);
                let v = f32x2::from_array([acc[mi][ni][2 * h], acc[mi][ni][2 * h + 1]]);
                unsafe { out.store_vec(et.offset(wm0 + mi * 16 + r, wn0 + ni * 8 + cc), v) };
            }
        }
    }
}

/// The block's results from shared memory to `C`: every thread takes
/// 4-column pieces of the tile in turn (a warp covers whole rows:
/// coalesced 16-byte loads of the tile, 16- or 8-byte stores to `C`),
/// computes `act(α·acc + β·C + bias[col])` and converts it to the output
/// type. Pieces inside `C` and aligned take one vector load and store;
/// the others, at the edges, element by element. Not inlined: its
/// registers are allocated apart from the `k` loop's.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn epilogue<O: Value>(
    et: EpilogueTile,
    tile: Shared<f32>,
    p: &MmaParams,
    c: Global<O>,
    bias: Global<f32>,
    base: usize,
    (m0, n0): (usize, usize),
    t: usize,
    threads: usize,
) {
    let (lc, n) = (p.g.c(), p.g.n as usize);
    // α and β scaled for the activation ([`act_scale`]).
    let scale = act_scale::<O>(p.activation);
    let (alpha, beta) = (scale * p.g.alpha, scale * p.g.beta);
    for pass in 0..et.pieces() / threads {
        let (r, col) = et.piece(t + pass * threads);
        let (row, gcol) = (m0 + r, n0 + col);
        if !lc.in_bounds(row, gcol) {
            continue;
        }
        let o = base + lc.offset(row, gcol);
        let whole = gcol + 4 <= n && o % 4 == 0;
        unsafe {
            let mut v = tile.load_vec::<f32x4>(et.offset(r, col)).to_array().map(|x| alpha * x);
            if beta != 0.0 {
                let old = if whole { O::unquad(c.read_vec::<O::Quad>(o)) } else { core::array::from_fn(|e| if gcol + e < n { c.read(o + e).to_f32() } else { 0.0 }) };
                v = core::array::from_fn(|e| fma(beta, old[e], v[e]));
            }
            if p.has_bias != 0 {
                // `gcol` is a multiple of 4: a whole piece is one 16-byte load.
                let b = if gcol + 4 <= n { bias.read_vec::<f32x4>(gcol).to_array() } else { core::array::from_fn(|e| if gcol + e < n { bias.read(gcol + e) } else { 0.0 }) };
                v = core::array::from_fn(|e| fma(scale, b[e], v[e]));
            }
            if p.activation != ACT_NONE {
                v = activate_all::<O, 4>(p.activation, v);
            }
            if whole {
                c.write_vec::<O::Quad>(o, O::quad(v));
            } else {
                for (e, &x) in v.iter().enumerate() {
                    if gcol + e < n {
                        c.write(o + e, O::one(x));
                    }
                }
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
    MMA_BF16_F32_NN_128X128 = (128, 128, 64, 64, 64, 3, BF16, F32, false, false);
    MMA_BF16_F32_TN_128X128 = (128, 128, 64, 64, 64, 3, BF16, F32, true, false);
    MMA_BF16_F32_NT_128X128 = (128, 128, 64, 64, 64, 3, BF16, F32, false, true);
    MMA_BF16_F32_TT_128X128 = (128, 128, 64, 64, 64, 3, BF16, F32, true, true);
    MMA_BF16_F32_NN_64X64 = (64, 64, 32, 32, 32, 4, BF16, F32, false, false);
    MMA_BF16_BF16_NN_128X128 = (128, 128, 64, 64, 64, 3, BF16, BF16, false, false);
    MMA_BF16_BF16_TN_128X128 = (128, 128, 64, 64, 64, 3, BF16, BF16, true, false);
    MMA_BF16_BF16_NT_128X128 = (128, 128, 64, 64, 64, 3, BF16, BF16, false, true);
    MMA_BF16_BF16_TT_128X128 = (128, 128, 64, 64, 64, 3, BF16, BF16, true, true);
    MMA_BF16_BF16_NN_64X64 = (64, 64, 32, 32, 32, 4, BF16, BF16, false, false);
    MMA_F16_F32_NN_128X128 = (128, 128, 64, 64, 64, 3, F16_KIND, F32, false, false);
    MMA_F16_F32_TN_128X128 = (128, 128, 64, 64, 64, 3, F16_KIND, F32, true, false);
    MMA_F16_F32_NT_128X128 = (128, 128, 64, 64, 64, 3, F16_KIND, F32, false, true);
    MMA_F16_F32_TT_128X128 = (128, 128, 64, 64, 64, 3, F16_KIND, F32, true, true);
    MMA_F16_F32_NN_64X64 = (64, 64, 32, 32, 32, 4, F16_KIND, F32, false, false);
    MMA_F16_F16_NN_128X128 = (128, 128, 64, 64, 64, 3, F16_KIND, F16_KIND, false, false);
    MMA_F16_F16_TN_128X128 = (128, 128, 64, 64, 64, 3, F16_KIND, F16_KIND, true, false);
    MMA_F16_F16_NT_128X128 = (128, 128, 64, 64, 64, 3, F16_KIND, F16_KIND, false, true);
    MMA_F16_F16_TT_128X128 = (128, 128, 64, 64, 64, 3, F16_KIND, F16_KIND, true, true);
    MMA_F16_F16_NN_64X64 = (64, 64, 32, 32, 32, 4, F16_KIND, F16_KIND, false, false);
    MMA_TF32_NT_128X128 = (128, 128, 32, 64, 32, 3, F32, F32, false, true);
    MMA_TF32_NT_64X64 = (64, 64, 32, 32, 32, 3, F32, F32, false, true);
    MMA_BF16_BF16_NN_128X128X32 = (128, 128, 32, 64, 64, 4, BF16, BF16, false, false);
    MMA_BF16_BF16_NN_128X256 = (128, 256, 32, 64, 64, 4, BF16, BF16, false, false);
    MMA_BF16_BF16_NN_128X128_W8 = (128, 128, 32, 64, 32, 4, BF16, BF16, false, false);
    MMA_BF16_BF16_NN_256X128 = (256, 128, 32, 64, 64, 3, BF16, BF16, false, false);
}

/// The tensor-core kernels, one row each (see [`crate::variants`]).
#[macro_export]
macro_rules! mma_table {
    ($then:ident) => { $then! {
        /// The tensor-core kernels: tile, types and operand orientation.
        pub enum MmaKernel: $crate::gemm::mma::MmaTiling;

        /// bf16 → f32, 128 × 128 × 64 of four 64 × 64 warps, 3 stages, both operands row-major.
        [cfg(all())] Bf16F32Nn128x128 => gemm_mma_bf16_f32_nn_128x128x64_s3 = mma_kernel!(MMA_BF16_F32_NN_128X128), bounds 2;
        /// bf16 → f32, 128 × 128 × 64 of four 64 × 64 warps, 3 stages, `A` stored transposed.
        [cfg(all())] Bf16F32Tn128x128 => gemm_mma_bf16_f32_tn_128x128x64_s3 = mma_kernel!(MMA_BF16_F32_TN_128X128), bounds 2;
        /// bf16 → f32, 128 × 128 × 64 of four 64 × 64 warps, 3 stages, `B` stored transposed.
        [cfg(all())] Bf16F32Nt128x128 => gemm_mma_bf16_f32_nt_128x128x64_s3 = mma_kernel!(MMA_BF16_F32_NT_128X128), bounds 2;
        /// bf16 → f32, 128 × 128 × 64 of four 64 × 64 warps, 3 stages, both stored transposed.
        [cfg(all())] Bf16F32Tt128x128 => gemm_mma_bf16_f32_tt_128x128x64_s3 = mma_kernel!(MMA_BF16_F32_TT_128X128), bounds 2;
        /// bf16 → f32, 64 × 64 × 32 of four 32 × 32 warps, 4 stages (small problems: more blocks).
        [cfg(all())] Bf16F32Nn64x64 => gemm_mma_bf16_f32_nn_64x64x32_s4 = mma_kernel!(MMA_BF16_F32_NN_64X64), bounds 0;
        /// bf16 → bf16, 128 × 128 × 64 of four 64 × 64 warps, 3 stages, both operands row-major.
        [cfg(all())] Bf16Bf16Nn128x128 => gemm_mma_bf16_bf16_nn_128x128x64_s3 = mma_kernel!(MMA_BF16_BF16_NN_128X128), bounds 2;
        /// bf16 → bf16, 128 × 128 × 64 of four 64 × 64 warps, 3 stages, `A` stored transposed.
        [cfg(all())] Bf16Bf16Tn128x128 => gemm_mma_bf16_bf16_tn_128x128x64_s3 = mma_kernel!(MMA_BF16_BF16_TN_128X128), bounds 2;
        /// bf16 → bf16, 128 × 128 × 64 of four 64 × 64 warps, 3 stages, `B` stored transposed.
        [cfg(all())] Bf16Bf16Nt128x128 => gemm_mma_bf16_bf16_nt_128x128x64_s3 = mma_kernel!(MMA_BF16_BF16_NT_128X128), bounds 2;
        /// bf16 → bf16, 128 × 128 × 64 of four 64 × 64 warps, 3 stages, both stored transposed.
        [cfg(all())] Bf16Bf16Tt128x128 => gemm_mma_bf16_bf16_tt_128x128x64_s3 = mma_kernel!(MMA_BF16_BF16_TT_128X128), bounds 2;
        /// bf16 → bf16, 64 × 64 × 32 of four 32 × 32 warps, 4 stages (small problems: more blocks).
        [cfg(all())] Bf16Bf16Nn64x64 => gemm_mma_bf16_bf16_nn_64x64x32_s4 = mma_kernel!(MMA_BF16_BF16_NN_64X64), bounds 0;
        /// f16 → f32, 128 × 128 × 64 of four 64 × 64 warps, 3 stages, both operands row-major.
        [cfg(all())] F16F32Nn128x128 => gemm_mma_f16_f32_nn_128x128x64_s3 = mma_kernel!(MMA_F16_F32_NN_128X128), bounds 2;
        /// f16 → f32, 128 × 128 × 64 of four 64 × 64 warps, 3 stages, `A` stored transposed.
        [cfg(all())] F16F32Tn128x128 => gemm_mma_f16_f32_tn_128x128x64_s3 = mma_kernel!(MMA_F16_F32_TN_128X128), bounds 2;
        /// f16 → f32, 128 × 128 × 64 of four 64 × 64 warps, 3 stages, `B` stored transposed.
        [cfg(all())] F16F32Nt128x128 => gemm_mma_f16_f32_nt_128x128x64_s3 = mma_kernel!(MMA_F16_F32_NT_128X128), bounds 2;
        /// f16 → f32, 128 × 128 × 64 of four 64 × 64 warps, 3 stages, both stored transposed.
        [cfg(all())] F16F32Tt128x128 => gemm_mma_f16_f32_tt_128x128x64_s3 = mma_kernel!(MMA_F16_F32_TT_128X128), bounds 2;
        /// f16 → f32, 64 × 64 × 32 of four 32 × 32 warps, 4 stages (small problems: more blocks).
        [cfg(all())] F16F32Nn64x64 => gemm_mma_f16_f32_nn_64x64x32_s4 = mma_kernel!(MMA_F16_F32_NN_64X64), bounds 0;
        /// f16 → f16, 128 × 128 × 64 of four 64 × 64 warps, 3 stages, both operands row-major.
        [cfg(all())] F16F16Nn128x128 => gemm_mma_f16_f16_nn_128x128x64_s3 = mma_kernel!(MMA_F16_F16_NN_128X128), bounds 2;
        /// f16 → f16, 128 × 128 × 64 of four 64 × 64 warps, 3 stages, `A` stored transposed.
        [cfg(all())] F16F16Tn128x128 => gemm_mma_f16_f16_tn_128x128x64_s3 = mma_kernel!(MMA_F16_F16_TN_128X128), bounds 2;
        /// f16 → f16, 128 × 128 × 64 of four 64 × 64 warps, 3 stages, `B` stored transposed.
        [cfg(all())] F16F16Nt128x128 => gemm_mma_f16_f16_nt_128x128x64_s3 = mma_kernel!(MMA_F16_F16_NT_128X128), bounds 2;
        /// f16 → f16, 128 × 128 × 64 of four 64 × 64 warps, 3 stages, both stored transposed.
        [cfg(all())] F16F16Tt128x128 => gemm_mma_f16_f16_tt_128x128x64_s3 = mma_kernel!(MMA_F16_F16_TT_128X128), bounds 2;
        /// f16 → f16, 64 × 64 × 32 of four 32 × 32 warps, 4 stages (small problems: more blocks).
        [cfg(all())] F16F16Nn64x64 => gemm_mma_f16_f16_nn_64x64x32_s4 = mma_kernel!(MMA_F16_F16_NN_64X64), bounds 0;
        /// f32 inputs rounded to tf32 (`cvt.rna`), f32 output, 128 × 128 × 32
        /// of eight 64 × 32 warps, 3 stages, `B` read n-major. `ldmatrix`
        /// cannot transpose 32-bit elements, so the host stages a row-major
        /// `B` (and a k-major `A`) transposed first.
        [cfg(all())] Tf32Nt128x128 => gemm_mma_tf32_nt_128x128x32_s3 = mma_kernel!(MMA_TF32_NT_128X128), bounds 1;
        /// tf32, 64 × 64, `B` read n-major.
        [cfg(all())] Tf32Nt64x64 => gemm_mma_tf32_nt_64x64x32_s3 = mma_kernel!(MMA_TF32_NT_64X64), bounds 0;

        /// bf16 → bf16, 128 × 128 × 32 of four 64 × 64 warps, 4 stages: twice
        /// the barriers per `mma` of the 128 × 128 × 64 tile.
        [cfg(ferrotile_experiments)] Bf16Bf16Nn128x128x32 => gemm_mma_bf16_bf16_nn_128x128x32_s4 = mma_kernel!(MMA_BF16_BF16_NN_128X128X32), bounds 2;
        /// bf16 → bf16, 128 × 256 × 32 of eight 64 × 64 warps, 4 stages, one block per SM.
        [cfg(ferrotile_experiments)] Bf16Bf16Nn128x256 => gemm_mma_bf16_bf16_nn_128x256x32_s4 = mma_kernel!(MMA_BF16_BF16_NN_128X256), bounds 1;
        /// bf16 → bf16, 128 × 128 × 32 of eight 64 × 32 warps, 4 stages.
        [cfg(ferrotile_experiments)] Bf16Bf16Nn128x128W8 => gemm_mma_bf16_bf16_nn_128x128x32_w8_s4 = mma_kernel!(MMA_BF16_BF16_NN_128X128_W8), bounds 0;
        /// bf16 → bf16, 256 × 128 × 32 of eight 64 × 64 warps, 3 stages.
        [cfg(ferrotile_experiments)] Bf16Bf16Nn256x128 => gemm_mma_bf16_bf16_nn_256x128x32_s3 = mma_kernel!(MMA_BF16_BF16_NN_256X128), bounds 1;
    } };
}

crate::mma_table!(variant_family);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::{Bf16, F16};
    use proptest::prelude::*;

    /// GELU with the tanh approximation in f64 (the host reference's form).
    fn gelu(x: f64) -> f64 {
        0.5 * x * (1.0 + ((2.0 / core::f64::consts::PI).sqrt() * (x + 0.044_715 * x * x * x)).tanh())
    }

    /// What an epilogue stores before rounding for the value `x`:
    /// [`activate`] of `x` scaled by [`act_scale`].
    fn epilogue_act<O: Value>(act: u32, x: f32) -> f32 {
        activate::<O>(act, act_scale::<O>(act) * x)
    }

    proptest! {
        /// Every output type's GELU, taken from the scaled value, is the
        /// f64 reference's to a few f32 roundings (the emulator's `tanh`,
        /// `ex2` and `rcp` are exact, so this checks the formulas and their
        /// constants); ReLU and no activation see the value unscaled.
        #[test]
        fn the_activations_of_the_scaled_value_are_the_references(x in -30.0f32..30.0) {
            let want = gelu(x as f64);
            for (ty, got) in [("bf16", epilogue_act::<Bf16>(ACT_GELU_TANH, x)), ("f16", epilogue_act::<F16>(ACT_GELU_TANH, x)), ("f32", epilogue_act::<f32>(ACT_GELU_TANH, x))] {
                prop_assert!((got as f64 - want).abs() <= 2e-6 * x.abs() as f64 + 1e-7, "{ty} x {x}: {got} against {want}");
            }
            for ty_relu in [epilogue_act::<Bf16>(ACT_RELU, x), epilogue_act::<F16>(ACT_RELU, x), epilogue_act::<f32>(ACT_RELU, x)] {
                prop_assert_eq!(ty_relu, x.max(0.0));
            }
            prop_assert_eq!(epilogue_act::<Bf16>(ACT_NONE, x), x);
        }
    }
}
