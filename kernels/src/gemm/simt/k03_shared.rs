//! Rung 3: shared-memory tiling.

use super::{write_c, GemmParams};
use crate::arch::{dynamic_shared, fma, sync_threads, thread_idx_x, thread_idx_y, block_idx_x, block_idx_y, Global};
use crate::kernel;
use crate::launch::LaunchConfig;
use crate::layout::Layout2;

/// Side of the square tiles of [`sgemm_shared`] (and of its 32 × 32 block).
pub const SHARED_TILE: usize = 32;

/// The `A` and `B` tiles in shared memory: `(32, 32)` row-major each, `B`'s
/// right after `A`'s.
pub const fn shared_tile() -> Layout2 {
    Layout2::row_major(SHARED_TILE, SHARED_TILE)
}

/// One 32 × 32 block per 32 × 32 tile of `C`, 8 KiB of shared memory.
pub const fn shared_config(p: &GemmParams) -> LaunchConfig {
    let t = SHARED_TILE as u32;
    LaunchConfig::cover_2d(p.n, p.m, [t, t]).with_shared(2 * shared_tile().cosize() as u32 * 4)
}

kernel! {
    /// Shared-memory tiling: the block stages a 32 × 32 tile of `A` and of
    /// `B` in shared memory (one element per thread, coalesced), then each
    /// thread runs its 32-long dot product from shared memory. Global
    /// traffic drops 32× against rung 2. Reads of `As[ty][d]` are a
    /// broadcast, of `Bs[d][tx]` 32 consecutive words: conflict-free.
    /// Expected: ~1.5–2× rung 2; now limited by shared-memory loads (two
    /// loads per FMA).
    pub fn sgemm_shared(p: GemmParams, a: Global<f32>, b: Global<f32>, c: Global<f32>) {
        let (tx, ty) = (thread_idx_x() as usize, thread_idx_y() as usize);
        let (row, col) = (block_idx_y() as usize * SHARED_TILE + ty, block_idx_x() as usize * SHARED_TILE + tx);
        let (la, lb, lc) = (p.a(), p.b(), p.c());
        let tile = shared_tile();
        let sa = dynamic_shared::<f32>();
        let sb = sa.offset(tile.cosize());
        let mut acc = 0.0f32;
        let mut k0 = 0;
        while k0 < p.k as usize {
            // Zero-fill outside the matrices: the dot product needs no guard.
            let va = if la.in_bounds(row, k0 + tx) { a.read(la.offset(row, k0 + tx)) } else { 0.0 };
            let vb = if lb.in_bounds(k0 + ty, col) { b.read(lb.offset(k0 + ty, col)) } else { 0.0 };
            sa.store(tile.offset(ty, tx), va);
            sb.store(tile.offset(ty, tx), vb);
            sync_threads();
            for d in 0..SHARED_TILE {
                acc = fma(sa.load(tile.offset(ty, d)), sb.load(tile.offset(d, tx)), acc);
            }
            sync_threads();
            k0 += SHARED_TILE;
        }
        if lc.in_bounds(row, col) {
            write_c(&p, c, lc.offset(row, col), acc);
        }
    }
}
