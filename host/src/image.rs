//! PMPP chapter 3 image kernels: RGB → grayscale, box blur, and a 3D
//! `(plane, row, col)` kernel, on either backend, with CPU references.
//!
//! ```
//! use ferrotile::image::{self, DeviceImage};
//! # fn main() -> ferrotile::Result<()> {
//! let ctx = ferrotile::Context::auto(); // CUDA when a device is there, else the emulator
//! let rgb = image::builtin_test_image(64, 48)?; // a HostImage, 3 channels
//! let src = DeviceImage::upload(&ctx, &rgb)?;
//! let mut gray = DeviceImage::alloc(&ctx, 64, 48, 1)?;
//! image::rgb_to_gray(&ctx, &src, &mut gray)?;
//! let mut soft = DeviceImage::alloc(&ctx, 64, 48, 1)?;
//! image::blur(&ctx, &gray, &mut soft, 2)?;
//! assert_eq!(soft.download()?, image::cpu::blur(&image::cpu::rgb_to_gray(&rgb), 2));
//! # Ok(()) }
//! ```
//!
//! Rounding rules (GPU, emulator and CPU agree bit for bit):
//! * gray = `(21 r + 72 g + 7 b + 50) / 100` in integers
//!   ([`kernels::image::index::gray_of`](ferrotile_kernels::image::index::gray_of));
//! * blur = `(sum + count / 2) / count` over the in-image pixels of the
//!   window, `count` of them (corner at radius 1: 4 of 9).

use ferrotile_kernels as k;
use ferrotile_kernels::image::index::{self as ix, ImageParams, SlideParams, VolumeParams, WindowParams, MAX_BLUR_RADIUS, MAX_TILED_RADIUS};

use crate::{check, Buffer, Context, Error, Result};

/// Largest channel count of an [`Image`].
pub const MAX_CHANNELS: usize = 4;
/// Largest image height: the kernels' thread indices run up to one block
/// past the last row and must fit their 32-bit indices. (Grids taller than
/// the launch limit fold their rows into z: no height that fits in memory
/// is refused for its grid.)
pub const MAX_HEIGHT: usize = u32::MAX as usize - 64;

/// Storage an [`Image`] can live in: host bytes or a device buffer.
pub trait ImageData {
    /// Length in bytes.
    fn byte_len(&self) -> usize;
}

impl ImageData for Vec<u8> {
    fn byte_len(&self) -> usize {
        self.len()
    }
}

impl ImageData for Buffer<u8> {
    fn byte_len(&self) -> usize {
        self.len()
    }
}

/// An 8-bit interleaved image: `height` rows of `width` pixels of
/// `channels` bytes (1: gray, 2: gray + alpha, 3: RGB, 4: RGBA).
///
/// The shape and the byte length always agree, and the kernels rely on it
/// (they index the buffer by the recorded shape). This holds by
/// construction, not by a check at each launch:
/// * the fields are private, so every image comes from [`Image::new`]
///   (which checks the length), [`DeviceImage::alloc`] (which allocates
///   it), or a copy of an image that already holds it
///   ([`DeviceImage::upload`], [`DeviceImage::download`]);
/// * no method hands out the storage mutably (`&mut S`, `&mut Buffer`):
///   a buffer's length can only change by replacing the whole buffer
///   (assignment, [`std::mem::swap`]), which needs exactly that. Device
///   pixels change only through methods that keep the length
///   ([`DeviceImage::fill`], [`DeviceImage::copy_from`], the kernels);
/// * [`Image::into_data`] gives the storage up together with the shape.
///
/// ```compile_fail
/// # let ctx = ferrotile::Context::emulator();
/// let mut img = ferrotile::image::DeviceImage::alloc(&ctx, 4, 4, 1)?;
/// let mut other = ctx.alloc::<u8>(1)?;
/// std::mem::swap(img.data(), &mut other); // `data()` is a shared borrow
/// # Ok::<(), ferrotile::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image<S> {
    width: usize,
    height: usize,
    channels: usize,
    data: S,
}

/// An image in host memory.
pub type HostImage = Image<Vec<u8>>;
/// An image in a device buffer (or the emulator's host buffer).
pub type DeviceImage = Image<Buffer<u8>>;

impl<S: ImageData> Image<S> {
    /// Wraps `data` as a `width × height × channels` image.
    ///
    /// Errors: `width`/`height` zero or too large for the kernels' 32-bit
    /// indices (height ≤ [`MAX_HEIGHT`]); `channels` not in `1..=4`;
    /// `width · height · channels` over `u32::MAX` bytes; `data` of another
    /// length ([`Error::LengthMismatch`]).
    pub fn new(width: usize, height: usize, channels: usize, data: S) -> Result<Self> {
        let bytes = shape_bytes(width, height, channels)?;
        if data.byte_len() != bytes {
            return Err(Error::LengthMismatch { arg: "data", expected: bytes, actual: data.byte_len() });
        }
        Ok(Image { width, height, channels, data })
    }

    /// Pixels per row.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Rows.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Bytes per pixel.
    pub fn channels(&self) -> usize {
        self.channels
    }

    /// The bytes.
    pub fn data(&self) -> &S {
        &self.data
    }

    /// The bytes, giving up the shape.
    pub fn into_data(self) -> S {
        self.data
    }

    fn params(&self, radius: u32) -> ImageParams {
        // In range: checked by `new`.
        ImageParams::new(self.width as u32, self.height as u32, self.channels as u32, radius)
    }

    fn same_shape_as<T>(&self, other: &Image<T>) -> bool {
        (self.width, self.height) == (other.width, other.height)
    }
}

/// Checks a `width × height × channels` shape as [`Image::new`] does
/// (without any data) and returns its byte count: for callers that
/// validate a size before they build the image (the CLI's `--size`).
///
/// Errors: as [`Image::new`], less the length check.
pub fn image_bytes(width: usize, height: usize, channels: usize) -> Result<usize> {
    shape_bytes(width, height, channels)
}

/// Validates a shape and returns its byte count.
fn shape_bytes(width: usize, height: usize, channels: usize) -> Result<usize> {
    check::dim("width", width)?;
    check::dim("height", height)?;
    if height > MAX_HEIGHT {
        return Err(Error::BadArgument { arg: "height", detail: format!("{height} rows, at most {MAX_HEIGHT}") });
    }
    if !(1..=MAX_CHANNELS).contains(&channels) {
        return Err(Error::BadArgument { arg: "channels", detail: format!("{channels}, must be 1 to {MAX_CHANNELS}") });
    }
    let bytes = check::product("width * height * channels", &[width, height, channels])?;
    if bytes > u32::MAX as usize {
        return Err(Error::BadArgument {
            arg: "width * height * channels",
            detail: format!("{bytes} bytes; the kernels index at most {} bytes", u32::MAX),
        });
    }
    Ok(bytes)
}

impl HostImage {
    /// A host image whose pixels are `f(x, y)` (`channels` bytes each).
    pub fn from_fn(width: usize, height: usize, channels: usize, mut f: impl FnMut(usize, usize) -> [u8; 4]) -> Result<Self> {
        let bytes = shape_bytes(width, height, channels)?;
        let mut data = Vec::with_capacity(bytes);
        for y in 0..height {
            for x in 0..width {
                data.extend_from_slice(&f(x, y)[..channels]);
            }
        }
        Image::new(width, height, channels, data)
    }
}

impl DeviceImage {
    /// Copies a host image to `ctx`.
    pub fn upload(ctx: &Context, img: &HostImage) -> Result<Self> {
        Ok(Image { width: img.width, height: img.height, channels: img.channels, data: ctx.upload(&img.data)? })
    }

    /// A zero-filled image on `ctx`.
    pub fn alloc(ctx: &Context, width: usize, height: usize, channels: usize) -> Result<Self> {
        let bytes = shape_bytes(width, height, channels)?;
        Image::new(width, height, channels, ctx.alloc::<u8>(bytes)?)
    }

    /// Copies the image back to the host.
    pub fn download(&self) -> Result<HostImage> {
        Ok(Image { width: self.width, height: self.height, channels: self.channels, data: self.data.download()? })
    }

    /// Sets every byte to `byte` (e.g. a poison before a test run).
    pub fn fill(&mut self, byte: u8) -> Result<()> {
        self.data.fill(byte)
    }

    /// Overwrites the pixels with `data`, which must hold exactly
    /// `width · height · channels` bytes ([`Error::LengthMismatch`] naming
    /// `data` otherwise, the image unchanged).
    pub fn copy_from(&mut self, data: &[u8]) -> Result<()> {
        self.data.copy_from(data)
    }
}

// ---------------------------------------------------------------------------
// Grayscale
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Blur
// ---------------------------------------------------------------------------

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
    /// when the row enters the window) instead of raw column sums: same
    /// shapes as [`BlurVariant::Sliding`].
    SlidingSums,
    /// Vertical running sums over a shared ring of rows and horizontal
    /// prefix sums, a cost per pixel that does not grow with the radius:
    /// 1 to 4 channels, radius 1 to [`WINDOW_MAX_RADIUS`], any width and
    /// height.
    Window,
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
            BlurVariant::Fast => matches!((channels, radius), (1 | 3, 1..=3)),
            BlurVariant::Sliding | BlurVariant::SlidingSums => {
                u32::try_from(width).is_ok_and(|w| ix::slide_supports(w, channels as u32, radius))
            }
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

/// The default strip height of the window rung for `width × height ×
/// channels` at `radius` on `ctx`: strips whose blocks fill one whole wave
/// ([`ix::win_strip_rows`]) where those are at least four prologues tall,
/// else two waves (short images, where the floor of four prologues wins
/// anyway).
pub fn window_strip_rows(ctx: &Context, width: usize, height: usize, channels: usize, radius: u32) -> u32 {
    let c = clamp_u32(channels).clamp(1, 4);
    let r = radius.clamp(1, ix::WIN_MAX_RADIUS);
    let band = ix::win_band(c, r.min(ix::WIN_SEG / (2 * c) - 1)).max(1) as usize;
    let bands = clamp_u32(width.saturating_mul(c as usize).div_ceil(band)).max(1);
    let (h, bps, sms) = (clamp_u32(height), ix::win_blocks_per_sm(r), sm_count(ctx));
    let one = ix::win_strip_rows(bands, h, r, sms, bps, 1);
    let rows = if one >= 4 * ix::win_prologue(r) { one } else { ix::win_strip_rows(bands, h, r, sms, bps, 2) };
    rows.min(WINDOW_MAX_STRIP)
}

/// Tallest strip of the window rung (its step counter is an `i32`).
const WINDOW_MAX_STRIP: u32 = 1 << 30;

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

/// The default strip height of the horizontal-first sliding rung for
/// `width × height × channels` at `radius` on `ctx`: strips that fill 3
/// whole waves of blocks, 2 on small images
/// ([`ix::hslide_default_strip_rows`]).
pub fn sliding_sums_strip_rows(ctx: &Context, width: usize, height: usize, channels: usize, radius: u32) -> u32 {
    let blocks = ix::hslide_blocks_per_sm(clamp_u32(channels), radius);
    ix::hslide_default_strip_rows(slide_chunks(width, channels), clamp_u32(height), sm_count(ctx), blocks)
}

/// [`sliding_sums_strip_rows`] for `waves` waves (the benchmark compares).
#[doc(hidden)]
pub fn sliding_sums_strip_rows_for_waves(ctx: &Context, width: usize, height: usize, channels: usize, radius: u32, waves: u32) -> u32 {
    let blocks = ix::hslide_blocks_per_sm(clamp_u32(channels), radius);
    ix::hslide_strip_rows(slide_chunks(width, channels), clamp_u32(height), sm_count(ctx), blocks, waves)
}

/// The default strip height of the sliding rung for `width × height ×
/// channels` on `ctx` (about [`ix::slide_target_threads`] threads).
pub fn sliding_strip_rows(ctx: &Context, width: usize, height: usize, channels: usize) -> u32 {
    ix::slide_strip_rows(slide_chunks(width, channels), clamp_u32(height), ix::slide_target_threads(sm_count(ctx)))
}

/// SMs of `ctx`'s device (an H200's 132 for the emulator): the strip-height
/// heuristics size their launches by it.
fn sm_count(ctx: &Context) -> u32 {
    ctx.device_info().map_or(132, |d| d.sm_count.max(1) as u32)
}

/// 16-byte chunks of a `width`-pixel row of `channels`, at most
/// `u32::MAX`: the strip-height heuristics take any `usize` arguments (they
/// run before, or without, a shape check), so the product saturates
/// instead of overflowing into a small, wrong count.
fn slide_chunks(width: usize, channels: usize) -> u32 {
    clamp_u32(width.saturating_mul(channels) / ix::SLIDE_CHUNK as usize)
}

/// `v`, or `u32::MAX` where it does not fit.
fn clamp_u32(v: usize) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
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
        (BlurVariant::Fast, 1, 1) => launch!(ctx, ki::blur_fast_gray_r1, ix::blur_fast_config(p), input, output, p),
        (BlurVariant::Fast, 1, 2) => launch!(ctx, ki::blur_fast_gray_r2, ix::blur_fast_config(p), input, output, p),
        (BlurVariant::Fast, 1, 3) => launch!(ctx, ki::blur_fast_gray_r3, ix::blur_fast_config(p), input, output, p),
        (BlurVariant::Fast, 3, 1) => launch!(ctx, ki::blur_fast_rgb_r1, ix::blur_fast_config(p), input, output, p),
        (BlurVariant::Fast, 3, 2) => launch!(ctx, ki::blur_fast_rgb_r2, ix::blur_fast_config(p), input, output, p),
        (BlurVariant::Fast, 3, 3) => launch!(ctx, ki::blur_fast_rgb_r3, ix::blur_fast_config(p), input, output, p),
        (BlurVariant::Fast, ..) => unreachable!("checked by supports()"),
        (BlurVariant::Sliding, c, r) => {
            let strip = strip_rows.unwrap_or_else(|| sliding_strip_rows(ctx, src.width, src.height, c));
            let sp = SlideParams::new(p.width, p.height, p.channels, strip.min(p.height));
            let cfg = ix::blur_slide_config(sp, p.channels, r);
            match (c, r) {
                (1, 1) => launch!(ctx, ki::blur_slide_gray_r1, cfg, input, output, sp),
                (1, 2) => launch!(ctx, ki::blur_slide_gray_r2, cfg, input, output, sp),
                (1, 3) => launch!(ctx, ki::blur_slide_gray_r3, cfg, input, output, sp),
                (3, 1) => launch!(ctx, ki::blur_slide_rgb_r1, cfg, input, output, sp),
                (3, 2) => launch!(ctx, ki::blur_slide_rgb_r2, cfg, input, output, sp),
                (3, 3) => launch!(ctx, ki::blur_slide_rgb_r3, cfg, input, output, sp),
                _ => unreachable!("checked by supports()"),
            }
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
            let cfg = ix::blur_hslide_config(sp, r);
            match (c, r) {
                (1, 1) => launch!(ctx, ki::blur_hslide_gray_r1, cfg, input, output, sp),
                (1, 2) => launch!(ctx, ki::blur_hslide_gray_r2, cfg, input, output, sp),
                (1, 3) => launch!(ctx, ki::blur_hslide_gray_r3, cfg, input, output, sp),
                (3, 1) => launch!(ctx, ki::blur_hslide_rgb_r1, cfg, input, output, sp),
                (3, 2) => launch!(ctx, ki::blur_hslide_rgb_r2, cfg, input, output, sp),
                (3, 3) => launch!(ctx, ki::blur_hslide_rgb_r3, cfg, input, output, sp),
                _ => unreachable!("checked by supports()"),
            }
        }
    }
}

// ---------------------------------------------------------------------------
// 3D
// ---------------------------------------------------------------------------

/// Per-plane affine map of an f32 volume of `[planes, rows, cols]`
/// (row-major, `cols` fastest): `output[p][r][c] = fma(input[p][r][c],
/// scale[p], offset[p])`, on a 3D grid.
///
/// Errors: an extent zero or within a block of `u32::MAX` (`dims`), a
/// buffer of the wrong length, a buffer of another backend. Volumes with
/// more block rows or planes than a grid holds run in grid-sized strides.
pub fn volume_affine(
    ctx: &Context,
    dims: [usize; 3],
    input: &Buffer<f32>,
    scale: &Buffer<f32>,
    offset: &Buffer<f32>,
    output: &mut Buffer<f32>,
) -> Result<()> {
    let planes = check::dim("dims", dims[0])?;
    let rows = check::dim("dims", dims[1])?;
    let cols = check::dim("dims", dims[2])?;
    // Thread indices run up to a block past each extent.
    if dims.iter().any(|&d| d > u32::MAX as usize - 64) {
        return Err(Error::BadArgument { arg: "dims", detail: format!("{dims:?}: an extent is within a block of the kernels' 32-bit indices") });
    }
    let n = check::product("dims", &dims)?;
    let v = VolumeParams { cols, rows, planes };
    let cfg = ix::volume_config(v);
    check::len("input", input, n)?;
    check::len("scale", scale, dims[0])?;
    check::len("offset", offset, dims[0])?;
    check::len("output", output, n)?;
    check::backend(
        ctx,
        &[
            ("input", input.is_on(ctx)),
            ("scale", scale.is_on(ctx)),
            ("offset", offset.is_on(ctx)),
            ("output", output.is_on(ctx)),
        ],
    )?;
    let _op = ctx.op(&[input.tracker(), scale.tracker(), offset.tracker()], &[output.tracker()])?;
    launch!(ctx, k::image::volume_affine, cfg, input, scale, offset, output, v)
}

// ---------------------------------------------------------------------------
// CPU references and the built-in picture
// ---------------------------------------------------------------------------

/// CPU references (rayon): the ground truth of the tests, the same
/// integer rules as the kernels.
pub mod cpu {
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
}

/// A deterministic RGB test picture of `width × height`: a sky gradient,
/// a sun, hills, a checkerboard, coloured bars and thin lines — edges of
/// every direction and scale, so grayscale and blur are easy to judge by
/// eye. Used by the CLI when no input is given.
///
/// Errors: a shape [`Image::new`] refuses for 3 channels —
/// [`Error::BadArgument`] naming `width` or `height` (zero, over the
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn random_image(w: usize, h: usize, c: usize, seed: u64) -> HostImage {
        let mut s = seed;
        HostImage::from_fn(w, h, c, |_, _| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let b = (s >> 24).to_le_bytes();
            [b[0], b[1], b[2], b[3]]
        })
        .unwrap()
    }

    proptest! {
        #[test]
        fn separable_reference_is_the_definition(w in 1usize..20, h in 1usize..20, c in prop::sample::select(vec![1usize, 3]), r in 0u32..6, seed: u64) {
            let img = random_image(w, h, c, seed);
            prop_assert_eq!(cpu::blur(&img, r), cpu::blur_direct(&img, r));
        }
    }

    #[test]
    fn image_launch_bounds_match_the_launched_blocks() {
        // Every image kernel with bounds launches SLIDE_THREADS threads with
        // the rings of the sliding-sums config; n blocks of rings fit an SM.
        for b in k::image::LAUNCH_BOUNDS {
            assert!(b.kernel.starts_with("blur_hslide_"), "{}", b.kernel);
            let r: u32 = b.kernel[b.kernel.rfind("_r").unwrap() + 2..][..1].parse().unwrap();
            let cfg = ix::blur_hslide_config(SlideParams::new(16, 16, 1, 4), r);
            assert_eq!(cfg.threads_per_block(), b.max_threads, "{}", b.kernel);
            assert!(cfg.shared_bytes * b.min_blocks_per_sm <= 227 * 1024, "{}", b.kernel);
        }
        // The window kernels: their block, and the blocks their bounds
        // promise fit the shared memory at radius 32.
        for b in k::image::WINDOW_LAUNCH_BOUNDS {
            let cfg = ix::blur_window_config(WindowParams::new(100, 100, 1, 32, 8));
            assert_eq!(cfg.threads_per_block(), b.max_threads, "{}", b.kernel);
            assert!((cfg.shared_bytes + 1024) * b.min_blocks_per_sm <= 228 * 1024, "{}", b.kernel);
            assert_eq!(ix::win_blocks_per_sm(32), b.min_blocks_per_sm);
        }
        for c in [1usize, 3] {
            for r in 1..=3 {
                let name = format!("blur_hslide_{}_r{r}", if c == 1 { "gray" } else { "rgb" });
                let b = k::launch::LAUNCH_BOUNDS.iter().find(|b| b.kernel == name).expect("default kernels have bounds");
                assert_eq!(b.min_blocks_per_sm, ix::hslide_blocks_per_sm(c as u32, r));
            }
        }
    }

    #[test]
    fn shapes_are_validated() {
        assert!(matches!(HostImage::new(0, 1, 1, vec![]), Err(Error::BadArgument { arg: "width", .. })));
        assert!(matches!(HostImage::new(1, 0, 1, vec![]), Err(Error::BadArgument { arg: "height", .. })));
        assert!(matches!(HostImage::new(1, 1, 5, vec![0; 5]), Err(Error::BadArgument { arg: "channels", .. })));
        assert!(matches!(
            HostImage::new(2, 2, 3, vec![0; 11]),
            Err(Error::LengthMismatch { arg: "data", expected: 12, actual: 11 })
        ));
        assert!(matches!(
            HostImage::new(70_000, 70_000, 1, vec![]),
            Err(Error::BadArgument { arg: "width * height * channels", .. })
        ));
    }

    #[test]
    fn builtin_image_has_the_asked_shape() {
        let img = builtin_test_image(62, 76).unwrap();
        assert_eq!((img.width(), img.height(), img.channels(), img.data().len()), (62, 76, 3, 62 * 76 * 3));
    }

    #[test]
    fn builtin_image_refuses_bad_sizes_instead_of_panicking_or_clamping() {
        let arg = |r: Result<HostImage>| match r {
            Err(Error::BadArgument { arg, .. }) => arg,
            other => panic!("expected BadArgument, got {other:?}"),
        };
        assert_eq!(arg(builtin_test_image(0, 5)), "width");
        assert_eq!(arg(builtin_test_image(5, 0)), "height");
        assert_eq!(arg(builtin_test_image(0, 0)), "width");
        assert_eq!(arg(builtin_test_image(1, MAX_HEIGHT + 1)), "height");
        assert_eq!(arg(builtin_test_image(100_000, 100_000)), "width * height * channels");
        assert_eq!(arg(builtin_test_image(usize::MAX, 1)), "width");
        // The same rule as image_bytes (what the CLI checks --size with).
        assert!(image_bytes(100_000, 100_000, 3).is_err());
        assert_eq!(image_bytes(37, 23, 3), Ok(37 * 23 * 3));
    }

    #[test]
    fn strip_heights_saturate_on_huge_widths() {
        // A row of 2^63 pixels of 2 channels wrapped a usize product to 0
        // chunks (then the shortest strips); it is the widest row there is,
        // as wide as u32::MAX chunks: one strip for the sliding sums
        // (more chunks than threads), the tallest strips for the sliding rung.
        let ctx = Context::emulator();
        let (height, widest) = (1000, u32::MAX as usize * ix::SLIDE_CHUNK as usize);
        for (width, channels) in [(1usize << 63, 2usize), (1 << 62, 4), (usize::MAX, 3), (usize::MAX / 3 + 1, 3), (usize::MAX, usize::MAX)] {
            let c = channels.min(4);
            assert_eq!(sliding_strip_rows(&ctx, width, height, channels), ix::SLIDE_STRIP_RANGE[1], "{width} x {channels}");
            assert_eq!(sliding_strip_rows(&ctx, width, height, channels), sliding_strip_rows(&ctx, widest, height, c));
            for r in 1..=3 {
                assert_eq!(sliding_sums_strip_rows(&ctx, width, height, channels, r), height as u32, "{width} x {channels}, r {r}");
                assert_eq!(
                    sliding_sums_strip_rows_for_waves(&ctx, width, height, channels, r, 2),
                    sliding_sums_strip_rows_for_waves(&ctx, widest, height, c, r, 2)
                );
            }
        }
        // Huge heights saturate too.
        assert_eq!(sliding_sums_strip_rows(&ctx, widest, usize::MAX, 1, 1), u32::MAX);
    }

    #[test]
    fn device_image_writes_keep_the_shape() {
        let ctx = Context::emulator();
        let (w, h, c) = (37, 23, 3);
        let n = w * h * c;
        let mut img = DeviceImage::alloc(&ctx, w, h, c).unwrap();
        img.fill(0xAB).unwrap();
        assert_eq!(img.download().unwrap().data(), &vec![0xAB; n]);
        let pixels = random_image(w, h, c, 7);
        img.copy_from(pixels.data()).unwrap();
        assert_eq!(img.download().unwrap(), pixels);
        for wrong in [0, 1, n - 1, n + 1, 2 * n] {
            assert_eq!(img.copy_from(&vec![0x11; wrong]), Err(Error::LengthMismatch { arg: "data", expected: n, actual: wrong }));
            assert_eq!(img.download().unwrap(), pixels, "a refused copy leaves the pixels as they were");
        }
        assert_eq!((img.width(), img.height(), img.channels(), img.data().len()), (w, h, c, n));
        // The kernels index by the recorded shape: still in bounds, still exact.
        let mut out = DeviceImage::alloc(&ctx, w, h, c).unwrap();
        out.fill(0x54).unwrap();
        blur_with(&ctx, BlurVariant::Naive, &img, &mut out, 2).unwrap();
        assert_eq!(out.download().unwrap(), cpu::blur(&pixels, 2));
    }
}
