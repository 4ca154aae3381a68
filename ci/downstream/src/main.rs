//! A downstream application on stable Rust: opens CUDA device 0 or, without
//! one, the emulator (and says so), runs a vector add, an f32 GEMM, a bf16
//! tensor-core GEMM and a blur through ferrotile's public API, checks each
//! against the CPU reference, and exits non-zero on a wrong result.

use std::process::ExitCode;

use ferrotile::gemm::Gemm;
use ferrotile::half::bf16;
use ferrotile::image::{self, DeviceImage};
use ferrotile::reference::{self, GemmShape};
use ferrotile::testing::Rng;
use ferrotile::{Context, Result};

fn run(ctx: &Context) -> Result<Vec<String>> {
    let mut wrong = Vec::new();
    let mut rng = Rng::new(3);

    let (a, b) = (rng.f32s(1001), rng.f32s(1001));
    let (da, db) = (ctx.upload(&a)?, ctx.upload(&b)?);
    let mut dc = ctx.alloc::<f32>(1001)?;
    ferrotile::vec_add(ctx, &da, &db, &mut dc)?;
    if dc.download()? != reference::vec_add(&a, &b) {
        wrong.push("vec_add".to_string());
    }

    let (m, n, k) = (67, 45, 33);
    let (a, b) = (rng.f32s(m * k), rng.f32s(k * n));
    let want = reference::sgemm_f64(GemmShape { m, n, k, lda: k, ldb: n, ldc: n }, 1.0, &a, &b, 0.0, &vec![0.0; m * n]);
    let mut c = ctx.alloc::<f32>(m * n)?;
    Gemm::new(m, n, k).run(ctx, &ctx.upload(&a)?, &ctx.upload(&b)?, &mut c)?;
    let err = reference::rel_norm_error(&c.download()?, &want);
    if err > 1e-5 {
        wrong.push(format!("f32 GEMM: relative error {err:.1e}"));
    }

    // bf16 operands: the reference multiplies the same rounded values.
    let (a16, b16): (Vec<bf16>, Vec<bf16>) = (a.iter().map(|&x| bf16::from_f32(x)).collect(), b.iter().map(|&x| bf16::from_f32(x)).collect());
    let (ar, br): (Vec<f32>, Vec<f32>) = (a16.iter().map(|x| x.to_f32()).collect(), b16.iter().map(|x| x.to_f32()).collect());
    let want = reference::sgemm_f64(GemmShape { m, n, k, lda: k, ldb: n, ldc: n }, 1.0, &ar, &br, 0.0, &vec![0.0; m * n]);
    c.fill(f32::NAN)?;
    Gemm::new(m, n, k).run(ctx, &ctx.upload(&a16)?, &ctx.upload(&b16)?, &mut c)?;
    let err = reference::rel_norm_error(&c.download()?, &want);
    if err > 1e-4 {
        wrong.push(format!("bf16 GEMM: relative error {err:.1e}"));
    }

    let img = image::builtin_test_image(97, 61)?;
    let src = DeviceImage::upload(ctx, &img)?;
    let mut dst = DeviceImage::alloc(ctx, 97, 61, 3)?;
    image::blur(ctx, &src, &mut dst, 2)?;
    if dst.download()? != image::cpu::blur(&img, 2) {
        wrong.push("blur".to_string());
    }
    Ok(wrong)
}

fn main() -> ExitCode {
    let ctx = Context::cuda(0).unwrap_or_else(|e| {
        println!("backend: CPU emulator ({e})");
        Context::emulator()
    });
    if let Some(info) = ctx.device_info() {
        println!("backend: CUDA device 0, {}", info.name);
    }
    match run(&ctx) {
        Ok(wrong) if wrong.is_empty() => {
            println!("downstream (stable Rust): vec_add, f32 GEMM, bf16 GEMM, blur all match the CPU reference");
            ExitCode::SUCCESS
        }
        Ok(wrong) => {
            eprintln!("error: wrong results: {}", wrong.join("; "));
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
