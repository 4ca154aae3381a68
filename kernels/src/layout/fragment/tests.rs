//! The fragment maps: bijections onto their tiles, entries checked by hand
//! against the PTX ISA's figures, the `ldmatrix` address helpers composed
//! with the `ldmatrix` map give exactly the `mma` fragments, and the
//! swizzled shared tiles are conflict-free for `ldmatrix` and `cp.async`.

use super::*;
use crate::layout::analysis::{bank_conflict_degree, ldmatrix_phase_degrees, WARP};
use crate::layout::Swizzle;
use std::vec;
use std::vec::Vec;

/// Asserts that `(lane, i) → f(lane, i)` for `lane < 32`, `i < per_lane`
/// hits every cell of a `rows × cols` tile exactly once.
fn assert_bijection(what: &str, per_lane: usize, rows: usize, cols: usize, f: impl Fn(usize, usize) -> (usize, usize)) {
    assert_eq!(WARP * per_lane, rows * cols, "{what}: sizes");
    let mut seen = vec![None; rows * cols];
    for lane in 0..WARP {
        for i in 0..per_lane {
            let (r, c) = f(lane, i);
            assert!(r < rows && c < cols, "{what}: lane {lane} element {i} → ({r}, {c}) outside {rows}×{cols}");
            if let Some(prev) = seen[r * cols + c] {
                panic!("{what}: ({r}, {c}) held by {prev:?} and by ({lane}, {i})");
            }
            seen[r * cols + c] = Some((lane, i));
        }
    }
}

#[test]
fn mma_fragments_are_bijections_onto_their_tiles() {
    assert_bijection("m16n8k16 A", 8, MMA_M, MMA_K16, mma_m16n8k16_a);
    assert_bijection("m16n8k16 B", 4, MMA_K16, MMA_N, mma_m16n8k16_b);
    assert_bijection("m16n8 C", 4, MMA_M, MMA_N, mma_m16n8_c);
    assert_bijection("m16n8k8 tf32 A", 4, MMA_M, MMA_K8, mma_m16n8k8_tf32_a);
    assert_bijection("m16n8k8 tf32 B", 2, MMA_K8, MMA_N, mma_m16n8k8_tf32_b);
}

#[test]
fn mma_fragments_match_the_ptx_figures() {
    // Figure "MMA .m16n8k16 fragment layout for matrix A with .f16/.bf16":
    // T5 (groupID 1, threadID_in_group 1) holds a0, a1 at row 1, cols 2, 3;
    // a2, a3 at row 9; a4..a7 the same rows, cols 10, 11.
    let lane5: Vec<_> = (0..8).map(|i| mma_m16n8k16_a(5, i)).collect();
    assert_eq!(lane5, [(1, 2), (1, 3), (9, 2), (9, 3), (1, 10), (1, 11), (9, 10), (9, 11)]);
    // T0 at the origin, T31 at the bottom-right corner.
    assert_eq!(mma_m16n8k16_a(0, 0), (0, 0));
    assert_eq!(mma_m16n8k16_a(31, 7), (15, 15));
    // B (k, n): T5 holds b0, b1 at rows 2, 3 of column 1, b2, b3 at 10, 11.
    let b5: Vec<_> = (0..4).map(|i| mma_m16n8k16_b(5, i)).collect();
    assert_eq!(b5, [(2, 1), (3, 1), (10, 1), (11, 1)]);
    assert_eq!(mma_m16n8k16_b(31, 3), (15, 7));
    // C/D: T5 holds c0, c1 at row 1, cols 2, 3; c2, c3 at row 9.
    let c5: Vec<_> = (0..4).map(|i| mma_m16n8_c(5, i)).collect();
    assert_eq!(c5, [(1, 2), (1, 3), (9, 2), (9, 3)]);
    // m16n8k8 .tf32 A: T5 holds a0 (1, 1), a1 (9, 1), a2 (1, 5), a3 (9, 5).
    let t5: Vec<_> = (0..4).map(|i| mma_m16n8k8_tf32_a(5, i)).collect();
    assert_eq!(t5, [(1, 1), (9, 1), (1, 5), (9, 5)]);
    // .tf32 B: T5 holds b0 at (k 1, n 1) and b1 at (k 5, n 1).
    assert_eq!([mma_m16n8k8_tf32_b(5, 0), mma_m16n8k8_tf32_b(5, 1)], [(1, 1), (5, 1)]);
}

#[test]
fn ldmatrix_maps_cover_each_matrix_once() {
    for lane in 0..WARP {
        let (m, r) = ldmatrix_source(lane);
        assert_eq!(ldmatrix_row_lane(m, r), lane);
        assert!(m < 4 && r < LDMATRIX_ROWS);
    }
    assert_bijection("ldmatrix", 2, 8, 8, |l, h| ldmatrix_dest(l, h, false));
    assert_bijection("ldmatrix.trans", 2, 8, 8, |l, h| ldmatrix_dest(l, h, true));
    // The ISA's figure: T0 gets row 0 cols 0, 1; T1 cols 2, 3; T4 row 1.
    assert_eq!([ldmatrix_dest(0, 0, false), ldmatrix_dest(0, 1, false)], [(0, 0), (0, 1)]);
    assert_eq!(ldmatrix_dest(1, 0, false), (0, 2));
    assert_eq!(ldmatrix_dest(4, 1, false), (1, 1));
    assert_eq!(ldmatrix_dest(5, 1, true), (3, 1));
}

/// What `ldmatrix` hands lane `lane` in half `h` of register `reg`, as a
/// coordinate of the stored tile: the lane that gave the row's address
/// gave `addr(that lane)` = (row, first 16-bit column) of the tile.
fn delivered(addr: impl Fn(usize) -> (usize, usize), lane: usize, reg: usize, h: usize, trans: bool) -> (usize, usize) {
    let (r, c) = ldmatrix_dest(lane, h, trans);
    let (row, col) = addr(ldmatrix_row_lane(reg, r));
    (row, col + c)
}

#[test]
fn ldmatrix_address_helpers_load_exact_mma_fragments() {
    for lane in 0..WARP {
        for reg in 0..4 {
            for h in 0..2 {
                // A, row-major [m][k], x4: registers a0..a3.
                let got = delivered(ldmatrix_a_m16n8k16, lane, reg, h, false);
                assert_eq!(got, mma_m16n8k16_a(lane, 2 * reg + h), "A lane {lane} reg {reg}");
                // B stored [n][k], x4: two n-tiles of (b0, b1).
                let (n, k) = delivered(ldmatrix_b_m16n8k16, lane, reg, h, false);
                assert_eq!((k, n % 8), mma_m16n8k16_b(lane, 2 * (reg % 2) + h), "B lane {lane} reg {reg}");
                assert_eq!(n / 8, reg / 2);
                // B stored [k][n], x4.trans.
                let (k, n) = delivered(ldmatrix_b_trans_m16n8k16, lane, reg, h, true);
                assert_eq!((k, n % 8), mma_m16n8k16_b(lane, 2 * (reg % 2) + h), "B^T lane {lane} reg {reg}");
                assert_eq!(n / 8, reg / 2);
                // tf32 A, [m][k] of 32-bit elements: both 16-bit halves of
                // register `reg` come from the one element a[reg].
                let tf = |l| {
                    let (r, c) = ldmatrix_a_m16n8k8_tf32(l);
                    (r, 2 * c)
                };
                let (m, half_col) = delivered(tf, lane, reg, h, false);
                assert_eq!(half_col % 2, h);
                assert_eq!((m, half_col / 2), mma_m16n8k8_tf32_a(lane, reg), "tf32 A lane {lane} reg {reg}");
            }
        }
        for reg in 0..2 {
            for h in 0..2 {
                let tf = |l| {
                    let (n, k) = ldmatrix_b_m16n8k8_tf32(l);
                    (n, 2 * k)
                };
                let (n, half_k) = delivered(tf, lane, reg, h, false);
                assert_eq!(half_k % 2, h);
                assert_eq!((half_k / 2, n), mma_m16n8k8_tf32_b(lane, reg), "tf32 B lane {lane} reg {reg}");
            }
        }
    }
}

#[test]
fn named_swizzles_are_the_chunk_xor_formulas() {
    for row in 0..64 {
        for chunk in 0..8 {
            for b in [0, 5, 15] {
                if chunk < 4 {
                    let o = row * 64 + chunk * 16 + b;
                    assert_eq!(Swizzle::ROW64_BYTES.apply(o), row * 64 + (chunk ^ ((row >> 1) & 3)) * 16 + b);
                }
                let o = row * 128 + chunk * 16 + b;
                assert_eq!(Swizzle::ROW128_BYTES.apply(o), row * 128 + (chunk ^ (row & 7)) * 16 + b);
            }
        }
    }
    assert!(Swizzle::ROW64_BYTES.is_valid() && Swizzle::ROW128_BYTES.is_valid());
}

/// A shared tile of `rows` rows of `row_bytes` bytes, swizzled with `sw`
/// on byte offsets: the worst bank-conflict degree over every `ldmatrix`
/// phase of every fragment load in `loads` (each a function from lane to
/// the (row, byte column) the lane gives).
fn worst_ldmatrix_degree(row_bytes: usize, sw: Swizzle, loads: &[(usize, usize)], addr: impl Fn(usize) -> (usize, usize)) -> usize {
    let mut worst = 0;
    for &(r0, c0) in loads {
        let row_addr = |lane| {
            let (r, c) = addr(lane);
            sw.apply((r0 + r) * row_bytes + c0 + c)
        };
        worst = worst.max(*ldmatrix_phase_degrees(row_addr, 4).iter().max().unwrap());
    }
    worst
}

/// The worst degree of the 16-byte `cp.async` stores with which each warp
/// of a block fills the tile: consecutive lanes store consecutive chunks
/// of a row, then the next rows.
fn worst_cp_async_degree(rows: usize, row_bytes: usize, sw: Swizzle) -> usize {
    let chunks = rows * row_bytes / 16;
    let mut worst = 0;
    for warp_start in (0..chunks).step_by(WARP) {
        let addrs: [Option<usize>; WARP] = core::array::from_fn(|l| {
            let q = warp_start + l;
            (q < chunks).then(|| sw.apply(q * 16))
        });
        worst = worst.max(bank_conflict_degree(&addrs, 16));
    }
    worst
}

#[test]
fn swizzled_tiles_are_conflict_free_for_ldmatrix_and_cp_async() {
    // 64-byte rows (BK = 32 bf16): A fragments (16 rows × 16 k) at every
    // (m0, k0), and B fragment pairs from an n-major tile of the same shape.
    let rows = 128;
    let a_loads: Vec<(usize, usize)> = (0..rows).step_by(16).flat_map(|m| [(m, 0), (m, 32)]).collect();
    let a_addr = |l| {
        let (r, c) = ldmatrix_a_m16n8k16(l);
        (r, 2 * c)
    };
    let b_addr = |l| {
        let (n, k) = ldmatrix_b_m16n8k16(l);
        (n, 2 * k)
    };
    for (what, addr) in [("A", &a_addr as &dyn Fn(usize) -> (usize, usize)), ("B", &b_addr)] {
        assert_eq!(worst_ldmatrix_degree(64, Swizzle::ROW64_BYTES, &a_loads, addr), 1, "{what}, 64-byte rows, swizzled");
        // The same loads from the unswizzled tile conflict (so this test can fail).
        assert_eq!(worst_ldmatrix_degree(64, Swizzle::NONE, &a_loads, addr), 4, "{what}, 64-byte rows, plain");
    }
    assert_eq!(worst_cp_async_degree(rows, 64, Swizzle::ROW64_BYTES), 1);

    // 128-byte rows (BK = 64 bf16, or a 32-wide f32 / tf32 tile).
    let a_loads: Vec<(usize, usize)> =
        (0..rows).step_by(16).flat_map(|m| [(m, 0), (m, 32), (m, 64), (m, 96)]).collect();
    let tf32_addr = |l| {
        let (r, c) = ldmatrix_a_m16n8k8_tf32(l);
        (r, 4 * c)
    };
    for (what, addr) in [
        ("A", &a_addr as &dyn Fn(usize) -> (usize, usize)),
        ("B", &b_addr),
        ("tf32 A", &tf32_addr),
    ] {
        assert_eq!(worst_ldmatrix_degree(128, Swizzle::ROW128_BYTES, &a_loads, addr), 1, "{what}, 128-byte rows, swizzled");
        assert_eq!(worst_ldmatrix_degree(128, Swizzle::NONE, &a_loads, addr), 8, "{what}, 128-byte rows, plain");
    }
    assert_eq!(worst_cp_async_degree(rows, 128, Swizzle::ROW128_BYTES), 1);
    // A row-contiguous cp.async fill is conflict-free with or without the
    // swizzle: the swizzle only permutes chunks inside the rows a phase
    // covers.
    assert_eq!(worst_cp_async_degree(rows, 64, Swizzle::NONE), 1);
    assert_eq!(worst_cp_async_degree(rows, 128, Swizzle::NONE), 1);
    // The wrong swizzle for the row length is not enough: the 64-byte one
    // on 128-byte rows leaves 2-way conflicts.
    assert_eq!(worst_ldmatrix_degree(128, Swizzle::ROW64_BYTES, &a_loads, a_addr), 2);
}

#[test]
fn ldmatrix_phase_degrees_reports_each_phase() {
    // Matrix 0 conflict-free (8 consecutive rows of 16 bytes), matrix 1
    // eight rows 128 bytes apart (one bank group: 8-way).
    let addr = |l: usize| if l < 8 { l * 16 } else { 4096 + (l % 8) * 128 };
    assert_eq!(ldmatrix_phase_degrees(addr, 2), [1, 8, 0, 0]);
    assert_eq!(ldmatrix_phase_degrees(addr, 1), [1, 0, 0, 0]);
}
