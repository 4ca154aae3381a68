//! Process running and small file helpers shared by the subcommands, and the
//! project-specific places: the workspace root, the sysroot, llvm-tools.
//!
//! Errors are `anyhow` errors; `main` prints them with their context chain
//! (`error: what was being done: why it failed`).

use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use anyhow::{Context, Result, bail};

/// The workspace root (the parent of this crate's directory). Every
/// subcommand runs with this as its working directory.
pub fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir).to_path_buf()
}

/// The cargo running us (`CARGO`, set by `cargo run`), or `cargo` from `PATH`.
pub fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// `rustc`, honouring `RUSTC` like cargo does.
pub fn rustc() -> Command {
    Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
}

/// The command line as a shell would take it, for messages.
pub fn show(cmd: &Command) -> String {
    let words: Vec<_> = std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|w| w.to_string_lossy())
        .collect();
    // shlex refuses only NUL bytes, which no process argument can hold.
    shlex::try_join(words.iter().map(|w| w.as_ref())).unwrap_or_else(|_| words.join(" "))
}

/// Runs a command with inherited stdio; fails unless it exits with 0.
pub fn run(cmd: &mut Command) -> Result<()> {
    let status = cmd
        .status()
        .with_context(|| format!("cannot start `{}`", show(cmd)))?;
    if !status.success() {
        bail!("`{}` failed ({status})", show(cmd));
    }
    Ok(())
}

/// Runs a command capturing stdout and stderr; fails (showing stderr) unless
/// it exits with 0.
pub fn output(cmd: &mut Command) -> Result<Output> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot start `{}`", show(cmd)))?;
    if !out.status.success() {
        bail!(
            "`{}` failed ({})\n{}",
            show(cmd),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim_end()
        );
    }
    Ok(out)
}

/// Stdout of a successful command, as a trimmed string.
pub fn stdout_of(cmd: &mut Command) -> Result<String> {
    let out = output(cmd)?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

pub fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

/// Writes `data` to `path`, creating its directory first.
pub fn write(path: &Path, data: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent() {
        create_dir_all(dir)?;
    }
    std::fs::write(path, data).with_context(|| format!("cannot write {}", path.display()))
}

pub fn create_dir_all(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))
}

/// Removes a directory tree if it exists.
pub fn remove_dir_all(dir: &Path) -> Result<()> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("cannot remove {}", dir.display()))
        }
        _ => Ok(()),
    }
}

/// `dir`'s entries, sorted by name (for deterministic output).
pub fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut entries = std::fs::read_dir(dir)
        .and_then(|entries| entries.map(|e| e.map(|e| e.path())).collect::<Result<Vec<_>, _>>())
        .with_context(|| format!("cannot list {}", dir.display()))?;
    entries.sort();
    Ok(entries)
}

/// A stable 64-bit content hash (FNV-1a; std's hasher is not stable across
/// releases).
pub fn content_hash(data: &[u8]) -> u64 {
    let mut h = fnv::FnvHasher::default();
    h.write(data);
    h.finish()
}

/// The toolchain's sysroot (`rustc --print sysroot`).
pub fn sysroot() -> Result<PathBuf> {
    Ok(PathBuf::from(stdout_of(
        rustc().args(["--print", "sysroot"]),
    )?))
}

/// `<sysroot>/lib/rustlib/<host>/bin` if it holds `llvm-link` (the
/// `llvm-tools` component).
pub fn llvm_tools_dir(sysroot: &Path) -> Option<PathBuf> {
    let rustlib = sysroot.join("lib").join("rustlib");
    let mut candidates: Vec<PathBuf> = std::fs::read_dir(&rustlib)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|bin| bin.join("llvm-link").is_file())
        .collect();
    candidates.sort();
    candidates.into_iter().next()
}

/// Human-readable byte count.
pub fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_hash_is_fnv1a() {
        assert_eq!(content_hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(content_hash(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn show_quotes_only_when_needed() {
        let mut cmd = Command::new("llc");
        cmd.args(["-O3", "a b", "-passes=default<O3>", "it's"]);
        let shown = show(&cmd);
        assert!(shown.starts_with("llc -O3 "), "{shown}");
        assert_eq!(
            shlex::split(&shown).unwrap(),
            ["llc", "-O3", "a b", "-passes=default<O3>", "it's"]
        );
    }
}
