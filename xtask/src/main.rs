//! ferrotile's build and CI tasks: `cargo xtask <command>`.
//!
//! The same executable is also rustc's linker for the nvptx64 kernels build
//! (see `linker.rs`): started with `FERROTILE_PTX_LINKER` set in its
//! environment, it links PTX instead of reading a subcommand.

mod ar;
mod bundle;
mod directives;
mod json;
mod linker;
mod ptx;
mod ptxas;
mod tasks;
mod util;

use std::process::ExitCode;

const HELP: &str = "\
cargo xtask <command> [options]

Commands:
  build-ptx      Compile the kernels crate (ferrotile-kernels) for nvptx64 with
                 -Zbuild-std=core, once per target (today: sm_80), linking with
                 this executable as rustc's linker, and write host/ptx/<arch>.ptx.
                 Prints each file's entry points and their fma.rn.f32 counts.
  check-ptx      Rebuild the PTX into target/ptx-check/ and fail if a committed
                 host/ptx/*.ptx is missing, stale or no longer built (with a hint
                 of where it differs); then print the ptxas report of the build.
  ptxas-report   Run `ptxas -v` on the committed PTX for every GPU it targets
                 (sm_80 PTX: sm_80 and sm_90) and print registers, static shared
                 memory, stack frame and spills per kernel. Fails on any spill,
                 and on a stack frame in a hot kernel (name starting with
                 sgemm_ or transpose_).
  test [-- ARGS] The project's test command (what CI runs): checks the toolchain
                 components (rust-src, llvm-tools; adds them with rustup if
                 missing), installs ptxas, runs check-ptx, then
                 `cargo test --workspace --release [ARGS]`.
  gpu-bundle     Build the workspace's test and bench executables (release),
                 strip them into bundle/bin/ with host/ptx/ in bundle/ptx/ and a
                 runner, for a CUDA machine without Rust:
                     bash bundle/run.sh [quick|full|tests]
                 Fails if the bundle is over 60 MiB.
  help           This text.

Environment:
  FERROTILE_PTXAS=PATH        use this ptxas instead of target/tools/ptxas (which
                              is extracted from the PyPI wheel nvidia-cuda-nvcc-cu12
                              with `python3 -m pip download` when missing)
  FERROTILE_LLVM_TOOLS=DIR    where the linker finds llvm-link, opt and llc
                              (default: the toolchain's llvm-tools component)
  FERROTILE_PTX_KEEP_TEMPS=1  keep the linker's intermediate bitcode
                              (target/ptx-<arch>/…/deps/*.ptx.link/)
  FERROTILE_PTX_LINKER=1      set by build-ptx for rustc's linker call: makes this
                              executable act as the PTX linker (not for manual use)
";

fn main() -> ExitCode {
    let mut args: Vec<_> = std::env::args_os().skip(1).collect();

    if std::env::var_os(linker::ENV).is_some() {
        return match linker::main(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: ferrotile PTX linker ({}=1): {e}", linker::ENV);
                ExitCode::FAILURE
            }
        };
    }

    if let Err(e) = std::env::set_current_dir(util::workspace_root()) {
        eprintln!(
            "error: cannot enter the workspace root {}: {e}",
            util::workspace_root().display()
        );
        return ExitCode::FAILURE;
    }
    let command = if args.is_empty() {
        "help".into()
    } else {
        args.remove(0)
    };
    let rest: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let no_args = |name: &str| -> util::Result<()> {
        if rest.is_empty() {
            Ok(())
        } else {
            util::fail(format!(
                "`cargo xtask {name}` takes no arguments (got {})",
                rest.join(" ")
            ))
        }
    };
    let result = match command.to_str().unwrap_or("") {
        "help" | "-h" | "--help" => {
            print!("{HELP}");
            Ok(())
        }
        "build-ptx" => no_args("build-ptx").and_then(|()| ptx::build()),
        "check-ptx" => no_args("check-ptx").and_then(|()| ptx::check()),
        "ptxas-report" => no_args("ptxas-report").and_then(|()| ptxas::report_committed()),
        "test" => tasks::test(&rest),
        "gpu-bundle" => no_args("gpu-bundle").and_then(|()| bundle::gpu_bundle()),
        other => {
            eprint!("{HELP}");
            util::fail(format!("unknown command `{other}` (see above)"))
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
