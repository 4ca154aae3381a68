//! The built-in test picture.

use super::HostImage;
use crate::Result;

/// A deterministic RGB test picture of `width × height`: a sky gradient,
/// a sun, hills, a checkerboard, coloured bars and thin lines — edges of
/// every direction and scale, so grayscale and blur are easy to judge by
/// eye. Used by the CLI when no input is given.
///
/// Errors: a shape [`Image::new`](super::Image::new) refuses for 3 channels —
/// [`Error::BadArgument`](crate::Error::BadArgument) naming `width` or `height` (zero, over the
/// limits) or `width * height * channels` (over `u32::MAX` bytes).
pub fn builtin_test_image(width: usize, height: usize) -> Result<HostImage> {
    let (w, h) = (width, height);
    let (fw, fh) = (w as f32, h as f32);
    HostImage::from_fn(w, h, 3, |x, y| {
        let (u, v) = (x as f32 / fw, y as f32 / fh);
        // Sky: blue at the top to pale at the horizon.
        let mut px = [(90.0 + 120.0 * v) as u8, (150.0 + 80.0 * v) as u8, 235, 255];
        // Sun.
        let (dx, dy) = (u - 0.78, (v - 0.22) * fh / fw);
        if dx * dx + dy * dy < 0.0064 {
            px = [255, 214, 40, 255];
        }
        // Hills: two sine ridges.
        let ridge = 0.58 + 0.06 * (u * 9.0).sin() + 0.03 * (u * 23.0).cos();
        if v > ridge {
            let shade = ((v - ridge) * 300.0).min(90.0) as u8;
            px = [40 + shade / 3, 140 - shade / 2, 50, 255];
        }
        // Checkerboard (8-pixel squares) in the lower left.
        if u < 0.3 && v > 0.75 {
            let on = ((x / 8) + (y / 8)) % 2 == 0;
            px = if on { [250, 250, 250, 255] } else { [20, 20, 20, 255] };
        }
        // Colour bars in the lower right.
        if u > 0.62 && v > 0.8 {
            let bars = [[230, 30, 30], [30, 200, 30], [40, 60, 230], [240, 240, 40], [30, 220, 220], [220, 40, 220]];
            let b = bars[(((u - 0.62) / 0.38 * 6.0) as usize).min(5)];
            px = [b[0], b[1], b[2], 255];
        }
        // Thin lines: one-pixel verticals and a diagonal, where blur shows most.
        if (0.35..0.55).contains(&u) && v > 0.8 && x % 4 == 0 {
            px = [0, 0, 0, 255];
        }
        if x.abs_diff(y) == 0 && u < 0.3 && v < 0.7 {
            px = [200, 0, 0, 255];
        }
        px
    })
}
