//! The tensor-core GEMM: bf16 and f16 (f32 or 16-bit output) and tf32,
//! every tile, every operand orientation, batches, the fused epilogue, and
//! the API's validation; against the f64 reference computed from the same
//! rounded inputs (relative norm error), outputs poisoned with NaN, and
//! cuBLAS's GemmEx on the GPU.

use ferrotile::cublas::Cublas;
use ferrotile::gemm::{Activation, Gemm, GemmElement, GemmVariant, MmaTile};
use ferrotile::kernels::numeric::tf32_rna;
use ferrotile::reference::{gemm_f64, GemmSpec};
use ferrotile::{Context, Error};
use half::{bf16, f16};

use crate::common::*;

/// A GEMM element the tests can draw, poison and compare.
pub(super) trait Ty: GemmElement {
    /// From an f32 (rounded to the type).
    fn from_f32(x: f32) -> Self;
    /// The exact value.
    fn to_f64(self) -> f64;
    /// NaN.
    fn nan() -> Self;
}
impl Ty for f32 {
    fn from_f32(x: f32) -> f32 {
        x
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn nan() -> f32 {
        f32::NAN
    }
}
impl Ty for bf16 {
    fn from_f32(x: f32) -> bf16 {
        bf16::from_f32(x)
    }
    fn to_f64(self) -> f64 {
        bf16::to_f64(self)
    }
    fn nan() -> bf16 {
        bf16::NAN
    }
}
impl Ty for f16 {
    fn from_f32(x: f32) -> f16 {
        f16::from_f32(x)
    }
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
    fn nan() -> f16 {
        f16::NAN
    }
}

/// One test problem.
#[derive(Clone, Debug)]
pub(super) struct Spec {
    pub(super) m: usize,
    pub(super) n: usize,
    pub(super) k: usize,
    pub(super) ta: bool,
    pub(super) tb: bool,
    pub(super) batch: usize,
    /// Extra elements per row of each stored matrix (0: packed).
    pub(super) pad: usize,
    /// Explicit batch strides (`None`: packed matrices).
    pub(super) strides: Option<[usize; 3]>,
    pub(super) alpha: f32,
    pub(super) beta: f32,
    pub(super) activation: Activation,
    pub(super) bias: bool,
    pub(super) tf32: bool,
    pub(super) variant: GemmVariant,
    /// Runs of the same call on the same buffers (1: one run). With
    /// `β ≠ 0`, `C` is set back to its starting values between them and
    /// each run is checked; with `β = 0` the first run is checked, then the
    /// others follow each other with nothing between them (no copy, no
    /// download: on a GPU a programmatic launch overlaps the one before)
    /// and the last is checked.
    pub(super) runs: usize,
    /// Launched as programmatic dependents ([`Gemm::programmatic_launch`],
    /// the default) or plainly.
    pub(super) programmatic: bool,
}

impl Spec {
    pub(super) fn new(m: usize, n: usize, k: usize) -> Spec {
        Spec {
            m,
            n,
            k,
            ta: false,
            tb: false,
            batch: 1,
            pad: 0,
            strides: None,
            alpha: 1.0,
            beta: 0.0,
            activation: Activation::None,
            bias: false,
            tf32: false,
            variant: GemmVariant::Auto,
            runs: 1,
            programmatic: true,
        }
    }
}

/// The four operand orientations `(A transposed, B transposed)` and their
/// names in the case names.
pub(super) const ORIENTATIONS: [(bool, bool, &str); 4] = [(false, false, "nn"), (true, false, "tn"), (false, true, "nt"), (true, true, "tt")];

/// The tolerance of the relative norm error for output type `O`.
fn tolerance<O: Ty>() -> f64 {
    match O::NAME {
        "bf16" => 5e-3,
        "f16" => 1e-3,
        _ => 1e-4,
    }
}

/// Runs `case` with inputs `I`, output `O` (or cuBLAS when `cublas`), and
/// compares with the f64 reference on the rounded inputs; C outside the
/// matrices must be untouched.
pub(super) fn check<I: Ty, O: Ty>(ctx: &Context, case: &Spec, cublas: bool) -> Result<(), String> {
    let c = case;
    let (lda, ldb, ldc) = (
        if c.ta { c.m } else { c.k } + c.pad,
        if c.tb { c.k } else { c.n } + c.pad,
        c.n + c.pad,
    );
    let (ar, br) = (if c.ta { c.k } else { c.m }, if c.tb { c.n } else { c.k });
    let one = [(ar - 1) * lda + if c.ta { c.m } else { c.k }, (br - 1) * ldb + if c.tb { c.k } else { c.n }, (c.m - 1) * ldc + c.n];
    let strides = c.strides.unwrap_or([ar * lda, br * ldb, c.m * ldc]);
    let len = |i: usize| (c.batch - 1) * strides[i] + one[i];
    let mut r = Rng::new(seed(&format!("{c:?}{}{}", I::NAME, O::NAME)));
    let a: Vec<I> = r.f32s(len(0)).into_iter().map(I::from_f32).collect();
    let b: Vec<I> = r.f32s(len(1)).into_iter().map(I::from_f32).collect();
    let c0: Vec<O> = if c.beta == 0.0 { vec![O::nan(); len(2)] } else { r.f32s(len(2)).into_iter().map(O::from_f32).collect() };
    let bias: Vec<f32> = r.f32s(c.n);
    let g = Gemm::new(c.m, c.n, c.k)
        .lda(lda)
        .ldb(ldb)
        .ldc(ldc)
        .transpose_a(c.ta)
        .transpose_b(c.tb)
        .alpha(c.alpha)
        .beta(c.beta)
        .batch(c.batch)
        .activation(c.activation)
        .tf32(c.tf32)
        .variant(c.variant)
        .programmatic_launch(c.programmatic);
    let g = match c.strides {
        Some([sa, sb, sc]) => g.batch_strides(sa, sb, sc),
        None => g,
    };
    let (da, db) = (up(ctx, &a)?, up(ctx, &b)?);
    let mut dc = up(ctx, &c0)?;
    let dbias = up(ctx, &bias)?;
    let blas = if cublas {
        match Cublas::new(ctx) {
            Err(Error::LibraryMissing { .. }) => return Ok(()),
            Err(e) => return Err(e.to_string()),
            Ok(h) => Some(h),
        }
    } else {
        None
    };
    let runs = c.runs.max(1);
    for run in 0..runs {
        if run > 0 && c.beta != 0.0 {
            dc.copy_from(&c0).map_err(|e| e.to_string())?;
        }
        let done = match &blas {
            Some(h) => h.gemm(ctx, &g, &da, &db, &mut dc),
            None if c.bias => g.run_with_bias(ctx, &da, &db, &dbias, &mut dc),
            None => g.run(ctx, &da, &db, &mut dc),
        };
        done.map_err(|e| e.to_string())?;
        if c.beta != 0.0 || run == 0 || run + 1 == runs {
            compare::<I, O>(c, &down(&dc)?, (&a, &b, &c0, &bias), (lda, ldb, ldc), strides).map_err(|e| if runs > 1 { format!("run {}: {e}", run + 1) } else { e })?;
        }
    }
    Ok(())
}

/// Compares `got` (all of `C`'s buffer after the call) with the f64
/// reference of `c` on the rounded inputs; elements outside the matrices
/// must still hold `c0`.
#[allow(clippy::type_complexity)]
fn compare<I: Ty, O: Ty>(
    c: &Spec,
    got: &[O],
    (a, b, c0, bias): (&[I], &[I], &[O], &[f32]),
    (lda, ldb, ldc): (usize, usize, usize),
    strides: [usize; 3],
) -> Result<(), String> {
    // The reference on the values the tensor cores multiply.
    let round = |x: I| if c.tf32 { f32::from_bits(tf32_rna(x.to_f64() as f32)) as f64 } else { x.to_f64() };
    let spec = GemmSpec {
        m: c.m,
        n: c.n,
        k: c.k,
        lda,
        ldb,
        ldc,
        ta: c.ta,
        tb: c.tb,
        batch: c.batch,
        strides,
        alpha: c.alpha as f64,
        beta: c.beta as f64,
        activation: c.activation,
    };
    let bias64: Vec<f64> = bias.iter().map(|&x| x as f64).collect();
    let want = gemm_f64(
        &spec,
        &a.iter().map(|&x| round(x)).collect::<Vec<_>>(),
        &b.iter().map(|&x| round(x)).collect::<Vec<_>>(),
        &c0.iter().map(|&x| x.to_f64()).collect::<Vec<_>>(),
        c.bias.then_some(&bias64[..]),
    );
    // Elements inside the matrices against the reference; the rest untouched.
    let mut inside = vec![false; got.len()];
    for bi in 0..c.batch {
        for i in 0..c.m {
            for j in 0..c.n {
                inside[bi * strides[2] + i * ldc + j] = true;
            }
        }
    }
    let mut g32 = Vec::new();
    let mut w64 = Vec::new();
    for (i, (&x, &w)) in got.iter().zip(&want).enumerate() {
        if inside[i] {
            g32.push(x.to_f64() as f32);
            w64.push(w);
        } else if x.to_f64().to_bits() != c0[i].to_f64().to_bits() {
            return Err(format!("element {i} outside the matrices was written"));
        }
    }
    close("C", &g32, &w64, tolerance::<O>())
}

/// Shapes for the emulator: degenerate, primes, one off a tile either way,
/// not multiples of 8 in any dimension.
const SHAPES: &[(usize, usize, usize)] = &[(1, 1, 1), (7, 7, 7), (31, 33, 7), (33, 31, 31), (1, 129, 33), (129, 1, 17), (127, 129, 41), (65, 66, 70)];

/// GPU-only shapes.
const GPU_SHAPES: &[(usize, usize, usize)] = &[(1000, 1000, 1000), (1000, 129, 1000), (127, 1000, 513), (1024, 1024, 1024), (256, 4096, 1031), (4093, 251, 259)];

fn push<I: Ty, O: Ty>(v: &mut Vec<crate::common::Case>, name: String, case: Spec, gpu_only: bool) {
    let run = move |ctx: &Context| check::<I, O>(ctx, &case, false);
    v.push(if gpu_only { crate::common::Case::gpu_only(name, run) } else { crate::common::Case::new(name, run) });
}

/// Every test of one input/output type pair.
fn cases_for<I: Ty, O: Ty>(v: &mut Vec<crate::common::Case>, tf32: bool) {
    let tag = if tf32 { "tf32".to_string() } else { format!("{}_{}", I::NAME, O::NAME) };
    let input = if tf32 { ferrotile::kernels::gemm::mma::F32 } else { I::KIND };
    let mk = |m, n, k| Spec { tf32, ..Spec::new(m, n, k) };
    // Every tile that has a kernel for the types, on every emulator shape.
    for &tile in MmaTile::ALL {
        if !tile.kernels().any(|kk| kk.config().input == input && kk.config().output == O::KIND && !kk.config().ta && !kk.config().tb) {
            continue;
        }
        for &(m, n, k) in SHAPES {
            let case = Spec { variant: GemmVariant::Mma(tile), alpha: 1.5, beta: -0.75, ..mk(m, n, k) };
            push::<I, O>(v, format!("mma::{tag}::{}::{m}x{n}x{k}", tile.name()), case, false);
        }
        for &(m, n, k) in GPU_SHAPES {
            let case = Spec { variant: GemmVariant::Mma(tile), beta: 0.5, ..mk(m, n, k) };
            push::<I, O>(v, format!("mma::{tag}::{}::{m}x{n}x{k}", tile.name()), case, true);
        }
    }
    // The four orientations, padded leading dimensions, β = 0 with a NaN C.
    for (ta, tb, o) in ORIENTATIONS {
        for &(m, n, k) in &[(33, 47, 41), (129, 65, 19), (8, 8, 8)] {
            let case = Spec { ta, tb, pad: 3, alpha: -1.25, ..mk(m, n, k) };
            push::<I, O>(v, format!("mma::{tag}::{o}::{m}x{n}x{k}"), case, false);
        }
        let case = Spec { ta, tb, beta: 1.0, ..mk(1000, 513, 777) };
        push::<I, O>(v, format!("mma::{tag}::{o}::1000x513x777"), case, true);
    }
    // Packed operands with k odd (rows not 16-byte aligned: staged).
    push::<I, O>(v, format!("mma::{tag}::staged_odd_k::37x45x29"), mk(37, 45, 29), false);
    push::<I, O>(v, format!("mma::{tag}::staged_odd_k_tt::37x45x29"), Spec { ta: true, tb: true, ..mk(37, 45, 29) }, false);
    // Batches: packed, padded strides, A shared by the batch.
    push::<I, O>(v, format!("mma::{tag}::batch3::33x40x24"), Spec { batch: 3, beta: 0.25, ..mk(33, 40, 24) }, false);
    let padded = Spec { batch: 2, strides: Some([33 * 24 + 16, 24 * 40 + 8, 33 * 40 + 40]), ..mk(33, 40, 24) };
    push::<I, O>(v, format!("mma::{tag}::batch2_strided::33x40x24"), padded, false);
    push::<I, O>(v, format!("mma::{tag}::batch4_shared_a::17x24x16"), Spec { batch: 4, strides: Some([0, 16 * 24, 17 * 24]), ..mk(17, 24, 16) }, false);
    push::<I, O>(v, format!("mma::{tag}::batch64::128x128x64"), Spec { batch: 64, ..mk(128, 128, 64) }, true);
    push::<I, O>(v, format!("mma::{tag}::batch256_tn::129x127x65"), Spec { batch: 256, ta: true, ..mk(129, 127, 65) }, true);
    // The fused epilogue.
    for (act, a) in [(Activation::Relu, "relu"), (Activation::GeluTanh, "gelu")] {
        push::<I, O>(v, format!("mma::{tag}::bias_{a}::45x70x33"), Spec { bias: true, activation: act, beta: 0.5, ..mk(45, 70, 33) }, false);
        push::<I, O>(v, format!("mma::{tag}::bias_{a}::1000x1000x512"), Spec { bias: true, activation: act, ..mk(1000, 1000, 512) }, true);
    }
    // cuBLAS's GemmEx on the same problems (the benchmark's ceiling).
    let cub = move |case: Spec| move |ctx: &Context| match ctx.backend() {
        ferrotile::Backend::Emulator => Ok(()),
        ferrotile::Backend::Cuda => check::<I, O>(ctx, &case, true),
    };
    v.push(crate::common::Case::gpu_only(format!("mma::{tag}::cublas::127x129x33"), cub(Spec { beta: -0.5, ..mk(127, 129, 33) })));
    v.push(crate::common::Case::gpu_only(format!("mma::{tag}::cublas::batch8_tt::65x66x70"), cub(Spec { batch: 8, ta: true, tb: true, ..mk(65, 66, 70) })));
}

fn bad_arguments(ctx: &Context) -> Result<(), String> {
    let a = up(ctx, &[bf16::from_f32(1.0); 64])?;
    let mut c = poisoned(ctx, 64, f32::NAN)?;
    let mut c16 = poisoned(ctx, 64, f16::from_f32(7.0))?;
    let bias = up(ctx, &[0.5f32; 3])?;
    let expect = |what: &str, got: Result<(), Error>, ok: &dyn Fn(&Error) -> bool| match got {
        Err(e) if ok(&e) => Ok(()),
        other => Err(format!("{what}: {other:?}")),
    };
    let g = Gemm::new(8, 8, 8);
    expect("f16 output for bf16 inputs", g.run(ctx, &a, &a, &mut c16), &|e| matches!(e, Error::BadArgument { arg: "c", .. }))?;
    expect("an f32 rung for bf16", g.variant(GemmVariant::Naive).run(ctx, &a, &a, &mut c), &|e| matches!(e, Error::BadArgument { arg: "variant", .. }))?;
    expect(
        "64 × 64 with a transposed A",
        g.transpose_a(true).variant(GemmVariant::Mma(MmaTile::B64x64)).run(ctx, &a, &a, &mut c),
        &|e| matches!(e, Error::BadArgument { arg: "variant", .. }),
    )?;
    expect("short bias", g.run_with_bias(ctx, &a, &a, &bias, &mut c), &|e| matches!(e, Error::LengthMismatch { arg: "bias", .. }))?;
    expect("batch 0", g.batch(0).run(ctx, &a, &a, &mut c), &|e| matches!(e, Error::BadArgument { arg: "batch", .. }))?;
    expect("overlapping C", Gemm::new(2, 4, 4).batch(2).batch_strides(8, 16, 4).run(ctx, &a, &a, &mut c), &|e| {
        matches!(e, Error::BadArgument { arg: "batch_strides", .. })
    })?;
    expect("batch past the buffer", Gemm::new(4, 4, 4).batch(5).run(ctx, &a, &a, &mut c), &|e| matches!(e, Error::LengthMismatch { arg: "a", .. }))?;
    let f = up(ctx, &[1.0f32; 64])?;
    expect("activation on the f32 ladder", g.activation(Activation::Relu).run(ctx, &f, &f, &mut c), &|e| {
        matches!(e, Error::BadArgument { arg: "activation", .. })
    })?;
    expect("a tensor-core tile for f32 without tf32", g.variant(GemmVariant::Mma(MmaTile::B128x128)).run(ctx, &f, &f, &mut c), &|e| {
        matches!(e, Error::BadArgument { arg: "variant", .. })
    })?;
    if !down(&c)?.iter().all(|x| x.is_nan()) {
        return Err("c was written".into());
    }
    let c16_now = down(&c16)?;
    if c16_now.iter().any(|&x| x != f16::from_f32(7.0)) {
        return Err("c16 was written".into());
    }
    Ok(())
}

pub fn cases() -> Vec<crate::common::Case> {
    let mut v = Vec::new();
    cases_for::<bf16, f32>(&mut v, false);
    cases_for::<bf16, bf16>(&mut v, false);
    cases_for::<f16, f32>(&mut v, false);
    cases_for::<f16, f16>(&mut v, false);
    cases_for::<f32, f32>(&mut v, true);
    v.push(crate::common::Case::new("mma::rejects_bad_arguments", bad_arguments));
    v
}
