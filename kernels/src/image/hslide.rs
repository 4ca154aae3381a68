//! Sliding blur of horizontal sums: the rung after `blur_slide_*`.
//!
//! `blur_slide_*` slides column sums of raw bytes down the strip and sums
//! them horizontally per output row: every row's words are split into
//! even/odd u16 lanes twice (entering and leaving), and the column sums
//! span the halo words too. Here each row is summed horizontally once,
//! when it enters: its 8 packed words of horizontal sums go into the
//! thread's ring, and the vertical slide is 8 adds and subtracts of those
//! words, whatever the channels and the radius. The column-sum lanes start
//! at `count / 2` ([`lane_bias`]), so they already hold the numerator of
//! the rounded mean: the low lane is one mask and one multiply, the high
//! lane one multiply-high ([`div_round_hi_lane`]) with no shift.

use crate::arch::simd::u32x4;

use super::index::{
    byte_rows, full_count, hslide_alternates, hslide_blocks_per_sm, hslide_prefetch, hslide_prologue_rows, hslide_ring, hsum_byte, hsum_lane,
    lane_bias, magic24, mul_hi, packed_pair, slide_edge_lane, slide_halo_words, slide_is_edge, slide_ring_slots, slide_strip_reads,
    slide_strip_row, slide_strip_upward, slide_strip_walk, slide_thread, window_len, SlideParams, HSLIDE_MAX_PROLOGUE, HSLIDE_WORDS,
    SLIDE_CHUNK, SLIDE_EDGE_PREFETCH, SLIDE_MAX_PREFETCH, SLIDE_MAX_WORDS, SLIDE_THREADS,
};
use super::slide::{chunk_row, clip_code, clipped_magic, even, odd, prmt, strip_steps, Row};
use crate::arch::{block_idx_x, dynamic_shared, thread_idx_x, Global};
use crate::kernel;

/// Packed words of one row's horizontal sums, or of the window's sums of them.
type Sums = [u32; HSLIDE_WORDS];

/// `(a >> 16) | (b << 16)`: the high lane of `a` and the low lane of `b`
/// (ptxas fuses it with the adds that consume it: `LEA.HI`).
#[inline(always)]
fn funnel16(a: u32, b: u32) -> u32 {
    (a >> 16) | (b << 16)
}

/// Horizontal sums of one loaded row (halo words, 4 own words, halo
/// words): word `2q + s` holds output bytes `4q + s` and `4q + s + 2`
/// ([`hsum_lane`]), each the sum of the `2R + 1` bytes `C` apart around it.
#[inline(always)]
fn hsums<const C: u32, const R: u32>(v: &Row) -> Sums {
    let hw = slide_halo_words(C, R) as i32;
    let e = |i: i32| even(v[(i + hw) as usize]);
    let o = |i: i32| odd(v[(i + hw) as usize]);
    // W(m) = (V[m], V[m + 2]) from the split words (packed_pair).
    let wv = |m: i32| -> u32 {
        let (i, kind) = packed_pair(m);
        match kind {
            0 => e(i),
            1 => o(i),
            2 => funnel16(e(i), e(i + 1)),
            _ => funnel16(o(i), o(i + 1)),
        }
    };
    let (ri, ci) = (R as i32, C as i32);
    let mut hs = [0u32; HSLIDE_WORDS];
    for q in 0..4usize {
        let m = 4 * q as i32;
        if C == 1 && R >= 3 {
            // The windows of m and m + 1 share 2R words (fewer adds than
            // two sums of 2R + 1 from radius 3 on).
            let mut common = 0u32;
            for k in 1 - ri..ri + 1 {
                common = common.wrapping_add(wv(m + k));
            }
            hs[2 * q] = common.wrapping_add(wv(m - ri));
            hs[2 * q + 1] = common.wrapping_add(wv(m + 1 + ri));
        } else {
            for s in 0..2usize {
                let mut sum = 0u32;
                for k in -ri..ri + 1 {
                    sum = sum.wrapping_add(wv(m + s as i32 + ci * k));
                }
                hs[2 * q + s] = sum;
            }
        }
    }
    hs
}

/// The in-image columns of output byte `j` at chunk byte offset `x`:
/// `2R + 1` except for the clipped lanes of edge chunks.
#[inline(always)]
fn lane_columns<const C: u32, const R: u32, const EDGE: bool>(x: u32, width: u32, j: u32) -> u32 {
    if EDGE && slide_edge_lane(C, R, j) { window_len((x + j) / C, R, width) } else { 2 * R + 1 }
}

/// The initial column sums: every lane at [`lane_bias`] of its full-height
/// window count.
#[inline(always)]
fn biased_zero<const C: u32, const R: u32, const EDGE: bool>(x: u32, width: u32) -> Sums {
    let mut s = [0u32; HSLIDE_WORDS];
    for j in 0..16u32 {
        let (w, half) = hsum_lane(j as usize);
        let count = lane_columns::<C, R, EDGE>(x, width, j) * (2 * R + 1);
        s[w] |= lane_bias(count) << (16 * half);
    }
    s
}

/// Packs 16 quotients: for each output word, the low lanes of words `2i`,
/// `2i + 1` (bytes `4i`, `4i + 1`, [`hsum_lane`]) divide by a mask and a
/// multiply (quotient in byte 3, `div_round_magic24`), the high lanes
/// (bytes `4i + 2`, `4i + 3`) by one multiply-high (quotient in byte 2,
/// [`div_round_hi_lane`]); three byte permutes pack the four quotients.
/// `s` holds `sum + count / 2` per lane, `magic(j)` is `magic24(count)` of
/// byte `j`.
#[inline(always)]
fn divide_biased(s: &Sums, magic: impl Fn(usize) -> u32) -> [u32; 4] {
    core::array::from_fn(|i| {
        let (a, b) = (s[2 * i], s[2 * i + 1]);
        let lo_a = (a & 0xffff).wrapping_mul(magic(4 * i));
        let lo_b = (b & 0xffff).wrapping_mul(magic(4 * i + 1));
        let hi_a = mul_hi(a, magic(4 * i + 2) << 8);
        let hi_b = mul_hi(b, magic(4 * i + 3) << 8);
        prmt(prmt(lo_a, lo_b, 0x0073), prmt(hi_a, hi_b, 0x6200), 0x7610)
    })
}

/// One output row of 16 bytes from the window's biased column sums `s`
/// (4 little-endian words). Byte `j` averages `cx · cy` pixels: `cx = 2R + 1 - k`
/// for its clip code `k` (0 but in edge chunks), `cy = 2R + 1` but in the
/// first and last R rows of the image.
#[inline(always)]
fn divide_row<const C: u32, const R: u32, const EDGE: bool>(s: &Sums, y: u32, p: SlideParams, clip_codes: u32) -> [u32; 4] {
    let side = 2 * R + 1;
    let code = |j: usize| if EDGE && slide_edge_lane(C, R, j as u32) { clip_code(clip_codes, j as u32) } else { 0 };
    if y >= R && y + R < p.height {
        // Full vertical window: constant multipliers (one per clip code).
        let m_full = magic24(full_count(R));
        divide_biased(s, |j| if EDGE && slide_edge_lane(C, R, j as u32) { clipped_magic::<R>(code(j)).0 } else { m_full })
    } else {
        // The first and last R rows: cy < 2R + 1. Per clip code, the
        // multiplier of `cx · cy` and the bias to move from `cx · side / 2`
        // to `cx · cy / 2` (R + 1 divisions, one in inner chunks).
        let cy = window_len(y, R, p.height);
        let count = |k: u32| (side - k) * cy;
        let mk: [u32; 4] = core::array::from_fn(|k| if k as u32 <= R { magic24(count(k as u32)) } else { 0 });
        let dk: [u32; 4] =
            core::array::from_fn(|k| if k as u32 <= R { lane_bias((side - k as u32) * side) - lane_bias(count(k as u32)) } else { 0 });
        // Selects, no table in memory (an iterator here is not unrolled).
        let pick = |t: &[u32; 4], k: u32| {
            let mut v = t[0];
            for kk in 1..R + 1 {
                if k == kk {
                    v = t[kk as usize];
                }
            }
            v
        };
        let t: Sums = core::array::from_fn(|w| {
            let (lo, hi) = (hsum_byte(w, 0), hsum_byte(w, 1));
            s[w].wrapping_sub(pick(&dk, code(lo)) | pick(&dk, code(hi)) << 16)
        });
        divide_biased(&t, |j| pick(&mk, code(j)))
    }
}

/// The horizontal-first sliding blur for `C` channels at radius `R`, `D`
/// rows loaded ahead, neighbouring strips walking in opposite directions
/// when `ALT` ([`slide_strip_upward`]), the ring's first `PB` rows loaded
/// together ([`hslide_prologue_rows`]): picks the thread's chunk and strip,
/// and the code path of inner or edge chunks (as `blur_slide_*`).
#[inline(always)]
unsafe fn blur_hslide_body<const C: u32, const R: u32, const D: u32, const ALT: bool, const PB: u32>(input: Global<u8>, output: Global<u8>, p: SlideParams) {
    let tid = thread_idx_x();
    let g = block_idx_x() * SLIDE_THREADS + tid;
    if g >= p.threads() {
        return; // no barrier follows: leaving early is safe
    }
    let (col, strip) = slide_thread(g, p.chunks, p.strips);
    // SAFETY: as for `blur_hslide_strip`.
    unsafe {
        if slide_is_edge(col, p.chunks) {
            blur_hslide_strip::<C, R, SLIDE_EDGE_PREFETCH, true, ALT, PB>(input, output, p, tid, col, strip)
        } else {
            blur_hslide_strip::<C, R, D, false, ALT, PB>(input, output, p, tid, col, strip)
        }
    }
}

/// One thread's strip: chunk `col` of rows `strip · strip_rows ..`, `D`
/// rows loaded ahead; `EDGE`: the chunk may hold clipped columns; `ALT`,
/// `PB`: as for [`blur_hslide_body`].
#[inline(always)]
unsafe fn blur_hslide_strip<const C: u32, const R: u32, const D: u32, const EDGE: bool, const ALT: bool, const PB: u32>(
    input: Global<u8>,
    output: Global<u8>,
    p: SlideParams,
    tid: u32,
    col: u32,
    strip: u32,
) {
    // SAFETY: the launcher checked `slide_supports` and the buffer lengths
    // for `p`; every access below is inside the image or the block's rings
    // (the emulator checks both).
    unsafe {
        const { assert!(D >= 1 && D as usize <= SLIDE_MAX_PREFETCH) };
        let hw = slide_halo_words(C, R) as usize;
        let slots = slide_ring_slots(R);
        let img = byte_rows(p.width, p.height, C);
        let x = col * SLIDE_CHUNK;
        let (has_left, has_right) = (col > 0, col + 1 < p.chunks);
        let y0 = strip * p.strip_rows;
        let y1 = if y0 + p.strip_rows < p.height { y0 + p.strip_rows } else { p.height };
        // Row `i` steps along the strip in its walking direction (even
        // strips walk up: see slide_strip_upward).
        let walk = slide_strip_walk(y0, y1, ALT && slide_strip_upward(strip));
        let row_at = |i: u32| slide_strip_row(walk, i);
        let n = y1 - y0;

        // Row `row_at(i)`'s words (chunk_row); zeros for rows outside the
        // image or further than R from the strip (the rows loaded ahead
        // past its end).
        let load = |i: u32| -> Row {
            let row = row_at(i);
            let mut v = [0u32; SLIDE_MAX_WORDS];
            if slide_strip_reads(row, i, n, R, p.height) {
                chunk_row(&mut v, input, img.offset(row as usize, x as usize), hw, (has_left, has_right));
            }
            v
        };

        // The thread's ring of horizontal sums: slot s holds the row
        // `row_at(s - R - 1)` (mod slots).
        let ring = hslide_ring(R);
        let sh = dynamic_shared::<u32x4>();
        let ring_store = |slot: u32, h: &Sums| {
            sh.store(ring.offset(slot as usize, 0, tid as usize), u32x4::from_array([h[0], h[1], h[2], h[3]]));
            sh.store(ring.offset(slot as usize, 1, tid as usize), u32x4::from_array([h[4], h[5], h[6], h[7]]));
        };
        let ring_load = |slot: u32| -> Sums {
            let a = sh.load(ring.offset(slot as usize, 0, tid as usize)).to_array();
            let b = sh.load(ring.offset(slot as usize, 1, tid as usize)).to_array();
            [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]]
        };

        // Edge chunks: which of the R + 1 possible column counts each byte
        // has, 2 bits per byte (see clip_code).
        let mut clip_codes = 0u32;
        if EDGE {
            for j in 0..16u32 {
                if slide_edge_lane(C, R, j) {
                    let cx = window_len((x + j) / C, R, p.width);
                    clip_codes |= (2 * R + 1 - cx) << (2 * j);
                }
            }
        }

        // Window sums of the horizontal sums, biased (lane_bias).
        let mut s = biased_zero::<C, R, EDGE>(x, p.width);
        let mut ahead = [[0u32; SLIDE_MAX_WORDS]; SLIDE_MAX_PREFETCH];
        #[allow(clippy::needless_range_loop)] // index loops unroll with constant indices
        for k in 0..SLIDE_MAX_PREFETCH {
            if k < D as usize {
                ahead[k] = load(R + k as u32);
            }
        }
        ring_store(0, &[0u32; HSLIDE_WORDS]);
        // The ring's first rows are all loaded before the first of them is
        // summed: each load sits in its own guarded block, and a sum right
        // after its load made every row wait for the one before it (ncu,
        // gray radius 3 on an H200: half the stall samples were in this
        // prologue, one memory latency per row).
        let mut first = [[0u32; SLIDE_MAX_WORDS]; HSLIDE_MAX_PROLOGUE];
        #[allow(clippy::needless_range_loop)] // index loops unroll with constant indices
        for k in 0..HSLIDE_MAX_PROLOGUE {
            if (k as u32) < PB {
                first[k] = load((k as u32 + 1).wrapping_sub(R + 1));
            }
        }
        for slot in 1..slots {
            let row = if slot <= PB { first[(slot - 1) as usize] } else { load(slot.wrapping_sub(R + 1)) };
            let h = hsums::<C, R>(&row);
            for w in 0..HSLIDE_WORDS {
                s[w] = s[w].wrapping_add(h[w]);
            }
            ring_store(slot, &h);
        }

        let out_rows = byte_rows(p.width, p.height, C);
        let mut i = 0u32;
        let mut slot = 0u32;
        // One output row; `$k` (a literal) picks the prefetch registers.
        macro_rules! step {
            ($k:literal) => {{
                // Output row y = row_at(i): row_at(i + R) enters, row_at(i -
                // R - 1) leaves (its slot takes the entering row's sums);
                // fetch row_at(i + R + D).
                let y = row_at(i);
                let h = hsums::<C, R>(&ahead[$k]);
                ahead[$k] = load(i + R + D);
                let leave = ring_load(slot);
                for w in 0..HSLIDE_WORDS {
                    s[w] = s[w].wrapping_add(h[w]).wrapping_sub(leave[w]);
                }
                ring_store(slot, &h);
                slot = if slot + 1 == slots { 0 } else { slot + 1 };
                let out = divide_row::<C, R, EDGE>(&s, y, p, clip_codes);
                output.write_vec::<u32x4>(out_rows.offset(y as usize, x as usize), u32x4::from_array(out));
                i += 1;
            }};
        }
        strip_steps!(D, i < n, step);
    }
}

/// The default horizontal-first sliding kernels, one row each: its doc,
/// `name: channels, radius`. A row is the kernel — [`blur_hslide_body`]
/// with [`hslide_prefetch`] rows ahead, [`hslide_alternates`] and
/// [`hslide_prologue_rows`] for its channels and radius (the experiments
/// below override them) — and its launch bounds, [`hslide_blocks_per_sm`]
/// blocks ([`LAUNCH_BOUNDS`]).
macro_rules! hslide_kernels {
    ($($(#[$doc:meta])* $name:ident: $c:literal, $r:literal;)*) => {
        $(
            kernel! {
                $(#[$doc])*
                pub fn $name(input: Global<u8>, output: Global<u8>, p: SlideParams) {
                    blur_hslide_body::<$c, $r, { hslide_prefetch($c, $r) }, { hslide_alternates($c, $r) }, { hslide_prologue_rows($c, $r) }>(input, output, p)
                }
            }
        )*

        /// The image kernels with launch bounds (read by the PTX linker, see
        /// [`crate::launch::LaunchBounds`]): the default horizontal-first
        /// sliding kernels at [`hslide_blocks_per_sm`] blocks of
        /// [`SLIDE_THREADS`] (the experiments' are
        /// [`experiments::LAUNCH_BOUNDS`]).
        pub const LAUNCH_BOUNDS: &[crate::launch::LaunchBounds] = &[$(bounds(stringify!($name), hslide_blocks_per_sm($c, $r))),*];
    };
}

/// The default horizontal-first sliding kernels, one row each (`name:
/// channels, radius` and its doc): `hslide_table!(m)` passes the rows to
/// the macro `m` (`hslide_table!(m, x)`: `x` before them). Here `hslide_kernels!` makes them the kernels and
/// their launch bounds; the host's launcher makes them its dispatch over
/// channels and radius, so a row added here is launched there.
#[macro_export]
macro_rules! hslide_table {
    ($then:ident $(, $arg:ident)*) => { $then! { $($arg)*
    /// Horizontal-first sliding blur, gray, radius 1: improves on
    /// `blur_slide_gray_r1` by summing each row horizontally once, when it
    /// enters the window, and sliding those 8 packed words down the strip
    /// (the ring in shared memory holds sums, not raw bytes): the slide no
    /// longer splits the entering and the leaving row into u16 lanes, and
    /// its width no longer grows with the halo. The window sums start
    /// biased by `count / 2`, so each high lane divides with one
    /// multiply-high and no shift (`div_round_hi_lane`). Same threads,
    /// strips, edge warps and prefetch as `blur_slide_*`; launch bounds
    /// pin 6 blocks per SM (`hslide_blocks_per_sm`), and the default strips
    /// fill whole waves of them (`hslide_default_strip_rows`). Expected:
    /// fewer instructions per row than `blur_slide_gray_r1` (whose integer
    /// pipe is the limit), more so at larger halos (RGB); measured faster
    /// than `blur_slide_*` in every run (HISTORY.md, the blur rounds).
    /// Neighbouring strips walk in opposite directions
    /// ([`slide_strip_upward`]), so the halo rows two
    /// threads share are read by both at about the same time and the
    /// second read hits L2: at radius 3 the kernel read 68 MB from DRAM
    /// instead of 74 (64 MB image), 54 µs instead of 58 under ncu. Measured
    /// on an H100 at 8192² (three runs, % of copy): radius 1 / 2 / 3
    /// 89.5–90.5 / 86.7–88.9 / 84.5–87.5 against 87.0–87.9 / 83.9–85.5 /
    /// 80.1–82.9 with every strip walking down (`experiments::*_down`).
    /// A thread loads the `2r` rows its ring starts with before summing
    /// the first ([`hslide_prologue_rows`]); loaded and summed one by one,
    /// each waited for the previous one's memory latency. Measured on an
    /// H200 at 8192² (three runs, % of copy): radius 1 / 2 / 3 86.4–87.7 /
    /// 85.1–86.4 / 80.9–82.7 against 86.3–86.7 / 82.0–82.9 / 75.6–76.6 one
    /// by one (`experiments::*_serial`).
    blur_hslide_gray_r1: 1, 1;

    /// [`blur_hslide_gray_r1`] at radius 2.
    blur_hslide_gray_r2: 1, 2;

    /// [`blur_hslide_gray_r1`] at radius 3.
    blur_hslide_gray_r3: 1, 3;

    /// [`blur_hslide_gray_r1`] for interleaved RGB at radius 1 (1 halo
    /// word on each side, summed once per row instead of twice).
    blur_hslide_rgb_r1: 3, 1;

    /// [`blur_hslide_rgb_r1`] at radius 2 (2 halo words on each side).
    blur_hslide_rgb_r2: 3, 2;

    /// [`blur_hslide_rgb_r1`] at radius 3 (3 halo words on each side: the
    /// old slide kept 20 column-sum words, this one 8). Every strip walks
    /// down ([`hslide_alternates`]).
    blur_hslide_rgb_r3: 3, 3;

    /// [`blur_hslide_rgb_r1`] for interleaved RGBA (4-byte pixels: the
    /// window reaches 4 bytes beyond the chunk, 1 halo word on each side,
    /// as RGB's 3): improves on the window rung, which RGBA ran at every
    /// radius, with the sliding sums' one horizontal pass per entering row.
    blur_hslide_rgba_r1: 4, 1;

    /// [`blur_hslide_rgba_r1`] at radius 2 (2 halo words on each side).
    blur_hslide_rgba_r2: 4, 2;

    /// [`blur_hslide_rgba_r1`] at radius 3 (3 halo words on each side;
    /// every strip walks down, as [`blur_hslide_rgb_r3`]).
    blur_hslide_rgba_r3: 4, 3;
    } };
}

crate::hslide_table!(hslide_kernels);

/// Benchmark experiments of the horizontal-first sliding blur: other
/// prefetch depths (`_p<D>`) than the default kernels. (A gray radius-3
/// kernel at 6 blocks per SM with 2 rows ahead, `_lb6`, was measured too
/// and removed: slower in every run, and it spilled once the strips
/// learned to walk upwards.) Measured against the defaults in several runs
/// (HISTORY.md): none beat them. `_down`: every strip walks down, as all
/// did before neighbouring strips alternated; `_serial`: the ring's first
/// rows loaded and summed one by one, as before they were loaded together
/// (see [`blur_hslide_gray_r1`] for both).
pub mod experiments {
    use super::{blur_hslide_body, bounds};
    use crate::arch::Global;
    use crate::image::index::{hslide_blocks_per_sm, hslide_prefetch, hslide_prologue_rows};
    use crate::image::SlideParams;
    use crate::kernel;

    /// `name: channels, radius, rows ahead, alternating walk, rows loaded
    /// together at the start` (the parameters of `blur_hslide_body`).
    macro_rules! experiment {
        ($name:ident: $c:literal, $r:literal, $d:expr, $alt:literal, $pb:expr) => {
            kernel! {
                /// A horizontal-first sliding-blur experiment (name: channels,
                /// radius, what differs from the default; see the module).
                pub fn $name(input: Global<u8>, output: Global<u8>, p: SlideParams) {
                    blur_hslide_body::<$c, $r, { $d }, $alt, { $pb }>(input, output, p)
                }
            }
        };
    }
    // 2 rows ahead.
    experiment!(blur_hslide_gray_r1_p2: 1, 1, 2, true, hslide_prologue_rows(1, 1));
    experiment!(blur_hslide_gray_r2_p2: 1, 2, 2, true, hslide_prologue_rows(1, 2));
    experiment!(blur_hslide_gray_r3_p2: 1, 3, 2, true, hslide_prologue_rows(1, 3));
    experiment!(blur_hslide_rgb_r1_p2: 3, 1, 2, true, hslide_prologue_rows(3, 1));
    experiment!(blur_hslide_rgb_r3_p2: 3, 3, 2, true, hslide_prologue_rows(3, 3));
    // Every strip walks down (the kernel before neighbouring strips
    // alternated their direction).
    experiment!(blur_hslide_gray_r1_down: 1, 1, hslide_prefetch(1, 1), false, hslide_prologue_rows(1, 1));
    experiment!(blur_hslide_gray_r2_down: 1, 2, hslide_prefetch(1, 2), false, hslide_prologue_rows(1, 2));
    experiment!(blur_hslide_gray_r3_down: 1, 3, hslide_prefetch(1, 3), false, hslide_prologue_rows(1, 3));
    // The ring's first rows loaded and summed one by one (the kernel
    // before they were loaded together).
    experiment!(blur_hslide_gray_r1_serial: 1, 1, hslide_prefetch(1, 1), true, 0);
    experiment!(blur_hslide_gray_r2_serial: 1, 2, hslide_prefetch(1, 2), true, 0);
    experiment!(blur_hslide_gray_r3_serial: 1, 3, hslide_prefetch(1, 3), true, 0);

    /// Launch bounds of the experiments that have them (the `_p2` kernels
    /// take none): the defaults' for their channels and radius.
    pub const LAUNCH_BOUNDS: &[crate::launch::LaunchBounds] = &[
        bounds("blur_hslide_gray_r1_down", hslide_blocks_per_sm(1, 1)),
        bounds("blur_hslide_gray_r2_down", hslide_blocks_per_sm(1, 2)),
        bounds("blur_hslide_gray_r3_down", hslide_blocks_per_sm(1, 3)),
        bounds("blur_hslide_gray_r1_serial", hslide_blocks_per_sm(1, 1)),
        bounds("blur_hslide_gray_r2_serial", hslide_blocks_per_sm(1, 2)),
        bounds("blur_hslide_gray_r3_serial", hslide_blocks_per_sm(1, 3)),
    ];
}

/// Launch bounds of a sliding-blur kernel: its block of [`SLIDE_THREADS`].
const fn bounds(kernel: &'static str, min_blocks_per_sm: u32) -> crate::launch::LaunchBounds {
    crate::launch::LaunchBounds { kernel, max_threads: SLIDE_THREADS, min_blocks_per_sm }
}
