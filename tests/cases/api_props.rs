//! Property tests over the host API (issue 16, part 3): arbitrary valid and
//! invalid arguments to GEMM, transpose and blur, small enough for the
//! emulator. Every call either returns a typed error naming an argument
//! (nothing launched, the output untouched) or equals the CPU reference;
//! it never panics. Where the arguments are valid by an independent
//! predicate (written here, not the library's) and the variant is the
//! default, the call must succeed; where they are invalid it must fail.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ferrotile::gemm::{Gemm, GemmVariant, MmaTile};
use ferrotile::image::{self, cpu, BlurVariant, DeviceImage, HostImage};
use ferrotile::reference::{gemm_f64, rel_norm_error, GemmSpec};
use ferrotile::transpose::{Transpose, TransposeVariant};
use ferrotile::{Context, Error};
use half::bf16;
use proptest::prelude::{any, prop, prop_oneof, Just, Strategy};
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};

use crate::common::*;

fn runner(cases: u32, seed: u8) -> TestRunner {
    let config = Config { cases, failure_persistence: None, ..Config::default() };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]))
}

/// What a call must have done: `Ok` equal to the reference (checked by
/// the caller), or a typed error naming an argument with nothing launched.
fn typed_refusal(launches_before: u64, e: &Error) -> Result<(), TestCaseError> {
    if !matches!(e, Error::BadArgument { .. } | Error::LengthMismatch { .. }) {
        return Err(TestCaseError::fail(format!("an error that names no argument: {e:?}")));
    }
    if Context::thread_launch_count() != launches_before {
        return Err(TestCaseError::fail(format!("refused ({e}) after launching")));
    }
    Ok(())
}

/// Calls that ran (and matched the reference) and calls refused, per
/// property: both must occur, or the property tests nothing.
#[derive(Default)]
struct Tally {
    ran: std::cell::Cell<u32>,
    refused: std::cell::Cell<u32>,
}

impl Tally {
    fn count(&self, r: &Result<(), TestCaseError>, ran: bool) {
        if r.is_ok() {
            let c = if ran { &self.ran } else { &self.refused };
            c.set(c.get() + 1);
        }
    }
    fn report(&self, what: &str) -> Result<(), String> {
        let (ran, refused) = (self.ran.get(), self.refused.get());
        eprintln!("api_props::{what}: {ran} calls equal to the reference, {refused} refused with a typed error");
        if ran == 0 || refused == 0 {
            return Err(format!("{what}: {ran} ran, {refused} refused: the strategy must draw both"));
        }
        Ok(())
    }
}

fn fail(msg: String) -> TestCaseError {
    TestCaseError::fail(msg)
}

/// A size drawn near the interesting edges, zero included.
fn size(max: usize) -> impl Strategy<Value = usize> {
    prop_oneof![1 => Just(0usize), 2 => Just(1), 8 => 1..=max, 1 => Just(max)]
}

#[derive(Clone, Copy, Debug)]
enum GemmVar {
    Auto,
    Forced(GemmVariant),
}

fn gemm_variants() -> impl Strategy<Value = GemmVar> {
    prop_oneof![
        3 => Just(GemmVar::Auto),
        1 => prop::sample::select(vec![
            GemmVariant::Naive,
            GemmVariant::Blocktile2d,
            GemmVariant::Vectorized,
            GemmVariant::Mma(MmaTile::B64x64),
            GemmVariant::Mma(MmaTile::B128x128),
        ])
        .prop_map(GemmVar::Forced),
    ]
}

/// One GEMM call: shape, leading-dimension slack (negative: too small),
/// transposes, batch, buffer-length slack, types, variant.
#[derive(Clone, Debug)]
struct GemmArgs {
    m: usize,
    n: usize,
    k: usize,
    ld_slack: [i64; 3],
    ta: bool,
    tb: bool,
    batch: usize,
    len_slack: [i64; 3],
    bf16_in: bool,
    tf32: bool,
    variant: GemmVar,
    alpha: f32,
    beta: f32,
}

fn gemm_args() -> impl Strategy<Value = GemmArgs> {
    let slack = prop_oneof![10 => Just(0i64), 1 => -2i64..=3];
    (
        (size(20), size(20), size(20)),
        [slack.clone(), slack.clone(), slack.clone()],
        (any::<bool>(), any::<bool>(), prop_oneof![Just(1usize), 0usize..=3]),
        [slack.clone(), slack.clone(), slack],
        (any::<bool>(), prop::bool::weighted(0.2), gemm_variants()),
        (prop_oneof![Just(1.0f32), -2.0f32..2.0], prop_oneof![Just(0.0f32), -1.0f32..1.0]),
    )
        .prop_map(|((m, n, k), ld_slack, (ta, tb, batch), len_slack, (bf16_in, tf32, variant), (alpha, beta))| GemmArgs {
            m,
            n,
            k,
            ld_slack,
            ta,
            tb,
            batch,
            len_slack,
            bf16_in,
            tf32,
            variant,
            alpha,
            beta,
        })
}

/// `v + slack`, floored at 0.
fn plus(v: usize, slack: i64) -> usize {
    (v as i64 + slack).max(0) as usize
}

fn gemm_case(ctx: &Context, a: &GemmArgs, rng: &mut Rng, tally: &Tally) -> Result<(), TestCaseError> {
    let (m, n, k) = (a.m, a.n, a.k);
    // The stored layouts (rows, cols) and minimum leading dimensions.
    let (ar, ac) = if a.ta { (k, m) } else { (m, k) };
    let (br, bc) = if a.tb { (n, k) } else { (k, n) };
    let lds = [plus(ac, a.ld_slack[0]), plus(bc, a.ld_slack[1]), plus(n, a.ld_slack[2])];
    let dims_ok = m > 0 && n > 0 && k > 0 && a.batch > 0;
    let lds_ok = lds[0] >= ac && lds[1] >= bc && lds[2] >= n;
    let reach = |rows: usize, cols: usize, ld: usize| if rows == 0 || cols == 0 { 0 } else { (rows - 1) * ld + cols };
    let strides = [ar * lds[0], br * lds[1], m * lds[2]];
    let need = [
        a.batch.saturating_sub(1) * strides[0] + reach(ar, ac, lds[0]),
        a.batch.saturating_sub(1) * strides[1] + reach(br, bc, lds[1]),
        a.batch.saturating_sub(1) * strides[2] + reach(m, n, lds[2]),
    ];
    let lens = [plus(need[0], a.len_slack[0]).max(1), plus(need[1], a.len_slack[1]).max(1), plus(need[2], a.len_slack[2]).max(1)];
    let lens_ok = (0..3).all(|i| lens[i] >= need[i]);
    let valid = dims_ok && lds_ok && lens_ok;
    let must_succeed = valid && matches!(a.variant, GemmVar::Auto);

    let mut g = Gemm::new(m, n, k).lda(lds[0]).ldb(lds[1]).ldc(lds[2]).transpose_a(a.ta).transpose_b(a.tb).batch(a.batch);
    g = g.alpha(a.alpha).beta(a.beta).tf32(a.tf32);
    if let GemmVar::Forced(v) = a.variant {
        g = g.variant(v);
    }
    let av = rng.f32s(lens[0]);
    let bv = rng.f32s(lens[1]);
    let cv = rng.f32s(lens[2]);
    let c_buf = up(ctx, &cv).map_err(fail)?;
    let before = Context::thread_launch_count();
    let (result, c_buf) = if a.bf16_in {
        let a16: Vec<bf16> = av.iter().map(|&x| bf16::from_f32(x)).collect();
        let b16: Vec<bf16> = bv.iter().map(|&x| bf16::from_f32(x)).collect();
        let (ab, bb) = (up(ctx, &a16).map_err(fail)?, up(ctx, &b16).map_err(fail)?);
        let mut c_buf = c_buf;
        let r = catch_unwind(AssertUnwindSafe(|| g.run(ctx, &ab, &bb, &mut c_buf)));
        (r, c_buf)
    } else {
        let (ab, bb) = (up(ctx, &av).map_err(fail)?, up(ctx, &bv).map_err(fail)?);
        let mut c_buf = c_buf;
        let r = catch_unwind(AssertUnwindSafe(|| g.run(ctx, &ab, &bb, &mut c_buf)));
        (r, c_buf)
    };
    let got = down(&c_buf).map_err(fail)?;
    match result {
        Err(_) => Err(fail("panicked".into())),
        Ok(Err(e)) => {
            typed_refusal(before, &e)?;
            if must_succeed {
                return Err(fail(format!("valid arguments refused: {e}")));
            }
            let r = exact_f32("c after a refusal", &got, &cv).map_err(fail);
            tally.count(&r, false);
            r
        }
        Ok(Ok(())) => {
            if !valid {
                return Err(fail(format!("invalid arguments accepted (dims {dims_ok}, lds {lds_ok}, lengths {lens_ok})")));
            }
            let round = |x: f32| if a.bf16_in { bf16::from_f32(x).to_f64() } else if a.tf32 { f32::from_bits(ferrotile::kernels::numeric::tf32_rna(x)) as f64 } else { x as f64 };
            let spec = GemmSpec {
                m,
                n,
                k,
                lda: lds[0],
                ldb: lds[1],
                ldc: lds[2],
                ta: a.ta,
                tb: a.tb,
                batch: a.batch,
                strides,
                alpha: a.alpha as f64,
                beta: a.beta as f64,
                activation: Default::default(),
            };
            let a64: Vec<f64> = av.iter().map(|&x| round(x)).collect();
            let b64: Vec<f64> = bv.iter().map(|&x| round(x)).collect();
            let c64: Vec<f64> = cv.iter().map(|&x| x as f64).collect();
            let want = gemm_f64(&spec, &a64, &b64, &c64, None);
            let e = rel_norm_error(&got, &want);
            let tol = if a.bf16_in || a.tf32 { 1e-3 } else { 1e-5 };
            if e > tol {
                return Err(fail(format!("relative norm error {e:.2e} > {tol:.0e}")));
            }
            tally.count(&Ok(()), true);
            Ok(())
        }
    }
}

fn gemm_prop(ctx: &Context) -> Result<(), String> {
    let rng = std::cell::RefCell::new(Rng::new(seed("api_props::gemm")));
    let tally = Tally::default();
    runner(96, 16).run(&gemm_args(), |a| gemm_case(ctx, &a, &mut rng.borrow_mut(), &tally)).map_err(|e| e.to_string())?;
    tally.report("gemm")
}

fn transpose_prop(ctx: &Context) -> Result<(), String> {
    let rng = std::cell::RefCell::new(Rng::new(seed("api_props::transpose")));
    let variant = prop_oneof![2 => Just(None), 1 => prop::sample::select(TransposeVariant::all()).prop_map(Some)];
    let slack = prop_oneof![4 => Just(0i64), 1 => -1i64..=1];
    let strategy = (size(70), size(70), variant, slack.clone(), slack);
    let tally = Tally::default();
    runner(64, 17)
        .run(&strategy, |(nx, ny, v, si, so)| {
            let n = nx * ny;
            let (li, lo) = (plus(n, si), plus(n, so));
            let valid = nx > 0 && ny > 0 && li == n && lo == n;
            let input = rng.borrow_mut().f32s(li);
            let (ib, mut ob) = (up(ctx, &input).map_err(fail)?, poisoned(ctx, lo, f32::NAN).map_err(fail)?);
            let mut t = Transpose::new(nx, ny);
            if let Some(v) = v {
                t = t.variant(v);
            }
            let before = Context::thread_launch_count();
            match catch_unwind(AssertUnwindSafe(|| t.run(ctx, &ib, &mut ob))) {
                Err(_) => Err(fail("panicked".into())),
                Ok(Err(e)) => {
                    typed_refusal(before, &e)?;
                    if valid && v.is_none() {
                        return Err(fail(format!("{nx}x{ny} refused: {e}")));
                    }
                    let out = down(&ob).map_err(fail)?;
                    if out.iter().any(|x| !x.is_nan()) {
                        return Err(fail("output written after a refusal".into()));
                    }
                    tally.count(&Ok(()), false);
                    Ok(())
                }
                Ok(Ok(())) => {
                    if !valid {
                        return Err(fail(format!("{nx}x{ny} with lengths {li}, {lo} accepted")));
                    }
                    let want = ferrotile::reference::transpose(&input, nx, ny);
                    let r = exact_f32(&format!("{v:?} {nx}x{ny}"), &down(&ob).map_err(fail)?, &want).map_err(fail);
                    tally.count(&r, true);
                    r
                }
            }
        })
        .map_err(|e| e.to_string())?;
    tally.report("transpose")
}

fn blur_prop(ctx: &Context) -> Result<(), String> {
    let rng = std::cell::RefCell::new(Rng::new(seed("api_props::blur")));
    let variant = prop_oneof![2 => Just(None), 1 => prop::sample::select(BlurVariant::ALL.to_vec()).prop_map(Some)];
    let radius = prop_oneof![0u32..=4, 0u32..=40, Just(255u32), Just(256u32), Just(1000u32)];
    let shape = (size(40), size(12), 1usize..=4);
    let dst_off = prop_oneof![5 => Just((0usize, 0usize, 0usize)), 1 => (0usize..=1, 0usize..=1, 0usize..=1)];
    let tally = Tally::default();
    runner(64, 18)
        .run(&(shape, radius, variant, dst_off), |((w, h, c), r, v, (dw, dh, dc))| {
            let img = match catch_unwind(|| HostImage::new(w, h, c, vec![0u8; w * h * c])) {
                Err(_) => return Err(fail("Image::new panicked".into())),
                Ok(Err(e)) => {
                    return if w == 0 || h == 0 {
                        typed_refusal(Context::thread_launch_count(), &e)
                    } else {
                        Err(fail(format!("{w}x{h}x{c} refused: {e}")))
                    };
                }
                Ok(Ok(_)) if w == 0 || h == 0 => return Err(fail("an empty image accepted".into())),
                Ok(Ok(_)) => HostImage::new(w, h, c, rng.borrow_mut().u8s(w * h * c)).expect("checked"),
            };
            let (dw, dh, dc) = (w + dw, h + dh, (c + dc).min(4));
            let src = DeviceImage::upload(ctx, &img).map_err(|e| fail(e.to_string()))?;
            let mut dst = DeviceImage::alloc(ctx, dw, dh, dc).map_err(|e| fail(e.to_string()))?;
            dst.fill(0xAB).map_err(|e| fail(e.to_string()))?;
            let valid = (dw, dh, dc) == (w, h, c) && r <= 255 && v.is_none_or(|v| v.supports(w, c, r));
            let before = Context::thread_launch_count();
            let result = catch_unwind(AssertUnwindSafe(|| match v {
                Some(v) => image::blur_with(ctx, v, &src, &mut dst, r),
                None => image::blur(ctx, &src, &mut dst, r),
            }));
            match result {
                Err(_) => Err(fail("panicked".into())),
                Ok(Err(e)) => {
                    typed_refusal(before, &e)?;
                    if valid {
                        return Err(fail(format!("{v:?} {w}x{h}x{c} r{r} refused: {e}")));
                    }
                    let out = dst.download().map_err(|e| fail(e.to_string()))?;
                    if out.data().iter().any(|&b| b != 0xAB) {
                        return Err(fail("dst written after a refusal".into()));
                    }
                    tally.count(&Ok(()), false);
                    Ok(())
                }
                Ok(Ok(())) => {
                    if !valid {
                        return Err(fail(format!("{v:?} {w}x{h}x{c} r{r} into {dw}x{dh}x{dc} accepted")));
                    }
                    let want = cpu::blur(&img, r);
                    let got = dst.download().map_err(|e| fail(e.to_string()))?;
                    let r = exact(&format!("{v:?} {w}x{h}x{c} r{r}"), got.data(), want.data()).map_err(fail);
                    tally.count(&r, true);
                    r
                }
            }
        })
        .map_err(|e| e.to_string())?;
    tally.report("blur")
}

/// The cases.
pub fn cases() -> Vec<Case> {
    vec![
        Case::new("api_props::gemm_typed_error_or_reference", gemm_prop),
        Case::new("api_props::transpose_typed_error_or_reference", transpose_prop),
        Case::new("api_props::blur_typed_error_or_reference", blur_prop),
    ]
}
