//! The flat-chunk rung: for short output rows, each block writes one
//! contiguous, line-aligned run of the output.

use crate::arch::simd::f32x4;

use super::index::{input_layout, FlatTile, FLAT_E6144, FLAT_E8192, VEC};
use crate::arch::{block_idx_x, dynamic_shared, sync_threads, thread_idx_x, Global};
use crate::variant_family;

/// The body of the flat-chunk kernel ([`FlatTile`]): `B` (=
/// `g.batch`) loads in flight per thread.
///
/// 1. in rounds of `B` slots per thread: load the chunk's elements of
///    the chunk's columns of each input row (a warp reads 32 consecutive
///    columns of one row; an element outside the chunk stays unread), then
///    store them into the shared tile at their output position;
/// 2. barrier;
/// 3. each thread writes 16-byte groups of the chunk: one shared 16-byte
///    load and one aligned global 16-byte store, or element by element at
///    the matrix's ends.
///
/// # Safety
/// `input` and `output` hold `nx · ny` elements ([`FlatTile::supports`]);
/// `output` starts `out_base < 32` elements past a 128-byte boundary.
#[inline(always)]
unsafe fn flat_chunk<const B: usize>(g: FlatTile, input: Global<f32>, output: Global<f32>, nx: u32, ny: u32, out_base: u32) {
    // SAFETY: every load is of an input element of the chunk (row `p < ny`,
    // column `row + c < nx`); every shared access is a tile position below
    // `rows_max · ny + 4` (the launch's shared memory); every store is an output
    // element of the chunk, 16-byte stores at flat elements `f` with
    // `f + out_base` a multiple of 4 (the chunk starts on a line).
    unsafe {
        assert!(B == g.batch);
        let t = thread_idx_x();
        let r = g.range(block_idx_x(), nx, ny, out_base);
        if r.rows == 0 {
            return; // past the matrix (uniform in the block)
        }
        let smem = dynamic_shared::<f32>();
        let src = input_layout(nx, ny); // (ny, nx)
        let needed = |p: u32, c: u32| -> Option<u32> {
            let at = FlatTile::shared_offset(r, c, p, ny);
            (p < ny && c < r.rows && at >= r.start && at < r.end).then_some(at)
        };
        let mut walk = g.slot(t, ny);
        for _ in 0..g.rounds(ny) {
            let mut v = [0.0f32; B];
            let mut w = walk;
            for x in v.iter_mut() {
                let (p, c) = FlatTile::slot_coords(&w, t);
                if needed(p, c).is_some() {
                    *x = input.read(src.offset(p as usize, r.row + c as usize));
                }
                w.advance();
            }
            for x in v.iter() {
                let (p, c) = FlatTile::slot_coords(&walk, t);
                if let Some(at) = needed(p, c) {
                    smem.store(at as usize, *x);
                }
                walk.advance();
            }
        }
        sync_threads();

        let (start, end) = (r.start as isize, r.end as isize);
        for j in 0..g.store_steps(ny) {
            let at = g.group(r, t, j);
            if at >= start && at + VEC as isize <= end {
                output.write_vec((r.e0 + at) as usize, smem.load_vec::<f32x4>(at as usize));
            } else {
                // (Flat positions before the matrix's start are negative.)
                for a in at..at + VEC as isize {
                    if a >= start && a < end {
                        output.write((r.e0 + a) as usize, smem.load(a as usize));
                    }
                }
            }
        }
    }
}

/// Defines one flat-chunk kernel: [`flat_chunk`] instantiated with the
/// tile configuration `$cfg`.
macro_rules! flat_kernel {
    ($(#[$m:meta])* $name:ident = $cfg:path) => {
        $crate::kernel! {
            $(#[$m])*
            /// Launch: `config().config(nx, ny)` of its [`FlatConfig`];
            /// `out_base`: the output's elements past a 128-byte boundary.
            pub fn $name(input: Global<f32>, output: Global<f32>, nx: u32, ny: u32, out_base: u32) {
                const _: () = assert!($cfg.validate(), "invalid tile");
                flat_chunk::<{ $cfg.batch }>($cfg, input, output, nx, ny, out_base)
            }
        }
    };
}

/// The flat-chunk rung in its chunk sizes, one row each (see
/// [`crate::variants`]): the variant, its kernel, the tile, and the blocks
/// per SM of its launch bounds (0: none).
#[macro_export]
macro_rules! transpose_flat_table {
    ($then:ident) => { $then! {
        /// The flat-chunk transposes (output rows of at most
        /// [`FLAT_MAX_NY`](crate::transpose::index::FLAT_MAX_NY)): rung 11
        /// and larger chunks for the benchmark to compare.
        pub enum FlatConfig: $crate::transpose::index::FlatTile;

        /// Rung 11 — flat chunks, for short output rows: improves on rung
        /// 10, whose warps each write one output row from its line
        /// boundary, so a short row's last line is finished by the next
        /// row's warp (two partial writes of one line). Here a block writes
        /// a contiguous run of the output that starts and ends on line
        /// boundaries ([`FlatTile`](crate::transpose::index::FlatTile)):
        /// every line is written whole by one 16-byte-per-lane warp store;
        /// the block reads the columns of every input row that the run
        /// needs. Chunks of about 6144 elements.
        [cfg(all())] E6144 => transpose_flat_e6144 = flat_kernel!(FLAT_E6144), bounds 0;
        /// Rung 11 with chunks of about 8192 elements: longer runs of each
        /// input row per block, fewer blocks.
        [cfg(all())] E8192 => transpose_flat_e8192 = flat_kernel!(FLAT_E8192), bounds 0;
    } };
}

crate::transpose_flat_table!(variant_family);
