//! The vectorised rung: 16-byte global accesses, 4 × 4 transposes in
//! registers, XOR-swizzled shared tile.

use crate::arch::simd::f32x4;

use super::index::{self as ix, input_layout, output_layout, VecTile, VEC};
use crate::arch::{block_idx_x, block_row, dynamic_shared, sync_threads, thread_idx_x, Global};
use crate::kernel;

/// Transposes a 4 × 4 block held as 4 row vectors.
#[inline(always)]
fn transpose4(v: [f32x4; 4]) -> [f32x4; 4] {
    core::array::from_fn(|i| f32x4::from_array([v[0][i], v[1][i], v[2][i], v[3][i]]))
}

/// The body every vectorised kernel instantiates: `J` (= `g.blocks_per_thread()`)
/// micro-blocks per thread.
///
/// 1. each thread loads its `J` micro-blocks (4 × 16-byte loads each, all
///    issued before any is used);
/// 2. transposes each in registers and stores its 4 rows into the shared
///    tile in output orientation (16-byte stores, swizzled);
/// 3. barrier;
/// 4. copies `4J` 16-byte chunks from shared memory to the output rows.
///
/// `ALIGNED` (checked by the host): `nx` and `ny` are multiples of 4, so
/// each row starts 16-byte aligned and a micro-block is either fully
/// inside the matrix or fully outside; every access is guarded with the
/// layouts' `in_bounds` on the last element of the vector. Otherwise the
/// global side moves each vector as 4 scalar accesses (the same addresses,
/// the same sectors per warp), each guarded on edge tiles; the shared side
/// is unchanged (elements outside the matrix stay zero there and are never
/// written out).
///
/// # Safety
/// `input` and `output` hold `nx · ny` elements; with `ALIGNED`, `nx`, `ny`
/// multiples of 4.
#[inline(always)]
unsafe fn vec_tile<const J: usize, const ALIGNED: bool>(g: VecTile, input: Global<f32>, output: Global<f32>, nx: u32, ny: u32) {
    // SAFETY: the host launcher validated the buffer lengths (nx·ny);
    // every access below is guarded by the layouts' in_bounds.
    unsafe {
        assert!(J == g.blocks_per_thread());
        let t = thread_idx_x();
        let (bx, by) = (block_idx_x(), block_row());
        let src = input_layout(nx, ny); // (ny, nx)
        let dst = output_layout(nx, ny); // (nx, ny)
        let smem = dynamic_shared::<f32>();

        let (r0, c0) = g.input_origin(bx, by);
        let full = src.in_bounds(r0 + g.tile - 1, c0 + g.tile - 1);
        let mut v = [[f32x4::splat(0.0); VEC]; J];
        for (j, rows) in v.iter_mut().enumerate() {
            let (mr, mc) = g.micro_block(t, j);
            for (i, row) in rows.iter_mut().enumerate() {
                let (r, c) = (r0 + mr * VEC + i, c0 + mc * VEC);
                if ALIGNED {
                    if full || src.in_bounds(r, c + VEC - 1) {
                        *row = input.read_vec::<f32x4>(src.offset(r, c));
                    }
                } else {
                    for e in 0..VEC {
                        if full || src.in_bounds(r, c + e) {
                            row[e] = input.read(src.offset(r, c + e));
                        }
                    }
                }
            }
        }
        for (j, rows) in v.iter().enumerate() {
            let (mr, mc) = g.micro_block(t, j);
            let cols = transpose4(*rows);
            for (i, col) in cols.iter().enumerate() {
                // Shared row = tile column mc·4 + i, holding tile rows mr·4 .. +4.
                if !ALIGNED || full || src.in_bounds(r0 + mr * VEC + VEC - 1, c0 + mc * VEC + i) {
                    smem.store_vec(g.shared_offset(mc * VEC + i, mr * VEC), *col);
                }
            }
        }
        sync_threads();

        let (o0, p0) = g.output_origin(bx, by);
        for s in 0..VEC * J {
            let (row, col) = g.store_chunk(t, s);
            if ALIGNED {
                if full || dst.in_bounds(o0 + row, p0 + col + VEC - 1) {
                    let x = smem.load_vec::<f32x4>(g.shared_offset(row, col));
                    output.write_vec(dst.offset(o0 + row, p0 + col), x);
                }
            } else if full || dst.in_bounds(o0 + row, p0 + col) {
                let x = smem.load_vec::<f32x4>(g.shared_offset(row, col));
                for e in 0..VEC {
                    if full || dst.in_bounds(o0 + row, p0 + col + e) {
                        output.write(dst.offset(o0 + row, p0 + col + e), x[e]);
                    }
                }
            }
        }
    }
}

kernel! {
    /// Rung 6 — vectorised tile (64 × 64, 256 threads, one 4 × 4
    /// micro-block per thread): every global access is a 16-byte
    /// `ld/st.global.v4`, so each thread keeps 64 bytes of loads in flight
    /// with a quarter of rung 4's instructions; the 4 × 4 transpose happens
    /// in registers and shared memory only exchanges whole 16-byte rows,
    /// XOR-swizzled to stay conflict-free. Needs `nx`, `ny` multiples of 4.
    /// Expected: the closest rung to copy bandwidth.
    /// Launch: [`ix::VEC4_T64_B256`]`.config(nx, ny)`.
    pub fn transpose_vec4_t64_b256(input: Global<f32>, output: Global<f32>, nx: u32, ny: u32) {
        vec_tile::<{ ix::VEC4_T64_B256.blocks_per_thread() }, true>(ix::VEC4_T64_B256, input, output, nx, ny)
    }
}

kernel! {
    /// Configuration of rung 6: 64 × 64 tile, 128 threads, two micro-blocks
    /// per thread (128 bytes of loads in flight per thread).
    pub fn transpose_vec4_t64_b128(input: Global<f32>, output: Global<f32>, nx: u32, ny: u32) {
        vec_tile::<{ ix::VEC4_T64_B128.blocks_per_thread() }, true>(ix::VEC4_T64_B128, input, output, nx, ny)
    }
}

kernel! {
    /// Configuration of rung 6: 64 × 64 tile, 64 threads, four micro-blocks
    /// per thread (256 bytes of loads in flight per thread).
    pub fn transpose_vec4_t64_b64(input: Global<f32>, output: Global<f32>, nx: u32, ny: u32) {
        vec_tile::<{ ix::VEC4_T64_B64.blocks_per_thread() }, true>(ix::VEC4_T64_B64, input, output, nx, ny)
    }
}

kernel! {
    /// Configuration of rung 6: 32 × 32 tile, 64 threads, one micro-block per
    /// thread (smaller tiles: more blocks, less waste on edge tiles).
    pub fn transpose_vec4_t32_b64(input: Global<f32>, output: Global<f32>, nx: u32, ny: u32) {
        vec_tile::<{ ix::VEC4_T32_B64.blocks_per_thread() }, true>(ix::VEC4_T32_B64, input, output, nx, ny)
    }
}

kernel! {
    /// Rung 6 for any shape: the 64 × 64, 256-thread tile of
    /// [`transpose_vec4_t64_b256`] whose global accesses are 4 scalar
    /// loads and stores per vector (rows of an input whose sides are not
    /// multiples of 4 do not start 16-byte aligned). A warp still touches
    /// the same sectors as the vector rung, the register transposes and the
    /// swizzled shared tile are unchanged.
    /// Launch: [`ix::VEC4_T64_B256`]`.config(nx, ny)`.
    pub fn transpose_vec4u_t64_b256(input: Global<f32>, output: Global<f32>, nx: u32, ny: u32) {
        vec_tile::<{ ix::VEC4_T64_B256.blocks_per_thread() }, false>(ix::VEC4_T64_B256, input, output, nx, ny)
    }
}
