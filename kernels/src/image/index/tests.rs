use super::*;
use crate::layout;
use crate::layout::analysis::{sectors, WARP};
use proptest::prelude::*;
use std::vec;

#[test]
fn gray_rule_is_the_rounded_pmpp_weighting() {
    for (r, g, b) in [(0, 0, 0), (255, 255, 255), (255, 0, 0), (0, 255, 0), (0, 0, 255), (10, 200, 30)] {
        let exact = 0.21 * r as f64 + 0.72 * g as f64 + 0.07 * b as f64;
        let got = gray_of(r, g, b) as f64;
        assert!((got - exact).abs() <= 0.5, "{r},{g},{b}: {got} vs {exact}");
    }
    assert_eq!(gray_of(255, 255, 255), 255);
    assert_eq!(gray_of(0, 0, 0), 0);
}

#[test]
fn magic_division_is_exact_for_every_count_up_to_4096() {
    for d in 2..=MAGIC_MAX_COUNT {
        let m = recip_magic(d);
        // The sums nearest every multiple of d, where an error would show,
        // plus both ends of the range.
        let mut q = 0;
        while q * d <= 255 * d {
            for s in [q * d, (q * d).saturating_sub(1), q * d + d / 2, (q * d + d / 2).saturating_sub(1), q * d + d - 1] {
                if s <= 255 * d {
                    assert_eq!(div_round_magic(s, d, m), div_round_half_up(s, d), "sum {s} count {d}");
                }
            }
            q += 1;
        }
    }
    assert_eq!(recip_magic(1), 0);
    assert_eq!(recip_magic(MAGIC_MAX_COUNT + 1), 0);
}

#[test]
fn corner_and_edge_counts_at_radius_1() {
    assert_eq!(blur_count(0, 0, 1, 62, 76), 4);
    assert_eq!(blur_count(61, 75, 1, 62, 76), 4);
    assert_eq!(blur_count(5, 0, 1, 62, 76), 6);
    assert_eq!(blur_count(0, 5, 1, 62, 76), 6);
    assert_eq!(blur_count(5, 5, 1, 62, 76), 9);
    assert_eq!(blur_count(0, 0, 1, 1, 1), 1);
    assert_eq!(blur_count(0, 0, 0, 1, 1), 1);
}

#[test]
fn the_62x76_picture_takes_4x5_blocks_of_four_kinds() {
    let c = pixel_config(62, 76);
    assert_eq!((c.grid[0], c.grid[1]), (4, 5));
    let mut kinds = std::collections::BTreeSet::new();
    for by in 0..c.grid[1] {
        for bx in 0..c.grid[0] {
            let working = (0..16).filter(|t| bx * 16 + t < 62).count() * (0..16).filter(|t| by * 16 + t < 76).count();
            kinds.insert(working);
        }
    }
    assert_eq!(kinds.into_iter().collect::<vec::Vec<_>>(), vec![14 * 12, 16 * 12, 14 * 16, 256]);
}

#[test]
fn fast_blur_supports_the_benchmark_radii() {
    for r in 1..=3 {
        assert!(fast_supports(1, r) && fast_supports(3, r));
    }
    assert!(!fast_supports(1, 0));
    assert!(!fast_supports(3, 6));
    assert!(fast_shared_bytes(3) <= 48 * 1024);
    assert_eq!(FAST_BLOCK[0] * FAST_BLOCK[1], 256);
}

#[test]
fn hsum_lanes_are_a_bijection_matching_the_pairing() {
    let mut seen = [[false; 2]; 8];
    for j in 0..16 {
        let (w, h) = hsum_lane(j);
        assert!(!seen[w][h], "lane of byte {j} taken twice");
        seen[w][h] = true;
        // Word m pairs bytes j0 and j0 + 2 with j0 = 4 (m / 2) + m % 2.
        assert_eq!(4 * (w / 2) + w % 2 + 2 * h, j);
        assert_eq!(hsum_byte(w, h), j);
    }
}

#[test]
fn gray_vec16_chunks_are_aligned_and_together_coalesced() {
    // A warp's three input loads together touch exactly the sectors of
    // its 32 × 48 contiguous bytes; its store, 32 × 16 bytes.
    let mut all = std::collections::BTreeSet::new();
    for k in 0..3 {
        let addrs: [Option<usize>; WARP] = core::array::from_fn(|l| Some(gray_chunk_in(l as u32) + 16 * k));
        assert!(addrs.iter().flatten().all(|a| a % 16 == 0));
        assert_eq!(sectors(&addrs, 16), 32);
        for a in addrs.iter().flatten() {
            all.insert(a / 32);
        }
    }
    assert_eq!(all.len(), 32 * 48 / 32);
    let out: [Option<usize>; WARP] = core::array::from_fn(|l| Some(gray_chunk_out(l as u32)));
    assert_eq!(sectors(&out, 16), 16);
}

#[test]
fn magic24_division_is_exact_for_every_byte_mean_up_to_count_255() {
    for count in 1..=255u32 {
        let m = magic24(count);
        for sum in 0..=255 * count {
            assert_eq!(div_round_magic24(sum, count, m), div_round_half_up(sum, count), "sum {sum} count {count}");
        }
        // The product never wraps: the quotient is byte 3 of it.
        let n = 255 * count + count / 2;
        assert!((n as u64) * (m as u64) < 1 << 32, "count {count}");
    }
}

#[test]
fn packed_pairs_are_the_even_odd_split() {
    // V[b] = b + 100 for bytes b of words -3..7; E/O as the kernel builds them.
    let v = |b: i32| (b + 100) as u32;
    let e = |i: i32| v(4 * i) | v(4 * i + 2) << 16;
    let o = |i: i32| v(4 * i + 1) | v(4 * i + 3) << 16;
    for m in -12..24 {
        let (i, kind) = packed_pair(m);
        let w = match kind {
            0 => e(i),
            1 => o(i),
            2 => (e(i) >> 16) | (e(i + 1) << 16),
            _ => (o(i) >> 16) | (o(i + 1) << 16),
        };
        assert_eq!(w, v(m) | v(m + 2) << 16, "m {m}");
    }
}

#[test]
fn slide_windows_stay_inside_the_loaded_halo() {
    for c in [1u32, 3, 4] {
        for r in 1..=3u32 {
            let hw = slide_halo_words(c, r) as i32;
            assert!(hslide_supports(16, c, r) && slide_supports(16, c, r) == (c != 4));
            assert!(slide_words(c, r) as usize <= SLIDE_MAX_WORDS);
            // Output words m = 4q + s (s = 0, 1) sum W(m + c k), |k| ≤ r.
            for q in 0..4 {
                for s in 0..2 {
                    for k in -(r as i32)..=r as i32 {
                        let (i, kind) = packed_pair(4 * q + s + c as i32 * k);
                        let last = if kind >= 2 { i + 1 } else { i };
                        assert!(i >= -hw && last < 4 + hw, "c {c} r {r} q {q} s {s} k {k}");
                    }
                }
            }
            // A column sum plus one more row fits a u16 lane (the running
            // update adds before it subtracts).
            assert!((2 * r + 2) * 255 <= u16::MAX as u32);
            assert!(slide_shared_bytes(c, r) <= 48 * 1024);
        }
    }
    assert!(!slide_supports(15, 1, 1) && !slide_supports(16, 1, 0) && !slide_supports(16, 1, 4) && !slide_supports(16, 2, 1));
    assert!(slide_supports(16, 3, 3) && !slide_supports(17, 3, 1));
    // RGBA: the horizontal-first rung only, rows of whole chunks (4 pixels).
    assert!(hslide_supports(4, 4, 1) && !hslide_supports(5, 4, 1) && !hslide_supports(16, 4, 4) && !hslide_supports(16, 2, 1));
    assert!(!slide_supports(16, 4, 1));
    // RGBA takes RGB's settings (as many halo words), but for fewer
    // blocks per SM at radius 3.
    for r in 1..=3u32 {
        assert_eq!(slide_halo_words(4, r), slide_halo_words(3, r));
        assert_eq!(
            (hslide_prefetch(4, r), hslide_alternates(4, r), hslide_prologue_rows(4, r)),
            (hslide_prefetch(3, r), hslide_alternates(3, r), hslide_prologue_rows(3, r))
        );
        assert_eq!(hslide_blocks_per_sm(4, r), if r == 3 { 4 } else { hslide_blocks_per_sm(3, r) });
    }
}

#[test]
fn slide_ring_accesses_are_conflict_free() {
    for (c, r) in [(1u32, 1u32), (1, 3), (3, 3)] {
        let (core, halo) = (slide_ring_core(r), slide_ring_halo(c, r));
        for slot in 0..slide_ring_slots(r) as usize {
            for warp in 0..(SLIDE_THREADS as usize / WARP) {
                let a: [Option<usize>; WARP] = core::array::from_fn(|l| Some(16 * core.offset(slot, warp * WARP + l)));
                assert_eq!(layout::analysis::bank_conflict_degree(&a, 16), 1);
                for k in 0..2 * slide_halo_words(c, r) as usize {
                    let h: [Option<usize>; WARP] =
                        core::array::from_fn(|l| Some(16 * core.size() + 4 * halo.offset(slot, k, warp * WARP + l)));
                    assert_eq!(layout::analysis::bank_conflict_degree(&h, 4), 1);
                }
            }
        }
        assert_eq!(slide_shared_bytes(c, r) as usize, 16 * core.size() + 4 * halo.size());
    }
}

#[test]
fn default_strips_grow_with_the_image() {
    let t = slide_target_threads(132);
    assert_eq!(slide_strip_rows(512, 8192, t), 16);
    assert_eq!(slide_strip_rows(3 * 512, 8192, t), 16);
    assert_eq!(slide_strip_rows(120, 1080, t), 2);
    assert_eq!(slide_strip_rows(360, 1080, t), 4);
    assert_eq!(slide_strip_rows(1, 1, t), SLIDE_STRIP_RANGE[0]);
    assert_eq!(slide_strip_rows(u32::MAX / 16, 1 << 20, t), SLIDE_STRIP_RANGE[1]);
}

#[test]
fn hi_lane_division_is_exact_for_every_sum_and_count_up_to_64() {
    for count in 2..=HI_LANE_MAX_COUNT {
        let m = magic24(count);
        assert!((m as u64) << 8 < 1 << 32);
        for sum in 0..=255 * count {
            let hi = sum + lane_bias(count);
            for lo in [0, 1, 255 * 49 + 24, HI_LANE_MAX_LOW, (sum * 7919) % (HI_LANE_MAX_LOW + 1)] {
                let word = lo | hi << 16;
                assert_eq!(div_round_hi_lane(word, m), div_round_half_up(sum, count), "sum {sum} count {count} lo {lo}");
                // Byte 3 of the product is zero: the quotient is byte 2.
                assert_eq!(mul_hi(word, m << 8) >> 24, 0);
            }
        }
    }
}

#[test]
fn hslide_strips_fill_whole_waves() {
    // H200 (132 SMs), gray and RGB at 8192², full HD.
    assert_eq!(hslide_strip_rows(512, 8192, 132, 6, 2), 21);
    assert_eq!(hslide_strip_rows(512, 8192, 132, 5, 2), 25);
    assert_eq!(hslide_strip_rows(120, 1080, 132, 6, 2), 2);
    assert_eq!(hslide_strip_rows(360, 1080, 132, 6, 1), 4);
    assert_eq!(hslide_strip_rows(1, 1, 132, 6, 2), SLIDE_STRIP_RANGE[0]);
    // The defaults of the second H200 run's measurements: 3 waves at
    // 8192², 2 waves at full HD.
    assert_eq!(hslide_default_strip_rows(512, 8192, 132, 6), 14);
    assert_eq!(hslide_default_strip_rows(512, 8192, 132, 5), 17);
    assert_eq!(hslide_default_strip_rows(1536, 8192, 132, 6), 42);
    assert_eq!(hslide_default_strip_rows(1536, 8192, 132, 5), 50);
    assert_eq!(hslide_default_strip_rows(120, 1080, 132, 6), 2);
    assert_eq!(hslide_default_strip_rows(360, 1080, 132, 6), 2);
    assert_eq!(hslide_default_strip_rows(360, 1080, 132, 5), 3);
    for c in [1u32, 3] {
        for r in 1..=3 {
            let n = hslide_blocks_per_sm(c, r);
            // The rings of n blocks fit an SM's 227 KB.
            assert!(n * hslide_shared_bytes(r) <= 227 * 1024);
            assert!(hslide_prefetch(c, r) as usize <= SLIDE_MAX_PREFETCH);
            assert!(hslide_prologue_rows(c, r) as usize <= HSLIDE_MAX_PROLOGUE);
            assert!(hslide_prologue_rows(c, r) <= 2 * r);
        }
    }
}

#[test]
fn hslide_ring_accesses_are_conflict_free() {
    for r in 1..=3u32 {
        let ring = hslide_ring(r);
        for slot in 0..slide_ring_slots(r) as usize {
            for half in 0..2 {
                for warp in 0..(SLIDE_THREADS as usize / WARP) {
                    let a: [Option<usize>; WARP] = core::array::from_fn(|l| Some(16 * ring.offset(slot, half, warp * WARP + l)));
                    assert_eq!(layout::analysis::bank_conflict_degree(&a, 16), 1);
                }
            }
        }
        assert!(hslide_shared_bytes(r) <= 48 * 1024);
        // A window sum plus its bias fits a lane and stays under
        // HI_LANE_MAX_LOW (the running update is mod 2³² on whole
        // words, so only the final lanes must fit).
        assert!(full_count(r) * 255 + lane_bias(full_count(r)) <= HI_LANE_MAX_LOW);
        assert!(full_count(r) <= HI_LANE_MAX_COUNT);
    }
}

#[test]
fn magic_shift_division_is_exact_for_every_full_window_up_to_the_largest_radius() {
    for r in 1..=WIN_MAX_RADIUS {
        let count = full_count(r);
        let (m, s) = recip_magic_shift(count);
        // No shift below 4096 pixels (the blur's unshifted output loop).
        assert_eq!(s == 0, count < 4096, "r {r}");
        // Every sum for the windows without a shift; near every multiple
        // (where an error would show) and both ends for the large ones.
        if count < 4096 {
            for sum in 0..=255 * count {
                assert_eq!(div_round_magic_shift(sum, count, m, s), div_round_half_up(sum, count), "sum {sum} r {r}");
                assert_eq!(div_round_magic_shift_dev(sum, count, m, s), div_round_half_up(sum, count), "sum {sum} r {r}");
            }
        } else {
            for q in 0..=255 {
                for d in [0, 1, count / 2, count / 2 + 1, count - 1] {
                    for sum in [(q * count + d).saturating_sub(1), q * count + d] {
                        if sum <= 255 * count {
                            assert_eq!(div_round_magic_shift(sum, count, m, s), div_round_half_up(sum, count), "sum {sum} r {r}");
                        }
                    }
                }
            }
        }
    }
    // Other counts too (the proof does not need a square).
    for count in [2u32, 3, 7, 4096, 4097, 4225, 65_535, 1 << 20] {
        let (m, s) = recip_magic_shift(count);
        for sum in [0, 1, count / 2, count, 255 * count - 1, 255 * count] {
            assert_eq!(div_round_magic_shift(sum, count, m, s), div_round_half_up(sum, count), "sum {sum} count {count}");
        }
    }
}

#[test]
fn window_blur_fits_its_shared_memory_and_lanes() {
    for c in 1..=4u32 {
        for r in 1..=WIN_MAX_RADIUS {
            let ok = win_supports(c, r);
            // Every radius up to the largest for every channel count.
            assert!(ok, "c {c} r {r}");
            let (h, lead, band) = (win_halo(c, r), win_lead(c, r), win_band(c, r));
            // The band starts on a column word and on channel 0, the
            // segment on a column word before its halo, and the segment
            // holds the lead, the band and the far halo.
            assert!(band % 4 == 0 && band % c == 0 && band >= 64, "c {c} r {r}");
            assert!(lead % 4 == 0 && lead >= h && lead < h + 4);
            assert!(lead + band + h <= WIN_SEG);
            // A column sum of 2r + 1 bytes fits its u16 lane; a row of
            // prefix sums fits u32.
            assert!((2 * r + 1) * 255 <= u16::MAX as u32);
            assert!(WIN_SEG as u64 * u16::MAX as u64 <= u32::MAX as u64);
            // The pads cover the prefix sum `c` bytes before the segment.
            assert!(c <= WIN_P_PAD);
            assert!(win_prologue(r) >= 2 * r && win_prologue(r) % WIN_BATCH == 0);
        }
    }
    assert!(!win_supports(1, 0) && !win_supports(5, 1) && !win_supports(1, WIN_MAX_RADIUS + 1));
    // The prefix sums start on a 16-byte boundary, and the bound's blocks fit.
    assert_eq!(win_shared_parts() % 16, 0);
    assert_eq!(win_blocks_per_sm(), WIN_BLOCKS_BOUND);
    assert_eq!(WIN_VERTICAL, WIN_SEG / 4);
    const { assert!(WIN_VERTICAL <= WIN_THREADS) };
}

#[test]
fn window_column_sum_entries_follow_the_vertical_stores() {
    // Vertical thread t stores (ve, vo) = sums of bytes (0, 2) and (1, 3)
    // of its word as two u32 at u16 entry 4t: entry 4t + i holds byte
    // [0, 2, 1, 3][i].
    let stored = [0u32, 2, 1, 3];
    let mut seen = [false; WIN_RUN as usize];
    for k in 0..WIN_RUN {
        let e = win_vsum_entry(k);
        assert!(e < WIN_RUN);
        assert_eq!(4 * (k / 4) + stored.iter().position(|&b| b == k % 4).unwrap() as u32, e);
        assert!(!seen[e as usize]);
        seen[e as usize] = true;
        // Its own inverse: entry e holds byte k (the horizontal phase reads
        // the byte of each entry through it).
        assert_eq!(win_vsum_entry(e), k);
        assert_eq!(stored[(e % 4) as usize], k % 4);
    }
}

#[test]
fn window_blur_shared_accesses_are_conflict_free() {
    // Column sums: u32x2 stores 8 bytes apart; u32x4 loads of a lane's 24 sums (48 bytes).
    let s: [Option<usize>; WARP] = core::array::from_fn(|l| Some(2 * win_vsum().offset(1, 4 * l)));
    assert_eq!(layout::analysis::bank_conflict_degree(&s, 8), 1);
    for k in 0..3 {
        let v: [Option<usize>; WARP] = core::array::from_fn(|l| Some(2 * win_vsum().offset(3, (WIN_RUN as usize) * l) + 16 * k));
        assert_eq!(layout::analysis::bank_conflict_degree(&v, 16), 1);
    }
    // Outputs: round k reads prefix sums 32 k + lane (+ offsets).
    for off in [0usize, 5, 130] {
        let q: [Option<usize>; WARP] = core::array::from_fn(|l| Some(4 * (win_prefix().offset(2, WIN_P_PAD as usize + off + l))));
        assert_eq!(layout::analysis::bank_conflict_degree(&q, 4), 1);
    }
}

proptest! {
    #[test]
    fn window_words_cover_each_needed_byte_inside_the_image(w in 1u32..3000, h in 1u32..50, c in 1u32..5, r in 1u32..65, band_pick in 0u32..100, row_pick in 0u32..100) {
        prop_assume!(win_supports(c, r));
        let p = WindowParams::new(w, h, c, r, 8);
        let band = band_pick % p.bands;
        let row = row_pick % h;
        let x0 = band * p.band;
        prop_assert!(x0 < p.row_bytes && x0 % 4 == 0 && x0 % c == 0);
        let rb = p.row_bytes as i64;
        let total = rb * h as i64;
        let seg_x = win_seg_x(x0, c, r);
        // The segment reaches the halo on both sides of the band.
        let band_end = (x0 + p.band).min(p.row_bytes) as i64;
        prop_assert!(seg_x <= x0 as i64 - win_halo(c, r) as i64);
        prop_assert!(band_end + win_halo(c, r) as i64 <= seg_x + WIN_SEG as i64);
        for t in 0..WIN_VERTICAL {
            let m = win_word_mask(seg_x, t, p.row_bytes);
            let col = seg_x + 4 * t as i64;
            // The masks keep exactly the segment bytes inside the row.
            for j in 0..4 {
                let x = col + j;
                prop_assert_eq!((m >> (8 * j)) & 0xff != 0, x >= 0 && x < rb);
            }
            if m == 0 {
                continue;
            }
            // The kernel's word reads: bytes of rows 0 and h - 1 (and of
            // rows under 8 bytes) one by one, else aligned words inside
            // the image.
            let f = row as i64 * rb + col;
            if rb < 8 || row == 0 || row + 1 == h {
                for j in 0..4 {
                    if (m >> (8 * j)) & 0xff != 0 {
                        prop_assert!(f + j >= 0 && f + j < total);
                    }
                }
            } else if rb % 4 == 0 {
                prop_assert!(f % 4 == 0 && f >= 0 && f + 4 <= total);
            } else {
                let at = f - f.rem_euclid(4);
                prop_assert!(at >= 0 && at + 8 <= total && at <= f && f + 4 <= at + 8);
            }
        }
    }

    #[test]
    fn window_blocks_cover_every_output_byte_once(w in 1u32..5000, h in 1u32..300, c in 1u32..5, r in 1u32..65, strip in 1u32..100) {
        prop_assume!(win_supports(c, r));
        let p = WindowParams::new(w, h, c, r, strip);
        let cfg = blur_window_config(p);
        prop_assert_eq!(cfg.grid[0], p.bands * p.strips);
        prop_assert_eq!(cfg.block[0], WIN_THREADS);
        let mut seen = std::vec![0u8; (p.row_bytes as usize) * (h as usize)];
        for b in 0..p.blocks() {
            let (band, st) = win_block(b, p.bands);
            prop_assert!(band < p.bands && st < p.strips);
            let x0 = band * p.band;
            let bytes = p.band.min(p.row_bytes - x0);
            let (y0, y1) = (st * strip, ((st + 1) * strip).min(h));
            for y in y0..y1 {
                for x in x0..x0 + bytes {
                    seen[(y * p.row_bytes + x) as usize] += 1;
                }
            }
        }
        prop_assert!(seen.iter().all(|&s| s == 1));
    }

    #[test]
    fn window_strips_fill_whole_waves(bands in 1u32..200, h in 1u32..20000, r in 1u32..65, sms in 1u32..200, bps in 1u32..5, waves in 1u32..3) {
        let s = win_strip_rows(bands, h, r, sms, bps, waves);
        let cap = h.div_ceil(WIN_BATCH) * WIN_BATCH;
        prop_assert!(s >= 1 && s <= cap);
        prop_assert!(s % WIN_BATCH == 0);
        let blocks = bands as u64 * h.div_ceil(s) as u64;
        let slots = (waves * sms * bps) as u64;
        // Whole waves, unless the floor of one prologue (or one strip
        // per band) asks for fewer, taller strips.
        prop_assert!(blocks <= slots || s == cap || s == win_prologue(r) || slots < bands as u64);
    }

    #[test]
    fn pixel_layout_is_the_byte_row_layout(w in 1u32..40, h in 1u32..40, c in 1u32..4) {
        let p = pixel_layout(w, h, c);
        let b = byte_rows(w, h, c);
        let mut seen = vec![false; p.size()];
        for y in 0..h as usize { for x in 0..w as usize { for ch in 0..c as usize {
            let o = p.offset(y, x, ch);
            prop_assert_eq!(o, b.offset(y, x * c as usize + ch));
            prop_assert!(!seen[o]);
            seen[o] = true;
        }}}
        prop_assert!(seen.iter().all(|s| *s));
    }

    #[test]
    fn window_matches_brute_force(n in 1u32..300, i in 0u32..300, r in 0u32..300) {
        let i = i % n;
        let brute = (0..n).filter(|&j| (j as i64 - i as i64).abs() <= r as i64).count() as u32;
        prop_assert_eq!(window_len(i, r, n), brute);
        prop_assert_eq!(window_lo(i, r), (0..n).find(|&j| (j as i64 - i as i64).abs() <= r as i64).unwrap());
    }

    #[test]
    fn magic_matches_plain_division(d in 2u32..=MAGIC_MAX_COUNT, f in 0.0f64..=1.0) {
        let s = (f * (255 * d) as f64) as u32;
        prop_assert_eq!(div_round_magic(s, d, recip_magic(d)), div_round_half_up(s, d));
    }

    #[test]
    fn volume_layout_is_the_pmpp_formula(m in 1u32..20, n in 1u32..20, p in 1u32..20) {
        let v = VolumeParams { cols: m, rows: n, planes: p };
        let l = volume_layout(v);
        for plane in 0..p { for row in 0..n { for col in 0..m {
            let o = l.offset(plane as usize, row as usize, col as usize);
            prop_assert_eq!(o, (plane * m * n + row * m + col) as usize);
        }}}
        let c = volume_config(v);
        prop_assert!(c.grid[0] * VOLUME_BLOCK[0] >= m && c.grid[1] * VOLUME_BLOCK[1] >= n && c.grid[2] * VOLUME_BLOCK[2] >= p);
    }

    #[test]
    fn slide_threads_cover_every_chunk_and_strip_once(wc in 1u32..40, h in 1u32..300, strip in 1u32..40, c in prop::sample::select(vec![1u32, 3])) {
        let w = 16 * wc;
        let p = SlideParams::new(w, h, c, strip);
        let cfg = blur_slide_config(p, c, 1);
        prop_assert!(cfg.grid[0] * SLIDE_THREADS >= p.threads());
        let mut seen = vec![false; (p.chunks * p.strips) as usize];
        let mut last_edge = false;
        for g in 0..p.threads() {
            let (col, s) = slide_thread(g, p.chunks, p.strips);
            // Edge threads first, then the inner threads.
            let edge = slide_is_edge(col, p.chunks);
            prop_assert!(!edge || last_edge || g == 0);
            last_edge = edge;
            prop_assert!(col < p.chunks && s < p.strips);
            let i = (s * p.chunks + col) as usize;
            prop_assert!(!seen[i]);
            seen[i] = true;
        }
        prop_assert!(p.strips * strip >= h && (p.strips - 1) * strip < h);
        // A warp's 16-byte loads of one row: 32 chunks of one strip are coalesced.
        if p.chunks >= WARP as u32 {
            let row = byte_rows(w, h, c);
            let a: [Option<usize>; WARP] = core::array::from_fn(|l| Some(row.offset(0, l * SLIDE_CHUNK as usize)));
            prop_assert_eq!(sectors(&a, 16), WARP / 2);
        }
    }

    #[test]
    fn strips_walk_every_row_once_and_neighbours_meet(h in 1u32..400, strip in 1u32..40, r in 1u32..4) {
        let strips = h.div_ceil(strip);
        for st in 0..strips {
            let (y0, y1) = (st * strip, ((st + 1) * strip).min(h));
            let up = slide_strip_upward(st);
            let walk = slide_strip_walk(y0, y1, up);
            let n = y1 - y0;
            // The outputs: every row of the strip once, in walking order.
            let rows: std::vec::Vec<u32> = (0..n).map(|i| slide_strip_row(walk, i)).collect();
            let mut sorted = rows.clone();
            sorted.sort_unstable();
            prop_assert_eq!(sorted, (y0..y1).collect::<std::vec::Vec<_>>());
            prop_assert_eq!(rows[0], if up { y1 - 1 } else { y0 });
            // The prologue's rows (i = -1 ..= -r) lie beyond the
            // strip's first row, against the walking direction.
            for k in 1..=r {
                let i = 0u32.wrapping_sub(k);
                let row = slide_strip_row(walk, i);
                let want = if up { y1 - 1 + k } else { y0.wrapping_sub(k) };
                prop_assert_eq!(row, want);
            }
            // The rows read, over every step a thread may take (the
            // prologue, the strip, D ≤ 4 rows ahead past its end): each
            // row within r of the strip and inside the image exactly
            // once, nothing else.
            let mut read = std::vec![0u32; h as usize];
            for i in 0..n + r + 4 + r {
                let i = i.wrapping_sub(r);
                let row = slide_strip_row(walk, i);
                if slide_strip_reads(row, i, n, r, h) {
                    prop_assert!(row < h);
                    read[row as usize] += 1;
                }
            }
            for row in 0..h {
                let near = row + r >= y0 && row < y1 + r;
                prop_assert_eq!(read[row as usize], near as u32, "row {}", row);
            }
            // Neighbours start (or end) at the row they share.
            if st + 1 < strips {
                let (n0, n1) = (y1, ((st + 2) * strip).min(h));
                let nup = slide_strip_upward(st + 1);
                prop_assert!(up != nup);
                if up {
                    // This strip starts at its bottom, the next at its top.
                    prop_assert_eq!(rows[0] + 1, slide_strip_row(slide_strip_walk(n0, n1, nup), 0));
                } else {
                    // This strip ends at its bottom, the next (upward) at its top.
                    prop_assert_eq!(*rows.last().unwrap() + 1, slide_strip_row(slide_strip_walk(n0, n1, nup), n1 - n0 - 1));
                }
            }
        }
    }

    #[test]
    fn hslide_strips_never_exceed_their_waves(chunks in 1u32..5000, h in 1u32..20000, sms in 1u32..200, n in 1u32..9, waves in 1u32..4) {
        let s = hslide_strip_rows(chunks, h, sms, n, waves);
        prop_assert!(s >= SLIDE_STRIP_RANGE[0]);
        let threads = chunks as u64 * h.div_ceil(s) as u64;
        let slots = (waves * sms * n * SLIDE_THREADS) as u64;
        // Whole waves (up to block rounding), unless even the shortest
        // strips leave the image short of one wave.
        prop_assert!(threads <= slots || s == SLIDE_STRIP_RANGE[0] || slots < chunks as u64);
        // And no shorter strip would also fit: the tallest strips that do.
        if s > SLIDE_STRIP_RANGE[0] {
            prop_assert!(chunks as u64 * h.div_ceil(s - 1) as u64 > slots);
        }
    }

    #[test]
    fn only_edge_lanes_have_clipped_windows(wc in 1u32..20, c in prop::sample::select(vec![1u32, 3]), r in 1u32..4) {
        let w = 16 * wc;
        let rb = w * c;
        for b in 0..rb {
            if window_len(b / c, r, w) < 2 * r + 1 {
                prop_assert!(slide_edge_lane(c, r, b % SLIDE_CHUNK), "byte {} of a {}-byte row", b, rb);
            }
        }
    }

    #[test]
    fn fast_tile_covers_every_output_with_its_halo(w in 1u32..2000, h in 1u32..300, ch in prop::sample::select(vec![1u32, 3]), r in 1u32..4) {
        let p = ImageParams::new(w, h, ch, r);
        let c = blur_fast_config(p);
        prop_assert!(c.grid[0] * FAST_TILE_W >= p.row_bytes());
        prop_assert!(c.grid[1] * FAST_TILE_H >= h);
        // The window of an output byte j of a tile row, j ± ch·r, lies in
        // the input row's halo chunks.
        prop_assert!(ch * r <= FAST_CHUNK);
        prop_assert!(fast_in_layout(r).cosize() <= fast_shared_bytes(r) as usize);
    }
}
