//! PMPP's 3D indexing: one thread per element of a `(plane, row, col)` volume.

use super::index::{volume_blocks, volume_layout, VolumeParams, VOLUME_BLOCK};
use crate::arch::{block_idx_y, block_idx_z, fma, global_x, grid_dim_y, grid_dim_z, thread_idx_y, thread_idx_z, Global};
use crate::kernel;

kernel! {
    /// Per-plane affine map of an f32 volume:
    /// `out[p][r][c] = in[p][r][c] · scale[p] + offset[p]` as one fused
    /// multiply-add (so the CPU reference, `f32::mul_add`, agrees bit for
    /// bit). A 3D grid of 32 × 4 × 2 blocks; element
    /// `plane · rows · cols + row · cols + col` ([`volume_layout`]), guarded
    /// on all three indices because no extent need be a multiple of its
    /// block side. Memory-bound like a copy (8 bytes per element). Volumes
    /// with more block rows or planes than a grid holds in y or z are
    /// walked in grid-sized strides ([`volume_blocks`]).
    pub fn volume_affine(input: Global<f32>, scale: Global<f32>, offset: Global<f32>, output: Global<f32>, v: VolumeParams) {
        let col = global_x();
        let [_, rows, planes] = volume_blocks(v);
        let mut bz = block_idx_z();
        while bz < planes {
            let plane = bz * VOLUME_BLOCK[2] + thread_idx_z();
            let mut by = block_idx_y();
            while by < rows {
                let row = by * VOLUME_BLOCK[1] + thread_idx_y();
                if col < v.cols && row < v.rows && plane < v.planes {
                    let i = volume_layout(v).offset(plane as usize, row as usize, col as usize);
                    output.write(i, fma(input.read(i), scale.read(plane as usize), offset.read(plane as usize)));
                }
                by += grid_dim_y();
            }
            bz += grid_dim_z();
        }
    }
}
