//! Linker mode: the xtask executable standing in for rustc's nvptx bitcode
//! linker.
//!
//! rustc links `nvptx64-nvidia-cuda` crates by handing LLVM bitcode to a
//! linker program (`-C linker=…`), called as
//!
//! ```text
//! LINKER --export-symbol K1 … a.rcgu.o libcore-*.rlib libcompiler_builtins-*.rlib
//!        -L dir … --target nvptx64-nvidia-cuda --target-cpu sm_80 -o out.ptx -O3 [--debug]
//! ```
//!
//! (or `LINKER @response-file`). `build-ptx` sets [`ENV`] so that the
//! executable knows it was started as a linker. The link is done with the
//! toolchain's `llvm-tools`:
//!
//! 1. `llvm-link` the crate's own objects into `crate.bc`;
//! 2. `llvm-link` every bitcode member of the rlibs into `deps.bc`, then
//!    `llvm-link crate.bc --only-needed deps.bc` (one `deps.bc`, so that what
//!    a needed member needs from another member is pulled in too, whatever
//!    the member order);
//! 3. `opt`: internalize everything but the exported kernels, drop the
//!    rest, `default<O3>` with the unroll threshold of [`UNROLL_THRESHOLD`],
//!    strip debug info (the PTX must not depend on where the repo lives);
//! 4. `llc -mcpu=<target-cpu>` to PTX;
//! 5. launch bounds (`.maxntid`, `.minnctapersm`) added to the kernels listed
//!    in `ferrotile_kernels::LAUNCH_BOUNDS` (see `directives.rs`);
//!    written to a temporary name and then renamed, so a failed link leaves
//!    no PTX behind.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, anyhow, bail};
use object::read::archive::ArchiveFile;

use crate::util;

/// Set (to `1`) in the environment of the cargo that `build-ptx` runs;
/// rustc passes it on to the linker it starts.
pub const ENV: &str = "FERROTILE_PTX_LINKER";

/// Set by `build-ptx` for a PTX module that must leave out kernels another
/// module already holds (the experiments module): a comma-separated list
/// of entry names dropped from the exported kernels.
pub const EXCLUDE_ENV: &str = "FERROTILE_PTX_EXCLUDE";

/// Set by `build-ptx` to the `-mattr` of `llc` (e.g. `+ptx85`; empty:
/// the target's default PTX ISA version).
pub const MATTR_ENV: &str = "FERROTILE_PTX_MATTR";

/// Overrides where `llvm-link`, `opt` and `llc` are looked up.
pub const TOOLS_ENV: &str = "FERROTILE_LLVM_TOOLS";

/// Set to keep the linker's intermediate files (`<out>.link/`).
pub const KEEP_ENV: &str = "FERROTILE_PTX_KEEP_TEMPS";

/// LLVM's loop-unroll threshold for device code (rustc's codegen and the
/// linker's `opt`). With the default, register-array accumulators of the
/// SGEMM tiles stay in local memory; see docs/design/DESIGN.md, "Toolchain".
pub const UNROLL_THRESHOLD: u32 = 4000;

pub const TARGET: &str = "nvptx64-nvidia-cuda";

/// What rustc asked for.
#[derive(Debug, Default, PartialEq)]
pub struct LinkArgs {
    pub exports: Vec<String>,
    /// The crate's own bitcode objects (`.o`, `.bc`, also `.ll` given by
    /// `-C link-arg`): linked whole.
    pub objects: Vec<PathBuf>,
    /// `.rlib` / `.a` archives: only what the objects need is linked.
    pub archives: Vec<PathBuf>,
    pub lib_dirs: Vec<PathBuf>,
    pub target_cpu: Option<String>,
    pub output: Option<PathBuf>,
    /// `0`–`3`, `s` or `z`.
    pub opt_level: String,
}

/// Entry point of linker mode; `args` excludes the program name.
pub fn main(args: Vec<OsString>) -> Result<()> {
    let args = expand_response_files(args, 0)?;
    let mut link = parse_args(&args)?;
    if let Ok(list) = std::env::var(EXCLUDE_ENV) {
        let excluded: Vec<&str> = list.split(',').filter(|s| !s.is_empty()).collect();
        link.exports.retain(|e| !excluded.contains(&e.as_str()));
    }
    link_ptx(&link)
}

/// Replaces every `@file` argument by the arguments in that file.
pub fn expand_response_files(args: Vec<OsString>, depth: usize) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for arg in args {
        let Some(arg) = arg.to_str() else {
            bail!(
                "linker argument is not UTF-8: {}",
                arg.to_string_lossy()
            );
        };
        if let Some(file) = arg.strip_prefix('@') {
            if depth > 8 {
                bail!("response files nested too deeply at @{file}");
            }
            let text = std::fs::read_to_string(file)
                .with_context(|| format!("cannot read linker response file {file}"))?;
            let nested = split_response_file(&text)?
                .into_iter()
                .map(OsString::from)
                .collect();
            out.extend(expand_response_files(nested, depth + 1)?);
        } else {
            out.push(arg.to_string());
        }
    }
    Ok(out)
}

/// Splits a response file GNU-style: whitespace separates arguments, `\`
/// escapes the next character, and '…' or "…" quote. (rustc writes one
/// argument per line with `\` before spaces and backslashes.)
///
/// Hand-written on purpose: `shlex::split` is POSIX-shell splitting, not
/// libiberty's response-file splitting. Tried with shlex 2.0.1, it drops a
/// word starting with `#` and everything after it as a comment (`a #b` gives
/// `[a]`) and keeps `\` before ordinary characters in "…" (`"s\qt"` gives
/// `s\qt`, not `sqt`).
pub fn split_response_file(text: &str) -> Result<Vec<String>> {
    let mut args = Vec::new();
    let mut cur = String::new();
    let mut in_arg = false;
    let mut quote: Option<char> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (c, quote) {
            ('\\', q) if q != Some('\'') => {
                match chars.next() {
                    Some(next) => cur.push(next),
                    None => bail!("linker response file ends with a lone `\\`"),
                }
                in_arg = true;
            }
            (c, Some(q)) if c == q => quote = None,
            (c, Some(_)) => cur.push(c),
            ('\'' | '"', None) => {
                quote = Some(c);
                in_arg = true;
            }
            (c, None) if c.is_whitespace() => {
                if in_arg {
                    args.push(std::mem::take(&mut cur));
                    in_arg = false;
                }
            }
            (c, None) => {
                cur.push(c);
                in_arg = true;
            }
        }
    }
    if quote.is_some() {
        bail!("linker response file has an unterminated quote");
    }
    if in_arg {
        args.push(cur);
    }
    Ok(args)
}

/// Reads rustc's linker command line. Not clap: these are the arguments of
/// rustc's nvptx linker protocol (see the module doc), not a command line of
/// ours; an argument this linker does not know must fail the link with a
/// message naming the ones it knows.
pub fn parse_args(args: &[String]) -> Result<LinkArgs> {
    let mut link = LinkArgs {
        opt_level: "3".into(),
        ..LinkArgs::default()
    };
    let mut it = args.iter();
    let value = |it: &mut std::slice::Iter<String>, flag: &str| -> Result<String> {
        match it.next() {
            Some(v) => Ok(v.clone()),
            None => Err(anyhow!("linker argument {flag} needs a value")),
        }
    };
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let take = |it: &mut std::slice::Iter<String>| match &inline {
            Some(v) => Ok(v.clone()),
            None => value(it, flag),
        };
        match flag {
            "--export-symbol" => link.exports.push(take(&mut it)?),
            "--target" => {
                let t = take(&mut it)?;
                if t != TARGET {
                    bail!("this linker only links {TARGET}, not {t}");
                }
            }
            "--target-cpu" => link.target_cpu = Some(take(&mut it)?),
            "-o" => link.output = Some(PathBuf::from(take(&mut it)?)),
            "-L" => link.lib_dirs.push(PathBuf::from(take(&mut it)?)),
            "--debug" => {} // debug info is stripped: see the module doc
            _ if flag.starts_with("-L") => link.lib_dirs.push(PathBuf::from(&flag[2..])),
            "-O0" | "-O1" | "-O2" | "-O3" | "-Os" | "-Oz" => link.opt_level = flag[2..].into(),
            _ if flag.starts_with('-') => {
                bail!(
                    "unsupported linker argument `{arg}` (ferrotile's PTX linker knows \
                     --export-symbol, --target, --target-cpu, -o, -L, -O<n>, --debug)"
                );
            }
            _ if arg.ends_with(".rlib") || arg.ends_with(".a") => {
                link.archives.push(PathBuf::from(arg))
            }
            _ => link.objects.push(PathBuf::from(arg)),
        }
    }
    if link.output.is_none() {
        bail!("no output file (-o) given to the linker");
    }
    if link.target_cpu.is_none() {
        bail!("no --target-cpu given to the linker (build with -C target-cpu=sm_XX)");
    }
    if link.objects.is_empty() {
        bail!("no object files given to the linker");
    }
    Ok(link)
}

/// The directory holding `llvm-link`, `opt` and `llc`: `$FERROTILE_LLVM_TOOLS`,
/// else the sysroot that rustc's `-L <sysroot>/lib/rustlib/<target>/lib/…`
/// points into, else `rustc --print sysroot`.
fn tools_dir(link: &LinkArgs) -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os(TOOLS_ENV) {
        return Ok(PathBuf::from(dir));
    }
    for dir in &link.lib_dirs {
        let mut p = dir.as_path();
        while let Some(parent) = p.parent() {
            if p.file_name() == Some("rustlib".as_ref())
                && parent.file_name() == Some("lib".as_ref())
                && let Some(sysroot) = parent.parent()
                && let Some(found) = util::llvm_tools_dir(sysroot)
            {
                return Ok(found);
            }
            p = parent;
        }
    }
    let sysroot = util::sysroot()?;
    util::llvm_tools_dir(&sysroot).ok_or_else(|| {
        anyhow!(
            "llvm-link not found under {}/lib/rustlib/*/bin: install the llvm-tools \
             component (`rustup component add llvm-tools`)",
            sysroot.display()
        )
    })
}

/// Runs one LLVM tool; its stderr is shown (as warnings) on success and is
/// the error message on failure.
fn tool(cmd: &mut Command) -> Result<()> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot start `{}`", util::show(cmd)))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        bail!(
            "`{}` failed ({})\n{}",
            util::show(cmd),
            out.status,
            stderr.trim_end()
        );
    }
    if !stderr.trim().is_empty() {
        eprintln!("ferrotile PTX linker: {}", stderr.trim_end());
    }
    Ok(())
}

fn link_ptx(link: &LinkArgs) -> Result<()> {
    let output = link.output.as_deref().expect("checked by parse_args");
    let cpu = link.target_cpu.as_deref().expect("checked by parse_args");
    let tools = tools_dir(link)?;
    let tool_path = |name: &str| -> Result<PathBuf> {
        let p = tools.join(name);
        if p.is_file() {
            Ok(p)
        } else {
            Err(anyhow!(
                "{} not found (llvm-tools component missing? `rustup component add llvm-tools`)",
                p.display()
            ))
        }
    };
    let (llvm_link, opt, llc) = (
        tool_path("llvm-link")?,
        tool_path("opt")?,
        tool_path("llc")?,
    );
    if link.exports.is_empty() {
        eprintln!("ferrotile PTX linker: warning: no --export-symbol, the PTX will hold no kernel");
    }

    let work = temp_dir_for(output);
    util::remove_dir_all(&work)?;
    util::create_dir_all(&work)?;

    // 1. The crate's own objects, whole.
    let crate_bc = work.join("crate.bc");
    tool(
        Command::new(&llvm_link)
            .args(&link.objects)
            .arg("-o")
            .arg(&crate_bc),
    )?;

    // 2. What the crate needs from the rlibs.
    let members = unpack_bitcode_members(&link.archives, &work.join("members"))?;
    let linked = if members.is_empty() {
        crate_bc
    } else {
        let deps_bc = work.join("deps.bc");
        tool(
            Command::new(&llvm_link)
                .args(&members)
                .arg("-o")
                .arg(&deps_bc),
        )?;
        let linked = work.join("linked.bc");
        tool(
            Command::new(&llvm_link)
                .arg(&crate_bc)
                .arg("--only-needed")
                .arg(&deps_bc)
                .arg("-o")
                .arg(&linked),
        )?;
        linked
    };

    // 3. Keep the kernels, optimise.
    let opt_bc = work.join("opt.bc");
    tool(
        Command::new(&opt)
            .arg(format!(
                "--internalize-public-api-list={}",
                link.exports.join(",")
            ))
            .arg(format!(
                "-passes=internalize,globaldce,default<O{}>",
                link.opt_level
            ))
            .arg(format!("-unroll-threshold={UNROLL_THRESHOLD}"))
            .arg("-strip-debug")
            .arg(&linked)
            .arg("-o")
            .arg(&opt_bc),
    )?;

    // 4. PTX.
    let llc_level = match link.opt_level.as_str() {
        "s" | "z" => "2",
        l => l,
    };
    let tmp_ptx = work.join("out.ptx");
    let mut llc_cmd = Command::new(&llc);
    llc_cmd.arg(format!("-O{llc_level}")).arg(format!("-mcpu={cpu}")).arg(format!("-mtriple={TARGET}"));
    if let Some(mattr) = std::env::var(MATTR_ENV).ok().filter(|m| !m.is_empty()) {
        llc_cmd.arg(format!("-mattr={mattr}"));
    }
    tool(llc_cmd.arg(&opt_bc).arg("-o").arg(&tmp_ptx))?;
    // 5. Launch bounds.
    let text = util::read(&tmp_ptx)?;
    let text = String::from_utf8(text).context("llc wrote PTX that is not UTF-8")?;
    // The bounds of the kernels this module exports (the table also holds
    // those of the other module's kernels).
    let bounds: Vec<_> = ferrotile_kernels::LAUNCH_BOUNDS.iter().filter(|b| link.exports.iter().any(|e| e == b.kernel)).copied().collect();
    let text = crate::directives::apply(&text, &bounds)?;
    util::write(&tmp_ptx, text.as_bytes())?;
    std::fs::rename(&tmp_ptx, output)
        .with_context(|| format!("cannot move {} to {}", tmp_ptx.display(), output.display()))?;
    if std::env::var_os(KEEP_ENV).is_none() {
        util::remove_dir_all(&work)?;
    }
    Ok(())
}

/// `<dir>/<file name>.link/` beside the output.
fn temp_dir_for(output: &Path) -> PathBuf {
    let mut name = output
        .file_name()
        .map(OsString::from)
        .unwrap_or_else(|| "out".into());
    name.push(".link");
    output.with_file_name(name)
}

/// Writes the LLVM-bitcode members of `archives` into `dir` (other members,
/// such as `lib.rmeta`, are skipped) and returns their paths in archive
/// order. File names carry the archive and member index, so members of the
/// same name in different archives do not collide.
fn unpack_bitcode_members(archives: &[PathBuf], dir: &Path) -> Result<Vec<PathBuf>> {
    util::create_dir_all(dir)?;
    let mut paths = Vec::new();
    for (ai, archive) in archives.iter().enumerate() {
        let bytes = util::read(archive)?;
        for (mi, (name, data)) in archive_members(&bytes)
            .with_context(|| format!("cannot read the archive {}", archive.display()))?
            .into_iter()
            .enumerate()
        {
            if !is_bitcode(data) {
                continue;
            }
            let safe: String = String::from_utf8_lossy(name)
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || "._-".contains(c) {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let path = dir.join(format!("{ai:02}-{mi:04}-{safe}"));
            util::write(&path, data)?;
            paths.push(path);
        }
    }
    Ok(paths)
}

/// The regular members (name, data) of an `ar` archive such as an `.rlib`,
/// in archive order; symbol and long-name tables are not members.
fn archive_members(archive: &[u8]) -> Result<Vec<(&[u8], &[u8])>> {
    let file = ArchiveFile::parse(archive)?;
    if file.is_thin() {
        bail!("thin archives are not supported");
    }
    let mut out = Vec::new();
    for member in file.members() {
        let member = member?;
        out.push((member.name(), member.data(archive)?));
    }
    Ok(out)
}

/// Whether `data` is LLVM bitcode (raw, or in the wrapper header).
fn is_bitcode(data: &[u8]) -> bool {
    data.starts_with(b"BC\xC0\xDE") || data.starts_with(&[0xDE, 0xC0, 0x17, 0x0B])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_rustc_command_line() {
        let args = strings(&[
            "--export-symbol",
            "k1",
            "--export-symbol=k2",
            "/t/a.rcgu.o",
            "/t/b.rcgu.o",
            "/t/libcore-1.rlib",
            "/t/libcompiler_builtins-2.rlib",
            "-L",
            "/t/raw",
            "--target",
            "nvptx64-nvidia-cuda",
            "--target-cpu",
            "sm_80",
            "-L",
            "/s/lib/rustlib/nvptx64-nvidia-cuda/lib/self-contained",
            "-o",
            "/t/out.ptx",
            "-O3",
            "--debug",
        ]);
        let link = parse_args(&args).unwrap();
        assert_eq!(link.exports, ["k1", "k2"]);
        assert_eq!(
            link.objects,
            [PathBuf::from("/t/a.rcgu.o"), PathBuf::from("/t/b.rcgu.o")]
        );
        assert_eq!(link.archives.len(), 2);
        assert_eq!(link.lib_dirs.len(), 2);
        assert_eq!(link.target_cpu.as_deref(), Some("sm_80"));
        assert_eq!(link.output, Some(PathBuf::from("/t/out.ptx")));
        assert_eq!(link.opt_level, "3");
    }

    #[test]
    fn rejects_what_it_cannot_do() {
        let base = strings(&["a.o", "--target-cpu", "sm_80", "-o", "x.ptx"]);
        assert!(parse_args(&base).is_ok());
        let mut bad = base.clone();
        bad.push("--gc-sections".into());
        assert!(
            parse_args(&bad)
                .unwrap_err()
                .to_string()
                .contains("unsupported linker argument")
        );
        let mut bad = base.clone();
        bad.extend(strings(&["--target", "x86_64-unknown-linux-gnu"]));
        assert!(parse_args(&bad).unwrap_err().to_string().contains("only links"));
        assert!(
            parse_args(&strings(&["a.o", "-o", "x.ptx"]))
                .unwrap_err()
                .to_string()
                .contains("target-cpu")
        );
        assert!(
            parse_args(&strings(&["a.o", "--target-cpu"]))
                .unwrap_err()
                .to_string()
                .contains("needs a value")
        );
    }

    /// A GNU `ar` archive (what rustc writes an `.rlib` as): symbol table,
    /// long-name table, then the members.
    fn gnu_archive(members: &[(&str, &[u8])]) -> Vec<u8> {
        fn member(out: &mut Vec<u8>, name: &str, data: &[u8]) {
            let header = format!("{name:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n", 0, 0, 0, 644, data.len());
            assert_eq!(header.len(), 60);
            out.extend(header.as_bytes());
            out.extend(data);
            if data.len() % 2 == 1 {
                out.push(b'\n');
            }
        }
        let mut table = String::new();
        let mut names = Vec::new();
        for (name, _) in members {
            if name.len() > 15 {
                names.push(format!("/{}", table.len()));
                table.push_str(&format!("{name}/\n"));
            } else {
                names.push(format!("{name}/"));
            }
        }
        let mut out = b"!<arch>\n".to_vec();
        member(&mut out, "/", b"\0\0\0\0");
        member(&mut out, "//", table.as_bytes());
        for (name, (_, data)) in names.iter().zip(members) {
            member(&mut out, name, data);
        }
        out
    }

    #[test]
    fn reads_rlib_members_in_order() {
        let long = "core-0123456789abcdef.core.cgu.00.rcgu.o";
        let long2 = "compiler_builtins-0123.cgu.1.rcgu.o";
        let ar = gnu_archive(&[
            ("lib.rmeta", b"rust"),
            (long, b"BC\xC0\xDEodd"),
            (long2, b"\xDE\xC0\x17\x0B"),
        ]);
        let got = archive_members(&ar).unwrap();
        let names: Vec<_> = got.iter().map(|(n, _)| String::from_utf8_lossy(n)).collect();
        assert_eq!(names, ["lib.rmeta", long, long2]);
        assert_eq!(got[1].1, b"BC\xC0\xDEodd");
        let bitcode: Vec<_> = got.iter().map(|(_, d)| is_bitcode(d)).collect();
        assert_eq!(bitcode, [false, true, true]);

        let dir = std::env::temp_dir().join(format!("xtask-ar-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let rlib = dir.join("libcore-1.rlib");
        std::fs::write(&rlib, &ar).unwrap();
        let paths = unpack_bitcode_members(&[rlib], &dir.join("members")).unwrap();
        let files: Vec<_> = paths.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(files, [format!("00-0001-{long}"), format!("00-0002-{long2}")]);
        assert_eq!(std::fs::read(&paths[0]).unwrap(), b"BC\xC0\xDEodd");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_archives_are_errors() {
        assert!(archive_members(b"hello").is_err());
        let mut ar = gnu_archive(&[("a.o", b"BC\xC0\xDE")]);
        ar.truncate(ar.len() - 2);
        assert!(archive_members(&ar).is_err());
        assert!(archive_members(b"!<thin>\n").unwrap_err().to_string().contains("thin"));
    }

    #[test]
    fn response_files() {
        let got =
            split_response_file("--export-symbol\nk1\n/a\\ b/x.o\n'q r' \"s\\\"t\"\n").unwrap();
        assert_eq!(got, ["--export-symbol", "k1", "/a b/x.o", "q r", "s\"t"]);
        assert!(split_response_file("'open").is_err());
        // Not shell syntax: `#` starts no comment.
        assert_eq!(split_response_file("a.o\n#b.o\n").unwrap(), ["a.o", "#b.o"]);

        let dir = std::env::temp_dir().join(format!("xtask-rsp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let inner = dir.join("inner.rsp");
        std::fs::write(&inner, "-o\nout.ptx\n").unwrap();
        let outer = dir.join("outer.rsp");
        std::fs::write(&outer, format!("a.o\n@{}\n", inner.display())).unwrap();
        let args = vec![
            OsString::from("--target-cpu=sm_80"),
            OsString::from(format!("@{}", outer.display())),
        ];
        let got = expand_response_files(args, 0).unwrap();
        assert_eq!(got, ["--target-cpu=sm_80", "a.o", "-o", "out.ptx"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
