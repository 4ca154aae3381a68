//! The thin kernels: matrices with a few columns (tall) or a few rows
//! (wide), where a square tile would leave most of its threads idle.

use super::index::{self as ix, input_layout, output_layout, DivWalk, ThinTile};
use crate::arch::{block_idx_x, dynamic_shared, sync_threads, thread_idx_x, Global};
use crate::kernel;

/// The body of both thin kernels: block `b` moves lines
/// `b · lines .. + rb` of the long side. `TALL`: the input rows are the
/// contiguous run (read linearly), the output the strided side; otherwise
/// (wide) the input is the strided side and the output rows the contiguous
/// run. `P` (= `g.per_thread()`) elements per thread, every load of a phase
/// issued before its values are used.
///
/// # Safety
/// `input` and `output` hold `nx · ny` elements; the short side is at most
/// [`ix::THIN_MAX`].
#[inline(always)]
unsafe fn thin_tile<const TALL: bool, const P: usize>(g: ThinTile, input: Global<f32>, output: Global<f32>, nx: u32, ny: u32) {
    // SAFETY: the host launcher validated the buffer lengths (nx·ny) and
    // the shape; every access below is guarded by `i < n` (the block's
    // elements), which keeps it inside the matrix.
    unsafe {
        assert!(P == g.per_thread());
        let (s, l) = if TALL { (nx, ny) } else { (ny, nx) };
        let lines = g.lines(s);
        let r0 = block_idx_x() * lines;
        let rb = if l - r0 < lines { l - r0 } else { lines };
        let n = rb * s;
        let (t, step) = (thread_idx_x(), g.threads as u32);
        let tile = g.shared_layout(s);
        let smem = dynamic_shared::<f32>();
        // The contiguous run starts at line r0; the strided side's run of
        // position c starts at (c, r0) of the (s, l) matrix.
        let run = if TALL { input_layout(nx, ny).offset(r0 as usize, 0) } else { output_layout(nx, ny).offset(r0 as usize, 0) };
        let strided = if TALL { output_layout(nx, ny) } else { input_layout(nx, ny) };
        let mut v = [0.0f32; P];

        // Phase 1: global → registers → shared.
        if TALL {
            for (k, v) in v.iter_mut().enumerate() {
                let i = t + k as u32 * step;
                if i < n {
                    *v = input.read(run + i as usize);
                }
            }
            let mut w = DivWalk::new(t, step, s); // (line, position)
            for (k, v) in v.iter().enumerate() {
                if t + k as u32 * step < n {
                    smem.store(tile.offset(w.q as usize, w.r as usize), *v);
                }
                w.advance();
            }
        } else {
            let mut w = DivWalk::new(t, step, rb); // (position, line)
            for (k, v) in v.iter_mut().enumerate() {
                if t + k as u32 * step < n {
                    *v = input.read(strided.offset(w.q as usize, (r0 + w.r) as usize));
                }
                w.advance();
            }
            let mut w = DivWalk::new(t, step, rb);
            for (k, v) in v.iter().enumerate() {
                if t + k as u32 * step < n {
                    smem.store(tile.offset(w.r as usize, w.q as usize), *v);
                }
                w.advance();
            }
        }
        sync_threads();

        // Phase 2: shared → global.
        if TALL {
            let mut w = DivWalk::new(t, step, rb); // (position, line)
            for k in 0..P {
                if t + k as u32 * step < n {
                    let x = smem.load(tile.offset(w.r as usize, w.q as usize));
                    output.write(strided.offset(w.q as usize, (r0 + w.r) as usize), x);
                }
                w.advance();
            }
        } else {
            let mut w = DivWalk::new(t, step, s); // (line, position)
            for k in 0..P {
                let i = t + k as u32 * step;
                if i < n {
                    output.write(run + i as usize, smem.load(tile.offset(w.q as usize, w.r as usize)));
                }
                w.advance();
            }
        }
    }
}

kernel! {
    /// Thin transpose of a tall input (`nx ≤ THIN_MAX` columns, many
    /// rows): each block reads a contiguous run of whole input rows and
    /// writes `nx` output runs of the same length. Every thread is busy
    /// whatever `nx`; both global sides coalesced.
    /// Launch: [`ix::THIN`]`.config(nx, ny)`.
    pub fn transpose_thin_tall(input: Global<f32>, output: Global<f32>, nx: u32, ny: u32) {
        thin_tile::<true, { ix::THIN.per_thread() }>(ix::THIN, input, output, nx, ny)
    }
}

kernel! {
    /// Thin transpose of a wide input (`ny ≤ THIN_MAX` rows, many
    /// columns): each block reads `ny` input runs and writes one contiguous
    /// run of whole output rows. Launch: [`ix::THIN`]`.config(nx, ny)`.
    pub fn transpose_thin_wide(input: Global<f32>, output: Global<f32>, nx: u32, ny: u32) {
        thin_tile::<false, { ix::THIN.per_thread() }>(ix::THIN, input, output, nx, ny)
    }
}
