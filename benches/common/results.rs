//! Machine-readable benchmark results: one JSON object per measured row,
//! appended to the file named by `FERROTILE_RESULTS` (JSON lines), next to
//! the table the bench prints anyway.
//!
//! The plain bench programs include this file (`#[path]`), and so does
//! `cargo xtask report`, which reads the records back and renders the
//! tables and charts of docs/ (one definition of the record for both). It
//! depends on serde, serde_json and time only.

// Each includer uses a part (the benches write, xtask reads).
#![allow(dead_code)]

use std::io::Write;
use std::sync::OnceLock;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The environment variable naming the results file.
pub const RESULTS_ENV: &str = "FERROTILE_RESULTS";

/// One measured row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The bench (kernel family): `sgemm`, `transpose`, `image`, `gemm_tc`.
    pub family: String,
    /// The kernel as the table names it (`sgemm_naive`, `cuBLAS SGEMM`).
    pub kernel: String,
    /// Its place in the table: the ladder rung (`1`, `7a`, `auto`), or
    /// `ceiling`, `config`, `cpu`… as the bench prints it.
    pub rung: Option<String>,
    /// The problem: `4096×4096×4096`, `8192x8192`, `n=4194304`.
    pub shape: String,
    /// Element types (`f32`, `u8`, `bf16→bf16`, `tf32`).
    pub dtype: String,
    /// Median time of one call, in milliseconds.
    pub time_ms: f64,
    /// Work per second, in `unit`.
    pub throughput: f64,
    /// `GFLOP/s`, `TFLOP/s` or `GB/s` (bytes read + written).
    pub unit: String,
    /// What the row is compared with (`cuBLAS`, `device-to-device copy`).
    pub ceiling: Option<String>,
    /// The ceiling's throughput on the same work, in `unit`.
    pub ceiling_throughput: Option<f64>,
    /// `throughput / ceiling_throughput`.
    pub ratio: Option<f64>,
    /// The bench's check column: `ok`, `FAIL …`, an error, or `ceiling`.
    pub check: String,
    /// The device's name.
    pub gpu: String,
    /// The NVIDIA driver version, or `unknown`.
    pub driver: String,
    /// The day of the run, `YYYY-MM-DD` (UTC).
    pub date: String,
    /// Where the record came from when it was converted from a log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// What a row's throughput counts.
#[derive(Clone, Copy, Debug)]
pub enum Work {
    /// Floating-point operations, reported in GFLOP/s.
    GFlops(f64),
    /// Floating-point operations, reported in TFLOP/s.
    TFlops(f64),
    /// Bytes read + written, reported in GB/s.
    Bytes(f64),
}

impl Work {
    fn rate(self, t: Duration) -> (f64, &'static str) {
        let s = t.as_secs_f64();
        match self {
            Work::GFlops(f) => (f / s / 1e9, "GFLOP/s"),
            Work::TFlops(f) => (f / s / 1e12, "TFLOP/s"),
            Work::Bytes(b) => (b / s / 1e9, "GB/s"),
        }
    }
}

/// A row as a bench measured it.
pub struct Measured<'a> {
    pub family: &'a str,
    pub kernel: &'a str,
    pub rung: Option<&'a str>,
    pub shape: &'a str,
    pub dtype: &'a str,
    pub time: Duration,
    pub work: Work,
    /// The ceiling's name and its time on the same work.
    pub ceiling: Option<(&'a str, Duration)>,
    pub check: &'a str,
}

impl Measured<'_> {
    /// The record, with the run's GPU, driver and date.
    pub fn record(&self, gpu: &str, driver: &str, date: &str) -> Record {
        let (throughput, unit) = self.work.rate(self.time);
        let ceiling_throughput = self.ceiling.map(|(_, t)| self.work.rate(t).0);
        Record {
            family: self.family.into(),
            kernel: self.kernel.into(),
            rung: self.rung.map(Into::into),
            shape: self.shape.into(),
            dtype: self.dtype.into(),
            time_ms: self.time.as_secs_f64() * 1e3,
            throughput,
            unit: unit.into(),
            ceiling: self.ceiling.map(|(n, _)| n.into()),
            ceiling_throughput,
            ratio: ceiling_throughput.map(|c| throughput / c),
            check: self.check.into(),
            gpu: gpu.into(),
            driver: driver.into(),
            date: date.into(),
            source: None,
        }
    }
}

static GPU: OnceLock<String> = OnceLock::new();

/// Names the device of this run's records (once, at start-up; the CPU
/// emulator when there is none).
pub fn set_gpu(name: Option<&str>) {
    let _ = GPU.set(name.unwrap_or("CPU emulator").to_owned());
}

/// Appends `m` to `$FERROTILE_RESULTS` when it is set (else does nothing).
/// A file that cannot be written is reported once on stderr, not fatal:
/// the printed table is the bench's main output.
pub fn record(m: Measured<'_>) {
    let Some(path) = std::env::var_os(RESULTS_ENV) else { return };
    static META: OnceLock<(String, String)> = OnceLock::new();
    let (driver, date) = META.get_or_init(|| (driver_version(), today()));
    let gpu = GPU.get().map_or("unknown", String::as_str);
    let line = serde_json::to_string(&m.record(gpu, driver, date)).expect("a record serialises");
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| writeln!(f, "{line}"));
    if let Err(e) = written {
        static WARNED: OnceLock<()> = OnceLock::new();
        WARNED.get_or_init(|| eprintln!("warning: cannot write {RESULTS_ENV}={}: {e}", path.to_string_lossy()));
    }
}

/// The driver version from `nvidia-smi`, or `unknown`.
fn driver_version() -> String {
    std::process::Command::new("nvidia-smi")
        .args(["--query-gpu=driver_version", "--format=csv,noheader"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.lines().next().map(|l| l.trim().to_owned()))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// Today's date (UTC) as `YYYY-MM-DD`.
fn today() -> String {
    time::OffsetDateTime::now_utc().date().to_string()
}

/// What a `gemm_tc` row is compared with, from its kernel label (the bench
/// compares most rows with cuBLAS, the odd shapes with our own aligned
/// shape, the fused epilogue with the plain kernel).
pub fn gemm_tc_ceiling(kernel: &str) -> &'static str {
    match kernel {
        "auto (vs aligned)" => "ours at the aligned shape",
        "fused bias + GELU" => "plain (no epilogue)",
        k if k.starts_with("plain, wgmma") || k.starts_with("fused bias + GELU, wgmma") => "plain (no epilogue)",
        "cuBLAS + separate bias/GELU pass" => "fused bias + GELU",
        _ => "cuBLAS",
    }
}
