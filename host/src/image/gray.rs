//! RGB → grayscale: the rungs and their launch.

use ferrotile_kernels as k;
use ferrotile_kernels::image::index as ix;

use super::DeviceImage;
use crate::{check, Context, Error, Result};

/// The rungs of RGB → grayscale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GrayVariant {
    /// PMPP: one thread per pixel, 16 × 16 blocks, byte accesses.
    Pmpp,
    /// 16 pixels per thread, 16-byte loads and stores.
    Vec16,
}

impl GrayVariant {
    /// Every rung, in ladder order.
    pub const ALL: &'static [GrayVariant] = &[GrayVariant::Pmpp, GrayVariant::Vec16];

    /// The kernel's name.
    pub fn name(self) -> &'static str {
        match self {
            GrayVariant::Pmpp => "rgb_to_gray",
            GrayVariant::Vec16 => "rgb_to_gray_vec16",
        }
    }
}

/// RGB → grayscale with the fastest rung: `dst` (1 channel) gets
/// `(21 r + 72 g + 7 b + 50) / 100` of each pixel of `src` (3 channels).
pub fn rgb_to_gray(ctx: &Context, src: &DeviceImage, dst: &mut DeviceImage) -> Result<()> {
    rgb_to_gray_with(ctx, GrayVariant::Vec16, src, dst)
}

/// RGB → grayscale with a chosen rung.
///
/// Errors: `src` not 3 channels, `dst` not 1 channel, `dst` of another
/// width/height than `src`, a buffer of another backend.
pub fn rgb_to_gray_with(ctx: &Context, variant: GrayVariant, src: &DeviceImage, dst: &mut DeviceImage) -> Result<()> {
    if src.channels != 3 {
        return Err(Error::BadArgument { arg: "src", detail: format!("needs 3 channels (RGB), has {}", src.channels) });
    }
    if dst.channels != 1 {
        return Err(Error::BadArgument { arg: "dst", detail: format!("needs 1 channel (gray), has {}", dst.channels) });
    }
    if !src.same_shape_as(dst) {
        return Err(Error::BadArgument {
            arg: "dst",
            detail: format!("is {}x{}, src is {}x{}", dst.width, dst.height, src.width, src.height),
        });
    }
    check::backend(ctx, &[("src", src.data.is_on(ctx)), ("dst", dst.data.is_on(ctx))])?;
    let (w, h) = (src.width as u32, src.height as u32);
    let (rgb, gray) = (&src.data, &mut dst.data);
    let _op = ctx.op(&[rgb.tracker()], &[gray.tracker()])?;
    match variant {
        GrayVariant::Pmpp => launch!(ctx, k::image::rgb_to_gray, ix::pixel_config(w, h), rgb, gray, w, h),
        GrayVariant::Vec16 => {
            let pixels = w * h; // ≤ u32::MAX bytes of RGB: checked by `new`
            launch!(ctx, k::image::rgb_to_gray_vec16, ix::gray_vec16_config(pixels), rgb, gray, pixels)
        }
    }
}
