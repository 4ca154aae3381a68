//! The split-K reduction pass: one thread per element of `C` sums the
//! element's partial products from a [`SplitKWorkspace`] in slice order
//! (`s = 0, 1, …`: the same order every run, so the result does not depend
//! on scheduling), then hands the sum to the engine's epilogue (the SIMT
//! ladder's α/β, `sgemm_split_k_reduce`).
//! The wgmma engine sums its parts inside its own kernel (the last part of
//! a tile to finish adds the others, [`super::wgmma`]).

use super::index::SplitKWorkspace;
use crate::arch::{global_row, global_x, Global};
use crate::launch::LaunchConfig;

/// Threads per block of the reduction.
pub const REDUCE_THREADS: u32 = 256;

/// Grid of the reduction over `rows × cols` matrices, `batch` of them:
/// one thread per element, `REDUCE_THREADS × 1` blocks covering the
/// columns, the rows of every matrix on y (folded into z beyond the
/// grid's y limit).
pub const fn reduce_config(rows: u32, cols: u32, batch: u32) -> LaunchConfig {
    LaunchConfig::cover_2d(cols, rows * batch, [REDUCE_THREADS, 1]).fold_rows()
}

/// The reduction body: the calling thread's element (x: column; y: row
/// of the batch's stacked matrices, [`reduce_config`]) summed over the
/// workspace's slices in order: `Some((matrix, row, column, sum))` for the
/// caller's epilogue to store, `None` for a thread past the elements.
///
/// # Safety
/// `ws` holds the workspace (`w.cosize()` elements).
#[inline(always)]
pub unsafe fn split_k_sum(ws: Global<f32>, w: SplitKWorkspace) -> Option<(usize, usize, usize, f32)> {
    let (col, r) = (global_x() as usize, global_row() as usize);
    if col >= w.cols || r >= w.rows * w.batch {
        return None;
    }
    // The matrix and its row: a 32-bit division (the grid's rows fit),
    // none for one matrix (every SGEMM and unbatched GEMM).
    let (z, row) = if w.batch == 1 { (0, r) } else { ((r as u32 / w.rows as u32) as usize, (r as u32 % w.rows as u32) as usize) };
    let mut sum = 0f32;
    for s in 0..w.slices {
        sum += unsafe { ws.read(w.offset(z, s, row, col)) };
    }
    Some((z, row, col, sum))
}
