//! `cargo xtask cuda-stub`: a link-only stand-in for a CUDA installation,
//! so that ferrotile's `cust` feature builds where CUDA is not installed
//! (CI, this machine). The `cust` crate's build script wants a CUDA root
//! (`CUDA_LIBRARY_PATH` with a `lib64/` folder) and links `libcuda`; the
//! stand-in is `lib64/libcuda.so` with every driver function `cust_raw`
//! declares, each returning `CUDA_ERROR_UNKNOWN`, and the soname of the real
//! driver (`libcuda.so.1`), so a program linked against it loads the real
//! driver where there is one. The same role as the `stubs/libcuda.so` of
//! NVIDIA's toolkit, written here because the toolkit is not installed.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::util;

/// Where the stand-in goes unless told.
pub const DEFAULT_DIR: &str = "target/cuda-stub";

/// The driver functions `cust_raw`'s bindings declare (`pub fn cuXxx(`).
fn driver_functions(bindings: &str) -> Vec<String> {
    let mut names: Vec<String> = bindings
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("pub fn "))
        .filter_map(|rest| rest.split('(').next())
        .map(str::trim)
        .filter(|n| n.starts_with("cu") && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .map(String::from)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// `cust_raw`'s source folder, from `cargo metadata` with the feature on.
fn cust_raw_dir() -> Result<PathBuf> {
    let out = util::stdout_of(util::cargo().args(["metadata", "--format-version", "1", "--features", "ferrotile/cust"]))?;
    let meta: serde_json::Value = serde_json::from_str(&out).context("parsing cargo metadata")?;
    let packages = meta["packages"].as_array().context("cargo metadata: no packages")?;
    for p in packages {
        if p["name"] == "cust_raw" {
            let manifest = p["manifest_path"].as_str().context("cust_raw: no manifest_path")?;
            return Ok(Path::new(manifest).parent().context("cust_raw: manifest without a folder")?.to_path_buf());
        }
    }
    bail!("cargo metadata lists no cust_raw (is ferrotile's `cust` feature there?)")
}

/// Writes `dir/include/cuda.h` (empty) and `dir/lib64/libcuda.so`, and
/// prints the environment that points cust's build script at them.
pub fn cuda_stub(dir: &Path) -> Result<()> {
    let raw = cust_raw_dir()?;
    let bindings = util::read(&raw.join("src/cuda.rs"))?;
    let names = driver_functions(&String::from_utf8_lossy(&bindings));
    if names.len() < 100 {
        bail!("{}: only {} driver functions found; has the bindings' layout changed?", raw.display(), names.len());
    }
    let mut c = String::from("/* written by `cargo xtask cuda-stub`: link-only stand-ins */\n");
    for n in &names {
        writeln!(c, "int {n}(void) {{ return 999; }}")?;
    }
    util::create_dir_all(&dir.join("include"))?;
    util::create_dir_all(&dir.join("lib64"))?;
    util::write(&dir.join("include/cuda.h"), b"/* cargo xtask cuda-stub: not the real header */\n")?;
    let src = dir.join("libcuda-stub.c");
    util::write(&src, c.as_bytes())?;
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    util::run(
        Command::new(&cc)
            .args(["-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o"])
            .arg(dir.join("lib64/libcuda.so"))
            .arg(&src),
    )
    .with_context(|| format!("compiling the stand-in with `{cc}` (set CC to another C compiler)"))?;
    let abs = std::fs::canonicalize(dir)?;
    println!("{}: {} driver functions", dir.join("lib64/libcuda.so").display(), names.len());
    println!("export CUDA_LIBRARY_PATH={}", abs.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_declared_driver_functions_only() {
        let text = "extern \"C\" {\n    pub fn cuInit(Flags: ::std::os::raw::c_uint) -> CUresult;\n}\n\
                    pub fn helper() {}\n    pub fn cuMemAlloc_v2(\n        dptr: *mut CUdeviceptr,\n    ) -> CUresult;\n    pub fn cuInit(x: u32) -> CUresult;\n";
        assert_eq!(driver_functions(text), ["cuInit", "cuMemAlloc_v2"]);
    }
}
