//! ferrotile device code.
//!
//! This crate is compiled twice:
//!
//! * for `nvptx64-nvidia-cuda` (`cargo xtask build-ptx`), where every kernel
//!   defined with [`kernel!`] becomes a `.entry` in the PTX that the host
//!   crate embeds;
//! * for the host, where the same kernel bodies run on the CPU emulator
//!   ([`arch::emu`]) with GPU semantics: blocks, threads, barriers, dynamic
//!   shared memory, bounds checks on every global access and race detection
//!   on shared memory.
//!
//! Index math lives in [`layout`] and in the small launch-geometry functions
//! of each kernel family; the host launcher calls the same functions.
//!
//! The device build needs nightly Rust (the PTX target's unstable features,
//! `portable_simd`, `core_float_math`); the host build uses none, so the
//! `ferrotile` crate builds on stable (its vector types are in
//! [`arch::simd`]).
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(
        abi_ptx,
        stdarch_nvptx,
        gpu_intrinsics,
        gpu_launch_sized_workgroup_mem,
        core_intrinsics,
        asm_experimental_arch
    )
)]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]
#![cfg_attr(target_arch = "nvptx64", feature(portable_simd, core_float_math))]
#![deny(missing_docs)]
#![allow(unused_features)]
// Device code keeps three forms clippy would rewrite, for the PTX they
// give: `x % n == 0` (`is_multiple_of` adds a zero-divisor check to every
// runtime divisor), loops indexing register arrays by a counter (fully
// unrolled to fixed registers; the iterator forms are not always), and
// kernels and device helpers that take every operand as an argument. And
// `kernel!` puts a kernel's body in an unsafe block by design (its docs).
#![allow(
    clippy::manual_is_multiple_of,
    clippy::needless_range_loop,
    clippy::too_many_arguments,
    clippy::macro_metavars_in_unsafe
)]

#[cfg(not(target_arch = "nvptx64"))]
extern crate std;

pub mod arch;
pub mod launch;
pub mod layout;
pub mod numeric;

pub mod image;
pub mod gemm;
pub mod transpose;
pub mod variants;
pub mod vec_add;
// GPU probes of the warp instructions: test support, built with the
// experiment kernels (their own PTX module), not shipped.
#[cfg(ferrotile_experiments)]
pub mod warp_probe;

/// Every kernel with launch bounds (read by the PTX linker in `xtask`):
/// the families' tables, concatenated. Kept here, at the crate root, so
/// that [`launch`] depends on no family.
pub const LAUNCH_BOUNDS: &[launch::LaunchBounds] = {
    const PARTS: &[&[launch::LaunchBounds]] = &[
        gemm::simt::LAUNCH_BOUNDS,
        gemm::mma::MmaKernel::BOUNDS,
        gemm::wgmma::WgmmaKernel::BOUNDS,
        image::LAUNCH_BOUNDS,
        image::experiments::LAUNCH_BOUNDS,
        image::WINDOW_LAUNCH_BOUNDS,
        transpose::LAUNCH_BOUNDS,
    ];
    &variants::concat_bounds::<{ variants::total_len(PARTS) }>(PARTS)
};


#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // A failed bounds check or assertion in a kernel aborts the launch; the
    // host sees CUDA_ERROR_LAUNCH_FAILED / ILLEGAL_INSTRUCTION.
    unsafe { core::arch::nvptx::trap() }
}

/// Defines a kernel once for both targets.
///
/// On `nvptx64` the function becomes `#[no_mangle] unsafe extern "ptx-kernel"`
/// (a PTX `.entry` of the same name); on the host it is a plain `unsafe fn`
/// that the emulator calls once per GPU thread. The body is an implicit
/// `unsafe` block: the launcher, not the kernel, guarantees that the
/// [`arch::Global`] buffers hold the lengths it validated.
#[macro_export]
macro_rules! kernel {
    ($(#[$meta:meta])* pub fn $name:ident($($arg:ident : $ty:ty),* $(,)?) $body:block) => {
        $(#[$meta])*
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        #[allow(clippy::missing_safety_doc)]
        pub unsafe extern "ptx-kernel" fn $name($($arg: $ty),*) {
            #[allow(unused_unsafe)]
            unsafe { $body }
        }

        $(#[$meta])*
        #[cfg(not(target_arch = "nvptx64"))]
        #[allow(clippy::missing_safety_doc, clippy::too_many_arguments)]
        pub unsafe fn $name($($arg: $ty),*) {
            #[allow(unused_unsafe)]
            unsafe { $body }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_bounds_are_unique_and_fit_an_sm() {
        for (i, b) in LAUNCH_BOUNDS.iter().enumerate() {
            assert!(LAUNCH_BOUNDS[..i].iter().all(|o| o.kernel != b.kernel), "{} twice", b.kernel);
            assert!(b.max_threads % 32 == 0 && b.max_threads <= 1024, "{b:?}");
            assert!(b.max_threads * b.min_blocks_per_sm <= 2048, "{b:?}: more threads than an SM holds");
            assert!(b.register_cap() >= 64, "{b:?}: too few registers for a register-tiled kernel");
        }
    }
}
