//! The box blur: its rungs ([`BlurVariant`]), the rung [`blur`] picks,
//! the validation every entry point shares and the launch of each rung's
//! kernels.

use ferrotile_kernels as k;
use ferrotile_kernels::image::index::{self as ix, SlideParams, WindowParams, MAX_BLUR_RADIUS, MAX_TILED_RADIUS};

use super::strips::{sliding_strip_rows, sliding_sums_strip_rows, window_strip_rows, WINDOW_MAX_STRIP};
use super::DeviceImage;
use crate::{check, Context, Error, Result};

/// The rungs of the box blur.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BlurVariant {
    /// PMPP: one thread per pixel, window read from global memory. Any radius.
    Naive,
    /// Shared-memory tile with halo. Radius ≤ [`MAX_TILED_RADIUS`].
    Tiled,
    /// Separable sums over a shared tile, 16 bytes per thread, compile-time
    /// radius: 1 or 3 channels, radius 1–3.
    Fast,
    /// Sliding column sums down a strip of rows, 16 bytes per thread, no
    /// barrier: 1 or 3 channels, radius 1–3, rows of whole 16-byte chunks
    /// (width · channels a multiple of 16).
    Sliding,
    /// The sliding rung sliding each row's horizontal sums (summed once,
    /// when the row enters the window) instead of raw column sums: the
    /// shapes of [`BlurVariant::Sliding`], and 4 channels (RGBA) as well.
    SlidingSums,
    /// Vertical running sums in registers and horizontal prefix sums, a
    /// cost per pixel that does not grow with the radius:
    /// 1 to 4 channels, radius 1 to [`WINDOW_MAX_RADIUS`], any width and
    /// height.
    Window,
}

/// Generates a sliding rung's launcher `$launch` from the rows of its
/// kernels' table (`hslide_table!`, `slide_table!`): one arm per row.
macro_rules! sliding_launcher {
    ($launch:ident $($(#[$doc:meta])* $name:ident: $c:literal, $r:literal;)*) => {
        /// Launches the rung's kernel of `channels` at `radius` (the
        /// rung's `supports` checked them).
        fn $launch(
            ctx: &Context,
            (channels, radius): (usize, u32),
            cfg: k::launch::LaunchConfig,
            input: &crate::Buffer<u8>,
            output: &mut crate::Buffer<u8>,
            sp: SlideParams,
        ) -> Result<()> {
            match (channels, radius) {
                $(($c, $r) => launch!(ctx, k::image::$name, cfg, input, output, sp),)*
                _ => unreachable!("checked by supports()"),
            }
        }
    };
}
ferrotile_kernels::hslide_table!(sliding_launcher, launch_hslide);
ferrotile_kernels::slide_table!(sliding_launcher, launch_slide);

/// Generates [`launch_fast`]: one arm per row of the kernels'
/// `fast_table!`.
macro_rules! fast_launcher {
    ($($(#[$doc:meta])* $name:ident: $c:literal, $r:literal;)*) => {
        /// Launches the fast kernel of `channels` at `radius`
        /// (`BlurVariant::Fast::supports` checked them).
        fn launch_fast(
            ctx: &Context,
            (channels, radius): (usize, u32),
            input: &crate::Buffer<u8>,
            output: &mut crate::Buffer<u8>,
            p: ix::ImageParams,
        ) -> Result<()> {
            match (channels, radius) {
                $(($c, $r) => launch!(ctx, k::image::$name, ix::blur_fast_config(p), input, output, p),)*
                _ => unreachable!("checked by supports()"),
            }
        }

        /// Whether the fast rung has a kernel for `channels` at `radius`:
        /// a row of the kernels' `fast_table!`.
        fn fast_has(channels: usize, radius: u32) -> bool {
            matches!((channels, radius), $(($c, $r))|*)
        }
    };
}
ferrotile_kernels::fast_table!(fast_launcher);

/// `width` and `channels` as u32, or `None` when either does not fit.
fn u32_pair(width: usize, channels: usize) -> Option<(u32, u32)> {
    Some((u32::try_from(width).ok()?, u32::try_from(channels).ok()?))
}

/// Largest radius of [`BlurVariant::Window`] (beyond it [`blur`] runs the
/// naive rung).
pub const WINDOW_MAX_RADIUS: u32 = ix::WIN_MAX_RADIUS;

impl BlurVariant {
    /// Every rung, in ladder order.
    pub const ALL: &'static [BlurVariant] =
        &[BlurVariant::Naive, BlurVariant::Tiled, BlurVariant::Fast, BlurVariant::Sliding, BlurVariant::SlidingSums, BlurVariant::Window];

    /// The rung's name (the fast rungs have one kernel per channel count and radius).
    pub fn name(self) -> &'static str {
        match self {
            BlurVariant::Naive => "blur_naive",
            BlurVariant::Tiled => "blur_tiled",
            BlurVariant::Fast => "blur_fast",
            BlurVariant::Sliding => "blur_slide",
            BlurVariant::SlidingSums => "blur_hslide",
            BlurVariant::Window => "blur_window",
        }
    }

    /// Whether the rung handles a `width`-pixel image of `channels` at `radius`.
    pub fn supports(self, width: usize, channels: usize, radius: u32) -> bool {
        match self {
            BlurVariant::Naive => radius <= MAX_BLUR_RADIUS,
            BlurVariant::Tiled => radius <= MAX_TILED_RADIUS,
            BlurVariant::Fast => fast_has(channels, radius),
            BlurVariant::Sliding => u32_pair(width, channels).is_some_and(|(w, c)| ix::slide_supports(w, c, radius)),
            BlurVariant::SlidingSums => u32_pair(width, channels).is_some_and(|(w, c)| ix::hslide_supports(w, c, radius)),
            BlurVariant::Window => u32::try_from(channels).is_ok_and(|c| ix::win_supports(c, radius)),
        }
    }

    /// The rung [`blur`] runs for a `width`-pixel image of `channels` at
    /// `radius`: the sliding-sum rungs where they apply (small radii on
    /// the widths they take: most of a copy's bandwidth), else the window
    /// rung (every width, 1–4 channels, radius 1 to [`WINDOW_MAX_RADIUS`];
    /// slower than the sliding sums but far ahead of the tiled and fast
    /// rungs, whose cost grows with the radius), else the older rungs,
    /// else the naive one. Measured ratios: `BENCHMARKS.md`.
    pub fn best(width: usize, channels: usize, radius: u32) -> BlurVariant {
        [BlurVariant::SlidingSums, BlurVariant::Sliding, BlurVariant::Window, BlurVariant::Fast, BlurVariant::Tiled]
            .into_iter()
            .find(|v| v.supports(width, channels, radius))
            .unwrap_or(BlurVariant::Naive)
    }
}

/// Box blur of `radius` with the fastest rung for the image: `dst` (same
/// shape as `src`) gets, per channel, the rounded mean of the in-image
/// pixels of each `(2 radius + 1)²` window.
///
/// Radius 0 is a copy (each window is its pixel). Errors: as [`blur_with`].
pub fn blur(ctx: &Context, src: &DeviceImage, dst: &mut DeviceImage, radius: u32) -> Result<()> {
    if radius == 0 {
        check_blur_shapes(ctx, src, dst)?;
        return ctx.copy(&src.data, &mut dst.data);
    }
    blur_with(ctx, BlurVariant::best(src.width, src.channels, radius), src, dst, radius)
}

/// The window rung with a chosen strip height (`strip_rows` output rows
/// per block; [`blur`] picks one from the image and the device): for
/// tuning, tests and benchmarks.
///
/// Errors: as [`blur_with`] for [`BlurVariant::Window`], and `strip_rows`
/// zero.
pub fn blur_window(ctx: &Context, src: &DeviceImage, dst: &mut DeviceImage, radius: u32, strip_rows: u32) -> Result<()> {
    if strip_rows == 0 {
        return Err(Error::BadArgument { arg: "strip_rows", detail: "0, must be at least 1".into() });
    }
    blur_checked(ctx, BlurVariant::Window, src, dst, radius, Some(strip_rows))
}

/// Checks that `dst` has `src`'s shape and both live on `ctx`.
fn check_blur_shapes(ctx: &Context, src: &DeviceImage, dst: &DeviceImage) -> Result<()> {
    if !src.same_shape_as(dst) || src.channels != dst.channels {
        return Err(Error::BadArgument {
            arg: "dst",
            detail: format!(
                "is {}x{}x{}, src is {}x{}x{}",
                dst.width, dst.height, dst.channels, src.width, src.height, src.channels
            ),
        });
    }
    check::backend(ctx, &[("src", src.data.is_on(ctx)), ("dst", dst.data.is_on(ctx))])
}

/// Box blur with a chosen rung.
///
/// Errors: `radius` over [`MAX_BLUR_RADIUS`]; a rung that does not handle
/// the radius or channel count (`variant`); `dst` of another shape;
/// a buffer of another backend.
pub fn blur_with(ctx: &Context, variant: BlurVariant, src: &DeviceImage, dst: &mut DeviceImage, radius: u32) -> Result<()> {
    blur_checked(ctx, variant, src, dst, radius, None)
}

/// The sliding rung with a chosen strip height (`strip_rows` output rows
/// per thread; [`blur`] picks one from the image and the device): for
/// tuning and benchmarks.
///
/// Errors: as [`blur_with`] for [`BlurVariant::Sliding`], and `strip_rows`
/// zero.
pub fn blur_sliding(ctx: &Context, src: &DeviceImage, dst: &mut DeviceImage, radius: u32, strip_rows: u32) -> Result<()> {
    if strip_rows == 0 {
        return Err(Error::BadArgument { arg: "strip_rows", detail: "0, must be at least 1".into() });
    }
    blur_strips(ctx, BlurVariant::Sliding, src, dst, radius, strip_rows)
}

/// A sliding rung ([`BlurVariant::Sliding`] or [`BlurVariant::SlidingSums`])
/// with a chosen strip height: for tuning and benchmarks.
///
/// Errors: as [`blur_with`], `strip_rows` zero, and another `variant`.
pub fn blur_strips(
    ctx: &Context,
    variant: BlurVariant,
    src: &DeviceImage,
    dst: &mut DeviceImage,
    radius: u32,
    strip_rows: u32,
) -> Result<()> {
    if strip_rows == 0 {
        return Err(Error::BadArgument { arg: "strip_rows", detail: "0, must be at least 1".into() });
    }
    if !matches!(variant, BlurVariant::Sliding | BlurVariant::SlidingSums) {
        return Err(Error::BadArgument { arg: "variant", detail: format!("{variant:?} has no strips") });
    }
    blur_checked(ctx, variant, src, dst, radius, Some(strip_rows))
}

fn blur_checked(
    ctx: &Context,
    variant: BlurVariant,
    src: &DeviceImage,
    dst: &mut DeviceImage,
    radius: u32,
    strip_rows: Option<u32>,
) -> Result<()> {
    if radius > MAX_BLUR_RADIUS {
        return Err(Error::BadArgument { arg: "radius", detail: format!("{radius}, at most {MAX_BLUR_RADIUS}") });
    }
    if !variant.supports(src.width, src.channels, radius) {
        return Err(Error::BadArgument {
            arg: "variant",
            detail: format!(
                "{variant:?} does not handle {} channel(s) of width {} at radius {radius}",
                src.channels, src.width
            ),
        });
    }
    check_blur_shapes(ctx, src, dst)?;
    let p = src.params(radius);
    let (input, output) = (&src.data, &mut dst.data);
    let _op = ctx.op(&[input.tracker()], &[output.tracker()])?;
    use k::image as ki;
    match (variant, src.channels, radius) {
        (BlurVariant::Naive, ..) => launch!(ctx, ki::blur_naive, ix::pixel_config(p.width, p.height), input, output, p),
        (BlurVariant::Tiled, ..) => launch!(ctx, ki::blur_tiled, ix::blur_tiled_config(p), input, output, p),
        (BlurVariant::Fast, c, r) => launch_fast(ctx, (c, r), input, output, p),
        (BlurVariant::Sliding, c, r) => {
            let strip = strip_rows.unwrap_or_else(|| sliding_strip_rows(ctx, src.width, src.height, c));
            let sp = SlideParams::new(p.width, p.height, p.channels, strip.min(p.height));
            let cfg = ix::blur_slide_config(sp, p.channels, r);
            launch_slide(ctx, (c, r), cfg, input, output, sp)
        }
        (BlurVariant::Window, c, r) => {
            let strip = strip_rows.unwrap_or_else(|| window_strip_rows(ctx, src.width, src.height, c, r)).min(WINDOW_MAX_STRIP);
            let wp = WindowParams::new(p.width, p.height, p.channels, r, strip.min(p.height));
            let cfg = ix::blur_window_config(wp);
            match c {
                1 => launch!(ctx, ki::blur_window_c1, cfg, input, output, wp),
                2 => launch!(ctx, ki::blur_window_c2, cfg, input, output, wp),
                3 => launch!(ctx, ki::blur_window_c3, cfg, input, output, wp),
                4 => launch!(ctx, ki::blur_window_c4, cfg, input, output, wp),
                _ => unreachable!("checked by supports()"),
            }
        }
        (BlurVariant::SlidingSums, c, r) => {
            let strip = strip_rows.unwrap_or_else(|| sliding_sums_strip_rows(ctx, src.width, src.height, c, r));
            let sp = SlideParams::new(p.width, p.height, p.channels, strip.min(p.height));
            launch_hslide(ctx, (c, r), ix::blur_hslide_config(sp, r), input, output, sp)
        }
    }
}
