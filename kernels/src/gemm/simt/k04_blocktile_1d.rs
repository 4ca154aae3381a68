//! Rung 4: 1D blocktiling — `TM` results per thread.

use super::index::{a_tile_by_thread, block_origin, tile_is_interior, tile_load, tile_load_is_exact, tile_load_passes, tiled_config};
use super::{write_c, GemmParams};
use crate::arch::{block_idx_x, block_idx_y, dynamic_shared, fma, sync_threads, thread_idx_x, Global};
use crate::kernel;
use crate::launch::LaunchConfig;
use crate::layout::Layout2;

/// Block tile rows of [`sgemm_blocktile_1d`].
pub const BT1_BM: usize = 64;
/// Block tile columns.
pub const BT1_BN: usize = 64;
/// Depth of one `k` step.
pub const BT1_BK: usize = 8;
/// Results per thread (a column of `TM` rows).
pub const BT1_TM: usize = 8;
/// Threads per block: one per `TM` results.
pub const BT1_THREADS: usize = BT1_BM * BT1_BN / BT1_TM;
const _: () = assert!(tile_load_is_exact(BT1_BM, BT1_BK, BT1_THREADS, 1) && tile_load_is_exact(BT1_BK, BT1_BN, BT1_THREADS, 1));

/// The `A` tile `(BM, BK)` and the `B` tile `(BK, BN)`, row-major, `B`'s
/// after `A`'s.
pub const fn bt1_tiles() -> (Layout2, Layout2) {
    (Layout2::row_major(BT1_BM, BT1_BK), Layout2::row_major(BT1_BK, BT1_BN))
}

/// One block per 64 × 64 tile of `C`.
pub const fn blocktile_1d_config(p: &GemmParams) -> LaunchConfig {
    let (ta, tb) = bt1_tiles();
    tiled_config(p, BT1_BM, BT1_BN, BT1_THREADS as u32).with_shared(((ta.cosize() + tb.cosize()) * 4) as u32)
}

kernel! {
    /// 1D blocktiling: each thread computes `TM = 8` results down a column
    /// of `C`. Per `k` step it loads one `B` value into a register and
    /// reuses it for 8 FMAs against `As` read as the seeds'
    /// `(BM/TM, TM, BK)` view — shared loads per FMA fall from 2 to ~1.1.
    /// Expected: ~2–3× rung 3.
    pub fn sgemm_blocktile_1d(p: GemmParams, a: Global<f32>, b: Global<f32>, c: Global<f32>) {
        let t = thread_idx_x() as usize;
        let (m0, n0) = block_origin(block_idx_x(), block_idx_y(), BT1_BM, BT1_BN);
        let (la, lb, lc) = (p.a(), p.b(), p.c());
        let (ta, tb) = bt1_tiles();
        let view = a_tile_by_thread(BT1_BM, BT1_TM, BT1_BK);
        let sa = dynamic_shared::<f32>();
        let sb = sa.offset(ta.cosize());
        // Thread t owns column t % BN, rows (t / BN) * TM + i.
        let (tr, tc) = (t / BT1_BN, t % BT1_BN);
        let interior = tile_is_interior(&p, m0, n0, BT1_BM, BT1_BN);
        let mut acc = [0.0f32; BT1_TM];
        let mut k0 = 0;
        while k0 < p.k as usize {
            let full = interior && k0 + BT1_BK <= p.k as usize;
            for q in 0..tile_load_passes(BT1_BM, BT1_BK, BT1_THREADS, 1) {
                let (r, cc) = tile_load(t, q, BT1_THREADS, BT1_BK, 1);
                let ok = full || la.in_bounds(m0 + r, k0 + cc);
                sa.store(ta.offset(r, cc), if ok { a.read(la.offset(m0 + r, k0 + cc)) } else { 0.0 });
            }
            for q in 0..tile_load_passes(BT1_BK, BT1_BN, BT1_THREADS, 1) {
                let (r, cc) = tile_load(t, q, BT1_THREADS, BT1_BN, 1);
                let ok = full || lb.in_bounds(k0 + r, n0 + cc);
                sb.store(tb.offset(r, cc), if ok { b.read(lb.offset(k0 + r, n0 + cc)) } else { 0.0 });
            }
            sync_threads();
            for d in 0..BT1_BK {
                let bv = sb.load(tb.offset(d, tc));
                for i in 0..BT1_TM {
                    acc[i] = fma(sa.load(view.offset(tr, i, d)), bv, acc[i]);
                }
            }
            sync_threads();
            k0 += BT1_BK;
        }
        for i in 0..BT1_TM {
            let (row, col) = (m0 + tr * BT1_TM + i, n0 + tc);
            if interior || lc.in_bounds(row, col) {
                write_c(&p, c, lc.offset(row, col), acc[i]);
            }
        }
    }
}
