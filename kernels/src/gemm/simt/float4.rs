//! The float4 engine of rungs 6–9.
//!
//! One generic body, one [`Tiling`] per named kernel. What each rung
//! changes is a field of its `Tiling`:
//!
//! | rung | `a_smem` / `b_smem` | `stages` | `wm × wn` |
//! | --- | --- | --- | --- |
//! | 6 vectorized | plain / plain | 1 | 0 (contiguous thread tiles) |
//! | 7 padded | padded / plain | 1 | 0 |
//! | 7 swizzled | swizzled / swizzled | 1 | 0 |
//! | 8 double-buffered | swizzled / swizzled | 2 | 0 |
//! | 9 warptiled | swizzled / plain | 2 | warp tile |
//!
//! Rung 9 also sets `interior_loop`: interior blocks run their full `k`
//! tiles in a loop of their own whose loads carry no predicate at all
//! (rungs 6–8 decide "full tile or not" once per tile inside one loop).
//!
//! Every thread → coordinate map comes from [`super::index`].
//!
//! * Global → registers: the `A` tile `(BM, BK)` and the `B` tile `(BK, BN)`
//!   are read as float4 vectors with [`tile_load`] (consecutive threads,
//!   consecutive vectors of a row). Interior tiles load unpredicated; a
//!   tile that crosses the edge of `A` or `B` takes a predicated path (a
//!   vector when its 4 elements are inside, else scalars, zero outside).
//! * Registers → shared: `A` is stored transposed ([`a_tile_t`], `(BK, BM)`)
//!   so that the compute loop reads 4 consecutive rows of `A` as one float4;
//!   `B` is stored as is ([`b_tile`]).
//! * Compute: per `k`, each thread loads `TM` values of `A` and `TN` of `B`
//!   (float4s) and does `TM · TN` FMAs into its register accumulators.
//! * Epilogue: `C = α·acc + β·C` with float4 loads/stores on interior
//!   blocks, predicated scalars on edge blocks; β = 0 never reads `C`.
//!
//! Preconditions (checked by the host): `lda`, `ldb`, `ldc` are multiples
//! of 4 and the buffers are 16-byte aligned (device allocations are).

use crate::arch::simd::f32x4;

use super::index::{
    a_tile_t, b_tile, block_origin, clamp_row, clamp_vec_col, edge_full_k_tiles, split_k_slice_offset, split_k_tiles, thread_tile, tile_is_interior, tile_load, tile_load_is_exact, tile_load_passes, tiled_config, SmemTile,
    WarpTiling, SWIZZLED,
};
use super::{write_c, GemmParams};
use crate::arch::{block_idx_x, block_idx_y, block_idx_z, dynamic_shared, fma, sync_threads, thread_idx_x, Global, Shared};
use crate::launch::LaunchConfig;
use crate::layout::Layout2;

/// Most float4 vectors one thread loads per tile and operand.
pub const MAX_PASSES: usize = 8;

/// A configuration of the float4 engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiling {
    /// Block tile rows (`BM`).
    pub bm: usize,
    /// Block tile columns (`BN`).
    pub bn: usize,
    /// Depth of one `k` tile (`BK`).
    pub bk: usize,
    /// Result rows per thread (`TM`, a multiple of 4).
    pub tm: usize,
    /// Result columns per thread (`TN`, a multiple of 4).
    pub tn: usize,
    /// Warp tile rows (0: no warp tiling; threads own contiguous `TM × TN`
    /// blocks, numbered row-major).
    pub wm: usize,
    /// Warp tile columns (0 with `wm = 0`).
    pub wn: usize,
    /// Kind of the shared `A` tile ([`super::index::PLAIN`], [`super::index::PADDED`], [`SWIZZLED`]).
    pub a_smem: usize,
    /// Kind of the shared `B` tile.
    pub b_smem: usize,
    /// Shared-memory stages (1, or 2 for the double-buffered main loop).
    pub stages: usize,
    /// Two main loops (needs `stages = 2`): interior blocks first run
    /// every `k` tile whose successor lies wholly inside `A` and `B` in a
    /// loop with unpredicated loads and no per-tile bounds arithmetic, then
    /// the rest (the `k` tail; all tiles of edge blocks) in the predicated
    /// loop. Fewer instructions and registers in the hot loop, two copies
    /// of it in the code.
    pub interior_loop: bool,
    /// With `interior_loop`: edge blocks too run their full `k` tiles in
    /// the unpredicated loop, rows of `A` and columns of `B` past the edge
    /// clamped ([`clamp_row`], [`clamp_vec_col`]) instead of predicated.
    /// Off where the clamped offsets would not fit the register budget.
    pub edge_loop: bool,
}

impl Tiling {
    /// Threads per block.
    // `wm == 0` picks the tiling without warp tiles; it is not a guard
    // for the division in the other branch.
    #[allow(clippy::manual_checked_ops)]
    pub const fn threads(&self) -> usize {
        if self.wm == 0 { (self.bm / self.tm) * (self.bn / self.tn) } else { (self.bm / self.wm) * (self.bn / self.wn) * 32 }
    }
    /// The shared `A` tile (transposed, `(BK, BM)`).
    pub const fn a_tile(&self) -> SmemTile {
        a_tile_t(self.bm, self.bk, self.a_smem)
    }
    /// The shared `B` tile (`(BK, BN)`).
    pub const fn b_tile(&self) -> SmemTile {
        b_tile(self.bk, self.bn, self.b_smem)
    }
    /// Floats of one stage (`A` tile then `B` tile).
    pub const fn stage_floats(&self) -> usize {
        self.a_tile().footprint() + self.b_tile().footprint()
    }
    /// Dynamic shared memory per block.
    pub const fn shared_bytes(&self) -> u32 {
        (self.stages * self.stage_floats() * 4) as u32
    }
    /// float4 loads per thread for the `A` tile.
    pub const fn a_passes(&self) -> usize {
        tile_load_passes(self.bm, self.bk, self.threads(), 4)
    }
    /// float4 loads per thread for the `B` tile.
    pub const fn b_passes(&self) -> usize {
        tile_load_passes(self.bk, self.bn, self.threads(), 4)
    }
    /// The warp tiling, when there is one.
    pub const fn warp_tiling(&self) -> WarpTiling {
        WarpTiling { wm: self.wm, wn: self.wn, lm: if self.wm == 0 { 1 } else { self.wm / self.tm }, bn: self.bn }
    }
    /// First row and column (in the block tile) of thread `t`'s results.
    #[inline(always)]
    pub const fn thread_origin(&self, t: usize) -> (usize, usize) {
        if self.wm == 0 {
            let (tr, tc) = thread_tile(t, self.bn, self.tn);
            (tr * self.tm, tc * self.tn)
        } else {
            self.warp_tiling().origin(t)
        }
    }
    /// A thread's result rows: `(TM/4, 4)` sub-tile rows of 4, offsets from
    /// [`Tiling::thread_origin`]. Contiguous without warp tiling; `LM · 4`
    /// apart with it.
    pub const fn thread_rows(&self) -> Layout2 {
        let step = if self.wm == 0 { 4 } else { self.warp_tiling().lm * 4 };
        Layout2 { rows: self.tm / 4, cols: 4, row_stride: step, col_stride: 1 }
    }
    /// A thread's result columns: `(TN/4, 4)`.
    pub const fn thread_cols(&self) -> Layout2 {
        let step = if self.wm == 0 { 4 } else { self.warp_tiling().ln() * 4 };
        Layout2 { rows: self.tn / 4, cols: 4, row_stride: step, col_stride: 1 }
    }
    /// Block tiles that cover an `m × n` `C` (the blocks of a launch).
    pub const fn tiles(&self, m: usize, n: usize) -> usize {
        m.div_ceil(self.bm) * n.div_ceil(self.bn)
    }
    /// Grid and shared memory for `p`.
    pub const fn config(&self, p: &GemmParams) -> LaunchConfig {
        tiled_config(p, self.bm, self.bn, self.threads() as u32).with_shared(self.shared_bytes())
    }
    /// Whether the engine reads an `A` stored transposed with this
    /// configuration: its tile as stored, `(BK, BM)`, covered by the
    /// threads' float4s in whole passes.
    pub const fn validate_transposed_a(&self) -> bool {
        tile_load_is_exact(self.bk, self.bm, self.threads(), 4)
    }
    /// Whether the engine supports this configuration.
    pub const fn validate(&self) -> bool {
        let t = self.threads();
        let kinds_ok = self.a_smem <= SWIZZLED && self.b_smem <= SWIZZLED;
        let shape_ok = self.bm.is_power_of_two()
            && self.bn.is_power_of_two()
            && matches!(self.bk, 4 | 8 | 16 | 32)
            && self.tm % 4 == 0
            && self.tn % 4 == 0
            && matches!(self.stages, 1 | 2)
            && (!self.interior_loop || self.stages == 2)
            && (!self.edge_loop || self.interior_loop)
            && t >= 32
            && t <= 1024
            && t % 32 == 0;
        let warp_ok = if self.wm == 0 {
            self.wn == 0 && self.bm % self.tm == 0 && self.bn % self.tn == 0
        } else {
            self.bm % self.wm == 0
                && self.bn % self.wn == 0
                && self.wm % self.tm == 0
                && self.wn % self.tn == 0
                && (self.wm / self.tm) * (self.wn / self.tn) == 32
        };
        kinds_ok
            && shape_ok
            && self.a_tile().is_valid()
            && self.b_tile().is_valid()
            && warp_ok
            && tile_load_is_exact(self.bm, self.bk, t, 4)
            && tile_load_is_exact(self.bk, self.bn, t, 4)
            && self.a_passes() <= MAX_PASSES
            && self.b_passes() <= MAX_PASSES
    }
}

/// Global `A` tile at `(m0, k0)` → registers. `full`: the tile lies
/// inside `A` (one unpredicated float4 per pass); otherwise each float4 is
/// loaded whole when its 4 elements are inside, else as predicated scalars
/// with zeros outside. `CLAMP` (with `full`, for edge blocks: the tile's
/// columns lie inside `A`, rows may not): rows past `m` read row `m − 1`
/// instead ([`clamp_row`]); their products land in rows of `C`
/// that are never written. `TA`: `A` is stored transposed (`k × m`, rows
/// `lda` apart) and the tile is read as stored, `(BK, BM)`, its float4s
/// along `m` (`CLAMP`: a vector past `m` read at [`clamp_vec_col`], inside
/// the row's `lda` elements).
#[inline(always)]
unsafe fn load_a<const CLAMP: bool, const TA: bool>(cfg: &Tiling, p: &GemmParams, a: Global<f32>, t: usize, (m0, k0): (usize, usize), full: bool, regs: &mut [f32x4; MAX_PASSES]) {
    let la = if TA { p.a_stored_t() } else { p.a() };
    for q in 0..cfg.a_passes() {
        let (gr, gc) = if TA {
            let (r, c) = tile_load(t, q, cfg.threads(), cfg.bm, 4);
            (k0 + r, if CLAMP { clamp_vec_col(m0 + c, p.lda as usize) } else { m0 + c })
        } else {
            let (r, c) = tile_load(t, q, cfg.threads(), cfg.bk, 4);
            (if CLAMP { clamp_row(m0 + r, p.m as usize) } else { m0 + r }, k0 + c)
        };
        regs[q] = unsafe {
            if full || la.in_bounds(gr, gc + 3) {
                a.read_vec::<f32x4>(la.offset(gr, gc))
            } else {
                f32x4::from_array(core::array::from_fn(|e| if la.in_bounds(gr, gc + e) { a.read(la.offset(gr, gc + e)) } else { 0.0 }))
            }
        };
    }
}

/// Global `B` tile at `(k0, n0)` → registers (as [`load_a`]). `CLAMP`
/// (with `full`, for edge blocks: the tile's rows lie inside `B` and
/// below its last row, columns may not): a vector is read at
/// [`clamp_vec_col`], inside the row's `ldb` elements; the elements
/// past `n` land in columns of `C` that are never written.
#[inline(always)]
unsafe fn load_b<const CLAMP: bool>(cfg: &Tiling, p: &GemmParams, b: Global<f32>, t: usize, (k0, n0): (usize, usize), full: bool, regs: &mut [f32x4; MAX_PASSES]) {
    let lb = p.b();
    for q in 0..cfg.b_passes() {
        let (r, c) = tile_load(t, q, cfg.threads(), cfg.bn, 4);
        let (gr, gc) = (k0 + r, if CLAMP { clamp_vec_col(n0 + c, p.ldb as usize) } else { n0 + c });
        regs[q] = unsafe {
            if full || lb.in_bounds(gr, gc + 3) {
                b.read_vec::<f32x4>(lb.offset(gr, gc))
            } else {
                f32x4::from_array(core::array::from_fn(|e| if lb.in_bounds(gr, gc + e) { b.read(lb.offset(gr, gc + e)) } else { 0.0 }))
            }
        };
    }
}

/// Registers → one shared stage: `A` transposed (4 scalar stores per
/// vector), `B` as float4s; an `A` stored transposed (`TA`, its tile read
/// as stored: [`load_a`]) as float4s too.
#[inline(always)]
unsafe fn store_tiles<const TA: bool>(cfg: &Tiling, sa: Shared<f32>, sb: Shared<f32>, t: usize, ra: &[f32x4; MAX_PASSES], rb: &[f32x4; MAX_PASSES]) {
    let (at, bt) = (cfg.a_tile(), cfg.b_tile());
    for q in 0..cfg.a_passes() {
        if TA {
            let (r, c) = tile_load(t, q, cfg.threads(), cfg.bm, 4);
            unsafe { sa.store_vec(at.offset(r, c), ra[q]) };
        } else {
            let (r, c) = tile_load(t, q, cfg.threads(), cfg.bk, 4);
            for e in 0..4 {
                unsafe { sa.store(at.offset(c + e, r), ra[q][e]) };
            }
        }
    }
    for q in 0..cfg.b_passes() {
        let (r, c) = tile_load(t, q, cfg.threads(), cfg.bn, 4);
        unsafe { sb.store_vec(bt.offset(r, c), rb[q]) };
    }
}

/// One `k` tile from a shared stage into the accumulators.
#[inline(always)]
pub(super) unsafe fn compute<const BK: usize, const TM: usize, const TN: usize>(
    cfg: &Tiling,
    sa: Shared<f32>,
    sb: Shared<f32>,
    (r0, c0): (usize, usize),
    acc: &mut [[f32; TN]; TM],
) {
    let (at, bt) = (cfg.a_tile(), cfg.b_tile());
    let (rows, cols) = (cfg.thread_rows(), cfg.thread_cols());
    for d in 0..BK {
        let mut ra = [0.0f32; TM];
        let mut rb = [0.0f32; TN];
        for i4 in 0..TM / 4 {
            let v: f32x4 = unsafe { sa.load_vec(at.offset(d, r0 + rows.offset(i4, 0))) };
            for e in 0..4 {
                ra[i4 * 4 + e] = v[e];
            }
        }
        for j4 in 0..TN / 4 {
            let v: f32x4 = unsafe { sb.load_vec(bt.offset(d, c0 + cols.offset(j4, 0))) };
            for e in 0..4 {
                rb[j4 * 4 + e] = v[e];
            }
        }
        for i in 0..TM {
            for j in 0..TN {
                acc[i][j] = fma(ra[i], rb[j], acc[i][j]);
            }
        }
    }
}

/// The engine. Interior blocks (the whole block tile inside `C`) load
/// every full `k` tile unpredicated; the last, partial `k` tile and the
/// tiles of edge blocks take the predicated path, except with `EL`, where
/// edge blocks run their full tiles (all but the one holding `B`'s last
/// row) in the unpredicated loop with clamped reads. The choice is one
/// block-uniform branch per tile. `SPLIT` (split-k, `ST = 2`): block z
/// runs only slice z of the `k` tiles (`ks` of `k` each) and writes to
/// slice z of the workspace `c` ([`split_k_slice_offset`]).
///
/// `ST` stages: 1 → load, barrier, compute, barrier per tile; 2 → the next
/// tile's global loads are issued before the current tile's FMAs (in
/// flight while the FMAs run), stored into the other stage afterwards,
/// one barrier per tile.
#[inline(always)]
pub(super) unsafe fn body<
    const BM: usize,
    const BN: usize,
    const BK: usize,
    const TM: usize,
    const TN: usize,
    const WM: usize,
    const WN: usize,
    const AS: usize,
    const BS: usize,
    const ST: usize,
    const IL: bool,
    const EL: bool,
    const SPLIT: bool,
    const TA: bool,
>(
    p: GemmParams,
    ks: u32,
    a: Global<f32>,
    b: Global<f32>,
    c: Global<f32>,
) {
    let cfg = Tiling { bm: BM, bn: BN, bk: BK, tm: TM, tn: TN, wm: WM, wn: WN, a_smem: AS, b_smem: BS, stages: ST, interior_loop: IL, edge_loop: EL };
    let t = thread_idx_x() as usize;
    let (m0, n0) = block_origin(block_idx_x(), block_idx_y(), BM, BN);
    let interior = tile_is_interior(&p, m0, n0, BM, BN);
    let k = p.k as usize;
    let origin = cfg.thread_origin(t);
    let sa0 = dynamic_shared::<f32>();
    let sb0 = sa0.offset(cfg.a_tile().footprint());
    let stage = cfg.stage_floats();
    let ktiles = k.div_ceil(BK);
    // Split-k: block z runs k tiles kt0..kt1 and writes its partial
    // product to slice z of the workspace `c`.
    assert!(!SPLIT || ST == 2, "split-k runs the double-buffered loop");
    let (kt0, kt1) = if SPLIT { split_k_tiles(block_idx_z(), ks, BK, ktiles) } else { (0, ktiles) };
    let c_base = if SPLIT { split_k_slice_offset(block_idx_z(), &p) } else { 0 };

    let mut acc = [[0.0f32; TN]; TM];
    let mut ra = [f32x4::splat(0.0); MAX_PASSES];
    let mut rb = [f32x4::splat(0.0); MAX_PASSES];
    unsafe {
        if ST == 1 {
            for kt in 0..ktiles {
                let k0 = kt * BK;
                let full = interior && k0 + BK <= k;
                load_a::<false, TA>(&cfg, &p, a, t, (m0, k0), full, &mut ra);
                load_b::<false>(&cfg, &p, b, t, (k0, n0), full, &mut rb);
                store_tiles::<TA>(&cfg, sa0, sb0, t, &ra, &rb);
                sync_threads();
                compute::<BK, TM, TN>(&cfg, sa0, sb0, origin, &mut acc);
                sync_threads();
            }
        } else {
            let k0 = kt0 * BK;
            let full = interior && k0 + BK <= k;
            load_a::<false, TA>(&cfg, &p, a, t, (m0, k0), full, &mut ra);
            load_b::<false>(&cfg, &p, b, t, (k0, n0), full, &mut rb);
            store_tiles::<TA>(&cfg, sa0, sb0, t, &ra, &rb);
            sync_threads();
            let mut kt = kt0;
            let st = Stages { sa0, sb0, stage };
            if IL && interior {
                // Tiles kt0 + 1..k/BK are full: no predicate, no bounds math.
                let full_tiles = min(k / BK, kt1);
                while kt + 1 < full_tiles {
                    fast_step::<BK, TM, TN, false, TA>(&cfg, &p, (a, b), t, (m0, n0), origin, &st, kt, ((kt - kt0) % 2) * stage, &mut acc, (&mut ra, &mut rb));
                    kt += 1;
                }
            } else if IL && EL {
                // An edge block: the same loop over the tiles that end
                // before `B`'s last row (clamped reads stay inside the rows
                // of `ldb` elements before it), rows of `A` and columns of
                // `B` past the edge clamped instead of predicated.
                let full_tiles = min(edge_full_k_tiles(k, BK), kt1);
                while kt + 1 < full_tiles {
                    fast_step::<BK, TM, TN, true, TA>(&cfg, &p, (a, b), t, (m0, n0), origin, &st, kt, ((kt - kt0) % 2) * stage, &mut acc, (&mut ra, &mut rb));
                    kt += 1;
                }
            }
            while kt < kt1 {
                let cur = ((kt - kt0) % 2) * stage;
                let next = kt + 1 < kt1;
                if next {
                    let k0 = (kt + 1) * BK;
                    let full = interior && k0 + BK <= k;
                    load_a::<false, TA>(&cfg, &p, a, t, (m0, k0), full, &mut ra);
                    load_b::<false>(&cfg, &p, b, t, (k0, n0), full, &mut rb);
                }
                compute::<BK, TM, TN>(&cfg, sa0.offset(cur), sb0.offset(cur), origin, &mut acc);
                if next {
                    // The other stage was last read before the previous
                    // barrier: safe to overwrite while others still compute.
                    store_tiles::<TA>(&cfg, sa0.offset(stage - cur), sb0.offset(stage - cur), t, &ra, &rb);
                }
                sync_threads();
                kt += 1;
            }
        }
        epilogue_at::<TM, TN>(&cfg, &p, c, c_base, (m0 + origin.0, n0 + origin.1), interior, &acc);
    }
}

/// `min` for the k tile bounds.
#[inline(always)]
const fn min(x: usize, y: usize) -> usize {
    if x < y { x } else { y }
}

/// The two shared stages: `A` of stage 0 at `sa0`, `B` at `sb0`, stage 1
/// `stage` floats further.
struct Stages {
    sa0: Shared<f32>,
    sb0: Shared<f32>,
    stage: usize,
}

/// One tile of the interior loop: prefetch tile `kt + 1` (unpredicated;
/// `CLAMP`: an edge block's, with clamped rows of `A` and columns of `B`),
/// compute tile `kt` from the stage at offset `cur`, store the prefetch
/// into the other stage, barrier.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn fast_step<const BK: usize, const TM: usize, const TN: usize, const CLAMP: bool, const TA: bool>(
    cfg: &Tiling,
    p: &GemmParams,
    (a, b): (Global<f32>, Global<f32>),
    t: usize,
    (m0, n0): (usize, usize),
    origin: (usize, usize),
    st: &Stages,
    kt: usize,
    cur: usize,
    acc: &mut [[f32; TN]; TM],
    (ra, rb): (&mut [f32x4; MAX_PASSES], &mut [f32x4; MAX_PASSES]),
) {
    let k0 = (kt + 1) * BK;
    unsafe {
        load_a::<CLAMP, TA>(cfg, p, a, t, (m0, k0), true, ra);
        load_b::<CLAMP>(cfg, p, b, t, (k0, n0), true, rb);
        compute::<BK, TM, TN>(cfg, st.sa0.offset(cur), st.sb0.offset(cur), origin, acc);
        store_tiles::<TA>(cfg, st.sa0.offset(st.stage - cur), st.sb0.offset(st.stage - cur), t, ra, rb);
        sync_threads();
    }
}

/// `C = α·acc + β·C` for one thread's results starting at `(row0, col0)`:
/// float4s in interior blocks when `ldc` is a multiple of 4 (`C` itself
/// then starts 16-byte aligned: a precondition), predicated scalars
/// otherwise.
#[inline(always)]
pub(super) unsafe fn epilogue<const TM: usize, const TN: usize>(
    cfg: &Tiling,
    p: &GemmParams,
    c: Global<f32>,
    origin: (usize, usize),
    interior: bool,
    acc: &[[f32; TN]; TM],
) {
    unsafe { epilogue_at::<TM, TN>(cfg, p, c, 0, origin, interior, acc) }
}

/// [`epilogue`] into the matrix starting `base` elements into `c` (a
/// multiple of 4: a split-k slice of the workspace).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn epilogue_at<const TM: usize, const TN: usize>(
    cfg: &Tiling,
    p: &GemmParams,
    c: Global<f32>,
    base: usize,
    (row0, col0): (usize, usize),
    interior: bool,
    acc: &[[f32; TN]; TM],
) {
    let lc = p.c();
    let (rows, cols) = (cfg.thread_rows(), cfg.thread_cols());
    // float4 stores need rows of C that start 16-byte aligned.
    let vector = interior && p.ldc % 4 == 0;
    for i in 0..TM {
        let row = row0 + rows.offset(i / 4, i % 4);
        for j4 in 0..TN / 4 {
            let col = col0 + cols.offset(j4, 0);
            unsafe {
                if vector {
                    let o = base + lc.offset(row, col);
                    let v = if p.beta == 0.0 {
                        f32x4::from_array(core::array::from_fn(|e| p.alpha * acc[i][j4 * 4 + e]))
                    } else {
                        let old: f32x4 = c.read_vec(o);
                        f32x4::from_array(core::array::from_fn(|e| fma(p.beta, old[e], p.alpha * acc[i][j4 * 4 + e])))
                    };
                    c.write_vec(o, v);
                } else {
                    for e in 0..4 {
                        if lc.in_bounds(row, col + e) {
                            write_c(p, c, base + lc.offset(row, col + e), acc[i][j4 * 4 + e]);
                        }
                    }
                }
            }
        }
    }
}

/// Defines a named kernel that runs [`body`] with the `Tiling` constant
/// `$cfg` (checked by a `const` assertion); with `true` on an `A` stored
/// transposed (the twins of [`crate::simt_warptile_t_table`]).
macro_rules! tiled_kernel {
    ($(#[$m:meta])* $name:ident = $cfg:path) => {
        $crate::gemm::simt::float4::tiled_kernel!($(#[$m])* $name = $cfg, false);
    };
    ($(#[$m:meta])* $name:ident = $cfg:path, $ta:literal) => {
        $crate::kernel! {
            $(#[$m])*
            pub fn $name(p: $crate::gemm::GemmParams, a: $crate::arch::Global<f32>, b: $crate::arch::Global<f32>, c: $crate::arch::Global<f32>) {
                const _: () = assert!($cfg.validate() && (!$ta || $cfg.validate_transposed_a()), "invalid tiling");
                $crate::gemm::simt::float4::body::<
                    { $cfg.bm }, { $cfg.bn }, { $cfg.bk }, { $cfg.tm }, { $cfg.tn },
                    { $cfg.wm }, { $cfg.wn }, { $cfg.a_smem }, { $cfg.b_smem }, { $cfg.stages },
                    { $cfg.interior_loop }, { $cfg.edge_loop }, false, $ta,
                >(p, 0, a, b, c)
            }
        }
    };
}

/// [`tiled_kernel`] on `A` stored transposed (`op(A) = Aᵀ`).
macro_rules! tiled_kernel_tn {
    ($(#[$m:meta])* $name:ident = $cfg:path) => {
        $crate::gemm::simt::float4::tiled_kernel!($(#[$m])* $name = $cfg, true);
    };
}

pub(crate) use {tiled_kernel, tiled_kernel_tn};
