//! Sliding-window box blur: the rung after `blur_fast_*`.
//!
//! Each thread owns one 16-byte column chunk of a strip of rows and walks
//! down the strip keeping the column sums of the `2r + 1` window rows in
//! registers, packed two u16 lanes per 32-bit word. Per row it adds the
//! incoming row and subtracts the outgoing one (kept in a private ring in
//! shared memory), so the vertical cost per row does not depend on the
//! radius, and there is no barrier: a thread only ever reads back what it
//! wrote itself. Horizontal neighbours beyond the chunk come from the
//! thread's own halo loads (one more word or vector on each side, mostly
//! L1 hits: the neighbouring threads load the same lines).

use crate::arch::simd::{u32x2, u32x4};

use super::index::{
    byte_rows, div_round_half_up, full_count, hsum_lane, magic24, magic24_addend, packed_pair, slide_edge_lane,
    slide_halo_words, slide_is_edge, slide_prefetch, slide_ring_core, slide_ring_halo, slide_ring_slots, slide_thread, slide_words, window_len,
    SlideParams, SLIDE_CHUNK, SLIDE_EDGE_PREFETCH, SLIDE_MAX_PREFETCH, SLIDE_MAX_WORDS, SLIDE_THREADS,
};
use crate::arch::{block_idx_x, dynamic_shared, thread_idx_x, Global};
use crate::kernel;

/// The strip loop of the sliding blurs: `$step!(0)`, `$step!(1)`, …
/// `$step!(D - 1)` per iteration (literal indices, so each step's prefetch
/// registers are fixed; `D` is 1 to [`SLIDE_MAX_PREFETCH`]), until `$more`
/// is false after a step.
macro_rules! strip_steps {
    ($d:expr, $more:expr, $step:ident) => {{
        const { assert!($crate::image::index::SLIDE_MAX_PREFETCH == 4) };
        while $more {
            $step!(0);
            if $d == 1 {
                continue;
            }
            if !$more {
                break;
            }
            $step!(1);
            if $d == 2 {
                continue;
            }
            if !$more {
                break;
            }
            $step!(2);
            if $d == 3 {
                continue;
            }
            if !$more {
                break;
            }
            $step!(3);
        }
    }};
}
pub(super) use strip_steps;


/// Bytes 0 and 2 of a word as two u16 lanes.
#[inline(always)]
pub(super) fn even(w: u32) -> u32 {
    w & 0x00ff_00ff
}

/// Bytes 1 and 3 of a word as two u16 lanes (one byte permute; a shift
/// and a mask are two instructions).
#[inline(always)]
pub(super) fn odd(w: u32) -> u32 {
    prmt(w, 0, 0x4341)
}

/// PTX `prmt.b32 d, a, b, sel` (default mode, selector nibbles 0–7): byte
/// `k` of the result is byte `(sel >> 4k) & 7` of the 8 bytes `b:a`.
/// LLVM does not form it from shifts and masks; ptxas keeps it as one
/// `PRMT`.
#[inline(always)]
pub(super) fn prmt(a: u32, b: u32, sel: u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let d: u32;
        // SAFETY: a register-only instruction.
        unsafe {
            core::arch::asm!(
                "prmt.b32 {d}, {a}, {b}, {s};",
                d = out(reg32) d,
                a = in(reg32) a,
                b = in(reg32) b,
                s = in(reg32) sel,
                options(pure, nomem, nostack)
            );
        }
        d
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let bytes = (((b as u64) << 32) | a as u64).to_le_bytes();
        (0..4).fold(0u32, |d, k| d | (bytes[((sel >> (4 * k)) & 7) as usize] as u32) << (8 * k))
    }
}

/// The output word of four products whose byte 3 is a quotient (byte `k`
/// of the word = byte 3 of `p[k]`): three byte permutes.
#[inline(always)]
fn byte3s(p: [u32; 4]) -> u32 {
    prmt(prmt(p[0], p[1], 0x0073), prmt(p[2], p[3], 0x0073), 0x5410)
}

/// The clip code of byte `j`: `2R + 1 - cx` where `cx` is the number of
/// in-image columns of its window (`R + 1 ..= 2R + 1`: rows are at least 16
/// pixels wide), 2 bits per byte of `codes`.
#[inline(always)]
pub(super) fn clip_code(codes: u32, j: u32) -> u32 {
    (codes >> (2 * j)) & 3
}

/// Multiplier and addend ([`magic24`], [`magic24_addend`]) of a byte with
/// clip code `code` in a row with a full vertical window: a choice among
/// R + 1 constants (selects, no table in memory).
#[inline(always)]
pub(super) fn clipped_magic<const R: u32>(code: u32) -> (u32, u32) {
    let side = 2 * R + 1;
    let mut ma = (magic24(side * side), magic24_addend(side * side));
    for k in 1..R + 1 {
        if code == k {
            let count = (side - k) * side;
            ma = (magic24(count), magic24_addend(count));
        }
    }
    ma
}

/// One row of a thread: halo words, its 4 words, halo words (zeros outside
/// the image); only the first [`slide_words`] entries are used.
pub(super) type Row = [u32; SLIDE_MAX_WORDS];

/// Loads into `v` the words of one row of a thread's chunk at byte offset
/// `at` of the image: one 16-byte load of the chunk, and its `hw` halo words as one
/// u32, a u32x2 or (3 words of) a u32x4 on each side that has a neighbour
/// chunk (`has_left`, `has_right`; the other side's words stay as they are).
///
/// # Safety
/// The chunk and the halo words it reads lie inside `input`.
#[inline(always)]
pub(super) unsafe fn chunk_row(v: &mut Row, input: Global<u8>, at: usize, hw: usize, (has_left, has_right): (bool, bool)) {
    unsafe {
        let own = input.read_vec::<u32x4>(at).to_array();
        v[hw..hw + 4].copy_from_slice(&own);
        if has_left {
            match hw {
                1 => v[0] = input.read_vec::<u32>(at - 4),
                2 => v[..2].copy_from_slice(&input.read_vec::<u32x2>(at - 8).to_array()),
                _ => v[..3].copy_from_slice(&input.read_vec::<u32x4>(at - 16).to_array()[1..]),
            }
        }
        if has_right {
            let r0 = hw + 4;
            match hw {
                1 => v[r0] = input.read_vec::<u32>(at + 16),
                2 => v[r0..r0 + 2].copy_from_slice(&input.read_vec::<u32x2>(at + 16).to_array()),
                _ => v[r0..r0 + 3].copy_from_slice(&input.read_vec::<u32x4>(at + 16).to_array()[..3]),
            }
        }
    }
}

/// One output row of 16 bytes from the window's column sums `ve`/`vo`
/// (even/odd bytes of each word, u16 lanes): horizontal sums of packed
/// words, then the rounded means, as 4 little-endian words.
#[inline(always)]
fn blur_row<const C: u32, const R: u32, const EDGE: bool>(
    ve: &Row,
    vo: &Row,
    y: u32,
    x: u32,
    p: SlideParams,
    clip_codes: u32,
) -> [u32; 4] {
    let hw = slide_halo_words(C, R) as i32;
    // W(m) = (V[m], V[m + 2]) from the split words (packed_pair).
    let wv = |m: i32| -> u32 {
        let (i, kind) = packed_pair(m);
        let at = (i + hw) as usize;
        match kind {
            0 => ve[at],
            1 => vo[at],
            2 => (ve[at] >> 16) | (ve[at + 1] << 16),
            _ => (vo[at] >> 16) | (vo[at + 1] << 16),
        }
    };
    // Word 2q + s holds output bytes 4q + s and 4q + s + 2 (hsum_lane): the
    // sum of W(4q + s + C·k), |k| ≤ R.
    let (ri, ci) = (R as i32, C as i32);
    let mut hs = [0u32; 8];
    for q in 0..4usize {
        let m = 4 * q as i32;
        if C == 1 {
            // The windows of m and m + 1 share 2R words.
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
    let lane = |j: usize| {
        let (wd, half) = hsum_lane(j);
        (hs[wd] >> (16 * half)) & 0xffff
    };
    let mut out = [0u32; 4];
    if y >= R && y + R < p.height {
        // Full vertical window: one multiply-add per byte, the quotient is
        // byte 3 of the product (div_round_magic24).
        let (m_full, a_full) = (magic24(full_count(R)), magic24_addend(full_count(R)));
        for (i, o) in out.iter_mut().enumerate() {
            let prod = core::array::from_fn(|b| {
                let j = 4 * i + b;
                let clipped = EDGE && slide_edge_lane(C, R, j as u32);
                let (m, a) = if clipped { clipped_magic::<R>(clip_code(clip_codes, j as u32)) } else { (m_full, a_full) };
                lane(j).wrapping_mul(m).wrapping_add(a)
            });
            *o = byte3s(prod);
        }
    } else {
        // The first and last R rows of the image: clipped windows.
        let cy = window_len(y, R, p.height);
        for (i, o) in out.iter_mut().enumerate() {
            for b in 0..4 {
                let j = 4 * i + b;
                let count = window_len((x + j as u32) / C, R, p.width) * cy;
                *o |= div_round_half_up(lane(j), count) << (8 * b);
            }
        }
    }
    out
}

/// The sliding blur for `C` channels at radius `R`, `D` rows loaded ahead
/// (see [`blur_slide_gray_r1`]): picks the thread's chunk and strip, and
/// the code path of inner or edge chunks.
#[inline(always)]
unsafe fn blur_slide_body<const C: u32, const R: u32, const D: u32>(input: Global<u8>, output: Global<u8>, p: SlideParams) {
    let tid = thread_idx_x();
    let g = block_idx_x() * SLIDE_THREADS + tid;
    if g >= p.threads() {
        return; // no barrier follows: leaving early is safe
    }
    let (col, strip) = slide_thread(g, p.chunks, p.strips);
    // SAFETY: as for `blur_slide_strip`.
    unsafe {
        if slide_is_edge(col, p.chunks) {
            blur_slide_strip::<C, R, SLIDE_EDGE_PREFETCH, true>(input, output, p, tid, col, strip)
        } else {
            blur_slide_strip::<C, R, D, false>(input, output, p, tid, col, strip)
        }
    }
}

/// One thread's strip: chunk `col` of rows `strip · strip_rows ..`, `D`
/// rows loaded ahead; `EDGE`: the chunk may hold clipped columns (per-byte
/// divisors), else every column has its full window (constant divisor).
#[inline(always)]
unsafe fn blur_slide_strip<const C: u32, const R: u32, const D: u32, const EDGE: bool>(
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
        let nw = slide_words(C, R) as usize;
        let slots = slide_ring_slots(R);
        let img = byte_rows(p.width, p.height, C);
        let x = col * SLIDE_CHUNK;
        let (has_left, has_right) = (col > 0, col + 1 < p.chunks);
        let y0 = strip * p.strip_rows;
        let y1 = if y0 + p.strip_rows < p.height { y0 + p.strip_rows } else { p.height };
        // Rows the strip reads: y0 - R .. y1 + R, clipped to the image.
        let row_end = if y1 + R < p.height { y1 + R } else { p.height };

        // One row's words (chunk_row), zeros outside the image. `row` may
        // have wrapped below zero: then it is not below `row_end` either.
        let load = |row: u32| -> Row {
            let mut v = [0u32; SLIDE_MAX_WORDS];
            if row < row_end {
                chunk_row(&mut v, input, img.offset(row as usize, x as usize), hw, (has_left, has_right));
            }
            v
        };

        // The thread's ring: slot s holds the row y0 - R - 1 + s (mod slots).
        let (ring_core, ring_halo) = (slide_ring_core(R), slide_ring_halo(C, R));
        let sh_core = dynamic_shared::<u32x4>();
        let sh_halo = sh_core.offset(ring_core.size()).cast::<u32>();
        let halo_word = |k: usize| if k < hw { k } else { k + 4 };
        let ring_store = |slot: u32, v: &Row| {
            let o = ring_core.offset(slot as usize, tid as usize);
            sh_core.store(o, u32x4::from_array([v[hw], v[hw + 1], v[hw + 2], v[hw + 3]]));
            for k in 0..2 * hw {
                sh_halo.store(ring_halo.offset(slot as usize, k, tid as usize), v[halo_word(k)]);
            }
        };
        let ring_load = |slot: u32| -> Row {
            let mut v = [0u32; SLIDE_MAX_WORDS];
            let own = sh_core.load(ring_core.offset(slot as usize, tid as usize)).to_array();
            v[hw..hw + 4].copy_from_slice(&own);
            for k in 0..2 * hw {
                v[halo_word(k)] = sh_halo.load(ring_halo.offset(slot as usize, k, tid as usize));
            }
            v
        };

        // Edge chunks: which of the R + 1 possible column counts each byte
        // has, 2 bits per byte (one register, not 32: see clip_code).
        let mut clip_codes = 0u32;
        if EDGE {
            for j in 0..16u32 {
                if slide_edge_lane(C, R, j) {
                    let cx = window_len((x + j) / C, R, p.width);
                    clip_codes |= (2 * R + 1 - cx) << (2 * j);
                }
            }
        }

        // Column sums of the window, even and odd bytes of each word.
        let (mut ve, mut vo) = ([0u32; SLIDE_MAX_WORDS], [0u32; SLIDE_MAX_WORDS]);
        let mut ahead = [[0u32; SLIDE_MAX_WORDS]; SLIDE_MAX_PREFETCH];
        #[allow(clippy::needless_range_loop)] // index loops unroll with constant indices
        for k in 0..SLIDE_MAX_PREFETCH {
            if k < D as usize {
                ahead[k] = load(y0 + R + k as u32);
            }
        }
        let zero = [0u32; SLIDE_MAX_WORDS];
        ring_store(0, &zero);
        for s in 1..slots {
            let v = load((y0 + s).wrapping_sub(R + 1));
            for w in 0..nw {
                ve[w] = ve[w].wrapping_add(even(v[w]));
                vo[w] = vo[w].wrapping_add(odd(v[w]));
            }
            ring_store(s, &v);
        }

        let out_rows = byte_rows(p.width, p.height, C);
        let mut y = y0;
        let mut slot = 0u32;
        // One output row; `$k` (a literal) picks the prefetch registers, so
        // the loop below is unrolled by hand and every index is a constant.
        macro_rules! step {
            ($k:literal) => {{
                // Slide: row y + R enters, row y - R - 1 leaves (its slot
                // takes the entering row); fetch row y + R + D.
                let enter = ahead[$k];
                ahead[$k] = load(y + R + D);
                let leave = ring_load(slot);
                for w in 0..nw {
                    ve[w] = ve[w].wrapping_add(even(enter[w])).wrapping_sub(even(leave[w]));
                    vo[w] = vo[w].wrapping_add(odd(enter[w])).wrapping_sub(odd(leave[w]));
                }
                ring_store(slot, &enter);
                slot = if slot + 1 == slots { 0 } else { slot + 1 };
                let out = blur_row::<C, R, EDGE>(&ve, &vo, y, x, p, clip_codes);
                output.write_vec::<u32x4>(out_rows.offset(y as usize, x as usize), u32x4::from_array(out));
                y += 1;
            }};
        }
        strip_steps!(D, y < y1, step);
    }
}

/// The sliding kernels, one row each: its doc, `name: channels, radius`.
/// A row is the kernel, [`blur_slide_body`] with [`slide_prefetch`] rows
/// ahead for its channels and radius.
macro_rules! slide_kernels {
    ($($(#[$doc:meta])* $name:ident: $c:literal, $r:literal;)*) => {
        $(
            kernel! {
                $(#[$doc])*
                pub fn $name(input: Global<u8>, output: Global<u8>, p: SlideParams) {
                    blur_slide_body::<$c, $r, { slide_prefetch($c, $r) }>(input, output, p)
                }
            }
        )*
    };
}

/// The sliding kernels, one row each (`name: channels, radius` and its
/// doc): `slide_table!(m)` passes the rows to the macro `m`
/// (`slide_table!(m, x)`: `x` before them). Here
/// `slide_kernels!` makes them the kernels; the host's launcher makes them
/// its dispatch over channels and radius, so a row added here is launched
/// there.
#[macro_export]
macro_rules! slide_table {
    ($then:ident $(, $arg:ident)*) => { $then! { $($arg)*
    /// Sliding-window blur, gray, radius 1: improves on `blur_fast_gray_r1`
    /// by dropping the shared tile, its halo chunks and its two barriers.
    /// One thread per 16-byte chunk of a strip of rows (the host picks the
    /// strip height); it walks down the strip keeping the window's column
    /// sums as packed u16 pairs (even and odd bytes of each word) and per
    /// row adds the entering row and subtracts the leaving one, which it
    /// reads back from its private ring in shared memory (no barrier, no
    /// bank conflict). The next rows are loaded ahead (`slide_prefetch`;
    /// 16-byte loads, plus one word on each side for the horizontal
    /// window). Horizontal sums are adds and funnel shifts of packed words;
    /// each output byte is one multiply-add whose byte 3 is the rounded mean
    /// (exact: see `div_round_magic24`), three byte permutes pack four of
    /// them. Only the first and last chunk of a row have clipped columns:
    /// their threads run in warps of their own with per-byte multipliers,
    /// and only the first and last R rows of the image divide in general.
    /// Expected: about 9 instructions per pixel and no barrier, so the
    /// kernel streams near copy speed; measured well ahead of
    /// `blur_fast_gray_r1` (HISTORY.md).
    blur_slide_gray_r1: 1, 1;

    /// [`blur_slide_gray_r1`] at radius 2 (same cost per row: the column
    /// sums slide, the horizontal sum grows by two packed adds per word).
    blur_slide_gray_r2: 1, 2;

    /// [`blur_slide_gray_r1`] at radius 3.
    blur_slide_gray_r3: 1, 3;

    /// [`blur_slide_gray_r1`] for interleaved RGB at radius 1: neighbours 3
    /// bytes apart, so the halo is `3r` bytes (1 word) on each side.
    blur_slide_rgb_r1: 3, 1;

    /// [`blur_slide_rgb_r1`] at radius 2 (2 halo words on each side).
    blur_slide_rgb_r2: 3, 2;

    /// [`blur_slide_rgb_r1`] at radius 3 (3 halo words on each side).
    blur_slide_rgb_r3: 3, 3;
    } };
}

crate::slide_table!(slide_kernels);

/// Prefetch-depth experiments: the sliding kernels loading 2 or 4 rows
/// ahead whatever [`slide_prefetch`] says (the benchmark compares them).
pub mod prefetch {
    use super::blur_slide_body;
    use crate::arch::Global;
    use crate::image::SlideParams;
    use crate::kernel;

    macro_rules! experiment {
        ($name:ident, $c:literal, $r:literal, $d:literal) => {
            kernel! {
                /// A sliding-blur kernel with a fixed prefetch depth (name: channels, radius, rows ahead).
                pub fn $name(input: Global<u8>, output: Global<u8>, p: SlideParams) {
                    blur_slide_body::<$c, $r, $d>(input, output, p)
                }
            }
        };
    }
    experiment!(blur_slide_gray_r1_p2, 1, 1, 2);
    experiment!(blur_slide_gray_r2_p2, 1, 2, 2);
    experiment!(blur_slide_gray_r3_p4, 1, 3, 4);
    experiment!(blur_slide_rgb_r1_p2, 3, 1, 2);
    experiment!(blur_slide_rgb_r3_p4, 3, 3, 4);
}
