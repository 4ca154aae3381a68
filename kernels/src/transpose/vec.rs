//! The vectorised rung: 16-byte global accesses, 4 × 4 transposes in
//! registers, XOR-swizzled shared tile.

use crate::arch::simd::f32x4;

use super::index::{self as ix, input_layout, output_layout, VecTile, VEC, VEC4_T32_B64, VEC4_T64_B128, VEC4_T64_B256, VEC4_T64_B64};
use crate::arch::{block_idx_x, block_row, dynamic_shared, shfl_sync_idx_f32, sync_threads, thread_idx_x, Global};
use crate::{kernel, variant_family};

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

/// Elements `k .. k + 4` of `w` (`k` ≤ 4, known at run time only): a
/// shift by 4, by 2 and by 1 as three rounds of selects, written out (an
/// indexed array would live in local memory).
#[inline(always)]
fn window4(w: [f32; 8], k: usize) -> f32x4 {
    let (s4, s2, s1) = (k & 4 != 0, k & 2 != 0, k & 1 != 0);
    let sel = |c: bool, x: f32, y: f32| if c { x } else { y };
    let a = [sel(s4, w[4], w[0]), sel(s4, w[5], w[1]), sel(s4, w[6], w[2]), sel(s4, w[7], w[3]), w[4], w[5], w[6]];
    let b = [sel(s2, a[2], a[0]), sel(s2, a[3], a[1]), sel(s2, a[4], a[2]), sel(s2, a[5], a[3]), sel(s2, a[6], a[4])];
    f32x4::from_array([sel(s1, b[1], b[0]), sel(s1, b[2], b[1]), sel(s1, b[3], b[2]), sel(s1, b[4], b[3])])
}

/// The aligned chunk of `input` starting at element `at` (before the
/// matrix: negative): one 16-byte load where all of it lies inside the
/// `len` elements, else its elements inside one by one (zero outside).
///
/// # Safety
/// `input` holds `len` elements, and `at + base` is a multiple of 4 for
/// the matrix's base shift `base` (so the 16-byte load is aligned).
#[inline(always)]
unsafe fn chunk_at(input: Global<f32>, at: isize, len: usize) -> [f32; VEC] {
    // SAFETY: in bounds by the checks; aligned by the caller.
    unsafe {
        if at >= 0 && at as usize + VEC <= len {
            input.read_vec::<f32x4>(at as usize).to_array()
        } else {
            core::array::from_fn(|e| {
                let i = at + e as isize;
                if i >= 0 && (i as usize) < len { input.read(i as usize) } else { 0.0 }
            })
        }
    }
}

/// [`vec_tile`] for any shape and any 4-byte-aligned matrix start: tiles
/// that lie wholly inside the matrix move aligned 16-byte chunks and
/// shift the elements between neighbouring lanes (one shuffle per
/// element; the row's last lane loads the one extra chunk itself), the
/// rest take [`vec_tile`]'s scalar path. `in_base`, `out_base`: the
/// elements from the last 16-byte boundary to each matrix's element 0
/// (0 for allocations, which start aligned).
///
/// # Safety
/// `input` and `output` hold `nx · ny` elements and start `in_base` and
/// `out_base` elements past a 16-byte boundary.
#[inline(always)]
unsafe fn vec_tile_realigned<const J: usize>(g: VecTile, input: Global<f32>, output: Global<f32>, nx: u32, ny: u32, in_base: u32, out_base: u32) {
    // SAFETY: as `vec_tile`; the chunk loads are bounds-checked by
    // `chunk_at`, the chunk stores lie inside the tile's output rows.
    unsafe {
        let src = input_layout(nx, ny);
        let (r0, c0) = g.input_origin(block_idx_x(), block_row());
        if !src.in_bounds(r0 + g.tile - 1, c0 + g.tile - 1) {
            // An edge tile (uniform in the block): scalar accesses.
            return vec_tile::<J, false>(g, input, output, nx, ny);
        }
        let t = thread_idx_x();
        let lane = t % 32;
        let dst = output_layout(nx, ny);
        let len = src.size();
        let last = g.chunks_per_row() - 1;
        let smem = dynamic_shared::<f32>();

        // Every chunk of the tile inside the matrix (all tiles but the
        // first and the last few): 16-byte loads with no bounds check.
        let inner = src.offset(r0, c0) >= VEC && src.offset(r0 + g.tile - 1, c0 + g.tile) + VEC <= len;
        let chunk = |at: isize| if inner { input.read_vec::<f32x4>(at as usize).to_array() } else { chunk_at(input, at, len) };
        let mut v = [[f32x4::splat(0.0); VEC]; J];
        for (j, rows) in v.iter_mut().enumerate() {
            let (mr, mc) = g.micro_block(t, j);
            for (i, row) in rows.iter_mut().enumerate() {
                let seg = src.offset(r0 + mr * VEC + i, c0);
                let s = ix::chunk_shift(seg, in_base);
                let at = ix::realigned_load_start(seg, mc, s);
                let own = chunk(at);
                let extra = if mc == last && s != 0 { chunk(at + VEC as isize) } else { [0.0; VEC] };
                let w: [f32; 8] = core::array::from_fn(|e| {
                    if e < VEC {
                        own[e]
                    } else {
                        let x = shfl_sync_idx_f32(own[e - VEC], lane + 1);
                        if mc == last { extra[e - VEC] } else { x }
                    }
                });
                *row = window4(w, ix::realigned_pick(s, 0));
            }
        }
        for (j, rows) in v.iter().enumerate() {
            let (mr, mc) = g.micro_block(t, j);
            for (i, col) in transpose4(*rows).iter().enumerate() {
                smem.store_vec(g.shared_offset(mc * VEC + i, mr * VEC), *col);
            }
        }
        sync_threads();

        let (o0, p0) = g.output_origin(block_idx_x(), block_row());
        for s in 0..VEC * J {
            let (row, col) = g.store_chunk(t, s);
            let c = col / VEC;
            let x = smem.load_vec::<f32x4>(g.shared_offset(row, col));
            let seg = dst.offset(o0 + row, p0);
            let tt = ix::chunk_shift(seg, out_base);
            let w: [f32; 8] = core::array::from_fn(|e| if e < VEC { shfl_sync_idx_f32(x[e], lane.wrapping_sub(1)) } else { x[e - VEC] });
            let chunk = window4(w, ix::realigned_store_pick(tt, 0));
            let at = (seg + col) as isize - tt as isize;
            let (lo, hi) = ix::realigned_store_span(c, tt);
            if lo == 0 && hi == VEC {
                output.write_vec(at as usize, chunk);
            } else {
                for e in 0..VEC {
                    if e >= lo && e < hi {
                        output.write((at + e as isize) as usize, chunk[e]);
                    }
                }
            }
            if c == last {
                for e in 0..VEC {
                    if e + tt >= VEC {
                        output.write(seg + col + e, x[e]);
                    }
                }
            }
        }
    }
}

/// Defines one vectorised kernel: [`vec_tile`] with 16-byte accesses,
/// instantiated with the tile configuration `$cfg`.
macro_rules! vec_kernel {
    ($(#[$m:meta])* $name:ident = $cfg:path) => {
        $crate::kernel! {
            $(#[$m])*
            /// Launch: `config().config(nx, ny)` of its [`VecConfig`]; needs
            /// `nx`, `ny` multiples of 4.
            pub fn $name(input: Global<f32>, output: Global<f32>, nx: u32, ny: u32) {
                const _: () = assert!($cfg.validate(), "invalid tile");
                vec_tile::<{ $cfg.blocks_per_thread() }, true>($cfg, input, output, nx, ny)
            }
        }
    };
}

/// The vectorised rung and its configurations, one row each (see
/// [`crate::variants`]): the variant, its kernel, the tile, and the blocks
/// per SM of its launch bounds (0: none).
#[macro_export]
macro_rules! transpose_vec_table {
    ($then:ident) => { $then! {
        /// The transposes with 16-byte global accesses (`nx`, `ny`
        /// multiples of 4): rung 6 and further tile configurations (tile
        /// side, threads) for the benchmark to compare.
        pub enum VecConfig: $crate::transpose::index::VecTile;

        /// Rung 6 — vectorised tile (64 × 64, 256 threads, one 4 × 4
        /// micro-block per thread): every global access is a 16-byte
        /// `ld/st.global.v4`, so each thread keeps 64 bytes of loads in
        /// flight with a quarter of rung 4's instructions; the 4 × 4
        /// transpose happens in registers and shared memory only exchanges
        /// whole 16-byte rows, XOR-swizzled to stay conflict-free.
        /// Expected: the closest rung to copy bandwidth.
        [cfg(all())] T64B256 => transpose_vec4_t64_b256 = vec_kernel!(VEC4_T64_B256), bounds 0;
        /// Configuration of rung 6: 64 × 64 tile, 128 threads, two
        /// micro-blocks per thread (128 bytes of loads in flight per
        /// thread).
        [cfg(all())] T64B128 => transpose_vec4_t64_b128 = vec_kernel!(VEC4_T64_B128), bounds 0;
        /// Configuration of rung 6: 64 × 64 tile, 64 threads, four
        /// micro-blocks per thread (256 bytes of loads in flight per
        /// thread).
        [cfg(all())] T64B64 => transpose_vec4_t64_b64 = vec_kernel!(VEC4_T64_B64), bounds 0;
        /// Configuration of rung 6: 32 × 32 tile, 64 threads, one
        /// micro-block per thread (smaller tiles: more blocks, less waste
        /// on edge tiles).
        [cfg(all())] T32B64 => transpose_vec4_t32_b64 = vec_kernel!(VEC4_T32_B64), bounds 0;
    } };
}

crate::transpose_vec_table!(variant_family);

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

kernel! {
    /// Rung 7 — rung 6 for any shape: the 64 × 64, 256-thread tile of
    /// [`transpose_vec4_t64_b256`] whose rows start anywhere in a 16-byte
    /// chunk (sides that are not multiples of 4, or a matrix at an
    /// unaligned address). Improves on [`transpose_vec4u_t64_b256`], whose
    /// four scalar accesses per vector cost the load/store units four
    /// instructions where rung 6 issues one: inner tiles still move whole
    /// aligned 16-byte chunks and shift the elements to their places
    /// through warp shuffles (ALU work, which a transpose has to spare).
    /// Expected: rung 6's bandwidth on any shape.
    /// Launch: [`ix::VEC4_T64_B256`]`.config(nx, ny)`; `in_base`,
    /// `out_base` from [`ix::chunk_shift`]'s definition.
    pub fn transpose_vec4r_t64_b256(input: Global<f32>, output: Global<f32>, nx: u32, ny: u32, in_base: u32, out_base: u32) {
        vec_tile_realigned::<{ ix::VEC4_T64_B256.blocks_per_thread() }>(ix::VEC4_T64_B256, input, output, nx, ny, in_base, out_base)
    }
}
