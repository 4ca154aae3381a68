//! Publishes whether this build includes the experiment kernels (feature
//! `experiments`) as the cfg `ferrotile_experiments`, here and, through
//! the `links` metadata, to the host crate. The host then gates its enum
//! variants and its experiments PTX module on what this crate really
//! compiled, even when cargo unifies features across a workspace build
//! (xtask always builds this crate with the experiments, for their launch
//! bounds).
//!
//! `ferrotile_sm90a` is set by `cargo xtask build-ptx` (a `--cfg`) for the
//! sm_90a module only: the Hopper kernels are compiled there (and for the
//! host's emulator), never into the sm_80 PTX.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(ferrotile_experiments)");
    println!("cargo::rustc-check-cfg=cfg(ferrotile_sm90a)");
    if std::env::var_os("CARGO_FEATURE_EXPERIMENTS").is_some() {
        println!("cargo::rustc-cfg=ferrotile_experiments");
        println!("cargo::metadata=experiments=1");
    }
}
