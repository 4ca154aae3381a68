//! `ferrotile`: the command-line face of the library.
//!
//! * `ferrotile tour` runs every kernel on the best available backend
//!   (CUDA, else the CPU emulator at small sizes), checks each against its
//!   CPU reference and prints a table.

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
        /// Only kernels whose name contains this text.
        #[arg(long)]
        filter: Option<String>,
    },
}

fn main() {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Tour { emulator, filter } => tour::run(emulator, filter.as_deref()),
    };
    std::process::exit(code);
}
