//! `cargo xtask report` and `cargo xtask import-log`: benchmark results as
//! JSON lines (one [`Record`] per measured row, as the plain benches write
//! them to `$FERROTILE_RESULTS`) → markdown tables and SVG charts.
//!
//! `import-log` turns the text logs of earlier runs (the benches' printed
//! tables, and the `JSON {…}` lines of `gemm_tc`) into the same records, so
//! that runs recorded before the benches wrote JSON can be charted. Every
//! number comes from a log or a results file: nothing is computed here but
//! ratios and the choice of rows.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

#[path = "../../benches/common/results.rs"]
mod results;

pub use results::Record;

// ---------------------------------------------------------------------------
// Reading records
// ---------------------------------------------------------------------------

/// Every record of the JSON-lines `files`, in order, none replaced
/// ([`latest_of`] keeps the latest of each: a later run given later
/// wins, an earlier one fills what it lacks).
fn read_all_records(files: &[PathBuf]) -> Result<Vec<Record>> {
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).with_context(|| format!("reading {}", f.display()))?;
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            out.push(serde_json::from_str(line).with_context(|| format!("{}:{}: not a result record", f.display(), i + 1))?);
        }
    }
    Ok(out)
}

/// `records` with a later record replacing an earlier one of the same
/// family, kernel, shape, types, GPU and ceiling, in first-seen order.
/// Auto's rows are one row whatever kernel it resolved to (a later run's
/// pick replaces an earlier run's), one for each suffix after the pick
/// (`auto (…), fused bias + GELU` is not the plain `auto (…)`).
fn latest_of(records: Vec<Record>) -> Vec<Record> {
    let key = |x: &Record| {
        let kernel = match x.kernel.strip_prefix("auto (").and_then(|rest| rest.split_once(')')) {
            Some((_, suffix)) => format!("auto{suffix}"),
            None => x.kernel.clone(),
        };
        (x.family.clone(), kernel, x.shape.clone(), x.dtype.clone(), x.gpu.clone(), x.ceiling.clone())
    };
    let mut out: Vec<Record> = Vec::new();
    for r in records {
        match out.iter_mut().find(|x| key(x) == key(&r)) {
            Some(x) => *x = r,
            None => out.push(r),
        }
    }
    out
}

// ---------------------------------------------------------------------------
// import-log: text logs → records
// ---------------------------------------------------------------------------

/// The cells of a markdown table row (`| a | b |` → `["a", "b"]`).
fn cells(line: &str) -> Option<Vec<&str>> {
    let l = line.trim();
    let inner = l.strip_prefix('|')?.strip_suffix('|')?;
    let c: Vec<&str> = inner.split('|').map(str::trim).collect();
    (!c.iter().all(|x| x.starts_with("---") || x.is_empty() || x.starts_with(":--") || x.ends_with("--:"))).then_some(c)
}

fn num(s: &str) -> Option<f64> {
    s.trim().trim_end_matches('%').parse().ok()
}

/// The GPU named by a bench's header (`# … — NAME (sm_90, …)` or
/// `GPU: NAME (sm_90, …)`).
fn gpu_of(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let rest = l.split_once(" — ").map(|x| x.1).or_else(|| l.strip_prefix("GPU: "))?;
        Some(rest.split(" (sm_").next()?.trim().to_owned())
    })
}

/// Records from one bench log; empty when the file is not a bench log.
pub fn parse_log(text: &str, driver: &str, date: &str, source: &str) -> Vec<Record> {
    let Some(gpu) = gpu_of(text) else { return Vec::new() };
    let rec = |family: &str, kernel: &str, rung: Option<&str>, shape: &str, dtype: &str| Record {
        family: family.into(),
        kernel: kernel.into(),
        rung: rung.map(Into::into),
        shape: shape.into(),
        dtype: dtype.into(),
        time_ms: 0.0,
        throughput: 0.0,
        unit: String::new(),
        ceiling: None,
        ceiling_throughput: None,
        ratio: None,
        check: String::new(),
        gpu: gpu.clone(),
        driver: driver.into(),
        date: date.into(),
        source: Some(source.into()),
    };
    let mut out = Vec::new();
    if text.contains("| class | m×n×k | op | cuBLAS ms | Auto ms | Auto kernel | % of cuBLAS | check |") {
        // The shape classes: | class | m×n×k | op | cuBLAS ms | Auto ms |
        // Auto kernel | % of cuBLAS | check |. GFLOP/s are 2mnk / time.
        for c in text.lines().filter_map(cells).filter(|c| c.len() == 8) {
            let (Some(cb), Some(ms), Some(p)) = (num(c[3]), num(c[4]), num(c[6])) else { continue };
            let flops: f64 = c[1].split('×').filter_map(|d| d.parse::<f64>().ok()).product::<f64>() * 2.0;
            let mut r = rec("sgemm_class", c[5], Some(c[0]), &format!("{} {}", c[1], c[2]), "f32");
            (r.time_ms, r.throughput, r.unit, r.check) = (ms, flops / ms / 1e6, "GFLOP/s".into(), c[7].into());
            (r.ceiling, r.ceiling_throughput, r.ratio) =
                (Some("cuBLAS SGEMM (same transposes)".into()), Some(flops / cb / 1e6), Some(p / 100.0));
            out.push(r);
        }
        if text.contains("# SGEMM ladder") && !text.contains("| rung | kernel | m×n×k |") {
            return out;
        }
    }
    if text.contains("# PyTorch") && text.contains("transpose baseline") {
        // | op | size | time ms | GB/s | % of copy |; `y.copy_(x)` is the
        // ceiling of the rows of its size.
        let mut copy: BTreeMap<String, f64> = BTreeMap::new();
        for c in text.lines().filter_map(cells).filter(|c| c.len() == 5) {
            let (Some(ms), Some(g)) = (num(c[2]), num(c[3])) else { continue };
            let ceiling_row = c[0] == "y.copy_(x)";
            let mut r = rec("transpose", &format!("PyTorch {}", c[0]), Some(if ceiling_row { "ceiling" } else { "baseline" }), c[1], "f32");
            (r.time_ms, r.throughput, r.unit, r.check) = (ms, g, "GB/s".into(), if ceiling_row { "ceiling" } else { "ok" }.into());
            if ceiling_row {
                copy.insert(c[1].into(), g);
            } else if let Some(&cp) = copy.get(c[1]) {
                (r.ceiling, r.ceiling_throughput, r.ratio) = (Some("PyTorch y.copy_(x)".into()), Some(cp), num(c[4]).map(|p| p / 100.0));
            }
            out.push(r);
        }
        return out;
    }
    if text.contains("# SGEMM ladder") {
        // | rung | kernel | m×n×k | time ms | GFLOP/s | % of cuBLAS | check |
        let mut ceiling: BTreeMap<String, f64> = BTreeMap::new();
        for c in text.lines().filter_map(cells).filter(|c| c.len() == 7) {
            let (Some(ms), Some(g)) = (num(c[3]), num(c[4])) else { continue };
            let mut r = rec("sgemm", c[1], Some(c[0]), c[2], "f32");
            (r.time_ms, r.throughput, r.unit, r.check) = (ms, g, "GFLOP/s".into(), c[6].into());
            if c[0] == "ceiling" {
                ceiling.insert(c[2].into(), g);
                r.check = "ceiling".into();
            } else if let Some(&cb) = ceiling.get(c[2]) {
                (r.ceiling, r.ceiling_throughput, r.ratio) = (Some("cuBLAS".into()), Some(cb), num(c[5]).map(|p| p / 100.0));
            }
            out.push(r);
        }
    } else if text.contains("# transpose ladder") {
        // | kernel | kind | size | time ms | GB/s | % of copy |
        let mut copy: BTreeMap<String, f64> = BTreeMap::new();
        for c in text.lines().filter_map(cells).filter(|c| c.len() == 6) {
            let (Some(ms), Some(g)) = (num(c[3]), num(c[4])) else { continue };
            let failed = c[0].contains("FAIL");
            let kernel = c[0].replace("**FAIL**", "").trim().to_owned();
            let mut r = rec("transpose", &kernel, Some(c[1]), c[2], "f32");
            (r.time_ms, r.throughput, r.unit) = (ms, g, "GB/s".into());
            r.check = match (c[1], failed) {
                ("ceiling", _) => "ceiling".into(),
                ("cpu", _) => "reference".into(),
                (_, true) => "FAIL".into(),
                _ => "ok".into(),
            };
            if c[1] == "ceiling" {
                copy.insert(c[2].into(), g);
            } else if let Some(&cp) = copy.get(c[2]) {
                (r.ceiling, r.ceiling_throughput, r.ratio) =
                    (Some("device-to-device copy".into()), Some(cp), num(c[5]).map(|p| p / 100.0));
            }
            out.push(r);
        }
    } else if text.contains("% of copy = time of a device-to-device copy") {
        // | rung | size | time ms | GB/s | % of copy | check |; each copy row
        // is the ceiling of the rows under it.
        let mut copy: Option<f64> = None;
        for c in text.lines().filter_map(cells).filter(|c| c.len() == 6) {
            let (Some(ms), Some(g)) = (num(c[2]), num(c[3])) else { continue };
            let dtype = if c[0].starts_with("vec_add") || c[0].starts_with("volume") || c[0].contains("vec_add bytes") || c[0].contains("volume bytes") { "f32" } else { "u8" };
            let ceiling_row = c[5] == "ceiling";
            let mut r = rec("image", c[0], ceiling_row.then_some("ceiling"), c[1], dtype);
            (r.time_ms, r.throughput, r.unit, r.check) = (ms, g, "GB/s".into(), c[5].into());
            if ceiling_row {
                copy = Some(g);
            } else if let Some(cp) = copy {
                // The copy moves the kernel's bytes: its GB/s on them is
                // the kernel's GB/s over the printed ratio.
                let ratio = num(c[4]).map(|p| p / 100.0);
                (r.ceiling, r.ceiling_throughput, r.ratio) =
                    (Some("device-to-device copy (same bytes)".into()), ratio.map(|x| g / x).or(Some(cp)), ratio);
            }
            out.push(r);
        }
    } else if text.contains("# Tensor-core GEMM") {
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let Some(json) = l.strip_prefix("JSON ") else { continue };
            let Ok(v) = serde_json::from_str::<serde_json::Value>(json) else { continue };
            let s = |k: &str| v[k].as_str().unwrap_or("").to_owned();
            let kernel = s("kernel");
            let mut r = rec("gemm_tc", &kernel, (kernel == "cuBLAS").then_some("ceiling"), &s("shape"), &s("dtype"));
            let table_row = i.checked_sub(1).map_or("", |j| lines[j]);
            // Decode rows: GB/s of the bytes the GEMM moves, against a
            // device copy of B (the shape carries a ` decode` suffix).
            if let (Some(ms), Some(gbs)) = (v["ms"].as_f64(), v["gbs"].as_f64()) {
                let shape = s("shape");
                r.family = "gemm_tc_decode".into();
                r.shape = shape.trim_end_matches(" decode").to_owned();
                r.rung = None;
                (r.time_ms, r.throughput, r.unit) = (ms, gbs, "GB/s".into());
                r.check = if table_row.contains("FAIL") { "FAIL".into() } else { "ok".into() };
                if let Some(p) = v["pct_of_ceiling"].as_f64() {
                    let ratio = p / 100.0;
                    (r.ceiling, r.ceiling_throughput, r.ratio) =
                        (Some("device copy of B (HBM bandwidth)".into()), Some(gbs / ratio), Some(ratio));
                }
                out.push(r);
                continue;
            }
            let (Some(ms), Some(tf)) = (v["ms"].as_f64(), v["tflops"].as_f64()) else { continue };
            (r.time_ms, r.throughput, r.unit) = (ms, tf, "TFLOP/s".into());
            r.check = if kernel == "cuBLAS" {
                "ceiling".into()
            } else if table_row.contains("FAIL") {
                "FAIL".into()
            } else if v["rel_err"].is_null() {
                "unchecked".into()
            } else {
                "ok".into()
            };
            if let (Some(p), false) = (v["pct_of_ceiling"].as_f64(), kernel == "cuBLAS") {
                let ratio = p / 100.0;
                (r.ceiling, r.ceiling_throughput, r.ratio) =
                    (Some(results::gemm_tc_ceiling(&kernel).into()), Some(tf / ratio), Some(ratio));
            }
            out.push(r);
        }
    }
    out
}

/// Whether `s` reads `YYYY-MM-DD`.
fn is_date(s: &str) -> bool {
    s.len() == 10 && s.bytes().enumerate().all(|(i, b)| if i == 4 || i == 7 { b == b'-' } else { b.is_ascii_digit() })
}

/// `cargo xtask import-log DIR…`: the records of every bench log in the
/// folders, as JSON lines.
/// `family`: keep only the records of that family. A record equal to one
/// already imported but for its source (a summary log repeating a bench's
/// table) is left out.
pub fn import_logs(dirs: &[PathBuf], driver: &str, date: Option<&str>, family: Option<&str>, out: &Path) -> Result<()> {
    let mut lines = String::new();
    let mut seen: Vec<Record> = Vec::new();
    let root = crate::util::workspace_root();
    for dir in dirs {
        let date = match date {
            Some(d) => d.to_owned(),
            None => {
                let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                match name.get(..10).filter(|d| is_date(d)) {
                    Some(d) => d.to_owned(),
                    None => bail!("{}: no date in the folder's name; give --date", dir.display()),
                }
            }
        };
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .with_context(|| format!("reading {}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "log"))
            .collect();
        files.sort();
        for f in files {
            let text = std::fs::read_to_string(&f).with_context(|| format!("reading {}", f.display()))?;
            let abs = f.canonicalize().unwrap_or(f.clone());
            let source = abs.strip_prefix(&root).unwrap_or(&abs).to_string_lossy().into_owned();
            let mut recs = parse_log(&text, driver, &date, &source);
            recs.retain(|r| family.is_none_or(|f| r.family == f));
            recs.retain(|r| {
                let bare = Record { source: None, ..r.clone() };
                let new = !seen.contains(&bare);
                seen.push(bare);
                new
            });
            if !recs.is_empty() {
                eprintln!("{source}: {} records", recs.len());
            }
            for r in recs {
                lines += &serde_json::to_string(&r)?;
                lines.push('\n');
            }
        }
    }
    if lines.is_empty() {
        bail!("no bench log (sgemm, transpose, image, gemm_tc tables) in {dirs:?}");
    }
    crate::util::write(out, lines.as_bytes())?;
    eprintln!("wrote {}", out.display());
    Ok(())
}

// ---------------------------------------------------------------------------
// Markdown
// ---------------------------------------------------------------------------

const FAMILIES: [(&str, &str); 7] = [
    ("sgemm", "SGEMM ladder (f32, CUDA cores) — % of cuBLAS SGEMM"),
    ("gemm_tc", "Tensor-core GEMM — % of cuBLAS with the same types"),
    ("gemm_tc_decode", "Tensor-core GEMM, decode shapes (memory-bound) — % of the bandwidth of a device copy of B"),
    ("transpose", "Transpose ladder (f32) — % of a device-to-device copy of the same bytes"),
    ("image", "Image kernels and vector add — % of a device-to-device copy of the same bytes"),
    ("multi_gpu", "Multi-GPU group — % of one GPU's throughput on the same work (200 % = 2× faster); NCCL rows: bus bandwidth"),
    ("stream_overlap", "Streams: upload → SGEMM → download pipelines — % of the ideal (the busiest of copy-in, compute, copy-out alone)"),
];

fn pct(r: &Record) -> String {
    r.ratio.map_or("—".into(), |x| format!("{:.1}", 100.0 * x))
}

/// Markdown: one section per family, one table per GPU.
pub fn markdown(records: &[Record], inputs: &[PathBuf]) -> String {
    let mut md = String::from("# Measured results\n\n");
    md += "Generated by `cargo xtask report` from ";
    md += &inputs.iter().map(|p| format!("`{}`", p.display())).collect::<Vec<_>>().join(", ");
    md += "; do not edit by hand. Each row is one measured configuration; the % column divides its throughput \
           by its ceiling's, measured on the same work in the same run (at small sizes a copy is latency-bound, so \
           memory-bound kernels can exceed 100 %). Charts: [docs/charts/](charts/).\n";
    for (family, title) in FAMILIES {
        let rows: Vec<&Record> = records.iter().filter(|r| r.family == family).collect();
        if rows.is_empty() {
            continue;
        }
        let _ = write!(md, "\n## {title}\n");
        let mut gpus: Vec<&str> = rows.iter().map(|r| r.gpu.as_str()).collect();
        gpus.dedup();
        for gpu in gpus {
            let mine: Vec<&&Record> = rows.iter().filter(|r| r.gpu == gpu).collect();
            let mut meta: Vec<String> = mine.iter().map(|r| format!("driver {}, {}", r.driver, r.date)).collect();
            meta.sort();
            meta.dedup();
            let mut sources: Vec<&str> = mine.iter().filter_map(|r| r.source.as_deref()).collect();
            sources.sort();
            sources.dedup();
            let _ = write!(md, "\nGPU: **{gpu}**, {}.", meta.join("; "));
            if !sources.is_empty() {
                let _ = write!(md, " From {}.", sources.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", "));
            }
            let unit = &mine[0].unit;
            // With several runs, each row says which (its log's folder).
            let runs = sources.len() > 1;
            let _ = write!(
                md,
                "\n\n| rung | kernel | shape | types | time ms | {unit} | % of ceiling | check |{}\n",
                if runs { " run |" } else { "" }
            );
            md += "| --- | --- | --- | --- | ---: | ---: | ---: | --- |";
            md += if runs { " --- |\n" } else { "\n" };
            for r in mine {
                let _ = write!(
                    md,
                    "| {} | {} | {} | {} | {:.4} | {} | {} | {} |",
                    r.rung.as_deref().unwrap_or(""),
                    r.kernel,
                    r.shape,
                    r.dtype,
                    r.time_ms,
                    if r.throughput >= 1000.0 { format!("{:.0}", r.throughput) } else { format!("{:.1}", r.throughput) },
                    if r.check == "ceiling" { "100".into() } else { pct(r) },
                    r.check
                );
                if runs {
                    let run = r.source.as_deref().and_then(|s| Path::new(s).parent()?.file_name()?.to_str()).unwrap_or("");
                    let _ = write!(md, " {run} |");
                }
                md.push('\n');
            }
        }
    }
    md
}

// ---------------------------------------------------------------------------
// Charts
// ---------------------------------------------------------------------------

/// One horizontal bar: its label (printed after its value), value, and
/// colour.
struct Bar {
    label: String,
    value: f64,
    colour: RGBColor,
}

const OURS: RGBColor = RGBColor(0x2a, 0x6f, 0xb0);
const DEFAULT: RGBColor = RGBColor(0xe0, 0x8a, 0x1e);
const VENDOR: RGBColor = RGBColor(0x88, 0x88, 0x88);
const CEILING: RGBColor = RGBColor(0xc0, 0x30, 0x30);

/// A horizontal bar chart (categories top to bottom, each with one or
/// more bars), with an optional vertical ceiling line and a legend.
struct BarChart<'a> {
    title: String,
    x_label: String,
    groups: Vec<(String, Vec<Bar>)>,
    ceiling: Option<(String, f64)>,
    legend: Vec<(&'a str, RGBColor)>,
    /// Print each bar's value at its end.
    value_format: fn(f64) -> String,
}

impl BarChart<'_> {
    fn draw(&self, path: &Path) -> Result<()> {
        let n = self.groups.len();
        let per = self.groups.iter().map(|g| g.1.len()).max().unwrap_or(1);
        let row_h = 16 * per as u32 + 10;
        let label_w = self.groups.iter().map(|g| g.0.chars().count()).max().unwrap_or(10) as u32 * 7 + 20;
        let legend_h = 8 + 20 * self.legend.len().div_ceil(3) as u32;
        let height = 110 + row_h * n as u32 + legend_h;
        let whole = SVGBackend::new(path, (980, height)).into_drawing_area();
        whole.fill(&WHITE)?;
        let (root, legend_area) = whole.split_vertically(height - legend_h);
        let max = self
            .groups
            .iter()
            .flat_map(|g| g.1.iter().map(|b| b.value))
            .chain(self.ceiling.iter().map(|c| c.1))
            .fold(0.0, f64::max);
        let xmax = max * 1.25;
        let mut chart = ChartBuilder::on(&root)
            .caption(&self.title, ("sans-serif", 20))
            .margin(12)
            .margin_right(30)
            .x_label_area_size(40)
            .y_label_area_size(label_w)
            .build_cartesian_2d(0f64..xmax, -0.5f64..n as f64 - 0.5)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_desc(&self.x_label)
            .x_label_formatter(&|v| format!("{v:.0}"))
            .x_label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 14))
            .draw()?;
        // Category labels left of the axis, top to bottom.
        let label_style = ("sans-serif", 13).into_font().into_text_style(&root).pos(Pos::new(HPos::Right, VPos::Center));
        for (gi, (label, _)) in self.groups.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(0.0, (n - 1 - gi) as f64));
            root.draw(&Text::new(label.clone(), (x - 8, y), label_style.clone()))?;
        }
        for (gi, (_, bars)) in self.groups.iter().enumerate() {
            let centre = (n - 1 - gi) as f64;
            let k = bars.len() as f64;
            let h = 0.8 / k;
            for (bi, b) in bars.iter().enumerate() {
                let top = centre + 0.4 - bi as f64 * h;
                let bottom = top - h * 0.9;
                chart.draw_series(std::iter::once(Rectangle::new([(0.0, bottom), (b.value, top)], b.colour.filled())))?;
                let text = if b.label.is_empty() {
                    (self.value_format)(b.value)
                } else {
                    format!("{} {}", (self.value_format)(b.value), b.label)
                };
                chart.draw_series(std::iter::once(Text::new(
                    text,
                    (b.value + xmax * 0.005, (top + bottom) / 2.0 + h * 0.35),
                    ("sans-serif", 12).into_font(),
                )))?;
            }
        }
        if let Some((name, v)) = &self.ceiling {
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(*v, -0.5), (*v, n as f64 - 0.5)],
                CEILING.stroke_width(2),
            )))?;
            chart.draw_series(std::iter::once(Text::new(
                name.clone(),
                (*v + xmax * 0.005, n as f64 - 0.55),
                ("sans-serif", 12).into_font().color(&CEILING),
            )))?;
        }
        // Legend under the plot.
        for (i, (name, colour)) in self.legend.iter().enumerate() {
            let x = 20 + (i % 3) as i32 * 320;
            let y = 4 + 20 * (i / 3) as i32;
            legend_area.draw(&Rectangle::new([(x, y), (x + 14, y + 12)], colour.filled()))?;
            legend_area.draw(&Text::new(name.to_string(), (x + 20, y), ("sans-serif", 13).into_font()))?;
        }
        whole.present()?;
        Ok(())
    }
}

fn ok(r: &Record) -> bool {
    r.check == "ok"
}

/// The shape with the most rows of `family` (the chart's shape).
fn main_shape<'a>(rows: &[&'a Record]) -> Option<&'a str> {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for r in rows {
        *count.entry(r.shape.as_str()).or_default() += 1;
    }
    let most = count.values().copied().max()?;
    // Of the shapes with the most rows, the largest.
    count.into_iter().filter(|(_, c)| *c == most).map(|(s, _)| s).max_by_key(|s| volume(s))
}

/// The number of elements a shape string names (`4096×4096×4096`, `8192x8192`).
fn volume(shape: &str) -> u128 {
    shape.split(['×', 'x', ' ']).filter_map(|d| d.parse::<u128>().ok()).product()
}

fn fmt0(v: f64) -> String {
    format!("{v:.0}")
}

fn fmt1(v: f64) -> String {
    format!("{v:.1}")
}

/// The SGEMM ladder at its main shape: each rung's best configuration,
/// Auto, and the cuBLAS line.
fn sgemm_ladder(records: &[Record], dir: &Path) -> Result<Option<PathBuf>> {
    let rows: Vec<&Record> = records.iter().filter(|r| r.family == "sgemm").collect();
    let Some(shape) = main_shape(&rows) else { return Ok(None) };
    let at: Vec<&&Record> = rows.iter().filter(|r| r.shape == shape).collect();
    let mut rungs: Vec<(String, &Record)> = Vec::new();
    // The ladder's rungs (1 … 10, 7a/7b) and Auto; other rows (other
    // operand layouts) are in the tables.
    let on_ladder = |rung: &str| {
        rung == "auto" || rung.trim_end_matches(char::is_alphabetic).parse::<u32>().is_ok_and(|n| (1..=10).contains(&n))
    };
    for r in at.iter().filter(|r| ok(r) && on_ladder(r.rung.as_deref().unwrap_or(""))) {
        let rung = r.rung.clone().unwrap_or_default();
        match rungs.iter_mut().find(|(x, _)| *x == rung) {
            Some((_, best)) if r.throughput > best.throughput => *best = r,
            Some(_) => {}
            None => rungs.push((rung, r)),
        }
    }
    let ceiling = at.iter().find(|r| r.check == "ceiling").map(|r| (format!("{} {:.0}", r.kernel, r.throughput), r.throughput));
    let groups = rungs
        .into_iter()
        .map(|(rung, r)| {
            let label = if rung == "auto" { format!("Auto {}", r.kernel) } else { format!("{rung}  {}", r.kernel) };
            let colour = if rung == "auto" { DEFAULT } else { OURS };
            (label, vec![Bar { label: String::new(), value: r.throughput, colour }])
        })
        .collect();
    let gpu = &at[0].gpu;
    let path = dir.join("sgemm_ladder.svg");
    BarChart {
        title: format!("SGEMM ladder, {shape}, {gpu} ({})", at[0].date),
        x_label: "GFLOP/s (best configuration of each rung)".into(),
        groups,
        ceiling,
        legend: vec![("ours, per rung", OURS), ("Auto (what Gemm::new picks)", DEFAULT), ("cuBLAS SGEMM (ceiling)", CEILING)],
        value_format: fmt0,
    }
    .draw(&path)?;
    Ok(Some(path))
}

/// The transpose ladder at its largest square size: the rungs (not the
/// other configurations) and the copy line.
fn transpose_ladder(records: &[Record], dir: &Path) -> Result<Option<PathBuf>> {
    let rows: Vec<&Record> = records.iter().filter(|r| r.family == "transpose").collect();
    let Some(shape) = rows.iter().map(|r| r.shape.as_str()).max_by_key(|s| volume(s)) else { return Ok(None) };
    let at: Vec<&&Record> = rows.iter().filter(|r| r.shape == shape).collect();
    let groups = at
        .iter()
        .filter(|r| ok(r) && r.rung.as_deref().is_some_and(|k| k.starts_with("rung")))
        .map(|r| {
            let default = r.rung.as_deref() == Some("rung, default");
            let label = if default { format!("{} (default)", r.kernel) } else { r.kernel.clone() };
            (label, vec![Bar { label: String::new(), value: r.throughput, colour: if default { DEFAULT } else { OURS } }])
        })
        .collect();
    let ceiling = at.iter().find(|r| r.check == "ceiling").map(|r| (format!("copy {:.0}", r.throughput), r.throughput));
    let path = dir.join("transpose_ladder.svg");
    BarChart {
        title: format!("Transpose ladder, {shape} f32, {} ({})", at[0].gpu, at[0].date),
        x_label: "GB/s (bytes read + written)".into(),
        groups,
        ceiling,
        legend: vec![("ours, per rung", OURS), ("the default (Transpose::new)", DEFAULT), ("device-to-device copy (ceiling)", CEILING)],
        value_format: fmt0,
    }
    .draw(&path)?;
    Ok(Some(path))
}

/// % of the ceiling of what each family runs by default, per shape class.
fn pct_by_shape(records: &[Record], dir: &Path) -> Result<Option<PathBuf>> {
    let mut groups = Vec::new();
    let mut add = |label: String, r: &Record, colour: RGBColor| {
        if let Some(x) = r.ratio {
            groups.push((label, vec![Bar { label: String::new(), value: 100.0 * x, colour }]));
        }
    };
    let sgemm = RGBColor(0x2a, 0x6f, 0xb0);
    let tc = RGBColor(0x3a, 0x9a, 0x5b);
    let tr = RGBColor(0x8a, 0x4f, 0xb0);
    let img = RGBColor(0xe0, 0x8a, 0x1e);
    for r in records.iter().filter(|r| ok(r)) {
        match (r.family.as_str(), r.rung.as_deref()) {
            ("sgemm", Some("auto")) => add(format!("SGEMM {} (Auto)", r.shape), r, sgemm),
            ("gemm_tc", _) if r.kernel.starts_with("auto (") && r.ceiling.as_deref() == Some("cuBLAS") => {
                add(format!("TC {} {} (Auto)", r.dtype, r.shape), r, tc)
            }
            ("transpose", Some("rung, default")) => add(format!("transpose {} (default)", r.shape), r, tr),
            _ => {}
        }
    }
    // Image: the default rung of each kind of work is the first of the
    // library's preference order that was measured; show the kinds by the
    // rung the library picks (hslide blur, vec16 grayscale, vec4 add).
    for r in records.iter().filter(|r| ok(r) && r.family == "image") {
        let pick = r.kernel == "rgb_to_gray_vec16"
            || r.kernel.starts_with("blur_hslide_")
            || r.kernel == "vec_add_vec4"
            || r.kernel == "volume_affine";
        if pick {
            add(format!("{} {}", r.kernel, r.shape), r, img);
        }
    }
    if groups.is_empty() {
        return Ok(None);
    }
    let first = records.iter().find(|r| r.ratio.is_some()).expect("a ratio");
    let (from, to) = (
        records.iter().map(|r| r.date.as_str()).min().unwrap_or_default(),
        records.iter().map(|r| r.date.as_str()).max().unwrap_or_default(),
    );
    let dates = if from == to { from.to_string() } else { format!("{from} to {to}") };
    let path = dir.join("pct_of_ceiling.svg");
    BarChart {
        title: format!("% of the ceiling by shape, {} ({dates})", first.gpu),
        x_label: "% of the ceiling (cuBLAS for GEMM; a copy of the same bytes otherwise; same run)".into(),
        groups,
        ceiling: Some(("100 %".into(), 100.0)),
        legend: vec![("SGEMM vs cuBLAS", sgemm), ("tensor cores vs cuBLAS", tc), ("transpose vs copy", tr), ("image / vector vs copy", img)],
        value_format: fmt1,
    }
    .draw(&path)?;
    Ok(Some(path))
}

/// Fewest shapes a run's tensor-core chart shows.
const MIN_TC_GROUPS: usize = 4;

/// The shapes (types and shape, as the chart's groups name them) a run
/// must have measured, ours and cuBLAS's, to be the tensor-core chart's.
const TC_HEADLINE: &[&str] = &["bf16→bf16 4096×4096×4096", "bf16→bf16 8192×8192×8192"];

/// Tensor-core GEMM against cuBLAS, TFLOP/s, per types and shape.
fn tensor_cores(records: &[Record], dir: &Path) -> Result<Option<PathBuf>> {
    let rows: Vec<&Record> = records.iter().filter(|r| r.family == "gemm_tc").collect();
    let mut groups = Vec::new();
    for blas in rows.iter().filter(|r| r.kernel == "cuBLAS") {
        let Some(ours) = rows.iter().find(|r| r.shape == blas.shape && r.dtype == blas.dtype && r.kernel.starts_with("auto (") && ok(r))
        else {
            continue;
        };
        let tile = ours.kernel.trim_start_matches("auto (").trim_end_matches(')');
        groups.push((
            format!("{} {}", blas.dtype, blas.shape),
            vec![
                Bar { label: "cuBLAS".into(), value: blas.throughput, colour: VENDOR },
                Bar { label: format!("ours ({tile})"), value: ours.throughput, colour: OURS },
            ],
        ));
    }
    // A run that re-measured a few shapes only leaves the chart to the last
    // full run: one with the headline shapes and at least MIN_TC_GROUPS.
    let has = |shape: &str| groups.iter().any(|(name, _)| name == shape);
    if groups.len() < MIN_TC_GROUPS || !TC_HEADLINE.iter().all(|s| has(s)) {
        return Ok(None);
    }
    let path = dir.join("tensor_cores_vs_cublas.svg");
    BarChart {
        title: format!("Tensor-core GEMM vs cuBLAS, {} ({})", rows[0].gpu, rows[0].date),
        x_label: "TFLOP/s (same types and compute type; batched shapes: batch × m × n × k)".into(),
        groups,
        ceiling: None,
        legend: vec![("cuBLAS", VENDOR), ("ours (Auto's pick)", OURS)],
        value_format: fmt0,
    }
    .draw(&path)?;
    Ok(Some(path))
}

/// The results files `report` reads by default: docs/results/*.jsonl,
/// sorted by name (dated names: oldest first).
pub fn default_files() -> Result<Vec<PathBuf>> {
    let dir = Path::new("docs/results");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    Ok(files)
}

/// `cargo xtask report [FILE…]`: the markdown tables, the SVG charts and
/// the generated sections of BENCHMARKS.md and README.md
/// (`crate::sections`). `check`: write nothing, fail when RESULTS.md or
/// a section is stale (the charts are not compared).
pub fn report(files: &[PathBuf], markdown_out: &Path, charts: &Path, check: bool) -> Result<()> {
    let files = if files.is_empty() { default_files()? } else { files.to_vec() };
    if files.is_empty() {
        bail!("no results files (JSON lines) in docs/results/ and none given");
    }
    // Every record, none replaced (the charts draw one run's records),
    // and the latest of each (the tables).
    let all = read_all_records(&files)?;
    let records = latest_of(all.clone());
    if records.is_empty() {
        bail!("no records in {files:?}");
    }
    let md = markdown(&records, &files);
    if check {
        let old = std::fs::read_to_string(markdown_out).unwrap_or_default();
        let sections = crate::sections::update(&files, true);
        if old != md {
            bail!("{} is out of date (run `cargo xtask report`){}", markdown_out.display(),
                sections.err().map_or(String::new(), |e| format!("; {e:#}")));
        }
        sections?;
        eprintln!("generated sections and {} up to date", markdown_out.display());
        return Ok(());
    }
    crate::sections::update(&files, false)?;
    crate::util::write(markdown_out, md.as_bytes())?;
    eprintln!("wrote {}", markdown_out.display());
    std::fs::create_dir_all(charts).with_context(|| format!("creating {}", charts.display()))?;
    // The charts draw the GPU of the latest single-GPU run (a multi-GPU
    // run has no ladder to draw). A ladder or the tensor-core chart
    // compares bars of one run: the latest date that has its data. The %
    // chart shows ratios, each measured against its own same-run ceiling:
    // the latest record of every bar, whatever its date.
    // Charts of one run: every record of the date, not only those no
    // later run re-measured.
    let single = || all.iter().filter(|r| r.family != "multi_gpu");
    let latest = single().map(|r| r.date.clone()).max().unwrap_or_default();
    let gpu = single().rfind(|r| r.date == latest).map(|r| r.gpu.clone()).unwrap_or_default();
    let on_gpu: Vec<Record> = all.iter().filter(|r| r.gpu == gpu).cloned().collect();
    let latest_on_gpu: Vec<Record> = records.iter().filter(|r| r.gpu == gpu).cloned().collect();
    let mut dates: Vec<&str> = on_gpu.iter().map(|r| r.date.as_str()).collect();
    dates.sort_unstable();
    dates.dedup();
    type Chart = fn(&[Record], &Path) -> Result<Option<PathBuf>>;
    for chart in [sgemm_ladder as Chart, transpose_ladder, tensor_cores] {
        for date in dates.iter().rev() {
            let of_date = latest_of(on_gpu.iter().filter(|r| r.date == *date).cloned().collect());
            if let Some(p) = chart(&of_date, charts)? {
                eprintln!("wrote {}", p.display());
                break;
            }
        }
    }
    if let Some(p) = pct_by_shape(&latest_on_gpu, charts)? {
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sgemm_table_rows_become_records_with_the_ceiling_of_their_shape() {
        let log = "# SGEMM ladder — NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)\n\n\
                   | rung | kernel | m×n×k | time ms | GFLOP/s | % of cuBLAS | check |\n\
                   | --- | --- | --- | ---: | ---: | ---: | --- |\n\
                   | ceiling | cuBLAS SGEMM | 64×64×64 | 2.000 | 50000 | 100.0 | ok |\n\
                   | 1 | sgemm_naive | 64×64×64 | 200.000 | 500 | 1.0 | ok |\n\
                   | 2 | sgemm_coalesced | 64×64×64 | — | — | — | skipped |\n\
                   \n| m×n×k | best kernel | % of cuBLAS |\n| 64×64×64 | sgemm_naive | 1.0 |\n";
        let r = parse_log(log, "1.2", "2026-01-02", "x.log");
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].check.as_str(), r[0].ceiling.as_deref()), ("ceiling", None));
        assert_eq!(r[1].kernel, "sgemm_naive");
        assert_eq!(r[1].gpu, "NVIDIA H100 80GB HBM3");
        assert_eq!((r[1].time_ms, r[1].throughput, r[1].ratio, r[1].ceiling_throughput), (200.0, 500.0, Some(0.01), Some(50000.0)));
    }

    #[test]
    fn gemm_tc_json_lines_keep_their_ceiling_and_check() {
        let log = "# Tensor-core GEMM — H (sm_90, 1 SMs)\n\
                   | bf16 | 8×8×8 | cuBLAS | 1 | 2 | 100.0 | 1e-3 |\n\
                   JSON {\"bench\":\"gemm_tc\",\"dtype\":\"bf16\",\"shape\":\"8×8×8\",\"kernel\":\"cuBLAS\",\"ms\":1.0,\"tflops\":2.0,\"pct_of_ceiling\":100.00,\"rel_err\":1e-3}\n\
                   | bf16 | 8×8×8 | mma | 2 | 1 | 50.0 | FAIL 1 |\n\
                   JSON {\"bench\":\"gemm_tc\",\"dtype\":\"bf16\",\"shape\":\"8×8×8\",\"kernel\":\"mma\",\"ms\":2.0,\"tflops\":1.0,\"pct_of_ceiling\":50.00,\"rel_err\":1}\n";
        let r = parse_log(log, "d", "2026-01-02", "y.log");
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].check, "ceiling");
        assert_eq!((r[1].check.as_str(), r[1].ratio, r[1].ceiling_throughput), ("FAIL", Some(0.5), Some(2.0)));
    }

    /// The tensor-core chart draws a run with the headline shapes (ours and
    /// cuBLAS's, checked) and leaves one that re-measured other shapes to
    /// an earlier run.
    #[test]
    fn the_tensor_core_chart_wants_the_headline_shapes() {
        let json = |shape: &str, kernel: &str, tflops: f64| {
            format!("JSON {{\"bench\":\"gemm_tc\",\"dtype\":\"bf16→bf16\",\"shape\":\"{shape}\",\"kernel\":\"{kernel}\",\"ms\":1.0,\"tflops\":{tflops},\"pct_of_ceiling\":50.0,\"rel_err\":1e-3}}\n")
        };
        let log = |shapes: &[&str]| {
            let mut log = String::from("# Tensor-core GEMM — G (sm_90, 132 SMs)\n");
            for s in shapes {
                log += &json(s, "cuBLAS", 700.0);
                log += &json(s, "auto (wgmma_128x256)", 710.0);
            }
            parse_log(&log, "d", "2026-01-02", "z.log")
        };
        let dir = std::env::temp_dir().join(format!("ferrotile-tc-chart-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let few = log(&["1024×1024×1024", "512×128×128×128", "512×127×127×127", "1021×1019×1031", "4096×4096×4096"]);
        assert!(tensor_cores(&few, &dir).unwrap().is_none());
        let full = log(&["4096×4096×4096", "8192×8192×8192", "4096×14336×4096", "8192×8192×1024"]);
        let svg = std::fs::read_to_string(tensor_cores(&full, &dir).unwrap().unwrap()).unwrap();
        assert!(svg.contains("8192×8192×8192") && svg.contains("G (2026-01-02)"));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_ladder_chart_names_every_rung_and_the_ceiling() {
        let log = "# SGEMM ladder — G (sm_90)\n\
                   | ceiling | cuBLAS SGEMM | 64×64×64 | 2.000 | 50000 | 100.0 | ok |\n\
                   | 1 | sgemm_naive | 64×64×64 | 200.000 | 500 | 1.0 | ok |\n\
                   | 7a | sgemm_padded | 64×64×64 | 4.000 | 25000 | 50.0 | ok |\n\
                   | 9 | sgemm_wrong | 64×64×64 | 1.000 | 99999 | 200.0 | FAIL |\n\
                   | 26 | sgemm_other_layout | 64×64×64 | 4.000 | 25000 | 50.0 | ok |\n";
        let records = parse_log(log, "d", "2026-01-02", "x");
        let dir = std::env::temp_dir().join(format!("ferrotile-chart-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let svg = std::fs::read_to_string(sgemm_ladder(&records, &dir).unwrap().unwrap()).unwrap();
        for want in ["1  sgemm_naive", "7a  sgemm_padded", "cuBLAS SGEMM 50000", "25000", "G (2026-01-02)"] {
            assert!(svg.contains(want), "{want} missing");
        }
        // Failed rows and rows off the ladder are not drawn.
        assert!(!svg.contains("sgemm_wrong") && !svg.contains("sgemm_other_layout"));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn decode_class_and_pytorch_rows_become_records() {
        let log = "# Tensor-core GEMM — H (sm_90, 1 SMs)\n\
                   | bf16→bf16 | 1×8×8 (decode) | cuBLAS: 2 GB/s | 1 | 2 | 50.0 | 1e-3 |\n\
                   JSON {\"bench\":\"gemm_tc\",\"dtype\":\"bf16→bf16\",\"shape\":\"1×8×8 decode\",\"kernel\":\"cuBLAS\",\"ms\":1.0,\"gbs\":2.0,\"pct_of_ceiling\":50.00,\"rel_err\":1e-3}\n";
        let r = parse_log(log, "d", "2026-01-02", "y.log");
        assert_eq!((r[0].family.as_str(), r[0].shape.as_str(), r[0].unit.as_str()), ("gemm_tc_decode", "1×8×8", "GB/s"));
        assert_eq!((r[0].ratio, r[0].ceiling_throughput), (Some(0.5), Some(4.0)));
        let log = "# SGEMM ladder — G (sm_90)\n\
                   | class | m×n×k | op | cuBLAS ms | Auto ms | Auto kernel | % of cuBLAS | check |\n\
                   | odd | 10×10×10 | TN | 0.001 | 0.002 | sgemm_x | 50.0 | ok |\n";
        let r = parse_log(log, "d", "2026-01-02", "c.log");
        assert_eq!(r.len(), 1);
        assert_eq!((r[0].family.as_str(), r[0].shape.as_str(), r[0].rung.as_deref(), r[0].ratio), ("sgemm_class", "10×10×10 TN", Some("odd"), Some(0.5)));
        assert!((r[0].throughput - 1.0).abs() < 1e-9, "2·10³ flop in 2 µs: 1 GFLOP/s");
        let log = "# PyTorch 2 transpose baseline — G\n| y.copy_(x) | 8x8 | 1.0 | 10.0 | 100.0 |\n| x.t().contiguous() | 8x8 | 2.0 | 5.0 | 50.0 |\n";
        let r = parse_log(log, "d", "2026-01-02", "t.log");
        assert_eq!((r[1].kernel.as_str(), r[1].ratio, r[1].ceiling_throughput), ("PyTorch x.t().contiguous()", Some(0.5), Some(10.0)));
    }

    #[test]
    fn later_records_replace_earlier_ones() {
        let dir = std::env::temp_dir().join(format!("ferrotile-report-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = "# SGEMM ladder — G (sm_90)\n| 1 | k | s | 1.0 | 10 | — | ok |\n";
        let mut a = parse_log(log, "d", "2026-01-01", "a");
        a.extend(parse_log(&log.replace("| s |", "| t |"), "d", "2026-01-01", "a"));
        let b = parse_log(&log.replace("| 10 |", "| 20 |"), "d", "2026-01-02", "b");
        let line = |v: &[Record]| v.iter().map(|r| serde_json::to_string(r).unwrap() + "\n").collect::<String>();
        std::fs::write(dir.join("a.jsonl"), line(&a)).unwrap();
        std::fs::write(dir.join("b.jsonl"), line(&b)).unwrap();
        let r = latest_of(read_all_records(&[dir.join("a.jsonl"), dir.join("b.jsonl")]).unwrap());
        assert_eq!(r.iter().map(|r| (r.shape.as_str(), r.throughput)).collect::<Vec<_>>(), [("s", 20.0), ("t", 10.0)]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn auto_rows_are_one_per_suffix_whatever_their_pick() {
        let base = parse_log("# SGEMM ladder — G (sm_90)\n| 1 | k | s | 1.0 | 10 | — | ok |\n", "d", "2026-01-01", "a").remove(0);
        let rec = |kernel: &str, throughput: f64| Record { kernel: kernel.into(), throughput, ..base.clone() };
        let r = latest_of(vec![
            rec("auto (x)", 1.0),
            rec("auto (x), fused bias + GELU", 2.0),
            rec("auto (y)", 3.0),
            rec("auto (y), fused bias + GELU", 4.0),
        ]);
        assert_eq!(r.iter().map(|r| (r.kernel.as_str(), r.throughput)).collect::<Vec<_>>(), [("auto (y)", 3.0), ("auto (y), fused bias + GELU", 4.0)]);
    }
}
