//! The tour: every kernel, verified and timed, one table.
//!
//! Each kernel family contributes rows from its own file. On CUDA the sizes
//! are the benchmark sizes; on the emulator they are small (the emulator
//! checks every access and runs each GPU thread as a coroutine).
//!
//! Rows are collected first (a progress spinner runs meanwhile when the
//! output is a terminal), then printed as a table whose columns are as wide
//! as their contents, a legend for every note and column that needs one,
//! and a summary line; or, with `--json`, as one JSON document.

mod foundation;
mod image;
mod sgemm;
mod transpose;

use std::cell::RefCell;
use std::io::IsTerminal;
use std::time::Duration;

use ferrotile::{Backend, Context};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;

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

/// A row's place among the ceilings: the rows that measure what the
/// hardware (or the vendor library) reaches on the same work, and the rows
/// compared with them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ceiling {
    /// This row is the ceiling of the group so named.
    Is(String),
    /// This row is compared with the ceiling of the group so named.
    Under(String),
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
    pub ceiling: Ceiling,
    /// The variant the library picks by default for this shape.
    pub default_pick: bool,
}

impl Row {
    /// Throughput in the row's unit (GB/s or GFLOP/s).
    fn rate(&self) -> f64 {
        let s = self.time.as_secs_f64();
        match self.work {
            Work::Bytes(b) => b / s / 1e9,
            Work::Flops(f) => f / s / 1e9,
        }
    }

    fn unit(&self) -> &'static str {
        match self.work {
            Work::Bytes(_) => "GB/s",
            Work::Flops(_) => "GFLOP/s",
        }
    }

    fn passed(&self) -> bool {
        self.error <= self.tolerance
    }

    /// The words of the note column.
    fn note(&self) -> &'static str {
        match (&self.ceiling, self.default_pick) {
            (Ceiling::Is(_), _) => "ceiling",
            (_, true) => "default",
            _ => "",
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

/// Where the families put their rows (an `Err` row is a failure); ticks
/// the progress spinner.
pub struct Rows {
    rows: Vec<Result<Row, String>>,
    progress: ProgressBar,
}

impl Rows {
    pub fn push(&mut self, row: Result<Row, String>) {
        let what = match &row {
            Ok(r) => format!("{} {}", r.kernel, r.size),
            Err(e) => e.clone(),
        };
        self.progress.set_message(what);
        self.progress.inc(1);
        self.rows.push(row);
    }
}

/// A family: adds the rows of the kernels `keep` accepts (and the ceilings
/// they are compared with).
type Family = fn(&Context, Scale, &dyn Fn(&str) -> bool, &mut Rows);

const FAMILIES: [(&str, Family); 4] = [
    ("foundation", foundation::rows),
    ("transpose", transpose::rows),
    ("image", image::rows),
    ("sgemm", sgemm::rows),
];

/// Options of `ferrotile tour`.
pub struct Options<'a> {
    pub force_emulator: bool,
    pub filter: Option<&'a str>,
    pub json: bool,
}

/// The backend and why it was chosen.
fn open(force_emulator: bool) -> (Context, String) {
    if force_emulator {
        return (Context::emulator(), "CPU emulator (--emulator given)".into());
    }
    match Context::cuda(0).inspect_err(|e| eprintln!("note: {e}; running on the CPU emulator at small sizes")) {
        Ok(c) => {
            let d = c.device_info().expect("a CUDA context has a device");
            let why = format!(
                "CUDA: {} (sm_{}{}, {} SMs)",
                d.name, d.compute_capability.0, d.compute_capability.1, d.sm_count
            );
            (c, why)
        }
        Err(e) => (Context::emulator(), format!("CPU emulator ({e})")),
    }
}

/// Runs the tour. Returns the exit code: 0, 1 when a row failed, 2 when
/// the filter matched nothing.
pub fn run(opts: Options<'_>) -> i32 {
    let (ctx, why) = open(opts.force_emulator);
    let scale = match ctx.backend() {
        Backend::Cuda => Scale::Full,
        Backend::Emulator => Scale::Small,
    };
    let interactive = std::io::stdout().is_terminal() && std::io::stderr().is_terminal();
    let progress = if interactive && !opts.json {
        let p = ProgressBar::new_spinner();
        p.set_style(
            ProgressStyle::with_template("{spinner} {pos} kernels checked, {elapsed}: {wide_msg}")
                .expect("a valid template"),
        );
        p.enable_steady_tick(Duration::from_millis(120));
        p
    } else {
        ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden())
    };
    // Every kernel name a family asked about, for the message when the
    // filter matches none of them.
    let asked = RefCell::new(Vec::<String>::new());
    let mut rows = Rows { rows: Vec::new(), progress };
    for (family, add) in FAMILIES {
        let keep = |name: &str| {
            let mut asked = asked.borrow_mut();
            if !asked.iter().any(|n| n == name) {
                asked.push(name.to_owned());
            }
            opts.filter.is_none_or(|f| f == family || name.contains(f))
        };
        add(&ctx, scale, &keep, &mut rows);
    }
    rows.progress.finish_and_clear();
    let rows = rows.rows;
    if let (Some(f), true) = (opts.filter, rows.is_empty()) {
        eprintln!("error: --filter `{f}` matches no kernel");
        eprintln!("  families (the whole family): {}", FAMILIES.map(|(name, _)| name).join(", "));
        eprintln!("  kernels (any part of a name): {}", asked.borrow().join(", "));
        return 2;
    }
    let ratios = if ctx.backend() == Backend::Cuda { ceiling_ratios(&rows) } else { vec![None; rows.len()] };
    let failed = rows.iter().filter(|r| !r.as_ref().is_ok_and(Row::passed)).count();
    if opts.json {
        println!("{}", serde_json::to_string_pretty(&document(&ctx, scale, &why, &rows, &ratios)).expect("JSON"));
    } else {
        let on_gpu = ctx.backend() == Backend::Cuda;
        print!("{}", table(&backend_line(&ctx), on_gpu, &rows, &ratios));
        println!(
            "\n{} kernel runs checked: {} passed, {failed} failed. Backend: {why}.",
            rows.len(),
            rows.len() - failed
        );
    }
    if failed > 0 { 1 } else { 0 }
}

/// Each row's throughput as a fraction of its group's ceiling (same run,
/// same unit); `None` for rows that failed, whose ceiling failed or was
/// not measured, or is in another unit.
pub fn ceiling_ratios(rows: &[Result<Row, String>]) -> Vec<Option<f64>> {
    let ceiling = |group: &str| {
        rows.iter().flatten().find(|r| r.ceiling == Ceiling::Is(group.to_owned()) && r.passed())
    };
    rows.iter()
        .map(|r| {
            let r = r.as_ref().ok().filter(|r| r.passed())?;
            match &r.ceiling {
                Ceiling::Is(_) => Some(1.0),
                Ceiling::Under(g) => {
                    let c = ceiling(g)?;
                    (c.unit() == r.unit()).then(|| r.rate() / c.rate())
                }
            }
        })
        .collect()
}

/// The table, its legend, as text; columns as wide as their contents, the
/// % of ceiling column on a GPU only.
fn table(backend: &str, on_gpu: bool, rows: &[Result<Row, String>], ratios: &[Option<f64>]) -> String {
    let mut header = vec!["kernel", "size", "time", "throughput"];
    if on_gpu {
        header.push("% of ceiling");
    }
    header.extend(["error", "check", "note"]);
    // Right-aligned columns: the numbers.
    let right = |i: usize| (1..header.len() - 2).contains(&i);
    let mut cells: Vec<Vec<String>> = Vec::new();
    let mut failures = Vec::new();
    for (r, ratio) in rows.iter().zip(ratios) {
        match r {
            Ok(r) => {
                let mut line = vec![
                    r.kernel.clone(),
                    r.size.clone(),
                    format!("{:.3} ms", r.time.as_secs_f64() * 1e3),
                    format!("{:.1} {}", r.rate(), r.unit()),
                ];
                if on_gpu {
                    line.push(ratio.map_or("—".into(), |x| format!("{:.1}%", 100.0 * x)));
                }
                line.extend([
                    format!("{:.2e}", r.error),
                    if r.passed() { "pass".into() } else { "FAIL".into() },
                    r.note().into(),
                ]);
                cells.push(line);
            }
            Err(e) => failures.push(e.clone()),
        }
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|i| cells.iter().map(|c| c[i].chars().count()).chain([header[i].chars().count()]).max().unwrap_or(0))
        .collect();
    let format_line = |line: &[&str]| {
        let s: Vec<String> = line
            .iter()
            .enumerate()
            .map(|(i, c)| if right(i) { format!("{c:>w$}", w = widths[i]) } else { format!("{c:<w$}", w = widths[i]) })
            .collect();
        s.join("  ").trim_end().to_owned() + "\n"
    };
    let mut out = format!("backend: {backend}\n");
    out += &format_line(&header);
    for c in &cells {
        out += &format_line(&c.iter().map(String::as_str).collect::<Vec<_>>());
    }
    for f in &failures {
        out += &format!("FAIL: {f}\n");
    }
    out += "\nlegend:\n";
    out += "  throughput    bytes read + written per second (GB/s), or floating-point operations per second (GFLOP/s)\n";
    if on_gpu {
        out += "  % of ceiling  throughput / the throughput of the row's ceiling (same size, same run)\n";
    }
    out += "  error         largest relative error against the CPU reference (GEMM: relative norm error, f64 reference)\n";
    out += "  check         pass when the error is within the kernel's tolerance (0 for exact kernels)\n";
    let notes = |n: &str| rows.iter().flatten().any(|r| r.note() == n);
    if notes("ceiling") {
        out += "  ceiling       what the others are measured against: a device-to-device copy of the same bytes\n";
        out += "                (memory-bound kernels) or cuBLAS on the same shape (GEMM)\n";
    }
    if notes("default") {
        out += "  default       the variant the library picks for this shape when none is named\n";
    }
    out
}

fn backend_line(ctx: &Context) -> String {
    match ctx.device_info() {
        Some(d) => format!(
            "CUDA — {} (sm_{}{}, {} SMs)",
            d.name, d.compute_capability.0, d.compute_capability.1, d.sm_count
        ),
        None => "CPU emulator (small sizes; times are the emulator's, not a GPU's)".into(),
    }
}

/// The `--json` document.
fn document(ctx: &Context, scale: Scale, why: &str, rows: &[Result<Row, String>], ratios: &[Option<f64>]) -> serde_json::Value {
    let results: Vec<_> = rows
        .iter()
        .zip(ratios)
        .filter_map(|(r, ratio)| {
            let r = r.as_ref().ok()?;
            let (is_ceiling, ceiling) = match &r.ceiling {
                Ceiling::Is(g) => (true, g.clone()),
                Ceiling::Under(g) => (false, g.clone()),
            };
            Some(json!({
                "kernel": r.kernel,
                "size": r.size,
                "time_ms": r.time.as_secs_f64() * 1e3,
                "throughput": r.rate(),
                "unit": r.unit(),
                "error": r.error,
                "tolerance": r.tolerance,
                "passed": r.passed(),
                "is_ceiling": is_ceiling,
                "ceiling_group": ceiling,
                "fraction_of_ceiling": ratio,
                "default": r.default_pick,
            }))
        })
        .collect();
    let errors: Vec<&String> = rows.iter().filter_map(|r| r.as_ref().err()).collect();
    let failed = rows.iter().filter(|r| !r.as_ref().is_ok_and(Row::passed)).count();
    json!({
        "backend": match ctx.backend() { Backend::Cuda => "cuda", Backend::Emulator => "emulator" },
        "backend_reason": why,
        "device": ctx.device_info().map(|d| json!({
            "name": d.name,
            "compute_capability": format!("{}.{}", d.compute_capability.0, d.compute_capability.1),
            "sm_count": d.sm_count,
        })),
        "scale": match scale { Scale::Full => "full", Scale::Small => "small" },
        "rows": results,
        "errors": errors,
        "summary": { "kernels": rows.len(), "passed": rows.len() - failed, "failed": failed },
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    fn row(kernel: &str, ms: u64, work: Work, ceiling: Ceiling, error: f64) -> Result<Row, String> {
        Ok(Row {
            kernel: kernel.into(),
            size: "n".into(),
            time: Duration::from_millis(ms),
            work,
            error,
            tolerance: 0.0,
            ceiling,
            default_pick: false,
        })
    }

    #[test]
    fn on_a_gpu_the_table_shows_the_ratio_column_aligned_and_explained() {
        let g = |s: &str| s.to_owned();
        let mut rows = vec![
            row("copy", 2, Work::Bytes(1e9), Ceiling::Is(g("a")), 0.0),
            row("a_much_longer_kernel_name", 4, Work::Bytes(1e9), Ceiling::Under(g("a")), 0.0),
            row("lonely", 4, Work::Bytes(1e9), Ceiling::Under(g("none")), 0.0),
        ];
        if let Ok(r) = &mut rows[1] {
            r.default_pick = true;
        }
        let ratios = ceiling_ratios(&rows);
        let t = table("CUDA — test", true, &rows, &ratios);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "backend: CUDA — test");
        let col = lines[1].find("% of ceiling").unwrap() + "% of ceiling".len();
        // Right-aligned under the header: 100.0%, 50.0%, and — without a ceiling.
        for (line, want) in lines[2..5].iter().zip(["100.0%", "50.0%", "—"]) {
            let cell: String = line.chars().take(col).collect();
            assert!(cell.ends_with(want), "{line:?} / {want}\n{t}");
        }
        assert!(lines[3].ends_with("default") && lines[2].ends_with("ceiling"), "{t}");
        for legend in ["% of ceiling  ", "ceiling       ", "default       "] {
            assert!(t.contains(&format!("  {legend}")), "{legend} not explained:\n{t}");
        }
        // On the emulator: no ratio column, no ratio legend.
        let t = table("CPU emulator", false, &rows, &ratios);
        assert!(!t.contains('%'), "{t}");
    }

    #[test]
    fn ratios_divide_by_the_groups_passing_ceiling_in_the_same_unit() {
        let g = |s: &str| s.to_owned();
        let rows = vec![
            row("k", 4, Work::Bytes(1e9), Ceiling::Under(g("a")), 0.0),
            row("copy", 2, Work::Bytes(1e9), Ceiling::Is(g("a")), 0.0),
            row("flops", 2, Work::Flops(1e9), Ceiling::Under(g("a")), 0.0),
            row("orphan", 2, Work::Bytes(1e9), Ceiling::Under(g("b")), 0.0),
            row("bad ceiling", 1, Work::Bytes(1e9), Ceiling::Is(g("c")), 1.0),
            row("under bad", 1, Work::Bytes(1e9), Ceiling::Under(g("c")), 0.0),
            Err("boom".into()),
        ];
        let r = ceiling_ratios(&rows);
        assert_eq!(r, vec![Some(0.5), Some(1.0), None, None, None, None, None]);
    }
}
