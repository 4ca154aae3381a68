use super::*;
use crate::layout::fragment as frag;
use proptest::prelude::*;
use std::collections::HashSet;
use std::vec::Vec;

/// Tiles of the engine's configurations: A `[m][k]` / `[k][m]`, B `[k][n]`
/// / `[n][k]` for BK 32 and 64, 16-bit and tf32 elements.
fn tiles() -> Vec<SmemTile> {
    let mut v = Vec::new();
    for es in [2usize, 4] {
        for (rows, cols) in [(128, 32), (256, 32), (64, 32), (32, 128), (32, 256), (32, 64), (64, 128), (128, 64), (16, 128), (64, 64)] {
            let t = SmemTile { rows, cols, es };
            if t.is_valid() {
                v.push(t);
            }
        }
    }
    assert!(v.len() >= 12, "{v:?}");
    v
}

#[test]
fn tiles_are_bijective_and_chunks_contiguous() {
    for t in tiles() {
        let mut seen = HashSet::new();
        for r in 0..t.rows {
            for c in 0..t.cols {
                let o = t.offset(r, c);
                assert!(o + t.es <= t.bytes(), "{t:?} ({r}, {c}) → {o}");
                assert_eq!(o % t.es, 0);
                assert!(seen.insert(o), "{t:?}: ({r}, {c}) collides at {o}");
                // An element and the next one of its 16-byte chunk are adjacent.
                if (c + 1) % t.chunk_elems() != 0 {
                    assert_eq!(t.offset(r, c + 1), o + t.es, "{t:?} ({r}, {c})");
                }
            }
        }
    }
}

/// Distinct 16-byte bank groups of 8 chunk addresses: 8 means one
/// wavefront (no conflict); fewer means a conflict.
fn groups(addrs: &[usize]) -> usize {
    addrs.iter().map(|a| (a / CHUNK) % 8).collect::<HashSet<_>>().len()
}

/// Every `ldmatrix` phase (8 lanes' rows) of a warp whose row addresses
/// `rows(lane)` give `(row, col)` of `t` falls into 8 distinct bank groups.
fn ldmatrix_conflict_free(t: SmemTile, rows: impl Fn(usize) -> (usize, usize)) -> bool {
    (0..4).all(|phase| {
        let addrs: Vec<usize> = (0..8).map(|l| {
            let (r, c) = rows(phase * 8 + l);
            t.offset(r, c)
        }).collect();
        addrs.iter().all(|a| a % CHUNK == 0) && groups(&addrs) == 8
    })
}

#[test]
fn ldmatrix_phases_are_conflict_free_for_every_operand() {
    for (m0, k0) in [(0, 0), (16, 16), (48, 0), (112, 16)] {
        let a = SmemTile { rows: 128, cols: 32, es: 2 };
        assert!(ldmatrix_conflict_free(a, |l| a_rows(l, m0, k0)), "A [m][k] at ({m0}, {k0})");
        let at = SmemTile { rows: 32, cols: 128, es: 2 };
        assert!(ldmatrix_conflict_free(at, |l| a_trans_rows(l, m0, k0)), "A [k][m] at ({m0}, {k0})");
        let b = SmemTile { rows: 32, cols: 128, es: 2 };
        assert!(ldmatrix_conflict_free(b, |l| b_rows(l, k0, m0)), "B [k][n] at ({k0}, {m0})");
        let bt = SmemTile { rows: 128, cols: 32, es: 2 };
        assert!(ldmatrix_conflict_free(bt, |l| b_trans_rows(l, k0, m0)), "B [n][k] at ({k0}, {m0})");
        let a32 = SmemTile { rows: 128, cols: 32, es: 4 };
        assert!(ldmatrix_conflict_free(a32, |l| a_rows_tf32(l, m0, k0)), "tf32 A at ({m0}, {k0})");
        assert!(ldmatrix_conflict_free(a32, |l| b_trans_rows_tf32(l, k0, m0)), "tf32 B [n][k] at ({k0}, {m0})");
    }
    // The same phases without the swizzle conflict (the check can fail).
    let plain = |t: SmemTile, r: usize, c: usize| {
        let pc = t.panel_cols();
        (c / pc) * t.rows * t.panel_bytes() + r * t.panel_bytes() + (c % pc) * t.es
    };
    let b = SmemTile { rows: 32, cols: 128, es: 2 };
    let addrs: Vec<usize> = (0..8).map(|l| {
        let (r, c) = b_rows(l, 0, 0);
        plain(b, r, c)
    }).collect();
    assert!(groups(&addrs) < 8, "unswizzled [k][n] rows should conflict");
}

#[test]
fn cp_async_stores_of_a_quarter_warp_are_conflict_free() {
    for t in tiles() {
        for first in (0..t.chunks()).step_by(8) {
            let addrs: Vec<usize> = (first..first + 8).map(|q| {
                let (r, c) = t.chunk(q);
                t.offset(r, c)
            }).collect();
            assert_eq!(groups(&addrs), 8, "{t:?} chunks {first}..");
        }
    }
}

/// What `ldmatrix` (`.trans` or not) delivers to `lane`'s register `j`,
/// half `h`, when lane `l` gives the tile position `rows(l)` as the start
/// of its row: the tile element `(row, col)`.
fn delivered(rows: &dyn Fn(usize) -> (usize, usize), lane: usize, j: usize, h: usize, trans: bool) -> (usize, usize) {
    let (r, c) = frag::ldmatrix_dest(lane, h, trans);
    let (row, col) = rows(frag::ldmatrix_row_lane(j, r));
    (row, col + c)
}

#[test]
fn every_operand_orientation_gives_the_mma_fragments() {
    let (m0, k0, n0) = (32, 16, 48);
    for lane in 0..32 {
        for j in 0..4 {
            for h in 0..2 {
                let i = 2 * j + h;
                // A: register j half h is A element i of the fragment.
                let (m, k) = frag::mma_m16n8k16_a(lane, i);
                assert_eq!(delivered(&|l| a_rows(l, m0, k0), lane, j, h, false), (m0 + m, k0 + k));
                let (row, col) = delivered(&|l| a_trans_rows(l, m0, k0), lane, j, h, true);
                assert_eq!((col, row), (m0 + m, k0 + k), "A [k][m], lane {lane}, element {i}");
                // B: registers 0, 1 are the fragment of n0.., 2, 3 of n0 + 8...
                let (kk, n) = frag::mma_m16n8k16_b(lane, 2 * (j % 2) + h);
                let n_tile = n0 + 8 * (j / 2);
                assert_eq!(delivered(&|l| b_rows(l, k0, n0), lane, j, h, true), (k0 + kk, n_tile + n), "B [k][n] lane {lane}");
                let (row, col) = delivered(&|l| b_trans_rows(l, k0, n0), lane, j, h, false);
                assert_eq!((col, row), (k0 + kk, n_tile + n), "B [n][k] lane {lane}");
            }
        }
        // tf32: each 32-bit element is two 16-bit halves of one register.
        for j in 0..4 {
            let (m, k) = frag::mma_m16n8k8_tf32_a(lane, j);
            let (row, col16) = delivered(&|l| { let (r, c) = a_rows_tf32(l, m0, k0); (r, 2 * c) }, lane, j, 0, false);
            assert_eq!((row, col16 / 2), (m0 + m, k0 + k), "tf32 A lane {lane} element {j}");
            let (kk, n) = frag::mma_m16n8k8_tf32_b(lane, j % 2);
            let (row, col16) = delivered(&|l| { let (r, c) = b_trans_rows_tf32(l, k0, n0); (r, 2 * c) }, lane, j, 0, false);
            assert_eq!((col16 / 2, row), (k0 + kk, n0 + 8 * (j / 2) + n), "tf32 B lane {lane} register {j}");
        }
    }
}

proptest! {
    #[test]
    fn block_order_is_a_bijection(tiles_m in 1usize..40, tiles_n in 1usize..40, group in 1usize..10) {
        let mut seen = HashSet::new();
        for bid in 0..tiles_m * tiles_n {
            let (r, c) = block_tile(bid, tiles_m, tiles_n, group);
            prop_assert!(r < tiles_m && c < tiles_n, "{bid} → ({r}, {c})");
            prop_assert!(seen.insert((r, c)));
        }
    }
}

#[test]
fn chunk_copies_cover_each_tile_once() {
    for t in tiles() {
        let mut seen = HashSet::new();
        for q in 0..t.chunks() {
            let (r, c) = t.chunk(q);
            assert!(r < t.rows && c < t.cols && c % t.chunk_elems() == 0);
            assert!(seen.insert((r, c)));
        }
        assert_eq!(seen.len() * t.chunk_elems(), t.rows * t.cols);
    }
}

/// Every fragment a kernel reaches through `SmemTile::delta` is where the
/// tile's layout puts it: for every configuration of the table, warp,
/// lane, `k` step and fragment, `offset(base + delta) == (offset(base) ^
/// xor) + add` (what `compute` relies on).
#[test]
fn fragment_deltas_match_the_layout_for_every_kernel() {
    use super::super::{MmaKernel, F32};
    for kk in MmaKernel::ALL {
        let c = kk.config();
        let (at, bt) = (c.a_tile(), c.b_tile());
        let tf32 = c.input == F32;
        let kstep = c.mma_k();
        for wr in 0..c.bm / c.wm {
            for wc in 0..c.bn / c.wn {
                let (wm0, wn0) = (wr * c.wm, wc * c.wn);
                for lane in 0..32 {
                    let a = match (tf32, c.ta) {
                        (false, false) => a_rows(lane, wm0, 0),
                        (false, true) => a_trans_rows(lane, wm0, 0),
                        (true, _) => a_rows_tf32(lane, wm0, 0),
                    };
                    let b = match (tf32, c.tb) {
                        (false, false) => b_rows(lane, 0, wn0),
                        (false, true) => b_trans_rows(lane, 0, wn0),
                        (true, _) => b_trans_rows_tf32(lane, 0, wn0),
                    };
                    for ks in 0..c.bk / kstep {
                        let k0 = ks * kstep;
                        for mi in 0..c.wm / 16 {
                            let (dr, dc) = if c.ta { (k0, mi * 16) } else { (mi * 16, k0) };
                            let (add, x) = at.delta(dr, dc);
                            assert_eq!(at.offset(a.0 + dr, a.1 + dc), (at.offset(a.0, a.1) ^ x) + add, "{kk:?} A lane {lane} mi {mi} ks {ks}");
                        }
                        for nj in 0..c.wn / 16 {
                            let (dr, dc) = if c.tb { (nj * 16, k0) } else { (k0, nj * 16) };
                            let (add, x) = bt.delta(dr, dc);
                            assert_eq!(bt.offset(b.0 + dr, b.1 + dc), (bt.offset(b.0, b.1) ^ x) + add, "{kk:?} B lane {lane} nj {nj} ks {ks}");
                        }
                    }
                }
            }
        }
        assert!(at.copy_plan_ok(c.threads()) && bt.copy_plan_ok(c.threads()), "{kk:?}");
        // The copy plan: chunk `t + p · threads` is `pass_bytes` after chunk `t`.
        for (tile, name) in [(at, "A"), (bt, "B")] {
            for t in 0..c.threads() {
                let (r, col) = tile.chunk(t);
                for p in 0..copy_passes(tile.chunks(), c.threads()) {
                    let (r2, c2) = tile.chunk(t + p * c.threads());
                    assert_eq!(c2, col, "{kk:?} {name}");
                    assert_eq!(tile.offset(r2, c2), tile.offset(r, col) + p * tile.pass_bytes(c.threads()), "{kk:?} {name} t {t} p {p}");
                }
            }
        }
    }
}
