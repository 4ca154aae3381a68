//! PMPP's 3D indexing: one thread per element of a `(plane, row, col)` volume.

use super::index::{volume_layout, VolumeParams};
use crate::arch::{fma, global_x, global_y, global_z, Global};
use crate::kernel;

kernel! {
    /// Per-plane affine map of an f32 volume:
    /// `out[p][r][c] = in[p][r][c] · scale[p] + offset[p]` as one fused
    /// multiply-add (so the CPU reference, `f32::mul_add`, agrees bit for
    /// bit). A 3D grid of 32 × 4 × 2 blocks; element
    /// `plane · rows · cols + row · cols + col` ([`volume_layout`]), guarded
    /// on all three indices because no extent need be a multiple of its
    /// block side. Memory-bound like a copy (8 bytes per element).
    pub fn volume_affine(input: Global<f32>, scale: Global<f32>, offset: Global<f32>, output: Global<f32>, v: VolumeParams) {
        let (col, row, plane) = (global_x(), global_y(), global_z());
        if col < v.cols && row < v.rows && plane < v.planes {
            let i = volume_layout(v).offset(plane as usize, row as usize, col as usize);
            output.write(i, fma(input.read(i), scale.read(plane as usize), offset.read(plane as usize)));
        }
    }
}
