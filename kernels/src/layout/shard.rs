//! How work is divided among the devices of a group (host-side index
//! math of `ferrotile::multi`; pure, `no_std`).
//!
//! * [`split`]: `n` items (rows, columns, images, a `k` range) cut into
//!   `parts` contiguous [`Span`]s in whole granules (a tile, or 1):
//!   the spans are in order, cover `0..n` exactly once, and their sizes
//!   differ by at most one granule (the first parts take the extra
//!   granules). A part may be empty when there are fewer granules than
//!   parts. [`owner`] is its inverse.
//! * [`grid_for`]: the `rows × cols` grid of devices for an `m × n`
//!   output that moves the fewest operand bytes per device.
//! * [`block`]: the block of the output a device of the grid owns
//!   (devices numbered row-major over the grid).
//! * [`panel_owner`]: the block-cyclic placement of the `k` panels of the
//!   SUMMA-style sharded GEMM: panel `t` of grid row `i` of `A` lives on
//!   device `(i, t mod cols)`, panel `t` of grid column `j` of `B` on
//!   device `(t mod rows, j)`.
//!
//! ```
//! use ferrotile_kernels::layout::shard::{split, owner, Span};
//! // 10 rows over 3 devices in granules of 2: 4 + 4 + 2.
//! assert_eq!(split(10, 3, 2, 0), Span { start: 0, len: 4 });
//! assert_eq!(split(10, 3, 2, 2), Span { start: 8, len: 2 });
//! assert_eq!(owner(10, 3, 2, 5), 1);
//! ```

/// A half-open range `start .. start + len` of items.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    /// First item.
    pub start: usize,
    /// Number of items (0 for an empty part).
    pub len: usize,
}

impl Span {
    /// One past the last item.
    #[inline]
    pub const fn end(self) -> usize {
        self.start + self.len
    }

    /// Whether the span holds no item.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.len == 0
    }

    /// Whether item `x` is in the span.
    #[inline]
    pub const fn contains(self, x: usize) -> bool {
        x >= self.start && x < self.start + self.len
    }
}

/// Part `i` (of `parts`) of `n` items cut in granules of `granule` items
/// (`granule` 0 is read as 1; the last granule may be partial).
///
/// Panics (a caller's bug) when `parts` is 0 or `i ≥ parts`.
#[inline]
pub const fn split(n: usize, parts: usize, granule: usize, i: usize) -> Span {
    assert!(parts > 0 && i < parts, "split: part index out of range");
    let g = if granule == 0 { 1 } else { granule };
    let units = n.div_ceil(g);
    let base = units / parts;
    let extra = units % parts;
    let first = i * base + if i < extra { i } else { extra };
    let count = base + if i < extra { 1 } else { 0 };
    let start = min(first * g, n);
    let end = min((first + count) * g, n);
    Span { start, len: end - start }
}

/// The part of [`split`]`(n, parts, granule, ·)` that holds item `x`
/// (`x < n`).
#[inline]
pub const fn owner(n: usize, parts: usize, granule: usize, x: usize) -> usize {
    assert!(parts > 0 && x < n, "owner: item out of range");
    let g = if granule == 0 { 1 } else { granule };
    let units = n.div_ceil(g);
    let base = units / parts;
    let extra = units % parts;
    let u = x / g;
    let big = extra * (base + 1);
    if u < big { u / (base + 1) } else { extra + (u - big) / base }
}

/// The grid `(rows, cols)` of `devices` devices (`rows · cols =
/// devices`) for an `m × n` output: the factor pair with the least
/// operand data per device, `⌈m/rows⌉ + ⌈n/cols⌉` elements per unit of
/// `k` (ties: more grid rows). One device, or a prime count with a tall
/// or square output, gives row panels (`(devices, 1)`).
pub const fn grid_for(devices: usize, m: usize, n: usize) -> (usize, usize) {
    assert!(devices > 0, "grid_for: no device");
    let mut best = (devices, 1);
    let mut best_cost = m.div_ceil(devices) + n;
    let mut rows = devices;
    while rows > 0 {
        if devices % rows == 0 {
            let cols = devices / rows;
            let cost = m.div_ceil(rows) + n.div_ceil(cols);
            if cost < best_cost {
                best = (rows, cols);
                best_cost = cost;
            }
        }
        rows -= 1;
    }
    best
}

/// The block `(rows, cols)` of an `m × n` matrix that device `d` of a
/// `grid.0 × grid.1` grid owns (device `d` at grid row `d / grid.1`,
/// column `d % grid.1`), in granules of `granule` rows and columns.
#[inline]
pub const fn block(m: usize, n: usize, grid: (usize, usize), granule: usize, d: usize) -> (Span, Span) {
    assert!(d < grid.0 * grid.1, "block: device out of range");
    (split(m, grid.0, granule, d / grid.1), split(n, grid.1, granule, d % grid.1))
}

/// The device that holds `k` panel `t` of grid row `i` of `A` (`Operand::A`)
/// or of grid column `i` of `B` (`Operand::B`) in the block-cyclic layout
/// of the sharded GEMM.
#[inline]
pub const fn panel_owner(grid: (usize, usize), operand: Operand, i: usize, t: usize) -> usize {
    match operand {
        Operand::A => i * grid.1 + t % grid.1,
        Operand::B => (t % grid.0) * grid.1 + i,
    }
}

/// The two inputs of `C = A · B`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// `A` (`m × k`): row panels of the grid's rows, cut along `k`.
    A,
    /// `B` (`k × n`): column panels of the grid's columns, cut along `k`.
    B,
}

const fn min(a: usize, b: usize) -> usize {
    if a < b { a } else { b }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::vec::Vec;

    proptest! {
        /// The spans cover `0..n` in order, each item once, in whole
        /// granules except the very last, balanced to one granule; `owner`
        /// inverts `split`.
        #[test]
        fn split_partitions_and_balances(n in 0usize..2000, parts in 1usize..=8, granule in 1usize..70) {
            let spans: Vec<Span> = (0..parts).map(|i| split(n, parts, granule, i)).collect();
            let mut next = 0;
            for (i, s) in spans.iter().enumerate() {
                prop_assert_eq!(s.start, next, "part {} does not start where {} ended", i, i.wrapping_sub(1));
                prop_assert!(s.end() <= n);
                if s.end() < n {
                    prop_assert_eq!(s.len % granule, 0, "part {} is not whole granules", i);
                }
                for x in s.start..s.end() {
                    prop_assert_eq!(owner(n, parts, granule, x), i);
                }
                next = s.end();
            }
            prop_assert_eq!(next, n);
            let units: Vec<usize> = spans.iter().map(|s| s.len.div_ceil(granule)).collect();
            let (lo, hi) = (units.iter().min().unwrap(), units.iter().max().unwrap());
            prop_assert!(hi - lo <= 1, "granules per part {:?}", units);
        }

        /// Every element of the output belongs to exactly one device's
        /// block, and each block is in bounds.
        #[test]
        fn blocks_tile_the_output(m in 1usize..200, n in 1usize..200, devices in 1usize..=8, granule in 1usize..9) {
            let grid = grid_for(devices, m, n);
            prop_assert_eq!(grid.0 * grid.1, devices);
            let mut seen = std::vec![0u8; m * n];
            for d in 0..devices {
                let (r, c) = block(m, n, grid, granule, d);
                prop_assert!(r.end() <= m && c.end() <= n);
                for i in r.start..r.end() {
                    for j in c.start..c.end() {
                        seen[i * n + j] += 1;
                    }
                }
            }
            prop_assert!(seen.iter().all(|&s| s == 1));
        }

        /// The grid is no worse than row panels and than column panels.
        #[test]
        fn grid_moves_no_more_than_panels(m in 1usize..100_000, n in 1usize..100_000, devices in 1usize..=8) {
            let (r, c) = grid_for(devices, m, n);
            let cost = m.div_ceil(r) + n.div_ceil(c);
            prop_assert!(cost <= m.div_ceil(devices) + n);
            prop_assert!(cost <= m + n.div_ceil(devices));
        }

        /// Panel owners are devices of the right grid row (A) or column
        /// (B), and the panels of a row are spread over its devices.
        #[test]
        fn panels_stay_in_their_row_or_column(rows in 1usize..=4, cols in 1usize..=4, i in 0usize..4, t in 0usize..40) {
            let grid = (rows, cols);
            let (ia, ib) = (i % rows, i % cols);
            let a = panel_owner(grid, Operand::A, ia, t);
            prop_assert_eq!(a / cols, ia);
            prop_assert_eq!(a % cols, t % cols);
            let b = panel_owner(grid, Operand::B, ib, t);
            prop_assert_eq!(b % cols, ib);
            prop_assert_eq!(b / cols, t % rows);
        }
    }

    #[test]
    fn odd_sizes_and_more_parts_than_items() {
        assert_eq!(split(1, 8, 1, 0), Span { start: 0, len: 1 });
        assert!(split(1, 8, 1, 7).is_empty());
        assert_eq!(split(7, 2, 1, 1), Span { start: 4, len: 3 });
        assert_eq!(split(33, 4, 16, 2), Span { start: 32, len: 1 });
        assert_eq!(split(33, 4, 16, 3), Span { start: 33, len: 0 });
        assert_eq!(grid_for(4, 1000, 1000), (2, 2));
        assert_eq!(grid_for(2, 1000, 10), (2, 1));
        assert_eq!(grid_for(2, 10, 1000), (1, 2));
        assert_eq!(grid_for(7, 100, 100), (7, 1));
    }
}
