//! Box blur of radius `r` (PMPP's `BLUR_SIZE`): every output byte is the
//! mean of the in-image pixels of its `(2r + 1)²` window in its channel,
//! rounded half up ([`div_round_half_up`]). Pixels outside the image are
//! not averaged: at radius 1 a corner averages 4 of 9, an edge pixel 6 of 9.

use crate::arch::simd::u32x4;

use super::index::{
    blur_count, byte_rows, div_round_half_up, div_round_magic, fast_hsum_layout, fast_in_layout, fast_supports,
    fast_load_iters, fast_tile_rows, full_count, hsum_lane, pixel_layout, tiled_layout, window_hi, window_lo, ImageParams, FAST_CHUNK,
    FAST_IN_STRIDE, FAST_MAX_LOAD_ITERS, FAST_ROWS_PER_THREAD, FAST_THREADS, FAST_TILE_H, FAST_TILE_W, PIXEL_BLOCK,
};
use crate::arch::{
    block_idx_x, block_row, block_threads, dynamic_shared, global_row, global_x, sync_threads, thread_idx_x,
    thread_idx_y, thread_linear, Global,
};
use crate::kernel;

kernel! {
    /// PMPP `blurKernel`: one thread per pixel (16 × 16 blocks), every
    /// window pixel read from global memory, any radius and channel count.
    /// The window is clipped to the image, so the count of averaged pixels
    /// is computed, not tested pixel by pixel. Each input byte is read
    /// `(2r + 1)²` times (mostly from L1/L2): correct, simple, and far from
    /// memory speed. The first rung.
    pub fn blur_naive(input: Global<u8>, output: Global<u8>, p: ImageParams) {
        let (x, y) = (global_x(), global_row());
        if x < p.width && y < p.height {
            let img = pixel_layout(p.width, p.height, p.channels);
            let (x0, x1) = (window_lo(x, p.radius), window_hi(x, p.radius, p.width));
            let (y0, y1) = (window_lo(y, p.radius), window_hi(y, p.radius, p.height));
            let count = (x1 - x0) * (y1 - y0);
            for c in 0..p.channels as usize {
                let mut sum = 0u32;
                for yy in y0 as usize..y1 as usize {
                    for xx in x0 as usize..x1 as usize {
                        sum += input.read(img.offset(yy, xx, c)) as u32;
                    }
                }
                output.write(img.offset(y as usize, x as usize, c), div_round_half_up(sum, count) as u8);
            }
        }
    }
}

kernel! {
    /// Shared-memory tile with halo: the block first copies its
    /// `(16 + 2r)² · channels` input bytes (zeros outside the image) into
    /// shared memory, each byte read once from global memory, then every
    /// thread sums its window from shared memory. Zero padding makes the
    /// sum branch-free; the count comes from the clipped window, and full
    /// windows divide with one multiply-high ([`div_round_magic`]). Global
    /// traffic drops to about one read per byte, but each pixel still
    /// costs `(2r + 1)²` shared loads and adds: compute-bound beyond radius
    /// 1. Radius ≤ [`MAX_TILED_RADIUS`](super::index::MAX_TILED_RADIUS).
    pub fn blur_tiled(input: Global<u8>, output: Global<u8>, p: ImageParams) {
        let (r, ch) = (p.radius, p.channels);
        let tile = tiled_layout(r, ch);
        let img = byte_rows(p.width, p.height, ch);
        let sh = dynamic_shared::<u8>();
        // Tile byte (tr, tb) holds image row by0 + tr - r, image byte
        // (bx0 - r) · ch + tb, or 0 outside the image.
        let (bx0, by0) = (block_idx_x() * PIXEL_BLOCK[0], block_row() * PIXEL_BLOCK[1]);
        let mut i = thread_linear() as usize;
        while i < tile.size() {
            let (tr, tb) = ((i / tile.cols) as u32, (i % tile.cols) as u32);
            let (gy, gb) = (by0 + tr, bx0 * ch + tb);
            let inside = gy >= r && gy - r < p.height && gb >= r * ch && gb - r * ch < p.row_bytes();
            let v = if inside { input.read(img.offset((gy - r) as usize, (gb - r * ch) as usize)) } else { 0 };
            sh.store(tile.offset(tr as usize, tb as usize), v);
            i += block_threads() as usize;
        }
        sync_threads();
        let (x, y) = (global_x(), global_row());
        if x < p.width && y < p.height {
            let (tx, ty) = (thread_idx_x() as usize, thread_idx_y() as usize);
            let count = blur_count(x, y, r, p.width, p.height);
            let side = 2 * r as usize + 1;
            for c in 0..ch as usize {
                let mut sum = 0u32;
                for dy in 0..side {
                    for dx in 0..side {
                        sum += sh.load(tile.offset(ty + dy, (tx + dx) * ch as usize + c)) as u32;
                    }
                }
                let q = if count == full_count(r) && p.magic != 0 {
                    div_round_magic(sum, count, p.magic)
                } else {
                    div_round_half_up(sum, count)
                };
                output.write(img.offset(y as usize, x as usize * ch as usize + c), q as u8);
            }
        }
    }
}

/// Bytes `t` and `t + 2` of the words `wd` (little-endian), as two u16
/// lanes: the even/odd byte split of a word is one AND or one byte permute,
/// and a pair straddling two words one more permute of two such splits.
#[inline(always)]
fn byte_pair(wd: &[u32; 12], t: usize) -> u32 {
    let even = |w: u32| w & 0x00ff_00ff;
    let odd = |w: u32| (w >> 8) & 0x00ff_00ff;
    let q = t / 4;
    match t % 4 {
        0 => even(wd[q]),
        1 => odd(wd[q]),
        2 => even(wd[q]) >> 16 | even(wd[q + 1]) << 16,
        _ => odd(wd[q]) >> 16 | odd(wd[q + 1]) << 16,
    }
}

/// Horizontal sums of the 16 interior bytes of `wd` (48 bytes as 12 words:
/// the left halo chunk, the chunk, the right halo chunk) over
/// `j - C·R ..= j + C·R` in steps of `C`, two u16 lanes per word in the
/// order of [`hsum_lane`]: word `m` holds outputs `j` and `j + 2` with
/// `j = 4 (m / 2) + m % 2`. One 32-bit add adds both lanes (no carry
/// crosses: a lane stays below `(2R + 1) · 255`).
#[inline(always)]
fn hsum16<const C: u32, const R: u32>(wd: &[u32; 12]) -> [u32; 8] {
    let cr = (C * R) as usize;
    let mut w = [0u32; 8];
    for (m, wm) in w.iter_mut().enumerate() {
        let j = 4 * (m / 2) + m % 2;
        for k in 0..(2 * R + 1) as usize {
            *wm += byte_pair(wd, 16 + j + k * C as usize - cr);
        }
    }
    w
}

/// One row of 16 packed horizontal sums from shared memory.
#[inline(always)]
unsafe fn load_sums(hs: crate::arch::Shared<u16>, at: usize) -> [u32; 8] {
    let (a, b) = unsafe { (hs.load_vec::<u32x4>(at).to_array(), hs.load_vec::<u32x4>(at + 8).to_array()) };
    [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]]
}

/// The fast blur for `C` channels at radius `R` (see [`blur_fast_gray_r1`]).
#[inline(always)]
unsafe fn blur_fast_body<const C: u32, const R: u32>(input: Global<u8>, output: Global<u8>, p: ImageParams) {
    // SAFETY: the launcher validated the buffers for `p`; every access is
    // inside them or inside the tile (the emulator checks both).
    unsafe {
        const { assert!(fast_supports(C, R)) };
        let chunk = FAST_CHUNK as usize;
        let cr = C * R;
        let rb = p.row_bytes();
        let img = byte_rows(p.width, p.height, C);
        let (tin, ths) = (fast_in_layout(R), fast_hsum_layout(R));
        let sh_in = dynamic_shared::<u8>();
        let sh_hs = sh_in.offset(tin.size()).cast::<u16>();
        let (x0, y0) = (block_idx_x() * FAST_TILE_W, block_row() * FAST_TILE_H);
        let (tid, nt) = (thread_linear(), FAST_THREADS);
        let rows = fast_tile_rows(R);
        // Rows that are whole 16-byte chunks take vector loads and stores.
        let aligned = rb % FAST_CHUNK == 0;

        // 1. Input tile: rows y0 - R .. y0 + 64 + R, bytes x0 - 16 .. x0 + 144,
        //    zeros outside the image; 16-byte loads where the chunk is inside.
        //    Every load of the thread is issued before its first store (the
        //    loop has a compile-time trip count), so a thread keeps up to
        //    FAST_LOAD_ITERS 16-byte loads in flight.
        let in_chunks = FAST_IN_STRIDE / FAST_CHUNK;
        let total = rows * in_chunks;
        // Chunk i of the tile: its tile row, its image row (if inside), the
        // image byte just past its end (the chunk is bytes end - 16 .. end).
        let chunk_at = |i: u32| {
            let (rr, q) = (i / in_chunks, i % in_chunks);
            let (ys, end) = (y0 + rr, x0 + q * FAST_CHUNK);
            (rr, q, ys >= R && ys - R < p.height, ys.wrapping_sub(R), end)
        };
        // Whole chunks inside the image: one 16-byte load, all issued first.
        let vector = |i: u32| {
            let (_, _, row_in, _, end) = chunk_at(i);
            row_in && aligned && end >= FAST_CHUNK && end <= rb
        };
        let iters = fast_load_iters(R) as usize;
        let mut staged = [u32x4::splat(0); FAST_MAX_LOAD_ITERS];
        #[allow(clippy::needless_range_loop)] // index loops unroll; iterator chains did not
        for k in 0..FAST_MAX_LOAD_ITERS {
            let i = tid + k as u32 * FAST_THREADS;
            if k < iters && i < total && vector(i) {
                let (_, _, _, y, end) = chunk_at(i);
                staged[k] = input.read_vec::<u32x4>(img.offset(y as usize, (end - FAST_CHUNK) as usize));
            }
        }
        for k in 0..FAST_MAX_LOAD_ITERS {
            let i = tid + k as u32 * FAST_THREADS;
            if k >= iters || i >= total {
                continue;
            }
            let (rr, q, row_in, y, end) = chunk_at(i);
            let chunk = if vector(i) {
                staged[k]
            } else {
                // Edge chunks (or rows that are not whole chunks): byte by
                // byte, zeros outside the image.
                let mut b = [0u8; 16];
                if row_in {
                    for (j, bj) in b.iter_mut().enumerate() {
                        let xb = end + j as u32;
                        if xb >= FAST_CHUNK && xb - FAST_CHUNK < rb {
                            *bj = input.read(img.offset(y as usize, (xb - FAST_CHUNK) as usize));
                        }
                    }
                }
                core::mem::transmute::<[u8; 16], u32x4>(b)
            };
            sh_in.store_vec::<u32x4>(tin.offset(rr as usize, (q * FAST_CHUNK) as usize), chunk);
        }
        sync_threads();

        // 2. Horizontal sums of every tile row, 16 bytes per work item: three
        //    16-byte shared loads, sums in registers, two 16-byte stores.
        let out_chunks = FAST_TILE_W / FAST_CHUNK;
        let mut i = tid;
        while i < rows * out_chunks {
            let (rr, q) = ((i / out_chunks) as usize, (i % out_chunks) as usize);
            let at = tin.offset(rr, q * chunk);
            let three = [sh_in.load_vec::<u32x4>(at), sh_in.load_vec::<u32x4>(at + chunk), sh_in.load_vec::<u32x4>(at + 2 * chunk)];
            let w = hsum16::<C, R>(&core::mem::transmute::<[u32x4; 3], [u32; 12]>(three));
            let to = ths.offset(rr, q * chunk);
            sh_hs.store_vec::<u32x4>(to, u32x4::from_array([w[0], w[1], w[2], w[3]]));
            sh_hs.store_vec::<u32x4>(to + 8, u32x4::from_array([w[4], w[5], w[6], w[7]]));
            i += nt;
        }
        sync_threads();

        // 3. Vertical running sum down FAST_ROWS_PER_THREAD rows of one chunk;
        //    two u16 lanes per 32-bit add (no lane overflows: fast_supports).
        let (tx, ty) = (thread_idx_x() as usize, thread_idx_y());
        let r0 = (ty * FAST_ROWS_PER_THREAD) as usize;
        let mut v = [0u32; 8];
        for k in 0..(2 * R) as usize + 1 {
            let s = load_sums(sh_hs, ths.offset(r0 + k, tx * chunk));
            for w in 0..8 {
                v[w] += s[w];
            }
        }
        let gx = x0 + tx as u32 * FAST_CHUNK;
        for step in 0..FAST_ROWS_PER_THREAD as usize {
            if step > 0 {
                let enter = load_sums(sh_hs, ths.offset(r0 + step + 2 * R as usize, tx * chunk));
                let leave = load_sums(sh_hs, ths.offset(r0 + step - 1, tx * chunk));
                for w in 0..8 {
                    v[w] = v[w] + enter[w] - leave[w];
                }
            }
            let y = y0 + (r0 + step) as u32;
            if y >= p.height || gx >= rb {
                continue;
            }
            let mut out = [0u8; 16];
            let lane = |j: usize| {
            let (word, half) = hsum_lane(j);
            (v[word] >> (16 * half)) & 0xffff
        };
            // Every pixel of the chunk has a full window: constant divisor.
            let interior = y >= R && y + R < p.height && gx >= cr && gx + FAST_CHUNK + cr <= rb;
            if interior {
                for (j, o) in out.iter_mut().enumerate() {
                    *o = div_round_half_up(lane(j), full_count(R)) as u8;
                }
            } else {
                for (j, o) in out.iter_mut().enumerate() {
                    let b = gx + j as u32;
                    if b < rb {
                        *o = div_round_half_up(lane(j), blur_count(b / C, y, R, p.width, p.height)) as u8;
                    }
                }
            }
            if aligned && gx + FAST_CHUNK <= rb {
                output.write_vec::<u32x4>(img.offset(y as usize, gx as usize), core::mem::transmute::<[u8; 16], u32x4>(out));
            } else {
                for (j, o) in out.iter().enumerate() {
                    if gx + (j as u32) < rb {
                        output.write(img.offset(y as usize, gx as usize + j), *o);
                    }
                }
            }
        }
    }
}

/// The fast kernels, one row each: its doc, `name: channels, radius`.
/// A row is the kernel, [`blur_fast_body`] for its channels and radius.
macro_rules! fast_kernels {
    ($($(#[$doc:meta])* $name:ident: $c:literal, $r:literal;)*) => {
        $(
            kernel! {
                $(#[$doc])*
                pub fn $name(input: Global<u8>, output: Global<u8>, p: ImageParams) {
                    blur_fast_body::<$c, $r>(input, output, p)
                }
            }
        )*
    };
}

/// The fast kernels, one row each (`name: channels, radius` and its doc):
/// `fast_table!(m)` passes the rows to the macro `m`. Here `fast_kernels!`
/// makes them the kernels; the host's launcher makes them its dispatch
/// over channels and radius, so a row added here is launched there.
#[macro_export]
macro_rules! fast_table {
    ($then:ident) => { $then! {
    /// Separable blur, gray, radius 1. The box sum is a horizontal sum of
    /// `2r + 1` bytes followed by a vertical sum of `2r + 1` of those, with
    /// the radius a compile-time constant so every window index is a
    /// register index. A 256-thread block owns a 128-byte × 64-row output
    /// tile: (1) 16-byte loads of the tile plus its halo (one 16-byte chunk
    /// left and right, `r` rows above and below) into shared memory, zeros
    /// outside the image; (2) horizontal sums, 16 bytes per thread from
    /// three 16-byte shared loads, stored as u16; (3) a vertical running sum
    /// down two rows per thread on packed u16 pairs, a constant divisor for
    /// interior chunks (multiply-high), one 16-byte store. Per pixel about a
    /// dozen instructions instead of the tiled rung's `(2r + 1)²` loads and
    /// adds: expected near copy bandwidth at radius 1–3.
    blur_fast_gray_r1: 1, 1;

    /// [`blur_fast_gray_r1`] at radius 2.
    blur_fast_gray_r2: 1, 2;

    /// [`blur_fast_gray_r1`] at radius 3.
    blur_fast_gray_r3: 1, 3;

    /// [`blur_fast_gray_r1`] for interleaved RGB at radius 1: the same byte
    /// tiles, horizontal neighbours 3 bytes apart.
    blur_fast_rgb_r1: 3, 1;

    /// [`blur_fast_rgb_r1`] at radius 2.
    blur_fast_rgb_r2: 3, 2;

    /// [`blur_fast_rgb_r1`] at radius 3.
    blur_fast_rgb_r3: 3, 3;
    } };
}

crate::fast_table!(fast_kernels);
