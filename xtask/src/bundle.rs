//! `cargo xtask gpu-bundle`: the test and bench executables, stripped, with
//! the PTX and a runner script, for a CUDA machine that has no Rust.
//!
//! Layout of `bundle/`:
//!
//! ```text
//! bin/<name>          test executables: integration test `<target>`, unit tests
//!                     of a library `<crate>-lib`, of a binary `<bin>-bin`
//! bin/example-<name>  the examples (`examples/*.rs`, run with no arguments)
//! bin/bench-<name>    bench executables (`harness = false` programs)
//! ptx/                a copy of host/ptx/
//! manifest.txt        one line per executable: `test NAME`, `example NAME`,
//!                     `tool NAME`, or `bench NAME criterion|plain`, in the order
//!                     run.sh runs them
//! run.sh              the runner (xtask/assets/run.sh)
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::artifacts::{self, Artifact};
use crate::ptx;
use crate::util;

const BUNDLE: &str = "bundle";
/// The bundle packed for carrying to a GPU machine.
const ARCHIVE: &str = "bundle.tar.gz";
/// The most the archive may weigh (what one call of the device tool carries, with room to spare).
const MAX_BYTES: u64 = 60 * 1024 * 1024;
const RUN_SH: &str = include_str!("../assets/run.sh");

/// Bench targets whose name starts with this are criterion benches (run.sh
/// gives them `--bench`); every other bench is a plain program (a ladder
/// table) run with no arguments.
pub const CRITERION_PREFIX: &str = "criterion_";

#[derive(Debug, PartialEq)]
struct Executable {
    /// File name in `bundle/bin/`.
    name: String,
    /// `test`, or `bench` (criterion / plain).
    kind: &'static str,
    path: PathBuf,
}

impl Executable {
    fn manifest_line(&self) -> String {
        match self.kind {
            "bench" => {
                let target = self.name.strip_prefix("bench-").unwrap_or(&self.name);
                let style = if target.starts_with(CRITERION_PREFIX) {
                    "criterion"
                } else {
                    "plain"
                };
                format!("bench {} {style}", self.name)
            }
            kind => format!("{kind} {}", self.name),
        }
    }
}

/// The test executables among `cargo test --no-run`'s artifacts.
fn test_executables(artifacts: &[Artifact]) -> Vec<Executable> {
    let mut out = Vec::new();
    for a in artifacts {
        let Some(exe) = &a.executable else { continue };
        let target = &a.target;
        // `harness = false` test targets are not built with `--test`.
        if !a.profile.test && !target.is_test() {
            continue;
        }
        let name = if target.is_test() {
            target.name.clone()
        } else if target.is_bin() {
            format!("{}-bin", target.name)
        } else if target.is_lib()
            || target.is_rlib()
            || target.is_dylib()
            || target.is_cdylib()
            || target.is_staticlib()
        {
            format!("{}-lib", target.name)
        } else {
            continue; // benches and examples built in test mode
        };
        out.push(Executable {
            name,
            kind: "test",
            path: exe.clone().into(),
        });
    }
    out
}

/// The command-line tool (`ferrotile`, a `bin` built as a plain program),
/// bundled so that run.sh can print the tour table on the GPU.
fn tool_executables(artifacts: &[Artifact]) -> Vec<Executable> {
    let mut out = Vec::new();
    for a in artifacts {
        let Some(exe) = &a.executable else { continue };
        if a.target.is_bin() && !a.profile.test {
            out.push(Executable {
                name: a.target.name.clone(),
                kind: "tool",
                path: exe.clone().into(),
            });
        }
    }
    out
}

/// The examples (`examples/*.rs`, built as plain programs by `cargo test`):
/// each checks its results and exits non-zero when one is wrong.
fn example_executables(artifacts: &[Artifact]) -> Vec<Executable> {
    let mut out = Vec::new();
    for a in artifacts {
        let Some(exe) = &a.executable else { continue };
        if a.target.is_example() && !a.profile.test {
            out.push(Executable {
                name: format!("example-{}", a.target.name),
                kind: "example",
                path: exe.clone().into(),
            });
        }
    }
    out
}

/// The bench executables among `cargo bench --no-run`'s artifacts.
fn bench_executables(artifacts: &[Artifact]) -> Vec<Executable> {
    let mut out = Vec::new();
    for a in artifacts {
        let Some(exe) = &a.executable else { continue };
        if a.target.is_bench() {
            out.push(Executable {
                name: format!("bench-{}", a.target.name),
                kind: "bench",
                path: exe.clone().into(),
            });
        }
    }
    out
}

/// A command that, given `src` and `dst`, writes a stripped copy.
type Stripper = Box<dyn Fn(&Path, &Path) -> Command>;

/// `strip`, `objcopy` or the toolchain's `llvm-strip`: a command that,
/// given `src` and `dst`, writes a stripped copy.
fn stripper() -> Result<Stripper> {
    if let Ok(strip) = which::which("strip") {
        return Ok(Box::new(move |src, dst| {
            let mut c = Command::new(&strip);
            c.arg("--strip-all").arg("-o").arg(dst).arg(src);
            c
        }));
    }
    if let Ok(objcopy) = which::which("objcopy") {
        return Ok(Box::new(move |src, dst| {
            let mut c = Command::new(&objcopy);
            c.arg("--strip-all").arg(src).arg(dst);
            c
        }));
    }
    if let Some(tools) = util::llvm_tools_dir(&util::sysroot()?) {
        let strip = tools.join("llvm-strip");
        if strip.is_file() {
            return Ok(Box::new(move |src, dst| {
                let mut c = Command::new(&strip);
                c.arg("--strip-all").arg("-o").arg(dst).arg(src);
                c
            }));
        }
    }
    bail!("no `strip`, `objcopy` nor llvm-strip found (Debian: apt-get install binutils)")
}

fn dir_size(dir: &Path) -> Result<u64> {
    let mut total = 0;
    for path in util::sorted_entries(dir)? {
        let meta = std::fs::symlink_metadata(&path)
            .with_context(|| format!("cannot stat {}", path.display()))?;
        total += if meta.is_dir() {
            dir_size(&path)?
        } else {
            meta.len()
        };
    }
    Ok(total)
}

/// The artifacts of the `cust` interop test (feature `cust`, built against
/// `cargo xtask cuda-stub`).
fn cust_test() -> Result<Vec<Artifact>> {
    let dir = Path::new(crate::cuda_stub::DEFAULT_DIR);
    crate::cuda_stub::cuda_stub(dir)?;
    let root = std::fs::canonicalize(dir)?;
    artifacts::cargo_artifacts(
        util::cargo()
            .args(["test", "--release", "--features", "cust", "--test", "cust_interop", "--no-run", artifacts::MESSAGE_FORMAT])
            .env("CUDA_LIBRARY_PATH", root),
    )
}

/// Whether `name` is chosen by `only`: empty chooses every executable; an
/// entry ending in `*` is a prefix, any other entry a whole name.
fn chosen(only: &[String], name: &str) -> bool {
    only.is_empty()
        || only.iter().any(|o| match o.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => name == o,
        })
}

pub fn gpu_bundle(only: &[String]) -> Result<()> {
    // With the experiment kernels: the GPU runs their tests and benchmarks
    // too (they exist to be measured).
    let tests = artifacts::cargo_artifacts(util::cargo().args([
        "test",
        "--workspace",
        "--exclude",
        "xtask",
        "--features",
        "ferrotile-cli/experiments",
        "--release",
        "--no-run",
        artifacts::MESSAGE_FORMAT,
    ]))?;
    let benches = artifacts::cargo_artifacts(util::cargo().args([
        "bench",
        "--workspace",
        "--exclude",
        "xtask",
        "--features",
        "ferrotile-cli/experiments",
        "--no-run",
        artifacts::MESSAGE_FORMAT,
    ]))?;
    let mut exes = test_executables(&tests);
    // tests/cust_interop.rs: with the `cust` feature, linked against the
    // stand-in of `cargo xtask cuda-stub` (the GPU's driver is the real one).
    if chosen(only, "cust_interop") {
        exes.extend(test_executables(&cust_test()?));
    }
    exes.extend(example_executables(&tests));
    exes.extend(tool_executables(&tests));
    exes.extend(bench_executables(&benches));
    // Tests, then the examples, the tool, then benches, each by name: cargo
    // reports artifacts in build order.
    let rank = |k: &str| match k {
        "test" => 0,
        "example" => 1,
        "tool" => 2,
        _ => 3,
    };
    exes.sort_by(|a, b| (rank(a.kind), &a.name).cmp(&(rank(b.kind), &b.name)));
    if let Some(o) = only.iter().find(|o| !exes.iter().any(|e| chosen(std::slice::from_ref(o), &e.name))) {
        bail!("--only {o}: no executable of that name (names: {})", exes.iter().map(|e| e.name.as_str()).collect::<Vec<_>>().join(", "));
    }
    exes.retain(|e| chosen(only, &e.name));
    if let Some(w) = exes.windows(2).find(|w| w[0].name == w[1].name) {
        bail!(
            "two executables would both be bundle/bin/{}: rename a target",
            w[0].name
        );
    }
    if exes.is_empty() {
        bail!("cargo built no test or bench executable");
    }

    let bundle = Path::new(BUNDLE);
    util::remove_dir_all(bundle)?;
    let bin = bundle.join("bin");
    util::create_dir_all(&bin)?;
    let strip = stripper()?;
    for exe in &exes {
        util::run(&mut strip(&exe.path, &bin.join(&exe.name)))?;
    }

    let ptx_dir = bundle.join("ptx");
    util::create_dir_all(&ptx_dir)?;
    for target in ptx::TARGETS {
        let (src, dst) = (ptx::committed_path(target), ptx_dir.join(format!("{}.ptx", target.file)));
        if let Some(dir) = dst.parent() {
            util::create_dir_all(dir)?;
        }
        if let Err(e) = std::fs::copy(&src, &dst) {
            println!("warning: cannot copy {} ({e}; run `cargo xtask build-ptx`)", src.display());
        }
    }

    let manifest: String = exes.iter().map(|e| e.manifest_line() + "\n").collect();
    util::write(&bundle.join("manifest.txt"), manifest.as_bytes())?;
    let run_sh = bundle.join("run.sh");
    util::write(&run_sh, RUN_SH.as_bytes())?;
    ptx::set_executable(&run_sh)?;

    println!("bundle/:");
    for exe in &exes {
        let size = std::fs::metadata(bin.join(&exe.name))
            .map(|m| m.len())
            .unwrap_or(0);
        println!(
            "  bin/{:<40} {:>10}  ({})",
            exe.name,
            util::mib(size),
            exe.manifest_line()
        );
    }
    let total = dir_size(bundle)?;
    println!("total {} ({total} bytes)", util::mib(total));
    // What travels is the gzip'd archive (stripped binaries compress to
    // about a third): the limit applies to it.
    let mut tar = std::process::Command::new("tar");
    tar.args(["czf", ARCHIVE, BUNDLE]);
    util::run(&mut tar)?;
    let packed = std::fs::metadata(ARCHIVE).map(|m| m.len()).unwrap_or(0);
    println!(
        "{ARCHIVE}: {}; on a GPU machine, from the repository root: tar xzf {ARCHIVE} && bash bundle/run.sh [quick|full|tests]",
        util::mib(packed)
    );
    if packed > MAX_BYTES {
        bail!(
            "{ARCHIVE} is {}, over the {} limit: carry it in parts (`--only NAME ...`, `--only 'bench-*'`)",
            util::mib(packed),
            util::mib(MAX_BYTES)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(kind: &str, name: &str, test: bool, exe: Option<&str>) -> String {
        artifacts::artifact_json(kind, name, test, &[], exe)
    }

    #[test]
    fn names_test_executables() {
        let msgs = [
            msg(
                "lib",
                "ferrotile_kernels",
                true,
                Some("/t/ferrotile_kernels-1"),
            ),
            msg("lib", "ferrotile", false, None),
            msg("bin", "ferrotile", true, Some("/t/ferrotile-2")),
            msg("bin", "ferrotile", false, Some("/t/ferrotile")),
            msg("test", "sgemm", true, Some("/t/sgemm-3")),
            msg("test", "kernels", false, Some("/t/kernels-4")),
            msg("example", "tour", false, Some("/t/tour")),
        ];
        let got: Vec<_> = test_executables(&artifacts::parse_artifacts(&msgs))
            .into_iter()
            .map(|e| (e.name, e.path))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "ferrotile_kernels-lib".to_string(),
                    PathBuf::from("/t/ferrotile_kernels-1")
                ),
                ("ferrotile-bin".to_string(), PathBuf::from("/t/ferrotile-2")),
                ("sgemm".to_string(), PathBuf::from("/t/sgemm-3")),
                ("kernels".to_string(), PathBuf::from("/t/kernels-4")),
            ]
        );
    }

    #[test]
    fn only_chooses_names_and_prefixes() {
        let only = ["cli".to_string(), "bench-*".to_string()];
        assert!(chosen(&only, "cli"));
        assert!(chosen(&only, "bench-sgemm"));
        assert!(!chosen(&only, "cli2"));
        assert!(!chosen(&only, "kernels"));
        assert!(chosen(&[], "kernels"));
    }

    #[test]
    fn names_examples() {
        let msgs = [
            msg("example", "embed", false, Some("/t/embed")),
            msg("example", "embed", true, Some("/t/embed-1")),
            msg("bin", "ferrotile", false, Some("/t/ferrotile")),
        ];
        let lines: Vec<_> = example_executables(&artifacts::parse_artifacts(&msgs))
            .iter()
            .map(|e| (e.manifest_line(), e.path.clone()))
            .collect();
        assert_eq!(lines, [("example example-embed".to_string(), PathBuf::from("/t/embed"))]);
    }

    #[test]
    fn names_benches_and_their_style() {
        let msgs = [
            msg("bench", "ladder", false, Some("/t/ladder-1")),
            msg("bench", "criterion_transpose", false, Some("/t/transpose-2")),
            msg("lib", "ferrotile", true, Some("/t/ferrotile-3")),
        ];
        let lines: Vec<_> = bench_executables(&artifacts::parse_artifacts(&msgs))
            .iter()
            .map(Executable::manifest_line)
            .collect();
        assert_eq!(
            lines,
            [
                "bench bench-ladder plain",
                "bench bench-criterion_transpose criterion"
            ]
        );
    }
}
