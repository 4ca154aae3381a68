//! Layouts: a shape plus a stride maps a coordinate to an offset.
//!
//! Kernels never write `r * ld + c` by hand: they build a layout and call
//! [`Layout2::offset`]. The same functions are property-tested on the host
//! (bijective, in bounds, coalesced, bank-conflict degree) — see
//! [`analysis`] for the warp-level measures, and [`fragment`] for the
//! lane ↔ element maps of the tensor-core instructions.
//!
//! # The index reasoning, in pictures
//!
//! Every picture below is checked by the example under it (they run as
//! doc-tests).
//!
//! ## Row-major offsets and the leading dimension
//!
//! A `rows × cols` matrix stored row by row, each row `ld` elements apart
//! (`ld ≥ cols`: a sub-matrix of a wider one, or a padded tile):
//!
//! ```text
//!          c=0  c=1  c=2  c=3 | not ours
//!   r=0      0    1    2    3 |   4    5
//!   r=1      6    7    8    9 |  10   11
//!   r=2     12   13   14   15 |  16   17
//!
//!   offset(r, c) = r · ld + c   (here ld = 6);   cosize = offset(2, 3) + 1 = 16
//! ```
//!
//! The transposed view reads the same memory with the strides swapped, so
//! a transpose never moves data until a kernel copies it.
//!
//! ```
//! use ferrotile_kernels::layout::Layout2;
//! let a = Layout2::row_major_ld(3, 4, 6);
//! assert_eq!(a.offset(1, 2), 8);
//! assert_eq!(a.cosize(), 16); // the memory a (3 × 4, ld 6) view needs
//! assert_eq!(a.transposed().offset(2, 1), 8); // (c, r) of the transpose
//! ```
//!
//! ## A tile loop is a higher-rank view: `(BM / TM, TM, BK)`
//!
//! In the 1D-blocktiled SGEMM each thread computes `TM` consecutive rows of
//! the block's `BM × BK` slice of A in shared memory. The seeds write
//! `As[(threadRow * TM + i) * BK + k]`; that is the row-major layout of
//! shape `(BM / TM, TM, BK)` indexed by `(threadRow, i, k)` — the same
//! memory, with the row split into "whose" and "which of mine":
//!
//! ```text
//!   As (BM = 8 rows × BK = 2), row-major     view (BM/TM, TM, BK) = (2, 4, 2)
//!   row 0 [  0   1 ]  ┐
//!   row 1 [  2   3 ]  │ threadRow 0          offset(0, i, k) =     2·i + k
//!   row 2 [  4   5 ]  │ i = 0..4
//!   row 3 [  6   7 ]  ┘
//!   row 4 [  8   9 ]  ┐
//!   row 5 [ 10  11 ]  │ threadRow 1          offset(1, i, k) = 8 + 2·i + k
//!   row 6 [ 12  13 ]  │
//!   row 7 [ 14  15 ]  ┘
//! ```
//!
//! ```
//! use ferrotile_kernels::layout::{Layout2, Layout3};
//! let (bm, tm, bk) = (8, 4, 2);
//! let view = Layout3::row_major(bm / tm, tm, bk);
//! let slice = Layout2::row_major(bm, bk);
//! for (thread_row, i, k) in [(0, 0, 0), (1, 2, 1), (1, 3, 0)] {
//!     assert_eq!(view.offset(thread_row, i, k), slice.offset(thread_row * tm + i, k));
//! }
//! assert_eq!(view.coord_row_major(13), [1, 2, 1]);
//! ```
//!
//! ## The transpose through a shared tile
//!
//! Reading a column of a row-major matrix touches one element per row: 32
//! lanes, 32 memory sectors. The tiled transpose reads a tile row by row
//! (coalesced), and writes the output row by row too, by reading the shared
//! tile by column — the remap `(r, c) → (c, r)` happens in shared memory,
//! where a column read is cheap if the banks allow it (next section):
//!
//! ```text
//!   input tile             shared tile                output tile
//!   (rows y, cols x)                                  (rows x, cols y)
//!   a b c d                a b c d                    a e i m
//!   e f g h   rows ──►     e f g h   columns ──►      b f j n
//!   i j k l   coalesced    i j k l   written as rows  c g k o
//!   m n o p                m n o p                    d h l p
//! ```
//!
//! Block `(bx, by)` reads the input tile at `(by · rows, bx · cols)` and
//! writes the output tile at `(bx · cols, by · rows)`: the block
//! coordinates swap as well
//! ([`SmemTile::input_origin`](crate::transpose::index::SmemTile::input_origin)
//! and [`output_origin`](crate::transpose::index::SmemTile::output_origin)).
//!
//! ## Shared-memory banks: padding
//!
//! Shared memory has 32 banks of 4-byte words; the word at byte `b` is in
//! bank `(b / 4) % 32`, and a warp's access takes as many passes as the
//! largest number of distinct words in one bank. A 32 × 32 f32 tile read by
//! column puts all 32 rows in one bank; one unused word after each row
//! (`ld = 33`) shifts each row by one bank:
//!
//! ```text
//!   bank of (r, c)     ld = 32               ld = 33 (padded)
//!               c:   0   1   2   3  …       0   1   2   3  …
//!           r = 0    0   1   2   3          0   1   2   3
//!           r = 1    0   1   2   3          1   2   3   4
//!           r = 2    0   1   2   3          2   3   4   5
//!           r = 3    0   1   2   3          3   4   5   6
//!             …
//!   column 0, r = 0..32: bank 0 32 times    banks 0, 1, …, 31 once each
//! ```
//!
//! ```
//! use ferrotile_kernels::layout::{analysis, Layout2};
//! let column = |tile: Layout2| -> [Option<usize>; 32] {
//!     std::array::from_fn(|r| Some(4 * tile.offset(r, 0))) // byte addresses
//! };
//! assert_eq!(analysis::bank_conflict_degree(&column(Layout2::row_major(32, 32)), 4), 32);
//! assert_eq!(analysis::bank_conflict_degree(&column(Layout2::padded(32, 32, 1)), 4), 1);
//! ```
//!
//! ## Shared-memory banks: the XOR swizzle
//!
//! Padding wastes memory and breaks the 16-byte alignment that vector
//! loads, `ldmatrix` and TMA need. A swizzle instead permutes where each
//! 16-byte chunk of a row goes. With 128-byte rows (64 bf16, or 32 f32),
//! [`Swizzle::ROW128_BYTES`] stores logical chunk `k` of row `r` at
//! physical chunk `k ^ (r % 8)`:
//!
//! ```text
//!   physical chunk      logical chunk k:  0 1 2 3 4 5 6 7
//!              row 0                      0 1 2 3 4 5 6 7
//!              row 1                      1 0 3 2 5 4 7 6
//!              row 2                      2 3 0 1 6 7 4 5
//!              row 3                      3 2 1 0 7 6 5 4
//!              row 4                      4 5 6 7 0 1 2 3
//!              row 5                      5 4 7 6 1 0 3 2
//!              row 6                      6 7 4 5 2 3 0 1
//!              row 7                      7 6 5 4 3 2 1 0
//! ```
//!
//! A 128-byte row covers all 32 banks, four per chunk. An `ldmatrix` phase
//! reads 16 bytes from each of eight consecutive rows at one logical chunk:
//! a column of this table, which holds eight different physical chunks, so
//! eight different groups of four banks — no conflict, and no padding.
//!
//! ```
//! use ferrotile_kernels::layout::Swizzle;
//! let s = Swizzle::ROW128_BYTES;
//! let at = |row: usize, chunk: usize| (s.apply(row * 128 + chunk * 16) % 128) / 16;
//! assert_eq!(at(3, 1), 2); // 1 ^ 3
//! let mut column: Vec<usize> = (0..8).map(|row| at(row, 5)).collect();
//! column.sort();
//! assert_eq!(column, [0, 1, 2, 3, 4, 5, 6, 7]);
//! ```
//!
//! ## Tensor-core fragments: who holds what
//!
//! `mma.sync.m16n8k16` multiplies a 16 × 16 A tile spread over the 32
//! lanes of a warp, eight 16-bit elements each. Lane `l` has group
//! `g = l / 4` and index `t = l % 4`; its element `i` is A's `(row, col)`
//! given by [`fragment::mma_m16n8k16_a`]. The top-left 8 × 8 quarter, as
//! `lane:element`:
//!
//! ```text
//!          col 0  col 1  col 2  col 3  col 4  col 5  col 6  col 7
//!   row 0   0:0    0:1    1:0    1:1    2:0    2:1    3:0    3:1
//!   row 1   4:0    4:1    5:0    5:1    6:0    6:1    7:0    7:1
//!    …
//!   row 7  28:0   28:1   29:0   29:1   30:0   30:1   31:0   31:1
//!
//!   rows 8..16: elements 2, 3 of the same lanes; cols 8..16: elements 4..8
//! ```
//!
//! Each lane holds two adjacent columns (one 32-bit register) of one row;
//! eight rows of four lanes cover the quarter. `ldmatrix` loads exactly
//! this from shared memory, a row of 16 bytes per lane address
//! ([`fragment::ldmatrix_source`]).
//!
//! ```
//! use ferrotile_kernels::layout::fragment::mma_m16n8k16_a;
//! assert_eq!(mma_m16n8k16_a(5, 1), (1, 3)); // g = 1, t = 1
//! assert_eq!(mma_m16n8k16_a(5, 2), (9, 2)); // rows 8..16
//! assert_eq!(mma_m16n8k16_a(5, 5), (1, 11)); // cols 8..16
//! assert_eq!(mma_m16n8k16_a(31, 7), (15, 15));
//! ```

pub mod analysis;
pub mod fragment;
pub mod shard;
mod swizzle;
pub mod wgmma;

pub use swizzle::Swizzle;

/// A 2D layout: `offset(r, c) = r * row_stride + c * col_stride`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout2 {
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// Distance between consecutive rows.
    pub row_stride: usize,
    /// Distance between consecutive columns.
    pub col_stride: usize,
}

impl Layout2 {
    /// Row-major `(rows, cols)`: `(r, c) → r * cols + c`.
    #[inline(always)]
    pub const fn row_major(rows: usize, cols: usize) -> Self {
        Layout2 { rows, cols, row_stride: cols, col_stride: 1 }
    }

    /// Row-major with leading dimension `ld ≥ cols`: `(r, c) → r * ld + c`.
    #[inline(always)]
    pub const fn row_major_ld(rows: usize, cols: usize, ld: usize) -> Self {
        Layout2 { rows, cols, row_stride: ld, col_stride: 1 }
    }

    /// Row-major with `pad` unused elements after each row (the `+1` column
    /// that moves each row to another shared-memory bank).
    #[inline(always)]
    pub const fn padded(rows: usize, cols: usize, pad: usize) -> Self {
        Layout2::row_major_ld(rows, cols, cols + pad)
    }

    /// Column-major `(rows, cols)`: `(r, c) → c * rows + r`.
    #[inline(always)]
    pub const fn col_major(rows: usize, cols: usize) -> Self {
        Layout2 { rows, cols, row_stride: 1, col_stride: rows }
    }

    /// The same memory seen as `(cols, rows)`: `t.offset(c, r) == self.offset(r, c)`.
    #[inline(always)]
    pub const fn transposed(self) -> Self {
        Layout2 { rows: self.cols, cols: self.rows, row_stride: self.col_stride, col_stride: self.row_stride }
    }

    /// Offset of `(r, c)`.
    #[inline(always)]
    pub const fn offset(&self, r: usize, c: usize) -> usize {
        r * self.row_stride + c * self.col_stride
    }

    /// Whether `(r, c)` is inside the shape.
    #[inline(always)]
    pub const fn in_bounds(&self, r: usize, c: usize) -> bool {
        r < self.rows && c < self.cols
    }

    /// Number of coordinates.
    #[inline(always)]
    pub const fn size(&self) -> usize {
        self.rows * self.cols
    }

    /// One past the largest offset: the memory the layout needs.
    #[inline(always)]
    pub const fn cosize(&self) -> usize {
        if self.rows == 0 || self.cols == 0 {
            0
        } else {
            self.offset(self.rows - 1, self.cols - 1) + 1
        }
    }
}

/// A 3D layout: `offset(i, j, l) = i * s0 + j * s1 + l * s2`.
///
/// A tile loop is a higher-rank view of the same memory: the seeds'
/// `As[(threadRow * TM + i) * BK + dotIdx]` is the row-major
/// `(BM / TM, TM, BK)` layout indexed by `(threadRow, i, dotIdx)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout3 {
    /// Extents.
    pub shape: [usize; 3],
    /// Strides.
    pub stride: [usize; 3],
}

impl Layout3 {
    /// Row-major `(m1, m2, m3)`: `(i, j, l) → (i * m2 + j) * m3 + l`.
    #[inline(always)]
    pub const fn row_major(m1: usize, m2: usize, m3: usize) -> Self {
        Layout3 { shape: [m1, m2, m3], stride: [m2 * m3, m3, 1] }
    }

    /// Offset of `(i, j, l)`.
    #[inline(always)]
    pub const fn offset(&self, i: usize, j: usize, l: usize) -> usize {
        i * self.stride[0] + j * self.stride[1] + l * self.stride[2]
    }

    /// Whether `(i, j, l)` is inside the shape.
    #[inline(always)]
    pub const fn in_bounds(&self, i: usize, j: usize, l: usize) -> bool {
        i < self.shape[0] && j < self.shape[1] && l < self.shape[2]
    }

    /// Number of coordinates.
    #[inline(always)]
    pub const fn size(&self) -> usize {
        self.shape[0] * self.shape[1] * self.shape[2]
    }

    /// Inverse of [`Layout3::offset`] for row-major layouts.
    #[inline(always)]
    pub const fn coord_row_major(&self, off: usize) -> [usize; 3] {
        let l = off % self.shape[2];
        let j = (off / self.shape[2]) % self.shape[1];
        let i = off / (self.shape[2] * self.shape[1]);
        [i, j, l]
    }
}

#[cfg(test)]
mod tests;
