//! The SGEMM ladder: every rung and configuration against the f64
//! reference, edge shapes, β = 0 with a NaN-poisoned C, `Auto` on every
//! layout (transposed operands, unaligned `k` and leading dimensions, odd
//! batch strides: staged), the fast rungs' edge blocks on tight leading
//! dimensions, split-k, bad arguments, and cuBLAS (the benchmark ceiling).

use ferrotile::cublas::{cublas_sgemm, Cublas};
use ferrotile::gemm::{Gemm, GemmVariant, SplitConfig, WarpConfig, WarpTConfig};
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

/// `C = α·op(A)·op(B) + β·C` with `A` stored transposed (`ta`: `k × m`,
/// leading dimension `m + 3`) or not, and `B` likewise (`tb`: `n × k`):
/// the stored matrices hold the transposes of random `op(A)`, `op(B)`, and
/// the f64 reference multiplies those. `v`: a rung, or `None` for cuBLAS.
fn check_transposed(ctx: &Context, shape: (usize, usize, usize), t: (bool, bool), v: Option<GemmVariant>) -> Result<(), String> {
    check_transposed_ld(ctx, shape, t, v, false)
}

/// [`check_transposed`] with every leading dimension a multiple of 4 when
/// `aligned` (`cols` rounded up to 4, plus 4): the float4 rungs' transposed
/// twins read such operands as stored.
fn check_transposed_ld(ctx: &Context, (m, n, k): (usize, usize, usize), (ta, tb): (bool, bool), v: Option<GemmVariant>, aligned: bool) -> Result<(), String> {
    let mut r = Rng::new(seed("transposed") ^ (m * 1_000_003 + n * 1009 + k) as u64 ^ ((ta as u64) << 40) ^ ((tb as u64) << 41));
    let (opa, opb) = (r.f32s(m * k), r.f32s(k * n));
    let pad = |cols: usize| if aligned { cols.next_multiple_of(4) + 4 } else { cols + 3 };
    // Stored operands: op(X) itself (row-major, ld = cols + 3) or its transpose.
    let store = |x: &[f32], rows: usize, cols: usize, t: bool| -> (Vec<f32>, usize) {
        let (sr, sc) = if t { (cols, rows) } else { (rows, cols) };
        let ld = pad(sc);
        let mut out = vec![-9.0f32; (sr - 1) * ld + sc];
        for i in 0..rows {
            for j in 0..cols {
                let (si, sj) = if t { (j, i) } else { (i, j) };
                out[si * ld + sj] = x[i * cols + j];
            }
        }
        (out, ld)
    };
    let (a, lda) = store(&opa, m, k, ta);
    let (b, ldb) = store(&opb, k, n, tb);
    let ldc = if aligned { pad(n) } else { n + 1 };
    let c0 = r.f32s((m - 1) * ldc + n);
    let (alpha, beta) = (1.25f32, -0.5f32);
    let (da, db) = (up(ctx, &a)?, up(ctx, &b)?);
    let mut dc = up(ctx, &c0)?;
    let g = Gemm::new(m, n, k).transpose_a(ta).transpose_b(tb).lda(lda).ldb(ldb).ldc(ldc).alpha(alpha).beta(beta);
    match v {
        Some(v) => g.variant(v).run(ctx, &da, &db, &mut dc),
        None => cublas_sgemm(ctx, &g, &da, &db, &mut dc),
    }
    .map_err(|e| e.to_string())?;
    let got = down(&dc)?;
    let want = reference::sgemm_f64(GemmShape { m, n, k, lda: k, ldb: n, ldc }, alpha, &opa, &opb, beta, &c0);
    let pick = |x: &[f32]| -> Vec<f32> { (0..m).flat_map(|i| x[i * ldc..i * ldc + n].to_vec()).collect() };
    let pick64: Vec<f64> = (0..m).flat_map(|i| want[i * ldc..i * ldc + n].to_vec()).collect();
    close("C", &pick(&got), &pick64, 1e-5)
}

/// The three transposed combinations and their tags.
const TRANSPOSES: [((bool, bool), &str); 3] = [((true, false), "ta"), ((false, true), "tb"), ((true, true), "tatb")];

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
    // the float4 path; and shapes that are not: Auto stages them.
    for (m, n, k) in [(64, 64, 64), (36, 20, 12), (33, 31, 29), (130, 66, 3)] {
        v.push(Case::new(format!("sgemm::auto_packed::{m}x{n}x{k}"), move |ctx| {
            check(ctx, GemmShape { m, n, k, lda: k, ldb: n, ldc: n }, 1.0, Some(GemmVariant::Auto))
        }));
    }
    v.push(Case::gpu_only("sgemm::auto_packed::4096x1024x8192", |ctx| {
        check(ctx, GemmShape { m: 4096, n: 1024, k: 8192, lda: 8192, ldb: 1024, ldc: 1024 }, 0.0, Some(GemmVariant::Auto))
    }));
    for (t, tag) in TRANSPOSES {
        for &(m, n, k) in SHAPES {
            v.push(Case::new(format!("sgemm::transposed_{tag}::{m}x{n}x{k}"), move |ctx| {
                check_transposed(ctx, (m, n, k), t, Some(GemmVariant::Auto))
            }));
        }
        v.push(Case::new(format!("sgemm::transposed_{tag}::blocktile_2d_33x31x31"), move |ctx| {
            check_transposed(ctx, (33, 31, 31), t, Some(GemmVariant::Blocktile2d))
        }));
        // The rung 9 tilings' `A`-transposed twins, forced, on leading
        // dimensions that are multiples of 4 (`A` read as stored); every
        // transposed combination through Auto below.
        for w in WarpConfig::ALL.iter().copied().filter(|&w| t == (true, false) && WarpTConfig::twin(w).is_some()) {
            let name = WarpTConfig::twin(w).map_or("", |x| x.name()).trim_start_matches("sgemm_");
            for &(m, n, k) in SHAPES {
                v.push(Case::new(format!("sgemm::twin::{name}::{m}x{n}x{k}"), move |ctx| {
                    check_transposed_ld(ctx, (m, n, k), t, Some(GemmVariant::Warptile(w)), true)
                }));
            }
            for (m, n, k) in [(1000, 1000, 1000), (1031, 517, 263)] {
                v.push(Case::gpu_only(format!("sgemm::twin::{name}::{m}x{n}x{k}"), move |ctx| {
                    check_transposed_ld(ctx, (m, n, k), t, Some(GemmVariant::Warptile(w)), true)
                }));
            }
        }
        for &(m, n, k) in SHAPES {
            v.push(Case::new(format!("sgemm::transposed_{tag}::aligned_{m}x{n}x{k}"), move |ctx| {
                check_transposed_ld(ctx, (m, n, k), t, Some(GemmVariant::Auto), true)
            }));
        }
        for (m, n, k) in [(1000, 1000, 1000), (2048, 2048, 2048)] {
            v.push(Case::gpu_only(format!("sgemm::transposed_{tag}::aligned_{m}x{n}x{k}"), move |ctx| {
                check_transposed_ld(ctx, (m, n, k), t, Some(GemmVariant::Auto), true)
            }));
        }
        for (m, n, k) in [(1000, 129, 1000), (1024, 1024, 1024)] {
            v.push(Case::gpu_only(format!("sgemm::transposed_{tag}::{m}x{n}x{k}"), move |ctx| {
                check_transposed(ctx, (m, n, k), t, Some(GemmVariant::Auto))
            }));
        }
        v.push(Case::gpu_only(format!("sgemm::cublas::transposed_{tag}"), move |ctx| match Cublas::new(ctx) {
            Err(Error::LibraryMissing { .. }) => Ok(()),
            Err(e) => Err(e.to_string()),
            Ok(_) => check_transposed(ctx, (127, 129, 33), t, None),
        }));
    }
    // Grids over the launch limits: the problem runs in chunks (issue 11).
    v.push(Case::gpu_only("sgemm::chunked::tall_9000000x4x4", |ctx| {
        check(ctx, GemmShape { m: 9_000_000, n: 4, k: 4, lda: 4, ldb: 4, ldc: 4 }, 0.5, Some(GemmVariant::Auto))
    }));
    v.push(Case::gpu_only("sgemm::chunked::naive_wide_4x3000000x3", |ctx| {
        check(ctx, GemmShape { m: 4, n: 3_000_000, k: 3, lda: 3, ldb: 3_000_000, ldc: 3_000_000 }, 0.5, Some(GemmVariant::Naive))
    }));
    any_layout_cases(&mut v);
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
    expect(
        "transposed A on a float4 rung",
        Gemm::new(4, 4, 4).transpose_a(true).variant(GemmVariant::Vectorized).run(ctx, &a, &a, &mut c),
        &|e| matches!(e, Error::BadArgument { arg: "variant", .. }),
    )?;
    expect(
        "transposed B on a warptile tiling (its twins read only a transposed A)",
        Gemm::new(4, 4, 4).transpose_b(true).variant(GemmVariant::Warptile(WarpConfig::B64x64x16W32x32)).run(ctx, &a, &a, &mut c),
        &|e| matches!(e, Error::BadArgument { arg: "variant", .. }),
    )?;
    expect(
        "transposed B, ldb < k",
        Gemm::new(4, 8, 6).transpose_b(true).ldb(5).run(ctx, &a, &a, &mut c),
        &|e| matches!(e, Error::BadArgument { arg: "ldb", .. }),
    )?;
    expect(
        "transposed A, lda < m",
        Gemm::new(6, 4, 4).transpose_a(true).lda(5).run(ctx, &a, &a, &mut c),
        &|e| matches!(e, Error::BadArgument { arg: "lda", .. }),
    )?;
    expect("transposed A, short a", Gemm::new(4, 4, 40).transpose_a(true).run(ctx, &a, &a, &mut c), &|e| {
        matches!(e, Error::LengthMismatch { arg: "a", .. })
    })?;
    exact_f32("untouched c", &down(&c)?, &[7.0; 64])
}

/// Auto on every layout (issue 15): transposed operands, `k` and leading
/// dimensions not multiples of 4, odd batch strides all run on a float4
/// rung over staged copies; checked by the shared harness of
/// `tests/cases/mma.rs` (f64 reference, NaN-poisoned C for β = 0, C
/// outside the matrices untouched). And the fast rungs' edge blocks, whose
/// unpredicated loop reads clamped rows and columns, on operands with
/// rows exactly as long as the float4 rungs allow and buffers that end at
/// the last element.
fn any_layout_cases(v: &mut Vec<Case>) {
    use super::mma::{check as check_spec, Spec};
    // One row, tall, primes, every size class below a block, k % 4 ≠ 0.
    const ANY: &[(usize, usize, usize)] = &[
        (1, 1, 1),
        (7, 7, 7),
        (31, 33, 31),
        (33, 31, 29),
        (36, 20, 12),
        (64, 40, 32),
        (1, 1023, 37),
        (1023, 3, 7),
        (37, 41, 43),
        (130, 66, 3),
    ];
    for &(m, n, k) in ANY {
        for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
            for pad in [0, 3] {
                let tag = format!("{}{}_pad{pad}", if ta { "t" } else { "n" }, if tb { "t" } else { "n" });
                let spec = Spec { ta, tb, pad, alpha: 1.5, beta: if pad == 0 { 0.0 } else { -0.75 }, ..Spec::new(m, n, k) };
                v.push(Case::new(format!("sgemm::auto_any::{tag}::{m}x{n}x{k}"), move |ctx| check_spec::<f32, f32>(ctx, &spec, false)));
            }
        }
    }
    // Batches: odd rows (pad 1), odd explicit strides, A shared by the batch.
    let batches = [
        ("batch3_pad1", Spec { batch: 3, pad: 1, beta: 0.5, ..Spec::new(33, 31, 29) }),
        ("batch2_odd_strides_tn", Spec { batch: 2, ta: true, strides: Some([29 * 33 + 5, 29 * 31 + 3, 33 * 31 + 7]), beta: 0.25, ..Spec::new(33, 31, 29) }),
        ("batch2_c_stride_odd", Spec { batch: 2, strides: Some([33 * 29 + 1, 29 * 32 + 1, 33 * 32 + 3]), beta: 0.5, ..Spec::new(33, 32, 29) }),
        ("batch2_c_stride_odd_beta0", Spec { batch: 2, strides: Some([33 * 28, 28 * 32, 33 * 32 + 3]), ..Spec::new(33, 32, 28) }),
        ("batch4_shared_a_tt", Spec { batch: 4, ta: true, tb: true, strides: Some([0, 24 * 16 + 1, 17 * 24 + 3]), ..Spec::new(17, 24, 16) }),
    ];
    for (tag, spec) in batches {
        v.push(Case::new(format!("sgemm::auto_any::{tag}"), move |ctx| check_spec::<f32, f32>(ctx, &spec, false)));
    }
    for (m, n, k) in [(1000, 1000, 1000), (1023, 1025, 1021)] {
        for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
            let tag = format!("{}{}", if ta { "t" } else { "n" }, if tb { "t" } else { "n" });
            let spec = Spec { ta, tb, beta: 0.5, ..Spec::new(m, n, k) };
            v.push(Case::gpu_only(format!("sgemm::auto_any::{tag}::{m}x{n}x{k}"), move |ctx| check_spec::<f32, f32>(ctx, &spec, false)));
        }
    }
    // Split-k (forced, and Auto's choice on skinny, deep and medium
    // products whose one wave is uneven),
    // with transposes, β = 0 on a NaN C, odd leading dimensions.
    // (m, n, k), transposes, padding, β, split count.
    type SplitCase = ((usize, usize, usize), (bool, bool), usize, f32, Option<usize>);
    let splits: &[SplitCase] = &[
        ((1, 1, 1), (false, false), 0, 0.0, Some(3)),
        ((7, 9, 600), (false, false), 3, -0.5, Some(3)),
        ((65, 130, 1000), (false, false), 0, 0.0, Some(4)),
        ((33, 70, 531), (true, true), 1, 0.75, Some(2)),
        ((31, 1, 777), (true, false), 3, 0.0, Some(5)),
        ((64, 128, 4096), (false, false), 0, 0.5, None),
        ((17, 40, 2049), (false, true), 1, 0.0, None),
    ];
    for &(shape, t, pad, beta, split) in splits {
        let (m, n, k) = shape;
        let tag = format!("{}{}_pad{pad}_{}", if t.0 { "t" } else { "n" }, if t.1 { "t" } else { "n" }, split.map_or("auto".into(), |s| s.to_string()));
        v.push(Case::new(format!("sgemm::split_k::{tag}::{m}x{n}x{k}"), move |ctx| check_split(ctx, shape, t, pad, beta, split)));
    }
    for (m, n, k) in [(64, 4096, 4096), (4096, 64, 4096), (256, 256, 65536), (1023, 1025, 1021), (1200, 1100, 1000)] {
        v.push(Case::gpu_only(format!("sgemm::split_k::auto::{m}x{n}x{k}"), move |ctx| check_split(ctx, (m, n, k), (false, false), 0, 0.5, None)));
    }
    // Every split-k tiling forced, on edge tiles (no side a multiple of
    // 64), padded leading dimensions and a transposed operand.
    for &tiling in SplitConfig::ALL {
        for (shape, t, pad) in [((130, 197, 777), (false, false), 1), ((67, 129, 1100), (true, false), 0)] {
            let (m, n, k) = shape;
            let name = format!("sgemm::split_k::{}::{m}x{n}x{k}", tiling.name().trim_start_matches("sgemm_split_k_"));
            v.push(Case::new(name, move |ctx| check_planned(ctx, shape, t, pad, 0.5, Plan::Split(Some(3), Some(tiling)))));
        }
    }
    // Peeled edges (forced): the bulk of whole tiles, the thin rows and
    // columns after it (split-k where k is long), on row-major and staged
    // (transposed, padded) operands, β on a poisoned C or not.
    // (m, n, k), transposes, padding, β.
    type PeelCase = ((usize, usize, usize), (bool, bool), usize, f32);
    let peeled: &[PeelCase] = &[
        ((130, 133, 41), (false, false), 0, 0.5),
        ((130, 133, 41), (true, true), 3, 0.0),
        ((70, 67, 600), (false, false), 1, 0.0),
        ((129, 70, 700), (true, false), 0, -0.5),
        ((65, 200, 33), (false, true), 4, 0.25),
    ];
    for &(shape, t, pad, beta) in peeled {
        let (m, n, k) = shape;
        let tag = format!("{}{}_pad{pad}", if t.0 { "t" } else { "n" }, if t.1 { "t" } else { "n" });
        v.push(Case::new(format!("sgemm::peeled::{tag}::{m}x{n}x{k}"), move |ctx| check_planned(ctx, shape, t, pad, beta, Plan::Peel)));
    }
    v.push(Case::gpu_only("sgemm::peeled::auto::2049x2049x1024", |ctx| {
        if Gemm::new(2049, 2049, 1024).peel_plan_on(ctx).map_err(|e| e.to_string())?.is_none() {
            return Err("Auto does not peel 2049×2049×1024".into());
        }
        check_planned(ctx, (2049, 2049, 1024), (false, false), 0, 0.5, Plan::Split(Some(1), None))
    }));
    // Edge blocks of every fast rung: n % 4 ≠ 0 with ldb = n rounded up to
    // 4 (the vector straddling n reads the row's padding), B's buffer
    // ending at its last element, k long enough for the edge loop.
    for var in GemmVariant::all().into_iter().filter(|v| matches!(v, GemmVariant::Warptile(_) | GemmVariant::Multistage(_))) {
        let tag = var.name().trim_start_matches("sgemm_");
        for (m, n, k) in [(130, 133, 97), (65, 70, 41), (3, 257, 33)] {
            let s = GemmShape { m, n, k, lda: k.next_multiple_of(4), ldb: n.next_multiple_of(4), ldc: n.next_multiple_of(4) };
            v.push(Case::new(format!("sgemm::edge_tight::{tag}::{m}x{n}x{k}"), move |ctx| check(ctx, s, 0.25, Some(var))));
        }
    }
}

/// `C = α·op(A)·op(B) + β·C` through `Auto` with `split` slices of `k`
/// (`None`: Auto's choice, which must split these shapes), operands
/// stored transposed or not with `pad` extra elements per row; f64
/// reference, NaN-poisoned C for β = 0, C's padding untouched.
fn check_split(ctx: &Context, shape: (usize, usize, usize), t: (bool, bool), pad: usize, beta: f32, split: Option<usize>) -> Result<(), String> {
    check_planned(ctx, shape, t, pad, beta, Plan::Split(split, None))
}

/// How [`check_planned`] runs `Auto`: split-k (forced slices and tiling,
/// or Auto's choice, which must split), or with its edges peeled (forced).
#[derive(Clone, Copy)]
enum Plan {
    Split(Option<usize>, Option<SplitConfig>),
    Peel,
}

/// [`check_split`] with the plan `plan` (the split-k tiling forced, or the
/// edges peeled).
fn check_planned(
    ctx: &Context,
    (m, n, k): (usize, usize, usize),
    (ta, tb): (bool, bool),
    pad: usize,
    beta: f32,
    plan: Plan,
) -> Result<(), String> {
    let mut r = Rng::new(seed("split_k") ^ (m * 1_000_003 + n * 1009 + k) as u64 ^ ((ta as u64) << 40) ^ ((tb as u64) << 41));
    let (opa, opb) = (r.f32s(m * k), r.f32s(k * n));
    let store = |x: &[f32], rows: usize, cols: usize, t: bool| -> (Vec<f32>, usize) {
        let (sr, sc) = if t { (cols, rows) } else { (rows, cols) };
        let ld = sc + pad;
        let mut out = vec![-9.0f32; (sr - 1) * ld + sc];
        for i in 0..rows {
            for j in 0..cols {
                let (si, sj) = if t { (j, i) } else { (i, j) };
                out[si * ld + sj] = x[i * cols + j];
            }
        }
        (out, ld)
    };
    let (a, lda) = store(&opa, m, k, ta);
    let (b, ldb) = store(&opb, k, n, tb);
    let ldc = n + pad;
    let mut c0 = r.f32s((m - 1) * ldc + n);
    if beta == 0.0 {
        for i in 0..m {
            c0[i * ldc..i * ldc + n].fill(f32::NAN);
        }
    }
    let alpha = 1.25f32;
    let (da, db) = (up(ctx, &a)?, up(ctx, &b)?);
    let mut dc = up(ctx, &c0)?;
    let g = Gemm::new(m, n, k).transpose_a(ta).transpose_b(tb).lda(lda).ldb(ldb).ldc(ldc).alpha(alpha).beta(beta);
    let g = match plan {
        Plan::Split(split, tiling) => {
            let g = match split {
                Some(s) => g.split_k(s),
                None => g,
            };
            let g = match tiling {
                Some(t) => g.split_k_tiling(t),
                None => g,
            };
            if let (Some(t), Some(s)) = (tiling, split)
                && g.split_k_plan_on(ctx) != (t, s) {
                    return Err(format!("the split runs {:?}, not the forced {t:?} × {s}", g.split_k_plan_on(ctx)));
                }
            if split.is_none() && g.split_k_slices_on(ctx) < 2 {
                return Err(format!("Auto does not split {m}x{n}x{k}"));
            }
            g
        }
        Plan::Peel => {
            // The whole product unsplit; the thin parts split where Auto
            // splits them on their own.
            let g = g.split_k(1).peel_edges(true);
            if g.peel_plan_on(ctx).map_err(|e| e.to_string())?.is_none() {
                return Err(format!("Auto does not peel {m}x{n}x{k}"));
            }
            g
        }
    };
    g.run(ctx, &da, &db, &mut dc).map_err(|e| e.to_string())?;
    let got = down(&dc)?;
    let want = reference::sgemm_f64(GemmShape { m, n, k, lda: k, ldb: n, ldc }, alpha, &opa, &opb, beta, &c0);
    for i in 0..m.saturating_sub(1) {
        for j in n..ldc {
            if got[i * ldc + j].to_bits() != c0[i * ldc + j].to_bits() {
                return Err(format!("padding element ({i}, {j}) of C was written"));
            }
        }
    }
    let pick = |x: &[f32]| -> Vec<f32> { (0..m).flat_map(|i| x[i * ldc..i * ldc + n].to_vec()).collect() };
    let pick64: Vec<f64> = (0..m).flat_map(|i| want[i * ldc..i * ldc + n].to_vec()).collect();
    close("C", &pick(&got), &pick64, 1e-5)
}
