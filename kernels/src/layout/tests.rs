use super::analysis::*;
use super::*;
use proptest::prelude::*;
use std::vec::Vec;

proptest! {
    #[test]
    fn row_major_2d_is_a_bijection_onto_0_len(rows in 1usize..64, cols in 1usize..64) {
        let l = Layout2::row_major(rows, cols);
        let mut seen = std::vec![false; l.size()];
        for r in 0..rows {
            for c in 0..cols {
                let o = l.offset(r, c);
                prop_assert!(o < l.cosize());
                prop_assert!(!seen[o], "offset {} hit twice", o);
                seen[o] = true;
            }
        }
        prop_assert!(seen.iter().all(|s| *s));
        prop_assert_eq!(l.cosize(), rows * cols);
    }

    #[test]
    fn transposed_view_reads_the_same_memory(rows in 1usize..40, cols in 1usize..40, pad in 0usize..3) {
        let l = Layout2::padded(rows, cols, pad);
        let t = l.transposed();
        for r in 0..rows {
            for c in 0..cols {
                prop_assert_eq!(t.offset(c, r), l.offset(r, c));
            }
        }
        prop_assert_eq!(l.cosize(), (rows - 1) * (cols + pad) + cols);
    }

    #[test]
    fn row_major_3d_matches_the_pmpp_formula_and_inverts(m1 in 1usize..12, m2 in 1usize..12, m3 in 1usize..12) {
        let l = Layout3::row_major(m1, m2, m3);
        let mut offsets = Vec::new();
        for i in 0..m1 { for j in 0..m2 { for k in 0..m3 {
            let o = l.offset(i, j, k);
            prop_assert_eq!(o, i * m2 * m3 + j * m3 + k);
            prop_assert_eq!(l.coord_row_major(o), [i, j, k]);
            offsets.push(o);
        }}}
        offsets.sort_unstable();
        prop_assert_eq!(offsets, (0..l.size()).collect::<Vec<_>>());
    }

    #[test]
    fn swizzle_is_an_involution_and_a_bijection_per_block(bits in 0u32..5, base in 0u32..4, extra in 0u32..3) {
        let sw = Swizzle { bits, base, shift: bits + extra };
        prop_assume!(sw.is_valid());
        let span = 1usize << (base + sw.shift + bits);
        let mut seen = std::vec![false; span];
        for o in 0..span {
            let s = sw.apply(o);
            prop_assert_eq!(sw.apply(s), o);
            prop_assert!(s < span);
            prop_assert!(!seen[s]);
            seen[s] = true;
        }
    }
}

#[test]
fn tile_view_of_the_seed_sgemm_a_tile() {
    // As[(threadRow * TM + i) * BK + dotIdx] is (BM/TM, TM, BK) row-major.
    let (bm, tm, bk) = (64, 8, 8);
    let v = Layout3::row_major(bm / tm, tm, bk);
    for tr in 0..bm / tm {
        for i in 0..tm {
            for d in 0..bk {
                assert_eq!(v.offset(tr, i, d), (tr * tm + i) * bk + d);
            }
        }
    }
}

#[test]
fn bank_conflicts_of_a_column_read() {
    // 32 lanes read column 0 of a 32x32 f32 tile: all in bank 0.
    let plain = Layout2::row_major(32, 32);
    let padded = Layout2::padded(32, 32, 1);
    let col = |l: Layout2| core::array::from_fn(|lane| Some(l.offset(lane, 0) * 4));
    assert_eq!(bank_conflict_degree(&col(plain), 4), 32);
    assert_eq!(bank_conflict_degree(&col(padded), 4), 1);
    // The XOR swizzle also makes it conflict-free.
    let sw = Swizzle { bits: 5, base: 0, shift: 5 };
    let swz: [Option<usize>; 32] = core::array::from_fn(|lane| Some(sw.apply(plain.offset(lane, 0)) * 4));
    assert_eq!(bank_conflict_degree(&swz, 4), 1);
    // Broadcast: every lane reads the same word.
    assert_eq!(bank_conflict_degree(&[Some(8); 32], 4), 1);
}

#[test]
fn sixteen_byte_accesses_are_served_in_quarter_warps() {
    // Consecutive float4s: each phase of 8 lanes covers 128 bytes, 32 banks.
    let a: [Option<usize>; 32] = core::array::from_fn(|l| Some(l * 16));
    assert_eq!(bank_conflict_degree(&a, 16), 1);
    // Stride of 2 float4s: each phase covers 256 bytes, two words per bank.
    let b: [Option<usize>; 32] = core::array::from_fn(|l| Some(l * 32));
    assert_eq!(bank_conflict_degree(&b, 16), 2);
}

#[test]
fn coalescing_measures() {
    let row: [Option<usize>; 32] = core::array::from_fn(|l| Some(l * 4));
    assert_eq!(sectors(&row, 4), 4);
    assert!(is_coalesced(&row, 4));
    let col: [Option<usize>; 32] = core::array::from_fn(|l| Some(l * 4096));
    assert_eq!(sectors(&col, 4), 32);
    assert!(!is_coalesced(&col, 4));
    let mut partial = row;
    partial[31] = None;
    assert_eq!(ideal_sectors(&partial, 4), 4);
}
