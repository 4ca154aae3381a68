//! RGB → grayscale: the PMPP kernel, then the bandwidth rung.

use crate::arch::simd::u32x4;

use super::index::{gray_chunk_in, gray_chunk_out, gray_of, pixel_layout, GRAY_VEC_PIXELS};
use crate::arch::{global_row, global_x, Global};
use crate::kernel;

kernel! {
    /// PMPP `colorToGrayscaleConversion`: one thread per pixel on a 2D grid
    /// of 16 × 16 blocks ([`pixel_config`](super::index::pixel_config)),
    /// guarded for the partial blocks at the right and bottom edges. Reads
    /// 3 bytes and writes 1 per thread: byte-sized accesses and 3-byte
    /// strides make every warp issue four memory instructions for 128
    /// useful bytes, so it stays well below copy bandwidth. The first rung.
    pub fn rgb_to_gray(rgb: Global<u8>, gray: Global<u8>, width: u32, height: u32) {
        let (x, y) = (global_x(), global_row());
        let src = pixel_layout(width, height, 3);
        if src.in_bounds(y as usize, x as usize, 0) {
            let r = rgb.read(src.offset(y as usize, x as usize, 0));
            let g = rgb.read(src.offset(y as usize, x as usize, 1));
            let b = rgb.read(src.offset(y as usize, x as usize, 2));
            gray.write(pixel_layout(width, height, 1).offset(y as usize, x as usize, 0), gray_of(r, g, b));
        }
    }
}

kernel! {
    /// 16 pixels per thread over the image seen as one row of `pixels`
    /// (grayscale is a per-pixel map, so rows do not matter): three 16-byte
    /// loads (`ld.global.v4.u32`, 48 bytes = 16 RGB pixels, 16-byte aligned
    /// because 48 is a multiple of 16) and one 16-byte store per thread,
    /// instead of four one-byte accesses per pixel. The last, partial chunk
    /// takes a scalar path. Expected: the loads and stores of a warp cover
    /// whole contiguous sectors, so it runs at the bandwidth of a
    /// device-to-device copy moving the same 4 bytes per pixel.
    pub fn rgb_to_gray_vec16(rgb: Global<u8>, gray: Global<u8>, pixels: u32) {
        let t = global_x();
        let first = t as u64 * GRAY_VEC_PIXELS as u64;
        if first + GRAY_VEC_PIXELS as u64 <= pixels as u64 {
            let i = gray_chunk_in(t);
            let v: [u32x4; 3] = [rgb.read_vec::<u32x4>(i), rgb.read_vec::<u32x4>(i + 16), rgb.read_vec::<u32x4>(i + 32)];
            // SAFETY: three u32x4 are 48 plain bytes (little-endian lanes:
            // byte k of the array is byte k of memory).
            let b: [u8; 48] = core::mem::transmute::<[u32x4; 3], [u8; 48]>(v);
            let mut out = [0u8; 16];
            for (p, o) in out.iter_mut().enumerate() {
                *o = gray_of(b[3 * p], b[3 * p + 1], b[3 * p + 2]);
            }
            gray.write_vec::<u32x4>(gray_chunk_out(t), core::mem::transmute::<[u8; 16], u32x4>(out));
        } else if first < pixels as u64 {
            // The pixels as one row of `pixels` RGB triples.
            let src = pixel_layout(pixels, 1, 3);
            let mut p = first as usize;
            while p < pixels as usize {
                let (r, g, b) = (rgb.read(src.offset(0, p, 0)), rgb.read(src.offset(0, p, 1)), rgb.read(src.offset(0, p, 2)));
                gray.write(p, gray_of(r, g, b));
                p += 1;
            }
        }
    }
}
