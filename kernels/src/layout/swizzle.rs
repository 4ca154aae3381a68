//! XOR swizzles in the CuTe style, stated on offsets.

/// `Swizzle { bits: B, base: M, shift: S }` XORs the `B` bits found at
/// positions `[M + S, M + S + B)` of an offset into positions `[M, M + B)`:
///
/// `apply(o) = o ^ ((o >> S) & (((1 << B) - 1) << M))`
///
/// With offsets in 4-byte words, `Swizzle { bits: 5, base: 0, shift: 5 }` on
/// a 32-wide row-major tile is the classic `col ^ row`: the column is XORed
/// with the low five bits of the row, so a column read touches 32 banks.
/// A swizzle is a bijection on every aligned block of `1 << (M + S + B)`
/// offsets, and its own inverse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Swizzle {
    /// Number of bits XORed (B).
    pub bits: u32,
    /// Lowest bit that is changed (M).
    pub base: u32,
    /// Distance from the source bits to the changed bits (S ≥ B).
    pub shift: u32,
}

impl Swizzle {
    /// The identity swizzle.
    pub const NONE: Swizzle = Swizzle { bits: 0, base: 0, shift: 0 };

    /// For byte offsets into a tile of 64-byte rows (e.g. 32 bf16 per row):
    /// the 16-byte chunk of a row (bits 4..6) is XORed with bits 7..9 of
    /// the offset, `chunk ^ ((row >> 1) & 3)` (CuTe `Swizzle<2, 4, 3>`).
    /// The eight 16-byte rows of one `ldmatrix` phase, taken from eight
    /// consecutive rows at one logical chunk, then fall into eight
    /// distinct 16-byte bank groups.
    pub const ROW64_BYTES: Swizzle = Swizzle { bits: 2, base: 4, shift: 3 };

    /// For byte offsets into a tile of 128-byte rows (e.g. 64 bf16 or 32
    /// f32 per row): chunk `^ (row & 7)` (CuTe `Swizzle<3, 4, 3>`, the
    /// 128-byte swizzle of TMA and wgmma).
    pub const ROW128_BYTES: Swizzle = Swizzle { bits: 3, base: 4, shift: 3 };

    /// Applies the swizzle to `offset`.
    #[inline(always)]
    pub const fn apply(&self, offset: usize) -> usize {
        let mask = ((1usize << self.bits) - 1) << self.base;
        offset ^ ((offset >> self.shift) & mask)
    }

    /// Whether the source and target bit fields do not overlap (then
    /// `apply` is an involution).
    pub const fn is_valid(&self) -> bool {
        self.bits == 0 || self.shift >= self.bits
    }
}
