//! Box blur of any radius, width and channel count at a cost per pixel
//! that does not grow with the radius: the rung after `blur_hslide_*`
//! (which sums `2r + 1` bytes per output byte horizontally and needs rows
//! of whole 16-byte chunks).
//!
//! A block of 8 warps owns a band of output bytes (a 768-byte row
//! segment less a halo of `channels · r` bytes on each side,
//! [`win_band`](super::index::win_band)) and walks a strip of rows
//! through it, 8 rows per batch:
//!
//! 1. **Ring.** Each row's segment is copied by 16-byte `cp.async` from
//!    the 16-byte boundary at or before it, two batches ahead, into a
//!    shared ring of `2r + 25` rows; any width and alignment (a row's
//!    distance from its chunk boundary is recorded with it).
//! 2. **Vertical.** 192 threads own a 4-byte column word of the segment
//!    each, read it realigned (two words and a funnel shift) from the
//!    entering and the leaving row, and slide their window's column sums
//!    as packed u16 pairs (the even/odd byte split, one 3-input add per
//!    pair): two row reads per row whatever the radius. Bytes outside the
//!    row are masked, rows outside the image or the strip's reach skipped.
//! 3. **Horizontal.** One warp per row of the batch: each lane turns 24
//!    column sums into prefix sums per channel, the lanes' totals are
//!    scanned with shuffles, and an output byte is the difference of two
//!    prefix sums `2r + 1` pixels apart: two shared loads whatever the
//!    radius. Full windows divide by one multiply-high and a shift
//!    ([`recip_magic_shift`](super::index::recip_magic_shift)); clipped
//!    ones (the first and last `r` rows and columns) by their count.
//! 4. **Store.** The row's bytes are staged at their 16-byte alignment in
//!    the image and written by 16-byte stores; the two partial chunks at
//!    the band's ends byte by byte.
//!
//! Neighbouring strips walk in opposite directions
//! ([`slide_strip_upward`]), so the halo rows two strips share are read by
//! both at about the same time (the second read hits L2), and the blocks
//! of one strip are consecutive ([`win_block`]), so neighbouring bands
//! read their shared halo bytes together too.

use crate::arch::simd::{u32x2, u32x4};

use super::index::{
    div_round_half_up, div_round_magic_shift, full_count, slide_strip_reads, slide_strip_row, slide_strip_upward, slide_strip_walk,
    win_block, win_chunk_bytes, win_chunk_split, win_halo, win_meta_offset, win_out, win_prefix, win_prologue, win_ring,
    win_seg_start, win_shared_parts, win_slot, win_slots, win_vsum, win_word_mask, window_len, WindowParams, WIN_AHEAD, WIN_BATCH,
    WIN_BLOCKS_BOUND, WIN_P_PAD, WIN_RING_ROW, WIN_ROW_LOADED, WIN_RUN, WIN_SEG, WIN_THREADS,
};
use super::slide::{even, odd, prmt};
use crate::arch::{
    block_idx_x, cp_async_16, cp_async_commit, cp_async_wait_group, dynamic_shared, shfl_sync_idx, sync_threads, thread_idx_x,
    Global,
};
use crate::kernel;

/// Bytes `n / 8 .. n / 8 + 4` of the 8 bytes `hi:lo` (`n` = 0, 8, 16, 24):
/// one funnel shift (`SHF.R`).
#[inline(always)]
fn funnel(lo: u32, hi: u32, n: u32) -> u32 {
    ((((hi as u64) << 32) | lo as u64) >> n) as u32
}

/// `a + 1` in a ring of `slots`.
#[inline(always)]
fn next_slot(a: u32, slots: u32) -> u32 {
    if a + 1 == slots { 0 } else { a + 1 }
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
        let rb = p.row_bytes;
        let tid = thread_idx_x();
        let (warp, lane) = (tid / 32, tid % 32);
        let (band, strip) = win_block(block_idx_x(), p.bands);
        // The band's first output byte, its output bytes per row, and the
        // column byte of segment byte 0 (negative in the first band).
        let x0 = band * p.band;
        let band_bytes = if rb - x0 < p.band { rb - x0 } else { p.band };
        let seg_x = x0 as i64 - h as i64;
        let y0 = strip * p.strip_rows;
        let y1 = if p.height - y0 < p.strip_rows { p.height } else { y0 + p.strip_rows };
        let n = y1 - y0;
        let walk = slide_strip_walk(y0, y1, slide_strip_upward(strip));
        let row_at = |j: i32| slide_strip_row(walk, j as u32);
        let total = rb as i64 * p.height as i64;

        let slots = win_slots(r);
        let ring = win_ring(r);
        let (v_off, p_off) = win_shared_parts(r);
        let sh = dynamic_shared::<u8>();
        let ring32 = sh.cast::<u32>();
        let vsum = sh.offset(v_off);
        let pre = sh.offset(p_off).cast::<u32>();
        let meta = sh.offset(win_meta_offset(r)).cast::<u32>();
        let (vl, pl, ol) = (win_vsum(), win_prefix(), win_out());

        // Zero the ring (its unloaded bytes are read and masked), the row
        // records (no row loaded) and the prefix rows' leading pads.
        let mut z = tid as usize;
        while z < ring.size() / 16 {
            sh.cast::<u32x4>().store(z, u32x4::splat(0));
            z += WIN_THREADS as usize;
        }
        if tid < slots {
            meta.store(tid as usize, 0);
        }
        if tid < WIN_BATCH * WIN_P_PAD {
            pre.store(pl.offset((tid / WIN_P_PAD) as usize, (tid % WIN_P_PAD) as usize), 0);
        }
        sync_threads();

        // Steps: `prologue` rows without output (the first window fills),
        // then the strip's rows, in whole batches.
        let prologue = win_prologue(r) as i32;
        let batches = (prologue + n.div_ceil(WIN_BATCH) as i32 * WIN_BATCH as i32) / WIN_BATCH as i32;
        let step0 = |b: i32| -prologue + b * WIN_BATCH as i32;
        // The needed bytes of a row: its segment clipped to the row.
        let lo_x = if seg_x < 0 { 0 } else { seg_x };
        let hi_x = if seg_x + (WIN_SEG as i64) < rb as i64 { seg_x + WIN_SEG as i64 } else { rb as i64 };

        // Copies the rows entering in batch `b` (relative rows `step + r`)
        // into their ring slots and records them; one commit group.
        let chunks = WIN_RING_ROW / 16;
        let issue = |b: i32| {
            if b < batches {
                let j0 = step0(b) + r as i32;
                let slot0 = win_slot(j0, r);
                let mut c = tid;
                while c < WIN_BATCH * chunks {
                    let (g, k) = (c / chunks, c % chunks);
                    let j = j0 + g as i32;
                    let row = row_at(j);
                    let slot = if slot0 + g >= slots { slot0 + g - slots } else { slot0 + g };
                    let loaded = slide_strip_reads(row, j as u32, n, r, p.height);
                    let (cs, shift) = win_chunk_split(win_seg_start(row, rb, x0, h));
                    if loaded {
                        let base = row as i64 * rb as i64;
                        let bytes = win_chunk_bytes(cs, k, base + lo_x, base + hi_x, total);
                        let (to, from) = (ring.offset(slot as usize, 16 * k as usize), (cs + 16 * k as i64) as usize);
                        if bytes == 16 {
                            cp_async_16(sh, to, input, from);
                        } else if bytes > 0 {
                            // The image's last chunk, cut short by its end
                            // (a 16-byte copy may not reach past it): bytes.
                            for q in 0..16 {
                                sh.store(to + q, if q < bytes as usize { input.read(from + q) } else { 0 });
                            }
                        }
                    }
                    if k == 0 {
                        meta.store(slot as usize, shift | if loaded { WIN_ROW_LOADED } else { 0 });
                    }
                    c += WIN_THREADS;
                }
            }
            cp_async_commit();
        };

        // The vertical thread's column word and its in-row byte masks.
        let vertical = tid < WIN_SEG / 4;
        let mask = win_word_mask(seg_x, tid, rb);
        let (mask_e, mask_o) = (even(mask), odd(mask));
        // Word `tid` of the segment of the row in `slot`, realigned.
        let word = |slot: u32, shift: u32| -> u32 {
            let at = (ring.offset(slot as usize, 0) + (shift & !3) as usize) / 4 + tid as usize;
            funnel(ring32.load(at), ring32.load(at + 1), 8 * (shift & 3))
        };
        // Column sums of the window (bytes 4t, 4t + 2 and 4t + 1, 4t + 3).
        let (mut ve, mut vo) = (0u32, 0u32);

        for k in 0..WIN_AHEAD as i32 {
            issue(k);
        }
        for b in 0..batches {
            cp_async_wait_group(WIN_AHEAD - 1);
            sync_threads();
            issue(b + WIN_AHEAD as i32);
            let i0 = step0(b);

            // Vertical: step i adds row i + r and drops row i - r - 1.
            if vertical {
                let mut s_in = win_slot(i0 + r as i32, r);
                let mut s_out = win_slot(i0 - r as i32 - 1, r);
                for g in 0..WIN_BATCH as usize {
                    let (m_in, m_out) = (meta.load(s_in as usize), meta.load(s_out as usize));
                    if m_in & WIN_ROW_LOADED != 0 {
                        let w = word(s_in, m_in & 15);
                        ve = ve.wrapping_add(w & mask_e);
                        vo = vo.wrapping_add(odd(w) & mask_o);
                    }
                    if m_out & WIN_ROW_LOADED != 0 {
                        let w = word(s_out, m_out & 15);
                        ve = ve.wrapping_sub(w & mask_e);
                        vo = vo.wrapping_sub(odd(w) & mask_o);
                    }
                    if i0 >= 0 {
                        // Column sums of bytes 4t .. 4t + 4 as four u16.
                        let pair = u32x2::from_array([prmt(ve, vo, 0x5410), prmt(ve, vo, 0x7632)]);
                        vsum.cast::<u32x2>().store((vl.offset(g, 4 * tid as usize) * 2) / 8, pair);
                    }
                    s_in = next_slot(s_in, slots);
                    s_out = next_slot(s_out, slots);
                }
            }
            if i0 < 0 {
                continue; // the prologue: no output rows (uniform in the block)
            }
            sync_threads();

            // Horizontal: warp g sums row i0 + g of the batch.
            let g = warp as usize;
            let i = i0 + warp as i32;
            let active = i < n as i32;
            if active {
                // Lane's 24 column sums (segment bytes 24 lane ..).
                let at = (vl.offset(g, (WIN_RUN * lane) as usize) * 2) / 16;
                let vv = vsum.cast::<u32x4>();
                let w = [vv.load(at).to_array(), vv.load(at + 1).to_array(), vv.load(at + 2).to_array()];
                let mut pr = [0u32; WIN_RUN as usize];
                for k in 0..WIN_RUN as usize {
                    let word = w[k / 8][(k % 8) / 2];
                    let v = if k % 2 == 0 { word & 0xffff } else { word >> 16 };
                    pr[k] = if k >= C as usize { pr[k - C as usize] + v } else { v };
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
                let lane_total = |c: u32| pr[(WIN_RUN - C + c) as usize];
                let carry = [
                    scan(lane_total(0)),
                    if C > 1 { scan(lane_total(1)) } else { 0 },
                    if C > 2 { scan(lane_total(2)) } else { 0 },
                    if C > 3 { scan(lane_total(3)) } else { 0 },
                ];
                let pb = pl.offset(g, (WIN_P_PAD + WIN_RUN * lane) as usize);
                for q in 0..(WIN_RUN / 4) as usize {
                    let v: [u32; 4] = core::array::from_fn(|m| pr[4 * q + m] + carry[(4 * q + m) % C as usize]);
                    pre.cast::<u32x4>().store((pb + 4 * q) / 4, u32x4::from_array(v));
                }
            }
            sync_threads();

            // Outputs: lane takes the staging row's 4-byte words 32 k + lane
            // (staging byte b holds segment byte b − osh + h); a word whose
            // four windows are full is four prefix differences and four
            // multiply-highs with no per-byte test, and one 4-byte store.
            if active {
                let y = row_at(i);
                let full_rows = y >= r && y + r < p.height;
                let cy = window_len(y, r, p.height);
                // The band's first output byte: its segment without the halo.
                let (_, osh) = win_chunk_split(win_seg_start(y, rb, x0, 0));
                let prow = pl.offset(g, WIN_P_PAD as usize);
                let full = full_count(r);
                let end = osh + band_bytes;
                let mut wd = osh / 4 + lane;
                while wd < end.div_ceil(4) {
                    let b0 = 4 * wd;
                    let mut word = 0u32;
                    // Segment byte and column of the word's first byte
                    // (only read when the word is inside the band).
                    let (e0, xw) = (b0.wrapping_sub(osh) + h, (x0 + b0).wrapping_sub(osh));
                    if full_rows && b0 >= osh && b0 + 4 <= end && xw >= h && xw + 3 + h < rb {
                        let (hi, lo) = (prow + (e0 + h) as usize, prow + (e0 - h) as usize - C as usize);
                        for j in 0..4 {
                            let sum = pre.load(hi + j).wrapping_sub(pre.load(lo + j));
                            word |= div_round_magic_shift(sum, full, p.magic, p.shift) << (8 * j);
                        }
                    } else {
                        for j in 0..4u32 {
                            let b = b0 + j;
                            if b >= osh && b < end {
                                let e = b - osh + h;
                                let sum = pre.load(prow + (e + h) as usize).wrapping_sub(pre.load(prow + (e - h) as usize - C as usize));
                                let x = x0 + e - h;
                                let q = if full_rows && x >= h && x + h < rb {
                                    div_round_magic_shift(sum, full, p.magic, p.shift)
                                } else {
                                    div_round_half_up(sum, window_len(x / C, r, p.width) * cy)
                                };
                                word |= q << (8 * j);
                            }
                        }
                    }
                    vsum.cast::<u32>().store(ol.offset(g, b0 as usize) / 4, word);
                    wd += 32;
                }
            }
            sync_threads();

            // Store: the row's 16-byte chunks (image-aligned) from the staging row.
            if active {
                let y = row_at(i);
                let (cs, osh) = win_chunk_split(win_seg_start(y, rb, x0, 0));
                let end = osh + band_bytes;
                let mut c = lane;
                while c < end.div_ceil(16) {
                    let (a, z) = (16 * c, 16 * c + 16);
                    let (lo, hi) = (if a < osh { osh } else { a }, if z > end { end } else { z });
                    if lo == a && hi == z {
                        let v = vsum.load_vec::<u32x4>(ol.offset(g, a as usize));
                        output.write_vec::<u32x4>((cs + a as i64) as usize, v);
                    } else {
                        for bb in lo..hi {
                            output.write((cs + bb as i64) as usize, vsum.load(ol.offset(g, bb as usize)));
                        }
                    }
                    c += 32;
                }
            }
        }
        cp_async_wait_group(0);
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
    /// of a shared ring of rows and horizontal prefix sums, so every output
    /// byte costs two row reads, two prefix loads and one division
    /// whatever the radius (see the module). Expected: near copy bandwidth
    /// at every radius, the halo (`2r` bytes of a 768-byte segment, `2r`
    /// rows of a strip) the only cost that grows.
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
