//! The SGEMM ladder table: every rung and configuration, GFLOP/s and % of
//! cuBLAS SGEMM measured in the same run.
//!
//! `cargo bench --bench sgemm` (CUDA). For each shape: cuBLAS (if
//! libcublas loads) and every rung run once and are checked against an
//! f64 CPU reference on sampled rows (FAIL if the relative norm error is
//! above 1e-5), then timed with CUDA events (median; repetitions adapt to
//! ~0.3 s per configuration, at least 3).
//!
//! Environment:
//! * `FERROTILE_BENCH_QUICK=1`: one shape (4096³).
//! * `FERROTILE_AUTOTUNE=1`: time the float4 rungs and every warptile
//!   configuration at the autotune shapes and print the Rust table
//!   `AUTO_TABLE` for `host/src/gemm.rs`.
//! * `FERROTILE_BENCH_SIZES=1024,4096x1024x8192`: shapes to run.
//! * `FERROTILE_BENCH_ONLY=warptile,double`: only the kernels whose name
//!   contains one of these words (cuBLAS always runs; also in autotune mode).
//!
//! * `FERROTILE_BENCH_EMULATOR=1`: run on the CPU emulator (smoke test of
//!   the table; give small `FERROTILE_BENCH_SIZES`).
//! * `FERROTILE_BENCH_CLASSES=0`: skip the shape-class table (printed after
//!   the ladder: odd sizes, transposed operands, skinny and deep products,
//!   `Auto` against cuBLAS with the same transposes); `=only`: print only
//!   it.
//! * `FERROTILE_BENCH_CLASS_SHAPES=1023x1025x1021,1000`: only the class and
//!   medium rows of these shapes (every transpose of them).
//!
//! Without a CUDA device it prints a note and exits 0.

use std::time::Duration;

use ferrotile::testing::random_f32;
use ferrotile::cublas::{Cublas, CUBLAS};
use ferrotile::gemm::{Gemm, GemmVariant};
use ferrotile::reference::{self, GemmShape};
use ferrotile::{Buffer, Context, Error, Result};

#[path = "common/results.rs"]
mod results;
use results::{Measured, Work};

const TOL: f64 = 1e-5;
/// Rows of C checked against the f64 reference at each shape.
const SAMPLE_ROWS: usize = 16;
/// Target timing per configuration.
const TARGET: Duration = Duration::from_millis(300);

fn main() {
    // FERROTILE_BENCH_EMULATOR=1 runs the table logic on the CPU emulator
    // (use small FERROTILE_BENCH_SIZES): a smoke test without a GPU.
    let ctx = if env_on("FERROTILE_BENCH_EMULATOR") { Ok(Context::emulator()) } else { Context::cuda(0) };
    let ctx = match ctx {
        Ok(c) => c,
        Err(e) => {
            println!("sgemm bench: no CUDA device ({e}); nothing to measure.");
            return;
        }
    };
    if let Err(e) = run(&ctx) {
        println!("sgemm bench: error: {e}");
        std::process::exit(1);
    }
}

/// Whether `FERROTILE_BENCH_ONLY` (comma-separated words) selects `v`.
fn selected(v: GemmVariant) -> bool {
    match std::env::var("FERROTILE_BENCH_ONLY") {
        Ok(words) => words.split(',').any(|w| !w.trim().is_empty() && v.name().contains(w.trim())),
        Err(_) => true,
    }
}

/// Whether `FERROTILE_BENCH_CLASS_SHAPES` (comma-separated shapes, as
/// `FERROTILE_BENCH_SIZES` writes them) selects a class or medium row.
fn class_selected(shape: (usize, usize, usize)) -> bool {
    match std::env::var("FERROTILE_BENCH_CLASS_SHAPES") {
        Ok(list) => list.split(',').filter_map(parse_shape).any(|s| s == shape),
        Err(_) => true,
    }
}

fn env_on(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| v == "1")
}

fn parse_shape(s: &str) -> Option<(usize, usize, usize)> {
    let v: Vec<usize> = s.split('x').map(|x| x.trim().parse().ok()).collect::<Option<_>>()?;
    match v[..] {
        [n] => Some((n, n, n)),
        [m, n, k] => Some((m, n, k)),
        _ => None,
    }
}

fn run(ctx: &Context) -> Result<()> {
    results::set_gpu(ctx.device_info().map(|d| d.name.as_str()));
    match ctx.device_info() {
        Some(d) => println!(
            "# SGEMM ladder — {} (sm_{}{}, {} SMs)",
            d.name, d.compute_capability.0, d.compute_capability.1, d.sm_count
        ),
        None => println!("# SGEMM ladder — CPU emulator (smoke test; times are not a GPU's)"),
    }
    let cublas = match Cublas::new(ctx) {
        Ok(c) => Some(c),
        Err(Error::LibraryMissing { library, detail }) if library == CUBLAS => {
            println!("note: cuBLAS not available ({detail}): no ceiling, % column empty");
            None
        }
        Err(e) => {
            println!("note: cuBLAS failed to initialise ({e}): no ceiling");
            None
        }
    };
    if env_on("FERROTILE_AUTOTUNE") {
        return autotune(ctx, cublas.as_ref());
    }
    let classes = std::env::var("FERROTILE_BENCH_CLASSES").unwrap_or_default();
    if classes == "only" {
        return shape_classes(ctx, cublas.as_ref());
    }
    let shapes: Vec<(usize, usize, usize)> = if let Ok(s) = std::env::var("FERROTILE_BENCH_SIZES") {
        s.split(',').filter_map(parse_shape).collect()
    } else if env_on("FERROTILE_BENCH_QUICK") {
        vec![(4096, 4096, 4096)]
    } else {
        vec![(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192), (4096, 1024, 8192), (1000, 1000, 1000)]
    };
    println!("\nα = 1, β = 0, row-major, packed; check: f64 reference on {SAMPLE_ROWS} sampled rows, tolerance {TOL:.0e}\n");
    println!("| rung | kernel | m×n×k | time ms | GFLOP/s | % of cuBLAS | check |");
    println!("| --- | --- | --- | ---: | ---: | ---: | --- |");
    let mut best: Vec<(String, String, f64)> = Vec::new();
    for (m, n, k) in shapes {
        let (p, mut c) = Problem::new(ctx, m, n, k)?;
        let size = format!("{m}×{n}×{k}");
        let row = |kernel: &str, rung: &str, time, ceiling: Option<Duration>, check: &str| {
            let (work, ceiling) = (Work::GFlops(2.0 * (m * n * k) as f64), ceiling.map(|c| ("cuBLAS", c)));
            results::record(Measured { family: "sgemm", kernel, rung: Some(rung), shape: &size, dtype: "f32", time, work, ceiling, check });
        };
        let ceiling = match &cublas {
            Some(cb) => {
                let (t, check) = p.measure(ctx, &mut c, |c| cb.sgemm(ctx, &p.gemm, &p.a, &p.b, c))?;
                println!("| ceiling | cuBLAS SGEMM | {size} | {:.3} | {:.0} | 100.0 | {check} |", ms(t), p.gflops(t));
                row("cuBLAS SGEMM", "ceiling", t, None, &check);
                Some(t)
            }
            None => None,
        };
        let mut top = (String::new(), 0.0f64);
        for (i, v) in GemmVariant::all().into_iter().enumerate() {
            if !selected(v) {
                continue;
            }
            let rung = rung_label(i, v);
            if too_slow(v, m, n, k) {
                println!("| {rung} | {} | {size} | — | — | — | skipped (minutes at this size) |", v.name());
                continue;
            }
            if v.needs_float4() && (k % 4 != 0 || n % 4 != 0) {
                println!("| {rung} | {} | {size} | — | — | — | n/a (float4 needs k, n multiples of 4) |", v.name());
                continue;
            }
            let g = p.gemm.variant(v);
            let (t, check) = p.measure(ctx, &mut c, |c| g.run(ctx, &p.a, &p.b, c))?;
            let pct = ceiling.map_or("—".into(), |c| format!("{:.1}", 100.0 * c.as_secs_f64() / t.as_secs_f64()));
            println!("| {rung} | {} | {size} | {:.3} | {:.0} | {pct} | {check} |", v.name(), ms(t), p.gflops(t));
            row(v.name(), &rung, t, ceiling, &check);
            if check == "ok" && p.gflops(t) > top.1 {
                top = (v.name().into(), p.gflops(t));
            }
        }
        let auto = p.gemm.resolved_variant()?;
        let (t, check) = p.measure(ctx, &mut c, |c| p.gemm.run(ctx, &p.a, &p.b, c))?;
        let pct = ceiling.map_or("—".into(), |c| format!("{:.1}", 100.0 * c.as_secs_f64() / t.as_secs_f64()));
        println!("| auto | → {} | {size} | {:.3} | {:.0} | {pct} | {check} |", auto.name(), ms(t), p.gflops(t));
        row(&format!("→ {}", auto.name()), "auto", t, ceiling, &check);
        let cb = ceiling.map_or(f64::NAN, |c| p.gflops(c));
        best.push((size, top.0, 100.0 * top.1 / cb));
    }
    println!("\n| m×n×k | best kernel | % of cuBLAS |");
    println!("| --- | --- | ---: |");
    for (size, name, pct) in best {
        println!("| {size} | {name} | {} |", if pct.is_nan() { "—".into() } else { format!("{pct:.1}") });
    }
    if classes != "0" && !env_on("FERROTILE_BENCH_QUICK") && std::env::var("FERROTILE_BENCH_SIZES").is_err() {
        shape_classes(ctx, cublas.as_ref())?;
    }
    Ok(())
}

/// The shape classes of issue 15: what a user's shapes look like, `Auto`
/// against cuBLAS SGEMM with the same transposes, in the same run.
const CLASSES: &[(&str, usize, usize, usize, bool, bool)] = &[
    ("aligned", 4096, 4096, 4096, false, false),
    ("odd", 1000, 1000, 1000, false, false),
    ("odd", 1023, 1025, 1021, false, false),
    ("odd", 4097, 4097, 4097, false, false),
    ("odd", 2049, 2049, 2049, false, false),
    ("odd", 8193, 8193, 1024, false, false),
    ("odd", 4100, 4100, 4100, false, false),
    ("odd", 6145, 6145, 2048, false, false),
    ("transposed", 4096, 4096, 4096, true, false),
    ("transposed", 4096, 4096, 4096, false, true),
    ("transposed", 4096, 4096, 4096, true, true),
    ("transposed", 1000, 1000, 1000, true, false),
    ("transposed", 1000, 1000, 1000, false, true),
    ("transposed", 1000, 1000, 1000, true, true),
    ("skinny", 64, 4096, 4096, false, false),
    ("skinny", 4096, 64, 4096, false, false),
    ("deep", 256, 256, 65536, false, false),
];

/// Medium shapes whose one wave of blocks is uneven or short, where
/// `Auto` may split `k` (`split_k_plan`): each against cuBLAS and against
/// `Auto` with the split turned off, in the same run.
const MID: &[(usize, usize, usize)] =
    &[
        (1023, 1025, 1021),
        (1200, 1100, 1000),
        (777, 1031, 2053),
        (1000, 1000, 4000),
        (1500, 1500, 1500),
        (1024, 1024, 16384),
        (2000, 600, 3000),
        (1000, 1000, 1000),
        (1024, 1024, 1024),
        (1536, 1536, 1536),
        (3000, 700, 900),
        (512, 512, 512),
        (2048, 2048, 2048),
    ];

/// The [`MID`] table: cuBLAS, `Auto` (checked, recorded as class
/// `mid-size` unless a [`CLASSES`] row has the shape) and `Auto` without
/// split-k (checked too).
fn mid_sizes(ctx: &Context, cublas: Option<&Cublas>) -> Result<()> {
    println!("\n## Medium shapes — Auto (split-k where one wave is uneven) vs Auto unsplit vs cuBLAS SGEMM (same run)\n");
    println!("| m×n×k | cuBLAS ms | Auto ms | Auto kernel | % of cuBLAS | unsplit ms | unsplit % of cuBLAS | check |");
    println!("| --- | ---: | ---: | --- | ---: | ---: | ---: | --- |");
    for &(m, n, k) in MID.iter().filter(|&&s| class_selected(s)) {
        let (p, mut c) = Problem::new(ctx, m, n, k)?;
        let cb = match cublas {
            Some(cb) => Some(p.measure(ctx, &mut c, |c| cb.sgemm(ctx, &p.gemm, &p.a, &p.b, c))?.0),
            None => None,
        };
        let kernel = auto_kernel(ctx, &p.gemm)?;
        let (t, check) = p.measure(ctx, &mut c, |c| p.gemm.run(ctx, &p.a, &p.b, c))?;
        let unsplit = p.gemm.split_k(1);
        let (tu, check_u) = p.measure(ctx, &mut c, |c| unsplit.run(ctx, &p.a, &p.b, c))?;
        let pct = |t: Duration| cb.map_or("—".into(), |c| format!("{:.1}", 100.0 * c.as_secs_f64() / t.as_secs_f64()));
        let cb_ms = cb.map_or("—".into(), |c| format!("{:.3}", ms(c)));
        let check = if check_u == "ok" { check } else { format!("{check} (unsplit: {check_u})") };
        println!("| {m}×{n}×{k} | {cb_ms} | {:.3} | {kernel} | {} | {:.3} | {} | {check} |", ms(t), pct(t), ms(tu), pct(tu));
        // Where Auto splits: every split tile at its slice count (printed,
        // not recorded), to check the tile choice.
        let (_, slices) = p.gemm.split_k_plan_on(ctx);
        if slices > 1 {
            for &tile in ferrotile::gemm::SplitConfig::ALL {
                let g = p.gemm.split_k(slices).split_k_tiling(tile);
                let (tt, chk) = p.measure(ctx, &mut c, |c| g.run(ctx, &p.a, &p.b, c))?;
                println!("| ↳ | | {:.3} | {} × {slices} forced | {} | | | {chk} |", ms(tt), tile.name(), pct(tt));
            }
        }
        if CLASSES.iter().any(|c| (c.1, c.2, c.3, c.4, c.5) == (m, n, k, false, false)) {
            continue; // recorded by its class row
        }
        record_class("mid-size", &kernel, (m, n, k), "NN", t, cb, &check);
    }
    Ok(())
}

/// Auto's kernel for `g` on `ctx` as the tables name it (split-k: the
/// tile, the slices and the reduction).
fn auto_kernel(ctx: &Context, g: &Gemm) -> Result<String> {
    let (split, slices) = g.split_k_plan_on(ctx);
    Ok(match (slices, g.peel_plan_on(ctx)?) {
        (s, _) if s > 1 => format!("{} × {s} + reduce", split.name()),
        (_, Some((mb, nb))) => format!("{} on {mb}×{nb} + peeled edges", g.resolved_variant()?.name()),
        _ => match g.transposed_twin_on(ctx)? {
            Some(t) => t.name().to_string(),
            None => g.resolved_variant()?.name().to_string(),
        },
    })
}

/// The record of a class row, as `cargo xtask import-log` makes it
/// (family `sgemm_class`, shape `m×n×k OP`, rung: the class).
fn record_class(class: &str, kernel: &str, (m, n, k): (usize, usize, usize), op: &str, t: Duration, cublas: Option<Duration>, check: &str) {
    results::record(Measured {
        family: "sgemm_class",
        kernel,
        rung: Some(class),
        shape: &format!("{m}×{n}×{k} {op}"),
        dtype: "f32",
        time: t,
        work: Work::GFlops(2.0 * (m * n * k) as f64),
        ceiling: cublas.map(|tc| ("cuBLAS SGEMM (same transposes)", tc)),
        check,
    });
}

/// One row per [`CLASSES`] entry: cuBLAS and `Auto` (the kernel it
/// resolves to, staging included in the time), checked on sampled rows;
/// then the [`MID`] table.
fn shape_classes(ctx: &Context, cublas: Option<&Cublas>) -> Result<()> {
    println!("\n## Shape classes — Auto vs cuBLAS SGEMM (same transposes, same run; α = 1, β = 0, packed)\n");
    println!("| class | m×n×k | op | cuBLAS ms | Auto ms | Auto kernel | % of cuBLAS | check |");
    println!("| --- | --- | --- | ---: | ---: | --- | ---: | --- |");
    for &(class, m, n, k, ta, tb) in CLASSES.iter().filter(|r| class_selected((r.1, r.2, r.3))) {
        let (p, mut c) = Problem::new_op(ctx, m, n, k, (ta, tb))?;
        let op = format!("{}{}", if ta { "T" } else { "N" }, if tb { "T" } else { "N" });
        let ceiling = match cublas {
            Some(cb) => Some(p.measure(ctx, &mut c, |c| cb.sgemm(ctx, &p.gemm, &p.a, &p.b, c))?),
            None => None,
        };
        let kernel = auto_kernel(ctx, &p.gemm)?;
        let slices = p.gemm.split_k_slices_on(ctx);
        let (t, check) = p.measure(ctx, &mut c, |c| p.gemm.run(ctx, &p.a, &p.b, c))?;
        let cb_time = ceiling.as_ref().map(|(tc, _)| *tc);
        let (cb_ms, pct, cb_check) = match ceiling {
            Some((tc, chk)) => (format!("{:.3}", ms(tc)), format!("{:.1}", 100.0 * tc.as_secs_f64() / t.as_secs_f64()), chk),
            None => ("—".into(), "—".into(), "—".into()),
        };
        let check = if cb_check == "ok" || cb_check == "—" { check } else { format!("{check} (cuBLAS: {cb_check})") };
        println!("| {class} | {m}×{n}×{k} | {op} | {cb_ms} | {:.3} | {kernel} | {pct} | {check} |", ms(t));
        record_class(class, &kernel, (m, n, k), &op, t, cb_time, &check);
        if p.gemm.peel_plan_on(ctx)?.is_some() {
            // The same call without peeling, in the same run.
            let g = p.gemm.peel_edges(false);
            let (t2, check2) = p.measure(ctx, &mut c, |c| g.run(ctx, &p.a, &p.b, c))?;
            let pct2 = cb_time.map_or("—".into(), |tc| format!("{:.1}", 100.0 * tc.as_secs_f64() / t2.as_secs_f64()));
            println!("| ↳ | edges not peeled | | | {:.3} | {} | {pct2} | {check2} |", ms(t2), g.resolved_variant()?.name());
        }
        if slices == 1 && (ta || tb || [k, n].iter().any(|d| d % 4 != 0)) {
            breakdown(ctx, (m, n, k), t)?;
        }
    }
    mid_sizes(ctx, cublas)
}

/// What a staged class's time is made of (printed, not recorded): the
/// product alone on operands whose rows are already padded to 16 bytes
/// (Auto's pick and every rung of its table), against Auto's
/// whole time `auto` (staging included). Timing only: these runs are not
/// checked.
fn breakdown(ctx: &Context, (m, n, k): (usize, usize, usize), auto: Duration) -> Result<()> {
    let (lda, ldb) = (k.next_multiple_of(4), n.next_multiple_of(4));
    let pad = |x: &[f32], rows: usize, cols: usize, ld: usize| -> Vec<f32> {
        let mut out = vec![0.0f32; rows * ld];
        for i in 0..rows {
            out[i * ld..i * ld + cols].copy_from_slice(&x[i * cols..(i + 1) * cols]);
        }
        out
    };
    let a = ctx.upload(&pad(&random_f32(m * k, 11), m, k, lda))?;
    let b = ctx.upload(&pad(&random_f32(k * n, 12), k, n, ldb))?;
    let mut c = ctx.alloc::<f32>(m * ldb)?;
    let g = Gemm::new(m, n, k).lda(lda).ldb(ldb).ldc(ldb);
    let mut time = |g: Gemm| time_adaptive(ctx, || g.run(ctx, &a, &b, &mut c));
    let t = time(g)?;
    let share = |t: Duration| format!("{:.1} % of Auto's time", 100.0 * t.as_secs_f64() / auto.as_secs_f64());
    println!("| ↳ | product alone, rows padded to 16 B (Auto → {}) | | | {:.3} | {} | | timing only |", g.resolved_variant()?.name(), ms(t), share(t));
    // Auto's candidates (the rungs of its table).
    let mut seen = Vec::new();
    for v in ferrotile::gemm::AUTO_TABLE.iter().map(|e| e.variant) {
        if seen.contains(&v) {
            continue;
        }
        seen.push(v);
        let t = time(g.variant(v))?;
        println!("| ↳ | product alone, rows padded to 16 B, forced | | | {:.3} | {} | {} | timing only |", ms(t), v.name(), share(t));
    }
    Ok(())
}

fn rung_label(i: usize, v: GemmVariant) -> String {
    match v {
        GemmVariant::Padded => "7a".into(),
        GemmVariant::Swizzled => "7b".into(),
        GemmVariant::DoubleBuffered => "8".into(),
        GemmVariant::Warptile(_) => "9".into(),
        GemmVariant::Multistage(_) => "10".into(),
        _ => format!("{}", i + 1),
    }
}

/// The rungs without register tiling take seconds per call at the largest
/// shapes (keeps the whole run near 90 s on an H100).
fn too_slow(v: GemmVariant, m: usize, n: usize, k: usize) -> bool {
    let flops = 2.0 * m as f64 * n as f64 * k as f64;
    matches!(v, GemmVariant::Naive | GemmVariant::Coalesced | GemmVariant::Shared | GemmVariant::Blocktile1d) && flops > 2.0 * 4096f64.powi(3)
}

fn ms(t: Duration) -> f64 {
    t.as_secs_f64() * 1e3
}

/// One shape's buffers and its sampled reference.
struct Problem {
    gemm: Gemm,
    shape: GemmShape,
    a: Buffer<f32>,
    b: Buffer<f32>,
    rows: Vec<usize>,
    want: Vec<f64>,
}

impl Problem {
    /// The problem and its (NaN-filled) output buffer.
    fn new(ctx: &Context, m: usize, n: usize, k: usize) -> Result<(Problem, Buffer<f32>)> {
        Self::new_op(ctx, m, n, k, (false, false))
    }

    /// The same with `A` and/or `B` stored transposed (packed `k × m`,
    /// `n × k`): the same `op(A)`, `op(B)` values, so the same reference.
    fn new_op(ctx: &Context, m: usize, n: usize, k: usize, (ta, tb): (bool, bool)) -> Result<(Problem, Buffer<f32>)> {
        let shape = GemmShape { m, n, k, lda: k, ldb: n, ldc: n };
        let a = random_f32(m * k, 11);
        let b = random_f32(k * n, 12);
        // Stored A: op(A) (m rows of k) or its transpose; likewise B.
        let stored_a = if ta { reference::transpose(&a, k, m) } else { a.clone() };
        let stored_b = if tb { reference::transpose(&b, n, k) } else { b.clone() };
        // Sampled rows: first, last, and spread in between.
        let mut rows: Vec<usize> = (0..SAMPLE_ROWS).map(|i| i * (m - 1) / (SAMPLE_ROWS - 1).max(1)).collect();
        rows.dedup();
        let mut want = Vec::with_capacity(rows.len() * n);
        for &i in &rows {
            let sub = GemmShape { m: 1, n, k, lda: k, ldb: n, ldc: n };
            want.extend(reference::sgemm_f64(sub, 1.0, &a[i * k..(i + 1) * k], &b, 0.0, &vec![0.0; n]));
        }
        let gemm = Gemm::new(m, n, k).transpose_a(ta).transpose_b(tb);
        let p = Problem { gemm, shape, a: ctx.upload(&stored_a)?, b: ctx.upload(&stored_b)?, rows, want };
        Ok((p, ctx.alloc(m * n)?))
    }

    fn gflops(&self, t: Duration) -> f64 {
        2.0 * self.shape.m as f64 * self.shape.n as f64 * self.shape.k as f64 / t.as_secs_f64() / 1e9
    }

    /// Runs `f` once on a NaN-poisoned C and checks the sampled rows, then
    /// times it.
    fn measure(&self, ctx: &Context, c: &mut Buffer<f32>, mut f: impl FnMut(&mut Buffer<f32>) -> Result<()>) -> Result<(Duration, String)> {
        c.fill(f32::NAN)?;
        let check = match f(c).and_then(|()| c.download()) {
            Ok(got) => {
                let n = self.shape.n;
                let sampled: Vec<f32> = self.rows.iter().flat_map(|&i| got[i * n..(i + 1) * n].to_vec()).collect();
                let e = reference::rel_norm_error(&sampled, &self.want);
                if e <= TOL { "ok".to_string() } else { format!("FAIL (error {e:.2e})") }
            }
            Err(e) => return Ok((Duration::from_secs(3600), format!("FAIL ({e})"))),
        };
        Ok((time_adaptive(ctx, || f(c))?, check))
    }
}

/// The median time of `f` over repetitions that add up to about
/// [`TARGET`] (at least 3), after two warm-up calls unless one call
/// already takes longer than that.
fn time_adaptive(ctx: &Context, mut f: impl FnMut() -> Result<()>) -> Result<Duration> {
    let once = ctx.time(0, 1, &mut f)?;
    let reps = ((TARGET.as_secs_f64() / once.as_secs_f64().max(1e-6)) as usize).clamp(3, 200);
    let warmup = if once > TARGET { 0 } else { 2 };
    ctx.time(warmup, reps, f)
}


fn rust_path(v: GemmVariant) -> String {
    match v {
        GemmVariant::Warptile(c) => format!("GemmVariant::Warptile(WarpConfig::{c:?})"),
        GemmVariant::Multistage(c) => format!("GemmVariant::Multistage(StageConfig::{c:?})"),
        v => format!("GemmVariant::{v:?}"),
    }
}

/// Times every float4 rung and warptile configuration at the autotune
/// shapes; prints each measurement and the `AUTO_TABLE` for
/// `host/src/gemm.rs`.
fn autotune(ctx: &Context, cublas: Option<&Cublas>) -> Result<()> {
    let shapes = [
        (128, 128, 128),
        (512, 512, 512),
        (1024, 1024, 1024),
        (2048, 2048, 2048),
        (4096, 4096, 4096),
        (8192, 8192, 8192),
        (4096, 1024, 8192),
        (1000, 1000, 1000),
        (256, 4096, 4096),
        (4096, 256, 4096),
        // Medium shapes whose blocks fit in about one wave: between them
        // the block count decides (a grid, not the benchmark's shapes).
        (768, 768, 768),
        (1280, 1280, 1280),
        (1408, 1408, 1408),
        (1664, 1664, 1664),
        (1792, 1792, 1792),
        (2560, 2560, 2560),
        (1280, 1280, 4096),
        (2560, 640, 1280),
        (640, 2560, 1280),
    ];
    let candidates: Vec<GemmVariant> = GemmVariant::all().into_iter().filter(|&v| v.needs_float4() && selected(v)).collect();
    println!("\n| m×n×k | kernel | time ms | GFLOP/s | % of cuBLAS | check |");
    println!("| --- | --- | ---: | ---: | ---: | --- |");
    let mut table = Vec::new();
    for (m, n, k) in shapes {
        let (p, mut c) = Problem::new(ctx, m, n, k)?;
        let ceiling = match cublas {
            Some(cb) => Some(p.measure(ctx, &mut c, |c| cb.sgemm(ctx, &p.gemm, &p.a, &p.b, c))?.0),
            None => None,
        };
        let mut best: Option<(Duration, GemmVariant)> = None;
        for &v in &candidates {
            let g = Gemm::new(m, n, k).variant(v);
            let (t, check) = p.measure(ctx, &mut c, |c| g.run(ctx, &p.a, &p.b, c))?;
            let pct = ceiling.map_or("—".into(), |c| format!("{:.1}", 100.0 * c.as_secs_f64() / t.as_secs_f64()));
            println!("| {m}×{n}×{k} | {} | {:.3} | {:.0} | {pct} | {check} |", v.name(), ms(t), p.gflops(t));
            if check == "ok" && best.is_none_or(|(bt, _)| t < bt) {
                best = Some((t, v));
            }
        }
        if let Some((_, v)) = best {
            table.push((m, n, k, v));
        }
    }
    println!("\n// Paste into host/src/gemm.rs (measured by FERROTILE_AUTOTUNE=1 cargo bench --bench sgemm):");
    println!("pub const AUTO_TABLE: &[AutoEntry] = &[");
    for (m, n, k, v) in table {
        println!("    AutoEntry {{ m: {m}, n: {n}, k: {k}, variant: {} }},", rust_path(v));
    }
    println!("];");
    Ok(())
}
