//! All kernel test cases, one file per kernel family.

use crate::common::Case;

mod foundation;
mod sgemm;

/// Every case of every family.
pub fn all() -> Vec<Case> {
    let mut v = Vec::new();
    v.extend(foundation::cases());
    v.extend(sgemm::cases());
    v
}
