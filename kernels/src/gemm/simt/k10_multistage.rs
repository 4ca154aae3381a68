//! Rung 10: a multi-stage `cp.async` pipeline.
//!
//! Rung 9 moves each `k` tile global → registers → shared: the prefetched
//! float4s sit in registers for a whole tile (registers a 128-register
//! budget cannot spare), the `A` tile is transposed by 4 scalar stores per
//! float4, and only one tile is in flight while the FMAs run. Here every
//! thread issues `cp.async.cg` copies (16 bytes, global → shared through
//! L2, no registers) for the tile `STAGES - 1` ahead of the one it
//! computes, so `STAGES - 1` tiles are in flight at once (the latency of a
//! DRAM/L2 load is hidden behind `STAGES - 1` tiles of FMAs rather than
//! one), and the registers all go to accumulators and operands.
//!
//! * Shared memory: `STAGES` stages of an `A` tile `(BM, BK)` stored as in
//!   global memory ([`a_tile_rows`], swizzled) and a `B` tile `(BK, BN)`
//!   ([`b_tile`], plain), in dynamic shared memory (above 48 KiB the host
//!   raises the kernel's limit).
//! * Main loop, one barrier per tile: wait for tile `kt`'s group
//!   (`cp.async.wait_group STAGES - 2`), barrier (everyone's copies of
//!   tile `kt` are visible, everyone has finished tile `kt - 1`), issue the
//!   copies of tile `kt + STAGES - 1` into the stage tile `kt - 1` used,
//!   commit, compute tile `kt`. Past the last tile the groups are empty, so
//!   the wait count stays one constant.
//! * Edges: a tile that crosses the edge of `A` or `B` uses the zero-fill
//!   form of `cp.async` (source size 0..16 bytes, [`chunk_bytes`]): no
//!   branch per element, zeros outside the matrix. Interior tiles copy
//!   without a size operand.
//! * Compute: `A` is not transposed any more, so a float4 of the `A` tile
//!   is 4 consecutive `k` of one row. Per 4 `k`, a thread holds the
//!   operand with fewer results (`4 × TN` of `B`, or `TM × 4` of `A`) in
//!   registers and streams the other one float4 at a time: `TM + TN`
//!   `ld.shared.v4` per `4 · TM · TN` FMAs, the same ratio as rung 9. The
//!   thread map is [`LaneTiling`]: a lane's rows are interleaved with its
//!   neighbours', so the 8 lanes of a load phase read 8 consecutive rows of
//!   the swizzled `A` tile (conflict-free) and at most 4 float4s of a `B`
//!   row (conflict-free).
//! * Epilogue: as rung 9 (float4 stores of `C` on interior blocks,
//!   predicated scalars at the edges; β = 0 never reads `C`).
//!
//! Preconditions (checked by the host): `lda`, `ldb`, `ldc` are multiples
//! of 4 and the buffers are 16-byte aligned.
//!
//! Measured against cuBLAS in the same run (numbers: BENCHMARKS.md and
//! docs/benchmarks/HISTORY.md, "SGEMM round 3"): no configuration of this
//! rung, [`MultistageT`] included, beats rung 9, so the ladder's top stays
//! rung 9 and the autotune table does not pick rung 10; the kernels stay
//! for comparison in the benchmark. What ncu shows (4096³): the pipeline is not the
//! problem (few long-scoreboard stalls); the compute loop issues slower
//! than cuBLAS's (dispatch stalls, MIO throttling around the `LDGSTS`
//! and ptxas's three predicated-off `LDS` before each).

use crate::arch::simd::{f32x2, f32x4};

use super::index::{
    a_tile_rows, b_tile, block_origin, chunk_bytes, tile_is_interior, tile_load, tile_load_is_exact, tile_load_passes, tiled_config,
    LaneTiling, SmemTile, PLAIN,
};
use super::k09_warptile::warptile;
use super::float4::{self, Tiling};
use super::{write_c, GemmParams};
use crate::arch::{
    block_idx_x, block_idx_y, cp_async_16, cp_async_4, cp_async_4_zfill, cp_async_commit, cp_async_wait_group, dynamic_shared, fma, sync_threads,
    thread_idx_x, Global, Shared,
};
use crate::launch::LaunchConfig;
use crate::variant_family;
use crate::layout::Layout2;

/// Shared memory one block may use on sm_80 and sm_90 (227 KiB).
pub const MAX_SHARED_BYTES: u32 = 227 * 1024;

/// A configuration of the multistage engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Multistage {
    /// Block tile rows (`BM`).
    pub bm: usize,
    /// Block tile columns (`BN`).
    pub bn: usize,
    /// Depth of one `k` tile (`BK`).
    pub bk: usize,
    /// Warp tile rows.
    pub wm: usize,
    /// Warp tile columns.
    pub wn: usize,
    /// Results per thread along M.
    pub tm: usize,
    /// Results per thread along N.
    pub tn: usize,
    /// Shared-memory stages (tiles in flight + the one being computed).
    pub stages: usize,
    /// `k` per `A` load in the compute loop: 4 (`ld.shared.v4`, fewest
    /// loads) or 2 (`ld.shared.v2`: half the operand registers held, for
    /// a 128-register budget).
    pub av: usize,
}

impl Multistage {
    /// Threads per block (8 warps for every configuration of the ladder).
    pub const fn threads(&self) -> usize {
        (self.bm / self.wm) * (self.bn / self.wn) * 32
    }
    /// The thread → results map.
    pub const fn lanes(&self) -> LaneTiling {
        LaneTiling { wm: self.wm, wn: self.wn, tm: self.tm, tn: self.tn, bn: self.bn }
    }
    /// The shared `A` tile (`(BM, BK)`, swizzled).
    pub const fn a_tile(&self) -> SmemTile {
        a_tile_rows(self.bm, self.bk)
    }
    /// The shared `B` tile (`(BK, BN)`).
    pub const fn b_tile(&self) -> SmemTile {
        b_tile(self.bk, self.bn, PLAIN)
    }
    /// Floats of one stage (`A` tile then `B` tile).
    pub const fn stage_floats(&self) -> usize {
        self.a_tile().footprint() + self.b_tile().footprint()
    }
    /// Dynamic shared memory per block.
    pub const fn shared_bytes(&self) -> u32 {
        (self.stages * self.stage_floats() * 4) as u32
    }
    /// 16-byte copies per thread for the `A` tile.
    pub const fn a_passes(&self) -> usize {
        tile_load_passes(self.bm, self.bk, self.threads(), 4)
    }
    /// 16-byte copies per thread for the `B` tile.
    pub const fn b_passes(&self) -> usize {
        tile_load_passes(self.bk, self.bn, self.threads(), 4)
    }
    /// Grid and shared memory for `p`.
    pub const fn config(&self, p: &GemmParams) -> LaunchConfig {
        tiled_config(p, self.bm, self.bn, self.threads() as u32).with_shared(self.shared_bytes())
    }
    /// Whether the engine supports this configuration.
    pub const fn validate(&self) -> bool {
        let t = self.threads();
        self.bm.is_power_of_two()
            && self.bn.is_power_of_two()
            && matches!(self.bk, 4 | 8 | 16 | 32)
            && self.stages >= 2
            && self.stages <= 8
            && matches!(self.av, 2 | 4)
            && self.bm % self.wm == 0
            && self.lanes().is_valid()
            && t >= 32
            && t <= 1024
            && self.a_tile().is_valid()
            && tile_load_is_exact(self.bm, self.bk, t, 4)
            && tile_load_is_exact(self.bk, self.bn, t, 4)
            && self.shared_bytes() <= MAX_SHARED_BYTES
    }
}

/// Issues the copies of the `k` tile at `k0` into one stage. `FULL`: the
/// tile lies inside `A` and `B` (plain 16-byte copies); otherwise each
/// copy reads the [`chunk_bytes`] of its chunk that are inside the matrix
/// and zero-fills the rest (a copy that reads nothing gets row or column 0
/// as its source: in bounds and aligned).
#[inline(always)]
unsafe fn issue<const FULL: bool>(
    cfg: &Multistage,
    p: &GemmParams,
    (a, b): (Global<f32>, Global<f32>),
    t: usize,
    (m0, n0): (usize, usize),
    k0: usize,
    (sa, sb): (Shared<f32>, Shared<f32>),
) {
    let (at, bt) = (cfg.a_tile(), cfg.b_tile());
    let (la, lb) = (p.a(), p.b());
    let nt = cfg.threads();
    unsafe {
        copy_tile_16::<FULL>(sa, at, a, la, (m0, k0), cfg.a_passes(), (t, nt));
        copy_tile_16::<FULL>(sb, bt, b, lb, (k0, n0), cfg.b_passes(), (t, nt));
    }
}

/// Issues one stage's 16-byte copies of `tile` (its layout's rows ×
/// cols), whose top-left element is `(r0, c0)` of the matrix `l`:
/// `passes` chunks per thread, thread `t` of `nt` taking chunk `(r, c)` of
/// [`tile_load`]. Interior tiles (`FULL`) copy without checks; edge tiles
/// go through [`copy_edge_chunk`] with the bytes that lie in the matrix (a
/// chunk outside it gets row / column 0 as its source, which is not read).
///
/// # Safety
/// With `FULL`, the whole tile lies inside `src`; `dst` holds the tile.
#[inline(always)]
unsafe fn copy_tile_16<const FULL: bool>(
    dst: Shared<f32>,
    tile: SmemTile,
    src: Global<f32>,
    l: Layout2,
    (r0, c0): (usize, usize),
    passes: usize,
    (t, nt): (usize, usize),
) {
    for q in 0..passes {
        let (r, c) = tile_load(t, q, nt, tile.layout.cols, 4);
        let (gr, gc) = (r0 + r, c0 + c);
        unsafe {
            if FULL {
                cp_async_16(dst, tile.offset(r, c), src, l.offset(gr, gc));
            } else {
                let (gr, gc) = (gr as u32, gc as u32);
                let n = chunk_bytes(gr < l.rows as u32, gc, l.cols as u32);
                let row = if gr < l.rows as u32 { gr } else { 0 };
                let col = if n == 0 { 0 } else { gc };
                copy_edge_chunk(dst, tile.offset(r, c), src, l.offset(row as usize, col as usize), n);
            }
        }
    }
}

/// One 16-byte chunk of an edge tile, `n` (0..=16) of whose bytes lie in
/// the matrix. A whole chunk is one 16-byte copy; the part outside the
/// matrix is written as zeros by ordinary stores (ordered before the
/// stage's readers by the same barrier as the copies); a partial chunk —
/// the end of a row whose length is not a multiple of 4 — is copied element
/// by element. No copy ever addresses a byte outside the buffer, which may
/// end right after the row: compute-sanitizer's memcheck flags a 16-byte
/// `cp.async` whose window reaches past an allocation even when its source
/// size is smaller (seen on an H200), and the emulator checks the same.
///
/// # Safety
/// `src[s .. s + n / 4]` is inside the buffer; `dst[d .. d + 4]` inside
/// shared memory, `d` 16-byte aligned.
#[inline(always)]
unsafe fn copy_edge_chunk(dst: Shared<f32>, d: usize, src: Global<f32>, s: usize, n: u32) {
    unsafe {
        if n == 16 {
            cp_async_16(dst, d, src, s);
        } else if n == 0 {
            dst.store_vec(d, f32x4::splat(0.0));
        } else {
            for e in 0..4 {
                if (e as u32) * 4 < n {
                    cp_async_4(dst, d + e, src, s + e);
                } else {
                    dst.store(d + e, 0.0);
                }
            }
        }
    }
}

/// `AV` consecutive `k` (2 or 4) of row `r` of the `A` tile starting at
/// `kb`, as one `ld.shared.v2` / `ld.shared.v4` (the unused lanes of the
/// result stay 0).
#[inline(always)]
unsafe fn load_a<const AV: usize>(at: &SmemTile, sa: Shared<f32>, r: usize, kb: usize) -> [f32; 4] {
    unsafe {
        if AV == 4 {
            sa.load_vec::<f32x4>(at.offset(r, kb)).to_array()
        } else {
            let v = sa.load_vec::<f32x2>(at.offset(r, kb));
            [v[0], v[1], 0.0, 0.0]
        }
    }
}

/// One `k` tile from a shared stage into the accumulators, `AV` `k` at a
/// time: the smaller operand block (`B`: `AV × TN`, or `A`: `TM × AV`) is
/// loaded into registers, the other is streamed one vector per row / `k`.
#[inline(always)]
unsafe fn compute<const BK: usize, const TM: usize, const TN: usize, const AV: usize>(
    cfg: &Multistage,
    sa: Shared<f32>,
    sb: Shared<f32>,
    (r0, c0): (usize, usize),
    acc: &mut [[f32; TN]; TM],
) {
    let (at, bt) = (cfg.a_tile(), cfg.b_tile());
    let lanes = cfg.lanes();
    let (rows, cols) = (lanes.rows(), lanes.cols());
    let load_b = |kk: usize, out: &mut [f32; TN]| {
        for j4 in 0..TN / 4 {
            let v: f32x4 = unsafe { sb.load_vec(bt.offset(kk, c0 + cols.offset(j4, 0))) };
            for e in 0..4 {
                out[4 * j4 + e] = v[e];
            }
        }
    };
    for kg in 0..BK / AV {
        let kb = AV * kg;
        if TM >= TN {
            let mut bv = [[0.0f32; TN]; AV];
            for (d, row) in bv.iter_mut().enumerate() {
                load_b(kb + d, row);
            }
            for (i, acc_row) in acc.iter_mut().enumerate() {
                let av = unsafe { load_a::<AV>(&at, sa, r0 + rows.offset(i, 0), kb) };
                for (d, brow) in bv.iter().enumerate() {
                    for j in 0..TN {
                        acc_row[j] = fma(av[d], brow[j], acc_row[j]);
                    }
                }
            }
        } else {
            let mut av = [[0.0f32; 4]; TM];
            for (i, v) in av.iter_mut().enumerate() {
                *v = unsafe { load_a::<AV>(&at, sa, r0 + rows.offset(i, 0), kb) };
            }
            for d in 0..AV {
                let mut bv = [0.0f32; TN];
                load_b(kb + d, &mut bv);
                for (i, acc_row) in acc.iter_mut().enumerate() {
                    for j in 0..TN {
                        acc_row[j] = fma(av[i][d], bv[j], acc_row[j]);
                    }
                }
            }
        }
    }
}

/// The engine (see the module documentation).
#[inline(always)]
pub(super) unsafe fn body<
    const BM: usize,
    const BN: usize,
    const BK: usize,
    const WM: usize,
    const WN: usize,
    const TM: usize,
    const TN: usize,
    const ST: usize,
    const AV: usize,
>(
    p: GemmParams,
    a: Global<f32>,
    b: Global<f32>,
    c: Global<f32>,
) {
    let cfg = Multistage { bm: BM, bn: BN, bk: BK, wm: WM, wn: WN, tm: TM, tn: TN, stages: ST, av: AV };
    let t = thread_idx_x() as usize;
    let (m0, n0) = block_origin(block_idx_x(), block_idx_y(), BM, BN);
    let interior = tile_is_interior(&p, m0, n0, BM, BN);
    // Tile counts and stage offsets in 32 bits (fewer registers).
    let ktiles = p.k.div_ceil(BK as u32);
    let sa0 = dynamic_shared::<f32>();
    let sb0 = sa0.offset(cfg.a_tile().footprint());
    let stage = cfg.stage_floats() as u32;
    let last = (ST as u32 - 1) * stage;
    let origin = cfg.lanes().origin(t);
    // Tiles 0..full_tiles lie inside A and B for an interior block.
    let full_tiles = if interior { p.k / BK as u32 } else { 0 };
    let st = Pipeline { sa0, sb0, stage, last, ktiles };

    unsafe {
        // Prologue: tiles 0..ST-1 into stages 0..ST-1, one group each
        // (empty groups past the last tile keep the wait count constant).
        for s in 0..ST as u32 - 1 {
            let (k0, at) = (s as usize * BK, (s * stage) as usize);
            if s < full_tiles {
                issue::<true>(&cfg, &p, (a, b), t, (m0, n0), k0, (sa0.offset(at), sb0.offset(at)));
            } else if s < ktiles {
                issue::<false>(&cfg, &p, (a, b), t, (m0, n0), k0, (sa0.offset(at), sb0.offset(at)));
            }
            cp_async_commit();
        }
        let mut acc = [[0.0f32; TN]; TM];
        // Stage offsets of the tile computed (`rd`) and of the tile issued
        // (`wr`, the stage computed in the previous iteration).
        let mut rw = (0u32, last);
        let mut kt = 0u32;
        // Interior blocks: every tile issued lies inside A and B; a loop of
        // its own with unpredicated copies and none of the edge arithmetic
        // live (what keeps the 128-register configurations from spilling).
        while kt + ST as u32 - 1 < full_tiles {
            step::<BK, TM, TN, ST, AV, true>(&cfg, &p, (a, b), t, (m0, n0), origin, &st, kt, &mut rw, &mut acc);
            kt += 1;
        }
        // The rest: the k tail of interior blocks, every tile of edge blocks.
        while kt < ktiles {
            step::<BK, TM, TN, ST, AV, false>(&cfg, &p, (a, b), t, (m0, n0), origin, &st, kt, &mut rw, &mut acc);
            kt += 1;
        }
        epilogue::<TM, TN>(&cfg, &p, c, (m0 + origin.0, n0 + origin.1), interior, &acc);
    }
}

/// The stages in dynamic shared memory: `A` of stage 0 at `sa0`, `B` at
/// `sb0`, stage `s` at `s · stage` floats further; `last` is the offset of
/// the last stage; `ktiles` tiles in all.
struct Pipeline {
    sa0: Shared<f32>,
    sb0: Shared<f32>,
    stage: u32,
    last: u32,
    ktiles: u32,
}

/// One iteration of the main loop for tile `kt`: wait for its group,
/// barrier, issue tile `kt + ST - 1` (`FULL`: unpredicated) into the
/// stage freed by tile `kt - 1`, commit, compute tile `kt`, advance the
/// stage offsets `(rd, wr)`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn step<const BK: usize, const TM: usize, const TN: usize, const ST: usize, const AV: usize, const FULL: bool>(
    cfg: &Multistage,
    p: &GemmParams,
    (a, b): (Global<f32>, Global<f32>),
    t: usize,
    (m0, n0): (usize, usize),
    origin: (usize, usize),
    st: &Pipeline,
    kt: u32,
    (rd, wr): &mut (u32, u32),
    acc: &mut [[f32; TN]; TM],
) {
    unsafe {
        // This thread's copies of tile kt have landed (at most ST-2 newer
        // groups are in flight) ...
        cp_async_wait_group((ST - 2) as u32);
        // ... and everyone's; and everyone is done with tile kt-1.
        sync_threads();
        let kn = kt + ST as u32 - 1;
        if FULL || kn < st.ktiles {
            let w = *wr as usize;
            issue::<FULL>(cfg, p, (a, b), t, (m0, n0), kn as usize * BK, (st.sa0.offset(w), st.sb0.offset(w)));
        }
        cp_async_commit();
        let r = *rd as usize;
        compute::<BK, TM, TN, AV>(cfg, st.sa0.offset(r), st.sb0.offset(r), origin, acc);
        *rd = if *rd == st.last { 0 } else { *rd + st.stage };
        *wr = if *wr == st.last { 0 } else { *wr + st.stage };
    }
}

/// `C = α·acc + β·C` for one thread's results, first at `(row0, col0)`.
#[inline(always)]
unsafe fn epilogue<const TM: usize, const TN: usize>(
    cfg: &Multistage,
    p: &GemmParams,
    c: Global<f32>,
    (row0, col0): (usize, usize),
    interior: bool,
    acc: &[[f32; TN]; TM],
) {
    let lc = p.c();
    let lanes = cfg.lanes();
    let (rows, cols) = (lanes.rows(), lanes.cols());
    for (i, acc_row) in acc.iter().enumerate() {
        let row = row0 + rows.offset(i, 0);
        for j4 in 0..TN / 4 {
            let col = col0 + cols.offset(j4, 0);
            unsafe {
                if interior {
                    let o = lc.offset(row, col);
                    let v = if p.beta == 0.0 {
                        f32x4::from_array(core::array::from_fn(|e| p.alpha * acc_row[4 * j4 + e]))
                    } else {
                        let old: f32x4 = c.read_vec(o);
                        f32x4::from_array(core::array::from_fn(|e| fma(p.beta, old[e], p.alpha * acc_row[4 * j4 + e])))
                    };
                    c.write_vec(o, v);
                } else {
                    for e in 0..4 {
                        if lc.in_bounds(row, col + e) {
                            write_c(p, c, lc.offset(row, col + e), acc_row[4 * j4 + e]);
                        }
                    }
                }
            }
        }
    }
}

/// Defines a named kernel that runs [`body`] with the `Multistage`
/// constant `$cfg` (checked by a `const` assertion).
macro_rules! multistage_kernel {
    ($(#[$m:meta])* $name:ident = $cfg:path) => {
        $crate::kernel! {
            $(#[$m])*
            pub fn $name(p: $crate::gemm::GemmParams, a: $crate::arch::Global<f32>, b: $crate::arch::Global<f32>, c: $crate::arch::Global<f32>) {
                const _: () = assert!($cfg.validate(), "invalid multistage configuration");
                $crate::gemm::simt::k10_multistage::body::<
                    { $cfg.bm }, { $cfg.bn }, { $cfg.bk }, { $cfg.wm }, { $cfg.wn }, { $cfg.tm }, { $cfg.tn }, { $cfg.stages }, { $cfg.av },
                >(p, a, b, c)
            }
        }
    };
}

const fn ms(bm: usize, bn: usize, bk: usize, wm: usize, wn: usize, tm: usize, tn: usize, stages: usize) -> Multistage {
    Multistage { bm, bn, bk, wm, wn, tm, tn, stages, av: 4 }
}

/// 256 × 128 × 8, warps 4 × 2 of 64 × 64 (lanes 4 × 8), 16 × 8 per thread,
/// 3 stages (36 KiB), one block per SM: cuBLAS's tile size, thread count
/// and pipeline depth for large SGEMMs.
pub const MS_256X128X8_S3: Multistage = ms(256, 128, 8, 64, 64, 16, 8, 3);
/// 128 × 256 × 8, warps 2 × 4 of 64 × 64 (lanes 8 × 4), 8 × 16 per thread,
/// 3 stages (36 KiB).
pub const MS_128X256X8_S3: Multistage = ms(128, 256, 8, 64, 64, 8, 16, 3);

/// Rung 10's configurations, one row each (see [`crate::variants`] and
/// [`crate::simt_warptile_table`]). None has launch bounds: 128 × 128 × 8
/// at `(256, 2)` spilled in the edge loop on sm_90 and measured slower.
#[macro_export]
macro_rules! simt_multistage_table {
    ($then:ident) => { $then! {
        /// The configurations of the multistage rung (block tile, `BK`,
        /// stages).
        pub enum StageConfig: $crate::gemm::simt::Multistage;

        /// The ladder's rung 10: 256 × 128 × 8 (16 × 8 per thread, one
        /// block of 8 warps per SM), 3 stages: cuBLAS's tile size, thread
        /// count and pipeline depth for large SGEMMs.
        [cfg(all())] B256x128x8S3 => sgemm_multistage_256x128x8_s3 = multistage_kernel!(MS_256X128X8_S3), bounds 0;
        /// 128 × 256 × 8 (8 × 16 per thread, lanes 8 × 4), 3 stages: the
        /// compute loop holds `A` (8 × 4) and streams `B`.
        [cfg(ferrotile_experiments)] B128x256x8S3 => sgemm_multistage_128x256x8_s3 = multistage_kernel!(MS_128X256X8_S3), bounds 0;
    } };
}

crate::simt_multistage_table!(variant_family);

/// Rung 10 with rung 9's compute loop: `A` is transposed on its way to
/// shared memory by element-wise copies.
///
/// The configurations above store `A` as `(BM, BK)` and read it along
/// `k`; measured, they lose to rung 9 (HISTORY.md), with more dispatch
/// stalls in their compute loop. This variant
/// keeps rung 9's compute loop and shared layouts (`A` as `(BK, BM)`, warp
/// tiling, [`Tiling`]) and only replaces its register-staged loads: `A`
/// with 4-byte `cp.async.ca` copies, each element to its transposed place
/// (rung 9's mapping: a thread's float4 of `A` becomes 4 element copies,
/// to the addresses of rung 9's 4 scalar stores, conflict-free in the
/// swizzled tile), `B` with 16-byte `cp.async.cg` copies; `STAGES` tiles
/// in flight, no staging registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MultistageT {
    /// Tiles, thread map and layouts (rung 9's).
    pub tiling: Tiling,
    /// Shared-memory stages.
    pub stages: usize,
}

impl MultistageT {
    /// Threads per block.
    pub const fn threads(&self) -> usize {
        self.tiling.threads()
    }
    /// Floats of one stage.
    pub const fn stage_floats(&self) -> usize {
        self.tiling.stage_floats()
    }
    /// Dynamic shared memory per block.
    pub const fn shared_bytes(&self) -> u32 {
        (self.stages * self.stage_floats() * 4) as u32
    }
    /// Grid and shared memory for `p`.
    pub const fn config(&self, p: &GemmParams) -> LaunchConfig {
        tiled_config(p, self.tiling.bm, self.tiling.bn, self.threads() as u32).with_shared(self.shared_bytes())
    }
    /// Whether the engine supports this configuration.
    pub const fn validate(&self) -> bool {
        self.tiling.validate()
            && self.tiling.wm != 0
            && self.stages >= 2
            && self.stages <= 8
            && self.shared_bytes() <= MAX_SHARED_BYTES
    }
}

/// [`issue`] for [`MultistageT`]: `A` element by element into the
/// transposed tile, `B` in 16-byte chunks.
#[inline(always)]
#[cfg_attr(not(ferrotile_experiments), allow(dead_code))] // only an experiment uses the transposing engine
unsafe fn issue_t<const FULL: bool>(
    cfg: &MultistageT,
    p: &GemmParams,
    (a, b): (Global<f32>, Global<f32>),
    t: usize,
    (m0, n0): (usize, usize),
    k0: usize,
    (sa, sb): (Shared<f32>, Shared<f32>),
) {
    let tl = &cfg.tiling;
    let (at, bt) = (tl.a_tile(), tl.b_tile());
    let (la, lb) = (p.a(), p.b());
    let nt = cfg.threads();
    // Rung 9's A mapping (consecutive threads, consecutive float4s of a
    // row), each float4 as 4 element copies down a column of the
    // transposed tile: the same addresses as rung 9's 4 scalar stores
    // (conflict-free with the swizzled tile), one source pointer per pass.
    for q in 0..tl.a_passes() {
        let (r, c) = tile_load(t, q, nt, tl.bk, 4);
        let (gr, gc) = (m0 + r, k0 + c);
        for e in 0..4 {
            unsafe {
                if FULL {
                    cp_async_4(sa, at.offset(c + e, r), a, la.offset(gr, gc + e));
                } else {
                    let (gr, gc) = (gr as u32, (gc + e) as u32);
                    let inside = gr < p.m && gc < p.k;
                    let row = if gr < p.m { gr } else { 0 };
                    let col = if inside { gc } else { 0 };
                    cp_async_4_zfill(sa, at.offset(c + e, r), a, la.offset(row as usize, col as usize), if inside { 4 } else { 0 });
                }
            }
        }
    }
    unsafe { copy_tile_16::<FULL>(sb, bt, b, lb, (k0, n0), tl.b_passes(), (t, nt)) };
}

/// [`step`] for [`MultistageT`] (rung 9's compute).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
#[cfg_attr(not(ferrotile_experiments), allow(dead_code))] // only an experiment uses the transposing engine
unsafe fn step_t<const BK: usize, const TM: usize, const TN: usize, const ST: usize, const FULL: bool>(
    cfg: &MultistageT,
    p: &GemmParams,
    (a, b): (Global<f32>, Global<f32>),
    t: usize,
    (m0, n0): (usize, usize),
    origin: (usize, usize),
    st: &Pipeline,
    kt: u32,
    (rd, wr): &mut (u32, u32),
    acc: &mut [[f32; TN]; TM],
) {
    unsafe {
        cp_async_wait_group((ST - 2) as u32);
        sync_threads();
        let kn = kt + ST as u32 - 1;
        if FULL || kn < st.ktiles {
            let w = *wr as usize;
            issue_t::<FULL>(cfg, p, (a, b), t, (m0, n0), kn as usize * BK, (st.sa0.offset(w), st.sb0.offset(w)));
        }
        cp_async_commit();
        let r = *rd as usize;
        float4::compute::<BK, TM, TN>(&cfg.tiling, st.sa0.offset(r), st.sb0.offset(r), origin, acc);
        *rd = if *rd == st.last { 0 } else { *rd + st.stage };
        *wr = if *wr == st.last { 0 } else { *wr + st.stage };
    }
}

/// The [`MultistageT`] engine: [`body`]'s pipeline with [`issue_t`] and
/// rung 9's compute loop and epilogue.
#[inline(always)]
#[cfg_attr(not(ferrotile_experiments), allow(dead_code))] // only an experiment uses the transposing engine
pub(super) unsafe fn body_t<
    const BM: usize,
    const BN: usize,
    const BK: usize,
    const TM: usize,
    const TN: usize,
    const WM: usize,
    const WN: usize,
    const ST: usize,
>(
    p: GemmParams,
    a: Global<f32>,
    b: Global<f32>,
    c: Global<f32>,
) {
    let cfg = MultistageT { tiling: warptile(BM, BN, BK, WM, WN, TM, TN), stages: ST };
    let t = thread_idx_x() as usize;
    let (m0, n0) = block_origin(block_idx_x(), block_idx_y(), BM, BN);
    let interior = tile_is_interior(&p, m0, n0, BM, BN);
    let ktiles = p.k.div_ceil(BK as u32);
    let sa0 = dynamic_shared::<f32>();
    let sb0 = sa0.offset(cfg.tiling.a_tile().footprint());
    let stage = cfg.stage_floats() as u32;
    let last = (ST as u32 - 1) * stage;
    let origin = cfg.tiling.thread_origin(t);
    let full_tiles = if interior { p.k / BK as u32 } else { 0 };
    let st = Pipeline { sa0, sb0, stage, last, ktiles };
    unsafe {
        for s in 0..ST as u32 - 1 {
            let (k0, at) = (s as usize * BK, (s * stage) as usize);
            if s < full_tiles {
                issue_t::<true>(&cfg, &p, (a, b), t, (m0, n0), k0, (sa0.offset(at), sb0.offset(at)));
            } else if s < ktiles {
                issue_t::<false>(&cfg, &p, (a, b), t, (m0, n0), k0, (sa0.offset(at), sb0.offset(at)));
            }
            cp_async_commit();
        }
        let mut acc = [[0.0f32; TN]; TM];
        let mut rw = (0u32, last);
        let mut kt = 0u32;
        while kt + ST as u32 - 1 < full_tiles {
            step_t::<BK, TM, TN, ST, true>(&cfg, &p, (a, b), t, (m0, n0), origin, &st, kt, &mut rw, &mut acc);
            kt += 1;
        }
        while kt < ktiles {
            step_t::<BK, TM, TN, ST, false>(&cfg, &p, (a, b), t, (m0, n0), origin, &st, kt, &mut rw, &mut acc);
            kt += 1;
        }
        float4::epilogue::<TM, TN>(&cfg.tiling, &p, c, (m0 + origin.0, n0 + origin.1), interior, &acc);
    }
}

/// Defines a named kernel that runs [`body_t`] with the `MultistageT`
/// constant `$cfg`.
#[cfg_attr(not(ferrotile_experiments), allow(unused_macros))]
macro_rules! multistage_t_kernel {
    ($(#[$m:meta])* $name:ident = $cfg:path) => {
        $crate::kernel! {
            $(#[$m])*
            pub fn $name(p: $crate::gemm::GemmParams, a: $crate::arch::Global<f32>, b: $crate::arch::Global<f32>, c: $crate::arch::Global<f32>) {
                const _: () = assert!($cfg.validate(), "invalid multistage configuration");
                $crate::gemm::simt::k10_multistage::body_t::<
                    { $cfg.tiling.bm }, { $cfg.tiling.bn }, { $cfg.tiling.bk }, { $cfg.tiling.tm }, { $cfg.tiling.tn },
                    { $cfg.tiling.wm }, { $cfg.tiling.wn }, { $cfg.stages },
                >(p, a, b, c)
            }
        }
    };
}

/// 128 × 256 × 8, rung 9's 64 × 64 warps (8 × 16 per thread), 3 stages.
pub const MST_128X256X8_S3: MultistageT = MultistageT { tiling: warptile(128, 256, 8, 64, 64, 8, 16), stages: 3 };

/// The transposing engine's configurations (see
/// [`crate::simt_multistage_table`]).
#[macro_export]
macro_rules! simt_multistage_t_table {
    ($then:ident) => { $then! {
        /// The configurations of the multistage rung with rung 9's compute
        /// loop (`A` transposed on its way to shared memory).
        pub enum StageTConfig: $crate::gemm::simt::MultistageT;

        /// Rung 9's 128 × 256 × 8 (8 × 16 per thread, one block per SM)
        /// fed by a 3-stage `cp.async` pipeline, `A` transposed by 4-byte
        /// copies: rung 9's compute loop with two tiles in flight and no
        /// staging registers. Each float4 of `A` costs four 4-byte copies
        /// through L1 instead of one 16-byte load.
        [cfg(ferrotile_experiments)] T128x256x8S3 => sgemm_multistage_t_128x256x8_s3 = multistage_t_kernel!(MST_128X256X8_S3), bounds 0;
    } };
}

crate::simt_multistage_t_table!(variant_family);
