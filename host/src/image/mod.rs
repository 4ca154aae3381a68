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

// The module by concern: this file holds the image types and their
// constructors; `gray.rs` the grayscale rungs; `blur.rs` the blur rungs
// (variant, Auto choice, validation, launch); `strips.rs` the strip-height
// heuristics of the sliding and window rungs; `experiments.rs` the
// benchmark-only experiment kernels; `volume.rs` the 3D kernel; `cpu.rs`
// the CPU references; `test_image.rs` the built-in picture.

use ferrotile_kernels::image::index::ImageParams;

use crate::{check, Buffer, Context, Error, PinnedBuffer, Result};

mod blur;
pub mod cpu;
mod experiments;
mod gray;
mod strips;
mod test_image;
mod volume;
#[cfg(test)]
mod tests;

pub use blur::{blur, blur_sliding, blur_strips, blur_window, blur_with, BlurVariant, WINDOW_MAX_RADIUS};
#[doc(hidden)]
pub use experiments::{blur_sliding_prefetch, blur_sliding_sums_experiment};
pub use gray::{rgb_to_gray, rgb_to_gray_with, GrayVariant};
#[doc(hidden)]
pub use strips::sliding_sums_strip_rows_for_waves;
pub use strips::{sliding_strip_rows, sliding_sums_strip_rows, window_strip_rows};
pub use test_image::builtin_test_image;
pub use volume::volume_affine;

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

impl ImageData for PinnedBuffer<u8> {
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
/// An image in page-locked host memory of one context
/// ([`Context::alloc_pinned`]): the device copies it without a staging
/// copy ([`crate::multi::process_pinned_batch`]).
pub type PinnedImage = Image<PinnedBuffer<u8>>;

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

impl HostImage {
    /// The pixel bytes, to write in place (their number is fixed by the
    /// image's shape).
    pub fn data_mut(&mut self) -> &mut [u8] {
        &mut self.data
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

impl PinnedImage {
    /// A zero-filled image in page-locked memory of `ctx` (slow to
    /// allocate, like every pinned buffer: allocate once, reuse).
    pub fn alloc(ctx: &Context, width: usize, height: usize, channels: usize) -> Result<Self> {
        let bytes = shape_bytes(width, height, channels)?;
        Image::new(width, height, channels, ctx.alloc_pinned::<u8>(bytes)?)
    }

    /// The pixel bytes, once every copy into them has finished (waits).
    pub fn pixels(&self) -> Result<&[u8]> {
        self.data.as_slice()
    }

    /// The pixel bytes, to write in place, once every copy that uses them
    /// has finished (waits).
    pub fn pixels_mut(&mut self) -> Result<&mut [u8]> {
        self.data.as_mut_slice()
    }

    /// The pinned buffer, for copies that keep its length
    /// ([`Context::download_async`] checks it).
    pub(crate) fn pinned_mut(&mut self) -> &mut PinnedBuffer<u8> {
        &mut self.data
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
