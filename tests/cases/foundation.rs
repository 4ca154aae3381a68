//! The first kernels through the whole pipe, and the API's validation.

use ferrotile::gemm::{Gemm, GemmVariant};
use ferrotile::reference::{self, GemmShape};
use ferrotile::transpose::{Transpose, TransposeVariant};
use ferrotile::{Context, Error};

use crate::common::*;

fn vec_add(ctx: &Context, n: usize) -> Result<(), String> {
    let mut r = Rng::new(seed("vec_add") ^ n as u64);
    let (a, b) = (r.f32s(n), r.f32s(n));
    let (da, db) = (up(ctx, &a)?, up(ctx, &b)?);
    let mut dc = poisoned(ctx, n, f32::NAN)?;
    ferrotile::vec_add(ctx, &da, &db, &mut dc).map_err(|e| e.to_string())?;
    exact_f32("c", &down(&dc)?, &reference::vec_add(&a, &b))
}

fn transpose(ctx: &Context, v: TransposeVariant, nx: usize, ny: usize) -> Result<(), String> {
    let mut r = Rng::new(seed(v.name()) ^ (nx * 7919 + ny) as u64);
    let a = r.f32s(nx * ny);
    let da = up(ctx, &a)?;
    let mut out = poisoned(ctx, nx * ny, f32::NAN)?;
    Transpose::new(nx, ny).variant(v).run(ctx, &da, &mut out).map_err(|e| e.to_string())?;
    exact_f32("output", &down(&out)?, &reference::transpose_serial(&a, nx, ny))
}

/// Runs one SGEMM rung against the f64 reference with α, β ≠ 0/1 and
/// padded leading dimensions.
pub fn sgemm(ctx: &Context, v: GemmVariant, m: usize, n: usize, k: usize, pad: usize) -> Result<(), String> {
    let s = GemmShape { m, n, k, lda: k + pad, ldb: n + pad, ldc: n + pad };
    let mut r = Rng::new(seed(v.name()) ^ (m * 1_000_003 + n * 1009 + k) as u64);
    let a = r.f32s((m - 1) * s.lda + k);
    let b = r.f32s((k - 1) * s.ldb + n);
    let c0 = r.f32s((m - 1) * s.ldc + n);
    let (alpha, beta) = (1.5f32, -0.75f32);
    let (da, db) = (up(ctx, &a)?, up(ctx, &b)?);
    let mut dc = up(ctx, &c0)?;
    Gemm::new(m, n, k)
        .lda(s.lda)
        .ldb(s.ldb)
        .ldc(s.ldc)
        .alpha(alpha)
        .beta(beta)
        .variant(v)
        .run(ctx, &da, &db, &mut dc)
        .map_err(|e| e.to_string())?;
    let got = down(&dc)?;
    let want = reference::sgemm_f64(s, alpha, &a, &b, beta, &c0);
    // Padding between rows must be left alone.
    for i in 0..m.saturating_sub(1) {
        for j in n..s.ldc {
            let o = i * s.ldc + j;
            if got[o].to_bits() != c0[o].to_bits() {
                return Err(format!("padding element ({i}, {j}) of C was written"));
            }
        }
    }
    close("C", &got, &want, 1e-5)
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for n in [1usize, 7, 33, 255, 256, 257, 1023, 100_003] {
        v.push(Case::new(format!("vec_add::n{n}"), move |ctx| vec_add(ctx, n)));
    }
    v.push(Case::gpu_only("vec_add::n67108864", |ctx| vec_add(ctx, 1 << 26)));
    for (nx, ny) in [(1, 1), (1, 37), (37, 1), (7, 7), (33, 31), (64, 64), (129, 67)] {
        v.push(Case::new(format!("transpose::naive_row::{nx}x{ny}"), move |ctx| {
            transpose(ctx, TransposeVariant::NaiveRow, nx, ny)
        }));
    }
    v.push(Case::gpu_only("transpose::naive_row::4096x4096", |ctx| transpose(ctx, TransposeVariant::NaiveRow, 4096, 4096)));
    for (m, n, k) in [(1, 1, 1), (7, 7, 7), (31, 33, 7), (33, 31, 65), (64, 64, 64), (1, 129, 33), (127, 1, 129)] {
        v.push(Case::new(format!("sgemm::naive::{m}x{n}x{k}"), move |ctx| sgemm(ctx, GemmVariant::Naive, m, n, k, 3)));
    }
    v.push(Case::gpu_only("sgemm::naive::1000x1000x1000", |ctx| sgemm(ctx, GemmVariant::Naive, 1000, 1000, 1000, 0)));
    v.push(Case::new("api::rejects_bad_arguments_before_launch", bad_arguments));
    v
}

fn bad_arguments(ctx: &Context) -> Result<(), String> {
    let a = up(ctx, &[1.0f32; 4])?;
    let b = up(ctx, &[1.0f32; 3])?;
    let mut c = poisoned(ctx, 4, 0.0f32)?;
    match ferrotile::vec_add(ctx, &a, &b, &mut c) {
        Err(Error::LengthMismatch { arg: "b", expected: 4, actual: 3 }) => {}
        other => return Err(format!("vec_add with short b: {other:?}")),
    }
    match Transpose::new(0, 4).run(ctx, &a, &mut c) {
        Err(Error::BadArgument { arg: "nx", .. }) => {}
        other => return Err(format!("transpose nx = 0: {other:?}")),
    }
    match Gemm::new(2, 2, 2).lda(1).run(ctx, &a, &a, &mut c) {
        Err(Error::BadArgument { arg: "lda", .. }) => {}
        other => return Err(format!("gemm lda < k: {other:?}")),
    }
    match Gemm::new(2, 2, 2).run(ctx, &a, &b, &mut c) {
        Err(Error::LengthMismatch { arg: "b", expected: 4, actual: 3 }) => {}
        other => return Err(format!("gemm short b: {other:?}")),
    }
    // A buffer from the other backend is refused.
    let other = if ctx.backend() == ferrotile::Backend::Emulator { Context::cuda(0).ok() } else { Some(Context::emulator()) };
    if let Some(o) = other {
        let x = up(&o, &[1.0f32; 4])?;
        if !matches!(ferrotile::vec_add(ctx, &x, &a, &mut c), Err(Error::BadArgument { arg: "a", .. })) {
            return Err("buffer of another backend accepted".into());
        }
    }
    exact_f32("untouched c", &down(&c)?, &[0.0; 4])
}
