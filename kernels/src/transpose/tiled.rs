//! The shared-memory rungs with scalar (4-byte) accesses.

use super::index::{input_layout, output_layout, SmemTile, SMEM, SMEM_PAD, SMEM_PAD_B32X16, SMEM_PAD_B32X32, SMEM_PAD_T64, SMEM_PAD_UNROLL2, SMEM_PAD_UNROLL2_B32X16};
use crate::arch::{block_idx_x, block_row, dynamic_shared, sync_threads, thread_idx_x, thread_idx_y, thread_linear, Global};
use crate::variant_family;

/// The body every scalar tiled kernel instantiates: `N` (= `g.per_thread()`)
/// elements per thread, all loaded into registers before any is stored so
/// that `N` loads per thread are in flight at once.
///
/// 1. each thread loads its `N` input elements (warp: 32 consecutive
///    elements of one input row per step — coalesced);
/// 2. stores them to the shared tile at the same tile coordinates;
/// 3. barrier;
/// 4. reads `tile[icol][irow]` for its `N` output elements (the
///    `bidx → (irow, icol)` remapping) and writes them — a warp writes 32
///    consecutive elements of one output row per step.
///
/// Every access is guarded by the layouts' `in_bounds`; a tile that lies
/// fully inside the matrix skips the per-element checks. No thread returns
/// before the barrier.
///
/// # Safety
/// `input` and `output` hold `nx · ny` elements.
#[inline(always)]
unsafe fn smem_tile<const N: usize>(g: SmemTile, input: Global<f32>, output: Global<f32>, nx: u32, ny: u32) {
    // SAFETY: the host launcher validated the buffer lengths (nx·ny);
    // every access below is guarded by the layouts' in_bounds.
    unsafe {
        assert!(N == g.per_thread());
        let (tx, ty) = (thread_idx_x(), thread_idx_y());
        let (bx, by) = (block_idx_x(), block_row());
        let src = input_layout(nx, ny); // (ny, nx)
        let dst = output_layout(nx, ny); // (nx, ny)
        let tile = g.shared_layout(); // (rows, cols + pad)
        let smem = dynamic_shared::<f32>();

        let (r0, c0) = g.input_origin(bx, by);
        let full = src.in_bounds(r0 + g.rows - 1, c0 + g.cols - 1);
        let mut v = [0.0f32; N];
        for (s, v) in v.iter_mut().enumerate() {
            let (r, c) = g.load_coord(tx, ty, s);
            if full || src.in_bounds(r0 + r, c0 + c) {
                *v = input.read(src.offset(r0 + r, c0 + c));
            }
        }
        for (s, v) in v.iter().enumerate() {
            let (r, c) = g.load_coord(tx, ty, s);
            if full || src.in_bounds(r0 + r, c0 + c) {
                smem.store(tile.offset(r, c), *v);
            }
        }
        sync_threads();

        let (o0, p0) = g.output_origin(bx, by);
        let bidx = thread_linear();
        for s in 0..N {
            let (irow, icol) = g.store_coord(bidx, s);
            if full || dst.in_bounds(o0 + irow, p0 + icol) {
                output.write(dst.offset(o0 + irow, p0 + icol), smem.load(tile.offset(icol, irow)));
            }
        }
    }
}

/// Defines one scalar tiled kernel: [`smem_tile`] instantiated with the
/// tile configuration `$cfg`.
macro_rules! smem_kernel {
    ($(#[$m:meta])* $name:ident = $cfg:path) => {
        $crate::kernel! {
            $(#[$m])*
            /// Launch: `config().config(nx, ny)` of its [`SmemConfig`].
            pub fn $name(input: $crate::arch::Global<f32>, output: $crate::arch::Global<f32>, nx: u32, ny: u32) {
                const _: () = assert!($cfg.validate(), "invalid tile");
                smem_tile::<{ $cfg.per_thread() }>($cfg, input, output, nx, ny)
            }
        }
    };
}

/// The scalar tiled rungs and their configurations, one row each (see
/// [`crate::variants`]): the variant, its kernel, the tile, and the blocks
/// per SM of its launch bounds (0: none).
#[macro_export]
macro_rules! transpose_smem_table {
    ($then:ident) => { $then! {
        /// The shared-tile transposes with scalar (4-byte) global accesses:
        /// rungs 3–5 and further tile configurations (tile rows × columns,
        /// threads, padding) for the benchmark to compare.
        pub enum SmemConfig: $crate::transpose::index::SmemTile;

        /// Rung 3 — shared-memory tile (32 × 32, 32 × 8 threads, 4 elements
        /// per thread): the block reads a tile with coalesced row accesses,
        /// and writes it transposed with coalesced row accesses thanks to
        /// the `bidx → (irow, icol)` remapping; the transposition happens in
        /// shared memory. Fixes the strided global access of rungs 1–2; the
        /// transposed shared read `tile[icol][irow]` walks a column: all 32
        /// lanes hit the same bank (32-way conflict), which now limits it.
        [cfg(all())] Unpadded => transpose_smem = smem_kernel!(SMEM), bounds 0;
        /// Rung 4 — padded tile `tile[32][33]`: the `+1` column shifts each
        /// row by one bank, so the column read of rung 3 touches 32
        /// different banks (conflict degree 1 on both the store and the
        /// transposed load). Expected: most of the gap to copy bandwidth
        /// closes.
        [cfg(all())] Pad => transpose_smem_pad = smem_kernel!(SMEM_PAD), bounds 0;
        /// Rung 5 — ×2 unrolled padded tile (`tile[32][64 + 1]`, 32 × 8
        /// threads, 8 elements per thread): each thread has twice as many
        /// independent loads in flight as rung 4 and the block's barrier is
        /// amortised over twice the bytes. Expected: closer to copy
        /// bandwidth on GPUs whose memory system needs many bytes in flight
        /// per SM (Hopper).
        [cfg(all())] PadUnroll2 => transpose_smem_pad_unroll2 = smem_kernel!(SMEM_PAD_UNROLL2), bounds 0;
        /// Configuration of rung 4: 32 × 16 threads, 2 elements per thread
        /// (fewer bytes in flight per thread, more threads per SM).
        [cfg(all())] PadB32x16 => transpose_smem_pad_b32x16 = smem_kernel!(SMEM_PAD_B32X16), bounds 0;
        /// Configuration of rung 4: 32 × 32 threads, one element per thread
        /// (the seeds' square block).
        [cfg(all())] PadB32x32 => transpose_smem_pad_b32x32 = smem_kernel!(SMEM_PAD_B32X32), bounds 0;
        /// Configuration of rung 4: 64 × 64 tile (padded to 65), 32 × 8
        /// threads, 16 elements per thread: 64 bytes of loads in flight per
        /// thread and 256-byte write runs per output row.
        [cfg(all())] PadT64 => transpose_smem_pad_t64 = smem_kernel!(SMEM_PAD_T64), bounds 0;
        /// Configuration of rung 5: the ×2 unrolled 32 × 64 tile with
        /// 32 × 16 threads, 4 elements per thread.
        [cfg(all())] PadUnroll2B32x16 => transpose_smem_pad_unroll2_b32x16 = smem_kernel!(SMEM_PAD_UNROLL2_B32X16), bounds 0;
    } };
}

crate::transpose_smem_table!(variant_family);
