//! Errors, process running and small file helpers shared by the subcommands.

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// An expected failure: printed as `error: …` and turned into exit status 1.
pub struct Error(pub String);

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// `Err(Error)` from a message.
pub fn fail<T>(msg: impl Into<String>) -> Result<T> {
    Err(Error(msg.into()))
}

/// Adds what was being done to an error from the standard library.
pub trait Context<T> {
    fn context(self, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T, E: fmt::Display> Context<T> for std::result::Result<T, E> {
    fn context(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| Error(format!("{}: {e}", what())))
    }
}

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

/// The command line as a shell would show it, for messages.
pub fn show(cmd: &Command) -> String {
    let mut s = quote(cmd.get_program());
    for arg in cmd.get_args() {
        s.push(' ');
        s.push_str(&quote(arg));
    }
    s
}

fn quote(s: &OsStr) -> String {
    let s = s.to_string_lossy();
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        s.into_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Runs a command with inherited stdio; fails unless it exits with 0.
pub fn run(cmd: &mut Command) -> Result<()> {
    let status = cmd
        .status()
        .context(|| format!("cannot start `{}`", show(cmd)))?;
    if status.success() {
        Ok(())
    } else {
        fail(format!("`{}` failed ({status})", show(cmd)))
    }
}

/// Runs a command capturing stdout and stderr; fails (showing stderr) unless
/// it exits with 0.
pub fn output(cmd: &mut Command) -> Result<Output> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .context(|| format!("cannot start `{}`", show(cmd)))?;
    if out.status.success() {
        Ok(out)
    } else {
        fail(format!(
            "`{}` failed ({})\n{}",
            show(cmd),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim_end()
        ))
    }
}

/// Stdout of a successful command, as a trimmed string.
pub fn stdout_of(cmd: &mut Command) -> Result<String> {
    let out = output(cmd)?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

pub fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).context(|| format!("cannot read {}", path.display()))
}

pub fn write(path: &Path, data: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent() {
        create_dir_all(dir)?;
    }
    std::fs::write(path, data).context(|| format!("cannot write {}", path.display()))
}

pub fn create_dir_all(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).context(|| format!("cannot create {}", dir.display()))
}

/// Removes a directory tree if it exists.
pub fn remove_dir_all(dir: &Path) -> Result<()> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            fail(format!("cannot remove {}: {e}", dir.display()))
        }
        _ => Ok(()),
    }
}

/// `dir`'s entries, sorted by name (for deterministic output).
pub fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir).context(|| format!("cannot list {}", dir.display()))? {
        entries.push(
            entry
                .context(|| format!("cannot list {}", dir.display()))?
                .path(),
        );
    }
    entries.sort();
    Ok(entries)
}

/// Whether an executable named `name` is on `PATH`.
pub fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// 64-bit FNV-1a: a stable content hash (std's hasher is not stable).
pub fn fnv1a(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
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
    fn fnv1a_known_values() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn show_quotes_only_when_needed() {
        let mut cmd = Command::new("llc");
        cmd.args(["-O3", "a b", "-passes=default<O3>", "it's"]);
        assert_eq!(show(&cmd), r"llc -O3 'a b' '-passes=default<O3>' 'it'\''s'");
    }
}
