//! CPU references (rayon): the ground truth of the tests, the same
//! integer rules as the kernels.

use ferrotile_kernels::image::index::{div_round_half_up, gray_of, window_hi, window_lo};
use rayon::prelude::*;

use super::HostImage;

/// RGB → gray of a 3-channel image (panics on another channel count:
/// a test helper).
pub fn rgb_to_gray(img: &HostImage) -> HostImage {
    assert_eq!(img.channels, 3, "rgb_to_gray needs an RGB image");
    let data: Vec<u8> = img.data.par_chunks_exact(3).map(|p| gray_of(p[0], p[1], p[2])).collect();
    HostImage { width: img.width, height: img.height, channels: 1, data }
}

/// Box blur of `radius`, averaging only the in-image pixels, rounded
/// half up. Rows in parallel; per row the column sums of the window
/// rows, then the window sums along the row.
pub fn blur(img: &HostImage, radius: u32) -> HostImage {
    let (w, h, c) = (img.width, img.height, img.channels);
    let r = radius as usize;
    let rb = w * c;
    let mut out = vec![0u8; img.data.len()];
    out.par_chunks_mut(rb).enumerate().for_each(|(y, row)| {
        let (y0, y1) = (window_lo(y as u32, radius) as usize, window_hi(y as u32, radius, h as u32) as usize);
        let mut col = vec![0u32; rb];
        for yy in y0..y1 {
            for (s, &b) in col.iter_mut().zip(&img.data[yy * rb..(yy + 1) * rb]) {
                *s += b as u32;
            }
        }
        for x in 0..w {
            let (x0, x1) = (x.saturating_sub(r), (x + r + 1).min(w));
            let count = ((x1 - x0) * (y1 - y0)) as u32;
            for ch in 0..c {
                let sum: u32 = (x0..x1).map(|xx| col[xx * c + ch]).sum();
                row[x * c + ch] = div_round_half_up(sum, count) as u8;
            }
        }
    });
    HostImage { width: w, height: h, channels: c, data: out }
}

/// Box blur by the definition, one pixel at a time (slow; checks [`blur`]).
pub fn blur_direct(img: &HostImage, radius: u32) -> HostImage {
    let (w, h, c) = (img.width as i64, img.height as i64, img.channels);
    let r = radius as i64;
    let mut data = vec![0u8; img.data.len()];
    for y in 0..h {
        for x in 0..w {
            for ch in 0..c {
                let (mut sum, mut count) = (0u32, 0u32);
                for yy in y - r..=y + r {
                    for xx in x - r..=x + r {
                        if (0..h).contains(&yy) && (0..w).contains(&xx) {
                            sum += img.data[((yy * w + xx) as usize) * c + ch] as u32;
                            count += 1;
                        }
                    }
                }
                data[((y * w + x) as usize) * c + ch] = div_round_half_up(sum, count) as u8;
            }
        }
    }
    HostImage { width: img.width, height: img.height, channels: c, data }
}

/// `fma(input[p][..], scale[p], offset[p])` per plane of `[planes, rows, cols]`.
pub fn volume_affine(dims: [usize; 3], input: &[f32], scale: &[f32], offset: &[f32]) -> Vec<f32> {
    let plane = dims[1] * dims[2];
    let mut out = vec![0f32; input.len()];
    out.par_chunks_mut(plane).zip(input.par_chunks(plane)).enumerate().for_each(|(p, (o, i))| {
        for (o, &x) in o.iter_mut().zip(i) {
            *o = x.mul_add(scale[p], offset[p]);
        }
    });
    out
}
