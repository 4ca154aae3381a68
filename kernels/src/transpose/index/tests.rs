//! Properties of the transpose index math, computed from the functions the
//! kernels call: every rung moves each input element to its transposed
//! place exactly once, the tiled rungs' warps access global memory in
//! consecutive runs, and the shared-memory bank-conflict degree of each
//! warp-wide access is what the rung's doc comment claims.

use super::*;
use crate::transpose::{FlatConfig, LinesConfig, SmemConfig, VecConfig};
use crate::layout::analysis::{bank_conflict_degree, is_coalesced};
use proptest::prelude::*;
use std::vec;
use std::vec::Vec;

/// Every scalar tile of the table, with its kernel's name.
fn scalar() -> Vec<(&'static str, SmemTile)> {
    SmemConfig::ALL.iter().map(|c| (c.name(), c.config())).collect()
}

/// Every vectorised tile of the table, with its kernel's name.
fn vector() -> Vec<(&'static str, VecTile)> {
    VecConfig::ALL.iter().map(|c| (c.name(), c.config())).collect()
}

/// The 32 lanes of warp `w` of a block: lane `l` is linear thread `32w + l`.
fn lanes(w: usize, f: impl Fn(u32) -> Option<usize>) -> [Option<usize>; 32] {
    core::array::from_fn(|l| f((w * 32 + l) as u32))
}

/// Runs the scalar tiled kernel's index path for every thread of every
/// block; returns `out[o] = input offset` (or an error string).
fn simulate_scalar(g: SmemTile, nx: u32, ny: u32) -> Result<Vec<usize>, std::string::String> {
    let (src, dst) = (input_layout(nx, ny), output_layout(nx, ny));
    let cfg = g.config(nx, ny);
    let tile = g.shared_layout();
    let mut out = vec![usize::MAX; dst.size()];
    let mut loaded = vec![false; src.size()];
    for by in 0..cfg.grid[1] {
        for bx in 0..cfg.grid[0] {
            let mut shared = vec![None; tile.cosize()];
            let (r0, c0) = g.input_origin(bx, by);
            for ty in 0..cfg.block[1] {
                for tx in 0..cfg.block[0] {
                    for s in 0..g.per_thread() {
                        let (r, c) = g.load_coord(tx, ty, s);
                        if !tile.in_bounds(r, c) {
                            return Err(std::format!("load coord ({r}, {c}) outside the tile"));
                        }
                        if src.in_bounds(r0 + r, c0 + c) {
                            let o = src.offset(r0 + r, c0 + c);
                            if std::mem::replace(&mut loaded[o], true) {
                                return Err(std::format!("input {o} loaded twice"));
                            }
                            if shared[tile.offset(r, c)].replace(o).is_some() {
                                return Err(std::format!("shared ({r}, {c}) stored twice"));
                            }
                        }
                    }
                }
            }
            let (o0, p0) = g.output_origin(bx, by);
            for bidx in 0..g.threads() as u32 {
                for s in 0..g.per_thread() {
                    let (irow, icol) = g.store_coord(bidx, s);
                    if dst.in_bounds(o0 + irow, p0 + icol) {
                        let Some(from) = shared[tile.offset(icol, irow)] else {
                            return Err(std::format!("shared ({icol}, {irow}) read before it was written"));
                        };
                        let o = dst.offset(o0 + irow, p0 + icol);
                        if out[o] != usize::MAX {
                            return Err(std::format!("output {o} written twice"));
                        }
                        out[o] = from;
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The same for the vectorised kernels (16-byte chunks).
fn simulate_vector(g: VecTile, nx: u32, ny: u32) -> Result<Vec<usize>, std::string::String> {
    let (src, dst) = (input_layout(nx, ny), output_layout(nx, ny));
    let cfg = g.config(nx, ny);
    let mut out = vec![usize::MAX; dst.size()];
    let mut loaded = vec![false; src.size()];
    for by in 0..cfg.grid[1] {
        for bx in 0..cfg.grid[0] {
            let mut shared = vec![None; g.shared_layout().cosize()];
            let (r0, c0) = g.input_origin(bx, by);
            for t in 0..g.threads as u32 {
                for j in 0..g.blocks_per_thread() {
                    let (mr, mc) = g.micro_block(t, j);
                    for i in 0..VEC {
                        let (r, c) = (r0 + mr * VEC + i, c0 + mc * VEC);
                        if src.in_bounds(r, c + VEC - 1) {
                            for k in 0..VEC {
                                let o = src.offset(r, c + k);
                                if std::mem::replace(&mut loaded[o], true) {
                                    return Err(std::format!("input {o} loaded twice"));
                                }
                                // Element k of row i goes to shared row mc·4 + k, column mr·4 + i.
                                let so = g.shared_offset(mc * VEC + k, mr * VEC + i);
                                if so % VEC != i {
                                    return Err(std::format!("shared offset {so} breaks the 16-byte chunk"));
                                }
                                if shared[so].replace(o).is_some() {
                                    return Err(std::format!("shared {so} stored twice"));
                                }
                            }
                        }
                    }
                }
            }
            let (o0, p0) = g.output_origin(bx, by);
            for t in 0..g.threads as u32 {
                for s in 0..VEC * g.blocks_per_thread() {
                    let (row, col) = g.store_chunk(t, s);
                    if dst.in_bounds(o0 + row, p0 + col + VEC - 1) {
                        let base = g.shared_offset(row, col);
                        for k in 0..VEC {
                            let Some(from) = shared[base + k] else {
                                return Err(std::format!("shared {} read before it was written", base + k));
                            };
                            let o = dst.offset(o0 + row, p0 + col + k);
                            if out[o] != usize::MAX {
                                return Err(std::format!("output {o} written twice"));
                            }
                            out[o] = from;
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}

/// `out[o]` must be the input offset of the transposed coordinate.
fn is_transpose(out: &[usize], nx: u32, ny: u32) -> Result<(), std::string::String> {
    let (src, dst) = (input_layout(nx, ny), output_layout(nx, ny));
    for r in 0..dst.rows {
        for c in 0..dst.cols {
            let (got, want) = (out[dst.offset(r, c)], src.offset(c, r));
            if got != want {
                return Err(std::format!("output ({r}, {c}) holds input offset {got}, expected {want}"));
            }
        }
    }
    Ok(())
}

#[test]
fn every_config_is_valid() {
    for (name, g) in scalar() {
        assert!(g.validate(), "{name}");
        assert_eq!(g.per_thread() * g.threads(), g.rows * g.cols, "{name}");
    }
    for (name, g) in vector() {
        assert!(g.validate(), "{name}");
    }
    assert!(!SmemTile::new(33, 32, 8, 1).validate());
    assert!(!VecTile::new(48, 64).validate());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn naive_mappings_are_bijections(nx in 1u32..80, ny in 1u32..80) {
        let (src, dst) = (input_layout(nx, ny), output_layout(nx, ny));
        let mut hits = vec![0u8; dst.size()];
        let cfg = naive_config(nx, ny);
        for gy in 0..cfg.grid[1] * cfg.block[1] {
            for gx in 0..cfg.grid[0] * cfg.block[0] {
                let (r, c) = naive_row_coord(gx, gy);
                if src.in_bounds(r, c) {
                    hits[dst.offset(c, r)] += 1;
                }
            }
        }
        prop_assert!(hits.iter().all(|&h| h == 1));
        let mut hits = vec![0u8; src.size()];
        let cfg = naive_col_config(nx, ny);
        for gy in 0..cfg.grid[1] * cfg.block[1] {
            for gx in 0..cfg.grid[0] * cfg.block[0] {
                let (r, c) = naive_col_coord(gx, gy);
                if dst.in_bounds(r, c) {
                    hits[src.offset(c, r)] += 1;
                }
            }
        }
        prop_assert!(hits.iter().all(|&h| h == 1));
    }

    #[test]
    fn scalar_tiles_move_every_element_to_its_transpose_once(nx in 1u32..150, ny in 1u32..150, which in 0..SmemConfig::ALL.len()) {
        let (name, g) = scalar()[which];
        let out = simulate_scalar(g, nx, ny).map_err(|e| TestCaseError::fail(std::format!("{name}: {e}")))?;
        is_transpose(&out, nx, ny).map_err(|e| TestCaseError::fail(std::format!("{name}: {e}")))?;
    }

    #[test]
    fn vector_tiles_move_every_element_to_its_transpose_once(qx in 1u32..40, qy in 1u32..40, which in 0..VecConfig::ALL.len()) {
        let (nx, ny) = (qx * 4, qy * 4);
        let (name, g) = vector()[which];
        prop_assert!(VecTile::supports(nx, ny));
        let out = simulate_vector(g, nx, ny).map_err(|e| TestCaseError::fail(std::format!("{name}: {e}")))?;
        is_transpose(&out, nx, ny).map_err(|e| TestCaseError::fail(std::format!("{name}: {e}")))?;
    }

    #[test]
    fn scalar_tile_warps_read_and_write_32_consecutive_elements(nx in 256u32..700, ny in 256u32..700, which in 0..SmemConfig::ALL.len()) {
        // An interior tile of a large matrix: block (1, 1).
        let (name, g) = scalar()[which];
        let (src, dst) = (input_layout(nx, ny), output_layout(nx, ny));
        let ((r0, c0), (o0, p0)) = (g.input_origin(1, 1), g.output_origin(1, 1));
        for w in 0..g.block_y {
            for s in 0..g.per_thread() {
                let reads = lanes(w, |t| {
                    let (r, c) = g.load_coord(t % 32, t / 32, s);
                    Some(src.offset(r0 + r, c0 + c) * 4)
                });
                let writes = lanes(w, |t| {
                    let (irow, icol) = g.store_coord(t, s);
                    Some(dst.offset(o0 + irow, p0 + icol) * 4)
                });
                for a in [reads, writes] {
                    let first = a[0].unwrap();
                    prop_assert!(a.iter().enumerate().all(|(l, x)| *x == Some(first + 4 * l)), "{}: warp {} step {}: {:?}", name, w, s, a);
                    prop_assert!(is_coalesced(&a, 4));
                }
            }
        }
    }
}

/// Worst conflict degree over every warp and step of (store, transposed load).
fn scalar_bank_conflicts(g: SmemTile) -> (usize, usize) {
    let tile = g.shared_layout();
    let (mut store, mut load) = (0, 0);
    for w in 0..g.block_y {
        for s in 0..g.per_thread() {
            let st = lanes(w, |t| {
                let (r, c) = g.load_coord(t % 32, t / 32, s);
                Some(tile.offset(r, c) * 4)
            });
            let ld = lanes(w, |t| {
                let (irow, icol) = g.store_coord(t, s);
                Some(tile.offset(icol, irow) * 4)
            });
            store = store.max(bank_conflict_degree(&st, 4));
            load = load.max(bank_conflict_degree(&ld, 4));
        }
    }
    (store, load)
}

#[test]
fn padded_tiles_are_conflict_free_and_the_unpadded_one_is_32_way() {
    assert_eq!(scalar_bank_conflicts(SMEM), (1, 32));
    for (name, g) in scalar().into_iter().filter(|&(_, g)| g != SMEM) {
        assert_eq!(g.pad, 1);
        assert_eq!(scalar_bank_conflicts(g), (1, 1), "{name}");
    }
    // Without the pad, the ×2 unrolled tile (64 columns) conflicts 32-way too.
    assert_eq!(scalar_bank_conflicts(SmemTile { pad: 0, ..SMEM_PAD_UNROLL2 }), (1, 32));
}

/// Worst conflict degree of the vectorised kernels' 16-byte (store, load).
fn vector_bank_conflicts(g: VecTile) -> (usize, usize) {
    let (mut store, mut load) = (0, 0);
    for w in 0..g.threads / 32 {
        for j in 0..g.blocks_per_thread() {
            for i in 0..VEC {
                let st = lanes(w, |t| {
                    let (mr, mc) = g.micro_block(t, j);
                    Some(g.shared_offset(mc * VEC + i, mr * VEC) * 4)
                });
                store = store.max(bank_conflict_degree(&st, 16));
            }
        }
        for s in 0..VEC * g.blocks_per_thread() {
            let ld = lanes(w, |t| {
                let (row, col) = g.store_chunk(t, s);
                Some(g.shared_offset(row, col) * 4)
            });
            load = load.max(bank_conflict_degree(&ld, 16));
        }
    }
    (store, load)
}

#[test]
fn swizzled_vector_tiles_are_conflict_free_and_unswizzled_ones_8_way() {
    for (name, g) in vector() {
        assert_eq!(vector_bank_conflicts(g), (1, 1), "{name}");
        assert_eq!(vector_bank_conflicts(g.unswizzled()), (8, 1), "{name} unswizzled");
    }
}

#[test]
fn vector_tile_warps_access_whole_sectors() {
    let (nx, ny) = (1024u32, 512u32);
    let (src, dst) = (input_layout(nx, ny), output_layout(nx, ny));
    for (name, g) in vector() {
        let ((r0, c0), (o0, p0)) = (g.input_origin(1, 1), g.output_origin(1, 1));
        for w in 0..g.threads / 32 {
            for j in 0..g.blocks_per_thread() {
                for i in 0..VEC {
                    let a = lanes(w, |t| {
                        let (mr, mc) = g.micro_block(t, j);
                        Some(src.offset(r0 + mr * VEC + i, c0 + mc * VEC) * 4)
                    });
                    assert!(is_coalesced(&a, 16), "{name} read");
                    // Runs of chunks_per_row lanes are consecutive 16-byte chunks.
                    for run in a.chunks(g.chunks_per_row().min(32)) {
                        let f = run[0].unwrap();
                        assert!(run.iter().enumerate().all(|(l, x)| *x == Some(f + 16 * l)), "{name} read run");
                    }
                }
            }
            for s in 0..VEC * g.blocks_per_thread() {
                let a = lanes(w, |t| {
                    let (row, col) = g.store_chunk(t, s);
                    Some(dst.offset(o0 + row, p0 + col) * 4)
                });
                assert!(is_coalesced(&a, 16), "{name} write");
                for run in a.chunks(g.chunks_per_row().min(32)) {
                    let f = run[0].unwrap();
                    assert!(run.iter().enumerate().all(|(l, x)| *x == Some(f + 16 * l)), "{name} write run");
                }
            }
        }
    }
}

#[test]
fn launch_configs_cover_the_matrix() {
    let c = SMEM_PAD.config(8191, 37);
    assert_eq!((c.grid, c.block, c.shared_bytes), ([256, 2, 1], [32, 8, 1], (31 * 33 + 32) * 4));
    let c = SMEM_PAD_UNROLL2.config(37, 8191);
    assert_eq!((c.grid, c.block, c.shared_bytes), ([1, 256, 1], [32, 8, 1], (31 * 65 + 64) * 4));
    let c = VEC4_T64_B256.config(8192, 8192);
    assert_eq!((c.grid, c.block, c.shared_bytes), ([128, 128, 1], [256, 1, 1], 64 * 64 * 4));
    assert_eq!(naive_col_config(100, 7).grid, [1, 13, 1]);
}

proptest! {
    #[test]
    fn div_walk_matches_division(start in 0u32..10_000, step in 1u32..2048, d in 1u32..5000, n in 0usize..40) {
        let mut w = DivWalk::new(start, step, d);
        for k in 0..n as u32 {
            let i = start + k * step;
            prop_assert_eq!((w.q, w.r), (i / d, i % d));
            w.advance();
        }
    }
}

/// Runs the thin kernels' index path (as `thin_tile` walks it) for every
/// thread of every block of an `nx × ny` input; returns `out[o] = input
/// offset`, checking each shared slot is written once and read after.
fn simulate_thin(g: ThinTile, nx: u32, ny: u32) -> Result<Vec<usize>, std::string::String> {
    let (src, dst) = (input_layout(nx, ny), output_layout(nx, ny));
    let (s, l, tall) = ThinTile::sides(nx, ny);
    let cfg = g.config(nx, ny);
    assert_eq!(cfg.block[0] as usize, g.threads);
    let lines = g.lines(s);
    let tile = g.shared_layout(s);
    if tile.cosize() * 4 > cfg.shared_bytes as usize {
        return Err("shared tile larger than the launch's shared memory".into());
    }
    let strided = if tall { dst } else { src };
    let mut out = vec![usize::MAX; dst.size()];
    for b in 0..cfg.grid[0] {
        let r0 = b * lines;
        let rb = (l - r0).min(lines);
        let n = rb * s;
        let run = if tall { src.offset(r0 as usize, 0) } else { dst.offset(r0 as usize, 0) };
        // Contiguous side: element i ↔ shared (i / s, i % s) ↔ global run + i.
        // Strided side: element j ↔ shared (j % rb, j / rb) ↔ strided (j / rb, r0 + j % rb).
        let mut shared = vec![None; tile.cosize()];
        let (mut first, mut second) = (vec![], vec![]);
        for t in 0..g.threads as u32 {
            let (mut wc, mut ws) = (DivWalk::new(t, g.threads as u32, s), DivWalk::new(t, g.threads as u32, rb));
            for k in 0..g.per_thread() as u32 {
                let i = t + k * g.threads as u32;
                if i < n {
                    let c = (tile.offset(wc.q as usize, wc.r as usize), run + i as usize);
                    let st = (tile.offset(ws.r as usize, ws.q as usize), strided.offset(ws.q as usize, (r0 + ws.r) as usize));
                    if tall {
                        first.push(c);
                        second.push(st);
                    } else {
                        first.push(st);
                        second.push(c);
                    }
                }
                wc.advance();
                ws.advance();
            }
        }
        for (sh, glob) in first {
            if shared[sh].replace(glob).is_some() {
                return Err(std::format!("block {b}: shared {sh} stored twice"));
            }
        }
        for (sh, o) in second {
            let from = shared[sh].ok_or_else(|| std::format!("block {b}: shared {sh} read before stored"))?;
            if std::mem::replace(&mut out[o], from) != usize::MAX {
                return Err(std::format!("output {o} written twice"));
            }
        }
    }
    Ok(out)
}

proptest! {
    #[test]
    fn thin_tiles_move_every_element_to_its_transposed_place(s in 1u32..=THIN_MAX, l in 1u32..3000, tall in any::<bool>()) {
        let (nx, ny) = if tall { (s, l) } else { (l, s) };
        prop_assert!(ThinTile::supports(nx, ny));
        let out = simulate_thin(THIN, nx, ny).map_err(TestCaseError::fail)?;
        let (src, dst) = (input_layout(nx, ny), output_layout(nx, ny));
        for r in 0..ny as usize {
            for c in 0..nx as usize {
                prop_assert_eq!(out[dst.offset(c, r)], src.offset(r, c), "({}, {}) of {}x{}", r, c, nx, ny);
            }
        }
    }
}

#[test]
fn thin_tile_is_valid_and_its_strided_side_conflict_free_and_coalesced() {
    assert!(THIN.validate());
    for s in 1..=THIN_MAX {
        let lines = THIN.lines(s);
        assert!(lines >= 32 && lines % 32 == 0 && lines as usize * s as usize <= THIN.elems, "{s}");
        let tile = THIN.shared_layout(s);
        // Strided side, full block: warp w's lanes j = 32w + l, on every step.
        for k in 0..THIN.per_thread() as u32 {
            for w in 0..THIN.threads / 32 {
                let j = |l: u32| w as u32 * 32 + l + k * THIN.threads as u32;
                let sh = lanes(0, |l| {
                    let j = j(l);
                    (j < lines * s).then(|| tile.offset((j % lines) as usize, (j / lines) as usize) * 4)
                });
                assert!(bank_conflict_degree(&sh, 4) <= 1, "s = {s}");
                // Global: position j / lines, line r0 + j % lines: 32 consecutive.
                let gl = lanes(0, |l| {
                    let j = j(l);
                    (j < lines * s).then(|| ((j / lines) as usize * 100_000 + (j % lines) as usize) * 4)
                });
                assert!(is_coalesced(&gl, 4), "s = {s}");
            }
        }
    }
}

proptest! {
    /// Realigned loads: each lane's chunk is 16-byte aligned in memory,
    /// the next lane's chunk follows it, and the picked elements are the
    /// lane's four columns of the segment.
    #[test]
    fn realigned_loads_read_aligned_chunks_and_pick_the_lanes_columns(seg in 0usize..100_000, base in 0u32..4, tile in prop::sample::select(vec![32usize, 64])) {
        let s = chunk_shift(seg, base);
        prop_assert!(s < VEC);
        for c in 0..tile / VEC {
            let at = realigned_load_start(seg, c, s);
            prop_assert_eq!((at + base as isize).rem_euclid(VEC as isize), 0, "chunk of lane {} not aligned", c);
            prop_assert_eq!(realigned_load_start(seg, c + 1, s), at + VEC as isize);
            for e in 0..VEC {
                let k = realigned_pick(s, e);
                prop_assert!(k < 2 * VEC);
                prop_assert_eq!(at + k as isize, (seg + VEC * c + e) as isize);
            }
        }
    }

    /// Realigned stores: every element of a segment is written exactly
    /// once, with the value of its column, nothing outside it is written,
    /// and every whole chunk (a 16-byte store) is aligned.
    #[test]
    fn realigned_stores_write_each_segment_element_once(seg in 0usize..100_000, base in 0u32..4, tile in prop::sample::select(vec![32usize, 64])) {
        let t = chunk_shift(seg, base);
        let last = tile / VEC - 1;
        let mut written = vec![0u32; tile];
        for c in 0..=last {
            let at = (seg + VEC * c) as isize - t as isize;
            let (lo, hi) = realigned_store_span(c, t);
            if lo == 0 && hi == VEC {
                prop_assert_eq!((at + base as isize).rem_euclid(VEC as isize), 0, "whole chunk of lane {} not aligned", c);
            }
            for j in lo..hi {
                let k = realigned_store_pick(t, j);
                prop_assert!(k < 2 * VEC);
                // Column of the value: the previous lane's (k < 4) or its own.
                let col = if k < VEC { prop_assert!(c > 0, "lane 0 uses its previous lane"); VEC * (c - 1) + k } else { VEC * c + k - VEC };
                let i = at + j as isize;
                prop_assert_eq!(i, (seg + col) as isize, "lane {} element {} holds the wrong column", c, j);
                written[col] += 1;
            }
            if c == last {
                // The tail: its own elements 4 - t .. 4, one by one.
                for e in VEC - t..VEC {
                    written[VEC * c + e] += 1;
                }
            }
        }
        prop_assert!(written.iter().all(|&w| w == 1), "{:?}", written);
    }
}

/// The realigned kernels shift between lanes of one row: a row of chunks
/// fills whole warps' lanes in order (lane `l` holds chunk `l % (tile/4)`),
/// in both phases, for every vector tile.
#[test]
fn vector_tile_rows_of_chunks_are_consecutive_lanes() {
    for (name, g) in vector() {
        let cpr = g.chunks_per_row();
        assert_eq!(32 % cpr, 0, "{name}");
        for t in 0..g.threads as u32 {
            for j in 0..g.blocks_per_thread() {
                assert_eq!(g.micro_block(t, j).1, (t as usize % 32) % cpr, "{name} load t{t} j{j}");
            }
            for s in 0..VEC * g.blocks_per_thread() {
                assert_eq!(g.store_chunk(t, s).1 / VEC, (t as usize % 32) % cpr, "{name} store t{t} s{s}");
            }
        }
    }
}

/// A warp's 16-byte stores (byte addresses; `None` for a lane that stores
/// element by element, which excuses the warp): 32 consecutive chunks
/// from a 128-byte line boundary, four whole lines.
fn whole_lines(a: &[Option<usize>; 32]) -> Result<(), std::string::String> {
    if !a.iter().all(Option::is_some) {
        return Ok(());
    }
    let f = a[0].unwrap();
    if f % (LINE * 4) != 0 {
        return Err(std::format!("first chunk at byte {f}, inside a line"));
    }
    match a.iter().enumerate().find(|&(l, x)| *x != Some(f + 16 * l)) {
        Some((l, x)) => Err(std::format!("lane {l} stores at {x:?}, not next to the lane before")),
        None => Ok(()),
    }
}

/// Runs the line-aligned kernel's index path for every thread of every
/// block of an `nx × ny` input whose output starts `base` elements past a
/// line boundary; returns `out[o] = input offset`. Checks on the way: each
/// input element loaded once, every load inside the matrix, shared
/// positions inside the tile and stored once per block, every store reads
/// a position its block loaded, every output element written once, every
/// whole 16-byte store aligned and inside its row.
fn simulate_lines(g: LineTile, nx: u32, ny: u32, base: u32) -> Result<Vec<usize>, std::string::String> {
    let (src, dst) = (input_layout(nx, ny), output_layout(nx, ny));
    let cfg = g.config(nx, ny);
    let (rows, cols) = g.blocks(nx, ny);
    let tile = g.rows * g.stride();
    let mut out = vec![usize::MAX; dst.size()];
    let mut loaded = vec![false; src.size()];
    let mut seen = vec![false; (rows * cols) as usize];
    for idx in 0..cfg.grid[0] {
        let (b, j) = g.block_coords(idx, rows, cols);
        if b >= rows || j >= cols || std::mem::replace(&mut seen[(b * cols + j) as usize], true) {
            return Err(std::format!("block {idx} -> ({b}, {j}) outside the grid or twice"));
        }
        {
            let mut shared = vec![None; tile];
            let (o0, p0) = (b as usize * g.rows, g.span_start(j));
            for t in 0..g.threads as u32 {
                let c = g.load_column(t);
                let s = row_shift(o0 + c, ny, base);
                for k in 0..g.loads_per_thread() {
                    let r = g.load_row(t, k);
                    let p = p0 + r as isize;
                    let at = g.shared_offset(c, r);
                    if r >= g.span() || at >= tile {
                        return Err(std::format!("load ({r}, {c}) outside the span or the tile"));
                    }
                    let value = if g.needs(r, s) && p >= 0 && src.in_bounds(p as usize, o0 + c) {
                        let o = src.offset(p as usize, o0 + c);
                        if std::mem::replace(&mut loaded[o], true) {
                            return Err(std::format!("input {o} loaded twice"));
                        }
                        Some(o)
                    } else {
                        None
                    };
                    if shared[at].replace(value).is_some() {
                        return Err(std::format!("shared {at} stored twice"));
                    }
                }
            }
            for t in 0..g.threads as u32 {
                for k in 0..g.stores_per_thread() {
                    let (c, q) = g.store_chunk(t, k);
                    let o = o0 + c;
                    if c >= g.rows || q + VEC > g.width {
                        return Err(std::format!("store chunk ({c}, {q}) outside the block"));
                    }
                    if o >= nx as usize {
                        continue;
                    }
                    let s = row_shift(o, ny, base);
                    let p = g.output_column(j, q, s);
                    if p >= 0 && p as usize + VEC <= ny as usize && (dst.offset(o, p as usize) + base as usize) % VEC != 0 {
                        return Err(std::format!("16-byte store at ({o}, {p}) not aligned"));
                    }
                    for i in 0..VEC {
                        let pi = p + i as isize;
                        if pi < 0 || pi as usize >= ny as usize {
                            continue;
                        }
                        let at = g.shared_offset(c, LineTile::span_row(q + i, s));
                        let Some(&Some(Some(from))) = shared.get(at) else {
                            return Err(std::format!("shared {at} read for ({o}, {pi}) but not loaded"));
                        };
                        let w = dst.offset(o, pi as usize);
                        if std::mem::replace(&mut out[w], from) != usize::MAX {
                            return Err(std::format!("output {w} written twice"));
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}

proptest! {
    /// The launch order visits every block once, groups of `group` block
    /// rows one after the other, block row fastest inside a group.
    #[test]
    fn line_tile_launch_order_is_a_grouped_bijection(rows in 1u32..700, cols in 1u32..300, which in 0..LinesConfig::ALL.len()) {
        let g = LinesConfig::ALL[which].config();
        let mut seen = vec![false; (rows * cols) as usize];
        let mut prev: Option<(u32, u32)> = None;
        for idx in 0..rows * cols {
            let (b, j) = g.block_coords(idx, rows, cols);
            prop_assert!(b < rows && j < cols);
            prop_assert!(!std::mem::replace(&mut seen[(b * cols + j) as usize], true), "({}, {}) twice", b, j);
            if let Some((pb, pj)) = prev {
                let same_group = pb / g.group as u32 == b / g.group as u32;
                let next = if same_group {
                    (pj == j && b == pb + 1) || (j == pj + 1 && b % g.group as u32 == 0)
                } else {
                    b == pb + 1 && j == 0 && b % g.group as u32 == 0
                };
                prop_assert!(next, "({}, {}) after ({}, {})", b, j, pb, pj);
            }
            prev = Some((b, j));
        }
    }
}

#[test]
fn line_tile_is_valid() {
    let g = LINES_W128;
    for c in LinesConfig::ALL {
        assert!(c.config().validate(), "{}", c.name());
        assert_eq!(c.config(), LineTile { group: c.config().group, ..g });
    }
    assert!(g.validate());
    assert_eq!((g.loads_per_thread(), g.stores_per_thread(), g.stride()), (20, 4, 165));
    assert_eq!(g.stride() % 2, 1);
    assert!(g.shared_bytes(4) <= 48 * 1024);
    for t in 0..g.threads as u32 {
        for k in 0..g.loads_per_thread() {
            let e = t as usize + k * g.threads;
            assert_eq!((g.load_row(t, k), g.load_column(t)), (e / g.rows, e % g.rows), "t{t} k{k}");
        }
    }
    for (o, ny, base) in [(0usize, 7u32, 5u32), (12_345, 8_193, 28), (1 << 30, u32::MAX - 160, 31), (99_999, 4_099, 0)] {
        assert_eq!(row_shift(o, ny, base), ((o as u128 * ny as u128 + base as u128) % LINE as u128) as usize);
    }
    assert!(!LineTile { width: 96, ..g }.validate());
    assert!(!LineTile { rows: 16, ..g }.validate());
}

proptest! {
    /// Every element moves to its transposed place once, for any shape and
    /// any line shift of the output's start.
    #[test]
    fn line_tile_moves_every_element_to_its_transpose_once(nx in 1u32..300, ny in 1u32..600, base in 0u32..LINE as u32, which in 0..LinesConfig::ALL.len()) {
        let out = simulate_lines(LinesConfig::ALL[which].config(), nx, ny, base).map_err(TestCaseError::fail)?;
        prop_assert!(is_transpose(&out, nx, ny).is_ok(), "{:?}", is_transpose(&out, nx, ny));
    }

    /// A warp's stores inside a row are 32 consecutive, aligned 16-byte
    /// chunks: whole 128-byte lines (four, starting on a line boundary).
    #[test]
    fn line_tile_warps_store_whole_lines(nx in 33u32..5000, ny in 300u32..5000, base in 0u32..LINE as u32, b in 0u32..4, j in 1u32..3) {
        let g = LINES_W128;
        let dst = output_layout(nx, ny);
        let o0 = (b as usize * g.rows) % (nx as usize - g.rows);
        for w in 0..g.threads / WARP {
            for k in 0..g.stores_per_thread() {
                let a = lanes(w, |t| {
                    let (c, q) = g.store_chunk(t, k);
                    let s = row_shift(o0 + c, ny, base);
                    let p = g.output_column(j, q, s);
                    (p >= 0 && p as usize + VEC <= ny as usize).then(|| (dst.offset(o0 + c, p as usize) + base as usize) * 4)
                });
                whole_lines(&a).map_err(|e| TestCaseError::fail(std::format!("warp {w} step {k}: {e}")))?;
            }
        }
    }
}

/// Conflict degrees of the line tile: the load phase's stores (one span
/// row, 32 block rows) conflict-free, the store phase's reads (one block
/// row, positions 4 apart) at most 2-way, for every row shift. Without the
/// spread they would be 4-way.
#[test]
fn line_tile_shared_accesses_are_at_most_two_way() {
    let g = LINES_W128;
    for w in 0..g.threads / WARP {
        for k in 0..g.loads_per_thread() {
            let a = lanes(w, |t| Some(g.shared_offset(g.load_column(t), g.load_row(t, k)) * 4));
            assert_eq!(bank_conflict_degree(&a, 4), 1, "load phase warp {w} step {k}");
        }
    }
    let (mut worst, mut plain) = (0, 0);
    for s in 0..LINE {
        for k in 0..g.stores_per_thread() {
            for i in 0..VEC {
                let a = lanes(0, |t| {
                    let (c, q) = g.store_chunk(t, k);
                    Some(g.shared_offset(c, LineTile::span_row(q + i, s)) * 4)
                });
                worst = worst.max(bank_conflict_degree(&a, 4));
                let a = lanes(0, |t| {
                    let (c, q) = g.store_chunk(t, k);
                    Some((c * g.stride() + LineTile::span_row(q + i, s)) * 4)
                });
                plain = plain.max(bank_conflict_degree(&a, 4));
            }
        }
    }
    assert_eq!((worst, plain), (2, 4));
}

/// Runs the flat-chunk kernel's index path for every thread of every block
/// of an `nx × ny` input whose output starts `base` elements past a line
/// boundary; returns `out[o] = input offset`. Checks on the way: each input
/// element loaded once and inside the matrix, shared positions inside the
/// launch's shared memory and stored once per block, every store reads a
/// position its block loaded, every output element written once, every
/// 16-byte group aligned in shared and global memory.
fn simulate_flat(g: FlatTile, nx: u32, ny: u32, base: u32) -> Result<Vec<usize>, std::string::String> {
    let src = input_layout(nx, ny);
    let cfg = g.config(nx, ny);
    let n = nx as usize * ny as usize;
    let tile = cfg.shared_bytes as usize / 4;
    let mut out = vec![usize::MAX; n];
    let mut loaded = vec![false; n];
    for b in 0..cfg.grid[0] {
        let r = g.range(b, nx, ny, base);
        if r.rows == 0 {
            if (b as usize) * g.chunk(ny) < n + base as usize {
                return Err(std::format!("block {b} idle inside the matrix"));
            }
            continue;
        }
        if r.rows > g.rows_max(ny) {
            return Err(std::format!("block {b} touches {} rows, more than {}", r.rows, g.rows_max(ny)));
        }
        let mut shared = vec![None; tile];
        for t in 0..g.threads as u32 {
            let mut w = g.slot(t, ny);
            for _ in 0..g.rounds(ny) * g.batch as u32 {
                let (p, c) = FlatTile::slot_coords(&w, t);
                w.advance();
                if p >= ny {
                    continue;
                }
                let at = FlatTile::shared_offset(r, c, p, ny);
                if c >= r.rows || at < r.start || at >= r.end {
                    continue;
                }
                if r.row + c as usize >= nx as usize {
                    return Err(std::format!("load ({p}, {}) outside the matrix", r.row + c as usize));
                }
                let o = src.offset(p as usize, r.row + c as usize);
                if std::mem::replace(&mut loaded[o], true) {
                    return Err(std::format!("input {o} loaded twice"));
                }
                match shared.get_mut(at as usize) {
                    Some(slot @ None) => *slot = Some(o),
                    _ => return Err(std::format!("shared {at} outside the tile or stored twice")),
                }
            }
        }
        for t in 0..g.threads as u32 {
            for j in 0..g.store_steps(ny) {
                let at = g.group(r, t, j);
                let flat = r.e0 + at;
                let whole = at >= r.start as isize && at + VEC as isize <= r.end as isize;
                if whole && (at % VEC as isize != 0 || (flat + base as isize) % VEC as isize != 0) {
                    return Err(std::format!("16-byte group at {flat} (tile {at}) not aligned"));
                }
                for i in 0..VEC as isize {
                    let (a, f) = (at + i, flat + i);
                    if a < r.start as isize || a >= r.end as isize {
                        continue;
                    }
                    let Some(&Some(from)) = shared.get(a as usize) else {
                        return Err(std::format!("shared {a} read for output {f} but not loaded"));
                    };
                    if std::mem::replace(&mut out[f as usize], from) != usize::MAX {
                        return Err(std::format!("output {f} written twice"));
                    }
                }
            }
        }
    }
    Ok(out)
}

proptest! {
    /// Every element moves to its transposed place once, for any short
    /// output row and any line shift of the output's start.
    #[test]
    fn flat_tile_moves_every_element_to_its_transpose_once(nx in 1u32..3000, ny in 1u32..=FLAT_MAX_NY, base in 0u32..LINE as u32, which in 0..FlatConfig::ALL.len()) {
        prop_assume!(nx as usize * ny as usize <= 300_000);
        let out = simulate_flat(FlatConfig::ALL[which].config(), nx, ny, base).map_err(TestCaseError::fail)?;
        prop_assert!(is_transpose(&out, nx, ny).is_ok(), "{:?}", is_transpose(&out, nx, ny));
    }

    /// Every block's chunk starts and ends on a line boundary (except at
    /// the matrix's ends), and a warp's 16-byte stores of a whole chunk are
    /// four whole lines.
    #[test]
    fn flat_tile_chunks_are_whole_lines(nx in 1u32..100_000, ny in 1u32..=FLAT_MAX_NY, base in 0u32..LINE as u32, b in 0u32..64, which in 0..FlatConfig::ALL.len()) {
        let g = FlatConfig::ALL[which].config();
        let blocks = g.blocks(nx, ny) as u32;
        let b = b % blocks;
        let r = g.range(b, nx, ny, base);
        let n = nx as isize * ny as isize;
        prop_assume!(r.rows > 0);
        let (lo, hi) = (r.e0 + r.start as isize, r.e0 + r.end as isize);
        prop_assert!(lo == 0 || (lo + base as isize) % LINE as isize == 0);
        prop_assert!(hi == n || (hi + base as isize) % LINE as isize == 0);
        prop_assert_eq!(r.e0 + r.first, b as isize * g.chunk(ny) as isize - base as isize);
        for w in 0..g.threads / WARP {
            for j in 0..g.store_steps(ny) {
                let a = lanes(w, |t| {
                    let at = g.group(r, t, j);
                    (at >= r.start as isize && at + VEC as isize <= r.end as isize).then(|| ((r.e0 + at + base as isize) * 4) as usize)
                });
                whole_lines(&a).map_err(|e| TestCaseError::fail(std::format!("warp {w} step {j}: {e}")))?;
            }
        }
    }
}

/// The flat tiles' geometry: whole lines per chunk; a warp's loads 32
/// consecutive columns of one input row, every row's columns covered, at
/// least three lanes in four needed; chunks of about `elems` (or 30 rows
/// of a long `ny`) elements; shared stores conflict-free for odd `ny`
/// (`2^k`-way for `2^k` dividing `ny`), the store phase's 16-byte reads
/// consecutive; shared memory within 64 KB.
#[test]
fn flat_tile_geometry_and_conflicts() {
    for (g, ny) in FlatConfig::ALL.iter().flat_map(|c| (1..=FLAT_MAX_NY).map(|ny| (c.config(), ny))) {
        assert!(g.validate());
        let f = g.chunk(ny);
        assert!(g.row_units(ny) * WARP as u32 >= g.rows_max(ny), "ny {ny}");
        assert!(4 * g.rows_max(ny) >= 3 * WARP as u32 * g.row_units(ny), "ny {ny}: most of a unit's lanes idle");
        assert!(f % LINE == 0 && 4 * f >= 3 * g.elems.min(30 * ny as usize) && 2 * g.elems.max(30 * ny as usize) >= f, "ny {ny}: chunk {f}");
        assert!(g.shared_bytes(ny) <= 64 * 1024, "ny {ny}: {} bytes", g.shared_bytes(ny));
        let r = g.range(1, 1 << 20, ny, 0);
        let mut covered = vec![0u32; ny as usize];
        for wp in 0..g.threads / WARP {
            let mut walks: [DivWalk; 32] = core::array::from_fn(|l| g.slot((wp * WARP + l) as u32, ny));
            for _ in 0..g.rounds(ny) * g.batch as u32 {
                let coords: [(u32, u32); 32] = core::array::from_fn(|l| FlatTile::slot_coords(&walks[l], (wp * WARP + l) as u32));
                assert!(coords.iter().enumerate().all(|(l, &(p, c))| p == coords[0].0 && c == coords[0].1 + l as u32), "ny {ny}");
                if coords[0].0 < ny {
                    covered[coords[0].0 as usize] += WARP as u32;
                }
                // Stores `ny` words apart: the power of two dividing `ny`
                // (at most 32) lanes per bank; none for odd `ny`.
                let a = coords.map(|(p, c)| Some(FlatTile::shared_offset(r, c, p, ny) as usize * 4));
                assert_eq!(bank_conflict_degree(&a, 4), (1 << ny.trailing_zeros()).min(32), "ny {ny}");
                walks.iter_mut().for_each(DivWalk::advance);
            }
        }
        assert!(covered.iter().all(|&c| c >= g.rows_max(ny)), "ny {ny}: a row's columns not all loaded");
        for j in 0..g.store_steps(ny) {
            let a = lanes(0, |t| Some(g.group(r, t, j) as usize * 4));
            assert!(a.iter().enumerate().all(|(l, x)| *x == Some(a[0].unwrap() + 16 * l)));
        }
    }
    assert!(!FlatTile { threads: 100, ..FLAT_E6144 }.validate());
}
