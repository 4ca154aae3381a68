//! Index math the GEMM engines share: the split-K workspace, written by
//! the partial-product kernels and read by the one reduction body
//! ([`super::reduce`]).

use crate::layout::Layout3;

/// A split-K workspace: `batch · slices` f32 partial products of a
/// `rows × cols` matrix of `C`, each a `rows × ld` row-major matrix
/// (`ld ≥ cols`), one after the other; part `s` of matrix `z` of the batch
/// is slice `z · slices + s`.
///
/// The SIMT engine's workspace is one matrix (`batch` 1) with the leading
/// dimension it chose; the tensor-core engines' is packed (`ld = cols`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitKWorkspace {
    /// Rows of one partial product.
    pub rows: usize,
    /// Columns of one partial product.
    pub cols: usize,
    /// Leading dimension of one partial product (≥ `cols`).
    pub ld: usize,
    /// Partial products per matrix of `C`.
    pub slices: usize,
    /// Matrices of `C`.
    pub batch: usize,
}

impl SplitKWorkspace {
    /// The workspace as a `(batch · slices, rows, cols)` layout.
    #[inline(always)]
    pub const fn layout(&self) -> Layout3 {
        Layout3 { shape: [self.batch * self.slices, self.rows, self.cols], stride: [self.rows * self.ld, self.ld, 1] }
    }

    /// Offset of part `s` of element `(row, col)` of matrix `z`.
    #[inline(always)]
    pub const fn offset(&self, z: usize, s: usize, row: usize, col: usize) -> usize {
        self.layout().offset(z * self.slices + s, row, col)
    }

    /// Elements a workspace buffer must hold.
    pub const fn cosize(&self) -> usize {
        let l = self.layout();
        if l.size() == 0 {
            0
        } else {
            self.offset(self.batch - 1, self.slices - 1, self.rows - 1, self.cols - 1) + 1
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use std::vec;

    use super::*;

    proptest! {
        /// Every part of every element has its own offset inside the
        /// workspace, the parts of one element `rows · ld` apart, in order.
        #[test]
        fn split_k_parts_are_distinct_in_bounds_and_in_slice_order(
            rows in 1usize..9, cols in 1usize..9, pad in 0usize..3, slices in 1usize..5, batch in 1usize..4,
        ) {
            let w = SplitKWorkspace { rows, cols, ld: cols + pad, slices, batch };
            let mut seen = vec![false; w.cosize()];
            for z in 0..batch {
                for s in 0..slices {
                    for r in 0..rows {
                        for c in 0..cols {
                            let o = w.offset(z, s, r, c);
                            prop_assert!(o < w.cosize());
                            prop_assert!(!seen[o]);
                            seen[o] = true;
                            if s > 0 {
                                prop_assert_eq!(o - w.offset(z, s - 1, r, c), rows * w.ld);
                            }
                        }
                    }
                }
            }
            // Packed (no padding): the workspace is exactly its elements.
            if pad == 0 {
                prop_assert!(seen.iter().all(|&b| b));
            }
        }
    }
}
