//! The naive rungs: one thread per element, no shared memory.

use super::index::{input_layout, output_layout};
use crate::arch::{global_x, global_y, Global};
use crate::kernel;

kernel! {
    /// Naive, row order: thread `(x, y)` reads `in[y][x]` (consecutive lanes
    /// read consecutive addresses: coalesced) and writes `out[x][y]`
    /// (consecutive lanes write addresses `ny` apart: one sector per lane).
    /// The strided write caps it far below copy bandwidth.
    pub fn transpose_naive_row(input: Global<f32>, output: Global<f32>, nx: u32, ny: u32) {
        let (ix, iy) = (global_x(), global_y());
        let src = input_layout(nx, ny);
        if src.in_bounds(iy as usize, ix as usize) {
            let v = input.read(src.offset(iy as usize, ix as usize));
            output.write(output_layout(nx, ny).offset(ix as usize, iy as usize), v);
        }
    }
}
