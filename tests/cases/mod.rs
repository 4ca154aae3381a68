//! All kernel test cases, one file per kernel family.

use crate::common::Case;

mod api_props;
mod bad_input;
mod context;
mod interop;
mod foundation;
mod transpose;
mod image;
mod mma;
pub mod multi;
mod wgmma;
mod sgemm;
mod stress;
mod streams;
// The warp probes are built with the experiment kernels.
#[cfg(feature = "experiments")]
mod warp;

/// Every case of every family.
pub fn all() -> Vec<Case> {
    let mut v = Vec::new();
    v.extend(bad_input::cases());
    v.extend(api_props::cases());
    v.extend(context::cases());
    v.extend(interop::cases());
    v.extend(foundation::cases());
    v.extend(transpose::cases());
    v.extend(image::cases());
    v.extend(sgemm::cases());
    #[cfg(feature = "experiments")]
    v.extend(warp::cases());
    v.extend(mma::cases());
    v.extend(wgmma::cases());
    v.extend(stress::cases());
    v.extend(streams::cases());
    v
}
