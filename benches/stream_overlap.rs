//! Stream overlap benchmark (issue 17): a pipeline of batches, each
//! uploaded from pinned memory, multiplied (SGEMM against shared weights)
//! and downloaded into pinned memory, run on one stream (serial: copy,
//! compute, copy, batch after batch) and spread over 2 and 3 streams
//! (batch k uploads while batch k-1 computes and batch k-2 downloads).
//!
//! `cargo bench --bench stream_overlap [-- --batches 16 --size 4096]`
//! (CUDA; without a device it prints a note and exits 0).
//! `FERROTILE_BENCH_QUICK=1`: 8 batches of 2048.
//!
//! The ideal is the busiest engine alone: max(all uploads, all downloads,
//! all products), each timed on its own stream (the GPU copies each way on
//! its own copy engine). Rows: the whole pipeline's time (events on the
//! device), its throughput as the bytes copied per second, and the ideal's
//! time as the ceiling (100 % = perfect overlap). Every result is checked
//! (a few rows of each batch against an f64 CPU reference).

use std::time::Duration;

use ferrotile::gemm::Gemm;
use ferrotile::reference::{self, GemmShape};
use ferrotile::testing::random_f32;
use ferrotile::{Buffer, Context, PinnedBuffer, Result};

#[path = "common/results.rs"]
mod results;
use results::{Measured, Work};

/// Timed repetitions of each configuration (the minimum is reported).
const REPS: usize = 3;

struct Args {
    batches: usize,
    size: usize,
}

fn parse_args() -> std::result::Result<Args, String> {
    let quick = std::env::var("FERROTILE_BENCH_QUICK").is_ok_and(|v| v == "1");
    let mut a = if quick { Args { batches: 8, size: 2048 } } else { Args { batches: 16, size: 4096 } };
    let mut it = std::env::args().skip(1).filter(|s| s != "--bench");
    while let Some(flag) = it.next() {
        let val = it.next().ok_or(format!("{flag} needs a value"))?;
        let n: usize = val.parse().map_err(|e| format!("{flag} {val}: {e}"))?;
        if n == 0 {
            return Err(format!("{flag}: must be positive"));
        }
        match flag.as_str() {
            "--batches" => a.batches = n,
            "--size" => a.size = n,
            other => return Err(format!("unknown argument {other} (--batches N, --size N)")),
        }
    }
    Ok(a)
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("stream_overlap bench: {e}");
            std::process::exit(2);
        }
    };
    let ctx = match Context::cuda(0) {
        Ok(c) => c,
        Err(e) => {
            println!("stream_overlap bench: no CUDA device ({e}); nothing to measure. Run it on a GPU machine.");
            return;
        }
    };
    if let Err(e) = run(&ctx, &args) {
        eprintln!("stream_overlap bench failed: {e}");
        std::process::exit(1);
    }
}

/// One batch's memory: pinned input and output, device input and output.
struct Slot {
    pin_in: PinnedBuffer<f32>,
    pin_out: PinnedBuffer<f32>,
    a: Buffer<f32>,
    c: Buffer<f32>,
}

/// What a pipeline run enqueues per batch.
#[derive(Clone, Copy, PartialEq)]
enum Stage {
    /// Upload, product, download.
    All,
    Upload,
    Compute,
    Download,
}

/// The device time of `stage` over every batch, batch `i` on stream
/// `i % lanes.len()`, all streams starting after one event on the default
/// stream and the default stream waiting for all of them.
fn pipeline(ctx: &Context, lanes: &[Context], slots: &mut [Slot], w: &Buffer<f32>, g: &Gemm, stage: Stage) -> Result<Duration> {
    ctx.synchronize()?;
    for on in lanes {
        on.synchronize()?;
    }
    let start = ctx.record_event()?;
    for on in lanes {
        on.wait_event(&start)?;
    }
    for (i, s) in slots.iter_mut().enumerate() {
        let on = &lanes[i % lanes.len()];
        if matches!(stage, Stage::All | Stage::Upload) {
            on.upload_async(&s.pin_in, &mut s.a)?;
        }
        if matches!(stage, Stage::All | Stage::Compute) {
            g.run(on, &s.a, w, &mut s.c)?;
        }
        if matches!(stage, Stage::All | Stage::Download) {
            on.download_async(&s.c, &mut s.pin_out)?;
        }
    }
    for on in lanes {
        ctx.wait_event(&on.record_event()?)?;
    }
    let end = ctx.record_event()?;
    start.elapsed(&end)
}

fn best(mut f: impl FnMut() -> Result<Duration>) -> Result<Duration> {
    f()?; // warm-up
    (0..REPS).map(|_| f()).try_fold(Duration::MAX, |m, t| Ok(m.min(t?)))
}

/// A few rows of every batch's product against the f64 reference.
fn check(slots: &[Slot], w: &[f32], n: usize) -> Result<String> {
    let rows = 2;
    let shape = GemmShape { m: rows, n, k: n, lda: n, ldb: n, ldc: n };
    for (i, s) in slots.iter().enumerate() {
        let a = s.pin_in.as_slice()?;
        let got = &s.pin_out.as_slice()?[..rows * n];
        let want = reference::sgemm_f64(shape, 1.0, &a[..rows * n], w, 0.0, &vec![0.0; rows * n]);
        let (mut num, mut den) = (0.0f64, 0.0f64);
        for (g, w) in got.iter().zip(&want) {
            num += (*g as f64 - *w).powi(2);
            den += (*w).powi(2);
        }
        let err = (num / den.max(f64::MIN_POSITIVE)).sqrt();
        if err.is_nan() || err >= 1e-5 {
            return Ok(format!("FAIL batch {i}: relative error {err:.2e}"));
        }
    }
    Ok("ok".into())
}

fn run(ctx: &Context, args: &Args) -> Result<()> {
    let d = ctx.device_info().expect("CUDA context");
    results::set_gpu(Some(&d.name));
    let (n, batches) = (args.size, args.batches);
    let mib = (n * n * 4) as f64 / (1 << 20) as f64;
    println!("# stream overlap — {} ({} SMs)\n", d.name, d.sm_count);
    println!("{batches} batches: upload {mib:.0} MiB (pinned) → SGEMM {n}×{n}×{n} → download {mib:.0} MiB (pinned)\n");

    let w = random_f32(n * n, 0x5eed_0017);
    let dw = ctx.upload(&w)?;
    let mut slots = Vec::with_capacity(batches);
    for i in 0..batches {
        let mut pin_in = ctx.alloc_pinned::<f32>(n * n)?;
        pin_in.as_mut_slice()?.copy_from_slice(&random_f32(n * n, 0x5eed_1700 + i as u64));
        slots.push(Slot { pin_in, pin_out: ctx.alloc_pinned::<f32>(n * n)?, a: ctx.alloc(n * n)?, c: ctx.alloc(n * n)? });
    }
    let streams = (0..3).map(|_| ctx.new_stream()).collect::<Result<Vec<_>>>()?;
    let lanes = streams.iter().map(|s| ctx.on(s)).collect::<Result<Vec<_>>>()?;
    let g = Gemm::new(n, n, n);

    let up = best(|| pipeline(ctx, &lanes[..1], &mut slots, &dw, &g, Stage::Upload))?;
    let compute = best(|| pipeline(ctx, &lanes[..1], &mut slots, &dw, &g, Stage::Compute))?;
    let down = best(|| pipeline(ctx, &lanes[..1], &mut slots, &dw, &g, Stage::Download))?;
    let ideal = up.max(compute).max(down);

    let shape = format!("{batches}×{n}×{n}");
    let bytes = 2.0 * batches as f64 * (n * n * 4) as f64;
    let ms = |t: Duration| t.as_secs_f64() * 1e3;
    println!("| pipeline | time (ms) | per batch (ms) | copied GB/s | speedup vs serial | % of ideal | check |");
    println!("|---|---:|---:|---:|---:|---:|---|");
    for (name, t) in [("uploads alone", up), ("products alone", compute), ("downloads alone", down)] {
        println!("| {name} | {:.2} | {:.3} | | | | |", ms(t), ms(t) / batches as f64);
    }
    println!("| ideal: max of the three | {:.2} | {:.3} | {:.1} | | 100.0 | |", ms(ideal), ms(ideal) / batches as f64, bytes / ideal.as_secs_f64() / 1e9);
    let mut serial = None;
    for lanes_n in 1..=3 {
        let t = best(|| pipeline(ctx, &lanes[..lanes_n], &mut slots, &dw, &g, Stage::All))?;
        let chk = check(&slots, &w, n)?;
        let serial_t = *serial.get_or_insert(t);
        let kernel = if lanes_n == 1 { "serial (1 stream)".to_owned() } else { format!("overlapped ({lanes_n} streams)") };
        println!(
            "| {kernel} | {:.2} | {:.3} | {:.1} | {:.2}× | {:.1} | {chk} |",
            ms(t),
            ms(t) / batches as f64,
            bytes / t.as_secs_f64() / 1e9,
            serial_t.as_secs_f64() / t.as_secs_f64(),
            100.0 * ideal.as_secs_f64() / t.as_secs_f64()
        );
        let rung = lanes_n.to_string();
        results::record(Measured {
            family: "stream_overlap",
            kernel: &kernel,
            rung: Some(&rung),
            shape: &shape,
            dtype: "f32",
            time: t,
            work: Work::Bytes(bytes),
            ceiling: Some(("ideal max(upload, compute, download)", ideal)),
            check: &chk,
        });
    }
    Ok(())
}
