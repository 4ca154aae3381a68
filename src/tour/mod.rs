//! The tour: every kernel, verified and timed, one table.
//!
//! Each kernel family contributes rows from its own file. On CUDA the sizes
//! are the benchmark sizes; on the emulator they are small (the emulator
//! checks every access and runs each GPU thread as a coroutine).

mod foundation;
mod transpose;
mod image;
mod sgemm;

use std::cell::RefCell;
use std::time::Duration;

use ferrotile::{Backend, Context};

/// Problem sizes for the backend at hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// Benchmark sizes (CUDA).
    Full,
    /// Small, tile-unaligned sizes (emulator).
    Small,
}

/// What a row's throughput counts.
#[derive(Clone, Copy, Debug)]
pub enum Work {
    /// Bytes moved (each input read once, each output written once).
    Bytes(f64),
    /// Floating-point operations.
    Flops(f64),
}

/// One line of the tour table.
pub struct Row {
    pub kernel: String,
    pub size: String,
    pub time: Duration,
    pub work: Work,
    /// Max relative error (or relative norm error for GEMM) vs the reference.
    pub error: f64,
    pub tolerance: f64,
}

impl Row {
    fn rate(&self) -> String {
        let s = self.time.as_secs_f64();
        match self.work {
            Work::Bytes(b) => format!("{:8.1} GB/s", b / s / 1e9),
            Work::Flops(f) => format!("{:8.1} GFLOP/s", f / s / 1e9),
        }
    }
}

/// Timing repetitions for the scale: (warm-up, timed).
pub fn reps(scale: Scale) -> (usize, usize) {
    match scale {
        Scale::Full => (3, 20),
        Scale::Small => (0, 1),
    }
}

/// A family's rows; an `Err` row is printed as a failure.
pub type Rows = Vec<Result<Row, String>>;

/// Runs the tour; `filter` keeps a whole family by its name (`image`) or
/// the kernels whose name contains it. Returns the exit code: 0, 1 when a
/// row failed, 2 when the filter matched nothing.
pub fn run(force_emulator: bool, filter: Option<&str>) -> i32 {
    let ctx = if force_emulator {
        Context::emulator()
    } else {
        match Context::cuda(0) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("note: {e}; running on the CPU emulator at small sizes");
                Context::emulator()
            }
        }
    };
    let scale = match ctx.backend() {
        Backend::Cuda => Scale::Full,
        Backend::Emulator => Scale::Small,
    };
    match ctx.device_info() {
        Some(d) => println!(
            "backend: CUDA — {} (sm_{}{}, {} SMs)",
            d.name, d.compute_capability.0, d.compute_capability.1, d.sm_count
        ),
        None => println!("backend: CPU emulator (small sizes; times are the emulator's, not a GPU's)"),
    }
    let families: [(&str, fn(&Context, Scale, &dyn Fn(&str) -> bool) -> Rows); 4] = [
        ("foundation", foundation::rows),
        ("transpose", transpose::rows),
        ("image", image::rows),
        ("sgemm", sgemm::rows),
    ];
    // Every kernel name a family asked about, for the message when the
    // filter matches none of them.
    let asked = RefCell::new(Vec::<String>::new());
    let mut failed = 0;
    let mut printed = 0;
    println!(
        "{:<38} {:>14} {:>11} {:>16} {:>10}  {}",
        "kernel", "size", "time", "throughput", "error", "check"
    );
    for (family, rows) in families {
        let keep = |name: &str| {
            let mut asked = asked.borrow_mut();
            if !asked.iter().any(|n| n == name) {
                asked.push(name.to_owned());
            }
            filter.is_none_or(|f| f == family || name.contains(f))
        };
        for row in rows(&ctx, scale, &keep) {
            printed += 1;
            match row {
                Ok(r) => {
                    let ok = r.error <= r.tolerance;
                    if !ok {
                        failed += 1;
                    }
                    println!(
                        "{:<38} {:>14} {:>9.3}ms {:>16} {:>10.2e}  {}",
                        r.kernel,
                        r.size,
                        r.time.as_secs_f64() * 1e3,
                        r.rate(),
                        r.error,
                        if ok { "pass" } else { "FAIL" }
                    );
                }
                Err(e) => {
                    failed += 1;
                    println!("FAIL: {e}");
                }
            }
        }
    }
    if let (Some(f), 0) = (filter, printed) {
        eprintln!("error: --filter `{f}` matches no kernel");
        eprintln!("  families (the whole family): {}", families.map(|(name, _)| name).join(", "));
        eprintln!("  kernels (any part of a name): {}", asked.borrow().join(", "));
        return 2;
    }
    if failed > 0 {
        println!("{failed} row(s) failed");
        1
    } else {
        0
    }
}

pub use ferrotile::testing::random_f32;

/// Largest |got − want| / max(|want|, 1e-6): 0 for exact kernels, `inf`
/// when an element is NaN (unwritten poison).
pub fn max_rel_error(got: &[f32], want: &[f32]) -> f64 {
    if got.len() != want.len() {
        return f64::INFINITY;
    }
    got.iter()
        .zip(want)
        .map(|(&g, &w)| {
            if g.is_nan() != w.is_nan() {
                f64::INFINITY
            } else {
                (g as f64 - w as f64).abs() / (w.abs() as f64).max(1e-6)
            }
        })
        .fold(0.0, f64::max)
}
