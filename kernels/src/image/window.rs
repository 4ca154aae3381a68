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
//!    registers, as packed u16 pairs (bytes 0, 1 and 2, 3): per row one
//!    load of the entering and one of the leaving row's word straight from
//!    global memory (the leaving row was read `2r + 1` rows earlier and
//!    comes from L2), two byte permutes and one 3-input add per pair,
//!    whatever the radius (words reaching outside the row are masked
//!    first). A row whose length is not a multiple of 4 is read as two
//!    aligned words and a funnel shift; the first and last image rows byte
//!    by byte (a word there may reach outside the image). The batch's
//!    column sums go to shared memory in byte order, into one of two
//!    buffers (batches alternate), between zero pads.
//! 2. **Horizontal.** One warp per row of the batch; lane `k` owns a run of
//!    24 consecutive output bytes
//!    ([`win_run_start`](super::index::win_run_start)) and slides the
//!    window sums along it: each output byte adds the column sum entering
//!    its channel's window and drops the one leaving it, read as 16-byte
//!    words (the entering ones aligned by the run's start, the leaving
//!    ones at a compile-time offset
//!    ([`win_run_reads`](super::index::win_run_reads)) in their words: one
//!    copy of the phase per offset the channel count allows). A run's
//!    first sums come without summing its window: lane `k` starts from the
//!    window sums before run 0 (the warp sums those `channels · (2r + 1)`
//!    entries together) plus the scanned net change (entering less
//!    leaving) of the runs before it. A full window divides by one
//!    multiply-high and a shift
//!    ([`recip_magic_shift`](super::index::recip_magic_shift)); the clipped ones
//!    (the first and last `r` rows and columns) by the count.
//! 3. **Outputs.** Each lane packs its 24 bytes into the image's aligned
//!    words (a funnel shift with the last word of the lane before it) in a
//!    staging row, and the warp copies the row out, 32 consecutive words at
//!    a time (bytes one by one only at the band's two ends).
//!
//! One barrier per batch, after its column sums are stored: a warp's
//! staging row is its own (a warp barrier orders the lanes' stores before
//! the copy), and the next batch's vertical phase writes the other
//! column-sum buffer, so it never waits for the slower warps' horizontal
//! phase.
//! Neighbouring strips walk in opposite directions
//! ([`slide_strip_upward`]), so the halo rows two strips share are read by
//! both at about the same time (the second read hits L2), and the blocks
//! of one strip are consecutive ([`win_block`]), so neighbouring bands
//! read their shared halo bytes together too.

use crate::arch::simd::{u32x2, u32x4};

use super::index::{
    div_round_half_up, full_count, slide_strip_reads, slide_strip_row, slide_strip_upward, slide_strip_walk, win_block,
    win_halo, win_phi, win_prologue, win_run_reads, win_run_start, win_seg_start, win_seg_x, win_shared_parts, win_span, win_stage,
    win_stage_shift, win_vsum, win_vsum_row, win_word_mask, window_len, WindowParams, WIN_BATCH, WIN_BLOCKS_BOUND, WIN_RUN, WIN_STAGE_PAD,
    WIN_THREADS, WIN_VERTICAL, WIN_V_PAD, WIN_V_ROW,
};
use super::slide::prmt;
use crate::arch::{block_idx_x, dp2a_lo, dynamic_shared, mul_hi_u32, opaque_u32, shfl_sync_bfly, shfl_sync_idx, sync_threads, sync_warp, thread_idx_x, Global, Shared};
use crate::kernel;

/// Bytes `n / 8 .. n / 8 + 4` of the 8 bytes `hi:lo` (`n` = 0 to 32):
/// one funnel shift (`SHF.R`).
#[inline(always)]
fn funnel(lo: u32, hi: u32, n: u32) -> u32 {
    ((((hi as u64) << 32) | lo as u64) >> n) as u32
}

/// Entry `e` of 16-bit entries packed two to a word (entry `2m` in the
/// low half of word `m`).
#[inline(always)]
fn entry(w: &[u32], e: usize) -> u32 {
    if e % 2 == 0 { w[e / 2] & 0xffff } else { w[e / 2] >> 16 }
}

/// Adds the entries of `w` (packed as for [`entry`]) that are entries
/// `t = first + e` of a run (`0 ≤ t < WIN_RUN`) to `sums`, entry `t` to
/// channel `t % C`: one `dp2a` per word whose halves both count for one
/// channel, else one per half.
#[inline(always)]
fn add_run<const C: u32>(w: &[u32], first: i32, sums: &mut [u32; 4]) {
    let t = |e: usize| first + e as i32;
    let inside = |e: usize| t(e) >= 0 && t(e) < WIN_RUN as i32;
    let channel = |e: usize| (t(e) as u32 % C) as usize;
    for m in 0..w.len() {
        let (ea, eb) = (2 * m, 2 * m + 1);
        if inside(ea) && inside(eb) && channel(ea) == channel(eb) {
            sums[channel(ea)] = dp2a_lo(w[m], 0x0101, sums[channel(ea)]);
        } else {
            if inside(ea) {
                sums[channel(ea)] = dp2a_lo(w[m], 0x0001, sums[channel(ea)]);
            }
            if inside(eb) {
                sums[channel(eb)] = dp2a_lo(w[m], 0x0100, sums[channel(eb)]);
            }
        }
    }
}

/// Four bytes (the low byte of each of `q`) packed little-endian: three
/// byte permutes.
#[inline(always)]
fn pack4(q0: u32, q1: u32, q2: u32, q3: u32) -> u32 {
    prmt(prmt(q0, q1, 0x0040), prmt(q2, q3, 0x0040), 0x5410)
}

/// What the horizontal phase of one output row needs.
#[derive(Clone, Copy)]
struct RowJob {
    /// u16 index of the row's segment byte 0 in shared memory (after its
    /// leading pad).
    vrow: usize,
    /// Byte index of the row's staging row in shared memory.
    srow: usize,
    /// Flat image byte of the band's first output byte in this row.
    orow: i64,
    /// Column byte of the band's first output byte.
    x0: u32,
    /// Output bytes of the band.
    bytes: u32,
    /// Whether every window of the row is `2r + 1` rows tall.
    full_rows: bool,
    /// Rows of the row's windows.
    cy: u32,
}

/// The horizontal and output phases of one row for `C` channels, the
/// leaving column sums `LA` entries into their first 16-byte word (see the
/// module). Called by all 32 lanes of the row's warp.
#[inline(always)]
unsafe fn window_row<const C: u32, const LA: u32>(sh: Shared<u8>, output: Global<u8>, p: WindowParams, lane: u32, job: RowJob) {
    // SAFETY: every shared access is inside the row's column sums with
    // their pads or its staging row ([`win_run_reads`] bounds them, the
    // index tests check it); every image byte written is in the band's
    // part of the row.
    unsafe {
        let r = p.radius;
        let h = win_halo(C, r);
        let phi = win_phi(C, r);
        let bias = full_count(r) / 2;
        let o = win_run_start(lane, phi);
        let (enter, leave, at) = win_run_reads(o, C, r);
        debug_assert!(at == LA);
        let run_on = o < job.bytes as i32;
        let vv = sh.cast::<u32x4>();
        let word8 = |x: i32| -> [u32; 4] { vv.load(((job.vrow as i32 + x) / 8) as usize).to_array() };
        // The leaving sums are never aligned (`channels · (2r + 1)` is not
        // a multiple of 8): a run reads four words of them.
        const { assert!(LA > 0 && LA < 8 && WIN_RUN == 24) };

        // The window sums before run 0 (entries `enter0 - span ..
        // enter0`), channel by channel, every lane a share.
        let (enter0, _, _) = win_run_reads(win_run_start(0, phi), C, r);
        let span = win_span(C, r);
        let first = job.vrow as i32 + enter0 - span as i32;
        let v16 = sh.cast::<u16>();
        let mut before = [0u32; 4];
        if C == 3 {
            // Lane `l` sums the triples `l, l + 32, …` (entry `3 i + c` is of
            // channel `c`).
            let (mut a0, mut a1, mut a2) = (0u32, 0u32, 0u32);
            let mut i = 3 * lane;
            while i < span {
                // (`span` is a multiple of 3.)
                a0 += v16.load((first + i as i32) as usize) as u32;
                a1 += v16.load((first + i as i32 + 1) as usize) as u32;
                a2 += v16.load((first + i as i32 + 2) as usize) as u32;
                i += 96;
            }
            let pick = |c: u32| match c {
                0 => a0,
                1 => a1,
                _ => a2,
            };
            macro_rules! total {
                ($c:expr) => {{
                    let mut t = pick($c);
                    t += shfl_sync_bfly(t, 1);
                    t += shfl_sync_bfly(t, 2);
                    t += shfl_sync_bfly(t, 4);
                    t += shfl_sync_bfly(t, 8);
                    t += shfl_sync_bfly(t, 16);
                    t
                }};
            }
            before = [total!(0), total!(1), total!(2), 0];
        } else {
            // Entry `lane + 32 j` is of channel `lane % C`.
            let mut a = 0u32;
            let mut i = lane;
            while i < span {
                a += v16.load((first + i as i32) as usize) as u32;
                i += 32;
            }
            if C == 1 {
                a += shfl_sync_bfly(a, 1);
            }
            if C <= 2 {
                a += shfl_sync_bfly(a, 2);
            }
            a += shfl_sync_bfly(a, 4);
            a += shfl_sync_bfly(a, 8);
            a += shfl_sync_bfly(a, 16);
            before[0] = shfl_sync_idx(a, 0);
            if C > 1 {
                before[1] = shfl_sync_idx(a, 1);
            }
            if C > 2 {
                before[2] = shfl_sync_idx(a, 2);
                before[3] = shfl_sync_idx(a, 3);
            }
        }
        // The run's net change per channel: its entering sums less its
        // leaving ones.
        let mut delta = [0u32; 4];
        if run_on {
            let mut ins = [0u32; 4];
            let mut outs = [0u32; 4];
            for s in 0..3 {
                add_run::<C>(&word8(enter + 8 * s), 8 * s, &mut ins);
            }
            for s in 0..4 {
                add_run::<C>(&word8(leave + 8 * s), 8 * s - LA as i32, &mut outs);
            }
            for c in 0..C as usize {
                delta[c] = ins[c].wrapping_sub(outs[c]);
            }
        }
        // Exclusive scan of the runs' net changes: the window sums before
        // this run (plus the rounding bias of a full window).
        // (Straight-line code: a loop over the channels or the distances
        // kept its array in local memory.)
        let scan = |t: u32| {
            let mut s = t;
            macro_rules! up {
                ($($d:literal)*) => {$(
                    let u = shfl_sync_idx(s, lane.wrapping_sub($d) & 31);
                    if lane >= $d {
                        s = s.wrapping_add(u);
                    }
                )*};
            }
            up!(1 2 4 8 16);
            s.wrapping_sub(t)
        };
        let mut sums: [u32; 4] = [
            before[0].wrapping_add(scan(delta[0])).wrapping_add(bias),
            if C > 1 { before[1].wrapping_add(scan(delta[1])).wrapping_add(bias) } else { 0 },
            if C > 2 { before[2].wrapping_add(scan(delta[2])).wrapping_add(bias) } else { 0 },
            if C > 3 { before[3].wrapping_add(scan(delta[3])).wrapping_add(bias) } else { 0 },
        ];

        // Slide: output byte `o + t` is the window sum of channel `t % C`
        // after adding entering entry `t` and dropping leaving entry `t`.
        // Staged as the image's aligned words: the lane stores staging bytes
        // `o - f ..` for 24 bytes (word `i` holds the last `f` bytes before
        // packed word `i` and its first `4 - f`; the lane before provides
        // those of word 0).
        let a = win_stage_shift(job.orow);
        let f = (a as i32 - phi as i32).rem_euclid(4) as u32;
        let base = job.srow as i32 + WIN_STAGE_PAD as i32 + a as i32 + o - f as i32;
        let (lo_o, hi_o) = (if o > 0 { o } else { 0 }, if o + 24 < job.bytes as i32 { o + 24 } else { job.bytes as i32 });
        let (x_lo, x_hi) = (job.x0 as i64 + lo_o as i64, job.x0 as i64 + hi_o as i64 - 1);
        // Every window of the run is full (idle runs count as full: their
        // bytes are past the band).
        let fast = !run_on || (job.full_rows && x_lo >= h as i64 && x_hi + (h as i64) < p.row_bytes as i64);
        let stb = sh;
        let st = sh.cast::<u32>();
        let n = 32 - 8 * f;
        // The run's first packed word and its last (for the next lane).
        let (mut head, mut tail) = (0u32, 0u32);
        if run_on && fast {
            // (The addresses made opaque: the words are loaded again rather
            // than kept from the net-change pass.)

            let shift = p.shift;
            let mut lv = word8(leave);
            for s in 0..3usize {
                let en = word8(enter + 8 * s as i32);
                let nx = word8(leave + 8 * (s as i32 + 1));
                let both = [lv[0], lv[1], lv[2], lv[3], nx[0], nx[1], nx[2], nx[3]];
                let mut four = |u0: usize| {
                    let q: [u32; 4] = core::array::from_fn(|j| {
                        let u = u0 + j;
                        let c = (8 * s + u) % C as usize;
                        sums[c] = sums[c].wrapping_add(entry(&en, u)).wrapping_sub(entry(&both, LA as usize + u));
                        mul_hi_u32(sums[c], p.magic) >> shift
                    });
                    pack4(q[0], q[1], q[2], q[3])
                };
                let w0 = four(0);
                let w1 = four(4);
                // Staged words 2s and 2s + 1 (word 0 once the lane before
                // has passed its last word).
                if s == 0 {
                    head = w0;
                } else {
                    st.store((base as usize + 8 * s) / 4, funnel(tail, w0, n));
                }
                st.store((base as usize + 8 * s + 4) / 4, funnel(w0, w1, n));
                tail = w1;
                lv = nx;
            }
        } else if run_on {
            // Clipped windows (rare: the first and last r rows and columns):
            // one byte at a time, each divided by its count, stored as a
            // byte; `last` collects the last four (the next lane's word 0).
            // The channels' sums rotate so the current one is `sums[0]`.
            let (vin, vout) = (job.vrow as i32 + enter, job.vrow as i32 + leave + LA as i32);
            let mut last = 0u32;
            // (A loop, not unrolled: its trip count is opaque.)
            for t in 0..opaque_u32(WIN_RUN) as i32 {
                let s = sums[0].wrapping_add(v16.load((vin + t) as usize) as u32).wrapping_sub(v16.load((vout + t) as usize) as u32);
                let b = o + t;
                let q = if b >= 0 && b < job.bytes as i32 {
                    let cx = window_len((job.x0 + b as u32) / C, r, p.width);
                    div_round_half_up(s.wrapping_sub(bias), cx * job.cy)
                } else {
                    0
                };
                if t < (WIN_RUN - f) as i32 {
                    stb.store((base + f as i32 + t) as usize, q as u8);
                }
                last = (last >> 8) | (q << 24);
                sums = [if C > 1 { sums[1] } else { s }, if C > 2 { sums[2] } else { s }, if C > 3 { sums[3] } else { s }, s];
            }
            tail = last;
        } else {
            // An idle run: zero words past the band.
            for i in 1..6usize {
                st.store((base as usize + 4 * i) / 4, 0);
            }
        }
        let prev = shfl_sync_idx(tail, lane.wrapping_sub(1) & 31);
        if fast {
            st.store(base as usize / 4, funnel(prev, head, n));
        } else {
            // The lane before's last `f` bytes.
            for j in 0..f {
                stb.store((base as u32 + j) as usize, (prev >> (8 * (4 - f + j))) as u8);
            }
        }
        // The staged row is stored (only this warp reads it).
        sync_warp();

        // Copy out: staged word `w` is the image word at `orow - a + 4 w`.
        let end = a + job.bytes;
        let words = end.div_ceil(4);
        let from = job.srow + WIN_STAGE_PAD as usize;
        let mut w = lane;
        while w < words {
            let v = st.load((from + 4 * w as usize) / 4);
            let g = (job.orow - a as i64 + 4 * w as i64) as usize;
            if 4 * w >= a && 4 * w + 4 <= end {
                output.write_vec::<u32>(g, v);
            } else {
                for j in 0..4u32 {
                    let b = 4 * w + j;
                    if b >= a && b < end {
                        output.write(g + j as usize, (v >> (8 * j)) as u8);
                    }
                }
            }
            w += 32;
        }
    }
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

        let sh = dynamic_shared::<u8>();
        let vl = win_vsum();

        // The column-sum rows' zero pads (16 words before and after each
        // of the 16 rows; read from the first output batch, after its
        // barrier).
        let pads = sh.cast::<u32>();
        let mut i = tid;
        while i < 2 * WIN_BATCH * WIN_V_PAD {
            let (row, j) = ((i / WIN_V_PAD) as usize, i % WIN_V_PAD);
            let e = if j < WIN_V_PAD / 2 { 2 * j } else { WIN_V_ROW - WIN_V_PAD + 2 * (j - WIN_V_PAD / 2) };
            pads.store(vl.offset(row, e as usize) / 2, 0);
            i += WIN_THREADS;
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
        let whole = mask == u32::MAX;
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
        // Column sums of the window (bytes 0, 1 and 2, 3 of the word).
        let (mut va, mut vb) = (0u32, 0u32);
        // The words the batch's vertical steps add and drop (step i adds
        // row i + r and drops row i - r - 1). (Loaded at the batch's start:
        // held one batch ahead, their 16 registers made the horizontal
        // phase spill.)
        macro_rules! words {
            ($i0:expr) => {{
                let i0: i32 = $i0;
                (load8!(i0 + r as i32), load8!(i0 - r as i32 - 1))
            }};
        }
        let vsum = sh.cast::<u32x2>();

        for b in 0..batches {
            let i0 = step0(b);

            // Vertical: bytes 0, 1 and 2, 3 of each word as u16 pairs
            // (masked first where the word reaches outside the row).
            if vertical {
                let (w_in, w_out) = words!(i0);
                macro_rules! steps {
                    ($m:expr) => {
                        for g in 0..WIN_BATCH as usize {
                            let (wi, wo) = (w_in[g] & $m, w_out[g] & $m);
                            va = va.wrapping_add(prmt(wi, 0, 0x4140)).wrapping_sub(prmt(wo, 0, 0x4140));
                            vb = vb.wrapping_add(prmt(wi, 0, 0x4342)).wrapping_sub(prmt(wo, 0, 0x4342));
                            if i0 >= 0 {
                                let at = vl.offset(win_vsum_row(b as u32, g as u32), (WIN_V_PAD + 4 * tid) as usize);
                                vsum.store(at / 4, u32x2::from_array([va, vb]));
                            }
                        }
                    };
                }
                if whole {
                    steps!(u32::MAX)
                } else {
                    steps!(mask)
                }
            }
            if i0 < 0 {
                continue; // the prologue: no output rows (uniform in the block)
            }
            // The batch's column sums are stored; the buffer the next batch
            // writes was last read before this barrier.
            sync_threads();

            // Horizontal and outputs: warp g takes row i0 + g of the batch.
            let i = i0 + warp as i32;
            if i < n as i32 {
                let y = row_at(i);
                let job = RowJob {
                    vrow: vl.offset(win_vsum_row(b as u32, warp), WIN_V_PAD as usize),
                    srow: win_shared_parts() + win_stage().offset(warp as usize, 0),
                    orow: win_seg_start(y, rb, x0, 0),
                    x0,
                    bytes: band_bytes,
                    full_rows: y >= r && y + r < p.height,
                    cy: window_len(y, r, p.height),
                };
                // One copy of the phase per offset of the leaving sums in
                // their words that `C` allows.
                match win_run_reads(0, C, r).2 {
                    1 if C % 2 == 1 => window_row::<C, 1>(sh, output, p, lane, job),
                    2 if C == 2 => window_row::<C, 2>(sh, output, p, lane, job),
                    3 if C % 2 == 1 => window_row::<C, 3>(sh, output, p, lane, job),
                    4 if C == 4 => window_row::<C, 4>(sh, output, p, lane, job),
                    5 if C % 2 == 1 => window_row::<C, 5>(sh, output, p, lane, job),
                    6 if C == 2 => window_row::<C, 6>(sh, output, p, lane, job),
                    _ if C % 2 == 1 => window_row::<C, 7>(sh, output, p, lane, job),
                    _ => {}
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
    /// in registers and horizontal running sums along each lane's run of
    /// 24 bytes, so every output byte costs two row reads, two column sums
    /// (read 16 bytes at a time) and one division whatever the radius (see
    /// the module). The halo (`2r` bytes of a 768-byte segment, `2r` rows
    /// of a strip) and the warp's sum of the window before its first run
    /// are the only costs that grow.
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
