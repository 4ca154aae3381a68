//! PMPP chapter 3 image kernels: RGB → grayscale, box blur, and a 3D
//! `(plane, row, col)` kernel.
//!
//! Images are row-major, interleaved, 8 bits per channel: pixel `(y, x)`
//! channel `c` of a `width × height × channels` image is byte
//! `(y * width + x) * channels + c` ([`index::pixel_layout`]).
//!
//! Every kernel here is exact: the CPU references in the host crate compute
//! the same integers (see [`index::gray_of`] and
//! [`index::div_round_half_up`] for the two rounding rules).
//!
//! Rungs:
//! * grayscale: [`rgb_to_gray`] (PMPP, one thread per pixel, 16 × 16
//!   blocks) → [`rgb_to_gray_vec16`] (16 pixels per thread, three 16-byte
//!   loads and one 16-byte store);
//! * blur: [`blur_naive`] (PMPP, one thread per pixel, every window pixel
//!   from global memory) → [`blur_tiled`] (shared-memory tile with halo) →
//!   `blur_fast_*` (separable sums over a shared tile, 16 bytes per thread,
//!   constant radius) → `blur_slide_*` (one thread per 16-byte column
//!   chunk of a strip of rows, sliding column sums in registers, no
//!   barrier) → `blur_hslide_*` (the same threads sliding each row's
//!   horizontal sums, summed once when the row enters) → `blur_window_c*`
//!   (any radius, width and channel count: vertical running sums in
//!   registers, horizontal prefix sums, a cost per pixel that does not
//!   grow with the radius);
//! * 3D: [`volume_affine`] over `(plane, row, col)`.

mod blur;
mod gray;
mod hslide;
pub mod index;
mod slide;
mod volume;
mod window;

pub use blur::*;
pub use gray::*;
pub use hslide::*;
pub use index::{ImageParams, SlideParams, VolumeParams, WindowParams};
pub use slide::*;
pub use volume::*;
pub use window::*;
