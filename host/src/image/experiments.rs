//! Experiment kernels of the blur kept for the benchmark (hidden from the
//! docs, built into the experiments PTX): each takes the rung's
//! parameters plus which experiment to run.

use ferrotile_kernels as k;
use ferrotile_kernels::image::index::{self as ix, SlideParams};

use super::{BlurVariant, DeviceImage};
use crate::{check, Context, Error, Result};

/// The horizontal-first sliding rung as one of the benchmark's
/// experiment kernels (`kernels::image::experiments`): `experiment` is
/// `"p2"` (2 rows ahead), `"down"` (every strip walks down) or `"serial"`
/// (the ring's first rows loaded and summed one by one).
#[doc(hidden)]
pub fn blur_sliding_sums_experiment(
    ctx: &Context,
    src: &DeviceImage,
    dst: &mut DeviceImage,
    radius: u32,
    strip_rows: u32,
    experiment: &str,
) -> Result<()> {
    use k::image::experiments as ke;
    check_experiment(ctx, src, dst, BlurVariant::SlidingSums, radius, strip_rows)?;
    let p = src.params(radius);
    let sp = SlideParams::new(p.width, p.height, p.channels, strip_rows.min(p.height));
    let cfg = ix::blur_hslide_config(sp, radius);
    let (input, output) = (&src.data, &mut dst.data);
    let _op = ctx.op(&[input.tracker()], &[output.tracker()])?;
    match (src.channels, radius, experiment) {
        (1, 1, "p2") => launch!(ctx, ke::blur_hslide_gray_r1_p2, cfg, input, output, sp),
        (1, 2, "p2") => launch!(ctx, ke::blur_hslide_gray_r2_p2, cfg, input, output, sp),
        (1, 3, "p2") => launch!(ctx, ke::blur_hslide_gray_r3_p2, cfg, input, output, sp),
        (3, 1, "p2") => launch!(ctx, ke::blur_hslide_rgb_r1_p2, cfg, input, output, sp),
        (3, 3, "p2") => launch!(ctx, ke::blur_hslide_rgb_r3_p2, cfg, input, output, sp),
        (1, 1, "down") => launch!(ctx, ke::blur_hslide_gray_r1_down, cfg, input, output, sp),
        (1, 2, "down") => launch!(ctx, ke::blur_hslide_gray_r2_down, cfg, input, output, sp),
        (1, 3, "down") => launch!(ctx, ke::blur_hslide_gray_r3_down, cfg, input, output, sp),
        (1, 1, "serial") => launch!(ctx, ke::blur_hslide_gray_r1_serial, cfg, input, output, sp),
        (1, 2, "serial") => launch!(ctx, ke::blur_hslide_gray_r2_serial, cfg, input, output, sp),
        (1, 3, "serial") => launch!(ctx, ke::blur_hslide_gray_r3_serial, cfg, input, output, sp),
        _ => Err(Error::BadArgument { arg: "experiment", detail: format!("no kernel `{experiment}` for {} channel(s) at radius {radius}", src.channels) }),
    }
}

/// The validation both benchmark experiments share.
fn check_experiment(
    ctx: &Context,
    src: &DeviceImage,
    dst: &DeviceImage,
    rung: BlurVariant,
    radius: u32,
    strip_rows: u32,
) -> Result<()> {
    if strip_rows == 0 {
        return Err(Error::BadArgument { arg: "strip_rows", detail: "0, must be at least 1".into() });
    }
    if !rung.supports(src.width, src.channels, radius) {
        return Err(Error::BadArgument {
            arg: "radius",
            detail: format!("{rung:?} has no kernel for {} channel(s) of width {} at radius {radius}", src.channels, src.width),
        });
    }
    if !src.same_shape_as(dst) || src.channels != dst.channels {
        return Err(Error::BadArgument {
            arg: "dst",
            detail: format!("is {}x{}x{}, src is {}x{}x{}", dst.width, dst.height, dst.channels, src.width, src.height, src.channels),
        });
    }
    check::backend(ctx, &[("src", src.data.is_on(ctx)), ("dst", dst.data.is_on(ctx))])
}

/// The sliding rung with `prefetch` rows loaded ahead instead of
/// [`ix::slide_prefetch`]: an experiment for the benchmark (the other depth
/// of 2 and 4 for gray at radius 1–3 and RGB at radius 1 and 3; `None`
/// for the default kernel).
#[doc(hidden)]
pub fn blur_sliding_prefetch(
    ctx: &Context,
    src: &DeviceImage,
    dst: &mut DeviceImage,
    radius: u32,
    strip_rows: u32,
    prefetch: u32,
) -> Result<()> {
    use k::image::prefetch as kp;
    check_experiment(ctx, src, dst, BlurVariant::Sliding, radius, strip_rows)?;
    let p = src.params(radius);
    let sp = SlideParams::new(p.width, p.height, p.channels, strip_rows.min(p.height));
    let cfg = ix::blur_slide_config(sp, p.channels, radius);
    let (input, output) = (&src.data, &mut dst.data);
    let _op = ctx.op(&[input.tracker()], &[output.tracker()])?;
    match (src.channels, radius, prefetch) {
        (1, 1, 2) => launch!(ctx, kp::blur_slide_gray_r1_p2, cfg, input, output, sp),
        (1, 2, 2) => launch!(ctx, kp::blur_slide_gray_r2_p2, cfg, input, output, sp),
        (1, 3, 4) => launch!(ctx, kp::blur_slide_gray_r3_p4, cfg, input, output, sp),
        (3, 1, 2) => launch!(ctx, kp::blur_slide_rgb_r1_p2, cfg, input, output, sp),
        (3, 3, 4) => launch!(ctx, kp::blur_slide_rgb_r3_p4, cfg, input, output, sp),
        _ => Err(Error::BadArgument { arg: "prefetch", detail: format!("no kernel for {prefetch} rows ahead") }),
    }
}
