//! Box blur of any radius, width and channel count at a cost per pixel
//! that does not grow with the radius: the rung after `blur_hslide_*`
//! (which sums `2r + 1` bytes per output byte horizontally and needs rows
//! of whole 16-byte chunks).
//!
//! A block of 8 warps owns a band of output bytes (a 768-byte row
//! segment less a halo of about `channels · r` bytes on each side,
//! [`win_band`](super::index::win_band)) and walks a strip of rows
//! through it, 8 rows per batch:
//!
//! 1. **Vertical.** 192 threads own a 4-byte column word of the segment
//!    each and slide their window's column sums down the strip in
//!    registers, as packed u16 pairs (bytes 0, 2 and 1, 3): per row one
//!    load of the entering and one of the leaving row's word straight from
//!    global memory (the leaving row was read `2r + 1` rows earlier and
//!    comes from L2), the byte split (and a mask on the row's edge words),
//!    and one 3-input add per pair, whatever the radius. A row whose
//!    length is not a multiple of 4 is read as two aligned words and a
//!    funnel shift; the first and last image rows byte by byte (a word
//!    there may reach outside the image). The batch's column sums go to
//!    shared memory as stored (eight rows off one address), into one of
//!    two buffers (batches alternate).
//! 2. **Horizontal.** One warp per row of the batch: each lane sums its
//!    24 column sums per channel (`dp2a`: both u16 halves of a word in one
//!    instruction when they are of one channel), the lanes' totals are
//!    scanned with shuffles, and the lane's prefix sums run on from its
//!    carry, one `dp2a` per entry, stored four at a time.
//! 3. **Outputs.** An output byte is the difference of two prefix sums
//!    `2r + 1` pixels apart (lane `k` of the warp takes bytes `k, k + 32,
//!    …`: consecutive shared words, no bank conflict), one multiply-high
//!    (and a shift from 4096 pixels on) for a full window
//!    ([`recip_magic_shift`](super::index::recip_magic_shift)), a division
//!    by the count for the clipped ones (the first and last `r` rows and
//!    columns), stored straight to the image (a warp's 32 bytes are
//!    contiguous; L2 merges the sectors before they reach DRAM).
//!
//! One barrier per batch, after its column sums are stored: a warp's
//! prefix row is its own (a warp barrier orders the lanes' stores before
//! the outputs read them), and the next batch's vertical phase writes the
//! other column-sum buffer, so it never waits for the slower warps'
//! horizontal and output phases.
//! Neighbouring strips walk in opposite directions
//! ([`slide_strip_upward`]), so the halo rows two strips share are read by
//! both at about the same time (the second read hits L2), and the blocks
//! of one strip are consecutive ([`win_block`]), so neighbouring bands
//! read their shared halo bytes together too.

use crate::arch::simd::{u32x2, u32x4};

use super::index::{
    div_round_half_up, div_round_magic_shift_dev, full_count, slide_strip_reads, slide_strip_row, slide_strip_upward, slide_strip_walk,
    win_block, win_halo, win_lead, win_prefix, win_prologue, win_seg_start, win_seg_x, win_shared_parts,
    win_vsum, win_vsum_entry, win_vsum_row, win_word_mask, window_len, WindowParams, WIN_BATCH, WIN_BLOCKS_BOUND, WIN_P_PAD, WIN_RUN, WIN_THREADS,
    WIN_VERTICAL,
};
use super::slide::{even, odd};
use crate::arch::{block_idx_x, dp2a_lo, dynamic_shared, shfl_sync_idx, sync_threads, sync_warp, thread_idx_x, Global};
use crate::kernel;

/// Bytes `n / 8 .. n / 8 + 4` of the 8 bytes `hi:lo` (`n` = 0, 8, 16, 24):
/// one funnel shift (`SHF.R`).
#[inline(always)]
fn funnel(lo: u32, hi: u32, n: u32) -> u32 {
    ((((hi as u64) << 32) | lo as u64) >> n) as u32
}

/// The window blur for `C` channels (see the module).
#[inline(always)]
unsafe fn blur_window_body<const C: u32>(input: Global<u8>, output: Global<u8>, p: WindowParams) {
    // SAFETY: the launcher checked `win_supports`, the image shape and the
    // buffer lengths for `p`; every access below is inside the image or the
    // block's shared memory (the emulator checks both).
    unsafe {
        const { assert!(C >= 1 && C <= 4 && WIN_RUN % C == 0) };
        let r = p.radius;
        let h = win_halo(C, r);
        let lead = win_lead(C, r);
        let rb = p.row_bytes;
        let tid = thread_idx_x();
        let (warp, lane) = (tid / 32, tid % 32);
        let (band, strip) = win_block(block_idx_x(), p.bands);
        // The band's first output byte and its output bytes per row; the
        // column byte of segment byte 0 (negative in the first band).
        let x0 = band * p.band;
        let band_bytes = if rb - x0 < p.band { rb - x0 } else { p.band };
        let seg_x = win_seg_x(x0, C, r);
        let y0 = strip * p.strip_rows;
        let y1 = if p.height - y0 < p.strip_rows { p.height } else { y0 + p.strip_rows };
        let n = y1 - y0;
        let upward = slide_strip_upward(strip);
        let walk = slide_strip_walk(y0, y1, upward);
        let row_at = |j: i32| slide_strip_row(walk, j as u32);

        let p_off = win_shared_parts();
        let sh = dynamic_shared::<u8>();
        let vsum = sh;
        let pre = sh.offset(p_off).cast::<u32>();
        let (vl, pl) = (win_vsum(), win_prefix());

        // The prefix rows' leading pads (read from the first output batch,
        // after its barrier).
        if tid < WIN_BATCH * WIN_P_PAD {
            pre.store(pl.offset((tid / WIN_P_PAD) as usize, (tid % WIN_P_PAD) as usize), 0);
        }

        // Steps: `prologue` rows without output (the first window fills),
        // then the strip's rows, in whole batches.
        let prologue = win_prologue(r) as i32;
        let batches = (prologue + n.div_ceil(WIN_BATCH) as i32 * WIN_BATCH as i32) / WIN_BATCH as i32;
        let step0 = |b: i32| -prologue + b * WIN_BATCH as i32;

        // The vertical thread's column word (columns `col .. col + 4`) and
        // its in-row byte masks.
        let vertical = tid < WIN_VERTICAL;
        let col = seg_x + 4 * tid as i64;
        let mask = if vertical { win_word_mask(seg_x, tid, rb) } else { 0 };
        let (mask_e, mask_o) = (even(mask), odd(mask));
        // Rows of at least 8 bytes: a word of rows 1 .. height - 1 and the
        // aligned words around it lie inside the image. Segments start on a
        // column word, so with 4-byte rows every word is aligned.
        let (small, aligned) = (rb < 8, rb % 4 == 0);
        // The word at flat byte `f` of a row of any length: the two aligned
        // words under it and a funnel shift.
        let realigned = |f: i64| -> u32 {
            let a = (f & 3) as u32;
            let at = (f - a as i64) as usize;
            funnel(input.read_vec::<u32>(at), input.read_vec::<u32>(at + 4), 8 * a)
        };
        // The word of `row` (bytes outside the row unmasked).
        let word = |row: u32| -> u32 {
            let f = row as i64 * rb as i64 + col;
            if small || row == 0 || row + 1 == p.height {
                let mut w = 0u32;
                for j in 0..4 {
                    if (mask >> (8 * j)) & 0xff != 0 {
                        w |= (input.read((f + j as i64) as usize) as u32) << (8 * j);
                    }
                }
                w
            } else if aligned {
                input.read_vec::<u32>(f as usize)
            } else {
                realigned(f)
            }
        };
        // The word of relative row `j` of the walk, 0 outside the image or
        // the strip's reach.
        let load = |j: i32| -> u32 {
            let row = row_at(j);
            if mask != 0 && slide_strip_reads(row, j as u32, n, r, p.height) { word(row) } else { 0 }
        };
        // The words of the batch's 8 rows from relative row `j0`: none when
        // all are beyond the strip's reach (or the thread's word outside
        // the row); by one address stepping a row at a time when all are
        // inside the image but off its first and last rows (uniform in the
        // block); else row by row.
        // (A macro: as a closure returning the array, it became a device
        // function with a stack frame.)
        macro_rules! load8 {
            ($j0:expr) => {{
                let j0: i32 = $j0;
                let mut w = [0u32; WIN_BATCH as usize];
                let last = j0 + WIN_BATCH as i32 - 1;
                if mask != 0 && last >= -(r as i32) && j0 < (n + r) as i32 {
                    let (ra, rz) = (row_at(j0), row_at(last));
                    let (lo, hi) = if ra < rz { (ra, rz) } else { (rz, ra) };
                    let inside =
                        slide_strip_reads(ra, j0 as u32, n, r, p.height) && slide_strip_reads(rz, last as u32, n, r, p.height);
                    if !small && inside && lo >= 1 && hi + 1 < p.height {
                        let f0 = ra as i64 * rb as i64 + col;
                        let s = if upward { -(rb as i64) } else { rb as i64 };
                        if aligned {
                            for (g, x) in w.iter_mut().enumerate() {
                                *x = input.read_vec::<u32>((f0 + g as i64 * s) as usize);
                            }
                        } else {
                            for (g, x) in w.iter_mut().enumerate() {
                                *x = realigned(f0 + g as i64 * s);
                            }
                        }
                    } else {
                        for (g, x) in w.iter_mut().enumerate() {
                            *x = load(j0 + g as i32);
                        }
                    }
                }
                w
            }};
        }
        // Column sums of the window (bytes 4t, 4t + 2 and 4t + 1, 4t + 3).
        let (mut ve, mut vo) = (0u32, 0u32);
        // The words the batch's vertical steps add and drop (step i adds
        // row i + r and drops row i - r - 1), loaded one batch ahead: their
        // loads are in flight through the previous batch's barrier,
        // horizontal and output phases.
        macro_rules! words {
            ($i0:expr) => {{
                let i0: i32 = $i0;
                (load8!(i0 + r as i32), load8!(i0 - r as i32 - 1))
            }};
        }
        let mut next = if vertical { words!(step0(0)) } else { ([0u32; WIN_BATCH as usize], [0u32; WIN_BATCH as usize]) };

        for b in 0..batches {
            let i0 = step0(b);

            // Vertical.
            if vertical {
                let (w_in, w_out) = next;
                // The batch's first row of sums (u32x2 units); the others
                // a constant row apart (one address, immediate offsets).
                let at = (vl.offset(win_vsum_row(b as u32, 0), 4 * tid as usize) * 2) / 8;
                let row = (vl.offset(1, 0) * 2) / 8;
                // A word wholly inside the row needs no mask beyond the
                // byte split (`odd` already clears the other bytes).
                macro_rules! slide8 {
                    ($masked:expr) => {
                        for g in 0..WIN_BATCH as usize {
                            let (a, d) = (w_in[g], w_out[g]);
                            if $masked {
                                ve = ve.wrapping_add(a & mask_e).wrapping_sub(d & mask_e);
                                vo = vo.wrapping_add(odd(a) & mask_o).wrapping_sub(odd(d) & mask_o);
                            } else {
                                ve = ve.wrapping_add(even(a)).wrapping_sub(even(d));
                                vo = vo.wrapping_add(odd(a)).wrapping_sub(odd(d));
                            }
                            if i0 >= 0 {
                                vsum.cast::<u32x2>().store(at + g * row, u32x2::from_array([ve, vo]));
                            }
                        }
                    };
                }
                if mask == u32::MAX {
                    slide8!(false)
                } else {
                    slide8!(true)
                }
                if b + 1 < batches {
                    next = words!(step0(b + 1));
                }
            }
            if i0 < 0 {
                continue; // the prologue: no output rows (uniform in the block)
            }
            // The batch's column sums are stored; the buffer the next batch
            // writes was last read before this barrier.
            sync_threads();

            // Horizontal: warp g sums row i0 + g of the batch.
            let g = warp as usize;
            let i = i0 + warp as i32;
            let active = i < n as i32;
            if active {
                // Lane's 24 column sums (segment bytes 24 lane ..): word m
                // holds entries 2m and 2m + 1 (win_vsum_entry gives their
                // bytes: the mapping is its own inverse).
                let at = (vl.offset(win_vsum_row(b as u32, warp), (WIN_RUN * lane) as usize) * 2) / 16;
                let vv = vsum.cast::<u32x4>();
                let w = [vv.load(at).to_array(), vv.load(at + 1).to_array(), vv.load(at + 2).to_array()];
                let word = |m: usize| w[m / 4][m % 4];
                // The dp2a selector of entry e's half of its word.
                let half = |e: u32| if e % 2 == 0 { 0x0001 } else { 0x0100 };
                // The lane's total per channel: one dp2a per word whose two
                // halves are of one channel, else one per half.
                let mut total = [0u32; 4];
                for m in 0..WIN_RUN / 2 {
                    let (ea, eb) = (2 * m, 2 * m + 1);
                    let (ca, cb) = ((win_vsum_entry(ea) % C) as usize, (win_vsum_entry(eb) % C) as usize);
                    let w = word(m as usize);
                    if ca == cb {
                        total[ca] = dp2a_lo(w, half(ea) | half(eb), total[ca]);
                    } else {
                        total[ca] = dp2a_lo(w, half(ea), total[ca]);
                        total[cb] = dp2a_lo(w, half(eb), total[cb]);
                    }
                }
                // Exclusive scan of the lanes' totals per channel.
                // (Straight-line code: a loop over the channels or the
                // distances kept its array in local memory.)
                let scan = |t: u32| {
                    let mut s = t;
                    macro_rules! up {
                        ($($d:literal)*) => {$(
                            let u = shfl_sync_idx(s, lane.wrapping_sub($d) & 31);
                            if lane >= $d {
                                s += u;
                            }
                        )*};
                    }
                    up!(1 2 4 8 16);
                    s - t
                };
                // The running prefix sum per channel from the lanes before
                // this one; each entry adds its column sum (one dp2a).
                let mut run = [
                    scan(total[0]),
                    if C > 1 { scan(total[1]) } else { 0 },
                    if C > 2 { scan(total[2]) } else { 0 },
                    if C > 3 { scan(total[3]) } else { 0 },
                ];
                // Entries 8v .. 8v + 8 (bytes 8v ..) are the u32x4 at + v,
                // loaded again where they are used: the column sums are not
                // held in registers through the scan.
                let pb = pl.offset(g, (WIN_P_PAD + WIN_RUN * lane) as usize);
                for v in 0..3usize {
                    let w = vv.load(at + v).to_array();
                    for q in 2 * v..2 * v + 2 {
                        let out: [u32; 4] = core::array::from_fn(|j| {
                            let k = (4 * q + j) as u32;
                            let (e, c) = (win_vsum_entry(k), (k % C) as usize);
                            run[c] = dp2a_lo(w[(e as usize / 2) % 4], half(e), run[c]);
                            run[c]
                        });
                        pre.cast::<u32x4>().store((pb + 4 * q) / 4, u32x4::from_array(out));
                    }
                }
                // The warp's prefix row is stored (only this warp reads it).
                sync_warp();
            }

            // Outputs: lane takes the band's bytes lane, lane + 32, …; the
            // byte at band offset o (segment byte o + lead) is the
            // difference of the prefix sums h bytes after and h + C bytes
            // before it, stored straight to the image (a warp's 32 bytes
            // are contiguous: one or two sectors).
            if active {
                let y = row_at(i);
                let full_rows = y >= r && y + r < p.height;
                let cy = window_len(y, r, p.height);
                let prow = pl.offset(g, WIN_P_PAD as usize) + lead as usize;
                let orow = win_seg_start(y, rb, x0, 0) as usize;
                // The window sum of band offset `o`.
                let (at_hi, at_lo) = (prow + h as usize, prow - (h + C) as usize);
                let window = |o: usize| pre.load(at_hi + o).wrapping_sub(pre.load(at_lo + o));
                // Full windows for band offsets lo .. hi (none in the
                // first and last r rows); clipped ones outside.
                let (lo, hi) = if full_rows {
                    let lo = h.saturating_sub(x0);
                    let hi = if rb - x0 >= h + band_bytes { band_bytes } else { (rb - x0).saturating_sub(h) };
                    if lo < hi { (lo, hi) } else { (0, 0) }
                } else {
                    (0, 0)
                };
                // Four bytes per round (32 apart), counted in u32, addressed
                // by one shared and one global index that step 128 (the
                // four bytes are immediate offsets). Windows of fewer than
                // 4096 pixels divide without a shift (`recip_magic_shift`):
                // that loop is compiled apart, with none.
                let full = full_count(r);
                let quotient = |sum: u32, s: u32| div_round_magic_shift_dev(sum, full, p.magic, s) as u8;
                let start = lo + lane;
                let rounds = if hi > start { (hi - start + 31) / 128 } else { 0 };
                macro_rules! full_rounds {
                    ($s:expr) => {{
                        let (mut at, mut out) = (start as usize, orow + start as usize);
                        for _ in 0..rounds {
                            for u in 0..4usize {
                                output.write(out + 32 * u, quotient(window(at + 32 * u), $s));
                            }
                            at += 128;
                            out += 128;
                        }
                    }};
                }
                if p.shift == 0 {
                    full_rounds!(0)
                } else {
                    full_rounds!(p.shift)
                }
                let mut o = start + 128 * rounds;
                while o < hi {
                    output.write(orow + o as usize, quotient(window(o as usize), p.shift));
                    o += 32;
                }
                let clipped = |o: u32| {
                    let q = div_round_half_up(window(o as usize), window_len((x0 + o) / C, r, p.width) * cy);
                    output.write(orow + o as usize, q as u8);
                };
                let mut o = lane;
                while o < lo {
                    clipped(o);
                    o += 32;
                }
                let mut o = hi + lane;
                while o < band_bytes {
                    clipped(o);
                    o += 32;
                }
            }
        }
    }
}

/// Launch bounds of the window-blur kernels (read by the PTX linker).
pub const WINDOW_LAUNCH_BOUNDS: &[crate::launch::LaunchBounds] = &[
    bounds("blur_window_c1"),
    bounds("blur_window_c2"),
    bounds("blur_window_c3"),
    bounds("blur_window_c4"),
];

const fn bounds(kernel: &'static str) -> crate::launch::LaunchBounds {
    crate::launch::LaunchBounds { kernel, max_threads: WIN_THREADS, min_blocks_per_sm: WIN_BLOCKS_BOUND }
}

kernel! {
    /// Sliding-window blur, gray, any radius up to
    /// [`WIN_MAX_RADIUS`](super::index::WIN_MAX_RADIUS) and any width:
    /// improves on `blur_hslide_*` (radius 1–3, rows of whole 16-byte
    /// chunks, `2r + 1` adds per output byte) with vertical running sums
    /// in registers and horizontal prefix sums, so every output byte costs
    /// two row reads, two prefix loads and one division whatever the
    /// radius (see the module). The halo (`2r` bytes of a 768-byte segment,
    /// `2r` rows of a strip) is the only cost that grows.
    pub fn blur_window_c1(input: Global<u8>, output: Global<u8>, p: WindowParams) {
        blur_window_body::<1>(input, output, p)
    }
}

kernel! {
    /// [`blur_window_c1`] for 2 channels (gray + alpha).
    pub fn blur_window_c2(input: Global<u8>, output: Global<u8>, p: WindowParams) {
        blur_window_body::<2>(input, output, p)
    }
}

kernel! {
    /// [`blur_window_c1`] for interleaved RGB.
    pub fn blur_window_c3(input: Global<u8>, output: Global<u8>, p: WindowParams) {
        blur_window_body::<3>(input, output, p)
    }
}

kernel! {
    /// [`blur_window_c1`] for interleaved RGBA.
    pub fn blur_window_c4(input: Global<u8>, output: Global<u8>, p: WindowParams) {
        blur_window_body::<4>(input, output, p)
    }
}
