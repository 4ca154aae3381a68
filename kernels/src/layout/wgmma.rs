//! The layouts of Hopper's `wgmma` and TMA, as index functions: the
//! shared-memory matrix descriptor, the canonical 128-byte-swizzled
//! layouts it addresses, the box layout TMA writes, and the accumulator
//! fragment of `wgmma.m64nNk16`. The kernels build descriptors with these
//! functions and the emulator reads operands through them; the tests
//! below check that a descriptor walks the bytes TMA wrote.
//!
//! Addresses are `.shared` byte addresses. The 128-byte swizzle is a
//! function of the address itself (bits 4..6 XOR bits 7..9,
//! [`Swizzle::ROW128_BYTES`]), so tiles start 1024-byte aligned (the
//! descriptor's base offset is then 0).

use super::Swizzle;

/// The swizzle TMA (`CU_TENSOR_MAP_SWIZZLE_128B`) and `wgmma` (mode 1)
/// apply to shared addresses.
pub const SW128: Swizzle = Swizzle::ROW128_BYTES;

/// Bytes of one swizzled row (and of a TMA box's innermost extent).
pub const ROW_BYTES: u32 = 128;

/// Bytes of one swizzle atom: eight 128-byte rows. Tiles start at a
/// multiple of it.
pub const ATOM_BYTES: u32 = 8 * ROW_BYTES;

/// The descriptor's swizzle field for the 128-byte swizzle.
pub const SWIZZLE_128B: u32 = 1;

/// A shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor
/// Format"): start address, leading- and stride-dimension byte offsets
/// (all in bytes here; the encoding keeps bits 4..17), base offset and
/// swizzle mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmemDesc {
    /// Start address of the operand.
    pub start: u32,
    /// Leading-dimension byte offset: unused by k-major swizzled layouts
    /// (encoded as 1); for m/n-major ones, the distance between 64-element
    /// (128-byte) column blocks.
    pub lbo: u32,
    /// Stride-dimension byte offset: the distance between groups of 8 rows
    /// (k-major) or of 8 `k` (m/n-major).
    pub sbo: u32,
    /// Base offset (0 for tiles starting at a swizzle-atom boundary).
    pub base_offset: u32,
    /// Swizzle mode: 0 none, 1 128-byte, 2 64-byte, 3 32-byte.
    pub swizzle: u32,
}

impl SmemDesc {
    /// A 128-byte-swizzled operand at `start`.
    #[inline(always)]
    pub const fn sw128(start: u32, lbo: u32, sbo: u32) -> SmemDesc {
        SmemDesc { start, lbo, sbo, base_offset: 0, swizzle: SWIZZLE_128B }
    }

    /// The 64-bit descriptor.
    #[inline(always)]
    pub const fn encode(&self) -> u64 {
        const fn enc(x: u32) -> u64 {
            ((x & 0x3FFFF) >> 4) as u64
        }
        enc(self.start)
            | enc(self.lbo) << 16
            | enc(self.sbo) << 32
            | ((self.base_offset & 7) as u64) << 49
            | ((self.swizzle & 3) as u64) << 62
    }

    /// The fields of descriptor `d` (addresses and offsets in bytes).
    #[inline(always)]
    pub const fn decode(d: u64) -> SmemDesc {
        const fn dec(d: u64, shift: u32) -> u32 {
            (((d >> shift) & 0x3FFF) as u32) << 4
        }
        SmemDesc { start: dec(d, 0), lbo: dec(d, 16), sbo: dec(d, 32), base_offset: ((d >> 49) & 7) as u32, swizzle: ((d >> 62) & 3) as u32 }
    }

    /// The address of element `(mn, k)` of a k-major operand (each row of
    /// `m` or `n` holds its `k` contiguously, 128 bytes per row; CuTe's
    /// `Swizzle<3,4,3> ∘ ((8,m),(T,2k)) : ((8T,SBO),(1,T))`), for elements
    /// of `es` bytes and `k · es < 128`.
    #[inline(always)]
    pub const fn k_major(&self, mn: u32, k: u32, es: u32) -> u32 {
        let linear = self.start + (mn / 8) * self.sbo + (mn % 8) * ROW_BYTES + k * es;
        SW128.apply(linear as usize) as u32
    }

    /// The address of element `(mn, k)` of an m/n-major operand (each row
    /// of `k` holds 64 contiguous elements of `m` or `n`, blocks of 64
    /// `LBO` apart; CuTe's `Swizzle<3,4,3> ∘ ((T,8,m),(8,k)) :
    /// ((1,T,LBO),(8T,SBO))`), for 16-bit elements.
    #[inline(always)]
    pub const fn mn_major(&self, mn: u32, k: u32, es: u32) -> u32 {
        let per_row = ROW_BYTES / es;
        let linear = self.start + (mn / per_row) * self.lbo + (mn % per_row) * es + (k / 8) * self.sbo + (k % 8) * ROW_BYTES;
        SW128.apply(linear as usize) as u32
    }
}

/// The shared address TMA writes element `(x, y)` of a 2D box (innermost
/// `x`, `box_x · es` = 128 bytes per row) copied to `dst` with the 128-byte
/// swizzle.
#[inline(always)]
pub const fn tma_box(dst: u32, x: u32, y: u32, es: u32) -> u32 {
    SW128.apply((dst + y * ROW_BYTES + x * es) as usize) as u32
}

/// Rows of a `wgmma` operand tile (the `M` of every `wgmma`).
pub const WGMMA_M: u32 = 64;

/// `k` of one bf16/f16 `wgmma`.
pub const WGMMA_K16: u32 = 16;

/// Threads of a warpgroup.
pub const WARPGROUP: u32 = 128;

/// Element `(row, col)` of the `64 × N` accumulator that register `reg`
/// (`0..N/2`) of thread `t` (`0..128`, its index in the warpgroup) holds
/// (PTX ISA, "Matrix Fragments for wgmma.m64nNk16", accumulator D): warp
/// `w = t / 32` owns rows `16w..16w + 16`; register `4i + 2h + e` is row
/// `16w + lane/4 + 8h`, column `8i + 2·(lane % 4) + e`.
#[inline(always)]
pub const fn d_fragment(t: u32, reg: u32) -> (u32, u32) {
    let (w, lane) = (t / 32, t % 32);
    let (i, h, e) = (reg / 4, (reg / 2) % 2, reg % 2);
    (16 * w + lane / 4 + 8 * h, 8 * i + 2 * (lane % 4) + e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::vec::Vec;

    #[test]
    fn descriptors_round_trip() {
        for (start, lbo, sbo) in [(0u32, 16u32, 1024u32), (1024 * 37, 8192, 1024), (0x3FFF0, 0x3FFF0, 0x3FFF0)] {
            let d = SmemDesc::sw128(start, lbo, sbo);
            assert_eq!(SmemDesc::decode(d.encode()), d);
        }
        // The fields sit where the PTX ISA puts them.
        let d = SmemDesc::sw128(0x400, 0x10, 0x400).encode();
        assert_eq!(d & 0x3FFF, 0x40);
        assert_eq!((d >> 16) & 0x3FFF, 1);
        assert_eq!((d >> 32) & 0x3FFF, 0x40);
        assert_eq!(d >> 62, 1);
    }

    #[test]
    fn accumulator_fragment_is_a_bijection() {
        for n in [8u32, 64, 128, 256] {
            let mut seen = HashSet::new();
            for t in 0..WARPGROUP {
                for r in 0..n / 2 {
                    let (row, col) = d_fragment(t, r);
                    assert!(row < WGMMA_M && col < n);
                    assert!(seen.insert((row, col)), "({row}, {col}) twice");
                }
            }
            assert_eq!(seen.len() as u32, WGMMA_M * n);
        }
        // Registers 0 and 1 are a pair of adjacent columns (one 8-byte store).
        assert_eq!(d_fragment(5, 0), (1, 2));
        assert_eq!(d_fragment(5, 1), (1, 3));
        assert_eq!(d_fragment(5, 2), (9, 2));
        assert_eq!(d_fragment(37, 4), (17, 10));
    }

    /// A k-major tile of `rows × 64` 16-bit elements loaded by one TMA box
    /// per 256 rows: the descriptor of each `wgmma` (rows `64g..`, `k`
    /// step `j`) finds every element where TMA put it, and the walk
    /// touches each byte of the tile once.
    #[test]
    fn k_major_descriptor_matches_the_tma_box() {
        let es = 2;
        for rows in [64u32, 128, 256] {
            let base = 3 * ATOM_BYTES;
            let mut touched = HashSet::new();
            for g in 0..rows / WGMMA_M {
                for j in 0..64 / WGMMA_K16 {
                    let d = SmemDesc::sw128(base + g * WGMMA_M * ROW_BYTES + j * WGMMA_K16 * es, 16, ATOM_BYTES);
                    let d = SmemDesc::decode(d.encode());
                    for r in 0..WGMMA_M {
                        for k in 0..WGMMA_K16 {
                            let (row, col) = (g * WGMMA_M + r, j * WGMMA_K16 + k);
                            let at = d.k_major(r, k, es);
                            assert_eq!(at, tma_box(base, col, row, es), "row {row} k {col}");
                            assert!(touched.insert(at), "byte {at} twice");
                        }
                    }
                }
            }
            let want: HashSet<u32> = (0..rows * 64).map(|i| base + i * es).collect();
            assert_eq!(touched, want);
        }
    }

    /// An n-major tile of `64 (k) × cols` 16-bit elements, loaded as
    /// `cols / 64` TMA boxes of `64 × 64` placed 8 KiB apart (LBO): the
    /// descriptor of each `k` step addresses every element where TMA put
    /// it.
    #[test]
    fn mn_major_descriptor_matches_the_tma_boxes() {
        let es = 2;
        let block = 64 * ROW_BYTES;
        for cols in [64u32, 128, 256] {
            let base = 5 * ATOM_BYTES;
            let mut touched = HashSet::new();
            for j in 0..64 / WGMMA_K16 {
                let d = SmemDesc::decode(SmemDesc::sw128(base + j * WGMMA_K16 * ROW_BYTES, block, ATOM_BYTES).encode());
                for k in 0..WGMMA_K16 {
                    for n in 0..cols {
                        let kk = j * WGMMA_K16 + k;
                        let want = tma_box(base + (n / 64) * block, n % 64, kk, es);
                        let at = d.mn_major(n, k, es);
                        assert_eq!(at, want, "k {kk} n {n}");
                        assert!(touched.insert(at));
                    }
                }
            }
            assert_eq!(touched.len() as u32, 64 * cols);
        }
    }

    /// Each 16-byte chunk of a swizzled row keeps its 8 (or 4) elements
    /// together: the swizzle moves whole chunks, so a row of 128 bytes is
    /// still 128 bytes of one 8-row atom.
    #[test]
    fn the_swizzle_moves_whole_chunks_inside_an_atom() {
        for addr in (0..4 * ATOM_BYTES).step_by(2) {
            let s = SW128.apply(addr as usize) as u32;
            assert_eq!(s / ATOM_BYTES, addr / ATOM_BYTES);
            assert_eq!(s / ROW_BYTES, addr / ROW_BYTES);
            assert_eq!(s % 16, addr % 16);
        }
        let row: Vec<u32> = (0..8).map(|c| SW128.apply((3 * ROW_BYTES + c * 16) as usize) as u32 % ROW_BYTES / 16).collect();
        assert_eq!(row, [3, 2, 1, 0, 7, 6, 5, 4]);
    }
}
