//! Rung 5: 2D blocktiling — `TM × TN` results per thread.

use super::index::{block_origin, rows_of, thread_tile, tile_is_interior, tile_load_is_exact, tile_load_passes, tile_load_stored, tiled_config};
use super::{write_c, GemmParams};
use crate::arch::{block_idx_x, block_idx_y, dynamic_shared, fma, sync_threads, thread_idx_x, Global};
use crate::kernel;
use crate::launch::LaunchConfig;
use crate::layout::Layout2;

/// Block tile rows of [`sgemm_blocktile_2d`].
pub const BT2_BM: usize = 128;
/// Block tile columns.
pub const BT2_BN: usize = 128;
/// Depth of one `k` step.
pub const BT2_BK: usize = 8;
/// Result rows per thread.
pub const BT2_TM: usize = 8;
/// Result columns per thread.
pub const BT2_TN: usize = 8;
/// Threads per block: `(BM/TM) · (BN/TN)`.
pub const BT2_THREADS: usize = (BT2_BM / BT2_TM) * (BT2_BN / BT2_TN);
const _: () = assert!(tile_load_is_exact(BT2_BM, BT2_BK, BT2_THREADS, 1) && tile_load_is_exact(BT2_BK, BT2_BN, BT2_THREADS, 1));

/// The `A` tile `(BM, BK)` and the `B` tile `(BK, BN)`, row-major.
pub const fn bt2_tiles() -> (Layout2, Layout2) {
    (Layout2::row_major(BT2_BM, BT2_BK), Layout2::row_major(BT2_BK, BT2_BN))
}

/// One block per 128 × 128 tile of `C`.
pub const fn blocktile_2d_config(p: &GemmParams) -> LaunchConfig {
    let (ta, tb) = bt2_tiles();
    tiled_config(p, BT2_BM, BT2_BN, BT2_THREADS as u32).with_shared(((ta.cosize() + tb.cosize()) * 4) as u32)
}

/// Rung 5's body for `op(A) = A` or `Aᵀ` (`TA`) and `op(B) = B` or `Bᵀ`
/// (`TB`): the operands are read through [`GemmParams::a_op`] and
/// [`GemmParams::b_op`]; a transposed operand's tile is loaded with the
/// threads walking its stored rows, so the loads stay coalesced.
#[inline(always)]
unsafe fn blocktile_2d_body<const TA: bool, const TB: bool>(p: GemmParams, a: Global<f32>, b: Global<f32>, c: Global<f32>) {
    let t = thread_idx_x() as usize;
    let (m0, n0) = block_origin(block_idx_x(), block_idx_y(), BT2_BM, BT2_BN);
    let (la, lb, lc) = (p.a_op(TA), p.b_op(TB), p.c());
    let (ta, tb) = bt2_tiles();
    let sa = dynamic_shared::<f32>();
    let sb = sa.offset(ta.cosize());
    let (tr, tc) = thread_tile(t, BT2_BN, BT2_TN);
    let (rows, cols) = (rows_of(BT2_BM, BT2_TM), rows_of(BT2_BN, BT2_TN));
    let interior = tile_is_interior(&p, m0, n0, BT2_BM, BT2_BN);
    let mut acc = [[0.0f32; BT2_TN]; BT2_TM];
    let mut k0 = 0;
    unsafe {
        while k0 < p.k as usize {
            let full = interior && k0 + BT2_BK <= p.k as usize;
            for q in 0..tile_load_passes(BT2_BM, BT2_BK, BT2_THREADS, 1) {
                let (r, cc) = tile_load_stored(t, q, BT2_THREADS, (BT2_BM, BT2_BK), TA);
                let ok = full || la.in_bounds(m0 + r, k0 + cc);
                sa.store(ta.offset(r, cc), if ok { a.read(la.offset(m0 + r, k0 + cc)) } else { 0.0 });
            }
            for q in 0..tile_load_passes(BT2_BK, BT2_BN, BT2_THREADS, 1) {
                let (r, cc) = tile_load_stored(t, q, BT2_THREADS, (BT2_BK, BT2_BN), TB);
                let ok = full || lb.in_bounds(k0 + r, n0 + cc);
                sb.store(tb.offset(r, cc), if ok { b.read(lb.offset(k0 + r, n0 + cc)) } else { 0.0 });
            }
            sync_threads();
            for d in 0..BT2_BK {
                let mut ra = [0.0f32; BT2_TM];
                let mut rb = [0.0f32; BT2_TN];
                for i in 0..BT2_TM {
                    ra[i] = sa.load(ta.offset(rows.offset(tr, i), d));
                }
                for j in 0..BT2_TN {
                    rb[j] = sb.load(tb.offset(d, cols.offset(tc, j)));
                }
                for i in 0..BT2_TM {
                    for j in 0..BT2_TN {
                        acc[i][j] = fma(ra[i], rb[j], acc[i][j]);
                    }
                }
            }
            sync_threads();
            k0 += BT2_BK;
        }
        for i in 0..BT2_TM {
            for j in 0..BT2_TN {
                let (row, col) = (m0 + rows.offset(tr, i), n0 + cols.offset(tc, j));
                if interior || lc.in_bounds(row, col) {
                    write_c(&p, c, lc.offset(row, col), acc[i][j]);
                }
            }
        }
    }
}

kernel! {
    /// 2D blocktiling: each thread computes an 8 × 8 block of `C`, so per
    /// `k` step it loads 8 `A` and 8 `B` values into registers and does 64
    /// FMAs (outer product): 16 shared loads per 64 FMAs instead of 72.
    /// Loads stay scalar, so this rung also serves any alignment (the
    /// fallback when a leading dimension is not a multiple of 4) and, with
    /// the `_ta` / `_tb` / `_tatb` kernels, transposed operands. Interior
    /// blocks skip every bounds check. Expected: ~2× rung 4, about half of
    /// cuBLAS.
    pub fn sgemm_blocktile_2d(p: GemmParams, a: Global<f32>, b: Global<f32>, c: Global<f32>) {
        blocktile_2d_body::<false, false>(p, a, b, c)
    }
}

kernel! {
    /// [`sgemm_blocktile_2d`] for `C = α·Aᵀ·B + β·C` (`A` stored `(k, m)`).
    pub fn sgemm_blocktile_2d_ta(p: GemmParams, a: Global<f32>, b: Global<f32>, c: Global<f32>) {
        blocktile_2d_body::<true, false>(p, a, b, c)
    }
}

kernel! {
    /// [`sgemm_blocktile_2d`] for `C = α·A·Bᵀ + β·C` (`B` stored `(n, k)`).
    pub fn sgemm_blocktile_2d_tb(p: GemmParams, a: Global<f32>, b: Global<f32>, c: Global<f32>) {
        blocktile_2d_body::<false, true>(p, a, b, c)
    }
}

kernel! {
    /// [`sgemm_blocktile_2d`] for `C = α·Aᵀ·Bᵀ + β·C`.
    pub fn sgemm_blocktile_2d_tatb(p: GemmParams, a: Global<f32>, b: Global<f32>, c: Global<f32>) {
        blocktile_2d_body::<true, true>(p, a, b, c)
    }
}
