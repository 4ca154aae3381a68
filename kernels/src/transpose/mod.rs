//! Matrix transpose ladder: `out (nx, ny) = in (ny, nx)ᵀ`, both row-major.
//!
//! The input has `ny` rows of `nx` elements; the output has `nx` rows of
//! `ny`. Every rung maps threads to coordinates through [`index`]:
//!
//! 1. [`transpose_naive_row`] — coalesced read, strided write;
//! 2. [`transpose_naive_col`] — strided read, coalesced write;
//! 3. [`transpose_smem`] — shared tile, both global accesses coalesced,
//!    32-way bank conflicts on the transposed shared read;
//! 4. [`transpose_smem_pad`] — `+1` padding: conflict-free;
//! 5. [`transpose_smem_pad_unroll2`] — two tiles per block along x;
//! 6. [`transpose_vec4_t64_b256`] — 16-byte global accesses, 4 × 4
//!    register transposes, XOR-swizzled shared tile.
//!
//! 7. [`transpose_vec4r_t64_b256`] — rung 6 for any shape and matrix
//!    start: aligned 16-byte chunks, elements shifted between lanes;
//! 8. [`transpose_vec4u_t64_b256`] — rung 6 for sides that are not
//!    multiples of 4 with scalar global accesses (what rung 7 improves on);
//! 9. [`transpose_thin_tall`], [`transpose_thin_wide`] — a few columns or
//!    rows: whole lines per block, every thread busy.
//! 10. [`transpose_lines_w128`] — any shape: each block's output row
//!     segments start on 128-byte line boundaries (whole-line 16-byte
//!     stores), the input span follows each row's shift.
//! 11. [`transpose_flat_e6144`] — short output rows: each block writes one
//!     contiguous run of the output that starts and ends on line
//!     boundaries, whole rows and the ends of two.
//!
//! Rungs 3–5, rung 6, rung 10 and rung 11 are rows of four variant tables
//! ([`transpose_smem_table!`](crate::transpose_smem_table),
//! [`transpose_vec_table!`](crate::transpose_vec_table),
//! [`transpose_lines_table!`](crate::transpose_lines_table),
//! [`transpose_flat_table!`](crate::transpose_flat_table)), which also
//! list further tile configurations, launch orders or chunk sizes
//! ([`SmemConfig`], [`VecConfig`], [`LinesConfig`], [`FlatConfig`]) so the
//! benchmark can pick the fastest;
//! one row defines the kernel, its enum variant and the host's launch arm.

pub mod index;
mod flat;
mod lines;
mod naive;
mod thin;
mod tiled;
mod vec;

pub use flat::*;
pub use lines::*;
pub use naive::*;
pub use thin::*;
pub use tiled::*;
pub use vec::*;

/// The transpose kernels' launch bounds (for the PTX linker).
pub const LAUNCH_BOUNDS: &[crate::launch::LaunchBounds] = {
    const PARTS: &[&[crate::launch::LaunchBounds]] = &[SmemConfig::BOUNDS, VecConfig::BOUNDS, LinesConfig::BOUNDS, FlatConfig::BOUNDS];
    &crate::variants::concat_bounds::<{ crate::variants::total_len(PARTS) }>(PARTS)
};
