//! What the emulator's own tests share.

use super::device::Global;
use super::EmuError;
use std::string::String;

/// The fault message of a launch expected to fault (panics otherwise).
pub(super) fn fault<T: core::fmt::Debug>(r: Result<T, EmuError>) -> String {
    match r {
        Err(EmuError::Fault(m)) => m,
        other => panic!("expected a fault, got {other:?}"),
    }
}

/// A device view of `v` named `name` for an emulated launch.
pub(super) fn global<T: Copy>(v: &mut [T], name: &'static str) -> Global<T> {
    // SAFETY: the callers' vectors outlive the launches that use the view.
    unsafe { Global::from_raw_parts(v.as_mut_ptr(), v.len(), name) }
}
