//! PTX performance directives: launch bounds for chosen kernels.
//!
//! CUDA C++ writes `__launch_bounds__(T, B)` on a kernel; NVVM turns it
//! into `.maxntid T, 1, 1` and `.minnctapersm B` on the PTX `.entry`, and
//! `ptxas` caps the kernel's registers so that `B` blocks of `T` threads
//! fit on one SM. Rust has no such attribute, so the PTX linker adds the
//! directives itself, after `llc`: the table is
//! `ferrotile_kernels::LAUNCH_BOUNDS` (xtask depends on the kernels
//! crate, so the table lives next to the kernels and the host launcher
//! takes its block size from the same constants). The directives go
//! between an entry's parameter list and its body, the place the PTX ISA
//! gives them:
//!
//! ```text
//! .visible .entry k(
//!     .param .u64 .ptr .align 1 k_param_0
//! )
//! .maxntid 256, 1, 1
//! .minnctapersm 2
//! {
//! ```
//!
//! The edit is a pure function of the PTX text and the table, so the PTX
//! stays deterministic. A table entry naming no entry of the PTX, an entry
//! listed twice, or an entry that already carries directives is an error.

use ferrotile_kernels::launch::LaunchBounds;

use anyhow::{Result, bail};

/// The directive lines for `b`.
pub fn lines(b: &LaunchBounds) -> String {
    format!(
        ".maxntid {}, 1, 1\n.minnctapersm {}\n",
        b.max_threads, b.min_blocks_per_sm
    )
}

/// `ptx` with the directives of every entry of `table` inserted.
pub fn apply(ptx: &str, table: &[LaunchBounds]) -> Result<String> {
    for (i, b) in table.iter().enumerate() {
        if table[..i].iter().any(|o| o.kernel == b.kernel) {
            bail!("launch bounds: `{}` is listed twice", b.kernel);
        }
        if b.max_threads == 0 || b.max_threads > 1024 || b.min_blocks_per_sm == 0 {
            bail!(
                "launch bounds of `{}`: max_threads {} (1..=1024) and min_blocks_per_sm {} (≥ 1)",
                b.kernel, b.max_threads, b.min_blocks_per_sm
            );
        }
    }
    let mut out = String::with_capacity(ptx.len() + table.len() * 40);
    let mut found = vec![false; table.len()];
    // The bounds of the entry whose header is being read (until its `{`).
    let mut pending: Option<usize> = None;
    for line in ptx.split_inclusive('\n') {
        let t = line.trim();
        if let Some(i) = pending {
            if t.starts_with(".maxntid") || t.starts_with(".minnctapersm") || t.starts_with(".maxnreg") {
                bail!(
                    "launch bounds: `{}` already has a performance directive ({t})",
                    table[i].kernel
                );
            }
            if t == "{" {
                out.push_str(&lines(&table[i]));
                pending = None;
            }
        } else if let Some(name) = entry_name(t)
            && let Some(i) = table.iter().position(|b| b.kernel == name)
        {
            found[i] = true;
            pending = Some(i);
        }
        out.push_str(line);
    }
    if let Some(i) = pending {
        bail!("launch bounds: the body of `{}` was not found", table[i].kernel);
    }
    let missing: Vec<&str> = table
        .iter()
        .zip(&found)
        .filter(|(_, f)| !**f)
        .map(|(b, _)| b.kernel)
        .collect();
    if !missing.is_empty() {
        bail!(
            "launch bounds name kernels the PTX does not have: {}",
            missing.join(", ")
        );
    }
    Ok(out)
}

/// The name declared by an `.entry` line (`[.visible] .entry name(`).
fn entry_name(line: &str) -> Option<&str> {
    let mut words = line.split_whitespace();
    let mut w = words.next()?;
    if w == ".visible" || w == ".weak" {
        w = words.next()?;
    }
    if w != ".entry" {
        return None;
    }
    words.next()?.split('(').next()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = "\
.visible .entry k1(
\t.param .u64 .ptr .align 1 k1_param_0
)                                       // @k1
{
\tret;
}
.visible .entry k10()
{
\tret;
}
";

    fn b(kernel: &'static str, max_threads: u32, min_blocks_per_sm: u32) -> LaunchBounds {
        LaunchBounds { kernel, max_threads, min_blocks_per_sm }
    }

    #[test]
    fn inserts_between_parameters_and_body() {
        let out = apply(PTX, &[b("k10", 128, 4), b("k1", 256, 2)]).unwrap();
        assert!(out.contains("// @k1\n.maxntid 256, 1, 1\n.minnctapersm 2\n{\n"), "{out}");
        assert!(out.contains(".entry k10()\n.maxntid 128, 1, 1\n.minnctapersm 4\n{\n"), "{out}");
        assert_eq!(out.lines().count(), PTX.lines().count() + 4);
        assert_eq!(apply(PTX, &[]).unwrap(), PTX);
    }

    #[test]
    fn rejects_unknown_duplicate_and_existing() {
        let e = apply(PTX, &[b("k2", 256, 2)]).unwrap_err().to_string();
        assert!(e.contains("k2"), "{e}");
        assert!(apply(PTX, &[b("k1", 256, 2), b("k1", 128, 2)]).is_err());
        assert!(apply(PTX, &[b("k1", 0, 2)]).is_err());
        let twice = apply(PTX, &[b("k1", 256, 2)]).unwrap();
        assert!(apply(&twice, &[b("k1", 256, 2)]).is_err());
    }

    #[test]
    fn kernels_table_is_consistent() {
        for b in ferrotile_kernels::LAUNCH_BOUNDS {
            assert!(b.max_threads % 32 == 0 && b.max_threads <= 1024, "{b:?}");
            assert!(b.min_blocks_per_sm >= 1, "{b:?}");
        }
    }
}
