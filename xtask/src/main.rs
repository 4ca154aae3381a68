//! ferrotile's build and CI tasks: `cargo xtask <command>`.
//!
//! The same executable is also rustc's linker for the nvptx64 kernels build
//! (see `linker.rs`): started with `FERROTILE_PTX_LINKER` set in its
//! environment, it links PTX instead of reading a subcommand. rustc's linker
//! arguments are not a command line of ours, so they bypass clap.

mod artifacts;
mod bundle;
mod cuda_stub;
mod directives;
mod linker;
mod ptx;
mod ptxas;
mod report;
mod sections;
mod tasks;
mod util;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

const ENVIRONMENT: &str = "\
Environment:
  FERROTILE_PTXAS=PATH        use this ptxas instead of target/tools/ptxas (which
                              is extracted from the PyPI wheel nvidia-cuda-nvcc-cu12
                              with `python3 -m pip download` when missing)
  FERROTILE_LLVM_TOOLS=DIR    where the linker finds llvm-link, opt and llc
                              (default: the toolchain's llvm-tools component)
  FERROTILE_PTX_KEEP_TEMPS=1  keep the linker's intermediate bitcode
                              (target/ptx-<arch>/…/deps/*.ptx.link/)
  FERROTILE_PTX_LINKER=1      set by build-ptx for rustc's linker call: makes this
                              executable act as the PTX linker (not for manual use)";

#[derive(Parser)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    about = "ferrotile's build and CI tasks",
    after_help = ENVIRONMENT
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Compile the kernels crate (ferrotile-kernels) for nvptx64 with
    /// -Zbuild-std=core, once per target (today: sm_80), linking with
    /// this executable as rustc's linker, and write host/ptx/ARCH.ptx.
    /// Prints each file's entry points and their fma.rn.f32 counts.
    #[command(verbatim_doc_comment)]
    BuildPtx,
    /// Rebuild the PTX into target/ptx-check/ and fail if a committed
    /// host/ptx/*.ptx is missing, stale or no longer built (with a hint
    /// of where it differs); then print the ptxas report of the build.
    #[command(verbatim_doc_comment)]
    CheckPtx,
    /// Run `ptxas -v` on the committed PTX for every GPU it targets
    /// (sm_80 PTX: sm_80 and sm_90) and print registers, static shared
    /// memory, stack frame and spills per kernel. Fails on any spill,
    /// on a stack frame in a hot kernel (name starting with sgemm_,
    /// transpose_ or gemm_stage) and on one above 88 bytes in a
    /// tensor-core engine kernel (gemm_mma_).
    #[command(verbatim_doc_comment)]
    PtxasReport,
    /// The project's test command (what CI runs): checks the toolchain
    /// components (rust-src, llvm-tools; adds them with rustup if
    /// missing), installs ptxas, runs check-ptx, then
    /// `cargo test --workspace --release [ARGS]` (doc-tests included),
    /// then `cargo doc --no-deps` with warnings denied.
    #[command(verbatim_doc_comment)]
    Test {
        /// Passed on to `cargo test` (write them after `--`).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "ARGS")]
        args: Vec<String>,
    },
    /// Build the workspace's test and bench executables (release),
    /// strip them into bundle/bin/ with host/ptx/ in bundle/ptx/ and a
    /// runner, for a CUDA machine without Rust:
    ///     bash bundle/run.sh [quick|full|tests]
    /// Fails if the packed bundle is over 60 MiB: then carry it in parts
    /// with --only.
    #[command(verbatim_doc_comment)]
    GpuBundle {
        /// Bundle only these executables (names in bundle/bin/; `NAME*`
        /// is a prefix, e.g. 'bench-*').
        #[arg(long, num_args = 1.., value_name = "NAME")]
        only: Vec<String>,
    },
    /// Render benchmark results (JSON lines: what the plain benches write
    /// to $FERROTILE_RESULTS, or `import-log`'s output) as markdown tables
    /// per family (GPU, driver, date, % of the ceiling) and SVG charts.
    /// A later file's record of the same kernel, shape, types and GPU
    /// replaces an earlier one's.
    #[command(verbatim_doc_comment)]
    Report {
        /// Results files, oldest first (default: docs/results/*.jsonl by name).
        #[arg(value_name = "RESULTS.jsonl")]
        files: Vec<std::path::PathBuf>,
        /// Write nothing; fail when docs/RESULTS.md or a generated section
        /// of BENCHMARKS.md / README.md differs from what the records give.
        #[arg(long)]
        check: bool,
        /// Where the markdown goes.
        #[arg(long, default_value = "docs/RESULTS.md")]
        markdown: std::path::PathBuf,
        /// The folder of the SVG charts.
        #[arg(long, default_value = "docs/charts")]
        charts: std::path::PathBuf,
    },
    /// Write a link-only stand-in for CUDA (include/cuda.h, lib64/libcuda.so
    /// with cust_raw's driver functions, soname libcuda.so.1) so ferrotile's
    /// `cust` feature builds without CUDA; prints the CUDA_LIBRARY_PATH to
    /// export. Programs linked against it load the real driver to run.
    #[command(verbatim_doc_comment)]
    CudaStub {
        /// Where to write it.
        #[arg(default_value = cuda_stub::DEFAULT_DIR)]
        dir: std::path::PathBuf,
    },
    /// Convert the text logs of earlier bench runs (the tables of the
    /// sgemm, transpose and image benches, the JSON lines of gemm_tc) in
    /// the given folders into result records (JSON lines) for `report`.
    #[command(verbatim_doc_comment)]
    ImportLog {
        /// Folders of *.log files (e.g. docs/benchmarks/2026-11-23-h100-final).
        #[arg(required = true)]
        dirs: Vec<std::path::PathBuf>,
        /// The NVIDIA driver of the run (the logs do not say it).
        #[arg(long)]
        driver: String,
        /// The day of the run (default: the folder name's YYYY-MM-DD prefix).
        #[arg(long)]
        date: Option<String>,
        /// Keep only the records of this family (e.g. sgemm_class).
        #[arg(long)]
        family: Option<String>,
        /// The output file.
        #[arg(long, short)]
        output: std::path::PathBuf,
    },
}

fn main() -> ExitCode {
    if std::env::var_os(linker::ENV).is_some() {
        let args = std::env::args_os().skip(1).collect();
        return match linker::main(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: ferrotile PTX linker ({}=1): {e:#}", linker::ENV);
                ExitCode::FAILURE
            }
        };
    }

    let cli = Cli::parse();
    let result = std::env::set_current_dir(util::workspace_root())
        .map_err(anyhow::Error::from)
        .and_then(|()| match cli.command {
            None => Cli::command().print_long_help().map_err(Into::into),
            Some(Command::BuildPtx) => ptx::build(),
            Some(Command::CheckPtx) => ptx::check(),
            Some(Command::PtxasReport) => ptxas::report_committed(),
            Some(Command::Test { args }) => tasks::test(&args),
            Some(Command::GpuBundle { only }) => bundle::gpu_bundle(&only),
            Some(Command::Report { files, check, markdown, charts }) => report::report(&files, &markdown, &charts, check),
            Some(Command::CudaStub { dir }) => cuda_stub::cuda_stub(&dir),
            Some(Command::ImportLog { dirs, driver, date, family, output }) => {
                report::import_logs(&dirs, &driver, date.as_deref(), family.as_deref(), &output)
            }
        });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line() {
        Cli::command().debug_assert();
        let parse = |args: &[&str]| Cli::try_parse_from([&["cargo xtask"], args].concat());
        assert!(parse(&[]).unwrap().command.is_none());
        assert!(matches!(parse(&["check-ptx"]).unwrap().command, Some(Command::CheckPtx)));
        assert!(parse(&["check-ptx", "extra"]).is_err());
        assert!(parse(&["no-such-command"]).is_err());
        for (args, want) in [
            (&["test"][..], &[][..]),
            (&["test", "--", "emulator::", "--skip", "big"], &["emulator::", "--skip", "big"]),
            (&["test", "emulator::"], &["emulator::"]),
        ] {
            let Some(Command::Test { args }) = parse(args).unwrap().command else {
                panic!("{args:?} is not `test`")
            };
            assert_eq!(args, want);
        }
    }
}
