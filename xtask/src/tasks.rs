//! `cargo xtask test`: the project's one test command.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, anyhow, bail};

use crate::util;
use crate::{ptx, ptxas};

/// What the kernels build (rust-src, llvm-tools) and the lint phase
/// (clippy) need from the toolchain besides rustc.
fn missing_components(sysroot: &Path) -> Vec<&'static str> {
    let mut missing = Vec::new();
    let core_src = sysroot.join("lib/rustlib/src/rust/library/core/Cargo.toml");
    if !core_src.is_file() {
        missing.push("rust-src");
    }
    if util::llvm_tools_dir(sysroot).is_none() {
        missing.push("llvm-tools");
    }
    if !sysroot.join("bin").join(format!("cargo-clippy{}", std::env::consts::EXE_SUFFIX)).is_file() {
        missing.push("clippy");
    }
    missing
}

/// Makes sure rust-src, llvm-tools and clippy are installed (with rustup
/// if not).
pub fn ensure_components() -> Result<()> {
    let sysroot = util::sysroot()?;
    let missing = missing_components(&sysroot);
    if missing.is_empty() {
        println!(
            "toolchain {}: rust-src, llvm-tools and clippy present",
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
        Err(anyhow!(
            "toolchain {} still lacks {} after `rustup component add`",
            sysroot.display(),
            still.join(", ")
        ))
    }
}

/// The phases of `cargo xtask test`, for the headings.
const PHASES: usize = 13;

fn heading(step: usize, of: usize, what: &str) {
    println!("\n==> [{step}/{of}] {what}");
}

/// `cargo xtask test [-- ARGS]` (`extra`: the ARGS). A failing phase does
/// not stop the later ones (CI output then shows everything); the toolchain
/// check does.
pub fn test(extra: &[String]) -> Result<()> {
    let mut failed = Vec::new();

    heading(1, PHASES, "toolchain components (rust-src, llvm-tools, clippy)");
    ensure_components()?;

    heading(2, PHASES, "ptxas (PyPI nvidia-cuda-nvcc-cu12)");
    let have_ptxas = match ptxas::ensure_ptxas() {
        Ok(path) => {
            println!("ptxas: {}", path.display());
            true
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            failed.push("ptxas install");
            false
        }
    };

    heading(3, PHASES, "report --check: RESULTS.md and the generated tables of BENCHMARKS.md/README.md match docs/results/");
    if let Err(e) = crate::report::report(&[], Path::new("docs/RESULTS.md"), Path::new("docs/charts"), true) {
        eprintln!("error: {e:#}");
        failed.push("report --check");
    }

    heading(4, PHASES, "check-ptx: committed PTX up to date, ptxas report");
    if have_ptxas {
        if let Err(e) = ptx::check() {
            eprintln!("error: {e:#}");
            failed.push("check-ptx");
        }
    } else {
        println!("skipped: no ptxas");
        failed.push("check-ptx");
    }

    // Three test runs, each with its own feature set: the workspace as a
    // user of the library gets it (xtask excluded: it builds the kernels
    // crate with its experiments, for their launch bounds, and cargo would
    // unify that into the others); xtask's own tests; and the kernel tests
    // once more with the experiment kernels (feature `experiments`, their
    // own PTX module) built in, and the device-fault test, whose trap
    // kernel is one of those.
    let runs: [(&str, Vec<&str>); 3] = [
        ("cargo test", vec!["test", "--workspace", "--exclude", "xtask", "--release"]),
        ("cargo test -p xtask", vec!["test", "--release", "-p", "xtask"]),
        (
            "cargo test --features experiments",
            vec!["test", "--release", "-p", "ferrotile-cli", "--test", "kernels", "--test", "device_fault", "--features", "experiments"],
        ),
    ];
    let mut totals = TestTotals::default();
    for (i, (phase, args)) in runs.iter().enumerate() {
        let mut cmd = util::cargo();
        cmd.args(args).args(extra);
        heading(5 + i, PHASES, format!("{} {}", args.join(" "), extra.join(" ")).trim_end());
        match run_counting(&mut cmd) {
            Ok(t) => {
                totals.passed += t.passed;
                totals.failed += t.failed;
                totals.ignored += t.ignored;
            }
            Err(e) => {
                eprintln!("error: {e:#}");
                failed.push(*phase);
            }
        }
    }

    // The API docs: every public item documented (the library crates deny
    // missing_docs), no broken link or bad HTML; their examples ran as
    // doc-tests in the first test run.
    heading(8, PHASES, "RUSTDOCFLAGS=-D warnings cargo doc --no-deps --workspace --features experiments");
    let mut doc = util::cargo();
    doc.args(["doc", "--no-deps", "--workspace", "--features", "experiments"]).env("RUSTDOCFLAGS", "-D warnings");
    if let Err(e) = util::run(&mut doc) {
        eprintln!("error: {e:#}");
        failed.push("cargo doc");
    }

    heading(9, PHASES, "examples (cargo run --release --example NAME, each checks its results)");
    match examples() {
        Ok(names) => {
            let mut any_failed = false;
            for name in names {
                let mut cmd = util::cargo();
                cmd.args(["run", "--release", "-p", "ferrotile-cli", "--example", &name]);
                println!("$ {}", util::show(&cmd));
                if let Err(e) = util::run(&mut cmd) {
                    eprintln!("error: {e:#}");
                    any_failed = true;
                }
            }
            if any_failed {
                failed.push("examples");
            }
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            failed.push("examples");
        }
    }

    heading(10, PHASES, "ci/downstream: a crate outside the workspace on stable Rust");
    if let Err(e) = downstream() {
        eprintln!("error: {e:#}");
        failed.push("downstream (stable)");
    }

    heading(11, PHASES, "feature `cust`: tests/cust_interop.rs built and the API documented against `cargo xtask cuda-stub` (it runs on a GPU only)");
    if let Err(e) = cust_feature() {
        eprintln!("error: {e:#}");
        failed.push("cust feature");
    }

    heading(12, PHASES, "cargo package of the public crates (no warning allowed)");
    if let Err(e) = package() {
        eprintln!("error: {e:#}");
        failed.push("package");
    }

    // Lints: the host code, tests, benches, examples and xtask, and the
    // kernels crate as the host builds it (its device-only allowances are
    // at its root, each with its reason).
    heading(13, PHASES, "cargo clippy --workspace --all-targets --release -- -D warnings");
    let mut clippy = util::cargo();
    clippy.args(["clippy", "--workspace", "--all-targets", "--release", "--", "-D", "warnings"]);
    if let Err(e) = util::run(&mut clippy) {
        eprintln!("error: {e:#}");
        failed.push("clippy");
    }

    // The closing line: totals of every libtest binary (`skipped` are the
    // `cuda::` tests on a machine without a GPU).
    let closing = format!(
        "tests: {} passed, {} failed, {} skipped",
        totals.passed, totals.failed, totals.ignored
    );
    if failed.is_empty() {
        println!("\nxtask test: all phases passed");
        println!("{closing}");
        Ok(())
    } else {
        println!("{closing}");
        Err(anyhow!(
            "xtask test: failed phase(s): {}",
            failed.join(", ")
        ))
    }
}

/// The `cust` feature: cust's build script needs a CUDA installation and
/// links libcuda, so it builds against the stand-in of `cargo xtask
/// cuda-stub`; the test binary needs the real driver to start (GPU bundle).
fn cust_feature() -> Result<()> {
    let dir = Path::new(crate::cuda_stub::DEFAULT_DIR);
    crate::cuda_stub::cuda_stub(dir)?;
    let root = std::fs::canonicalize(dir)?;
    let mut build = util::cargo();
    build.args(["test", "--release", "--features", "cust", "--test", "cust_interop", "--no-run"]).env("CUDA_LIBRARY_PATH", &root);
    util::run(&mut build)?;
    let mut doc = util::cargo();
    doc.args(["doc", "--no-deps", "-p", "ferrotile", "--features", "cust"])
        .env("CUDA_LIBRARY_PATH", &root)
        .env("RUSTDOCFLAGS", "-D warnings");
    util::run(&mut doc)
}

/// The crate that uses ferrotile as an application would, from outside the
/// workspace.
const DOWNSTREAM: &str = "ci/downstream";

/// Builds and runs `ci/downstream` with the toolchain of its own
/// rust-toolchain.toml (stable), not ours: rustup's proxies pick the
/// toolchain from the working directory once the variables that `cargo
/// xtask` inherited from the pinned nightly's cargo are gone.
fn downstream() -> Result<()> {
    let dir = Path::new(DOWNSTREAM);
    let toolchain = toolchain_channel(&util::read(&dir.join("rust-toolchain.toml"))?)
        .with_context(|| format!("no channel in {DOWNSTREAM}/rust-toolchain.toml"))?;
    let rustup = |args: &[&str]| {
        let mut cmd = Command::new("rustup");
        cmd.args(args).current_dir(dir);
        for var in ["RUSTUP_TOOLCHAIN", "CARGO", "RUSTC", "RUSTDOC", "RUSTC_WRAPPER", "CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR"] {
            cmd.env_remove(var);
        }
        cmd
    };
    let version = util::stdout_of(&mut rustup(&["run", &toolchain, "rustc", "--version"]))
        .with_context(|| format!("the {toolchain} toolchain is needed (rustup toolchain install {toolchain} --profile minimal)"))?;
    println!("{DOWNSTREAM}: {version}");
    util::run(&mut rustup(&["run", &toolchain, "cargo", "run", "--release"]))
}

/// The `channel = "…"` of a rust-toolchain.toml.
fn toolchain_channel(text: &[u8]) -> Option<String> {
    String::from_utf8_lossy(text).lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        (key.trim() == "channel").then(|| value.trim().trim_matches('"').to_string())
    })
}

/// The crates published to crates.io.
pub const PUBLIC_CRATES: &[&str] = &["ferrotile-kernels", "ferrotile", "ferrotile-cli"];

/// `cargo package --no-verify` of [`PUBLIC_CRATES`] (their contents and
/// metadata; `--allow-dirty`: the working tree's state is not the point):
/// fails on any warning cargo prints (missing metadata, a target left out
/// of the package, …). The full `cargo package` (which also builds each
/// package from its archive) and `cargo publish --dry-run` are in README.md.
fn package() -> Result<()> {
    let mut cmd = util::cargo();
    cmd.args(["package", "--no-verify", "--allow-dirty"]);
    for krate in PUBLIC_CRATES {
        cmd.args(["-p", krate]);
    }
    println!("$ {}", util::show(&cmd));
    let out = util::output(&mut cmd)?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    print!("{stderr}");
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.trim_start().starts_with("warning")).collect();
    if !warnings.is_empty() {
        bail!("cargo package warned:\n{}", warnings.join("\n"));
    }
    Ok(())
}

/// The examples of the root package: `examples/*.rs`, by name.
fn examples() -> Result<Vec<String>> {
    Ok(util::sorted_entries(Path::new("examples"))?
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect())
}

/// Sums of libtest's `test result:` lines.
#[derive(Debug, Default, PartialEq)]
struct TestTotals {
    passed: u64,
    failed: u64,
    ignored: u64,
}

impl TestTotals {
    /// Adds one `test result: ok. 3 passed; 0 failed; 1 ignored; …` line.
    fn add_line(&mut self, line: &str) {
        let Some(rest) = line.trim().strip_prefix("test result: ") else {
            return;
        };
        for part in rest.split(';') {
            let mut words = part.split_whitespace().rev();
            let (Some(what), Some(n)) = (words.next(), words.next()) else {
                continue;
            };
            let Ok(n) = n.parse::<u64>() else { continue };
            match what {
                "passed" => self.passed += n,
                "failed" => self.failed += n,
                "ignored" => self.ignored += n,
                _ => {}
            }
        }
    }
}

/// Runs `cmd` with its stdout passed through line by line and counted.
fn run_counting(cmd: &mut std::process::Command) -> Result<TestTotals> {
    use std::io::{BufRead, BufReader, Write};
    println!("$ {}", util::show(cmd));
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .spawn()
        .context("cannot start cargo test")?;
    let mut totals = TestTotals::default();
    if let Some(out) = child.stdout.take() {
        let stdout = std::io::stdout();
        for line in BufReader::new(out).lines() {
            let line = line.context("cannot read cargo test's output")?;
            totals.add_line(&line);
            let mut lock = stdout.lock();
            let _ = writeln!(lock, "{line}");
        }
    }
    let status = child.wait().context("cargo test did not finish")?;
    if !status.success() {
        bail!("cargo test failed ({status})");
    }
    Ok(totals)
}

#[cfg(test)]
mod totals_tests {
    use super::{TestTotals, toolchain_channel};

    #[test]
    fn reads_the_toolchain_channel() {
        assert_eq!(toolchain_channel(b"[toolchain]\nchannel = \"stable\"\nprofile = \"minimal\"\n").as_deref(), Some("stable"));
        assert_eq!(toolchain_channel(b"[toolchain]\n"), None);
    }

    #[test]
    fn sums_libtest_result_lines() {
        let mut t = TestTotals::default();
        t.add_line("test result: ok. 623 passed; 0 failed; 818 ignored; 0 measured; 0 filtered out; finished in 1.90s");
        t.add_line("test result: FAILED. 3 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out");
        t.add_line("running 5 tests");
        assert_eq!(t, TestTotals { passed: 626, failed: 2, ignored: 818 });
    }
}

#[cfg(test)]
mod path_tests {
    use std::collections::HashSet;
    use std::process::Command;

    /// Why `path` (a tracked file, `/`-separated) could not be checked out
    /// on Windows: a character Windows forbids in names, a component ending
    /// in a dot or a space, or a reserved device name. `None`: it can.
    fn windows_trouble(path: &str) -> Option<String> {
        for part in path.split('/') {
            if let Some(c) = part.chars().find(|c| "<>:\"|?*\\".contains(*c) || c.is_control()) {
                return Some(format!("`{c}` in `{part}`"));
            }
            if part.ends_with('.') || part.ends_with(' ') {
                return Some(format!("`{part}` ends in a dot or a space"));
            }
            let stem = part.split('.').next().unwrap_or("").to_ascii_uppercase();
            let numbered = |p: &str| stem.len() == 4 && stem.starts_with(p) && stem.as_bytes()[3].is_ascii_digit();
            if ["CON", "PRN", "AUX", "NUL"].contains(&stem.as_str()) || numbered("COM") || numbered("LPT") {
                return Some(format!("`{part}` is a reserved device name"));
            }
        }
        None
    }

    #[test]
    fn names_what_windows_cannot_check_out() {
        assert_eq!(windows_trouble("docs/benchmarks/run1/t-cuda-mma.log"), None);
        assert_eq!(windows_trouble("docs/a/512×127×127×127.log"), None);
        assert!(windows_trouble("docs/logs/t-cuda::mma::.log").is_some());
        assert!(windows_trouble("docs/what?.txt").is_some());
        assert!(windows_trouble("docs/trailing./x").is_some());
        assert!(windows_trouble("src/aux.rs").is_some());
        assert!(windows_trouble("src/com1").is_some());
        assert_eq!(windows_trouble("src/common.rs"), None);
    }

    /// Every file the repository tracks can be checked out on Windows (a
    /// clone there fails on the first that cannot), and no two differ only
    /// by case (one would overwrite the other on a case-insensitive file
    /// system). Run where the sources are a git checkout.
    #[test]
    fn every_tracked_path_checks_out_on_windows_and_macos() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let Ok(out) = Command::new("git").args(["ls-files", "-z"]).current_dir(&root).output() else {
            eprintln!("no git: tracked paths not checked");
            return;
        };
        if !out.status.success() {
            eprintln!("not a git checkout: tracked paths not checked");
            return;
        }
        let paths: Vec<String> = out.stdout.split(|&b| b == 0).filter(|p| !p.is_empty()).map(|p| String::from_utf8_lossy(p).into_owned()).collect();
        assert!(paths.iter().any(|p| p == "Cargo.toml"), "git ls-files listed no Cargo.toml: {} paths", paths.len());
        let bad: Vec<String> = paths.iter().filter_map(|p| windows_trouble(p).map(|why| format!("{p}: {why}"))).collect();
        assert!(bad.is_empty(), "tracked paths a Windows clone cannot check out:\n{}", bad.join("\n"));
        let mut seen = HashSet::new();
        let clashes: Vec<&String> = paths.iter().filter(|p| !seen.insert(p.to_lowercase())).collect();
        assert!(clashes.is_empty(), "tracked paths that differ only by case: {clashes:?}");
    }
}
