//! Running a cargo build and collecting what it built, from cargo's
//! `--message-format=json` messages (read with `cargo_metadata`).

use std::io::BufReader;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
pub use cargo_metadata::Artifact;
use cargo_metadata::Message;

use crate::util;

/// The flag that makes cargo print the JSON messages [`cargo_artifacts`] reads.
pub const MESSAGE_FORMAT: &str = "--message-format=json-diagnostic-rendered-ansi";

/// Runs a cargo build whose arguments include [`MESSAGE_FORMAT`] and
/// returns its compiler artifacts. The compiler's diagnostics are printed,
/// rendered, to stderr; lines that are not cargo messages go to stdout.
pub fn cargo_artifacts(cmd: &mut Command) -> Result<Vec<Artifact>> {
    cmd.stdout(Stdio::piped()).stdin(Stdio::null());
    eprintln!("$ {}", util::show(cmd));
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot start `{}`", util::show(cmd)))?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let found = collect(BufReader::new(stdout))?;
    let status = child.wait().context("cannot wait for cargo")?;
    if !status.success() {
        bail!("`{}` failed ({status})", util::show(cmd));
    }
    Ok(found)
}

/// The compiler artifacts of a stream of cargo messages, printing the rest.
fn collect(stream: impl std::io::BufRead) -> Result<Vec<Artifact>> {
    let mut found = Vec::new();
    for msg in Message::parse_stream(stream) {
        match msg.context("cannot read cargo's output")? {
            Message::CompilerArtifact(artifact) => found.push(artifact),
            Message::CompilerMessage(msg) => {
                if let Some(rendered) = &msg.message.rendered {
                    eprint!("{rendered}");
                }
            }
            Message::TextLine(line) => println!("{line}"),
            _ => {}
        }
    }
    Ok(found)
}

/// A `compiler-artifact` message as cargo writes it, for tests.
#[cfg(test)]
pub fn artifact_json(kind: &str, name: &str, test: bool, filenames: &[&str], exe: Option<&str>) -> String {
    let exe = exe.map_or("null".to_string(), |e| format!("{e:?}"));
    format!(
        r#"{{"reason":"compiler-artifact","package_id":"path+file:///w#x@0.1.0","manifest_path":"/w/Cargo.toml","target":{{"kind":["{kind}"],"crate_types":["{kind}"],"name":"{name}","src_path":"/w/src/lib.rs","edition":"2024","doc":true,"doctest":true,"test":true}},"profile":{{"opt_level":"3","debuginfo":0,"debug_assertions":false,"overflow_checks":false,"test":{test}}},"features":[],"filenames":{filenames:?},"executable":{exe},"fresh":false}}"#
    )
}

/// Parses [`artifact_json`] lines, for tests.
#[cfg(test)]
pub fn parse_artifacts(lines: &[String]) -> Vec<Artifact> {
    collect(lines.join("\n").as_bytes()).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_artifacts_and_skips_the_rest() {
        let lines = [
            artifact_json("lib", "ferrotile", true, &["/w/a b.rlib"], Some("/w/target/release/deps/ferrotile-0123")),
            r#"{"reason":"build-finished","success":true}"#.to_string(),
            "not json".to_string(),
        ];
        let got = parse_artifacts(&lines);
        assert_eq!(got.len(), 1);
        let a = &got[0];
        assert_eq!(a.target.name, "ferrotile");
        assert!(a.target.is_lib() && a.profile.test);
        assert_eq!(a.filenames, ["/w/a b.rlib"]);
        assert_eq!(a.executable.as_deref().map(|p| p.as_str()), Some("/w/target/release/deps/ferrotile-0123"));
    }
}
