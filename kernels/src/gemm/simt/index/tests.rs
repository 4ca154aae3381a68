//! Properties of the SGEMM index math: tile loads cover their tiles exactly
//! once, global loads are coalesced, shared accesses have the bank-conflict
//! degree each rung claims.

use std::vec::Vec;

use proptest::prelude::*;

use super::*;
use crate::layout::analysis::{bank_conflict_degree, is_coalesced, WARP};
use crate::gemm::simt::float4::Tiling;
use crate::gemm::simt::*;

/// Every float4-engine configuration, with the names the kernels use.
fn tilings() -> Vec<(&'static str, Tiling)> {
    std::vec![
        ("vectorized", VECTORIZED),
        ("padded", PADDED_TILES),
        ("swizzled", SWIZZLED_TILES),
        ("double_buffered", DOUBLE_BUFFERED),
        ("wt_128x128x8_w64x32", WT_128X128X8_W64X32),
        ("wt_128x128x8_w32x64", WT_128X128X8_W32X64),
        ("wt_128x128x16_w64x32", WT_128X128X16_W64X32),
        ("wt_128x128x16_w32x64", WT_128X128X16_W32X64),
        ("wt_128x256x8_w64x64", WT_128X256X8_W64X64),
        ("wt_128x64x16_w64x32", WT_128X64X16_W64X32),
        ("wt_64x64x16_w32x32", WT_64X64X16_W32X32),
        ("wt_256x128x8_w64x64", WT_256X128X8_W64X64),
        ("wt_64x128x16_w32x64", WT_64X128X16_W32X64),
        ("wt_128x64x8_w64x32", WT_128X64X8_W64X32),
        ("wt_128x128x8_w64x64", WT_128X128X8_W64X64),
        ("wt_128x128x8_w64x64_t16x8", WT_128X128X8_W64X64_T16X8),
        ("wt_128x128x8_w32x128", WT_128X128X8_W32X128),
    ]
}

fn covers_once(rows: usize, cols: usize, nt: usize, vec: usize) -> Result<(), std::string::String> {
    let mut seen = std::vec![0u8; rows * cols];
    for t in 0..nt {
        for p in 0..tile_load_passes(rows, cols, nt, vec) {
            let (r, c) = tile_load(t, p, nt, cols, vec);
            for e in 0..vec {
                if r >= rows || c + e >= cols {
                    return Err(std::format!("thread {t} pass {p} reads ({r}, {}) outside {rows}x{cols}", c + e));
                }
                seen[r * cols + c + e] += 1;
            }
        }
    }
    match seen.iter().position(|&s| s != 1) {
        None => Ok(()),
        Some(i) => Err(std::format!("element {i} of {rows}x{cols} loaded {} times", seen[i])),
    }
}

proptest! {
    #[test]
    fn tile_loads_cover_any_exact_tile_once(cv_log in 0u32..6, vec in prop::sample::select(std::vec![1usize, 2, 4]), warps in 1usize..9, passes in 1usize..5) {
        // cv vectors per row, nt threads, `passes` vectors per thread.
        let (cv, nt) = (1usize << cv_log, warps * 32);
        let (rows, cols) = (nt * passes / cv, cv * vec);
        prop_assert!(tile_load_is_exact(rows, cols, nt, vec));
        prop_assert_eq!(tile_load_passes(rows, cols, nt, vec), passes);
        prop_assert!(covers_once(rows, cols, nt, vec).is_ok());
    }

    #[test]
    fn swizzled_tiles_match_the_cute_swizzle_and_are_bijective(bm_log in 5u32..9, bk in prop::sample::select(std::vec![4usize, 8, 16, 32])) {
        let bm = 1usize << bm_log;
        for tile in [a_tile_t(bm, bk, SWIZZLED), b_tile(bk, bm, SWIZZLED)] {
            prop_assert!(tile.is_valid());
            let mut seen = std::vec![false; tile.footprint()];
            for r in 0..tile.layout.rows {
                for c in 0..tile.layout.cols {
                    let o = tile.offset(r, c);
                    prop_assert_eq!(o, tile.swizzle.apply(tile.layout.offset(r, c)));
                    prop_assert!(!seen[o]);
                    seen[o] = true;
                }
            }
        }
    }
}

#[test]
fn every_configuration_validates_and_loads_its_tiles_once() {
    for (name, t) in tilings() {
        assert!(t.validate(), "{name}");
        covers_once(t.bm, t.bk, t.threads(), 4).unwrap_or_else(|e| panic!("{name}, A tile: {e}"));
        covers_once(t.bk, t.bn, t.threads(), 4).unwrap_or_else(|e| panic!("{name}, B tile: {e}"));
    }
    covers_once(BT1_BM, BT1_BK, BT1_THREADS, 1).unwrap();
    covers_once(BT1_BK, BT1_BN, BT1_THREADS, 1).unwrap();
    covers_once(BT2_BM, BT2_BK, BT2_THREADS, 1).unwrap();
    covers_once(BT2_BK, BT2_BN, BT2_THREADS, 1).unwrap();
}

#[test]
fn shared_tiles_are_bijective_in_their_footprint_and_keep_float4_alignment() {
    for (name, t) in tilings() {
        for (which, tile) in [("A", t.a_tile()), ("B", t.b_tile())] {
            assert!(tile.is_valid(), "{name} {which}");
            let mut seen = std::vec![false; tile.footprint()];
            for r in 0..tile.layout.rows {
                for c in 0..tile.layout.cols {
                    let o = tile.offset(r, c);
                    assert!(!seen[o], "{name} {which}: ({r}, {c}) collides");
                    seen[o] = true;
                    // A float4 of 4 consecutive columns stays 4 consecutive floats.
                    if c % 4 == 0 {
                        assert_eq!(o % 4, 0, "{name} {which}");
                        for e in 1..4 {
                            assert_eq!(tile.offset(r, c + e), o + e, "{name} {which}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn thread_tiles_cover_the_block_tile_once() {
    for (name, t) in tilings() {
        let mut seen = std::vec![0u8; t.bm * t.bn];
        let (rows, cols) = (t.thread_rows(), t.thread_cols());
        for th in 0..t.threads() {
            let (r0, c0) = t.thread_origin(th);
            for i in 0..t.tm {
                for j in 0..t.tn {
                    let (r, c) = (r0 + rows.offset(i / 4, i % 4), c0 + cols.offset(j / 4, j % 4));
                    assert!(r < t.bm && c < t.bn, "{name}: thread {th} result ({r}, {c}) outside");
                    seen[r * t.bn + c] += 1;
                }
            }
        }
        assert!(seen.iter().all(|&s| s == 1), "{name}: thread tiles overlap or leave gaps");
    }
}

/// Byte addresses of one warp's lanes.
fn warp_addrs(warp: usize, f: impl Fn(usize) -> usize) -> [Option<usize>; WARP] {
    core::array::from_fn(|l| Some(f(warp * 32 + l)))
}

#[test]
fn global_tile_loads_are_coalesced() {
    // Large leading dimensions, rows 32-byte aligned (multiples of 8 floats).
    let p = GemmParams { m: 4096, n: 4096, k: 4096, lda: 4104, ldb: 4112, ldc: 4096, alpha: 1.0, beta: 0.0 };
    for (name, t) in tilings() {
        let nt = t.threads();
        for w in 0..nt / 32 {
            for q in 0..t.a_passes() {
                let a = warp_addrs(w, |th| {
                    let (r, c) = tile_load(th, q, nt, t.bk, 4);
                    p.a().offset(r, c) * 4
                });
                assert!(is_coalesced(&a, 16), "{name}: A load, warp {w} pass {q}");
            }
            for q in 0..t.b_passes() {
                let b = warp_addrs(w, |th| {
                    let (r, c) = tile_load(th, q, nt, t.bn, 4);
                    p.b().offset(r, c) * 4
                });
                assert!(is_coalesced(&b, 16), "{name}: B load, warp {w} pass {q}");
            }
        }
    }
}

#[test]
fn rung5_tile_loads_cover_their_tiles_and_stay_coalesced_when_transposed() {
    // m, n, k and leading dimensions ≥ the stored rows, 32-byte aligned.
    let p = GemmParams { m: 1024, n: 512, k: 768, lda: 1032, ldb: 776, ldc: 512, alpha: 1.0, beta: 0.0 };
    let nt = BT2_THREADS;
    for (name, (rows, cols), layouts) in
        [("A", (BT2_BM, BT2_BK), [p.a_op(false), p.a_op(true)]), ("B", (BT2_BK, BT2_BN), [p.b_op(false), p.b_op(true)])]
    {
        for (t, l) in [false, true].into_iter().zip(layouts) {
            let passes = tile_load_passes(rows, cols, nt, 1);
            let mut seen = std::vec![0u8; rows * cols];
            for th in 0..nt {
                for q in 0..passes {
                    let (r, c) = tile_load_stored(th, q, nt, (rows, cols), t);
                    assert!(r < rows && c < cols, "{name} transposed={t}: ({r}, {c})");
                    seen[r * cols + c] += 1;
                }
            }
            assert!(seen.iter().all(|&x| x == 1), "{name} transposed={t}: not every element once");
            for w in 0..nt / 32 {
                for q in 0..passes {
                    let addrs = warp_addrs(w, |th| {
                        let (r, c) = tile_load_stored(th, q, nt, (rows, cols), t);
                        l.offset(r, c) * 4
                    });
                    assert!(is_coalesced(&addrs, 4), "{name} transposed={t}: warp {w} pass {q}");
                }
            }
        }
    }
}

#[test]
fn naive_reads_are_uncoalesced_and_coalesced_rung_fixes_them() {
    let p = GemmParams { m: 1024, n: 1024, k: 1024, lda: 1024, ldb: 1024, ldc: 1024, alpha: 1.0, beta: 0.0 };
    // Naive: lane = row. Coalesced: lane = column.
    let naive: [Option<usize>; 32] = core::array::from_fn(|l| Some(p.a().offset(l, 5) * 4));
    let coal: [Option<usize>; 32] = core::array::from_fn(|l| Some(p.b().offset(5, l) * 4));
    assert!(!is_coalesced(&naive, 4));
    assert!(is_coalesced(&coal, 4));
}

/// Worst conflict degree over the warps of: the transposed A store, the
/// float4 B store, and the compute loop's float4 A and B loads.
fn degrees(t: &Tiling) -> [usize; 4] {
    let (at, bt) = (t.a_tile(), t.b_tile());
    let (rows, cols) = (t.thread_rows(), t.thread_cols());
    let nt = t.threads();
    let mut d = [0usize; 4];
    for w in 0..nt / 32 {
        for q in 0..t.a_passes() {
            for e in 0..4 {
                let s = warp_addrs(w, |th| {
                    let (r, c) = tile_load(th, q, nt, t.bk, 4);
                    at.offset(c + e, r) * 4
                });
                d[0] = d[0].max(bank_conflict_degree(&s, 4));
            }
        }
        for q in 0..t.b_passes() {
            let s = warp_addrs(w, |th| {
                let (r, c) = tile_load(th, q, nt, t.bn, 4);
                bt.offset(r, c) * 4
            });
            d[1] = d[1].max(bank_conflict_degree(&s, 16));
        }
        for k in 0..t.bk {
            for i4 in 0..t.tm / 4 {
                let s = warp_addrs(w, |th| at.offset(k, t.thread_origin(th).0 + rows.offset(i4, 0)) * 4);
                d[2] = d[2].max(bank_conflict_degree(&s, 16));
            }
            for j4 in 0..t.tn / 4 {
                let s = warp_addrs(w, |th| bt.offset(k, t.thread_origin(th).1 + cols.offset(j4, 0)) * 4);
                d[3] = d[3].max(bank_conflict_degree(&s, 16));
            }
        }
    }
    d
}

#[test]
fn bank_conflict_degrees_are_what_each_rung_claims() {
    // [A store, B store, A load, B load]
    assert_eq!(degrees(&VECTORIZED), [2, 1, 1, 2], "rung 6 keeps two 2-way conflicts");
    assert_eq!(degrees(&PADDED_TILES), [1, 1, 1, 2], "padding fixes the transposed A store");
    assert_eq!(degrees(&SWIZZLED_TILES), [1, 1, 1, 1], "the swizzles fix both");
    assert_eq!(degrees(&DOUBLE_BUFFERED), [1, 1, 1, 1]);
    for (name, t) in tilings().into_iter().skip(4) {
        assert_eq!(degrees(&t), [1, 1, 1, 1], "{name}");
    }
}

#[test]
fn plain_a_tile_with_bk16_would_conflict_four_ways() {
    let t = Tiling { a_smem: PLAIN, ..WT_128X128X16_W64X32 };
    assert_eq!(degrees(&t)[0], 4);
    let t = Tiling { a_smem: PADDED, ..WT_128X128X16_W64X32 };
    assert_eq!(degrees(&t)[0], 2, "padding by 4 only halves it for BK = 16: the swizzle is needed");
}

#[test]
fn seed_a_tile_view_and_thread_maps() {
    // As[(threadRow * TM + i) * BK + dotIdx] of rung 4.
    let v = a_tile_by_thread(BT1_BM, BT1_TM, BT1_BK);
    for tr in 0..BT1_BM / BT1_TM {
        for i in 0..BT1_TM {
            for d in 0..BT1_BK {
                assert_eq!(v.offset(tr, i, d), (tr * BT1_TM + i) * BT1_BK + d);
            }
        }
    }
    // C as (M/TM, TM, N/TN, TN): thread (tr, tc) result (i, j) at row tr*TM+i, col tc*TN+j.
    let (rows, cols) = (rows_of(BT2_BM, BT2_TM), rows_of(BT2_BN, BT2_TN));
    let (tr, tc) = thread_tile(37, BT2_BN, BT2_TN);
    assert_eq!((tr, tc), (2, 5));
    assert_eq!((rows.offset(tr, 3), cols.offset(tc, 7)), (19, 47));
    // Warp tiling 32 x 64 with lanes 4 x 8: lane 5 of warp 3.
    let wt = WT_128X128X8_W32X64.warp_tiling();
    assert_eq!((wt.lm, wt.ln(), wt.wmiter(), wt.wniter()), (4, 8, 2, 2));
    let (r, c) = wt.origin(3 * 32 + 5);
    // warp 3 → (1, 1): rows 32.., cols 64..; lane 5 → (1, 1): +4, +4.
    assert_eq!((r, c), (36, 68));
}

#[test]
fn launch_geometry() {
    let p = GemmParams { m: 1000, n: 129, k: 7, lda: 7, ldb: 129, ldc: 129, alpha: 1.0, beta: 0.0 };
    let cfg = WT_128X128X8_W64X32.config(&p);
    assert_eq!(cfg.grid, [2, 8, 1]);
    assert_eq!(cfg.block, [256, 1, 1]);
    assert_eq!(cfg.shared_bytes as usize, 2 * (8 * 128 + 8 * 128) * 4);
    assert!(tile_is_interior(&p, 0, 0, 128, 128));
    assert!(!tile_is_interior(&p, 896, 0, 128, 128));
    assert!(!tile_is_interior(&p, 0, 128, 128, 128));
}

/// Every configuration of rung 10's row-major-`A` engine.
fn multistages() -> Vec<(&'static str, Multistage)> {
    std::vec![
        ("ms_256x128x8_s3", MS_256X128X8_S3),
        ("ms_128x256x8_s3", MS_128X256X8_S3),
        // 128 x 128 x 8 with 2-k A loads (tried with launch bounds).
        ("ms_128x128x8_av2", Multistage { bm: 128, bn: 128, bk: 8, wm: 32, wn: 64, tm: 8, tn: 8, stages: 3, av: 2 }),
    ]
}

proptest! {
    #[test]
    fn row_major_a_tiles_are_bijective_and_keep_chunks(bm_log in 5u32..9, bk in prop::sample::select(std::vec![4usize, 8, 16, 32])) {
        let tile = a_tile_rows(1 << bm_log, bk);
        prop_assert!(tile.is_valid());
        let mut seen = std::vec![false; tile.footprint()];
        for r in 0..tile.layout.rows {
            for c in 0..bk {
                let o = tile.offset(r, c);
                prop_assert_eq!(o, tile.swizzle.apply(tile.layout.offset(r, c)));
                prop_assert!(!seen[o]);
                seen[o] = true;
                // A 16-byte chunk stays whole and aligned (cp.async copies it).
                prop_assert_eq!(o % 4, c % 4);
                prop_assert_eq!(o - c % 4, tile.offset(r, c - c % 4));
            }
        }
    }

    #[test]
    fn chunk_bytes_counts_the_columns_inside(c4 in 0u32..64, cols in 0u32..80, row_ok in any::<bool>()) {
        let c = 4 * c4;
        let inside = (c..c + 4).filter(|&x| x < cols).count() as u32;
        prop_assert_eq!(chunk_bytes(row_ok, c, cols), if row_ok { 4 * inside } else { 0 });
    }
}

#[test]
fn multistage_configurations_validate_and_copy_each_chunk_once() {
    for (name, m) in multistages() {
        assert!(m.validate(), "{name}");
        covers_once(m.bm, m.bk, m.threads(), 4).unwrap_or_else(|e| panic!("{name}, A tile: {e}"));
        covers_once(m.bk, m.bn, m.threads(), 4).unwrap_or_else(|e| panic!("{name}, B tile: {e}"));
        assert!(m.shared_bytes() <= k10_multistage::MAX_SHARED_BYTES, "{name}");
    }
    for (name, m) in [("mst_128x256x8_s3", MST_128X256X8_S3), ("mst_128x128x8_s3", MultistageT { tiling: WT_128X128X8_W32X64_IL, stages: 3 })] {
        assert!(m.validate(), "{name}");
        covers_once(m.tiling.bm, m.tiling.bk, m.threads(), 4).unwrap_or_else(|e| panic!("{name}, A tile: {e}"));
        covers_once(m.tiling.bk, m.tiling.bn, m.threads(), 4).unwrap_or_else(|e| panic!("{name}, B tile: {e}"));
        // The element copies of A go where rung 9's scalar stores went:
        // conflict-free ([A store, B store, A load, B load]).
        assert_eq!(degrees(&m.tiling), [1, 1, 1, 1], "{name}");
    }
}

#[test]
fn lane_tiles_cover_the_block_tile_once() {
    for (name, m) in multistages() {
        let lanes = m.lanes();
        assert!(lanes.is_valid(), "{name}");
        let mut seen = std::vec![0u8; m.bm * m.bn];
        for th in 0..m.threads() {
            let (r0, c0) = lanes.origin(th);
            for i in 0..m.tm {
                for j in 0..m.tn {
                    let (r, c) = (r0 + lanes.rows().offset(i, 0), c0 + lanes.cols().offset(j / 4, j % 4));
                    assert!(r < m.bm && c < m.bn, "{name}: thread {th} result ({r}, {c}) outside");
                    seen[r * m.bn + c] += 1;
                }
            }
        }
        assert!(seen.iter().all(|&s| s == 1), "{name}: lane tiles overlap or leave gaps");
    }
}

/// Worst conflict degree of rung 10's accesses: [A copy, B copy, A load,
/// B load] (copies and B loads are 16 bytes, A loads `4 · AV` bytes).
fn multistage_degrees(m: &Multistage) -> [usize; 4] {
    let (at, bt, lanes) = (m.a_tile(), m.b_tile(), m.lanes());
    let nt = m.threads();
    let mut d = [0usize; 4];
    for w in 0..nt / 32 {
        for q in 0..m.a_passes() {
            let s = warp_addrs(w, |th| {
                let (r, c) = tile_load(th, q, nt, m.bk, 4);
                at.offset(r, c) * 4
            });
            d[0] = d[0].max(bank_conflict_degree(&s, 16));
        }
        for q in 0..m.b_passes() {
            let s = warp_addrs(w, |th| {
                let (r, c) = tile_load(th, q, nt, m.bn, 4);
                bt.offset(r, c) * 4
            });
            d[1] = d[1].max(bank_conflict_degree(&s, 16));
        }
        for kb in (0..m.bk).step_by(m.av) {
            for i in 0..m.tm {
                let s = warp_addrs(w, |th| at.offset(lanes.origin(th).0 + lanes.rows().offset(i, 0), kb) * 4);
                d[2] = d[2].max(bank_conflict_degree(&s, 4 * m.av));
            }
        }
        for k in 0..m.bk {
            for j4 in 0..m.tn / 4 {
                let s = warp_addrs(w, |th| bt.offset(k, lanes.origin(th).1 + lanes.cols().offset(j4, 0)) * 4);
                d[3] = d[3].max(bank_conflict_degree(&s, 16));
            }
        }
    }
    d
}

#[test]
fn multistage_accesses_are_conflict_free() {
    for (name, m) in multistages() {
        assert_eq!(multistage_degrees(&m), [1, 1, 1, 1], "{name}");
    }
    // Without the swizzle, BK = 16 rows 64 bytes apart collide: lanes of
    // one phase read rows r and r + 2 in the same banks.
    let m = Multistage { bk: 16, ..MS_256X128X8_S3 };
    assert_eq!(multistage_degrees(&m), [1, 1, 1, 1]);
    let plain = SmemTile { swizzle: crate::layout::Swizzle::NONE, ..m.a_tile() };
    let lanes = m.lanes();
    let s = warp_addrs(0, |th| plain.offset(lanes.origin(th).0, 0) * 4);
    assert_eq!(bank_conflict_degree(&s, 16), 2);
}

proptest! {
    /// An edge block's unpredicated reads: every `B` vector of a tile of
    /// the edge loop lies inside `B`'s required extent (`(k − 1)·ldb + n`
    /// elements) and, for the columns below `n`, reads exactly the column
    /// the tile wants; every clamped `A` row is a row of `A`, the same one
    /// whenever the tile row is inside.
    #[test]
    fn edge_block_clamped_reads_stay_inside_and_keep_the_needed_values(
        n in 1usize..600,
        pad4 in 0usize..3,
        k in 1usize..300,
        m in 1usize..600,
        bk in prop::sample::select(std::vec![4usize, 8, 16, 32]),
        col4 in 0usize..200,
        row in 0usize..700,
    ) {
        let ldb = n.next_multiple_of(4) + 4 * pad4;
        let col = 4 * col4;
        let c = clamp_vec_col(col, ldb);
        prop_assert!(c % 4 == 0 && c + 4 <= ldb);
        if col < n {
            prop_assert_eq!(c, col);
        }
        let len = (k - 1) * ldb + n;
        let tiles = edge_full_k_tiles(k, bk);
        prop_assert!(tiles * bk < k || tiles == 0);
        for kt in 0..tiles {
            let last_row = kt * bk + bk - 1;
            prop_assert!(last_row * ldb + c + 3 < len, "tile {} reads past the buffer", kt);
        }
        let r = clamp_row(row, m);
        prop_assert!(r < m);
        if row < m {
            prop_assert_eq!(r, row);
        }
    }
}

proptest! {
    /// The split-k slices cover the `k` tiles once, in order, none empty.
    #[test]
    fn split_k_slices_cover_every_k_tile_once(k in 1u32..100_000, per in 1u32..64, bk in prop::sample::select(std::vec![8usize, 16, 32])) {
        let ks = per * bk as u32;
        let ktiles = (k as usize).div_ceil(bk);
        let s = split_k_slices(k, ks);
        let mut next = 0;
        for z in 0..s {
            let (a, b) = split_k_tiles(z, ks, bk, ktiles);
            prop_assert_eq!(a, next);
            prop_assert!(b > a, "slice {} of {} is empty", z, s);
            next = b;
        }
        prop_assert_eq!(next, ktiles);
        prop_assert_eq!(split_k_tiles(s, ks, bk, ktiles), (ktiles, ktiles));
    }
}

proptest! {
    /// The partial-product kernel writes slice `z` where the shared
    /// reduction reads it: the SIMT workspace's slice `z`, row 0, column 0.
    #[test]
    fn split_k_slice_offset_is_the_workspace_slice(m in 1u32..5000, n in 1u32..5000, pad in 0u32..9, z in 0u32..64) {
        let p = GemmParams { m, n, k: 64, lda: 64, ldb: n, ldc: n + pad, alpha: 1.0, beta: 0.0 };
        let w = crate::gemm::simt::split_k_workspace(&p, p.ldc, z + 1);
        prop_assert_eq!(split_k_slice_offset(z, &p), w.offset(0, z as usize, 0, 0));
    }
}

#[test]
fn split_k_depth_is_whole_tiles_and_covers_k_in_at_most_the_slices_asked() {
    use crate::gemm::simt::{split_k_depth, SplitConfig};
    for t in SplitConfig::ALL.iter().map(|c| c.config()) {
        assert_eq!(SPLIT_K_MIN_DEPTH as usize % t.bk, 0);
        for k in [1u32, 15, 16, 255, 256, 1000, 4096, 65536, 1 << 20] {
            for slices in 1u32..80 {
                let ks = split_k_depth(k, slices, t.bk as u32);
                assert!(ks as usize % t.bk == 0 && ks >= SPLIT_K_MIN_DEPTH, "{k} {slices}");
                assert!(split_k_slices(k, ks) <= slices, "{k} {slices}: {}", split_k_slices(k, ks));
            }
        }
    }
}
