//! The tensor-core GEMM table: ferrotile's `mma.sync` kernels (and on a
//! Hopper GPU its `wgmma` kernels) against
//! cuBLAS (`cublasGemmEx` / `cublasGemmStridedBatchedEx`, same types,
//! same compute type) measured in the same run.
//!
//! `cargo bench --bench gemm_tc` (CUDA). Every configuration runs once and
//! is checked against an f64 reference on sampled rows (FAIL if the
//! relative norm error is over the type's tolerance), then is timed with
//! CUDA events (median, ~0.3 s per configuration). Rows:
//!
//! * square and LLM-like shapes for bf16 → bf16, bf16 → f32, f16 → f16 and
//!   tf32, every tile and Auto, and cuBLAS; tf32 also with `B` stored
//!   transposed (on Hopper: staged rounded, not transposed) and at an odd
//!   shape;
//! * the same shape class off the aligned path (every dimension odd and
//!   prime) against our own nearest aligned shape;
//! * strided-batched (attention-like) shapes;
//! * decode shapes (m ≤ 64): memory-bound, against a device copy of the
//!   weights in the same run (HBM bandwidth), with `B` row-major and two
//!   of them with `B` stored `n × k` (labelled `(Bᵀ)`);
//! * the fused bias + GELU epilogue against the plain kernel and against
//!   cuBLAS followed by a separate bias + GELU pass.
//!
//! Lines starting with `JSON ` are the same results, one object each.
//! Environment: `FERROTILE_BENCH_QUICK=1` (4096³ bf16 only),
//! `FERROTILE_BENCH_ONLY=word,…` (rows whose label contains a word),
//! `FERROTILE_BENCH_WARMUP_MS=150` (that long of calls before each timing,
//! instead of two: the GPU's sustained clocks, every kernel 12–19 % slower
//! on the H200, cuBLAS alike),
//! `FERROTILE_BENCH_BACK_TO_BACK=1` (also cuBLAS and Auto with ten calls
//! per timing, issued back to back: the GPU time without the host's
//! per-call work), `FERROTILE_BENCH_DECODE_SPLITS=4,8,…` (decode also on
//! the wgmma tiles with `k` forced into that many parts, `Gemm::split_k`;
//! `FERROTILE_BENCH_DECODE_SPLITS_ONLY=1`: only those rows),
//! `FERROTILE_BENCH_DECODE_UNCACHED=1` (decode also with the tensor maps
//! uploaded on every call, as before a context handle kept them),
//! `FERROTILE_BENCH_WHOLE_TILES=1` (on Hopper Auto timed in turn with
//! the same call with every tile whole, `Gemm::split_k(1)`: without the
//! split of a last, partial round of tiles), `FERROTILE_BENCH_SHAPES=
//! MxNxK,…` (first: bf16 → bf16 at those shapes, each wgmma tile forced
//! with every tile whole, plain and with the fused bias + GELU),
//! `FERROTILE_BENCH_TILES=MxNxK,…` (first: bf16 → bf16 at those shapes,
//! `Auto` and each wgmma tile forced, plain and fused: `Auto`'s choice
//! against the others; in both lists a shape may be `BATCHxMxNxK`, a
//! strided batch of packed products, and end in `t`: `B` stored `n × k`;
//! `FERROTILE_BENCH_TILES_TYPES=bf16,bf16-f32,f16`: the type pairs of
//! both, bf16 → bf16 by default), `FERROTILE_BENCH_PROFILE=MxNxK` (only bf16 → bf16 `Auto` at that
//! shape, three calls each plain, with the bias and with the bias + GELU,
//! in that order: launches for a profiler to pick by index).

use std::time::Duration;

use ferrotile::cublas::Cublas;
use ferrotile::gemm::{bias_activation, Activation, Gemm, GemmElement, GemmVariant, MmaTile, WgmmaTile};
use ferrotile::kernels::numeric::tf32_rna;
use ferrotile::testing::Rng;
use ferrotile::{Buffer, Context, Result};
use half::{bf16, f16};

#[path = "common/results.rs"]
mod results;

const TARGET: Duration = Duration::from_millis(300);
/// Rows of C checked against the f64 reference.
const SAMPLE_ROWS: usize = 8;

trait Ty: GemmElement {
    fn from_f32(x: f32) -> Self;
    fn to_f64(self) -> f64;
    fn tol() -> f64;
}
impl Ty for f32 {
    fn from_f32(x: f32) -> f32 {
        x
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn tol() -> f64 {
        1e-4
    }
}
impl Ty for bf16 {
    fn from_f32(x: f32) -> bf16 {
        bf16::from_f32(x)
    }
    fn to_f64(self) -> f64 {
        bf16::to_f64(self)
    }
    fn tol() -> f64 {
        5e-3
    }
}
impl Ty for f16 {
    fn from_f32(x: f32) -> f16 {
        f16::from_f32(x)
    }
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
    fn tol() -> f64 {
        1e-3
    }
}

fn main() {
    let ctx = match Context::cuda(0) {
        Ok(c) => c,
        Err(e) => {
            println!("gemm_tc bench: no CUDA device ({e}); nothing to measure.");
            return;
        }
    };
    if let Err(e) = run(&ctx) {
        println!("gemm_tc bench: error: {e}");
        std::process::exit(1);
    }
}

fn selected(label: &str) -> bool {
    match std::env::var("FERROTILE_BENCH_ONLY") {
        Ok(words) => words.split(',').any(|w| !w.trim().is_empty() && label.contains(w.trim())),
        Err(_) => true,
    }
}

/// Median time of `f`, repetitions adapted to about [`TARGET`], after
/// about [`warmup`] of calls.
fn time(ctx: &Context, mut f: impl FnMut() -> Result<()>) -> Result<Duration> {
    let one = ctx.time(1, 1, &mut f)?.as_secs_f64().max(1e-6);
    let iters = ((TARGET.as_secs_f64() / one) as usize).clamp(3, 200);
    let warm = ((warmup().as_secs_f64() / one).ceil() as usize).clamp(2, 5000);
    ctx.time(warm, iters, f)
}

/// The calls before each timing, in GPU time: `FERROTILE_BENCH_WARMUP_MS`
/// (by default 0: two calls).
fn warmup() -> Duration {
    Duration::from_millis(std::env::var("FERROTILE_BENCH_WARMUP_MS").ok().and_then(|v| v.parse().ok()).unwrap_or(0))
}

/// The operands of one problem on the device, and the host copies the
/// reference needs.
struct Operands<I: Ty, O: Ty> {
    a: Vec<I>,
    b: Vec<I>,
    da: Buffer<I>,
    db: Buffer<I>,
    dc: Buffer<O>,
    bias: Buffer<f32>,
    bias_host: Vec<f32>,
}

#[allow(clippy::too_many_arguments)]
fn operands<I: Ty, O: Ty>(ctx: &Context, g: &Gemm, n: usize, seed: u64) -> Result<Operands<I, O>> {
    let [la, lb, lc] = g.required_lens()?;
    let mut r = Rng::new(seed);
    let a: Vec<I> = r.f32s(la).into_iter().map(I::from_f32).collect();
    let b: Vec<I> = r.f32s(lb).into_iter().map(I::from_f32).collect();
    let bias_host = r.f32s(n);
    Ok(Operands {
        da: ctx.upload(&a)?,
        db: ctx.upload(&b)?,
        dc: ctx.alloc::<O>(lc)?,
        bias: ctx.upload(&bias_host)?,
        a,
        b,
        bias_host,
    })
}

/// `src` (`rows × cols`, packed) with rows `ld` apart (zeros between).
fn padded<T: Copy + Default>(src: &[T], rows: usize, cols: usize, ld: usize) -> Vec<T> {
    let mut v = vec![T::default(); rows * ld];
    for r in 0..rows {
        v[r * ld..r * ld + cols].copy_from_slice(&src[r * cols..(r + 1) * cols]);
    }
    v
}

/// The relative norm error of sampled rows of `c` (matrix 0 of the batch,
/// packed, row-major operands) against the f64 reference: up to
/// [`SAMPLE_ROWS`] distinct rows spread over `m`, each row's reference
/// accumulated over `k` in order (with `B` row-major a row of `B` at a time,
/// so that the reference reads `B` in order: read a column at a time it
/// took seconds per call at decode shapes, where every sample is the one
/// row).
fn sampled_error<I: Ty, O: Ty>(o: &Operands<I, O>, (m, n, k): (usize, usize, usize), tb: bool, tf32: bool, act: Option<Activation>) -> Result<f64> {
    let c = o.dc.download()?;
    let val = |x: I| if tf32 { f32::from_bits(tf32_rna(x.to_f64() as f32)) as f64 } else { x.to_f64() };
    let samples = SAMPLE_ROWS.min(m);
    let (mut num, mut den) = (0f64, 0f64);
    let mut acc = vec![0f64; n];
    for s in 0..samples {
        let i = s * (m - 1) / (samples - 1).max(1);
        if tb {
            for (j, x) in acc.iter_mut().enumerate() {
                *x = (0..k).map(|p| val(o.a[i * k + p]) * val(o.b[j * k + p])).sum();
            }
        } else {
            acc.fill(0.0);
            for p in 0..k {
                let x = val(o.a[i * k + p]);
                for (y, &b) in acc.iter_mut().zip(&o.b[p * n..(p + 1) * n]) {
                    *y += x * val(b);
                }
            }
        }
        for (j, &sum) in acc.iter().enumerate() {
            let want = match act {
                Some(a) => a.apply_f64(sum + o.bias_host[j] as f64),
                None => sum,
            };
            num += (c[i * n + j].to_f64() - want).powi(2);
            den += want * want;
        }
    }
    Ok((num / den.max(1e-300)).sqrt())
}

/// One printed and JSON row.
#[allow(clippy::too_many_arguments)]
fn row(dtype: &str, shape: &str, kernel: &str, t: Duration, flops: f64, ceiling: Option<Duration>, err: Option<f64>, tol: f64) {
    let tflops = flops / t.as_secs_f64() / 1e12;
    let ratio = ceiling.map(|c| 100.0 * c.as_secs_f64() / t.as_secs_f64());
    let check = match err {
        Some(e) if e <= tol => format!("{e:.1e}"),
        Some(e) => format!("FAIL {e:.1e}"),
        None => "-".into(),
    };
    println!(
        "| {dtype} | {shape} | {kernel} | {:.3} | {tflops:.1} | {} | {check} |",
        t.as_secs_f64() * 1e3,
        ratio.map_or("-".into(), |r| format!("{r:.1}"))
    );
    println!(
        "JSON {{\"bench\":\"gemm_tc\",\"dtype\":\"{dtype}\",\"shape\":\"{shape}\",\"kernel\":\"{kernel}\",\"ms\":{:.5},\"tflops\":{tflops:.2},\"pct_of_ceiling\":{},\"rel_err\":{}}}",
        t.as_secs_f64() * 1e3,
        ratio.map_or("null".into(), |r| format!("{r:.2}")),
        err.map_or("null".into(), |e| format!("{e:.3e}"))
    );
    let rung = if kernel == "cuBLAS" { "ceiling" } else { "" };
    let ceiling = ceiling.map(|c| (results::gemm_tc_ceiling(kernel), c));
    let work = results::Work::TFlops(flops);
    let verdict = match err {
        Some(e) if e <= tol => "ok".to_string(),
        Some(_) => check,
        None => "unchecked".into(),
    };
    let m = results::Measured { family: "gemm_tc", kernel, rung: Some(rung).filter(|r| !r.is_empty()), shape, dtype, time: t, work, ceiling, check: &verdict };
    results::record(m);
}

/// Times cuBLAS, then Auto and every tile, at one shape; returns our best time.
fn compare<I: Ty, O: Ty>(ctx: &Context, blas: Option<&Cublas>, dtype: &str, (m, n, k): (usize, usize, usize), batch: usize, tb: bool, tf32: bool) -> Result<Option<Duration>> {
    let shape = if batch > 1 { format!("{batch}×{m}×{n}×{k}{}", if tb { " (Bᵀ)" } else { "" }) } else { format!("{m}×{n}×{k}") };
    if !selected(&format!("{dtype} {shape}")) {
        return Ok(None);
    }
    let g = Gemm::new(m, n, k).batch(batch).transpose_b(tb).tf32(tf32);
    let mut o = operands::<I, O>(ctx, &g, n, (m * 31 + n * 7 + k) as u64)?;
    let flops = 2.0 * (m * n * k * batch) as f64;
    let ceiling = match blas {
        Some(h) => {
            h.gemm(ctx, &g, &o.da, &o.db, &mut o.dc)?;
            let e = sampled_error(&o, (m, n, k), tb, tf32, None)?;
            let t = time(ctx, || h.gemm(ctx, &g, &o.da, &o.db, &mut o.dc))?;
            row(dtype, &shape, "cuBLAS", t, flops, Some(t), Some(e), O::tol().max(I::tol()));
            Some(t)
        }
        None => None,
    };
    let mut best: Option<Duration> = None;
    let mut variants = vec![("auto".to_string(), g)];
    // On Hopper, of the mma.sync tiles only the default one (the others are
    // measured on every GPU without the wgmma engine).
    let mma_tiles = if hopper(ctx) { &MmaTile::ALL[..1] } else { MmaTile::ALL };
    variants.extend(mma_tiles.iter().map(|t| (t.name().to_string(), g.variant(GemmVariant::Mma(*t)))));
    if hopper(ctx) {
        variants.extend(WgmmaTile::ALL.iter().map(|t| (t.name().to_string(), g.variant(GemmVariant::Wgmma(*t)))));
    }
    for (name, gv) in variants {
        if gv.resolved_variant_on::<I, O>(ctx).is_err() {
            continue;
        }
        let label = if name == "auto" { format!("auto ({})", gv.resolved_variant_on::<I, O>(ctx)?.name()) } else { name };
        gv.run(ctx, &o.da, &o.db, &mut o.dc)?;
        let e = sampled_error(&o, (m, n, k), tb, tf32, None)?;
        let t = time(ctx, || gv.run(ctx, &o.da, &o.db, &mut o.dc))?;
        best = Some(best.map_or(t, |b: Duration| b.min(t)));
        row(dtype, &shape, &label, t, flops, ceiling, Some(e), O::tol().max(I::tol()));
    }
    if hopper(ctx) && whole_tiles() {
        let whole = g.split_k(1);
        in_turn(ctx, dtype, &shape, flops, |w| (if w { &whole } else { &g }).run(ctx, &o.da, &o.db, &mut o.dc))?;
    }
    // Calls issued back to back (the host enqueues the next while the GPU
    // runs the last), against cuBLAS timed the same way: the per-call host
    // work (argument checks, tensor maps, launch) drops out of the time.
    if let (Some(h), true) = (blas, std::env::var("FERROTILE_BENCH_BACK_TO_BACK").is_ok_and(|v| v == "1")) {
        let per = |d: Duration| d / BACK_TO_BACK as u32;
        let tb = per(time(ctx, || (0..BACK_TO_BACK).try_for_each(|_| h.gemm(ctx, &g, &o.da, &o.db, &mut o.dc)))?);
        row(dtype, &shape, &format!("cuBLAS, {BACK_TO_BACK} calls back to back"), tb, flops, Some(tb), None, O::tol());
        let ta = per(time(ctx, || (0..BACK_TO_BACK).try_for_each(|_| g.run(ctx, &o.da, &o.db, &mut o.dc)))?);
        row(dtype, &shape, &format!("auto, {BACK_TO_BACK} calls back to back"), ta, flops, Some(tb), None, O::tol());
        if hopper(ctx) {
            // Programmatic dependent launch (Auto's) against the plain
            // launch, timed in turn (% of cuBLAS back to back).
            let (early, plainly) = (g.programmatic_launch(true), g.programmatic_launch(false));
            let (mut plain, mut pdl) = alternate(ctx, |w| (0..BACK_TO_BACK).try_for_each(|_| (if w { &early } else { &plainly }).run(ctx, &o.da, &o.db, &mut o.dc)))?;
            row(dtype, &shape, &format!("auto, plain launch, {BACK_TO_BACK} back to back, median of {ALTERNATIONS} in turn"), per(median(&mut plain)), flops, Some(tb), None, O::tol());
            row(dtype, &shape, &format!("auto, programmatic launch, {BACK_TO_BACK} back to back, median of {ALTERNATIONS} in turn"), per(median(&mut pdl)), flops, Some(tb), None, O::tol());
        }
    }
    Ok(best)
}

/// Calls per timing in the back-to-back rows (`FERROTILE_BENCH_BACK_TO_BACK=1`).
const BACK_TO_BACK: usize = 10;

/// Copies of `A` the decode rows with uncached maps take in turn
/// (`FERROTILE_BENCH_DECODE_UNCACHED=1`): more than the maps a context
/// handle keeps uploaded (8).
const UNCACHED_COPIES: usize = 9;

/// Whether the context's GPU runs the sm_90a (wgmma) kernels.
fn hopper(ctx: &Context) -> bool {
    ctx.device_info().is_some_and(|d| d.compute_capability == (9, 0))
}

/// A decode shape (small `m`): memory-bound, so against HBM bandwidth —
/// the bytes of B (the weights) read once, against a device-to-device
/// copy of the same bytes in the same run (which reads and writes them).
/// `tb`: `B` stored `n × k` (a linear layer's weights as PyTorch keeps
/// them), the shape labelled `(Bᵀ)`.
fn decode(ctx: &Context, blas: Option<&Cublas>, (m, n, k): (usize, usize, usize), tb: bool) -> Result<()> {
    let shape = format!("{m}×{n}×{k}{}", if tb { " (Bᵀ)" } else { "" });
    if !selected(&format!("bf16→bf16 {shape} decode")) {
        return Ok(());
    }
    let g = Gemm::new(m, n, k).transpose_b(tb);
    let mut o = operands::<bf16, bf16>(ctx, &g, n, 11)?;
    let mut scratch = ctx.alloc::<bf16>(k * n)?;
    let copy = time(ctx, || scratch.copy_from_buffer(&o.db))?;
    let uncached = std::env::var("FERROTILE_BENCH_DECODE_UNCACHED").is_ok_and(|v| v == "1");
    let copies = if uncached { (0..UNCACHED_COPIES).map(|_| ctx.upload(&o.a)).collect::<Result<Vec<_>>>()? } else { Vec::new() };
    let bytes = (2 * (m * k + k * n + m * n)) as f64;
    let hbm = 2.0 * (2 * k * n) as f64 / copy.as_secs_f64();
    println!("| bf16→bf16 | {shape} (decode) | device copy of B: {:.0} GB/s (ceiling) | {:.3} | - | 100.0 | - |", hbm / 1e9, copy.as_secs_f64() * 1e3);
    let mut rows = vec![("auto".to_string(), g)];
    if hopper(ctx) {
        rows.extend(WgmmaTile::ALL.iter().map(|t| (t.name().to_string(), g.variant(GemmVariant::Wgmma(*t)))));
    }
    rows.extend(MmaTile::ALL[..1].iter().map(|t| (t.name().to_string(), g.variant(GemmVariant::Mma(*t)))));
    // One row: `t` per product, checked with error `e`, against the copy.
    let report = |label: &str, t: Duration, e: f64| {
        let gbs = bytes / t.as_secs_f64();
        let ok = e <= bf16::tol();
        println!(
            "| bf16→bf16 | {shape} (decode) | {label}: {:.0} GB/s | {:.3} | {:.1} | {:.1} | {} |",
            gbs / 1e9,
            t.as_secs_f64() * 1e3,
            2.0 * (m * n * k) as f64 / t.as_secs_f64() / 1e12,
            100.0 * gbs / hbm,
            if ok { format!("{e:.1e}") } else { format!("FAIL {e:.1e}") }
        );
        // The record: the same bytes at the copy's bandwidth are its ceiling.
        let check = if ok { "ok".to_string() } else { format!("FAIL {e:.1e}") };
        let ceiling = Duration::from_secs_f64(bytes / hbm);
        results::record(results::Measured {
            family: "gemm_tc_decode",
            kernel: label,
            rung: None,
            shape: &shape,
            dtype: "bf16→bf16",
            time: t,
            work: results::Work::Bytes(bytes),
            ceiling: Some(("device copy of B (HBM bandwidth)", ceiling)),
            check: &check,
        });
    };
    // `calls`: how many products one call of `f` runs (the time is per product).
    let mut measure = |label: String, calls: usize, f: &mut dyn FnMut(&mut Operands<bf16, bf16>) -> Result<()>| -> Result<()> {
        f(&mut o)?;
        let e = sampled_error(&o, (m, n, k), tb, false, None)?;
        let t = time(ctx, || f(&mut o))? / calls as u32;
        report(&label, t, e);
        Ok(())
    };
    // `FERROTILE_BENCH_DECODE_SPLITS_ONLY=1`: only the forced splits (a
    // profiler's first launches are then theirs).
    let splits_only = std::env::var("FERROTILE_BENCH_DECODE_SPLITS_ONLY").is_ok_and(|v| v == "1");
    if splits_only {
        rows.clear();
    }
    if let Some(h) = blas.filter(|_| !splits_only) {
        measure("cuBLAS".into(), 1, &mut |o| h.gemm(ctx, &g, &o.da, &o.db, &mut o.dc))?;
    }
    for (name, gv) in rows {
        if gv.resolved_variant_on::<bf16, bf16>(ctx).is_err() {
            continue;
        }
        let label = if name == "auto" { format!("auto ({})", gv.resolved_variant_on::<bf16, bf16>(ctx)?.name()) } else { name };
        measure(label, 1, &mut |o| gv.run(ctx, &o.da, &o.db, &mut o.dc))?;
    }
    let b2b = std::env::var("FERROTILE_BENCH_BACK_TO_BACK").is_ok_and(|v| v == "1");
    // `FERROTILE_BENCH_DECODE_SPLITS=2,4,…`: the wgmma tiles with `k` forced
    // into that many parts ([`Gemm::split_k`]), one call and (with
    // back-to-back rows on) ten.
    let splits: Vec<usize> = std::env::var("FERROTILE_BENCH_DECODE_SPLITS").map_or(Vec::new(), |v| v.split(',').filter_map(|w| w.trim().parse().ok()).collect());
    if hopper(ctx) {
        for &s in &splits {
            for t in [WgmmaTile::S16x128, WgmmaTile::S64x128, WgmmaTile::B128x128, WgmmaTile::B128x256] {
                let gv = g.variant(GemmVariant::Wgmma(t)).split_k(s);
                measure(format!("{} split {s}", t.name()), 1, &mut |o| gv.run(ctx, &o.da, &o.db, &mut o.dc))?;
                if b2b {
                    measure(format!("{} split {s}, {BACK_TO_BACK} back to back", t.name()), BACK_TO_BACK, &mut |o| {
                        (0..BACK_TO_BACK).try_for_each(|_| gv.run(ctx, &o.da, &o.db, &mut o.dc))
                    })?;
                }
            }
        }
    }
    // `FERROTILE_BENCH_DECODE_UNCACHED=1`: Auto also on copies of `A` taken
    // in turn, more than a context handle keeps uploaded maps for, so that
    // every call uploads its tensor maps (as every call did before the
    // handle kept them): the upload's share of a call, in the same run.
    if !copies.is_empty() && !splits_only {
        let mut turn = 0usize;
        let mut next = |o: &mut Operands<bf16, bf16>| {
            turn += 1;
            g.run(ctx, &copies[turn % UNCACHED_COPIES], &o.db, &mut o.dc)
        };
        measure(format!("auto, maps uploaded every call ({UNCACHED_COPIES} copies of A in turn)"), 1, &mut next)?;
        if b2b {
            measure(format!("auto, maps uploaded every call, {BACK_TO_BACK} back to back"), BACK_TO_BACK, &mut |o| (0..BACK_TO_BACK).try_for_each(|_| next(o)))?;
        }
    }
    // Calls issued back to back, as in `ladder`: the per-call host work
    // (tensor maps, launches) overlaps the GPU's work.
    if b2b && !splits_only {
        if let Some(h) = blas {
            measure(format!("cuBLAS, {BACK_TO_BACK} calls back to back"), BACK_TO_BACK, &mut |o| {
                (0..BACK_TO_BACK).try_for_each(|_| h.gemm(ctx, &g, &o.da, &o.db, &mut o.dc))
            })?;
        }
        measure(format!("auto, {BACK_TO_BACK} calls back to back"), BACK_TO_BACK, &mut |o| {
            (0..BACK_TO_BACK).try_for_each(|_| g.run(ctx, &o.da, &o.db, &mut o.dc))
        })?;
        if hopper(ctx) {
            // Programmatic dependent launch (Auto's) against the plain
            // launch, the same ten calls timed in turn.
            let (early, plainly) = (g.programmatic_launch(true), g.programmatic_launch(false));
            measure(format!("auto, plain launch, {BACK_TO_BACK} calls back to back"), BACK_TO_BACK, &mut |o| {
                (0..BACK_TO_BACK).try_for_each(|_| plainly.run(ctx, &o.da, &o.db, &mut o.dc))
            })?;
            let e = sampled_error(&o, (m, n, k), tb, false, None)?;
            let (mut plain, mut pdl) = alternate(ctx, |w| (0..BACK_TO_BACK).try_for_each(|_| (if w { &early } else { &plainly }).run(ctx, &o.da, &o.db, &mut o.dc)))?;
            report(&format!("auto, plain launch, {BACK_TO_BACK} back to back, median of {ALTERNATIONS} in turn"), median(&mut plain) / BACK_TO_BACK as u32, e);
            report(&format!("auto, programmatic launch, {BACK_TO_BACK} back to back, median of {ALTERNATIONS} in turn"), median(&mut pdl) / BACK_TO_BACK as u32, e);
        }
    }
    // The host's share of a call: how long `run` takes to return (the
    // launch enqueued, not run), median of 100 calls issued without waiting,
    // against cuBLAS's.
    if !splits_only {
        let ours = host_time(ctx, &mut || g.run(ctx, &o.da, &o.db, &mut o.dc))?;
        let theirs = match blas {
            Some(h) => format!("{:.1} µs", host_time(ctx, &mut || h.gemm(ctx, &g, &o.da, &o.db, &mut o.dc))?.as_secs_f64() * 1e6),
            None => "-".into(),
        };
        println!("(host time of one call, median of 100 issued without waiting: auto {:.1} µs, cuBLAS {theirs})", ours.as_secs_f64() * 1e6);
        // Where the call's host time goes: the checks and `Auto`'s choice
        // alone (no launch), and the smallest launch through the library
        // (a one-element vector add: the launch path and the driver's
        // launch call).
        let choice = host_time(ctx, &mut || g.resolved_variant_on::<bf16, bf16>(ctx).map(|_| ()))?;
        let (x, y) = (ctx.upload(&[1.0f32])?, ctx.upload(&[2.0f32])?);
        let mut z = ctx.alloc::<f32>(1)?;
        let smallest = host_time(ctx, &mut || ferrotile::vec_add(ctx, &x, &y, &mut z))?;
        println!(
            "(host time, same medians: checks and Auto's choice {:.2} µs; a one-element vec_add launch {:.1} µs)",
            choice.as_secs_f64() * 1e6,
            smallest.as_secs_f64() * 1e6
        );
    }
    Ok(())
}

/// How long `f` takes to return (its launches enqueued, not run): the
/// median of 100 calls issued without waiting.
fn host_time(ctx: &Context, f: &mut dyn FnMut() -> Result<()>) -> Result<Duration> {
    let mut t = Vec::with_capacity(100);
    for _ in 0..100 {
        let t0 = std::time::Instant::now();
        f()?;
        t.push(t0.elapsed());
    }
    ctx.synchronize()?;
    Ok(median(&mut t))
}

/// The row-pitch sweep (`FERROTILE_BENCH_PITCH=1`): 4096³ with `A`, `B`
/// and `C` rows `ld` elements apart, and 4093×4099×4091 on operands padded
/// to `lda = 4096`, `ldb = ldc = ld` (then the same operands as a product
/// over their whole padded rows), each against the packed 4096³ call
/// timed in turn ([`alternate`]); % = the packed call's median over this
/// one's (flops scaled for the shape).
fn pitches(ctx: &Context) -> Result<()> {
    let n = 4096;
    let base_g = Gemm::new(n, n, n);
    let mut base = operands::<bf16, bf16>(ctx, &base_g, n, 21)?;
    for (m, nn, k, lds) in [(4096usize, 4096usize, 4096usize, &[4096usize, 4160, 4224, 4352, 4608, 5120][..]), (4093, 4099, 4091, &[4160, 4224, 4352, 4608, 5120][..])] {
        let o = operands::<bf16, bf16>(ctx, &Gemm::new(m, nn, k), nn, 22)?;
        for &ld in lds {
            let lda = if m == 4096 { ld } else { 4096 };
            let da = ctx.upload(&padded(&o.a, m, k, lda))?;
            let db = ctx.upload(&padded(&o.b, k, nn, ld))?;
            let mut dc = ctx.alloc::<bf16>(m * ld)?;
            // The product `(m, cols, depth)` on these operands, in turn with
            // the packed call: one row.
            let mut vs_packed = |(cols, depth): (usize, usize), label: &str| -> Result<()> {
                let gp = Gemm::new(m, cols, depth).lda(lda).ldb(ld).ldc(ld);
                in_turn_with_packed(ctx, (&base_g, &mut base), &gp, (&da, &db, &mut dc), label, "packed 4096³")
            };
            vs_packed((nn, k), &format!("pitch: lda {lda}, ldb = ldc {ld} ({} B)", 2 * ld))?;
            if m != 4096 {
                // The same operands as a product over their padded extent
                // (`n` = `ldb`, `k` = `lda`: the padding is zeros, so `C`'s
                // first `nn` columns are the same): no TMA box of `A` or `B`
                // reaches past the end of a row, only past the last row.
                vs_packed((ld, lda), "the same operands over their padded rows (n = ldb, k = lda)")?;
            }
        }
    }
    Ok(())
}

/// Where the odd shape's time goes, one factor at a time
/// (`FERROTILE_BENCH_ODD_FACTORS=1`): products of Auto's `128 × 256` tile
/// (and two of the `128 × 128` tile) on the same padded operands (`A` 4096 × 4096, `B` 4096 × 4224, `C`
/// rows of 4224, zeros outside the odd 4093×4099×4091 values), each timed
/// in turn with the packed 4096³ call of the same tile ([`alternate`]):
/// every dimension odd (`C`'s rows not whole 16-byte pieces: no TMA
/// stores), then `n` a multiple of 8 (`C` through TMA stores, the same 17
/// tile columns), then `k` whole too (no
/// box past the end of `A`'s rows), `m` whole too (no box past the last
/// row), and `n` 4096 with only `m` odd. % = the packed call's median over
/// this one's, flops scaled.
fn odd_factors(ctx: &Context) -> Result<()> {
    let n = 4096;
    let tile = GemmVariant::Wgmma(WgmmaTile::B128x256);
    let base_g = Gemm::new(n, n, n).variant(tile);
    let mut base = operands::<bf16, bf16>(ctx, &base_g, n, 21)?;
    let (m0, n0, k0, ld) = (4093, 4099, 4091, 4224);
    let o = operands::<bf16, bf16>(ctx, &Gemm::new(m0, n0, k0), n0, 22)?;
    let mut a = padded(&o.a, m0, k0, n);
    a.resize(n * n, bf16::ZERO);
    let mut b = padded(&o.b, k0, n0, ld);
    b.resize(n * ld, bf16::ZERO);
    let (da, db) = (ctx.upload(&a)?, ctx.upload(&b)?);
    let mut dc = ctx.alloc::<bf16>(n * ld)?;
    let narrow = GemmVariant::Wgmma(WgmmaTile::B128x128);
    let cases = [
        ((m0, n0, k0), tile, "every dimension odd: C's rows not whole 16-byte pieces"),
        ((m0, 4104, k0), tile, "n a multiple of 8: C through TMA stores"),
        ((m0, 4104, n), tile, "k whole too"),
        ((n, 4104, n), tile, "m whole too: only n past 16 tile columns"),
        ((m0, n, n), tile, "only m odd"),
        ((m0, n0, k0), narrow, "every dimension odd, 128 × 128 tiles"),
        ((m0, 4104, k0), narrow, "n a multiple of 8, 128 × 128 tiles"),
    ];
    for ((m, cols, depth), variant, label) in cases {
        let gp = Gemm::new(m, cols, depth).lda(n).ldb(ld).ldc(ld).variant(variant);
        in_turn_with_packed(ctx, (&base_g, &mut base), &gp, (&da, &db, &mut dc), &format!("odd factors: {label}"), "packed 4096³ (128 × 256)")?;
    }
    Ok(())
}

/// `gp` on `(a, b, c)` timed in turn with the packed product `base` on its
/// operands ([`alternate`]), one row: both medians and the packed call's
/// over `gp`'s, in %, `gp`'s flops scaled to the packed call's.
fn in_turn_with_packed(
    ctx: &Context,
    (base_g, base): (&Gemm, &mut Operands<bf16, bf16>),
    gp: &Gemm,
    (a, b, c): (&Buffer<bf16>, &Buffer<bf16>, &mut Buffer<bf16>),
    label: &str,
    base_label: &str,
) -> Result<()> {
    gp.run(ctx, a, b, c)?;
    let (mut tb, mut tp) = alternate(ctx, |w| if w { gp.run(ctx, a, b, c) } else { base_g.run(ctx, &base.da, &base.db, &mut base.dc) })?;
    let (mb, mp) = (median(&mut tb), median(&mut tp));
    let (g, bg) = (gp.params()?, base_g.params()?);
    let (m, n, k) = (g.m, g.n, g.k);
    let scale = (m as f64 * n as f64 * k as f64) / (bg.m as f64 * bg.n as f64 * bg.k as f64);
    println!(
        "| bf16→bf16 | {m}×{n}×{k} | {label} | {:.4} | {base_label} {:.4} | {:.1} | - |",
        mp.as_secs_f64() * 1e3,
        mb.as_secs_f64() * 1e3,
        100.0 * mb.as_secs_f64() * scale / mp.as_secs_f64()
    );
    Ok(())
}

/// Plain and fused calls timed in turn by [`epilogue`].
const ALTERNATIONS: usize = 7;

/// `FERROTILE_BENCH_WHOLE_TILES=1`.
fn whole_tiles() -> bool {
    std::env::var("FERROTILE_BENCH_WHOLE_TILES").is_ok_and(|v| v == "1")
}

/// `run(false)` and `run(true)` timed in turn, [`ALTERNATIONS`] times
/// each: their times, in order.
fn alternate(ctx: &Context, mut run: impl FnMut(bool) -> Result<()>) -> Result<(Vec<Duration>, Vec<Duration>)> {
    let (mut t0, mut t1) = (Vec::new(), Vec::new());
    for _ in 0..ALTERNATIONS {
        t0.push(time(ctx, || run(false))?);
        t1.push(time(ctx, || run(true))?);
    }
    Ok((t0, t1))
}

/// Auto (`run(false)`) against the same call with every tile whole
/// (`run(true)`, `Gemm::split_k(1)`), timed in turn ([`alternate`]): the
/// medians, Auto's as % of the whole tiles'.
fn in_turn(ctx: &Context, dtype: &str, shape: &str, flops: f64, run: impl FnMut(bool) -> Result<()>) -> Result<()> {
    let (mut ta, mut tw) = alternate(ctx, run)?;
    let (ma, mw) = (median(&mut ta), median(&mut tw));
    row(dtype, shape, &format!("every tile whole (split_k(1)), median of {ALTERNATIONS} in turn"), mw, flops, None, None, 0.0);
    row(dtype, shape, &format!("auto, median of {ALTERNATIONS} in turn (% of whole tiles)"), ma, flops, Some(mw), None, 0.0);
    Ok(())
}

/// The median of `t` (sorted in place).
fn median(t: &mut [Duration]) -> Duration {
    t.sort();
    t[t.len() / 2]
}

/// The fused bias + GELU epilogue of `batch` packed products (one: a plain
/// product): plain kernel, fused kernel (once, then in turn with the plain
/// one), each wgmma tile forced, cuBLAS then a separate pass.
fn epilogue<I: Ty, O: Ty>(ctx: &Context, blas: Option<&Cublas>, dtype: &str, (m, n, k): (usize, usize, usize), batch: usize) -> Result<()> {
    let shape = if batch > 1 { format!("{batch}×{m}×{n}×{k}") } else { format!("{m}×{n}×{k}") };
    if !selected(&format!("{dtype} {shape} epilogue")) {
        return Ok(());
    }
    let g = Gemm::new(m, n, k).batch(batch);
    let mut o = operands::<I, O>(ctx, &g, n, 7)?;
    let flops = 2.0 * (m * n * k * batch) as f64;
    let plain = time(ctx, || g.run(ctx, &o.da, &o.db, &mut o.dc))?;
    row(dtype, &shape, "plain (no epilogue)", plain, flops, None, None, 0.0);
    let fused = g.activation(Activation::GeluTanh);
    fused.run_with_bias(ctx, &o.da, &o.db, &o.bias, &mut o.dc)?;
    let e = sampled_error(&o, (m, n, k), false, false, Some(Activation::GeluTanh))?;
    let t = time(ctx, || fused.run_with_bias(ctx, &o.da, &o.db, &o.bias, &mut o.dc))?;
    row(dtype, &shape, "fused bias + GELU", t, flops, Some(plain), Some(e), O::tol().max(I::tol()));
    // The fused call's cost against the plain call's own spread: both timed
    // in turn, ALTERNATIONS times each, their medians compared.
    let (mut tp, mut tf) = alternate(ctx, |f| if f { fused.run_with_bias(ctx, &o.da, &o.db, &o.bias, &mut o.dc) } else { g.run(ctx, &o.da, &o.db, &mut o.dc) })?;
    let pairs: Vec<f64> = tp.iter().zip(&tf).map(|(p, f)| 100.0 * p.as_secs_f64() / f.as_secs_f64()).collect();
    let (mp, mf) = (median(&mut tp), median(&mut tf));
    row(dtype, &shape, &format!("plain, median of {ALTERNATIONS} in turn"), mp, flops, None, None, 0.0);
    row(dtype, &shape, &format!("fused bias + GELU, median of {ALTERNATIONS} in turn"), mf, flops, Some(mp), Some(e), O::tol().max(I::tol()));
    let (lo, hi) = pairs.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &r| (lo.min(r), hi.max(r)));
    println!("(fused % of the plain call timed just before it, {ALTERNATIONS} pairs: {lo:.1}–{hi:.1})");
    // `FERROTILE_BENCH_EPILOGUE_PARTS=1`: the bias alone and the bias with
    // ReLU, each in turn with the plain call, to tell what the GELU itself
    // costs (its `tanh` on the special-function pipe) from the bias's loads.
    if std::env::var("FERROTILE_BENCH_EPILOGUE_PARTS").is_ok_and(|v| v == "1") {
        for (label, act) in [("fused bias", Activation::None), ("fused bias + ReLU", Activation::Relu)] {
            let part = g.activation(act);
            part.run_with_bias(ctx, &o.da, &o.db, &o.bias, &mut o.dc)?;
            let e = sampled_error(&o, (m, n, k), false, false, Some(act))?;
            let (mut tp, mut tf) = alternate(ctx, |f| if f { part.run_with_bias(ctx, &o.da, &o.db, &o.bias, &mut o.dc) } else { g.run(ctx, &o.da, &o.db, &mut o.dc) })?;
            let (mp, mf) = (median(&mut tp), median(&mut tf));
            row(dtype, &shape, &format!("plain, median of {ALTERNATIONS} in turn with {label}"), mp, flops, None, None, 0.0);
            row(dtype, &shape, &format!("{label}, median of {ALTERNATIONS} in turn"), mf, flops, Some(mp), Some(e), O::tol().max(I::tol()));
        }
    }
    // On Hopper, each wgmma tile forced, plain and fused, against Auto's
    // plain call: the ping-pong tile runs one consumer's epilogue under
    // the other's k-loop, the swapped tile stores from its registers.
    if ctx.device_info().is_some_and(|d| d.compute_capability == (9, 0)) {
        for tile in [WgmmaTile::B128x256, WgmmaTile::B128x128, WgmmaTile::S64x128, WgmmaTile::P128x128, WgmmaTile::P128x128x2] {
            let forced = g.variant(GemmVariant::Wgmma(tile));
            if forced.resolved_variant_on::<I, O>(ctx).is_err() {
                continue;
            }
            forced.run(ctx, &o.da, &o.db, &mut o.dc)?;
            let ep = sampled_error(&o, (m, n, k), false, false, None)?;
            let tp = time(ctx, || forced.run(ctx, &o.da, &o.db, &mut o.dc))?;
            row(dtype, &shape, &format!("plain, {}", tile.name()), tp, flops, Some(plain), Some(ep), O::tol().max(I::tol()));
            let fused = forced.activation(Activation::GeluTanh);
            fused.run_with_bias(ctx, &o.da, &o.db, &o.bias, &mut o.dc)?;
            let e = sampled_error(&o, (m, n, k), false, false, Some(Activation::GeluTanh))?;
            let tf = time(ctx, || fused.run_with_bias(ctx, &o.da, &o.db, &o.bias, &mut o.dc))?;
            row(dtype, &shape, &format!("fused bias + GELU, {}", tile.name()), tf, flops, Some(plain), Some(e), O::tol().max(I::tol()));
            // The tile's own plain and fused calls in turn (% of its plain).
            let (mut tp, mut tf) =
                alternate(ctx, |f| if f { fused.run_with_bias(ctx, &o.da, &o.db, &o.bias, &mut o.dc) } else { forced.run(ctx, &o.da, &o.db, &mut o.dc) })?;
            let (mp, mf) = (median(&mut tp), median(&mut tf));
            row(dtype, &shape, &format!("plain, {}, median of {ALTERNATIONS} in turn (% of Auto's plain)", tile.name()), mp, flops, Some(plain), None, 0.0);
            row(dtype, &shape, &format!("fused bias + GELU, {}, median of {ALTERNATIONS} in turn (% of its plain)", tile.name()), mf, flops, Some(mp), Some(e), O::tol().max(I::tol()));
        }
    }
    if let Some(h) = blas {
        let t2 = time(ctx, || {
            h.gemm(ctx, &g, &o.da, &o.db, &mut o.dc)?;
            // The batch's packed matrices are one matrix of `batch · m` rows.
            bias_activation(ctx, &mut o.dc, &o.bias, Activation::GeluTanh, (m * batch, n, n))
        })?;
        let e2 = sampled_error(&o, (m, n, k), false, false, Some(Activation::GeluTanh))?;
        row(dtype, &shape, "cuBLAS + separate bias/GELU pass", t2, flops, Some(t), Some(e2), O::tol().max(I::tol()));
    }
    Ok(())
}

/// `FERROTILE_BENCH_SHAPES=MxNxK,…`: bf16 → bf16 (or `FERROTILE_BENCH_TILES_TYPES`) at each shape, cuBLAS
/// and each wgmma tile forced with every tile whole (`split_k(1)`), plain
/// and with the fused bias + GELU: how a tile's k-loop runs when a block
/// holds one, two or more of its tiles (the ping-pong tile's consumers
/// alone, in turn, or many turns), and what its epilogue adds.
fn tile_probe(ctx: &Context, blas: Option<&Cublas>) -> Result<()> {
    tile_rows(ctx, blas, "FERROTILE_BENCH_SHAPES", true)
}

/// `FERROTILE_BENCH_TILES=MxNxK,…`: bf16 → bf16 (or `FERROTILE_BENCH_TILES_TYPES`) at those shapes, `Auto`
/// (its tile named) and each wgmma tile forced — with `Auto`'s split —,
/// plain and with the fused bias + GELU, % of cuBLAS: what `Auto`'s
/// estimate chose against what it could have.
fn tile_choice(ctx: &Context, blas: Option<&Cublas>) -> Result<()> {
    tile_rows(ctx, blas, "FERROTILE_BENCH_TILES", false)
}

/// The rows of [`tile_probe`] (`whole`: every tile whole, no `Auto` row)
/// and [`tile_choice`] at the shapes listed in `$var`, for each type pair
/// of `FERROTILE_BENCH_TILES_TYPES` (`bf16`, `bf16-f32`, `f16`; default
/// `bf16`: bf16 → bf16).
fn tile_rows(ctx: &Context, blas: Option<&Cublas>, var: &str, whole: bool) -> Result<()> {
    let Ok(list) = std::env::var(var) else { return Ok(()) };
    let types = std::env::var("FERROTILE_BENCH_TILES_TYPES").unwrap_or_else(|_| "bf16".into());
    for s in list.split(',').filter(|s| !s.trim().is_empty()) {
        let Some(shape) = parse_tile_shape(s) else {
            println!("note: {var}: `{s}` is not [BATCHx]MxNxK[t]; skipped");
            continue;
        };
        for ty in types.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            match ty {
                "bf16" => tile_rows_of::<bf16, bf16>(ctx, blas, "bf16→bf16", &shape, whole)?,
                "bf16-f32" => tile_rows_of::<bf16, f32>(ctx, blas, "bf16→f32", &shape, whole)?,
                "f16" => tile_rows_of::<f16, f16>(ctx, blas, "f16→f16", &shape, whole)?,
                _ => println!("note: FERROTILE_BENCH_TILES_TYPES: `{ty}` is not bf16, bf16-f32 or f16; skipped"),
            }
        }
    }
    Ok(())
}

/// [`tile_rows`] at one shape and type pair.
fn tile_rows_of<I: Ty, O: Ty>(ctx: &Context, blas: Option<&Cublas>, dtype: &str, s: &TileShape, whole: bool) -> Result<()> {
    let &TileShape { batch, m, n, k, tb } = s;
    let shape = match batch {
        1 => format!("{m}×{n}×{k}{}", if tb { " (Bᵀ)" } else { "" }),
        _ => format!("{batch}×{m}×{n}×{k}{}", if tb { " (Bᵀ)" } else { "" }),
    };
    let g = Gemm::new(m, n, k).batch(batch).transpose_b(tb);
    let g = if whole { g.split_k(1) } else { g };
    let mut o = operands::<I, O>(ctx, &g, n, if whole { 11 } else { 13 })?;
    let flops = 2.0 * (m * n * k * batch) as f64;
    let tol = O::tol().max(I::tol());
    let ceiling = match blas {
        Some(h) => Some(time(ctx, || h.gemm(ctx, &g, &o.da, &o.db, &mut o.dc))?),
        None => None,
    };
    if let Some(t) = ceiling {
        row(dtype, &shape, "cuBLAS", t, flops, Some(t), None, 0.0);
    }
    let suffix = if whole { ", every tile whole" } else { "" };
    let auto = (!whole).then_some((None, g));
    let forced = WgmmaTile::ALL.iter().map(|t| (Some(t.name()), g.variant(GemmVariant::Wgmma(*t))));
    for (tile, gv) in auto.into_iter().chain(forced) {
        if gv.resolved_variant_on::<I, O>(ctx).is_err() {
            continue;
        }
        let fused = gv.activation(Activation::GeluTanh);
        // A forced tile by its name, `Auto` by the tile it took.
        let name = |v: &Gemm| -> Result<String> {
            Ok(match tile {
                Some(t) => t.to_string(),
                None => format!("auto ({})", v.resolved_variant_on::<I, O>(ctx)?.name()),
            })
        };
        gv.run(ctx, &o.da, &o.db, &mut o.dc)?;
        let e = sampled_error(&o, (m, n, k), tb, false, None)?;
        let t = time(ctx, || gv.run(ctx, &o.da, &o.db, &mut o.dc))?;
        row(dtype, &shape, &format!("{}{suffix}", name(&gv)?), t, flops, ceiling, Some(e), tol);
        fused.run_with_bias(ctx, &o.da, &o.db, &o.bias, &mut o.dc)?;
        let e = sampled_error(&o, (m, n, k), tb, false, Some(Activation::GeluTanh))?;
        let t = time(ctx, || fused.run_with_bias(ctx, &o.da, &o.db, &o.bias, &mut o.dc))?;
        row(dtype, &shape, &format!("{}, fused bias + GELU{suffix}", name(&fused)?), t, flops, ceiling, Some(e), tol);
    }
    Ok(())
}

/// A shape of [`tile_rows`]: `MxNxK`, `BATCHxMxNxK`, either with a
/// trailing `t` for `B` stored transposed (`n × k`).
struct TileShape {
    batch: usize,
    m: usize,
    n: usize,
    k: usize,
    tb: bool,
}

fn parse_tile_shape(s: &str) -> Option<TileShape> {
    let s = s.trim();
    let (s, tb) = match s.strip_suffix('t') {
        Some(rest) => (rest, true),
        None => (s, false),
    };
    let d: Vec<usize> = s.split(['x', '×']).map(|w| w.trim().parse().ok()).collect::<Option<_>>()?;
    match d[..] {
        [m, n, k] => Some(TileShape { batch: 1, m, n, k, tb }),
        [batch, m, n, k] => Some(TileShape { batch, m, n, k, tb }),
        _ => None,
    }
}

/// `FERROTILE_BENCH_PROFILE=MxNxK`: bf16 → bf16 `Auto`, three calls each
/// plain, with the bias and with the bias + GELU (launches 0–2, 3–5, 6–8
/// of the GEMM kernel), synchronised; nothing timed.
fn profile_calls(ctx: &Context, shape: &str) -> Result<()> {
    let Some(TileShape { batch: 1, m, n, k, tb: false }) = parse_tile_shape(shape) else {
        println!("note: FERROTILE_BENCH_PROFILE: `{shape}` is not MxNxK");
        return Ok(());
    };
    let g = Gemm::new(m, n, k);
    let mut o = operands::<bf16, bf16>(ctx, &g, n, 17)?;
    for _ in 0..3 {
        g.run(ctx, &o.da, &o.db, &mut o.dc)?;
    }
    for act in [Activation::None, Activation::GeluTanh] {
        let f = g.activation(act);
        for _ in 0..3 {
            f.run_with_bias(ctx, &o.da, &o.db, &o.bias, &mut o.dc)?;
        }
    }
    ctx.synchronize()?;
    println!("profile calls: {m}×{n}×{k} bf16→bf16, Auto: 3 plain, 3 bias, 3 bias + GELU");
    Ok(())
}

fn run(ctx: &Context) -> Result<()> {
    results::set_gpu(ctx.device_info().map(|d| d.name.as_str()));
    if let Some(d) = ctx.device_info() {
        println!("# Tensor-core GEMM — {} (sm_{}{}, {} SMs)", d.name, d.compute_capability.0, d.compute_capability.1, d.sm_count);
    }
    if let Ok(shape) = std::env::var("FERROTILE_BENCH_PROFILE") {
        return profile_calls(ctx, &shape);
    }
    let blas = match Cublas::new(ctx) {
        Ok(h) => Some(h),
        Err(e) => {
            println!("note: no cuBLAS ceiling ({e})");
            None
        }
    };
    let blas = blas.as_ref();
    println!("(% column: of cuBLAS at the same shape and types; for the odd shapes, of our own best at the aligned shape; for the fused epilogue, of the plain kernel)");
    println!("| types | shape | kernel | ms | TFLOP/s | % | rel. err |");
    println!("| --- | --- | --- | ---: | ---: | ---: | --- |");
    tile_probe(ctx, blas)?;
    tile_choice(ctx, blas)?;
    let quick = std::env::var("FERROTILE_BENCH_QUICK").is_ok_and(|v| v == "1");
    let squares: &[(usize, usize, usize)] = if quick { &[(4096, 4096, 4096)] } else { &[(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192)] };
    for &s in squares {
        compare::<bf16, bf16>(ctx, blas, "bf16→bf16", s, 1, false, false)?;
    }
    if quick {
        return Ok(());
    }
    for &s in squares {
        compare::<bf16, f32>(ctx, blas, "bf16→f32", s, 1, false, false)?;
        compare::<f16, f16>(ctx, blas, "f16→f16", s, 1, false, false)?;
        compare::<f32, f32>(ctx, blas, "tf32", s, 1, false, true)?;
    }
    // tf32 with `B` stored transposed (`n × k`, k-major: on Hopper staged
    // rounded but not transposed), and an odd shape.
    for s in [(4096, 4096, 4096), (8192, 8192, 8192)] {
        compare::<f32, f32>(ctx, blas, "tf32 Bᵀ", s, 1, true, true)?;
    }
    compare::<f32, f32>(ctx, blas, "tf32", (4093, 4099, 4091), 1, false, true)?;
    // LLM-like shapes.
    for s in [(8192, 8192, 1024), (4096, 14336, 4096), (1024, 1024, 1024)] {
        compare::<bf16, bf16>(ctx, blas, "bf16→bf16", s, 1, false, false)?;
        compare::<f16, f16>(ctx, blas, "f16→f16", s, 1, false, false)?;
    }
    // A last round of few tiles: 800 tiles of 128 × 256 on 132
    // multiprocessors are six full rounds and 8 tiles.
    compare::<bf16, bf16>(ctx, blas, "bf16→bf16", (5120, 5120, 4096), 1, false, false)?;
    // Fewer block tiles than multiprocessors: the tiles against each other
    // (split-K of short or deep `k`, the swapped tile's 64 × 128 tiles).
    for s in [(1024, 2048, 1024), (2048, 1024, 512), (512, 2048, 2048), (1024, 1024, 8192)] {
        compare::<bf16, bf16>(ctx, blas, "bf16→bf16", s, 1, false, false)?;
    }
    // Off the aligned path: every dimension odd and prime, against our own
    // best at the aligned shape next to it; then one dimension odd at a
    // time (`k` odd: `A` staged; `n` odd: `B` staged, `C` stored by the
    // threads), and rows 16- but not 128-byte aligned apart.
    let odd_shapes = [
        ((4093, 4099, 4091), (4096, 4096, 4096)),
        ((1021, 1019, 1031), (1024, 1024, 1024)),
        ((4096, 4096, 4091), (4096, 4096, 4096)),
        ((4096, 4099, 4096), (4096, 4096, 4096)),
        ((8192, 8192, 1023), (8192, 8192, 1024)),
        // Multiples of 8 whose rows are 16- but not 128-byte aligned apart:
        // `B`'s (restaged to a 128-byte pitch), then `A`'s.
        ((4096, 4104, 4096), (4096, 4096, 4096)),
        ((4096, 4096, 4104), (4096, 4096, 4096)),
        // The same `B` in smaller products: restaged from 2048 rows on
        // (`RESTAGE_B_MIN_ROWS`), read as it lies below.
        ((2048, 4104, 4096), (2048, 4096, 4096)),
        ((1024, 4104, 4096), (1024, 4096, 4096)),
    ];
    for (odd, aligned) in odd_shapes {
        let base = compare::<bf16, bf16>(ctx, None, "bf16→bf16", aligned, 1, false, false)?;
        let g = Gemm::new(odd.0, odd.1, odd.2);
        if let Some(base) = base.filter(|_| selected(&format!("bf16→bf16 {}×{}×{}", odd.0, odd.1, odd.2))) {
            let mut o = operands::<bf16, bf16>(ctx, &g, odd.1, 3)?;
            g.run(ctx, &o.da, &o.db, &mut o.dc)?;
            let e = sampled_error(&o, odd, false, false, None)?;
            let t = time(ctx, || g.run(ctx, &o.da, &o.db, &mut o.dc))?;
            // Scale the aligned time to the odd shape's flops.
            let scale = (odd.0 * odd.1 * odd.2) as f64 / (aligned.0 * aligned.1 * aligned.2) as f64;
            let ceiling = Duration::from_secs_f64(base.as_secs_f64() * scale);
            row("bf16→bf16", &format!("{}×{}×{}", odd.0, odd.1, odd.2), "auto (vs aligned)", t, 2.0 * (odd.0 * odd.1 * odd.2) as f64, Some(ceiling), Some(e), bf16::tol());
            // The host's share: the staging copies' buffers and launches
            // before the product's.
            let odd_host = host_time(ctx, &mut || g.run(ctx, &o.da, &o.db, &mut o.dc))?;
            let ga = Gemm::new(aligned.0, aligned.1, aligned.2);
            let mut oa = operands::<bf16, bf16>(ctx, &ga, aligned.1, 4)?;
            let aligned_host = host_time(ctx, &mut || ga.run(ctx, &oa.da, &oa.db, &mut oa.dc))?;
            println!(
                "(host time of one call, median of 100 issued without waiting: {}×{}×{} {:.1} µs, {}×{}×{} {:.1} µs)",
                odd.0,
                odd.1,
                odd.2,
                odd_host.as_secs_f64() * 1e6,
                aligned.0,
                aligned.1,
                aligned.2,
                aligned_host.as_secs_f64() * 1e6
            );
            // Where the odd shape's time goes: the same product with
            // operands whose rows start 16-byte aligned (no staging pass),
            // rows padded to 16 or to 128 bytes, `C`'s rows padded or
            // packed (odd `ldc`: element-wise stores on every other row),
            // Auto's tile and each tile. Checked against the staged run's
            // `C` (the same kernel on the same values: identical).
            let want = o.dc.download()?;
            let (m, n, k) = odd;
            let cases: [(&str, usize, bool, GemmVariant); 5] = [
                ("auto, A/B rows padded to 16 B (no staging), C rows padded", 8, false, GemmVariant::Auto),
                ("auto, A/B rows padded to 16 B (no staging), C packed", 8, true, GemmVariant::Auto),
                ("auto, A/B rows padded to 128 B (no staging), C rows padded", 64, false, GemmVariant::Auto),
                ("wgmma_128x256, A/B rows padded to 128 B, C rows padded", 64, false, GemmVariant::Wgmma(WgmmaTile::B128x256)),
                ("wgmma_128x128, A/B rows padded to 128 B, C rows padded", 64, false, GemmVariant::Wgmma(WgmmaTile::B128x128)),
            ];
            for (label, pad, packed_c, variant) in cases {
                let (lda, ldb) = (k.next_multiple_of(pad), n.next_multiple_of(pad));
                let ldc = if packed_c { n } else { n.next_multiple_of(pad) };
                let da = ctx.upload(&padded(&o.a, m, k, lda))?;
                let db = ctx.upload(&padded(&o.b, k, n, ldb))?;
                let gp = Gemm::new(m, n, k).lda(lda).ldb(ldb).ldc(ldc).variant(variant);
                let mut dc = ctx.alloc::<bf16>(m * ldc)?;
                gp.run(ctx, &da, &db, &mut dc)?;
                let got = dc.download()?;
                let (mut num, mut den) = (0f64, 0f64);
                for i in 0..m {
                    for j in 0..n {
                        let (x, y) = (got[i * ldc + j].to_f64(), want[i * n + j].to_f64());
                        num += (x - y) * (x - y);
                        den += y * y;
                    }
                }
                let t = time(ctx, || gp.run(ctx, &da, &db, &mut dc))?;
                row("bf16→bf16", &format!("{}×{}×{}", odd.0, odd.1, odd.2), label, t, 2.0 * (m * n * k) as f64, Some(ceiling), Some((num / den.max(f64::MIN_POSITIVE)).sqrt()), bf16::tol());
                if hopper(ctx) && whole_tiles() && pad == 64 && variant == GemmVariant::Auto {
                    let whole = gp.split_k(1);
                    let shape = format!("{}×{}×{}, A/B/C rows padded to 128 B", odd.0, odd.1, odd.2);
                    in_turn(ctx, "bf16→bf16", &shape, 2.0 * (m * n * k) as f64, |w| (if w { &whole } else { &gp }).run(ctx, &da, &db, &mut dc))?;
                }
            }
        }
    }
    // `FERROTILE_BENCH_PITCH=1`: the product's speed against the row pitch
    // of its operands and `C` (the same values, rows padded), each pitch
    // timed in turn with the packed aligned call.
    if std::env::var("FERROTILE_BENCH_PITCH").is_ok_and(|v| v == "1") {
        pitches(ctx)?;
    }
    if std::env::var("FERROTILE_BENCH_ODD_FACTORS").is_ok_and(|v| v == "1") {
        odd_factors(ctx)?;
    }
    // Strided-batched, attention-like; and batches of odd products, small
    // and mid-sized, each after its aligned twin (both operands staged,
    // `C` stored by the threads).
    for (batch, s, tb) in [
        (64, (1024, 1024, 64), true),
        (512, (128, 128, 128), false),
        (512, (127, 127, 127), false),
        (64, (256, 256, 256), false),
        (64, (255, 255, 255), false),
        (16, (512, 512, 512), false),
        (16, (511, 511, 511), false),
        (64, (512, 512, 512), false),
        (256, (256, 1024, 64), true),
        (256, (255, 1023, 63), true),
    ] {
        compare::<bf16, bf16>(ctx, blas, "bf16→bf16", s, batch, tb, false)?;
    }
    // Decode (memory-bound): against HBM bandwidth.
    for s in [(1, 8192, 8192), (16, 8192, 8192), (64, 14336, 4096), (64, 8192, 8192)] {
        decode(ctx, blas, s, false)?;
    }
    // The same with `B` stored `n × k` (the weights' usual layout).
    for s in [(1, 8192, 8192), (64, 14336, 4096)] {
        decode(ctx, blas, s, true)?;
    }
    // The fused epilogue.
    epilogue::<bf16, bf16>(ctx, blas, "bf16→bf16", (4096, 4096, 4096), 1)?;
    epilogue::<bf16, bf16>(ctx, blas, "bf16→bf16", (8192, 8192, 1024), 1)?;
    epilogue::<bf16, bf16>(ctx, blas, "bf16→bf16", (8192, 8192, 8192), 1)?;
    epilogue::<bf16, f32>(ctx, blas, "bf16→f32", (4096, 4096, 4096), 1)?;
    // With `C` stored by the threads (odd `n`), where `Auto`'s estimate
    // adds `THREADED_C_KTILES` to the unswapped tiles' epilogue: a large
    // product (the ping-pong tile) and a batch of small ones (the swapped
    // tile).
    epilogue::<bf16, bf16>(ctx, blas, "bf16→bf16", (4095, 14335, 4096), 1)?;
    epilogue::<bf16, bf16>(ctx, blas, "bf16→bf16", (127, 127, 127), 512)?;
    Ok(())
}
