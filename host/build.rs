//! Deflates the committed PTX so that every binary embeds a few hundred KB
//! instead of several MB of text (see `backend::ptx_sm80`).

use std::path::PathBuf;

fn main() {
    let src = PathBuf::from("ptx/sm_80.ptx");
    println!("cargo::rerun-if-changed={}", src.display());
    let text = std::fs::read(&src).unwrap_or_else(|e| {
        panic!("cannot read {}: {e} (run `cargo xtask build-ptx`)", src.display())
    });
    let packed = miniz_oxide::deflate::compress_to_vec(&text, 9);
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("sm_80.ptx.deflate");
    std::fs::write(&out, packed).unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
}
