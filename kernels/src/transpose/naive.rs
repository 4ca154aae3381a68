//! The naive rungs: one thread per element, no shared memory.

use super::index::{input_layout, naive_col_coord, naive_row_coord, output_layout};
use crate::arch::{global_row, global_x, Global};
use crate::kernel;

kernel! {
    /// Rung 1 — naive, row order: thread `(x, y)` reads `in[y][x]`
    /// (consecutive lanes read consecutive addresses: coalesced) and writes
    /// `out[x][y]` (consecutive lanes write addresses `ny` apart: one 32-byte
    /// sector per lane). The strided write caps it far below copy bandwidth.
    /// Launch: [`super::index::naive_config`].
    pub fn transpose_naive_row(input: Global<f32>, output: Global<f32>, nx: u32, ny: u32) {
        let (r, c) = naive_row_coord(global_x(), global_row());
        let src = input_layout(nx, ny);
        if src.in_bounds(r, c) {
            let v = input.read(src.offset(r, c));
            output.write(output_layout(nx, ny).offset(c, r), v);
        }
    }
}

kernel! {
    /// Rung 2 — naive, column order: thread `(x, y)` writes `out[y][x]`
    /// (consecutive lanes write consecutive addresses: coalesced) and reads
    /// `in[x][y]` (addresses `nx` apart). Fixes the write side of rung 1 at
    /// the cost of the read side; strided *reads* are cheaper than strided
    /// writes (the read sectors of neighbouring warps hit in L1/L2, a
    /// partial-sector write costs DRAM a read-modify-write), so this is
    /// usually the faster naive rung. Launch: [`super::index::naive_col_config`].
    pub fn transpose_naive_col(input: Global<f32>, output: Global<f32>, nx: u32, ny: u32) {
        let (r, c) = naive_col_coord(global_x(), global_row());
        let dst = output_layout(nx, ny);
        if dst.in_bounds(r, c) {
            let v = input.read(input_layout(nx, ny).offset(c, r));
            output.write(dst.offset(r, c), v);
        }
    }
}
