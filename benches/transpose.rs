//! Transpose ladder benchmark: every rung and every tile configuration,
//! verified, timed and compared with a device-to-device copy of the same
//! bytes measured in the same run.
//!
//! `cargo bench --bench transpose` (CUDA; without a device it prints a note
//! and exits 0). `FERROTILE_BENCH_QUICK=1` runs one size only.
//!
//! Bytes counted: `8 · nx · ny` (each f32 read once and written once), for
//! the transposes and for the copy alike. Sizes whose buffers fit in L2 are
//! rotated over several buffer sets (and timed as a batch of launches) so
//! that every launch reads from DRAM, not from the previous launch's L2.

use std::time::{Duration, Instant};

use ferrotile::testing::random_f32;
use ferrotile::reference;
use ferrotile::transpose::{Transpose, TransposeVariant};
use ferrotile::{Buffer, Context, Result};

#[path = "common/results.rs"]
mod results;
use results::{Measured, Work};

/// Buffers below this size are rotated (H100: 50 MB L2, H200: 60 MB).
const ROTATE_BELOW: usize = 64 << 20;
/// Bytes of input + output the rotated sets should span.
const ROTATE_SPAN: usize = 512 << 20;
/// Target timed wall time per configuration.
const BUDGET: Duration = Duration::from_millis(300);


/// Median time of one call of `one(set)`, running every set per timed
/// sample; repetitions adapt so a configuration takes about [`BUDGET`].
fn time_sets(ctx: &Context, sets: usize, mut one: impl FnMut(usize) -> Result<()>) -> Result<Duration> {
    let mut batch = || (0..sets).try_for_each(&mut one);
    // Probe: one warm-up batch, one timed batch.
    let probe = ctx.time(1, 1, &mut batch)?.max(Duration::from_nanos(100));
    let reps = (BUDGET.as_secs_f64() / probe.as_secs_f64()).clamp(3.0, 200.0) as usize;
    let t = ctx.time(1, reps, &mut batch)?;
    Ok(t / sets as u32)
}

struct Sets {
    inputs: Vec<Buffer<f32>>,
    outputs: Vec<Buffer<f32>>,
}

fn main() {
    let ctx = match Context::cuda(0) {
        Ok(c) => c,
        Err(e) => {
            println!("transpose bench: no CUDA device ({e}); nothing to measure. Run it on a GPU machine.");
            return;
        }
    };
    if let Err(e) = run(&ctx) {
        eprintln!("transpose bench failed: {e}");
        std::process::exit(1);
    }
}

fn run(ctx: &Context) -> Result<()> {
    let d = ctx.device_info().expect("CUDA context");
    results::set_gpu(Some(&d.name));
    println!(
        "# transpose ladder — {} (sm_{}{}, {} SMs)\n",
        d.name, d.compute_capability.0, d.compute_capability.1, d.sm_count
    );
    let quick = std::env::var("FERROTILE_BENCH_QUICK").is_ok_and(|v| v == "1");
    // `FERROTILE_BENCH_SHAPES=8191x8193,67x1048573`: only these shapes (nx x ny), e.g. under a profiler.
    let chosen: Option<Vec<(usize, usize)>> = std::env::var("FERROTILE_BENCH_SHAPES").ok().map(|v| {
        v.split(',')
            .filter_map(|s| s.split_once('x').and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?))))
            .collect()
    });
    let sizes: &[(usize, usize)] = if let Some(c) = &chosen { c } else if quick { &[(8192, 8192)] } else { &[
        // Aligned squares (the ladder's home ground).
        (4096, 4096),
        (8192, 8192),
        // Sides not multiples of the tile or of 4.
        (8191, 8193),
        (4093, 4099),
        (8190, 8194),
        (8191, 37),
        (37, 8191),
        // Odd sides, moderately thin both ways (rung 10's short output
        // rows and rung 7 against it).
        (1048573, 67),
        (67, 1048573),
        (524287, 131),
        (131, 524287),
        (262147, 257),
        (257, 262147),
        // Short output rows (rung 11 up to 160, rung 10 above): a multiple
        // of 4 with an odd nx, between the rungs, near rung 10's 512.
        (1048573, 68),
        (699051, 150),
        (131071, 509),
        // A few columns / a few rows, very tall / very wide.
        (64, 1 << 20),
        (1 << 20, 64),
        (7, 1 << 22),
        (1 << 22, 7),
        (2097143, 33),
        // One row or one column.
        (1, 1 << 24),
        (1 << 24, 1),
    ]
    };
    println!("bytes = 8·nx·ny (read + write); copy = cuMemcpyDtoD of the same nx·ny f32 in the same run (the faster of two timings).");
    println!("kind: rung = a step of the ladder; config = another tile configuration of a rung; default = what Transpose::new picks.\n");
    println!("| kernel | kind | size | time ms | GB/s | % of copy |");
    println!("| --- | --- | --- | ---: | ---: | ---: |");
    let mut summary = Vec::new();
    for &(nx, ny) in sizes {
        let n = nx * ny;
        let bytes = 8.0 * n as f64;
        let sets = if n * 4 >= ROTATE_BELOW { 1 } else { ROTATE_SPAN.div_ceil(8 * n).clamp(1, 256) };
        let a = random_f32(n, (nx * 31 + ny) as u64);
        let want = reference::transpose(&a, nx, ny);
        let mut s = Sets { inputs: Vec::new(), outputs: Vec::new() };
        for _ in 0..sets {
            s.inputs.push(ctx.upload(&a)?);
            s.outputs.push(ctx.alloc::<f32>(n)?);
        }
        let size = format!("{nx}x{ny}");
        let gbs = |t: Duration| bytes / t.as_secs_f64() / 1e9;

        // The ceiling: the faster of two timings of the copy (the first
        // after a shape's new buffers ran up to 9 % slow in some runs).
        let copy = {
            let Sets { inputs, outputs } = &mut s;
            let first = time_sets(ctx, sets, |i| outputs[i].copy_from_buffer(&inputs[i]))?;
            first.min(time_sets(ctx, sets, |i| outputs[i].copy_from_buffer(&inputs[i]))?)
        };
        println!("| device-to-device copy | ceiling | {size} | {:.4} | {:.1} | 100.0 |", copy.as_secs_f64() * 1e3, gbs(copy));
        let row = |kernel: &str, rung: &str, time, ceiling, check: &str| {
            let work = Work::Bytes(bytes);
            results::record(Measured { family: "transpose", kernel, rung: Some(rung), shape: &size, dtype: "f32", time, work, ceiling, check });
        };
        row("device-to-device copy", "ceiling", copy, None, "ceiling");

        // Rung 0: the CPU references (host memory, wall clock; not a GPU number).
        for (name, reps, f) in [
            ("cpu_serial (reference::transpose_serial)", 1, reference::transpose_serial::<f32> as fn(&[f32], usize, usize) -> Vec<f32>),
            ("cpu_blocked_rayon (reference::transpose)", 3, reference::transpose::<f32>),
        ] {
            let mut times: Vec<Duration> = (0..reps)
                .map(|_| {
                    let t = Instant::now();
                    std::hint::black_box(f(std::hint::black_box(&a), nx, ny));
                    t.elapsed()
                })
                .collect();
            times.sort();
            let t = times[times.len() / 2];
            println!("| {name} | cpu | {size} | {:.4} | {:.1} | {:.1} |", t.as_secs_f64() * 1e3, gbs(t), 100.0 * copy.as_secs_f64() / t.as_secs_f64());
            row(name, "cpu", t, Some(("device-to-device copy", copy)), "reference");
        }

        let default = Transpose::new(nx, ny).resolved_variant();
        let mut best: Option<(TransposeVariant, Duration)> = None;
        for v in TransposeVariant::all() {
            let kind = if v == default { "rung, default" } else if v.is_rung() { "rung" } else { "config" };
            if !v.supports(nx, ny) {
                println!("| {} | {kind} | {size} | n/a | n/a | n/a (does not support the shape) |", v.name());
                continue;
            }
            let t = Transpose::new(nx, ny).variant(v);
            // Verify once, from a NaN-poisoned output.
            s.outputs[0].fill(f32::NAN)?;
            t.run(ctx, &s.inputs[0], &mut s.outputs[0])?;
            let got = s.outputs[0].download()?;
            let ok = got.iter().zip(&want).all(|(g, w)| g.to_bits() == w.to_bits());
            let time = {
                let Sets { inputs, outputs } = &mut s;
                time_sets(ctx, sets, |i| t.run(ctx, &inputs[i], &mut outputs[i]))?
            };
            let pct = 100.0 * copy.as_secs_f64() / time.as_secs_f64();
            println!(
                "| {}{} | {kind} | {size} | {:.4} | {:.1} | {:.1} |",
                v.name(),
                if ok { "" } else { " **FAIL**" },
                time.as_secs_f64() * 1e3,
                gbs(time),
                pct
            );
            row(v.name(), kind, time, Some(("device-to-device copy", copy)), if ok { "ok" } else { "FAIL" });
            if ok && best.is_none_or(|(_, b)| time < b) {
                best = Some((v, time));
            }
        }
        if let Some((v, t)) = best {
            summary.push(format!(
                "{size}: fastest {} at {:.1} GB/s = {:.1}% of copy ({:.1} GB/s); default {}{}",
                v.name(),
                gbs(t),
                100.0 * copy.as_secs_f64() / t.as_secs_f64(),
                gbs(copy),
                default.name(),
                if sets > 1 { format!(" [rotated over {sets} buffer sets]") } else { String::new() }
            ));
        }
    }
    println!();
    for line in summary {
        println!("- {line}");
    }
    Ok(())
}
