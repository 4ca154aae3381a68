//! The line-aligned rung: every output row segment a block writes starts
//! on a 128-byte boundary, for any shape.

use crate::arch::simd::f32x4;

use super::index::{input_layout, output_layout, row_shift, LineTile, LINES_W128, LINES_W128_G256, VEC};
use crate::arch::{block_idx_x, dynamic_shared, sync_threads, thread_idx_x, Global};
use crate::variant_family;

/// The body of the line-aligned kernel: `L` (= `g.loads_per_thread()`)
/// loads and `S` (= `g.stores_per_thread()`) 16-byte stores per thread.
///
/// 1. each thread loads the span rows its block column needs from its
///    input column (all `L` loads issued before any is used; an element
///    the output row does not need, or outside the matrix, stays 0);
/// 2. stores them into the shared tile in output orientation;
/// 3. barrier;
/// 4. each warp writes one output row's segment: lane `l` reads columns
///    `4l .. 4l + 4` from shared memory and stores them with one 16-byte
///    store (aligned: the segment starts on a line boundary), or element
///    by element where the segment crosses the row's first or last column.
///
/// # Safety
/// `input` and `output` hold `nx · ny` elements; `output` starts
/// `out_base` elements past a 128-byte boundary.
#[inline(always)]
unsafe fn line_tile<const L: usize, const S: usize>(g: LineTile, input: Global<f32>, output: Global<f32>, nx: u32, ny: u32, out_base: u32) {
    // SAFETY: the host launcher validated the buffer lengths (nx·ny); every
    // load is inside the matrix by the bounds checks, every 16-byte store
    // lies inside one output row and is 16-byte aligned (its element's
    // offset plus `out_base` is a multiple of 4 by `row_shift`).
    unsafe {
        assert!(L == g.loads_per_thread() && S == g.stores_per_thread());
        let t = thread_idx_x();
        let (rows, cols) = g.blocks(nx, ny);
        let (b, j) = g.block_coords(block_idx_x(), rows, cols);
        let src = input_layout(nx, ny); // (ny, nx)
        let dst = output_layout(nx, ny); // (nx, ny)
        let smem = dynamic_shared::<f32>();
        let o0 = b as usize * g.rows;
        let p0 = g.span_start(j);
        let (nx, ny) = (nx as usize, ny as usize);
        // Every span row and block row inside the matrix (all blocks but
        // those on the edges): no bounds checks on the loads.
        let inner = p0 >= 0 && p0 as usize + g.span() <= ny && o0 + g.rows <= nx;

        let c = g.load_column(t);
        let s = row_shift(o0 + c, ny as u32, out_base);
        let mut v = [0.0f32; L];
        if inner {
            // A thread's loads are `load_step` span rows apart: one offset
            // and a constant step.
            let first = src.offset((p0 + g.load_row(t, 0) as isize) as usize, o0 + c);
            let step = g.load_step() * src.row_stride;
            for (k, x) in v.iter_mut().enumerate() {
                if g.needs(g.load_row(t, k), s) {
                    *x = input.read(first + k * step);
                }
            }
        } else {
            for (k, x) in v.iter_mut().enumerate() {
                let r = g.load_row(t, k);
                let p = p0 + r as isize;
                if g.needs(r, s) && p >= 0 && src.in_bounds(p as usize, o0 + c) {
                    *x = input.read(src.offset(p as usize, o0 + c));
                }
            }
        }
        for (k, x) in v.iter().enumerate() {
            smem.store(g.shared_offset(c, g.load_row(t, k)), *x);
        }
        sync_threads();

        for k in 0..S {
            let (c, q) = g.store_chunk(t, k);
            let o = o0 + c;
            if o >= nx {
                continue;
            }
            let s = row_shift(o, ny as u32, out_base);
            let x: [f32; VEC] = core::array::from_fn(|i| smem.load(g.shared_offset(c, LineTile::span_row(q + i, s))));
            let p = g.output_column(j, q, s);
            if p >= 0 && p as usize + VEC <= ny {
                output.write_vec(dst.offset(o, p as usize), f32x4::from_array(x));
            } else {
                for (i, x) in x.iter().enumerate() {
                    let pi = p + i as isize;
                    if pi >= 0 && (pi as usize) < ny {
                        output.write(dst.offset(o, pi as usize), *x);
                    }
                }
            }
        }
    }
}

/// Defines one line-aligned kernel: [`line_tile`] instantiated with the
/// tile configuration `$cfg`.
macro_rules! lines_kernel {
    ($(#[$m:meta])* $name:ident = $cfg:path) => {
        $crate::kernel! {
            $(#[$m])*
            /// Launch: `config().config(nx, ny)` of its [`LinesConfig`];
            /// `out_base`: the output's elements past a 128-byte boundary.
            pub fn $name(input: Global<f32>, output: Global<f32>, nx: u32, ny: u32, out_base: u32) {
                const _: () = assert!($cfg.validate(), "invalid tile");
                line_tile::<{ $cfg.loads_per_thread() }, { $cfg.stores_per_thread() }>($cfg, input, output, nx, ny, out_base)
            }
        }
    };
}

/// The line-aligned rung and its launch orders, one row each (see
/// [`crate::variants`]): the variant, its kernel, the tile, and the blocks
/// per SM of its launch bounds (0: none).
#[macro_export]
macro_rules! transpose_lines_table {
    ($then:ident) => { $then! {
        /// The line-aligned transposes (any shape): rung 10 and further
        /// launch orders for the benchmark to compare.
        pub enum LinesConfig: $crate::transpose::index::LineTile;

        /// Rung 10 — line-aligned stores: for sides that are not multiples
        /// of 4 (or of 32), every output row starts at another place in its
        /// 128-byte line, and a tile whose segments follow the matrix's
        /// columns writes the lines at both ends of each segment in two
        /// halves from two blocks; such partial-line writes cost far more
        /// than unaligned reads (a copy with its destination one element off
        /// runs well below one with its source off). Here each block's
        /// segment of an output row starts on the row's own line boundary
        /// ([`LineTile`]): every warp stores whole aligned lines with 16-byte
        /// stores; the price is a span of `width + 32` input rows per block,
        /// each element loaded only where its output row needs it.
        /// Expected: the aligned rungs' bandwidth on any shape.
        [cfg(all())] W128 => transpose_lines_w128 = lines_kernel!(LINES_W128), bounds 0;
        /// Rung 10 launched 256 block rows at a time (block row fastest):
        /// the blocks that share input lines at their common columns run
        /// together, so the second read of such a line hits the L2; for
        /// long output rows (the block-row order suits short ones, whose
        /// row ends share lines between neighbouring rows).
        [cfg(all())] W128G256 => transpose_lines_w128_g256 = lines_kernel!(LINES_W128_G256), bounds 0;
    } };
}

crate::transpose_lines_table!(variant_family);
