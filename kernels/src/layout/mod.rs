//! Layouts: a shape plus a stride maps a coordinate to an offset.
//!
//! Kernels never write `r * ld + c` by hand: they build a layout and call
//! [`Layout2::offset`]. The same functions are property-tested on the host
//! (bijective, in bounds, coalesced, bank-conflict degree) — see
//! [`analysis`] for the warp-level measures, and [`fragment`] for the
//! lane ↔ element maps of the tensor-core instructions.

pub mod analysis;
pub mod fragment;
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
