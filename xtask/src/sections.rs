//! The generated sections of BENCHMARKS.md and README.md: each results
//! table there sits between `<!-- report:NAME begin -->` and
//! `<!-- report:NAME end -->` and is rendered by `cargo xtask report` from
//! the records of docs/results/ through one [`Table`] spec below (which
//! records, which column is the ceiling, how rows are labelled). The prose
//! around the markers is left alone; `cargo xtask report --check` fails
//! when a section differs from what the records give.
//!
//! Rules (written under every table): a % is `100 × ratio` of the record,
//! one decimal, half away from zero ([`fmt`]); a throughput is the record's, with the decimals the cell
//! names; where a cell selects several records (runs, kernels, shapes) it
//! shows `min–max` of the formatted values, or one value when they print
//! the same. Failed rows and rows without a ratio (other than ceilings)
//! are never selected. A selector that names no run takes the latest date
//! and must then find one run, or it is an error.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};

use crate::report::Record;

/// A record and the results file it was read from.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The record.
    pub rec: Record,
    /// Its results file, as given.
    pub file: String,
}

/// Every record of the files, none replaced (a cell chooses its run).
pub fn load(files: &[PathBuf]) -> Result<Vec<Loaded>> {
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).with_context(|| format!("reading {}", f.display()))?;
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let rec: Record =
                serde_json::from_str(line).with_context(|| format!("{}:{}: not a result record", f.display(), i + 1))?;
            out.push(Loaded { rec, file: f.display().to_string() });
        }
    }
    Ok(out)
}

/// The run of a record: its log's folder, or its results file's name.
fn run_of(l: &Loaded) -> String {
    match l.rec.source.as_deref().and_then(|s| Path::new(s).parent()) {
        Some(p) if !p.as_os_str().is_empty() => p.display().to_string(),
        _ => l.file.clone(),
    }
}

/// Which records a cell shows.
#[derive(Clone, Copy, Debug)]
pub struct Sel {
    /// The record's family.
    pub family: &'static str,
    /// Kernel names; one ending in `*` is a prefix.
    pub kernels: &'static [&'static str],
    /// Shapes, exactly as recorded.
    pub shapes: &'static [&'static str],
    /// Element types; empty: any.
    pub dtype: &'static str,
    /// Runs (a part of the log folder's or the results file's path);
    /// empty: the latest date's one run.
    pub runs: &'static [&'static str],
}

/// One cell of a row.
#[derive(Clone, Copy, Debug)]
pub enum Cell {
    /// Literal text (labels).
    T(&'static str),
    /// `100 × ratio`, one decimal.
    Pct(Sel),
    /// The records' throughput, with this many decimals.
    Num(Sel, usize),
    /// The ratio as a speed-up, `1.90×` (two decimals): for rows whose
    /// ceiling is the same work on fewer devices.
    Speedup(Sel),
    /// The cells one after the other.
    Cat(&'static [Cell]),
}

/// A generated table.
#[derive(Debug)]
pub struct Table {
    /// The marker's name: `<!-- report:NAME begin -->`.
    pub name: &'static str,
    /// The file holding the markers.
    pub file: &'static str,
    /// Column headings.
    pub header: &'static [&'static str],
    /// Per column: `l` left, `r` right aligned.
    pub align: &'static str,
    /// The rows.
    pub rows: &'static [&'static [Cell]],
    /// What the table shows, under it (before the runs).
    pub note: &'static str,
}

fn matches(pattern: &str, kernel: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => kernel.starts_with(prefix),
        None => kernel == pattern,
    }
}

/// The records a selector names (see the module's rules): those with a
/// ratio to a ceiling, or the ceiling rows themselves.
pub fn select<'a>(sel: &Sel, records: &'a [Loaded]) -> Result<Vec<&'a Loaded>> {
    select_rows(sel, records, true)
}

/// As [`select`]; with `ratios_only` false also rows measured against no
/// ceiling (bandwidths), for cells that show the throughput.
fn select_rows<'a>(sel: &Sel, records: &'a [Loaded], ratios_only: bool) -> Result<Vec<&'a Loaded>> {
    let mut found: Vec<&Loaded> = records
        .iter()
        .filter(|l| {
            let r = &l.rec;
            r.family == sel.family
                && sel.kernels.iter().any(|k| matches(k, &r.kernel))
                && sel.shapes.contains(&r.shape.as_str())
                && (sel.dtype.is_empty() || r.dtype == sel.dtype)
                && (!ratios_only || r.ratio.is_some() || r.check == "ceiling")
                && !r.check.starts_with("FAIL")
                && (sel.runs.is_empty() || sel.runs.iter().any(|x| run_of(l).contains(x) || l.file.contains(x)))
        })
        .collect();
    if found.is_empty() {
        bail!("no record for {sel:?}");
    }
    if sel.runs.is_empty() {
        let latest = found.iter().map(|l| l.rec.date.clone()).max().expect("not empty");
        found.retain(|l| l.rec.date == latest);
        let mut runs: Vec<String> = found.iter().map(|l| run_of(l)).collect();
        runs.sort();
        runs.dedup();
        if runs.len() > 1 {
            bail!("{sel:?}: records of {latest} from {} runs ({}); name the run", runs.len(), runs.join(", "));
        }
    }
    Ok(found)
}

/// `x` with `decimals` decimals, half away from zero on its decimal value
/// (100 × 1.0065 is 100.649999… in binary; the record means 100.65 → 100.7).
pub fn fmt(x: f64, decimals: usize) -> String {
    let scale = 10f64.powi(decimals as i32);
    let y = ((x * scale * 1e6).round() / 1e6).round() / scale;
    format!("{y:.decimals$}")
}

/// `min–max` of the formatted values, or one when they print the same.
fn span(values: impl Iterator<Item = f64>, decimals: usize) -> String {
    let v: Vec<f64> = values.collect();
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (a, b) = (fmt(lo, decimals), fmt(hi, decimals));
    if a == b {
        a
    } else {
        format!("{a}–{b}")
    }
}

fn cell<'a>(c: &Cell, records: &'a [Loaded], used: &mut Vec<&'a Loaded>) -> Result<String> {
    Ok(match c {
        Cell::T(t) => (*t).to_owned(),
        Cell::Pct(sel) => {
            let f = select(sel, records)?;
            let Some(_) = f.iter().find(|l| l.rec.ratio.is_some()) else { bail!("{sel:?}: no ratio (a ceiling row)") };
            used.extend(&f);
            span(f.iter().filter_map(|l| l.rec.ratio).map(|x| 100.0 * x), 1)
        }
        Cell::Speedup(sel) => {
            let f = select(sel, records)?;
            let Some(_) = f.iter().find(|l| l.rec.ratio.is_some()) else { bail!("{sel:?}: no ratio (a ceiling row)") };
            used.extend(&f);
            format!("{}×", span(f.iter().filter_map(|l| l.rec.ratio), 2))
        }
        Cell::Num(sel, d) => {
            let f = select_rows(sel, records, false)?;
            used.extend(&f);
            span(f.iter().map(|l| l.rec.throughput), *d)
        }
        Cell::Cat(cells) => {
            let mut s = String::new();
            for c in *cells {
                s += &cell(c, records, used)?;
            }
            s
        }
    })
}

/// The markdown of one table: the table, its note, and the runs its
/// numbers come from.
pub fn render(t: &Table, records: &[Loaded]) -> Result<String> {
    let mut md = String::new();
    let mut used: Vec<&Loaded> = Vec::new();
    let _ = writeln!(md, "| {} |", t.header.join(" | "));
    let aligns: Vec<&str> = t.align.chars().map(|a| if a == 'r' { "---:" } else { "---" }).collect();
    let _ = writeln!(md, "| {} |", aligns.join(" | "));
    for row in t.rows {
        let cells = row
            .iter()
            .map(|c| cell(c, records, &mut used))
            .collect::<Result<Vec<_>>>()
            .with_context(|| format!("table {} ({})", t.name, t.file))?;
        let _ = writeln!(md, "| {} |", cells.join(" | "));
    }
    // The runs: results file, log folder, GPU, driver, date.
    let mut runs: Vec<String> = used
        .iter()
        .map(|l| {
            let run = run_of(l);
            let from = if run == l.file { format!("`{}`", l.file) } else { format!("`{}` (from `{run}/`)", l.file) };
            format!("{from}: {}, driver {}, {}", l.rec.gpu, l.rec.driver, l.rec.date)
        })
        .collect();
    runs.sort();
    runs.dedup();
    let _ = write!(
        md,
        "\n<sub>Generated by `cargo xtask report` (table `{}` in xtask/src/sections.rs); do not edit. {} \
         % = 100 × the record's ratio to its same-run ceiling, one decimal (half up); a range is min–max over the \
         records the cell selects. Records: {}.</sub>\n",
        t.name,
        t.note,
        runs.join("; ")
    );
    Ok(md)
}

fn markers(name: &str) -> (String, String) {
    (format!("<!-- report:{name} begin -->"), format!("<!-- report:{name} end -->"))
}

/// `text` with the section `name` replaced by `body` (the markers kept);
/// an error naming `file` and the marker when either is missing or out of
/// order.
pub fn replace_section(text: &str, file: &str, name: &str, body: &str) -> Result<String> {
    let (begin, end) = markers(name);
    let Some(b) = text.find(&begin) else { bail!("{file}: marker `{begin}` missing") };
    let after = b + begin.len();
    let Some(e) = text[after..].find(&end).map(|e| after + e) else { bail!("{file}: marker `{end}` missing after `{begin}`") };
    if text[after..].matches(&begin).count() > 0 {
        bail!("{file}: marker `{begin}` appears twice");
    }
    Ok(format!("{}\n{}{}", &text[..after], body, &text[e..]))
}

/// The files with every section of theirs regenerated: (path, old, new).
pub fn regenerate(root: &Path, tables: &[Table], records: &[Loaded]) -> Result<Vec<(PathBuf, String, String)>> {
    let mut files: Vec<&str> = tables.iter().map(|t| t.file).collect();
    files.sort();
    files.dedup();
    let mut out = Vec::new();
    for f in files {
        let path = root.join(f);
        let old = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        let mut new = old.clone();
        for t in tables.iter().filter(|t| t.file == f) {
            new = replace_section(&new, f, t.name, &render(t, records)?)?;
        }
        out.push((path, old, new));
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// The tables
// ---------------------------------------------------------------------------

const SHAPES: &str = "2026-11-23-h100-shapes.jsonl";
const SHAPES2: &str = "2026-11-23-h100-shapes2";
/// The shape classes, decode rows and stream overlap after the shared split-K reduction (2026-11-25).
const R25: &str = "2026-11-25-h100";
/// Thin transposes and the PyTorch / CuPy blur baselines (2026-11-25).
const BASE25: &str = "2026-11-25-h100-baselines";
const T25: &str = "2026-11-25-h100-transpose";
/// Rung 10 (line-aligned stores) in its two launch orders against rung 7
/// on odd sides, and the thin kernels, one run (the committed build).
const TF26: &str = "2026-11-26-h100-transpose-flat";
const SPLITK26: &str = "2026-11-26-h100-final";
/// The f32 shape classes with Auto's peeled edges (run 2 of 2026-11-27;
/// its medium-shape rows are not used: one cuBLAS time there was off).
const PEEL27: &str = "2026-11-27-h100-peel";
/// The wgmma engine after its epilogue changes (short path, stores held
/// into the next tile): the tensor-core rows, one run.
const EPI26: &str = "2026-11-26-h100-epilogue";
/// The wgmma engine with its TMA-store epilogue: the tensor-core rows,
/// batches, decode and tf32, two calls of one build.
const TMA26: &str = "2026-11-26-h100-tma-store";
/// Swapped `128 × 64` tiles for products of few rows (Auto's decode tile
/// from 2026-11-28): the committed build's decode rows, one call of
/// docs/benchmarks/2026-11-28-h100-swap-decode/run2-queue-vs-static/ (two shapes).
const SWAP28: &str = "2026-11-28-h100-swap-decode";
/// The H200 with programmatic dependent launches, the split-K workspace
/// kept per handle and Auto's estimate over three tiles (the swapped one
/// for few tiles): the whole gemm_tc bench, one call
/// (docs/benchmarks/2026-11-28-h200-few-tiles/run3-full/, cut by its time
/// limit after the few-tile shapes, before the odd shapes, the batches,
/// decode and the fused epilogue).
const H200PDL28: &str = "2026-11-28-h200-pdl-full";
/// The narrow swapped tile (`128 × 16`, Auto for `m` ≤ 16) with the
/// swapped tiles' maps promoting L2 fills by 128 bytes (the others 256):
/// every decode row, one call (docs/benchmarks/2026-11-29-h200-decode-stages/run7/;
/// the narrow tile's first runs, 256-byte promotion:
/// `2026-11-29-h200-narrow-decode`, docs/benchmarks/2026-11-29-h200-decode/).
const H200L2P29: &str = "2026-11-29-h200-l2-promotion";
/// The odd shapes with the staging copy by warps and the handle's kept
/// staging buffers: two rounds of one call in turn with the builds before
/// them (docs/benchmarks/2026-11-29-h200-staging/run5/, the `new3` build),
/// and two rounds of the other odd shapes and pitches (run6/).
const H200STG29: &str = "2026-11-29-h200-staging";
/// Batches, aligned and odd, with `Auto` counting a ping-pong warpgroup's
/// epilogue as long as the cooperative tile's and taking the ping-pong
/// tile from two k-tiles on: the new build's two rounds of one call, in
/// turn with the build before (docs/benchmarks/2026-11-29-h200-short-k/run2/).
const H200PPB29: &str = "2026-11-29-h200-pp-batches";
/// That build at short-`k` shapes with every tile forced, two rounds of
/// one call (docs/benchmarks/2026-11-29-h200-short-k/run3/).
const H200PPK29: &str = "2026-11-29-h200-pp-short-k";
/// `Auto` with the wide tile's lead refitted (`WIDE_TILE_SPEEDUP` 1.1):
/// the new build's two rounds of one call, in turn with the build before
/// (docs/benchmarks/2026-11-29-h200-tile-lead/run2-refit/, `a-w11-*`).
const H200LEAD29: &str = "2026-11-29-h200-tile-lead";
/// Issue 15's shape classes on an H200 (f32 GEMM classes and the image
/// classes, one call of docs/benchmarks/2026-11-28-h200-classes/).
const H200CL28: &str = "2026-11-28-h200-classes";
/// The f32 GEMM's classes with a transposed `A` read as stored by the rung 9
/// tilings' twins, on an H200 (docs/benchmarks/2026-11-30-h200-sgemm-twins/run2/,
/// the new build's first round).
const H200TW30: &str = "2026-11-30-h200-sgemm-twins";
/// The image classes on an H200 with RGBA on the sliding-sums rung
/// (docs/benchmarks/2026-11-28-h200-rgba/, the new build's first round).
const H200RGBA28: &str = "2026-11-28-h200-rgba";
/// The window blur with its vertical sums stored off one address and
/// unmasked for whole words, on an H200 (docs/benchmarks/2026-11-29-h200-blur-owners/run3/,
/// the new build's first round).
const H200BLURV29: &str = "2026-11-29-h200-blur-vertical";
/// The window blur with one barrier per batch (dp2a prefix sums, vertical
/// loads one batch ahead, four blocks per SM), one run.
const BLUR26: &str = "2026-11-26-h100-blur-onebarrier";
const FINAL: &str = "2026-11-23-h100-final";
const H100_22: &str = "2026-11-22-final-h100";
const H200_22: &str = "2026-11-22-final-h200";

const fn tc(kernels: &'static [&'static str], shape: &'static [&'static str], dtype: &'static str, runs: &'static [&'static str]) -> Sel {
    Sel { family: "gemm_tc", kernels, shapes: shape, dtype, runs }
}

const AUTO: &[&str] = &["auto (*"];
const WG256: &[&str] = &["wgmma_128x256"];
const MMA: &[&str] = &["mma_128x128"];
const BLAS: &[&str] = &["cuBLAS"];
const C8192: &[&str] = &["8192×8192×8192"];
const C4096: &[&str] = &["4096×4096×4096"];
const C2048: &[&str] = &["2048×2048×2048"];
const C1024: &[&str] = &["1024×1024×1024"];
const MLP: &[&str] = &["4096×14336×4096"];
const SHALLOW: &[&str] = &["8192×8192×1024"];
const DECODE: &[&str] = &["1×8192×8192", "16×8192×8192", "64×14336×4096", "64×8192×8192"];
/// Products of fewer block tiles than multiprocessors (Auto's estimate
/// between split narrow tiles and whole swapped ones).
const FEW: &[&str] = &["1024×2048×1024", "2048×1024×512", "512×2048×2048", "1024×1024×8192"];
const ODD: &[&str] = &["4093×4099×4091"];
const BATCH_K64: &[&str] = &["64×1024×1024×64 (Bᵀ)"];
const BATCH_128: &[&str] = &["512×128×128×128"];
const BATCH_127: &[&str] = &["512×127×127×127"];
/// Short-`k` products (4 to 12 k-tiles of 64) that fill the GPU several times.
const SHORT_K: &[&str] = &["8192×8192×256", "8192×8192×512", "4096×14336×512", "16384×4096×768", "4096×4096×512"];
/// `Auto`'s plain calls where it takes the ping-pong tile.
const AUTO_PP: &[&str] = &["auto (wgmma_pp_128x128)"];
const BATCH_ODD_HEADS: &[&str] = &["256×255×1023×63 (Bᵀ)"];
/// Products whose `128 × 256` tiles fill less than one round of the H200
/// (or leave a thin last one), where `Auto` takes `128 × 128` since the
/// wide tile's lead was refitted.
const PART_ROUND: &[&str] = &["1536×1536×4096", "1792×4096×8192", "3072×3072×6144"];
/// `Auto`'s plain calls on the cooperative `128 × 128` tile.
const AUTO_128: &[&str] = &["auto (wgmma_128x128)"];
const BATCH_512: &[&str] = &["64×512×512×512"];
const BATCH_HEADS: &[&str] = &["256×256×1024×64 (Bᵀ)"];

/// One tensor-core row: Auto, wgmma 128x256, mma.sync 128x128, cuBLAS.
macro_rules! tc_row {
    ($types:literal, $label:literal, $dtype:literal, $shape:expr, $runs:expr) => {
        &[
            Cell::T($types),
            Cell::T($label),
            Cell::Pct(tc(AUTO, $shape, $dtype, $runs)),
            Cell::Pct(tc(WG256, $shape, $dtype, $runs)),
            Cell::Pct(tc(MMA, $shape, $dtype, $runs)),
            Cell::Num(tc(BLAS, $shape, $dtype, $runs), 1),
        ]
    };
}

/// A bf16 → bf16 row of [`tc_row!`]'s columns with `Auto`'s plain calls
/// on one tile (`$auto`: the fused rows name the tile too, and are left
/// out) and no `mma.sync` tile (not timed in those runs).
macro_rules! tc_auto_row {
    ($types:literal, $label:literal, $auto:expr, $shape:expr, $runs:expr) => {
        &[
            Cell::T($types),
            Cell::T($label),
            Cell::Pct(tc($auto, $shape, "bf16→bf16", $runs)),
            Cell::Pct(tc(WG256, $shape, "bf16→bf16", $runs)),
            Cell::T(""),
            Cell::Num(tc(BLAS, $shape, "bf16→bf16", $runs), 1),
        ]
    };
}

/// A tensor-core table's decode row: GB/s against a device copy of B,
/// Auto (with `$auto_note`), wgmma 128x256, mma.sync and cuBLAS; `$label`
/// names the shapes the runs measured.
macro_rules! tc_decode_row {
    ($runs:expr, $auto_note:literal, $label:expr) => {
        &[
            Cell::T("bf16 decode, % of a copy of B (HBM)"),
            Cell::T($label),
            Cell::Cat(&[Cell::Pct(Sel { family: "gemm_tc_decode", kernels: AUTO, shapes: DECODE, dtype: "bf16→bf16", runs: $runs }), Cell::T($auto_note)]),
            Cell::Pct(Sel { family: "gemm_tc_decode", kernels: WG256, shapes: DECODE, dtype: "bf16→bf16", runs: $runs }),
            Cell::Pct(Sel { family: "gemm_tc_decode", kernels: MMA, shapes: DECODE, dtype: "bf16→bf16", runs: $runs }),
            Cell::Cat(&[Cell::Pct(Sel { family: "gemm_tc_decode", kernels: BLAS, shapes: DECODE, dtype: "bf16→bf16", runs: $runs }), Cell::T(" % of HBM")]),
        ]
    };
}

/// A tensor-core table's decode row of ten calls back to back (the host
/// enqueuing the next call while the GPU runs the last): Auto and cuBLAS.
macro_rules! tc_decode_b2b_row {
    ($runs:expr, $label:expr) => {
        &[
            Cell::T("bf16 decode, ten calls back to back, % of a copy of B"),
            Cell::T($label),
            Cell::Pct(Sel { family: "gemm_tc_decode", kernels: &["auto, 10 calls back to back"], shapes: DECODE, dtype: "bf16→bf16", runs: $runs }),
            Cell::T(""),
            Cell::T(""),
            Cell::Cat(&[
                Cell::Pct(Sel { family: "gemm_tc_decode", kernels: &["cuBLAS, 10 calls back to back"], shapes: DECODE, dtype: "bf16→bf16", runs: $runs }),
                Cell::T(" % of HBM"),
            ]),
        ]
    };
}

/// A tensor-core table's row of bf16 → bf16 products off the aligned
/// path: Auto against our own aligned shape, one cell per shape (" / "
/// between them).
macro_rules! tc_vs_aligned_row {
    ($label:literal, $shapes:literal, $runs:expr, $first:literal $(, $more:literal)*) => {
        &[
            Cell::T($label),
            Cell::T($shapes),
            Cell::Cat(&[
                Cell::Pct(tc(&["auto (vs aligned)"], &[$first], "bf16→bf16", $runs))
                $(, Cell::T(" / "), Cell::Pct(tc(&["auto (vs aligned)"], &[$more], "bf16→bf16", $runs)))*
            ]),
            Cell::T(""),
            Cell::T(""),
            Cell::T(""),
        ]
    };
}

/// The odd-shape row: every dimension odd.
macro_rules! tc_odd_row {
    ($runs:expr) => {
        tc_vs_aligned_row!("bf16→bf16 odd, % of our aligned", "4093×4099×4091 / 1021×1019×1031", $runs, "4093×4099×4091", "1021×1019×1031")
    };
}

/// README's tensor-core row: TFLOP/s and % of wgmma 128x256 and mma.sync.
macro_rules! tc_readme_row {
    ($types:literal, $label:literal, $dtype:literal, $shape:expr, $runs:expr) => {
        &[
            Cell::T($types),
            Cell::T($label),
            Cell::Cat(&[Cell::Num(tc(WG256, $shape, $dtype, $runs), 0), Cell::T(" TFLOP/s, "), Cell::Pct(tc(WG256, $shape, $dtype, $runs)), Cell::T(" %")]),
            Cell::Cat(&[Cell::Num(tc(MMA, $shape, $dtype, $runs), 0), Cell::T(" TFLOP/s, "), Cell::Pct(tc(MMA, $shape, $dtype, $runs)), Cell::T(" %")]),
        ]
    };
}

const fn sc(class_shape: &'static [&'static str]) -> Cell {
    sc_in(&[SPLITK26], class_shape)
}

/// [`sc`] from the run with peeled edges.
const fn sc27(class_shape: &'static [&'static str]) -> Cell {
    sc_in(&[PEEL27], class_shape)
}

/// A shape-class cell from `runs`.
const fn sc_in(runs: &'static [&'static str], class_shape: &'static [&'static str]) -> Cell {
    Cell::Pct(Sel { family: "sgemm_class", kernels: &["*"], shapes: class_shape, dtype: "f32", runs })
}

const fn so_sel(kernel: &'static [&'static str]) -> Sel {
    Sel { family: "stream_overlap", kernels: kernel, shapes: &["16×4096×4096"], dtype: "f32", runs: &[R25] }
}

/// A stream-overlap cell: % of the ideal, or the copied GB/s (one decimal).
macro_rules! so {
    ($kernel:literal) => {
        Cell::Pct(so_sel(&[$kernel]))
    };
    ($kernel:literal, bw) => {
        Cell::Num(so_sel(&[$kernel]), 1)
    };
}

const fn ladder(kernels: &'static [&'static str], shape: &'static [&'static str], runs: &'static [&'static str]) -> Cell {
    Cell::Pct(Sel { family: "sgemm", kernels, shapes: shape, dtype: "f32", runs })
}

const fn tr(kernel: &'static [&'static str], shape: &'static [&'static str], runs: &'static [&'static str]) -> Cell {
    Cell::Pct(Sel { family: "transpose", kernels: kernel, shapes: shape, dtype: "f32", runs })
}

const BASE_SHAPES: &[&str] = &["8192x8192x1", "8192x8192x3", "8192x8192x4", "4093x4099x1", "4093x4099x3", "4093x4099x4"];

const fn base(kernels: &'static [&'static str]) -> Cell {
    Cell::Pct(Sel { family: "image_baseline", kernels, shapes: BASE_SHAPES, dtype: "", runs: &[BASE25] })
}

const fn img(kernels: &'static [&'static str], shape: &'static [&'static str], runs: &'static [&'static str]) -> Cell {
    Cell::Pct(Sel { family: "image", kernels, shapes: shape, dtype: "", runs })
}

/// A speed-up of the 2-GPU runs: the row `$kernel` of `$shape` in `$run`.
macro_rules! mg {
    ($kernel:expr, $shape:expr, $run:expr) => {
        Cell::Speedup(Sel { family: "multi_gpu", kernels: &[$kernel], shapes: &[$shape], dtype: "", runs: &[$run] })
    };
}

/// A bandwidth of the 2-GPU runs (GB/s, one decimal).
macro_rules! mg_bw {
    ($kernel:expr, $shape:expr, $run:expr) => {
        Cell::Num(Sel { family: "multi_gpu", kernels: &[$kernel], shapes: &[$shape], dtype: "", runs: &[$run] }, 1)
    };
}

/// Every generated table.
pub const TABLES: &[Table] = &[
    Table {
        name: "tensor-cores",
        file: "BENCHMARKS.md",
        header: &["types", "shape", "Auto", "wgmma 128x256", "mma.sync 128x128", "cuBLAS TFLOP/s"],
        align: "llrrrr",
        rows: &[
            tc_row!("bf16→bf16", "8192³", "bf16→bf16", C8192, &[TMA26]),
            tc_row!("bf16→bf16", "4096³", "bf16→bf16", C4096, &[TMA26]),
            tc_row!("bf16→bf16", "4096×14336×4096", "bf16→bf16", MLP, &[TMA26]),
            tc_row!("bf16→bf16", "8192×8192×1024", "bf16→bf16", SHALLOW, &[TMA26]),
            tc_row!("bf16→f32", "8192³", "bf16→f32", C8192, &[TMA26]),
            tc_row!("f16→f16", "8192³", "f16→f16", C8192, &[TMA26]),
            tc_row!("f16→f16", "2048³", "f16→f16", C2048, &[TMA26]),
            tc_row!("f16→f16", "1024³", "f16→f16", C1024, &[TMA26]),
            tc_row!("bf16→bf16, batch of 64, `B` stored transposed", "1024×1024×64", "bf16→bf16", BATCH_K64, &[TMA26]),
            tc_row!("bf16→bf16, batch of 512", "128³", "bf16→bf16", BATCH_128, &[TMA26]),
            tc_row!("bf16→bf16, batch of 64", "512³", "bf16→bf16", BATCH_512, &[TMA26]),
            tc_row!("bf16→bf16, batch of 256, `B` stored transposed", "256×1024×64", "bf16→bf16", BATCH_HEADS, &[TMA26]),
            tc_decode_row!(&[SWAP28], " (swapped 128 × 64 tiles, split-K in one launch)", "1×8192², 64×14336×4096"),
            tc_decode_b2b_row!(&[SWAP28], "1×8192²"),
            tc_odd_row!(&[EPI26]),
            tc_row!("tf32", "8192³", "tf32", C8192, &[TMA26]),
            tc_row!("tf32", "4096³", "tf32", C4096, &[TMA26]),
            tc_row!("tf32, `B` stored transposed", "8192³", "tf32 Bᵀ", C8192, &[TMA26]),
            tc_row!("tf32, `B` stored transposed", "4096³", "tf32 Bᵀ", C4096, &[TMA26]),
            tc_row!("tf32", "4093×4099×4091", "tf32", ODD, &[TMA26]),
        ],
        note: "Columns: % of cuBLAS `GemmEx` with the same types in the same run; Auto is what `Gemm` runs \
               (wgmma on Hopper, a tile per shape; tf32 operands staged rounded and k-major first, inside the time); \
               decode rows are GB/s against a device copy of B. \
               Runs: the 2026-11-26 TMA-store build (two calls of one build) but the odd-shape row (the 2026-11-26 epilogue run) \
               and the decode rows (swapped tiles, 2026-11-28; the other decode shapes and their earlier runs: \
               BENCHMARKS.md, \"Decode: swapped tiles\" and docs/RESULTS.md).",
    },
    Table {
        name: "tensor-cores-h200",
        file: "BENCHMARKS.md",
        header: &["types", "shape", "Auto", "wgmma 128x256", "mma.sync 128x128", "cuBLAS TFLOP/s"],
        align: "llrrrr",
        rows: &[
            tc_row!("bf16→bf16", "8192³", "bf16→bf16", C8192, &[H200PDL28]),
            tc_row!("bf16→bf16", "4096³", "bf16→bf16", C4096, &[H200PDL28]),
            tc_row!("bf16→bf16", "4096×14336×4096", "bf16→bf16", MLP, &[H200PDL28]),
            tc_row!("bf16→bf16", "8192×8192×1024", "bf16→bf16", SHALLOW, &[H200PDL28]),
            tc_row!("bf16→f32", "8192³", "bf16→f32", C8192, &[H200PDL28]),
            tc_row!("f16→f16", "8192³", "f16→f16", C8192, &[H200PDL28]),
            tc_row!("bf16→bf16", "1024³", "bf16→bf16", C1024, &[H200PDL28]),
            tc_row!("bf16→bf16", "1024×2048×1024, 2048×1024×512, 512×2048², 1024²×8192", "bf16→bf16", FEW, &[H200PDL28]),
            tc_decode_row!(&[H200L2P29], " (swapped 128 × 16 tiles; 128 × 64 at m = 64)", "1×8192², 16×8192², 64×14336×4096, 64×8192²"),
            tc_decode_b2b_row!(&[H200L2P29], "1×8192², 16×8192², 64×14336×4096, 64×8192²"),
            tc_odd_row!(&[H200STG29]),
            tc_vs_aligned_row!(
                "bf16→bf16, one dimension odd, % of our aligned",
                "4096²×4091 / 4096×4099×4096 / 8192²×1023",
                &[H200STG29],
                "4096×4096×4091",
                "4096×4099×4096",
                "8192×8192×1023"
            ),
            tc_vs_aligned_row!(
                "bf16→bf16, rows 16- not 128-byte apart (`B` restaged / `A`), % of our aligned",
                "4096×4104×4096 / 4096²×4104",
                &[H200STG29],
                "4096×4104×4096",
                "4096×4096×4104"
            ),
            tc_auto_row!(
                "bf16→bf16, short `k` (4–12 k-tiles; the ping-pong tile)",
                "8192²×256, 8192²×512, 4096×14336×512, 16384×4096×768, 4096²×512",
                AUTO_PP,
                SHORT_K,
                &[H200PPK29]
            ),
            tc_auto_row!(
                "bf16→bf16, wide tiles short of a round (the `128 × 128` tile)",
                "1536²×4096, 1792×4096×8192, 3072²×6144",
                AUTO_128,
                PART_ROUND,
                &[H200LEAD29]
            ),
            tc_row!("bf16→bf16, batch of 512", "128³", "bf16→bf16", BATCH_128, &[H200PPB29]),
            tc_row!("bf16→bf16, batch of 512, odd (both operands staged, `C` stored by the threads)", "127³", "bf16→bf16", BATCH_127, &[H200PPB29]),
            tc_row!("bf16→bf16, batch of 256, odd (the same; `Bᵀ`)", "255×1023×63", "bf16→bf16", BATCH_ODD_HEADS, &[H200PPB29]),
        ],
        note: "H200: % of cuBLAS `GemmEx` with the same types in the same run; Auto is what `Gemm` runs; \
               decode rows are GB/s against a device copy of B. The build with programmatic dependent launches, the kept \
               split-K workspace and the swapped tile for few tiles (2026-11-28): the GEMM rows from one call of the whole \
               bench (cut before the odd shapes), the decode rows from the build with the narrow swapped tile for `m` ≤ 16 \
               and the swapped tiles' maps promoting L2 fills by 128 bytes (2026-11-29, one call); the odd-shape rows from two rounds of one call \
               of the build with the staging copy by warps and the handle's kept staging buffers, the pitch row from two rounds of another \
               call of it (2026-11-29, \"Staging: a copy by warps, kept buffers\"; `B` restaged since \"Odd `lda`: residue maps\"; the build that first stored a `C` TMA cannot write by the threads \
               and staged both operands in one launch: 2026-11-28, \"A `C` TMA cannot write\"); the batch rows from two rounds of one call of the build \
               whose `Auto` takes the ping-pong tile from two k-tiles on (2026-11-29, \"Short `k`: the ping-pong tile\", run 2; `C` stored \
               by the threads weighed as in \"`C` stored by the threads, in `Auto`'s estimate\", the staging copy as in \"Staging: short rows\"), \
               the short-`k` row from two rounds of another call of it (run 3: Auto's plain calls, all on the ping-pong tile; the `mma.sync` \
               tile not timed there); the row of wide tiles short of a round from two rounds of one call of the build with the wide tile's \
               lead refitted (2026-11-29, \"The wide tile's lead, refitted\", run 2); the earlier builds' H200 runs: BENCHMARKS.md and docs/RESULTS.md.",
    },
    Table {
        name: "sgemm-ladder",
        file: "BENCHMARKS.md",
        header: &["rung", "kernel", "% of cuBLAS"],
        align: "llr",
        rows: &[
            &[Cell::T("1 naive"), Cell::T("`sgemm_naive`"), ladder(&["sgemm_naive"], C4096, &[SHAPES])],
            &[Cell::T("2 coalesced"), Cell::T("`sgemm_coalesced`"), ladder(&["sgemm_coalesced"], C4096, &[SHAPES])],
            &[Cell::T("3 shared"), Cell::T("`sgemm_shared`"), ladder(&["sgemm_shared"], C4096, &[SHAPES])],
            &[Cell::T("4 1D tiles"), Cell::T("`sgemm_blocktile_1d`"), ladder(&["sgemm_blocktile_1d"], C4096, &[SHAPES])],
            &[Cell::T("5 2D tiles"), Cell::T("`sgemm_blocktile_2d`"), ladder(&["sgemm_blocktile_2d"], C4096, &[SHAPES])],
            &[Cell::T("6 float4"), Cell::T("`sgemm_vectorized`"), ladder(&["sgemm_vectorized"], C4096, &[SHAPES])],
            &[Cell::T("7a padded"), Cell::T("`sgemm_padded`"), ladder(&["sgemm_padded"], C4096, &[SHAPES])],
            &[Cell::T("7b swizzled"), Cell::T("`sgemm_swizzled`"), ladder(&["sgemm_swizzled"], C4096, &[SHAPES])],
            &[Cell::T("8 double buffered"), Cell::T("`sgemm_double_buffered`"), ladder(&["sgemm_double_buffered"], C4096, &[SHAPES])],
            &[Cell::T("9 warp tiles (all configurations)"), Cell::T("`sgemm_warptile_*`"), ladder(&["sgemm_warptile_*"], C4096, &[SHAPES])],
            &[
                Cell::T("9, the best: 32 × 128 warps, launch bounds"),
                Cell::T("`sgemm_warptile_128x128x8_w32x128_lb2`"),
                ladder(&["sgemm_warptile_128x128x8_w32x128_lb2"], C4096, &[SHAPES]),
            ],
            &[Cell::T("10 cp.async pipeline"), Cell::T("`sgemm_multistage_*`"), ladder(&["sgemm_multistage_2*", "sgemm_multistage_1*"], C4096, &[SHAPES])],
            &[
                Cell::T("9, the best, at 8192³ (2026-11-22)"),
                Cell::T("`sgemm_warptile_128x128x8_w32x128_lb2`"),
                ladder(&["sgemm_warptile_128x128x8_w32x128_lb2"], C8192, &[H100_22]),
            ],
        ],
        note: "f32 at 4096³ unless the row says otherwise.",
    },
    Table {
        name: "sgemm-classes",
        file: "BENCHMARKS.md",
        header: &["class", "shapes", "% of cuBLAS"],
        align: "llr",
        rows: &[
            &[Cell::T("aligned"), Cell::T("4096³"), sc27(&["4096×4096×4096 NN"])],
            &[
                Cell::T("odd"),
                Cell::T("1000³ / 1023×1025×1021"),
                Cell::Cat(&[sc27(&["1000×1000×1000 NN"]), Cell::T(" / "), sc27(&["1023×1025×1021 NN"])]),
            ],
            &[
                Cell::T("odd, a thin remainder (edges peeled)"),
                Cell::T("4097³ / 2049³ / 4100³ / 6145²×2048"),
                Cell::Cat(&[
                    sc27(&["4097×4097×4097 NN"]),
                    Cell::T(" / "),
                    sc27(&["2049×2049×2049 NN"]),
                    Cell::T(" / "),
                    sc27(&["4100×4100×4100 NN"]),
                    Cell::T(" / "),
                    sc27(&["6145×6145×2048 NN"]),
                ]),
            ],
            &[Cell::T("odd, a thin remainder in a wave of 17 (not peeled)"), Cell::T("8193²×1024"), sc27(&["8193×8193×1024 NN"])],
            &[
                Cell::T("transposed"),
                Cell::T("4096³ TN / NT / TT"),
                Cell::Cat(&[sc27(&["4096×4096×4096 TN"]), Cell::T(" / "), sc27(&["4096×4096×4096 NT"]), Cell::T(" / "), sc27(&["4096×4096×4096 TT"])]),
            ],
            &[
                Cell::T("transposed"),
                Cell::T("1000³ TN / NT / TT"),
                Cell::Cat(&[sc27(&["1000×1000×1000 TN"]), Cell::T(" / "), sc27(&["1000×1000×1000 NT"]), Cell::T(" / "), sc27(&["1000×1000×1000 TT"])]),
            ],
            &[
                Cell::T("skinny (split-k)"),
                Cell::T("64×4096×4096 / 4096×64×4096"),
                Cell::Cat(&[sc27(&["64×4096×4096 NN"]), Cell::T(" / "), sc27(&["4096×64×4096 NN"])]),
            ],
            &[Cell::T("deep (split-k)"), Cell::T("256×256×65536"), sc27(&["256×256×65536 NN"])],
            &[
                Cell::T("medium, one uneven or thin wave (split-k)"),
                Cell::T("1200×1100×1000 / 777×1031×2053 / 1000×1000×4000 / 1024×1024×16384 / 2000×600×3000 / 512³"),
                Cell::Cat(&[
                    sc(&["1200×1100×1000 NN"]),
                    Cell::T(" / "),
                    sc(&["777×1031×2053 NN"]),
                    Cell::T(" / "),
                    sc(&["1000×1000×4000 NN"]),
                    Cell::T(" / "),
                    sc(&["1024×1024×16384 NN"]),
                    Cell::T(" / "),
                    sc(&["2000×600×3000 NN"]),
                    Cell::T(" / "),
                    sc(&["512×512×512 NN"]),
                ]),
            ],
            &[
                Cell::T("medium, unsplit"),
                Cell::T("1024³ / 1500³ / 1536³ / 2048³ / 3000×700×900"),
                Cell::Cat(&[
                    sc(&["1024×1024×1024 NN"]),
                    Cell::T(" / "),
                    sc(&["1500×1500×1500 NN"]),
                    Cell::T(" / "),
                    sc(&["1536×1536×1536 NN"]),
                    Cell::T(" / "),
                    sc(&["2048×2048×2048 NN"]),
                    Cell::T(" / "),
                    sc(&["3000×700×900 NN"]),
                ]),
            ],
        ],
        note: "Auto (what `Gemm::new` picks) against cuBLAS SGEMM with the same transposes.",
    },
    Table {
        name: "streams",
        file: "BENCHMARKS.md",
        header: &["pipeline", "batches", "copied GB/s", "% of ideal"],
        align: "llrr",
        rows: &[
            &[Cell::T("serial (1 stream)"), Cell::T("16 × (64 MiB up, 4096³ SGEMM, 64 MiB down)"), so!("serial (1 stream)", bw), so!("serial (1 stream)")],
            &[Cell::T("overlapped (2 streams)"), Cell::T("same"), so!("overlapped (2 streams)", bw), so!("overlapped (2 streams)")],
            &[Cell::T("overlapped (3 streams)"), Cell::T("same"), so!("overlapped (3 streams)", bw), so!("overlapped (3 streams)")],
        ],
        note: "H100, `bench-stream_overlap`: uploads from pinned memory, SGEMM, downloads; ideal is the longest of the three \
               measured alone (the copy engines and the SMs fully overlapped); every batch checked.",
    },
    Table {
        name: "transpose",
        file: "BENCHMARKS.md",
        header: &["shape", "kernel", "% of copy"],
        align: "llr",
        rows: &[
            &[
                Cell::T("4096² / 8192²"),
                Cell::T("`transpose_vec4_t64_b256`"),
                Cell::Cat(&[
                    tr(&["transpose_vec4_t64_b256"], &["4096x4096"], &[SHAPES]),
                    Cell::T(" / "),
                    tr(&["transpose_vec4_t64_b256"], &["8192x8192"], &[SHAPES]),
                ]),
            ],
            &[
                Cell::T("64×2²⁰ / 2²⁰×64"),
                Cell::T("`transpose_vec4_t64_b256`"),
                Cell::Cat(&[
                    tr(&["transpose_vec4_t64_b256"], &["64x1048576"], &[SHAPES]),
                    Cell::T(" / "),
                    tr(&["transpose_vec4_t64_b256"], &["1048576x64"], &[SHAPES]),
                ]),
            ],
            &[
                Cell::T("8191×8193 / 4093×4099 / 8190×8194 (2026-11-26)"),
                Cell::T("`transpose_lines_w128_g256`"),
                Cell::Cat(&[
                    tr(&["transpose_lines_w128_g256"], &["8191x8193"], &[TF26]),
                    Cell::T(" / "),
                    tr(&["transpose_lines_w128_g256"], &["4093x4099"], &[TF26]),
                    Cell::T(" / "),
                    tr(&["transpose_lines_w128_g256"], &["8190x8194"], &[TF26]),
                ]),
            ],
            &[
                Cell::T("the same, rung 7 (the default before 2026-11-26, same run)"),
                Cell::T("`transpose_vec4r_t64_b256`"),
                Cell::Cat(&[
                    tr(&["transpose_vec4r_t64_b256"], &["8191x8193"], &[TF26]),
                    Cell::T(" / "),
                    tr(&["transpose_vec4r_t64_b256"], &["4093x4099"], &[TF26]),
                    Cell::T(" / "),
                    tr(&["transpose_vec4r_t64_b256"], &["8190x8194"], &[TF26]),
                ]),
            ],
            &[
                Cell::T("odd, a few short columns: 67×(2²⁰−3) / 131×524287 / 257×262147 (2026-11-26)"),
                Cell::T("`transpose_lines_w128_g256`"),
                Cell::Cat(&[
                    tr(&["transpose_lines_w128_g256"], &["67x1048573"], &[TF26]),
                    Cell::T(" / "),
                    tr(&["transpose_lines_w128_g256"], &["131x524287"], &[TF26]),
                    Cell::T(" / "),
                    tr(&["transpose_lines_w128_g256"], &["257x262147"], &[TF26]),
                ]),
            ],
            &[
                Cell::T("the same, block rows one after the other (same run)"),
                Cell::T("`transpose_lines_w128`"),
                Cell::Cat(&[
                    tr(&["transpose_lines_w128"], &["67x1048573"], &[TF26]),
                    Cell::T(" / "),
                    tr(&["transpose_lines_w128"], &["131x524287"], &[TF26]),
                    Cell::T(" / "),
                    tr(&["transpose_lines_w128"], &["257x262147"], &[TF26]),
                ]),
            ],
            &[
                Cell::T("odd, short output rows (rung 11): (2²⁰−3)×67 / (2²⁰−3)×68 / 524287×131 / 699051×150 (2026-11-26)"),
                Cell::T("`transpose_flat_e6144` (`ny` ≤ 128), `transpose_flat_e8192`"),
                Cell::Cat(&[
                    tr(&["transpose_flat_e6144"], &["1048573x67"], &[TF26]),
                    Cell::T(" / "),
                    tr(&["transpose_flat_e6144"], &["1048573x68"], &[TF26]),
                    Cell::T(" / "),
                    tr(&["transpose_flat_e8192"], &["524287x131"], &[TF26]),
                    Cell::T(" / "),
                    tr(&["transpose_flat_e8192"], &["699051x150"], &[TF26]),
                ]),
            ],
            &[
                Cell::T("the same, rung 10 (the default before, same run)"),
                Cell::T("`transpose_lines_w128`"),
                Cell::Cat(&[
                    tr(&["transpose_lines_w128"], &["1048573x67"], &[TF26]),
                    Cell::T(" / "),
                    tr(&["transpose_lines_w128"], &["1048573x68"], &[TF26]),
                    Cell::T(" / "),
                    tr(&["transpose_lines_w128"], &["524287x131"], &[TF26]),
                    Cell::T(" / "),
                    tr(&["transpose_lines_w128"], &["699051x150"], &[TF26]),
                ]),
            ],
            &[
                Cell::T("odd, output rows of 257 / 509 (rung 10, 2026-11-26)"),
                Cell::T("`transpose_lines_w128`"),
                Cell::Cat(&[
                    tr(&["transpose_lines_w128"], &["262147x257"], &[TF26]),
                    Cell::T(" / "),
                    tr(&["transpose_lines_w128"], &["131071x509"], &[TF26]),
                ]),
            ],
            &[
                Cell::T("8191×8193 / 4093×4099 / 8190×8194, scalar accesses (rung 7 before 2026-11-25)"),
                Cell::T("`transpose_vec4u_t64_b256`"),
                Cell::Cat(&[
                    tr(&["transpose_vec4u_t64_b256"], &["8191x8193"], &[T25]),
                    Cell::T(" / "),
                    tr(&["transpose_vec4u_t64_b256"], &["4093x4099"], &[T25]),
                    Cell::T(" / "),
                    tr(&["transpose_vec4u_t64_b256"], &["8190x8194"], &[T25]),
                ]),
            ],
            &[
                Cell::T("a few columns: 7×2²² (2026-11-26)"),
                Cell::T("`transpose_thin`"),
                tr(&["transpose_thin"], &["7x4194304"], &[TF26]),
            ],
            &[
                Cell::T("a few rows: 2²²×7 / (2²¹−9)×33 (rung 11, 2026-11-26)"),
                Cell::T("`transpose_flat_e6144`"),
                Cell::Cat(&[
                    tr(&["transpose_flat_e6144"], &["4194304x7"], &[TF26]),
                    Cell::T(" / "),
                    tr(&["transpose_flat_e6144"], &["2097143x33"], &[TF26]),
                ]),
            ],
            &[
                Cell::T("2²²×7, the thin kernel (the default before, same run)"),
                Cell::T("`transpose_thin`"),
                tr(&["transpose_thin"], &["4194304x7"], &[TF26]),
            ],
            &[
                Cell::T("8192², PyTorch `x.t().contiguous()`, % of its copy (2026-11-22)"),
                Cell::T(""),
                tr(&["PyTorch x.t().contiguous()"], &["8192x8192"], &[H100_22]),
            ],
        ],
        note: "The default kernel (`Transpose::new`) per shape.",
    },
    Table {
        name: "image",
        file: "BENCHMARKS.md",
        header: &["kernel", "shapes", "% of copy"],
        align: "llr",
        rows: &[
            &[
                Cell::T("blur, sliding sums (`blur_hslide_*`), gray r1 / r3"),
                Cell::T("8192²"),
                Cell::Cat(&[
                    img(&["auto → blur_hslide_c1_r1"], &["8192x8192"], &[SHAPES2]),
                    Cell::T(" / "),
                    img(&["auto → blur_hslide_c1_r3"], &["8192x8192"], &[SHAPES2]),
                ]),
            ],
            &[
                Cell::T("blur, sliding sums, RGB r1 / r3"),
                Cell::T("8192²"),
                Cell::Cat(&[
                    img(&["auto → blur_hslide_c3_r1"], &["8192x8192"], &[SHAPES2]),
                    Cell::T(" / "),
                    img(&["auto → blur_hslide_c3_r3"], &["8192x8192"], &[SHAPES2]),
                ]),
            ],
            &[
                Cell::T("blur, window rung (any radius 1–64, width, 1–4 channels), r1–32, c1/3/4 (2026-11-26)"),
                Cell::T("8192² / 4093×4099"),
                Cell::Cat(&[
                    img(&["auto → blur_window_*"], &["8192x8192"], &[BLUR26]),
                    Cell::T(" / "),
                    img(&["auto → blur_window_*"], &["4093x4099"], &[BLUR26]),
                ]),
            ],
            &[
                Cell::T("blur, tiled/fast rungs (Auto's pick before the window rung), r1–32, c1/3/4"),
                Cell::T("8192², 4093×4099"),
                img(&["auto → blur_tiled_*", "auto → blur_fast_*"], &["8192x8192", "4093x4099"], &[SHAPES2]),
            ],
            &[
                Cell::T("grayscale `rgb_to_gray_vec16`"),
                Cell::T("4093×4099"),
                img(&["auto → rgb_to_gray_vec16"], &["4093x4099"], &[SHAPES, SHAPES2]),
            ],
            &[Cell::T("vector add `vec_add_vec4`"), Cell::T("2²⁴+3"), img(&["vec_add_vec4"], &["n=16777219"], &[SHAPES])],
            &[
                Cell::T("PyTorch `avg_pool2d` f32 / u8 → u8, r1–32, c1/3/4, % of its copy (2026-11-25)"),
                Cell::T("8192², 4093×4099"),
                Cell::Cat(&[base(&["avg_pool2d f32 r*"]), Cell::T(" / "), base(&["avg_pool2d u8→u8 r*"])]),
            ],
            &[
                Cell::T("CuPy `uniform_filter` u8, r1–32, c1/3/4, % of its copy (2026-11-25)"),
                Cell::T("8192², 4093×4099"),
                base(&["uniform_filter u8 r*"]),
            ],
        ],
        note: "What Auto runs per shape, radius (r) and channels (c); PyTorch and CuPy against a copy of the same bytes \
               in their own library (benches/gpu/torch_image.py).",
    },
    Table {
        name: "shape-classes-h200",
        file: "BENCHMARKS.md",
        header: &["class", "shapes", "% of the ceiling"],
        align: "llr",
        rows: &[
            &[
                Cell::T("f32 GEMM aligned / odd (% of cuBLAS SGEMM)"),
                Cell::T("4096³ / 1000³ / 1023×1025×1021"),
                Cell::Cat(&[
                    sc_in(&[H200CL28], &["4096×4096×4096 NN"]),
                    Cell::T(" / "),
                    sc_in(&[H200CL28], &["1000×1000×1000 NN"]),
                    Cell::T(" / "),
                    sc_in(&[H200CL28], &["1023×1025×1021 NN"]),
                ]),
            ],
            &[
                Cell::T("f32 GEMM, a thin remainder"),
                Cell::T("4097³ / 2049³ / 4100³ / 6145²×2048 / 8193²×1024"),
                sc_in(&[H200CL28], &["4097×4097×4097 NN", "2049×2049×2049 NN", "4100×4100×4100 NN", "6145×6145×2048 NN", "8193×8193×1024 NN"]),
            ],
            &[
                Cell::T("f32 GEMM transposed (new: a transposed `A` read as stored, 2026-11-30)"),
                Cell::T("4096³ TN / NT / TT; 1000³ TN / NT / TT"),
                Cell::Cat(&[
                    sc_in(&[H200TW30], &["4096×4096×4096 TN", "4096×4096×4096 NT", "4096×4096×4096 TT"]),
                    Cell::T("; "),
                    sc_in(&[H200TW30], &["1000×1000×1000 TN", "1000×1000×1000 NT", "1000×1000×1000 TT"]),
                ]),
            ],
            &[
                Cell::T("f32 GEMM skinny / deep (split-k)"),
                Cell::T("64×4096×4096, 4096×64×4096 / 256×256×65536"),
                Cell::Cat(&[
                    sc_in(&[H200CL28], &["64×4096×4096 NN", "4096×64×4096 NN"]),
                    Cell::T(" / "),
                    sc_in(&[H200CL28], &["256×256×65536 NN"]),
                ]),
            ],
            &[
                Cell::T("f32 GEMM medium"),
                Cell::T("512³–2048³, 777×1031×2053, 1000×1000×4000, 1024×1024×16384, 2000×600×3000, 3000×700×900"),
                sc_in(
                    &[H200CL28],
                    &[
                        "1200×1100×1000 NN",
                        "777×1031×2053 NN",
                        "1000×1000×4000 NN",
                        "1500×1500×1500 NN",
                        "1024×1024×16384 NN",
                        "2000×600×3000 NN",
                        "1024×1024×1024 NN",
                        "1536×1536×1536 NN",
                        "3000×700×900 NN",
                        "512×512×512 NN",
                        "2048×2048×2048 NN",
                    ],
                ),
            ],
            &[
                Cell::T("blur, sliding sums, gray r1 / r3; RGB r1 / r3 (% of a copy)"),
                Cell::T("8192²"),
                Cell::Cat(&[
                    img(&["auto → blur_hslide_c1_r1"], &["8192x8192"], &[H200RGBA28]),
                    Cell::T(" / "),
                    img(&["auto → blur_hslide_c1_r3"], &["8192x8192"], &[H200RGBA28]),
                    Cell::T("; "),
                    img(&["auto → blur_hslide_c3_r1"], &["8192x8192"], &[H200RGBA28]),
                    Cell::T(" / "),
                    img(&["auto → blur_hslide_c3_r3"], &["8192x8192"], &[H200RGBA28]),
                ]),
            ],
            &[
                Cell::T("blur, sliding sums, RGBA r1 / r3 (new: the window rung before)"),
                Cell::T("8192²"),
                Cell::Cat(&[
                    img(&["auto → blur_hslide_c4_r1"], &["8192x8192"], &[H200RGBA28]),
                    Cell::T(" / "),
                    img(&["auto → blur_hslide_c4_r3"], &["8192x8192"], &[H200RGBA28]),
                ]),
            ],
            &[
                Cell::T("blur, window rung, r1–32, c1/3/4 (2026-11-29)"),
                Cell::T("8192² / 4093×4099"),
                Cell::Cat(&[
                    img(&["auto → blur_window_*"], &["8192x8192"], &[H200BLURV29]),
                    Cell::T(" / "),
                    img(&["auto → blur_window_*"], &["4093x4099"], &[H200BLURV29]),
                ]),
            ],
            &[
                Cell::T("grayscale `rgb_to_gray_vec16` / vector add `vec_add_vec4`"),
                Cell::T("4093×4099 / 2²⁴+3"),
                Cell::Cat(&[
                    img(&["auto → rgb_to_gray_vec16"], &["4093x4099"], &[H200RGBA28]),
                    Cell::T(" / "),
                    img(&["vec_add_vec4"], &["n=16777219"], &[H200RGBA28]),
                ]),
            ],
        ],
        note: "H200, 2026-11-28: Auto against cuBLAS SGEMM with the same transposes (f32 GEMM rows, one call; the \
               transposed row from the build whose rung 9 tilings read a transposed `A` as stored, 2026-11-30, one \
               call) or a device copy of the same bytes (image rows: the build with RGBA on the sliding-sums rung, \
               another call), each in the same run.",
    },
    Table {
        name: "memory-bound",
        file: "README.md",
        header: &["kernel", "size", "H100", "H200"],
        align: "llll",
        rows: &[
            &[
                Cell::T("transpose (default `transpose_vec4_t64_b256`)"),
                Cell::T("8192² f32"),
                Cell::Cat(&[
                    tr(&["transpose_vec4_t64_b256"], &["8192x8192"], &[H100_22]),
                    Cell::T(" % ("),
                    tr(&["transpose_vec4_t64_b256"], &["8192x8192"], &[FINAL]),
                    Cell::T(" % on 2026-11-23)"),
                ]),
                Cell::Cat(&[tr(&["transpose_vec4_t64_b256"], &["8192x8192"], &[H200_22]), Cell::T(" %")]),
            ],
            &[
                Cell::T("PyTorch `x.t().contiguous()`, % of its copy"),
                Cell::T("8192² f32"),
                Cell::Cat(&[tr(&["PyTorch x.t().contiguous()"], &["8192x8192"], &[H100_22]), Cell::T(" %")]),
                Cell::Cat(&[tr(&["PyTorch x.t().contiguous()"], &["8192x8192"], &[H200_22]), Cell::T(" %")]),
            ],
            &[
                Cell::T("grayscale (`rgb_to_gray_vec16`)"),
                Cell::T("8192²"),
                Cell::Cat(&[img(&["rgb_to_gray_vec16"], &["8192x8192"], &[H100_22]), Cell::T(" %")]),
                Cell::Cat(&[img(&["rgb_to_gray_vec16"], &["8192x8192"], &[H200_22]), Cell::T(" %")]),
            ],
            &[
                Cell::T("blur, gray, radius 1 / 2 / 3 (`blur_hslide_*`)"),
                Cell::T("8192²"),
                Cell::Cat(&[
                    img(&["blur_hslide_gray_r1"], &["8192x8192"], &[H100_22]),
                    Cell::T(" / "),
                    img(&["blur_hslide_gray_r2"], &["8192x8192"], &[H100_22]),
                    Cell::T(" / "),
                    img(&["blur_hslide_gray_r3"], &["8192x8192"], &[H100_22]),
                    Cell::T(" %"),
                ]),
                Cell::Cat(&[
                    img(&["blur_hslide_gray_r1"], &["8192x8192"], &[H200_22]),
                    Cell::T(" / "),
                    img(&["blur_hslide_gray_r2"], &["8192x8192"], &[H200_22]),
                    Cell::T(" / "),
                    img(&["blur_hslide_gray_r3"], &["8192x8192"], &[H200_22]),
                    Cell::T(" %"),
                ]),
            ],
            &[
                Cell::T("vector add (`vec_add_vec4`)"),
                Cell::T("2^26 f32"),
                Cell::Cat(&[img(&["vec_add_vec4"], &["n=67108864"], &[H100_22]), Cell::T(" %")]),
                Cell::Cat(&[img(&["vec_add_vec4"], &["n=67108864"], &[H200_22]), Cell::T(" %")]),
            ],
        ],
        note: "% of a device-to-device copy of the same bytes; the 2026-11-22 final runs of each GPU.",
    },
    Table {
        name: "every-shape",
        file: "README.md",
        header: &["class", "shapes", "result"],
        align: "lll",
        rows: &[
            &[
                Cell::T("transpose, tall/wide"),
                Cell::T("64×2²⁰, 2²⁰×64"),
                Cell::Cat(&[
                    tr(&["transpose_vec4_t64_b256"], &["64x1048576"], &[SHAPES]),
                    Cell::T(", "),
                    tr(&["transpose_vec4_t64_b256"], &["1048576x64"], &[SHAPES]),
                    Cell::T(" % of copy"),
                ]),
            ],
            &[
                Cell::T("transpose, a few columns / rows"),
                Cell::T("7×2²², 2²²×7"),
                Cell::Cat(&[
                    tr(&["transpose_thin"], &["7x4194304"], &[TF26]),
                    Cell::T(", "),
                    tr(&["transpose_flat_e6144"], &["4194304x7"], &[TF26]),
                    Cell::T(" % of copy"),
                ]),
            ],
            &[
                Cell::T("transpose, sides not multiples of 4"),
                Cell::T("8191×8193, 4093×4099, 8190×8194"),
                Cell::Cat(&[tr(&["transpose_lines_w128_g256"], &["8191x8193", "4093x4099", "8190x8194"], &[TF26]), Cell::T(" % of copy")]),
            ],
            &[
                Cell::T("transpose, odd sides, 67–257 columns"),
                Cell::T("67×(2²⁰−3), 131×524287, 257×262147"),
                Cell::Cat(&[
                    tr(&["transpose_lines_w128_g256"], &["67x1048573", "131x524287", "257x262147"], &[TF26]),
                    Cell::T(" % of copy"),
                ]),
            ],
            &[
                Cell::T("transpose, odd sides, 67–509 rows"),
                Cell::T("(2²⁰−3)×67, 524287×131, 699051×150, 262147×257, 131071×509"),
                Cell::Cat(&[
                    tr(&["transpose_flat_e6144"], &["1048573x67"], &[TF26]),
                    Cell::T(", "),
                    tr(&["transpose_flat_e8192"], &["524287x131", "699051x150"], &[TF26]),
                    Cell::T(", "),
                    tr(&["transpose_lines_w128"], &["262147x257", "131071x509"], &[TF26]),
                    Cell::T(" % of copy"),
                ]),
            ],
            &[
                Cell::T("SGEMM aligned / odd"),
                Cell::T("4096³ / 1000³, 4097³ (edges peeled), 1023×1025×1021"),
                Cell::Cat(&[
                    sc27(&["4096×4096×4096 NN"]),
                    Cell::T(" / "),
                    sc27(&["1000×1000×1000 NN"]),
                    Cell::T(", "),
                    sc27(&["4097×4097×4097 NN"]),
                    Cell::T(", "),
                    sc27(&["1023×1025×1021 NN"]),
                    Cell::T(" % of cuBLAS"),
                ]),
            ],
            &[
                Cell::T("SGEMM transposed A/B"),
                Cell::T("4096³ TN, NT, TT / 1000³"),
                Cell::Cat(&[
                    sc27(&["4096×4096×4096 TN"]),
                    Cell::T(", "),
                    sc27(&["4096×4096×4096 NT"]),
                    Cell::T(", "),
                    sc27(&["4096×4096×4096 TT"]),
                    Cell::T(" / "),
                    sc27(&["1000×1000×1000 TN", "1000×1000×1000 NT", "1000×1000×1000 TT"]),
                    Cell::T(" %"),
                ]),
            ],
            &[
                Cell::T("SGEMM skinny / deep (split-k)"),
                Cell::T("64×4096×4096, 4096×64×4096 / 256×256×65536"),
                Cell::Cat(&[
                    sc27(&["64×4096×4096 NN"]),
                    Cell::T(", "),
                    sc27(&["4096×64×4096 NN"]),
                    Cell::T(" / "),
                    sc27(&["256×256×65536 NN"]),
                    Cell::T(" %"),
                ]),
            ],
            &[
                Cell::T("blur, radius 1–3, gray, aligned width"),
                Cell::T("8192²"),
                Cell::Cat(&[img(&["auto → blur_hslide_c1_*"], &["8192x8192"], &[SHAPES2]), Cell::T(" % of copy (`blur_hslide`)")]),
            ],
            &[
                Cell::T("blur, any radius 1–64, width, 1–4 channels"),
                Cell::T("8192², 4093×4099"),
                Cell::Cat(&[img(&["auto → blur_window_*"], &["8192x8192", "4093x4099"], &[BLUR26]), Cell::T(" % of copy (`blur_window`)")]),
            ],
            &[
                Cell::T("same blurs, PyTorch `avg_pool2d` (f32) / CuPy `uniform_filter` (u8)"),
                Cell::T("8192², 4093×4099"),
                Cell::Cat(&[base(&["avg_pool2d f32 r*"]), Cell::T(" / "), base(&["uniform_filter u8 r*"]), Cell::T(" % of their copy")]),
            ],
            &[
                Cell::T("grayscale / vector add, odd sizes"),
                Cell::T("4093×4099 / 2²⁴+3"),
                Cell::Cat(&[
                    img(&["auto → rgb_to_gray_vec16"], &["4093x4099"], &[SHAPES, SHAPES2]),
                    Cell::T(" / "),
                    img(&["vec_add_vec4"], &["n=16777219"], &[SHAPES]),
                    Cell::T(" % of copy"),
                ]),
            ],
        ],
        note: "H100, 2026-11-23 (PyTorch/CuPy: 2026-11-25; window blur, thin and odd-sided transposes: 2026-11-26; SGEMM classes: 2026-11-27), Auto or the default kernel per shape.",
    },
    Table {
        name: "sgemm-best",
        file: "README.md",
        header: &["shape", "H100, 2026-11-23", "H100, 2026-11-22", "H200, 2026-11-22"],
        align: "lrrr",
        rows: &[
            &[
                Cell::T("4096³"),
                Cell::Cat(&[
                    ladder(&["sgemm_warptile_128x128x8_w32x128_lb2"], C4096, &[SHAPES]),
                    Cell::T(" / "),
                    ladder(&["sgemm_warptile_128x128x8_w32x128_lb2"], C4096, &[FINAL]),
                ]),
                ladder(&["sgemm_warptile_128x128x8_w32x128_lb2"], C4096, &[H100_22]),
                ladder(&["sgemm_warptile_128x128x8_w32x128_lb2"], C4096, &[H200_22]),
            ],
            &[
                Cell::T("8192³"),
                Cell::T(""),
                ladder(&["sgemm_warptile_128x128x8_w32x128_lb2"], C8192, &[H100_22]),
                ladder(&["sgemm_warptile_128x128x8_w32x128_lb2"], C8192, &[H200_22]),
            ],
        ],
        note: "The best rung `sgemm_warptile_128x128x8_w32x128_lb2`, % of cuBLAS SGEMM; two H100 runs of 2026-11-23 \
               (the shapes call / the final call).",
    },
    Table {
        name: "tensor-cores",
        file: "README.md",
        header: &["types", "shape", "wgmma 128x256 (Hopper)", "mma.sync 128x128"],
        align: "llrr",
        rows: &[
            tc_readme_row!("bf16 → bf16", "8192³", "bf16→bf16", C8192, &[TMA26]),
            tc_readme_row!("bf16 → bf16", "4096³", "bf16→bf16", C4096, &[TMA26]),
            tc_readme_row!("bf16 → bf16", "4096 × 14336 × 4096", "bf16→bf16", MLP, &[TMA26]),
            tc_readme_row!("bf16 → bf16", "8192 × 8192 × 1024", "bf16→bf16", SHALLOW, &[TMA26]),
            tc_readme_row!("bf16 → bf16, batch of 64", "1024 × 1024 × 64", "bf16→bf16", BATCH_K64, &[TMA26]),
            tc_readme_row!("bf16 → f32", "8192³", "bf16→f32", C8192, &[TMA26]),
            tc_readme_row!("f16 → f16", "8192³", "f16→f16", C8192, &[TMA26]),
            tc_readme_row!("tf32 → f32", "8192³", "tf32", C8192, &[TMA26]),
            tc_readme_row!("tf32 → f32", "4096³", "tf32", C4096, &[TMA26]),
        ],
        note: "H100, % of cuBLAS `GemmEx` with the same types in the same run; two calls of one build of 2026-11-26 \
               (tf32: its operands staged rounded and k-major inside the time).",
    },
    Table {
        name: "multi-gpu",
        file: "BENCHMARKS.md",
        header: &["row", "shape", "2 GPUs against one", "target"],
        align: "llrr",
        rows: &[
            &[Cell::T("sharded SGEMM, C left sharded"), Cell::T("16384³ f32"), mg!("sharded sgemm (C sharded)", "16384×16384×16384 grid 2×1 q 2", M5), Cell::T("1.85×")],
            &[Cell::T("sharded SGEMM + gather of C to rank 0"), Cell::T("16384³ f32"), mg!("sharded sgemm + gather to rank 0", "16384×16384×16384 grid 2×1 q 2", M5), Cell::T("—")],
            &[Cell::T("sharded SGEMM, transfers overlapped"), Cell::T("16384³ f32"), mg!("sharded sgemm, overlapped (C sharded)", "16384×16384×16384 grid 2×1 q 2", M5), Cell::T("—")],
            &[Cell::T("local products alone (no communication)"), Cell::T("16384³ f32"), mg!("local products only (no communication)", "16384×16384×16384, rows split", M5), Cell::T("ceiling")],
            &[Cell::T("sharded bf16 GEMM, B broadcast once"), Cell::T("32768×32768×8192"), mg!("sharded bf16 gemm, B broadcast once (C sharded)", "32768×32768×8192 grid 2×1 q 1", M5), Cell::T("1.8×")],
            &[Cell::T("sharded bf16 GEMM, k panels"), Cell::T("32768×32768×8192"), mg!("sharded bf16 gemm, k panels (C sharded)", "32768×32768×8192 grid 2×1 q 2", M5), Cell::T("—")],
            &[Cell::T("local bf16 products alone"), Cell::T("32768×32768×8192"), mg!("local bf16 products only (no communication)", "32768×32768×8192, rows split", M5), Cell::T("ceiling")],
            &[
                Cell::T("image batch of pinned images, blur r3, host to host (host-link bound)"),
                Cell::T("64 × 3840×2160×3 / 256 × 1920×1080×3"),
                Cell::Cat(&[
                    mg!("image batch of pinned images, blur r3 (host to host)", "64 × 3840×2160×3", M7),
                    Cell::T(" / "),
                    mg!("image batch of pinned images, blur r3 (host to host)", "256 × 1920×1080×3", M7),
                ]),
                Cell::T("1.9×"),
            ],
            &[
                Cell::T("image batch of host images (pinned staging copies), blur r3"),
                Cell::T("64 × 3840×2160×3 / 256 × 1920×1080×3"),
                Cell::Cat(&[mg!("image batch, blur r3 (host to host)", "64 × 3840×2160×3", M7), Cell::T(" / "), mg!("image batch, blur r3 (host to host)", "256 × 1920×1080×3", M7)]),
                Cell::T("—"),
            ],
            &[
                Cell::T("pinned host ⇄ device both ways at once (what a host-to-host batch moves), both GPUs against one"),
                Cell::T("1 GiB each way"),
                mg!("pinned host ⇄ device, both ways at once, all at once", "2048 MiB each", M7),
                Cell::T("ceiling"),
            ],
            &[
                Cell::T("pinned host → device / device → host, both GPUs at once"),
                Cell::T("1 GiB each"),
                Cell::Cat(&[mg!("pinned host → device, all at once", "1024 MiB each", M7), Cell::T(" / "), mg!("device → pinned host, all at once", "1024 MiB each", M7)]),
                Cell::T("—"),
            ],
            &[
                Cell::T("NCCL broadcast / all-gather bus bandwidth, cuMemcpyPeer (GB/s)"),
                Cell::T("1 GiB"),
                Cell::Cat(&[
                    mg_bw!("NCCL broadcast", "1024 MiB", M5),
                    Cell::T(" / "),
                    mg_bw!("NCCL all-gather", "1024 MiB", M5),
                    Cell::T(" / "),
                    mg_bw!("cuMemcpyPeer 0 → 1", "1024 MiB", M5),
                ]),
                Cell::T("—"),
            ],
        ],
        note: "Two H200s (NVLink NV18), NCCL 2.28.9: the group's time against one GPU's on the same work in the same run, \
               operands starting in the group's layout, every result checked against the one-GPU result (`bench-multi_gpu`). \
               Speed-ups are the record's ratio, two decimals.",
    },
];

const M5: &str = "2026-11-24-h200x2-multi-run5";
const M7: &str = "2026-11-26-h200x2-multi";



/// `cargo xtask report`'s sections: rewrite them (`check`: only compare,
/// and fail naming the stale ones).
pub fn update(files: &[PathBuf], check: bool) -> Result<()> {
    let records = load(files)?;
    let root = crate::util::workspace_root();
    let mut stale = Vec::new();
    for (path, old, new) in regenerate(&root, TABLES, &records)? {
        if old == new {
            continue;
        }
        if check {
            stale.push(path.display().to_string());
        } else {
            crate::util::write(&path, new.as_bytes())?;
            eprintln!("wrote {}", path.display());
        }
    }
    if !stale.is_empty() {
        bail!("generated sections out of date in {} (run `cargo xtask report`)", stale.join(", "));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(kernel: &str, shape: &str, ratio: Option<f64>, source: &str) -> Loaded {
        Loaded {
            rec: Record {
                family: "gemm_tc".into(),
                kernel: kernel.into(),
                rung: None,
                shape: shape.into(),
                dtype: "bf16→bf16".into(),
                time_ms: 1.0,
                throughput: 100.0 * ratio.unwrap_or(1.0),
                unit: "TFLOP/s".into(),
                ceiling: ratio.map(|_| "cuBLAS".into()),
                ceiling_throughput: ratio.map(|_| 100.0),
                ratio,
                check: if ratio.is_some() { "ok" } else { "ceiling" }.into(),
                gpu: "G".into(),
                driver: "1.0".into(),
                date: "2026-01-02".into(),
                source: Some(format!("docs/benchmarks/{source}/gemm_tc.log")),
            },
            file: "docs/results/x.jsonl".into(),
        }
    }

    const S: &[&str] = &["8×8×8"];
    const T: Table = Table {
        name: "t",
        file: "X.md",
        header: &["shape", "ours", "cuBLAS"],
        align: "lrr",
        rows: &[&[
            Cell::T("8³"),
            Cell::Cat(&[
                Cell::Pct(Sel { family: "gemm_tc", kernels: &["auto (*"], shapes: S, dtype: "", runs: &["run-a", "run-b"] }),
                Cell::T(" %"),
            ]),
            Cell::Num(Sel { family: "gemm_tc", kernels: &["cuBLAS"], shapes: S, dtype: "bf16→bf16", runs: &["run-a"] }, 1),
        ]],
        note: "A note.",
    };

    #[test]
    fn a_table_shows_the_records_with_its_rules_and_runs() {
        let records = [
            rec("cuBLAS", "8×8×8", None, "run-a"),
            rec("auto (mma)", "8×8×8", Some(0.5), "run-a"),
            rec("auto (mma)", "8×8×8", Some(1.0065), "run-b"),
            rec("auto (mma)", "8×8×8", Some(0.9), "run-c"),
            rec("auto (mma)", "9×9×9", Some(0.1), "run-a"),
        ];
        let md = render(&T, &records).unwrap();
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines[0], "| shape | ours | cuBLAS |");
        assert_eq!(lines[1], "| --- | ---: | ---: |");
        // run-c is not named; 100.65 rounds half up.
        assert_eq!(lines[2], "| 8³ | 50.0–100.7 % | 100.0 |");
        assert!(md.contains("A note.") && md.contains("docs/benchmarks/run-a/") && md.contains("docs/benchmarks/run-b/"));
        assert!(!md.contains("run-c"));
    }

    #[test]
    fn an_unnamed_run_must_be_the_only_one_of_the_latest_date() {
        let sel = Sel { family: "gemm_tc", kernels: &["auto (*"], shapes: S, dtype: "", runs: &[] };
        let mut records = vec![rec("auto (mma)", "8×8×8", Some(0.5), "run-a"), rec("auto (mma)", "8×8×8", Some(0.6), "run-b")];
        let e = select(&sel, &records).unwrap_err().to_string();
        assert!(e.contains("2 runs") && e.contains("name the run"), "{e}");
        records[0].rec.date = "2026-01-01".into();
        assert_eq!(select(&sel, &records).unwrap()[0].rec.ratio, Some(0.6));
        // Failed rows and missing records are never shown.
        records[1].rec.check = "FAIL 1e-1".into();
        assert_eq!(select(&sel, &records).unwrap()[0].rec.ratio, Some(0.5));
        let none = Sel { shapes: &["1×1×1"], ..sel };
        assert!(select(&none, &records).unwrap_err().to_string().contains("no record"));
    }

    #[test]
    fn sections_are_replaced_between_their_markers_and_nothing_else() {
        let text = "# Title\n\nProse before.\n\n<!-- report:t begin -->\nold table\n<!-- report:t end -->\n\nProse after.\n";
        let once = replace_section(text, "X.md", "t", "| new |\n").unwrap();
        assert_eq!(once, "# Title\n\nProse before.\n\n<!-- report:t begin -->\n| new |\n<!-- report:t end -->\n\nProse after.\n");
        assert_eq!(replace_section(&once, "X.md", "t", "| new |\n").unwrap(), once, "idempotent");
        let e = replace_section("no markers", "X.md", "t", "").unwrap_err().to_string();
        assert!(e.contains("X.md") && e.contains("<!-- report:t begin -->"), "{e}");
        let e = replace_section("<!-- report:t begin -->\n", "X.md", "t", "").unwrap_err().to_string();
        assert!(e.contains("X.md") && e.contains("<!-- report:t end -->"), "{e}");
        let e = replace_section("<!-- report:t end -->\n<!-- report:t begin -->", "X.md", "t", "").unwrap_err().to_string();
        assert!(e.contains("<!-- report:t end -->"), "{e}");
    }

    #[test]
    fn half_up_on_the_decimal_value() {
        assert_eq!(fmt(100.0 * 1.0065, 1), "100.7");
        assert_eq!(fmt(100.0 * 0.8835, 1), "88.4");
        assert_eq!(fmt(46.84, 1), "46.8");
        assert_eq!(fmt(687.62, 1), "687.6");
        assert_eq!(fmt(691.5, 0), "692");
    }

    #[test]
    fn every_table_renders_from_the_committed_records() {
        let root = crate::util::workspace_root();
        let files = std::fs::read_dir(root.join("docs/results"))
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect::<Vec<_>>();
        let records = load(&files).unwrap();
        for t in TABLES {
            render(t, &records).unwrap();
        }
    }
}
