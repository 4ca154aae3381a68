//! `build-ptx` and `check-ptx`: compiling the kernels crate to the
//! committed `host/ptx/<arch>.ptx` files, and checking they are current.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::artifacts;
use crate::linker;
use crate::util;

/// One PTX file the kernels crate is compiled to.
pub struct PtxTarget {
    /// `-C target-cpu`.
    pub arch: &'static str,
    /// The file, `host/ptx/<file>.ptx`.
    pub file: &'static str,
    /// A target built before this one whose kernels this module leaves out
    /// (the experiments module holds only the experiments).
    pub exclude_kernels_of: Option<&'static str>,
    /// Cargo features of `ferrotile-kernels` enabled for this build.
    pub features: &'static [&'static str],
    /// Extra `--cfg` values given to rustc for the kernels crate.
    pub cfgs: &'static [&'static str],
    /// The GPUs `ptxas` compiles this PTX for in the report.
    pub ptxas_archs: &'static [&'static str],
    /// The PTX ISA version `llc` writes (`-mattr=+ptxNN`), when the
    /// target's default is older than the instructions need.
    pub ptx_isa: Option<&'static str>,
}

/// Every PTX build, in build order. The sm_80 baseline runs from Ampere on
/// and is checked for Hopper too; the sm_90a module holds only the Hopper
/// kernels (`wgmma`, TMA: cfg `ferrotile_sm90a`; PTX ISA 8.5 for the
/// tensor-map fence), loaded on compute capability 9.0; the experiments
/// module holds the kernels kept for the record (feature `experiments`),
/// which no default build loads.
pub const TARGETS: &[PtxTarget] = &[
    PtxTarget { arch: "sm_80", file: "sm_80", exclude_kernels_of: None, features: &[], cfgs: &[], ptxas_archs: &["sm_80", "sm_90"], ptx_isa: None },
    PtxTarget {
        arch: "sm_90a",
        file: "sm_90a",
        exclude_kernels_of: Some("sm_80"),
        features: &[],
        cfgs: &["ferrotile_sm90a"],
        ptxas_archs: &["sm_90a"],
        ptx_isa: Some("ptx85"),
    },
    PtxTarget {
        arch: "sm_80",
        file: "experiments/sm_80",
        exclude_kernels_of: Some("sm_80"),
        features: &["experiments"],
        cfgs: &[],
        ptxas_archs: &["sm_80", "sm_90"],
        ptx_isa: None,
    },
];

pub const KERNELS_PACKAGE: &str = "ferrotile-kernels";

/// `-Ccodegen-units` of the device build (see `compile`).
const CODEGEN_UNITS: u32 = 256;
const KERNELS_CRATE: &str = "ferrotile_kernels";

/// Where the committed PTX lives, relative to the workspace root.
pub const PTX_DIR: &str = "host/ptx";

pub fn committed_path(target: &PtxTarget) -> PathBuf {
    Path::new(PTX_DIR).join(format!("{}.ptx", target.file))
}

/// Where cargo builds `target` (one directory per feature set, so that
/// switching between them does not rebuild).
fn target_dir(target: &PtxTarget) -> PathBuf {
    Path::new("target").join(format!("ptx-{}", target.file.replace('/', "-")))
}

/// A copy of this executable, named by a hash of its contents, to give rustc
/// as its linker. When xtask changes, the linker's path changes with it, so
/// cargo (which tracks the flag, not the file) relinks the PTX.
fn linker_copy() -> Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot locate the xtask executable")?;
    let bytes = util::read(&exe)?;
    let dir = Path::new("target").join("ptx-linker");
    let copy = dir.join(format!("xtask-{:016x}", util::content_hash(&bytes)));
    if !copy.is_file() {
        // Copies for older xtask builds are of no further use.
        util::remove_dir_all(&dir)?;
        let tmp = dir.join(format!("xtask.tmp.{}", std::process::id()));
        util::write(&tmp, &bytes)?;
        set_executable(&tmp)?;
        std::fs::rename(&tmp, &copy).with_context(|| format!("cannot create {}", copy.display()))?;
    }
    std::path::absolute(&copy).with_context(|| format!("cannot resolve {}", copy.display()))
}

pub fn set_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .with_context(|| format!("cannot make {} executable", path.display()))
}

/// Compiles the kernels crate for one target (in [`target_dir`]) and
/// returns the PTX that cargo produced. `built`: the PTX of the targets
/// built before it (`(file, text)`), for `exclude_kernels_of`.
pub fn compile(target: &PtxTarget, built: &[(&str, String)]) -> Result<String> {
    let exclude = match target.exclude_kernels_of {
        None => String::new(),
        Some(base) => {
            let Some((_, text)) = built.iter().find(|(f, _)| *f == base) else {
                bail!("PTX target {} needs {base} built first", target.file);
            };
            entries(text).into_iter().map(|e| e.name).collect::<Vec<_>>().join(",")
        }
    };
    let linker = linker_copy()?;
    let mut cmd = util::cargo();
    cmd.args([
        "rustc",
        "-p",
        KERNELS_PACKAGE,
        "--release",
        "--target",
        linker::TARGET,
    ])
    .args(["-Zbuild-std=core", "--crate-type", "cdylib"])
    .arg("--target-dir")
    .arg(target_dir(target))
    .arg(artifacts::MESSAGE_FORMAT);
    if !target.features.is_empty() {
        cmd.arg("--features").arg(target.features.join(","));
    }
    cmd.arg("--")
        .arg(format!("-Ctarget-cpu={}", target.arch))
        .arg("-Clinker=".to_string() + &linker.to_string_lossy())
        .arg(format!(
            "-Cllvm-args=-unroll-threshold={}",
            linker::UNROLL_THRESHOLD
        ))
        // Many codegen units: rustc merges small ones into groups by size,
        // so with the default a new kernel module regroups the others and
        // changes their PTX (instruction order, registers) before the
        // link-time optimisation; with one unit per module it does not.
        .arg(format!("-Ccodegen-units={}", CODEGEN_UNITS));
    for cfg in target.cfgs {
        cmd.args(["--cfg", cfg]);
    }
    // Set, and empty: cargo then ignores RUSTFLAGS, CARGO_BUILD_RUSTFLAGS,
    // CARGO_TARGET_*_RUSTFLAGS and `rustflags` in config files, so flags of
    // the outer (host) build never reach the device build.
    cmd.env("CARGO_ENCODED_RUSTFLAGS", "")
        .env(linker::ENV, "1")
        .env(linker::EXCLUDE_ENV, &exclude)
        .env(linker::MATTR_ENV, target.ptx_isa.map(|v| format!("+{v}")).unwrap_or_default());
    let artifacts = artifacts::cargo_artifacts(&mut cmd)
        .with_context(|| format!("building the PTX for {} failed", target.file))?;
    let ptx = artifacts
        .iter()
        .filter(|a| a.target.name == KERNELS_CRATE)
        .flat_map(|a| &a.filenames)
        .find(|f| f.extension() == Some("ptx"))
        .map(|f| f.clone().into_std_path_buf());
    let Some(path) = ptx else {
        bail!(
            "cargo built {KERNELS_PACKAGE} for {} but reported no .ptx file \
             (is the crate's crate-type overridden?)",
            target.arch
        );
    };
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    if !text
        .lines()
        .any(|l| l.trim() == format!(".target {}", target.arch))
    {
        bail!(
            "{} has no `.target {}` line: not PTX for this target",
            path.display(),
            target.arch
        );
    }
    Ok(text)
}

/// One `.entry` of a PTX file and what the summary shows of it.
#[derive(Debug, PartialEq)]
pub struct Entry {
    pub name: String,
    pub fma_f32: usize,
}

/// The kernels (`.entry`) in a PTX text, each with its count of
/// `fma.rn.f32` instructions.
pub fn entries(ptx: &str) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    let mut in_entry = false;
    for line in ptx.lines() {
        let code = line.split("//").next().unwrap_or("").trim();
        let mut words = code.split_whitespace();
        let Some(first) = words.next() else { continue };
        // `.visible .entry name(`, `.entry name(`, `.weak .func …`
        let directive = if first == ".visible" || first == ".weak" || first == ".extern" {
            words.next().unwrap_or("")
        } else {
            first
        };
        if directive == ".entry" {
            let name = words
                .next()
                .unwrap_or("")
                .split('(')
                .next()
                .unwrap_or("")
                .to_string();
            out.push(Entry { name, fma_f32: 0 });
            in_entry = true;
        } else if directive == ".func" {
            in_entry = false;
        } else if in_entry {
            // `@%p1 fma.rn.f32 …` carries a predicate first.
            let op = if first.starts_with('@') {
                words.next().unwrap_or("")
            } else {
                first
            };
            if op == "fma.rn.f32"
                && let Some(entry) = out.last_mut()
            {
                entry.fma_f32 += 1;
            }
        }
    }
    out
}

/// Prints the kernels of one PTX file.
pub fn print_summary(label: &str, ptx: &str) {
    let entries = entries(ptx);
    println!(
        "{label}: {} entry point(s), {} lines",
        entries.len(),
        ptx.lines().count()
    );
    let width = entries
        .iter()
        .map(|e| e.name.len())
        .max()
        .unwrap_or(0)
        .max(5);
    println!("  {:<width$}  fma.rn.f32", "entry");
    for e in &entries {
        println!("  {:<width$}  {:>10}", e.name, e.fma_f32);
    }
}

/// `cargo xtask build-ptx`: compile every target and write `host/ptx/`.
pub fn build() -> Result<()> {
    let mut built: Vec<(&str, String)> = Vec::new();
    for target in TARGETS {
        let text = compile(target, &built)?;
        let dest = committed_path(target);
        if let Some(dir) = dest.parent() {
            util::create_dir_all(dir)?;
        }
        let unchanged = std::fs::read_to_string(&dest).is_ok_and(|old| old == text);
        if !unchanged {
            util::write(&dest, text.as_bytes())?;
        }
        print_summary(
            &format!(
                "{} ({})",
                dest.display(),
                if unchanged { "unchanged" } else { "written" }
            ),
            &text,
        );
        built.push((target.file, text));
    }
    // The cubins next to the PTX (host/ptx/<file>.<arch>.cubin): what the
    // host loads on the GPUs they are for, without the driver's JIT.
    let files: Vec<_> = TARGETS.iter().map(|t| (t, committed_path(t))).collect();
    crate::ptxas::report(&files)
}

/// `cargo xtask check-ptx`: rebuild into `target/ptx-check/`, compare with
/// the committed files, then run the ptxas report on the fresh PTX.
pub fn check() -> Result<()> {
    let mut problems = Vec::new();
    let mut fresh = Vec::new();
    let check_dir = Path::new("target").join("ptx-check");
    util::remove_dir_all(&check_dir)?;
    let mut built: Vec<(&str, String)> = Vec::new();
    for target in TARGETS {
        let text = compile(target, &built)?;
        let copy = check_dir.join(format!("{}.ptx", target.file.replace('/', "-")));
        util::write(&copy, text.as_bytes())?;
        let committed = committed_path(target);
        match std::fs::read_to_string(&committed) {
            Err(_) => problems.push(format!("{} is missing", committed.display())),
            Ok(old) if old != text => problems.push(format!(
                "{} is stale: {}",
                committed.display(),
                diff_hint(&old, &text)
            )),
            Ok(_) => println!("{}: up to date", committed.display()),
        }
        print_summary(&format!("{} (fresh build)", copy.display()), &text);
        fresh.push((target, copy));
        built.push((target.file, text));
    }
    // PTX files nobody builds any more.
    let dirs = [Path::new(PTX_DIR).to_path_buf(), Path::new(PTX_DIR).join("experiments")];
    for listing in dirs.iter().filter_map(|d| util::sorted_entries(d).ok()) {
        for path in listing {
            let built_here = |t: &PtxTarget| {
                committed_path(t) == path || t.ptxas_archs.iter().any(|a| crate::ptxas::cubin_path(&committed_path(t), a) == path)
            };
            if path.extension().is_some_and(|e| e == "ptx" || e == "cubin") && !TARGETS.iter().any(built_here)
            {
                problems.push(format!(
                    "{} is not produced by build-ptx (no such target in xtask's ptx::TARGETS): delete it",
                    path.display()
                ));
            }
        }
    }
    let report = crate::ptxas::report(&fresh);
    // The committed cubins are what ptxas makes of the committed PTX (the
    // same ptxas: its output is deterministic).
    if report.is_ok() {
        for (target, copy) in &fresh {
            for arch in target.ptxas_archs {
                let (committed, made) = (crate::ptxas::cubin_path(&committed_path(target), arch), crate::ptxas::cubin_path(copy, arch));
                match (std::fs::read(&committed), std::fs::read(&made)) {
                    (Err(_), _) => problems.push(format!("{} is missing", committed.display())),
                    (Ok(old), Ok(new)) if old != new => problems.push(format!("{} is stale (ptxas makes another cubin of the PTX)", committed.display())),
                    _ => {}
                }
            }
        }
    }
    if !problems.is_empty() {
        let mut msg = String::from("committed PTX does not match the kernels:\n");
        for p in &problems {
            msg.push_str(&format!("  - {p}\n"));
        }
        msg.push_str("run `cargo xtask build-ptx` and commit host/ptx/");
        if let Err(e) = report {
            msg.push_str(&format!("\nand the ptxas report failed too: {e:#}"));
        }
        bail!(msg);
    }
    report
}

/// A short description of how two PTX texts differ: the entry points added
/// or removed, and the first differing line.
fn diff_hint(old: &str, new: &str) -> String {
    let names = |t: &str| entries(t).into_iter().map(|e| e.name).collect::<Vec<_>>();
    let (old_names, new_names) = (names(old), names(new));
    let mut hint = String::new();
    let added: Vec<_> = new_names
        .iter()
        .filter(|n| !old_names.contains(n))
        .cloned()
        .collect();
    let removed: Vec<_> = old_names
        .iter()
        .filter(|n| !new_names.contains(n))
        .cloned()
        .collect();
    if !added.is_empty() {
        hint.push_str(&format!("new entries [{}]; ", added.join(", ")));
    }
    if !removed.is_empty() {
        hint.push_str(&format!("entries gone [{}]; ", removed.join(", ")));
    }
    let (old_lines, new_lines): (Vec<_>, Vec<_>) = (old.lines().collect(), new.lines().collect());
    let first = old_lines
        .iter()
        .zip(&new_lines)
        .position(|(a, b)| a != b)
        .unwrap_or(old_lines.len().min(new_lines.len()));
    let show = |lines: &[&str]| {
        lines
            .get(first)
            .map_or("<end of file>".to_string(), |l| format!("{:?}", l.trim()))
    };
    hint.push_str(&format!(
        "{} lines committed vs {} built; first difference at line {}: committed {} / built {}",
        old_lines.len(),
        new_lines.len(),
        first + 1,
        show(&old_lines),
        show(&new_lines)
    ));
    hint
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = "
.version 7.0
.target sm_80
.address_size 64

	// .globl	k1                 // -- Begin function k1
.visible .entry k1(
	.param .u64 .ptr .align 1 k1_param_0
)
{
	fma.rn.f32 	%r8, %r6, 0f40000000, %r7;
	@%p1 fma.rn.f32 	%r9, %r6, %r6, %r7;
	fma.rn.ftz.f32 	%r9, %r6, %r6, %r7;
	// fma.rn.f32 in a comment
	ret;
}
.func helper()
{
	fma.rn.f32 	%r1, %r1, %r1, %r1;
}
.entry k2()
{
	ret;
}
";

    #[test]
    fn finds_entries_and_counts_fma() {
        assert_eq!(
            entries(PTX),
            [
                Entry {
                    name: "k1".into(),
                    fma_f32: 2
                },
                Entry {
                    name: "k2".into(),
                    fma_f32: 0
                }
            ]
        );
    }

    #[test]
    fn diff_hint_names_entries_and_line() {
        let new = PTX.replace(".entry k2()", ".entry k3()");
        let hint = diff_hint(PTX, &new);
        assert!(hint.contains("new entries [k3]"), "{hint}");
        assert!(hint.contains("entries gone [k2]"), "{hint}");
        assert!(hint.contains("first difference at line 21"), "{hint}");
        let hint = diff_hint(PTX, &format!("{PTX}extra\n"));
        assert!(hint.contains("built \"extra\""), "{hint}");
    }
}
