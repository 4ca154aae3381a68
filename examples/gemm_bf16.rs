//! A bf16 GEMM on tensor cores: `C = A·B` with bf16 inputs and an f32
//! output, then the same product written back as bf16 through the fused
//! epilogue (bias + GELU), each checked against the f64 reference by
//! relative norm error. On a GPU it also times the first product.
//!
//! ```text
//! cargo run --release --example gemm_bf16               # emulator-sized shape
//! cargo run --release --example gemm_bf16 -- 4096 4096 4096
//! ```
//!
//! Runs on CUDA device 0 when there is one, else on the CPU emulator (and
//! says so). [`Gemm`] picks the engine from the element types: bf16 and f16
//! go to the tensor cores (mma.sync on sm_80+, wgmma on Hopper), f32 to the
//! CUDA-core ladder. Exits with 1 when a result is off.

use std::process::ExitCode;

use ferrotile::gemm::{Activation, Gemm};
use ferrotile::half::bf16;
use ferrotile::reference::{gemm_f64, rel_norm_error, GemmSpec};
use ferrotile::testing::Rng;
use ferrotile::{Backend, Context, Result};

/// Rows checked against the f64 reference: all of them for small shapes,
/// else three blocks (first, middle, last) of this many.
const CHECKED_ROWS: usize = 64;

/// The reference for rows `rows` of `act(A·B + bias)`, in f64.
fn reference(a: &[bf16], b: &[bf16], bias: Option<&[f32]>, act: Activation, (n, k): (usize, usize), rows: std::ops::Range<usize>) -> Vec<f64> {
    let spec = GemmSpec {
        m: rows.len(),
        n,
        k,
        lda: k,
        ldb: n,
        ldc: n,
        ta: false,
        tb: false,
        batch: 1,
        strides: [0; 3],
        alpha: 1.0,
        beta: 0.0,
        activation: act,
    };
    let a64: Vec<f64> = a[rows.start * k..rows.end * k].iter().map(|x| x.to_f64()).collect();
    let b64: Vec<f64> = b.iter().map(|x| x.to_f64()).collect();
    let bias64: Option<Vec<f64>> = bias.map(|v| v.iter().map(|&x| x as f64).collect());
    gemm_f64(&spec, &a64, &b64, &vec![0.0; rows.len() * n], bias64.as_deref())
}

/// The row blocks to check.
fn checked_blocks(m: usize) -> Vec<std::ops::Range<usize>> {
    if m <= 3 * CHECKED_ROWS {
        return std::iter::once(0..m).collect();
    }
    let mid = m / 2 - CHECKED_ROWS / 2;
    vec![0..CHECKED_ROWS, mid..mid + CHECKED_ROWS, m - CHECKED_ROWS..m]
}

/// The worst relative norm error of `got` (as f32) over the checked rows.
fn worst_error(got: &[f32], a: &[bf16], b: &[bf16], bias: Option<&[f32]>, act: Activation, mnk: (usize, usize, usize)) -> f64 {
    let (n, k) = (mnk.1, mnk.2);
    checked_blocks(mnk.0)
        .into_iter()
        .map(|rows| {
            let want = reference(a, b, bias, act, (n, k), rows.clone());
            rel_norm_error(&got[rows.start * n..rows.end * n], &want)
        })
        .fold(0.0, f64::max)
}

fn run(ctx: &Context, (m, n, k): (usize, usize, usize)) -> Result<bool> {
    let mut rng = Rng::new(5);
    let a: Vec<bf16> = rng.f32s(m * k).into_iter().map(bf16::from_f32).collect();
    let b: Vec<bf16> = rng.f32s(k * n).into_iter().map(bf16::from_f32).collect();
    let bias: Vec<f32> = rng.f32s(n);
    let (da, db, dbias) = (ctx.upload(&a)?, ctx.upload(&b)?, ctx.upload(&bias)?);
    let mut ok = true;

    // bf16 x bf16 -> f32 (f32 accumulation).
    let gemm = Gemm::new(m, n, k);
    let mut c32 = ctx.alloc::<f32>(m * n)?;
    c32.fill(f32::NAN)?; // every element must be written
    gemm.run(ctx, &da, &db, &mut c32)?;
    let err = worst_error(&c32.download()?, &a, &b, None, Activation::None, (m, n, k));
    let kernel = gemm.resolved_variant_on::<bf16, f32>(ctx)?.name();
    println!("bf16 -> f32  {m} x {n} x {k} ({kernel}): relative error {err:.1e} (limit 1e-4)");
    ok &= err <= 1e-4;

    // bf16 -> bf16 with the fused bias + GELU epilogue (one rounding at the end).
    let fused = Gemm::new(m, n, k).activation(Activation::GeluTanh);
    let mut c16 = ctx.alloc::<bf16>(m * n)?;
    c16.fill(bf16::NAN)?;
    fused.run_with_bias(ctx, &da, &db, &dbias, &mut c16)?;
    let got: Vec<f32> = c16.download()?.into_iter().map(f32::from).collect();
    let err = worst_error(&got, &a, &b, Some(&bias), Activation::GeluTanh, (m, n, k));
    let kernel = fused.resolved_variant_on::<bf16, bf16>(ctx)?.name();
    println!("bf16 -> bf16 + bias + GELU ({kernel}): relative error {err:.1e} (limit 5e-3)");
    ok &= err <= 5e-3;

    // Time it on a GPU (the emulator's time says nothing about one).
    if ctx.backend() == Backend::Cuda {
        let t = ctx.time(3, 20, || gemm.run(ctx, &da, &db, &mut c32))?;
        let tflops = 2.0 * (m * n * k) as f64 / t.as_secs_f64() / 1e12;
        println!("bf16 -> f32: {:.3} ms per GEMM, {tflops:.1} TFLOP/s", t.as_secs_f64() * 1e3);
    }
    Ok(ok)
}

fn main() -> ExitCode {
    let ctx = Context::cuda(0).unwrap_or_else(|e| {
        println!("backend: CPU emulator ({e})");
        Context::emulator()
    });
    if let Some(info) = ctx.device_info() {
        println!("backend: CUDA device 0, {}", info.name);
    }
    let args: Vec<usize> = match std::env::args().skip(1).map(|a| a.parse()).collect() {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: M N K must be numbers ({e})");
            return ExitCode::FAILURE;
        }
    };
    // Odd sizes by default: no dimension is a multiple of a tile.
    let mnk = match (args.as_slice(), ctx.backend()) {
        ([m, n, k], _) => (*m, *n, *k),
        ([], Backend::Emulator) => (200, 136, 72),
        ([], _) => (4093, 4091, 4099),
        _ => {
            eprintln!("usage: gemm_bf16 [M N K]");
            return ExitCode::FAILURE;
        }
    };
    match run(&ctx, mnk) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("error: a result is over its limit");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
