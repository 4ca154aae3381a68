//! Deflates the committed PTX and its cubins so that every binary embeds
//! them in a fraction of their size (see `backend::PTX_MODULES`): the
//! sm_80 and sm_90a modules always, the experiments module with the
//! `experiments` feature.

use std::path::PathBuf;

fn deflate_file(file: &str) {
    let src = PathBuf::from(format!("ptx/{file}"));
    println!("cargo::rerun-if-changed={}", src.display());
    let data = std::fs::read(&src).unwrap_or_else(|e| panic!("cannot read {}: {e} (run `cargo xtask build-ptx`)", src.display()));
    let packed = miniz_oxide::deflate::compress_to_vec(&data, 9);
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join(format!("{}.deflate", file.replace('/', "-")));
    std::fs::write(&out, packed).unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
}

/// The module's PTX and the cubins ptxas made of it for `archs`
/// (`ptx/<name>.<arch>.cubin`, written by `cargo xtask build-ptx`).
fn deflate(name: &str, archs: &[&str]) {
    deflate_file(&format!("{name}.ptx"));
    for arch in archs {
        deflate_file(&format!("{name}.{arch}.cubin"));
    }
}

fn main() {
    deflate("sm_80", &["sm_80", "sm_90"]);
    deflate("sm_90a", &["sm_90a"]);
    // The kernels crate says whether it compiled the experiments (see its
    // build.rs); the host follows it, whatever its own features.
    println!("cargo::rustc-check-cfg=cfg(ferrotile_experiments)");
    // Set for the kernels crate's sm_90a PTX build only; the tables' gates
    // name it.
    println!("cargo::rustc-check-cfg=cfg(ferrotile_sm90a)");
    if std::env::var_os("DEP_FERROTILE_KERNELS_EXPERIMENTS").is_some() {
        println!("cargo::rustc-cfg=ferrotile_experiments");
        deflate("experiments/sm_80", &["sm_80", "sm_90"]);
    }
}
