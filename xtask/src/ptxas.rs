//! The ptxas resource report: registers, shared memory, stack frame and
//! spills of every kernel, from NVIDIA's `ptxas` (which runs without a GPU).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::ptx::{self, PtxTarget};
use anyhow::{Context, Result, anyhow, bail};

use crate::util;

/// Overrides which ptxas is used.
pub const PTXAS_ENV: &str = "FERROTILE_PTXAS";
/// The PyPI wheel ptxas comes from.
const WHEEL: &str = "nvidia-cuda-nvcc-cu12==12.9.86";
const WHEEL_MEMBER: &str = "nvidia/cuda_nvcc/bin/ptxas";
const TOOLS_DIR: &str = "target/tools";

/// Kernels that must run from registers: no stack frame allowed.
pub const HOT_PREFIXES: &[&str] = &["sgemm_", "transpose_", "gemm_stage"];

/// `$FERROTILE_PTXAS`, else `target/tools/ptxas`, downloaded from PyPI (with
/// pip) when missing.
pub fn ensure_ptxas() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(PTXAS_ENV) {
        let p = PathBuf::from(p);
        if !p.is_file() {
            bail!("{PTXAS_ENV}={} does not exist", p.display());
        }
        return Ok(p);
    }
    let ptxas = Path::new(TOOLS_DIR).join("ptxas");
    if ptxas.is_file() {
        return Ok(ptxas);
    }
    let wheel_dir = Path::new(TOOLS_DIR).join("wheel");
    let wheel = match find_wheel(&wheel_dir)? {
        Some(w) => w,
        None => {
            println!("installing ptxas: pip download {WHEEL}");
            util::run(
                Command::new("python3")
                    .args([
                        "-m",
                        "pip",
                        "download",
                        "--no-deps",
                        "--only-binary=:all:",
                        WHEEL,
                        "-d",
                    ])
                    .arg(&wheel_dir),
            )
            .map_err(|e| {
                anyhow!(
                    "{e:#}\nptxas comes from the PyPI wheel {WHEEL}: python3 with pip is needed \
                     (Debian: apt-get install python3-pip), or set {PTXAS_ENV}=/path/to/ptxas"
                )
            })?;
            find_wheel(&wheel_dir)?.with_context(|| {
                format!(
                    "pip reported success but no .whl is in {}",
                    wheel_dir.display()
                )
            })?
        }
    };
    let tmp = Path::new(TOOLS_DIR).join("ptxas.tmp");
    extract(&wheel, WHEEL_MEMBER, &tmp).with_context(|| {
        format!(
            "cannot extract {WHEEL_MEMBER} from {}",
            wheel.display()
        )
    })?;
    ptx::set_executable(&tmp)?;
    std::fs::rename(&tmp, &ptxas).with_context(|| format!("cannot create {}", ptxas.display()))?;
    println!("installed {}", ptxas.display());
    Ok(ptxas)
}

/// Copies the member `name` of the zip archive `archive` (a wheel) to `dest`.
fn extract(archive: &Path, name: &str, dest: &Path) -> Result<()> {
    let file = std::fs::File::open(archive)?;
    let mut zip = zip::ZipArchive::new(std::io::BufReader::new(file))?;
    let mut member = zip.by_name(name)?;
    let mut out = std::fs::File::create(dest)
        .with_context(|| format!("cannot create {}", dest.display()))?;
    std::io::copy(&mut member, &mut out)?;
    Ok(())
}

fn find_wheel(dir: &Path) -> Result<Option<PathBuf>> {
    if !dir.is_dir() {
        return Ok(None);
    }
    Ok(util::sorted_entries(dir)?
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "whl")))
}

/// What ptxas reports about one function.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Resources {
    pub name: String,
    /// `.entry` (a kernel) rather than a called `.func`.
    pub entry: bool,
    pub registers: u64,
    pub smem: u64,
    pub stack: u64,
    pub spill_stores: u64,
    pub spill_loads: u64,
}

/// Parses `ptxas -v` output (in the order ptxas prints it).
pub fn parse(output: &str) -> Vec<Resources> {
    let mut out: Vec<Resources> = Vec::new();
    let mut current: Option<usize> = None; // the function being compiled
    let mut props: Option<usize> = None; // the one "Function properties" names
    let index = |out: &mut Vec<Resources>, name: &str, entry: bool| -> usize {
        match out.iter().position(|r| r.name == name) {
            Some(i) => {
                out[i].entry |= entry;
                i
            }
            None => {
                out.push(Resources {
                    name: name.to_string(),
                    entry,
                    ..Resources::default()
                });
                out.len() - 1
            }
        }
    };
    for line in output.lines() {
        let text = line
            .split_once(':')
            .filter(|(tag, _)| tag.starts_with("ptxas"))
            .map_or(line, |(_, rest)| rest);
        let text = text.trim();
        if let Some(rest) = text.strip_prefix("Compiling entry function '") {
            let name = rest.split('\'').next().unwrap_or("");
            current = Some(index(&mut out, name, true));
        } else if let Some(rest) = text.strip_prefix("Compiling function '") {
            let name = rest.split('\'').next().unwrap_or("");
            current = Some(index(&mut out, name, false));
        } else if let Some(name) = text.strip_prefix("Function properties for ") {
            props = Some(index(&mut out, name.trim(), false));
        } else if text.contains("bytes stack frame") {
            if let Some(i) = props.or(current) {
                for part in text.split(',') {
                    let n = leading_number(part);
                    if part.contains("stack frame") {
                        out[i].stack = n;
                    } else if part.contains("spill stores") {
                        out[i].spill_stores = n;
                    } else if part.contains("spill loads") {
                        out[i].spill_loads = n;
                    }
                }
            }
        } else if let Some(rest) = text.strip_prefix("Used ")
            && let Some(i) = current {
                for part in rest.split(',') {
                    let part = part.trim().trim_start_matches("used ");
                    if part.ends_with("registers") {
                        out[i].registers = leading_number(part);
                    } else if part.ends_with("bytes smem") {
                        out[i].smem = leading_number(part);
                    }
                }
            }
    }
    out
}

fn leading_number(s: &str) -> u64 {
    s.split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

pub fn is_hot(name: &str) -> bool {
    HOT_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Kernels allowed a stack frame of at most this many bytes: the tensor-core
/// engine's epilogue is a call (not inlined: its registers are allocated
/// apart from the `k` loop's) that takes the 88-byte parameters by
/// reference; anything more is a register array in local memory (as the
/// first direct kernels had: their chunks, 160–608 bytes).
pub const FRAME_LIMITS: &[(&str, u64)] = &[("gemm_mma_", 88)];

/// The stack frame `name` may have (0 for a hot kernel), if limited.
pub fn frame_limit(name: &str) -> Option<u64> {
    if is_hot(name) {
        return Some(0);
    }
    FRAME_LIMITS.iter().find(|(p, _)| name.starts_with(p)).map(|&(_, n)| n)
}

/// The problems in one ptxas run: any spill, and a stack frame above its
/// kernel's limit ([`frame_limit`]).
pub fn problems(arch: &str, resources: &[Resources]) -> Vec<String> {
    let mut found = Vec::new();
    for r in resources {
        if r.spill_stores > 0 || r.spill_loads > 0 {
            found.push(format!(
                "{}{} spills on {arch}: {} bytes spill stores, {} bytes spill loads",
                if r.entry {
                    "kernel "
                } else {
                    "device function "
                },
                r.name,
                r.spill_stores,
                r.spill_loads
            ));
        }
        if let Some(limit) = frame_limit(&r.name).filter(|&l| r.entry && r.stack > l) {
            found.push(format!(
                "kernel {} has a {}-byte stack frame on {arch}, more than its {limit} (its register \
                 arrays went to local memory: indices that are not compile-time constants after \
                 unrolling?)",
                r.name, r.stack
            ));
        }
    }
    found
}

/// The cubin ptxas writes for `ptx` (`x/<file>.ptx`) and `arch`:
/// `x/<file>.<arch>.cubin`, the name the host's build script embeds.
pub fn cubin_path(ptx: &Path, arch: &str) -> PathBuf {
    ptx.with_extension(format!("{arch}.cubin"))
}

/// Runs ptxas on each PTX file for each of its target's GPUs, keeps the
/// compiled cubin next to the PTX ([`cubin_path`]), prints the table, and
/// fails on spills or a stack frame above its kernel's limit ([`frame_limit`]).
pub fn report(files: &[(&PtxTarget, PathBuf)]) -> Result<()> {
    let ptxas = ensure_ptxas()?;
    let version = util::stdout_of(Command::new(&ptxas).arg("--version"))?;
    println!(
        "ptxas report ({})",
        version
            .lines()
            .find(|l| l.contains("release"))
            .unwrap_or("unknown version")
            .trim()
    );
    let mut all_problems = Vec::new();
    for (target, path) in files {
        for arch in target.ptxas_archs {
            let mut cmd = Command::new(&ptxas);
            cmd.arg("-v")
                .arg(format!("-arch={arch}"))
                .arg(path)
                .arg("-o")
                .arg(cubin_path(path, arch));
            let out = cmd
                .output()
                .with_context(|| format!("cannot start `{}`", util::show(&cmd)))?;
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            if !out.status.success() {
                bail!(
                    "`{}` failed ({})\n{}",
                    util::show(&cmd),
                    out.status,
                    text.trim_end()
                );
            }
            for line in text
                .lines()
                .filter(|l| l.contains("warning") || l.contains("error"))
            {
                println!("  {line}");
            }
            let mut resources = parse(&text);
            // Kernels by name, then called functions: the same order for every arch.
            resources.sort_by(|a, b| (!a.entry, &a.name).cmp(&(!b.entry, &b.name)));
            print_table(&path.display().to_string(), arch, &resources);
            all_problems.extend(problems(arch, &resources));
        }
    }
    if all_problems.is_empty() {
        println!(
            "ptxas: no spills; no stack frame in hot kernels ({}); none above {} bytes in {}",
            HOT_PREFIXES.join("*, ") + "*",
            FRAME_LIMITS.iter().map(|(_, n)| n.to_string()).collect::<Vec<_>>().join(", "),
            FRAME_LIMITS.iter().map(|(p, _)| format!("{p}*")).collect::<Vec<_>>().join(", ")
        );
        Ok(())
    } else {
        let mut msg = String::from("ptxas report failed:");
        for p in &all_problems {
            msg.push_str(&format!("\n  - {p}"));
        }
        Err(anyhow!(msg))
    }
}

fn print_table(file: &str, arch: &str, resources: &[Resources]) {
    println!("{file} for {arch}:");
    println!(
        "  {:<6}  {:>4}  {:>10}  {:>11}  {:>12}  {:>11}  kernel",
        "arch", "regs", "smem bytes", "stack bytes", "spill stores", "spill loads"
    );
    for r in resources {
        let regs = if r.entry {
            r.registers.to_string()
        } else {
            "-".into()
        };
        let name = if r.entry {
            r.name.clone()
        } else {
            format!("{} (device function)", r.name)
        };
        println!(
            "  {arch:<6}  {regs:>4}  {:>10}  {:>11}  {:>12}  {:>11}  {name}",
            r.smem, r.stack, r.spill_stores, r.spill_loads
        );
    }
    if resources.is_empty() {
        println!("  (no functions)");
    }
}

/// `cargo xtask ptxas-report`: the report on the committed PTX.
pub fn report_committed() -> Result<()> {
    let mut files = Vec::new();
    for target in ptx::TARGETS {
        let path = ptx::committed_path(target);
        if !path.is_file() {
            bail!(
                "{} is missing: run `cargo xtask build-ptx`",
                path.display()
            );
        }
        files.push((target, path));
    }
    report(&files)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str = "\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'sgemm_v3' for 'sm_80'
ptxas info    : Function properties for sgemm_v3
    256 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 112 registers, used 1 barriers, 8192 bytes smem, 380 bytes cmem[0]
ptxas info    : Compile time = 2.537 ms
ptxas info    : Function properties for helper
    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function 'vec_add' for 'sm_80'
ptxas info    : Function properties for vec_add
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 0 barriers, 380 bytes cmem[0]
";

    #[test]
    fn parses_entries_and_functions() {
        let got = parse(OUTPUT);
        assert_eq!(
            got,
            [
                Resources {
                    name: "sgemm_v3".into(),
                    entry: true,
                    registers: 112,
                    smem: 8192,
                    stack: 256,
                    spill_stores: 8,
                    spill_loads: 12,
                },
                Resources {
                    name: "helper".into(),
                    stack: 16,
                    ..Resources::default()
                },
                Resources {
                    name: "vec_add".into(),
                    entry: true,
                    registers: 12,
                    ..Resources::default()
                },
            ]
        );
    }

    #[test]
    fn flags_spills_and_hot_stack_frames() {
        let got = problems("sm_80", &parse(OUTPUT));
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got[0].starts_with("kernel sgemm_v3 spills on sm_80"));
        assert!(got[1].starts_with("kernel sgemm_v3 has a 256-byte stack frame on sm_80, more than its 0"), "{got:?}");
        let cold = Resources {
            name: "vec_add".into(),
            entry: true,
            stack: 64,
            ..Resources::default()
        };
        assert!(problems("sm_80", &[cold]).is_empty());
        assert!(is_hot("transpose_padded") && !is_hot("my_sgemm_"));
        // The tensor-core engine: its parameters' 88 bytes, no more.
        let mma = |stack| Resources { name: "gemm_mma_bf16_bf16_nn_64x64x32_direct".into(), entry: true, stack, ..Resources::default() };
        assert!(problems("sm_90", &[mma(88)]).is_empty());
        let got = problems("sm_90", &[mma(160)]);
        assert!(got.len() == 1 && got[0].contains("160-byte stack frame on sm_90, more than its 88"), "{got:?}");
    }
}
