//! `cargo xtask test`: the project's one test command.

use std::path::Path;
use std::process::Command;

use crate::util::{self, Result, fail};
use crate::{ptx, ptxas};

/// What the kernels build needs from the toolchain besides rustc.
fn missing_components(sysroot: &Path) -> Vec<&'static str> {
    let mut missing = Vec::new();
    let core_src = sysroot.join("lib/rustlib/src/rust/library/core/Cargo.toml");
    if !core_src.is_file() {
        missing.push("rust-src");
    }
    if util::llvm_tools_dir(sysroot).is_none() {
        missing.push("llvm-tools");
    }
    missing
}

/// Makes sure rust-src and llvm-tools are installed (with rustup if not).
pub fn ensure_components() -> Result<()> {
    let sysroot = util::sysroot()?;
    let missing = missing_components(&sysroot);
    if missing.is_empty() {
        println!(
            "toolchain {}: rust-src and llvm-tools present",
            sysroot.display()
        );
        return Ok(());
    }
    println!(
        "toolchain {}: missing {}; adding with rustup",
        sysroot.display(),
        missing.join(", ")
    );
    util::run(
        Command::new("rustup")
            .args(["component", "add"])
            .args(&missing),
    )?;
    let still = missing_components(&sysroot);
    if still.is_empty() {
        Ok(())
    } else {
        fail(format!(
            "toolchain {} still lacks {} after `rustup component add`",
            sysroot.display(),
            still.join(", ")
        ))
    }
}

fn heading(step: usize, of: usize, what: &str) {
    println!("\n==> [{step}/{of}] {what}");
}

/// `cargo xtask test [-- ARGS]`. A failing phase does not stop the later
/// ones (CI output then shows everything); the toolchain check does.
pub fn test(args: &[String]) -> Result<()> {
    let extra = match args.first() {
        Some(first) if first == "--" => &args[1..],
        _ => args,
    };
    let mut failed = Vec::new();

    heading(1, 4, "toolchain components (rust-src, llvm-tools)");
    ensure_components()?;

    heading(2, 4, "ptxas (PyPI nvidia-cuda-nvcc-cu12)");
    match ptxas::ensure_ptxas() {
        Ok(path) => println!("ptxas: {}", path.display()),
        Err(e) => {
            eprintln!("error: {e}");
            failed.push("ptxas install");
        }
    }

    heading(3, 4, "check-ptx: committed PTX up to date, ptxas report");
    if failed.is_empty() {
        if let Err(e) = ptx::check() {
            eprintln!("error: {e}");
            failed.push("check-ptx");
        }
    } else {
        println!("skipped: no ptxas");
        failed.push("check-ptx");
    }

    let mut cmd = util::cargo();
    cmd.args(["test", "--workspace", "--release"]).args(extra);
    heading(
        4,
        4,
        &format!("cargo test --workspace --release {}", extra.join(" ")).trim_end(),
    );
    if let Err(e) = util::run(&mut cmd) {
        eprintln!("error: {e}");
        failed.push("cargo test");
    }

    if failed.is_empty() {
        println!("\nxtask test: all phases passed");
        Ok(())
    } else {
        fail(format!(
            "xtask test: failed phase(s): {}",
            failed.join(", ")
        ))
    }
}
