//! Matrix transpose ladder: `out (nx, ny) = in (ny, nx)ᵀ`, both row-major.
//!
//! The input has `ny` rows of `nx` elements; the output has `nx` rows of
//! `ny`. Every rung maps threads to coordinates through [`index`].

pub mod index;
mod naive;

pub use naive::*;
