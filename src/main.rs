//! `ferrotile`: the command-line face of the library.
//!
//! * `ferrotile tour` runs every kernel on the best available backend
//!   (CUDA, else the CPU emulator at small sizes), checks each against its
//!   CPU reference and prints a table (or `--json`).
//! * `ferrotile image gray|blur …` runs the image kernels on PNG/JPEG files.

mod image_cli;
mod tour;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "ferrotile", version, about = "CUDA kernels written in Rust, checked against CPU references")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run every kernel, verify it and print time and throughput.
    Tour {
        /// Force the CPU emulator even when a CUDA device is present.
        #[arg(long)]
        emulator: bool,
        /// Only the kernels of this family (foundation, transpose, image,
        /// sgemm) or whose name contains this text; an error when nothing
        /// matches.
        #[arg(long)]
        filter: Option<String>,
        /// Print one JSON document (backend, rows, summary) instead of the
        /// table.
        #[arg(long)]
        json: bool,
    },
    /// Grayscale / blur PNG or JPEG files (or the built-in test picture).
    Image(image_cli::ImageArgs),
}

fn main() {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Tour { emulator, filter, json } => {
            tour::run(tour::Options { force_emulator: emulator, filter: filter.as_deref(), json })
        }
        Command::Image(args) => image_cli::run(args),
    };
    std::process::exit(code);
}
