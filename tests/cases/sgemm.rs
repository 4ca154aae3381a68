//! The SGEMM ladder: every rung and configuration against the f64
//! reference, edge shapes, β = 0 with a NaN-poisoned C, alignment
//! fallback, bad arguments, and cuBLAS (the benchmark ceiling).

use ferrotile::cublas::{cublas_sgemm, Cublas};
use ferrotile::gemm::{Gemm, GemmVariant};
use ferrotile::reference::{self, GemmShape};
use ferrotile::{Backend, Context, Error};

use crate::common::*;

/// Leading dimensions for `v`: padded by 4 (float4 rungs need multiples of
/// 4) or by 3 (scalar rungs: rows start at odd offsets).
fn shape_for(v: GemmVariant, m: usize, n: usize, k: usize) -> GemmShape {
    let ld = |x: usize| if v.needs_float4() { x.next_multiple_of(4) + 4 } else { x + 3 };
    GemmShape { m, n, k, lda: ld(k), ldb: ld(n), ldc: ld(n) }
}

/// Runs `g` (or cuBLAS) on random A, B, C with α = 1.5 and β; checks
/// against the f64 reference (rel. norm error ≤ 1e-5) and that the
/// padding between rows of C is untouched. β = 0: C is poisoned with NaN
/// (it must not be read).
fn check(ctx: &Context, s: GemmShape, beta: f32, v: Option<GemmVariant>) -> Result<(), String> {
    let name = v.map_or("cublas", |v| v.name());
    let mut r = Rng::new(seed(name) ^ (s.m * 1_000_003 + s.n * 1009 + s.k) as u64 ^ beta.to_bits() as u64);
    let a = r.f32s((s.m - 1) * s.lda + s.k);
    let b = r.f32s((s.k - 1) * s.ldb + s.n);
    let mut c0 = r.f32s((s.m - 1) * s.ldc + s.n);
    if beta == 0.0 {
        // Poison the matrix, keep the padding recognisable.
        for i in 0..s.m {
            c0[i * s.ldc..i * s.ldc + s.n].fill(f32::NAN);
        }
    }
    let alpha = 1.5f32;
    let (da, db) = (up(ctx, &a)?, up(ctx, &b)?);
    let mut dc = up(ctx, &c0)?;
    let g = Gemm::new(s.m, s.n, s.k).lda(s.lda).ldb(s.ldb).ldc(s.ldc).alpha(alpha).beta(beta);
    match v {
        Some(v) => g.variant(v).run(ctx, &da, &db, &mut dc),
        None => cublas_sgemm(ctx, &g, &da, &db, &mut dc),
    }
    .map_err(|e| e.to_string())?;
    let got = down(&dc)?;
    let want = reference::sgemm_f64(s, alpha, &a, &b, beta, &c0);
    for i in 0..s.m.saturating_sub(1) {
        for j in s.n..s.ldc {
            let o = i * s.ldc + j;
            if got[o].to_bits() != c0[o].to_bits() {
                return Err(format!("padding element ({i}, {j}) of C was written"));
            }
        }
    }
    // Compare the matrix elements only (the padding was checked above).
    let pick = |x: &[f32]| -> Vec<f32> { (0..s.m).flat_map(|i| x[i * s.ldc..i * s.ldc + s.n].to_vec()).collect() };
    let pick64: Vec<f64> = (0..s.m).flat_map(|i| want[i * s.ldc..i * s.ldc + s.n].to_vec()).collect();
    close("C", &pick(&got), &pick64, 1e-5)
}

/// Emulator shapes: every size of the issue below 1000, non-square
/// combinations, 1 × N and N × 1, `k` not a multiple of any `BK`. Each is a
/// few blocks at most.
const SHAPES: &[(usize, usize, usize)] = &[
    (1, 1, 1),
    (7, 7, 7),
    (31, 33, 7),
    (33, 31, 31),
    (1, 129, 33),
    (129, 1, 17),
    (127, 129, 9),
    (129, 127, 33),
    // Interior blocks for every tile size, k tail for every BK.
    (257, 260, 70),
];

/// GPU-only shapes.
const GPU_SHAPES: &[(usize, usize, usize)] =
    &[(1000, 1000, 1000), (1000, 129, 1000), (127, 1000, 513), (1024, 1024, 1024), (256, 4096, 1031)];

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for var in GemmVariant::all() {
        let tag = var.name().trim_start_matches("sgemm_");
        for &(m, n, k) in SHAPES {
            v.push(Case::new(format!("sgemm::{tag}::{m}x{n}x{k}"), move |ctx| check(ctx, shape_for(var, m, n, k), -0.75, Some(var))));
        }
        v.push(Case::new(format!("sgemm::{tag}::beta0_nan_c"), move |ctx| check(ctx, shape_for(var, 33, 130, 19), 0.0, Some(var))));
        for &(m, n, k) in GPU_SHAPES {
            v.push(Case::gpu_only(format!("sgemm::{tag}::{m}x{n}x{k}"), move |ctx| check(ctx, shape_for(var, m, n, k), 0.5, Some(var))));
        }
    }
    // Packed (ld = row length) shapes that are multiples of 4: Auto takes
    // the float4 path; and shapes that are not: Auto falls back.
    for (m, n, k) in [(64, 64, 64), (36, 20, 12), (33, 31, 29), (130, 66, 3)] {
        v.push(Case::new(format!("sgemm::auto_packed::{m}x{n}x{k}"), move |ctx| {
            check(ctx, GemmShape { m, n, k, lda: k, ldb: n, ldc: n }, 1.0, Some(GemmVariant::Auto))
        }));
    }
    v.push(Case::gpu_only("sgemm::auto_packed::4096x1024x8192", |ctx| {
        check(ctx, GemmShape { m: 4096, n: 1024, k: 8192, lda: 8192, ldb: 1024, ldc: 1024 }, 0.0, Some(GemmVariant::Auto))
    }));
    v.push(Case::new("sgemm::buffers_reused_across_calls", reuse));
    v.push(Case::new("sgemm::rejects_bad_arguments", bad_arguments));
    v.push(Case::new("sgemm::cublas::absent_or_checked", |ctx| match ctx.backend() {
        Backend::Emulator => match Cublas::new(ctx) {
            Err(Error::BadArgument { arg: "ctx", .. }) => Ok(()),
            other => Err(format!("cuBLAS on the emulator: {other:?}")),
        },
        Backend::Cuda => cublas_or_skip(ctx, GemmShape { m: 127, n: 129, k: 33, lda: 36, ldb: 132, ldc: 133 }, -0.75),
    }));
    v.push(Case::gpu_only("sgemm::cublas::1000x1000x1000_beta0", |ctx| {
        cublas_or_skip(ctx, GemmShape { m: 1000, n: 1000, k: 1000, lda: 1000, ldb: 1000, ldc: 1000 }, 0.0)
    }));
    v.push(Case::gpu_only("sgemm::cublas::4096x1024x8192", |ctx| {
        cublas_or_skip(ctx, GemmShape { m: 4096, n: 1024, k: 8192, lda: 8192, ldb: 1024, ldc: 1024 }, 0.5)
    }));
    v
}

/// cuBLAS against the reference; passes with a note when libcublas is
/// absent (the benchmark then runs without its ceiling).
fn cublas_or_skip(ctx: &Context, s: GemmShape, beta: f32) -> Result<(), String> {
    match Cublas::new(ctx) {
        Err(Error::LibraryMissing { library, .. }) if library == ferrotile::cublas::CUBLAS => {
            eprintln!("note: libcublas not found; cuBLAS case not checked");
            Ok(())
        }
        Err(e) => Err(e.to_string()),
        Ok(_) => check(ctx, s, beta, None),
    }
}

/// The same buffers serve several calls with different variants and β.
fn reuse(ctx: &Context) -> Result<(), String> {
    let (m, n, k) = (40, 36, 20);
    let s = GemmShape { m, n, k, lda: k, ldb: n, ldc: n };
    let mut r = Rng::new(seed("reuse"));
    let (a, b) = (r.f32s(m * k), r.f32s(k * n));
    let (da, db) = (up(ctx, &a)?, up(ctx, &b)?);
    let mut dc = poisoned(ctx, m * n, f32::NAN)?;
    let g = Gemm::new(m, n, k);
    // C = AB, then C = 2·AB + C = 3·AB.
    g.variant(GemmVariant::Swizzled).run(ctx, &da, &db, &mut dc).map_err(|e| e.to_string())?;
    g.variant(GemmVariant::Blocktile2d).alpha(2.0).beta(1.0).run(ctx, &da, &db, &mut dc).map_err(|e| e.to_string())?;
    let want = reference::sgemm_f64(s, 3.0, &a, &b, 0.0, &vec![0.0; m * n]);
    close("C after two calls", &down(&dc)?, &want, 1e-5)
}

fn bad_arguments(ctx: &Context) -> Result<(), String> {
    let a = up(ctx, &[1.0f32; 64])?;
    let mut c = poisoned(ctx, 64, 7.0f32)?;
    let expect = |what: &str, got: Result<(), Error>, ok: &dyn Fn(&Error) -> bool| -> Result<(), String> {
        match got {
            Err(e) if ok(&e) => Ok(()),
            other => Err(format!("{what}: {other:?}")),
        }
    };
    expect("m = 0", Gemm::new(0, 4, 4).run(ctx, &a, &a, &mut c), &|e| matches!(e, Error::BadArgument { arg: "m", .. }))?;
    expect("k = 0", Gemm::new(4, 4, 0).run(ctx, &a, &a, &mut c), &|e| matches!(e, Error::BadArgument { arg: "k", .. }))?;
    expect("ldb < n", Gemm::new(4, 4, 4).ldb(3).run(ctx, &a, &a, &mut c), &|e| matches!(e, Error::BadArgument { arg: "ldb", .. }))?;
    expect("ldc < n", Gemm::new(4, 4, 4).ldc(2).run(ctx, &a, &a, &mut c), &|e| matches!(e, Error::BadArgument { arg: "ldc", .. }))?;
    expect("short c", Gemm::new(8, 9, 4).run(ctx, &a, &a, &mut c), &|e| {
        matches!(e, Error::LengthMismatch { arg: "b", .. } | Error::LengthMismatch { arg: "c", .. })
    })?;
    expect(
        "float4 rung with lda = 5",
        Gemm::new(4, 4, 4).lda(5).variant(GemmVariant::Warptile(ferrotile::gemm::WarpConfig::B64x64x16W32x32)).run(ctx, &a, &a, &mut c),
        &|e| matches!(e, Error::BadArgument { arg: "lda", .. }),
    )?;
    expect(
        "float4 rung with ldc = 6",
        Gemm::new(4, 4, 4).ldc(6).variant(GemmVariant::Vectorized).run(ctx, &a, &a, &mut c),
        &|e| matches!(e, Error::BadArgument { arg: "ldc", .. }),
    )?;
    expect("too big", Gemm::new(1 << 33, 1, 1).run(ctx, &a, &a, &mut c), &|e| matches!(e, Error::BadArgument { arg: "m", .. }))?;
    exact_f32("untouched c", &down(&c)?, &[7.0; 64])
}
