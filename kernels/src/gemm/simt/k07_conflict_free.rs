//! Rung 7: bank-conflict-free shared layouts, by padding and by XOR swizzle.

use super::index::{PADDED, PLAIN, SWIZZLED};
use super::float4::{tiled_kernel, Tiling};

/// Rung 6 with the `A` tile padded by 4 floats per row.
pub const PADDED_TILES: Tiling = Tiling { a_smem: PADDED, b_smem: PLAIN, ..super::VECTORIZED };

/// Rung 6 with both tiles XOR-swizzled.
pub const SWIZZLED_TILES: Tiling = Tiling { a_smem: SWIZZLED, b_smem: SWIZZLED, ..super::VECTORIZED };

tiled_kernel! {
    /// Padded: the transposed `A` tile gets 4 floats of padding per row
    /// (`(8, 132)`): the two float4 groups of an `A` row land 16 banks
    /// apart, so the transposed store goes from 2-way to conflict-free, and
    /// rows stay 16-byte aligned for `ld.shared.v4`. The `B` reads keep
    /// their 2-way conflict (padding cannot separate lanes of one row).
    /// Expected: a few % over rung 6.
    sgemm_padded = PADDED_TILES
}

tiled_kernel! {
    /// Swizzled: no padding; the `A` tile XORs bit 2 of `k` into bit 4 of
    /// `m` (`Swizzle<1, 4, 9>` on offsets) and the `B` tile XORs bit 3 of
    /// the float4 index into bit 0 (`Swizzle<1, 2, 3>`): every shared store
    /// and load of the main loop is conflict-free (degree 1 in the index
    /// tests). Expected: a few % over the padded kernel.
    sgemm_swizzled = SWIZZLED_TILES
}
