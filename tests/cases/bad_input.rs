//! The bad-input matrix (issue 16, part 2): every public host function ×
//! every class of bad input, generated from one table ([`table`]).
//!
//! Each cell is one of
//! * **refuse**: one or more calls, each of which must return a typed
//!   [`Error`] naming the expected argument (and mentioning the sizes
//!   given), launch nothing (`Context::thread_launch_count`, the
//!   launches this thread submitted on any context, unchanged), panic nowhere (`catch_unwind`), and leave every buffer it
//!   was given byte-for-byte as it was (inputs and the poisoned outputs);
//! * **valid**: an input that looks suspicious but is defined (a blur
//!   radius beyond the image, a zero-length copy): it runs and equals the
//!   CPU reference;
//! * **n/a**: why the class cannot arise for the function (most often:
//!   the type system or an invariant kept by construction rules it out).
//!
//! `bad_input::matrix_is_complete` fails when a function lacks a row for a
//! class, and when a public function taking a `&Context` appears in
//! `host/src/` without being listed in [`FUNCTIONS`] (or in the short
//! list of functions that validate nothing because they launch nothing):
//! a new public function cannot skip the matrix.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use ferrotile::gemm::{bias_activation, Activation, Gemm, GemmVariant, MmaTile, WgmmaTile};
use ferrotile::image::{self, cpu, BlurVariant, DeviceImage, GrayVariant, HostImage, Image};
use ferrotile::kernels::image::index::{MAX_BLUR_RADIUS, MAX_TILED_RADIUS};
use ferrotile::transpose::{Transpose, TransposeVariant};
use ferrotile::{Buffer, Context, Element, Error, VecAddVariant};
use half::bf16;

use crate::common::*;

/// The classes of bad input (the list; dtype and transposes of a
/// forced variant are one class, with an image's channel count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// A buffer shorter (or, where the length is exact, longer) than the
    /// other arguments imply.
    WrongLength,
    /// A dimension, count or strip height of zero.
    ZeroDim,
    /// Two operands that disagree on a dimension they share (GEMM's `k`,
    /// an output image of another shape, a per-plane vector of another
    /// plane count).
    InnerMismatch,
    /// A leading dimension smaller than the row it holds.
    LdTooSmall,
    /// A buffer allocated on another context (another emulator; on CUDA,
    /// the emulator: another backend).
    ForeignContext,
    /// One buffer as input and output where the kernel forbids it.
    Aliasing,
    /// Image bytes that are not `width · height · channels`.
    ImageBytes,
    /// A blur radius larger than the image (defined: the window is clipped).
    RadiusBeyondImage,
    /// A blur radius over what the kernel (or any kernel) handles.
    RadiusOverLimit,
    /// Sizes whose linear index does not fit the kernels' 32-bit indices.
    IndexOverflow,
    /// Types, transposes or channels a forced variant has no kernel for.
    ForcedVariant,
}

impl Class {
    /// Every class, in the order of the report.
    pub const ALL: &'static [Class] = &[
        Class::WrongLength,
        Class::ZeroDim,
        Class::InnerMismatch,
        Class::LdTooSmall,
        Class::ForeignContext,
        Class::Aliasing,
        Class::ImageBytes,
        Class::RadiusBeyondImage,
        Class::RadiusOverLimit,
        Class::IndexOverflow,
        Class::ForcedVariant,
    ];

    fn name(self) -> &'static str {
        match self {
            Class::WrongLength => "wrong_length",
            Class::ZeroDim => "zero_dim",
            Class::InnerMismatch => "inner_mismatch",
            Class::LdTooSmall => "ld_too_small",
            Class::ForeignContext => "foreign_context",
            Class::Aliasing => "aliasing",
            Class::ImageBytes => "image_bytes",
            Class::RadiusBeyondImage => "radius_beyond_image",
            Class::RadiusOverLimit => "radius_over_limit",
            Class::IndexOverflow => "index_overflow",
            Class::ForcedVariant => "forced_variant",
        }
    }
}

/// A public function (or a function and the thin wrappers that only pick
/// its variant) under test: its name in the report and the `file:fn`
/// entries of `host/src/` it covers.
pub struct Function {
    pub name: &'static str,
    pub covers: &'static [&'static str],
    /// Only on CUDA (cuBLAS).
    pub gpu_only: bool,
}

/// Every function of the matrix.
pub const FUNCTIONS: &[Function] = &[
    Function { name: "gemm_simt", covers: &["gemm/mod.rs:run"], gpu_only: false },
    Function { name: "gemm_mma", covers: &["gemm/mod.rs:run"], gpu_only: false },
    Function { name: "gemm_wgmma", covers: &["gemm/mod.rs:run"], gpu_only: false },
    Function { name: "gemm_run_with_bias", covers: &["gemm/mod.rs:run_with_bias"], gpu_only: false },
    Function { name: "bias_activation", covers: &["gemm/mod.rs:bias_activation"], gpu_only: false },
    Function { name: "transpose", covers: &["transpose.rs:run"], gpu_only: false },
    Function { name: "vec_add", covers: &["vec_add.rs:vec_add", "vec_add.rs:vec_add_with"], gpu_only: false },
    Function {
        name: "image_shape",
        covers: &["image/mod.rs:new", "image/mod.rs:alloc", "image/mod.rs:image_bytes", "image/mod.rs:from_fn"],
        gpu_only: false,
    },
    Function { name: "rgb_to_gray", covers: &["image/gray.rs:rgb_to_gray", "image/gray.rs:rgb_to_gray_with"], gpu_only: false },
    Function { name: "blur", covers: &["image/blur.rs:blur", "image/blur.rs:blur_with"], gpu_only: false },
    Function { name: "blur_strips", covers: &["image/blur.rs:blur_sliding", "image/blur.rs:blur_strips", "image/blur.rs:blur_window"], gpu_only: false },
    Function {
        name: "blur_experiments",
        covers: &["image/experiments.rs:blur_sliding_sums_experiment", "image/experiments.rs:blur_sliding_prefetch"],
        gpu_only: false,
    },
    Function { name: "volume_affine", covers: &["image/volume.rs:volume_affine"], gpu_only: false },
    Function {
        name: "buffer_copy_from",
        covers: &["backend.rs:copy_from", "image/mod.rs:copy_from", "backend.rs:fill", "image/mod.rs:fill"],
        gpu_only: false,
    },
    Function { name: "buffer_copy_from_buffer", covers: &["backend.rs:copy_from_buffer"], gpu_only: false },
    Function { name: "cublas", covers: &["cublas.rs:new", "cublas.rs:gemm", "cublas.rs:sgemm", "cublas.rs:cublas_sgemm"], gpu_only: true },
];

/// Public functions taking a `&Context` that launch nothing and validate
/// nothing a caller could get wrong, so they have no row.
const LAUNCH_NOTHING: &[(&str, &str)] = &[
    ("image/mod.rs:upload", "copies an image that is valid by construction"),
    ("image/strips.rs:sliding_sums_strip_rows", "a heuristic over any usize: returns a number, launches nothing"),
    ("image/strips.rs:sliding_sums_strip_rows_for_waves", "a heuristic over any usize: returns a number, launches nothing"),
    ("image/strips.rs:sliding_strip_rows", "a heuristic over any usize: returns a number, launches nothing"),
    ("gemm/mod.rs:resolved_variant_on", "validates as `run` does and launches nothing"),
    ("gemm/mod.rs:split_k_slices_on", "validates as `run` does and launches nothing (the split `run` would choose)"),
    ("gemm/mod.rs:split_k_plan_on", "validates as `run` does and launches nothing (the split `run` would choose)"),
    ("gemm/mod.rs:peel_plan_on", "validates as `run` does (its errors are `run`'s) and launches nothing (the peeling `run` would choose)"),
    ("gemm/mod.rs:transposed_twin_on", "validates as `run` does (its errors are `run`'s) and launches nothing (the twin `run` would choose)"),
    ("interop.rs:from_cudarc", "launches nothing; its refusals (an emulator context, a slice of another context) hand the slice back and are tested in tests/cases/interop.rs"),
    ("image/strips.rs:window_strip_rows", "a heuristic over any usize: returns a number, launches nothing"),
    ("backend.rs:same_as", "compares two contexts"),
    ("multi/mod.rs:context", "returns a rank's context; the group's functions take a &DeviceGroup, refused in tests/cases/multi.rs (bad_input)"),
    ("workload.rs:run", "hidden stress/soak workload: valid calls of the functions above, verified"),
    ("probe.rs:cvt", "hidden warp probes of the experiments build (tests only)"),
    ("probe.rs:ldmatrix", "hidden warp probes of the experiments build (tests only)"),
    ("probe.rs:mma", "hidden warp probes of the experiments build (tests only)"),
    ("probe.rs:shfl", "hidden warp probes of the experiments build (tests only)"),
    ("probe.rs:trap", "hidden device-fault probe of the experiments build (tests/device_fault.rs)"),
];

/// Why aliasing cannot be written: every launching function takes its
/// output as `&mut Buffer` (or `&mut DeviceImage`) and its inputs as `&`,
/// so passing one buffer as both is a borrow error at compile time
/// (`compile_fail` doctest on `ferrotile::Buffer`).
const NO_ALIASING: &str = "the output is `&mut`, the inputs `&`: the same buffer as both does not compile (E0502; doctest on Buffer)";
const NO_IMAGE: &str = "takes no image";
const NO_RADIUS: &str = "takes no radius";
const NO_LD: &str = "packed rows: no leading dimension";
const IMAGE_BY_CONSTRUCTION: &str = "an image holds width·height·channels ≤ u32::MAX bytes by construction (image_shape rows)";

/// One call and what it must produce.
pub struct Attempt {
    what: &'static str,
    expect_arg: &'static str,
    mentions: Vec<String>,
    result: std::thread::Result<ferrotile::Result<()>>,
    launched: u64,
    untouched: bool,
}

type Check = Arc<dyn Fn(&Env) -> Result<(), String> + Send + Sync>;
type Attempts = Arc<dyn Fn(&Env) -> Vec<Attempt> + Send + Sync>;

/// What a cell of the matrix holds.
pub enum Cell {
    Refuse(Attempts),
    Valid(Check),
    NotApplicable(&'static str),
}

/// One cell.
pub struct Row {
    pub function: &'static str,
    pub class: Class,
    pub cell: Cell,
}

/// The contexts a cell runs with: the one under test and another one.
pub struct Env<'a> {
    pub ctx: &'a Context,
    pub other: Context,
    rng: std::cell::RefCell<Rng>,
}

impl Env<'_> {
    /// Launches by this thread on any context (the test harness runs other
    /// cases on the same contexts from other threads).
    fn launches(&self) -> u64 {
        Context::thread_launch_count()
    }
    fn f32s(&self, n: usize) -> Buffer<f32> {
        let v = self.rng.borrow_mut().f32s(n);
        self.ctx.upload(&v).expect("upload")
    }
    fn foreign_f32s(&self, n: usize) -> Buffer<f32> {
        let v = self.rng.borrow_mut().f32s(n);
        self.other.upload(&v).expect("upload")
    }
    fn bf16s(&self, n: usize) -> Buffer<bf16> {
        let v: Vec<bf16> = self.rng.borrow_mut().f32s(n).into_iter().map(bf16::from_f32).collect();
        self.ctx.upload(&v).expect("upload")
    }
    fn foreign_bf16s(&self, n: usize) -> Buffer<bf16> {
        let v: Vec<bf16> = self.rng.borrow_mut().f32s(n).into_iter().map(bf16::from_f32).collect();
        self.other.upload(&v).expect("upload")
    }
    /// An output poisoned with 7.0 (any write shows).
    fn out<T: Element + From<u8>>(&self, n: usize) -> Buffer<T> {
        let mut b = self.ctx.alloc::<T>(n).expect("alloc");
        b.fill(T::from(7)).expect("fill");
        b
    }
    fn foreign_out<T: Element + From<u8>>(&self, n: usize) -> Buffer<T> {
        let mut b = self.other.alloc::<T>(n).expect("alloc");
        b.fill(T::from(7)).expect("fill");
        b
    }
    fn host_image(&self, w: usize, h: usize, c: usize) -> HostImage {
        let v = self.rng.borrow_mut().u8s(w * h * c);
        Image::new(w, h, c, v).expect("image")
    }
    fn image(&self, w: usize, h: usize, c: usize) -> DeviceImage {
        DeviceImage::upload(self.ctx, &self.host_image(w, h, c)).expect("upload")
    }
    fn foreign_image(&self, w: usize, h: usize, c: usize) -> DeviceImage {
        DeviceImage::upload(&self.other, &self.host_image(w, h, c)).expect("upload")
    }
    fn out_image(&self, w: usize, h: usize, c: usize) -> DeviceImage {
        let mut d = DeviceImage::alloc(self.ctx, w, h, c).expect("alloc");
        d.fill(0xAB).expect("fill");
        d
    }
    fn foreign_out_image(&self, w: usize, h: usize, c: usize) -> DeviceImage {
        let mut d = DeviceImage::alloc(&self.other, w, h, c).expect("alloc");
        d.fill(0xAB).expect("fill");
        d
    }
}

/// A byte-exact snapshot of what a buffer holds.
pub trait Snap {
    fn snap(&self) -> Vec<String>;
}
impl<T: Element> Snap for Buffer<T> {
    fn snap(&self) -> Vec<String> {
        self.download().expect("download").iter().map(|x| format!("{x:?}")).collect()
    }
}
impl Snap for DeviceImage {
    fn snap(&self) -> Vec<String> {
        self.data().snap()
    }
}
impl Snap for Vec<u8> {
    fn snap(&self) -> Vec<String> {
        self.iter().map(|x| x.to_string()).collect()
    }
}

/// `attempt!(env, "arg", [mentions…], [buffers…], call)`: runs `call`
/// under `catch_unwind`, recording launches and whether `buffers` kept
/// their contents.
macro_rules! attempt {
    ($e:expr, $arg:literal, [$($m:expr),*], [$($b:expr),*], $call:expr) => {{
        let e: &Env = $e;
        let before: Vec<Vec<String>> = vec![$(Snap::snap(&$b)),*];
        let n0 = e.launches();
        let result = catch_unwind(AssertUnwindSafe(|| $call.map(|_| ())));
        let launched = e.launches() - n0;
        let after: Vec<Vec<String>> = vec![$(Snap::snap(&$b)),*];
        Attempt {
            what: stringify!($call),
            expect_arg: $arg,
            mentions: vec![$($m.to_string()),*],
            result,
            launched,
            untouched: before == after,
        }
    }};
}

fn refuse(function: &'static str, class: Class, f: impl Fn(&Env) -> Vec<Attempt> + Send + Sync + 'static) -> Row {
    Row { function, class, cell: Cell::Refuse(Arc::new(f)) }
}
fn valid(function: &'static str, class: Class, f: impl Fn(&Env) -> Result<(), String> + Send + Sync + 'static) -> Row {
    Row { function, class, cell: Cell::Valid(Arc::new(f)) }
}
fn na(function: &'static str, class: Class, why: &'static str) -> Row {
    Row { function, class, cell: Cell::NotApplicable(why) }
}

/// The argument an error names, if it names one.
fn named_arg(e: &Error) -> Option<&'static str> {
    match e {
        Error::BadArgument { arg, .. } | Error::LengthMismatch { arg, .. } => Some(arg),
        _ => None,
    }
}

/// Checks every attempt of a refuse cell.
pub fn judge(attempts: &[Attempt]) -> Result<(), String> {
    if attempts.is_empty() {
        return Err("a refuse cell without an attempt".into());
    }
    for a in attempts {
        let err = match &a.result {
            Err(_) => return Err(format!("{}: panicked", a.what)),
            Ok(Ok(())) => return Err(format!("{}: succeeded; expected an error naming `{}`", a.what, a.expect_arg)),
            Ok(Err(e)) => e,
        };
        if named_arg(err) != Some(a.expect_arg) {
            return Err(format!("{}: expected an error naming `{}`, got {err:?}", a.what, a.expect_arg));
        }
        let text = err.to_string();
        if let Some(m) = a.mentions.iter().find(|m| !text.contains(m.as_str())) {
            return Err(format!("{}: the message {text:?} does not mention {m:?}", a.what));
        }
        if a.launched != 0 {
            return Err(format!("{}: refused, but {} launch(es) were submitted", a.what, a.launched));
        }
        if !a.untouched {
            return Err(format!("{}: refused, but a buffer it was given changed", a.what));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------

/// GEMM shape of the cells: A 5 × 7, B 7 × 6, C 5 × 6.
const M: usize = 5;
const N: usize = 6;
const K: usize = 7;
const BIG: usize = 1 << 32;

/// Every cell of the matrix.
pub fn table() -> Vec<Row> {
    let mut t = Vec::new();
    t.extend(gemm_simt());
    t.extend(gemm_tensor("gemm_mma", GemmVariant::Mma(MmaTile::B64x64)));
    t.extend(gemm_tensor("gemm_wgmma", GemmVariant::Wgmma(WgmmaTile::B128x128)));
    t.extend(gemm_bias());
    t.extend(bias_act());
    t.extend(transpose());
    t.extend(vec_add());
    t.extend(image_shape());
    t.extend(gray());
    t.extend(blur());
    t.extend(blur_strips());
    t.extend(blur_experiments());
    t.extend(volume());
    t.extend(copy_from());
    t.extend(copy_from_buffer());
    t.extend(cublas());
    t
}

fn gemm_simt() -> Vec<Row> {
    use Class::*;
    const F: &str = "gemm_simt";
    let g = Gemm::new(M, N, K);
    vec![
        refuse(F, WrongLength, move |e| {
            let (a, b, mut c) = (e.f32s(M * K - 1), e.f32s(K * N), e.out::<f32>(M * N));
            let (a2, b2, mut c2) = (e.f32s(M * K), e.f32s(K * N), e.out::<f32>(M * N - 1));
            vec![
                attempt!(e, "a", ["35", "34"], [a, b, c], g.run(e.ctx, &a, &b, &mut c)),
                attempt!(e, "c", ["30", "29"], [a2, b2, c2], g.run(e.ctx, &a2, &b2, &mut c2)),
            ]
        }),
        refuse(F, ZeroDim, move |e| {
            let (a, b, mut c) = (e.f32s(M * K), e.f32s(K * N), e.out::<f32>(M * N));
            vec![
                attempt!(e, "m", ["0"], [a, b, c], Gemm::new(0, N, K).run(e.ctx, &a, &b, &mut c)),
                attempt!(e, "n", ["0"], [a, b, c], Gemm::new(M, 0, K).run(e.ctx, &a, &b, &mut c)),
                attempt!(e, "k", ["0"], [a, b, c], Gemm::new(M, N, 0).run(e.ctx, &a, &b, &mut c)),
                attempt!(e, "batch", ["0"], [a, b, c], g.batch(0).run(e.ctx, &a, &b, &mut c)),
            ]
        }),
        refuse(F, InnerMismatch, move |e| {
            // B sized for k = 6 against A's k = 7.
            let (a, b, mut c) = (e.f32s(M * K), e.f32s((K - 1) * N), e.out::<f32>(M * N));
            vec![attempt!(e, "b", ["42", "36"], [a, b, c], g.run(e.ctx, &a, &b, &mut c))]
        }),
        refuse(F, LdTooSmall, move |e| {
            let (a, b, mut c) = (e.f32s(M * K), e.f32s(K * N), e.out::<f32>(M * N));
            vec![
                attempt!(e, "lda", ["6", "7"], [a, b, c], g.lda(6).run(e.ctx, &a, &b, &mut c)),
                attempt!(e, "ldb", ["5", "6"], [a, b, c], g.ldb(5).run(e.ctx, &a, &b, &mut c)),
                attempt!(e, "ldc", ["5", "6"], [a, b, c], g.ldc(5).run(e.ctx, &a, &b, &mut c)),
                attempt!(e, "lda", ["4", "5"], [a, b, c], g.transpose_a(true).lda(4).run(e.ctx, &a, &b, &mut c)),
                attempt!(e, "ldb", ["6", "7"], [a, b, c], g.transpose_b(true).ldb(6).run(e.ctx, &a, &b, &mut c)),
            ]
        }),
        refuse(F, ForeignContext, move |e| {
            let (a, b, mut c) = (e.f32s(M * K), e.f32s(K * N), e.out::<f32>(M * N));
            let (fa, fb, mut fc) = (e.foreign_f32s(M * K), e.foreign_f32s(K * N), e.foreign_out::<f32>(M * N));
            vec![
                attempt!(e, "a", [], [fa, b, c], g.run(e.ctx, &fa, &b, &mut c)),
                attempt!(e, "b", [], [a, fb, c], g.run(e.ctx, &a, &fb, &mut c)),
                attempt!(e, "c", [], [a, b, fc], g.run(e.ctx, &a, &b, &mut fc)),
            ]
        }),
        na(F, Aliasing, NO_ALIASING),
        na(F, ImageBytes, NO_IMAGE),
        na(F, RadiusBeyondImage, NO_RADIUS),
        na(F, RadiusOverLimit, NO_RADIUS),
        refuse(F, IndexOverflow, move |e| {
            // A dimension past u32 is a typed error (the kernels' indices
            // are 32-bit; element offsets are computed in usize, so only
            // each dimension, not m·k, must fit). Nothing is allocated:
            // the shape is refused before the buffers are looked at.
            let (a, b, mut c) = (e.f32s(M * K), e.f32s(K * N), e.out::<f32>(M * N));
            vec![
                attempt!(e, "m", ["4294967296", "32-bit"], [a, b, c], Gemm::new(BIG, N, K).run(e.ctx, &a, &b, &mut c)),
                attempt!(e, "k", ["4294967296"], [a, b, c], Gemm::new(M, N, BIG).run(e.ctx, &a, &b, &mut c)),
                attempt!(e, "ldc", ["4294967296"], [a, b, c], g.ldc(BIG).run(e.ctx, &a, &b, &mut c)),
            ]
        }),
        refuse(F, ForcedVariant, move |e| {
            let (a, b, mut c) = (e.f32s(M * K), e.f32s(K * N), e.out::<f32>(M * N));
            let mut c16 = e.out::<bf16>(M * N);
            vec![
                attempt!(e, "variant", ["sgemm_vectorized"], [a, b, c], g.transpose_a(true).variant(GemmVariant::Vectorized).run(e.ctx, &a, &b, &mut c)),
                attempt!(e, "lda", ["7", "multiple of 4"], [a, b, c], g.variant(GemmVariant::Vectorized).run(e.ctx, &a, &b, &mut c)),
                attempt!(e, "variant", ["mma_64x64"], [a, b, c], g.variant(GemmVariant::Mma(MmaTile::B64x64)).run(e.ctx, &a, &b, &mut c)),
                attempt!(e, "variant", ["wgmma_128x128"], [a, b, c], g.variant(GemmVariant::Wgmma(WgmmaTile::B128x128)).run(e.ctx, &a, &b, &mut c)),
                attempt!(e, "activation", ["sgemm"], [a, b, c], g.activation(Activation::Relu).run(e.ctx, &a, &b, &mut c)),
                attempt!(e, "c", ["bf16", "f32"], [a, b, c16], g.run(e.ctx, &a, &b, &mut c16)),
            ]
        }),
    ]
}

/// The tensor-core engines (bf16 in, f32 out) with a forced tile.
fn gemm_tensor(f: &'static str, v: GemmVariant) -> Vec<Row> {
    use Class::*;
    let g = Gemm::new(M, N, K).variant(v);
    let name = v.name();
    vec![
        refuse(f, WrongLength, move |e| {
            let (a, b, mut c) = (e.bf16s(M * K), e.bf16s(K * N), e.out::<f32>(M * N - 1));
            vec![attempt!(e, "c", ["30", "29"], [a, b, c], g.run(e.ctx, &a, &b, &mut c))]
        }),
        refuse(f, ZeroDim, move |e| {
            let (a, b, mut c) = (e.bf16s(M * K), e.bf16s(K * N), e.out::<f32>(M * N));
            vec![
                attempt!(e, "k", ["0"], [a, b, c], Gemm::new(M, N, 0).variant(v).run(e.ctx, &a, &b, &mut c)),
                attempt!(e, "batch", ["0"], [a, b, c], g.batch(0).run(e.ctx, &a, &b, &mut c)),
            ]
        }),
        refuse(f, InnerMismatch, move |e| {
            let (a, b, mut c) = (e.bf16s(M * (K - 1)), e.bf16s(K * N), e.out::<f32>(M * N));
            vec![attempt!(e, "a", ["35", "30"], [a, b, c], g.run(e.ctx, &a, &b, &mut c))]
        }),
        refuse(f, LdTooSmall, move |e| {
            let (a, b, mut c) = (e.bf16s(M * K), e.bf16s(K * N), e.out::<f32>(M * N));
            vec![
                attempt!(e, "lda", ["6", "7"], [a, b, c], g.lda(6).run(e.ctx, &a, &b, &mut c)),
                attempt!(e, "ldc", ["2", "6"], [a, b, c], g.ldc(2).run(e.ctx, &a, &b, &mut c)),
            ]
        }),
        refuse(f, ForeignContext, move |e| {
            let (a, b, mut c) = (e.bf16s(M * K), e.bf16s(K * N), e.out::<f32>(M * N));
            let (fb, mut fc) = (e.foreign_bf16s(K * N), e.foreign_out::<f32>(M * N));
            vec![
                attempt!(e, "b", [], [a, fb, c], g.run(e.ctx, &a, &fb, &mut c)),
                attempt!(e, "c", [], [a, b, fc], g.run(e.ctx, &a, &b, &mut fc)),
            ]
        }),
        na(f, Aliasing, NO_ALIASING),
        na(f, ImageBytes, NO_IMAGE),
        na(f, RadiusBeyondImage, NO_RADIUS),
        na(f, RadiusOverLimit, NO_RADIUS),
        refuse(f, IndexOverflow, move |e| {
            let (a, b, mut c) = (e.bf16s(M * K), e.bf16s(K * N), e.out::<f32>(M * N));
            vec![attempt!(e, "n", ["4294967296"], [a, b, c], Gemm::new(M, BIG, K).variant(v).run(e.ctx, &a, &b, &mut c))]
        }),
        refuse(f, ForcedVariant, move |e| {
            let (a, b, mut c) = (e.bf16s(M * K), e.bf16s(K * N), e.out::<f32>(M * N));
            let (a32, b32) = (e.f32s(M * K), e.f32s(K * N));
            let mut c16 = e.out::<half::f16>(M * N);
            let mut attempts = vec![
                // bf16 in, f16 out: no kernel of any engine.
                attempt!(e, "c", ["f16", "bf16"], [a, b, c16], g.run(e.ctx, &a, &b, &mut c16)),
                // f32 inputs without .tf32(true) on a tensor-core tile.
                attempt!(e, "variant", [name], [a32, b32, c], g.run(e.ctx, &a32, &b32, &mut c)),
            ];
            // Transposed A for bf16 → f32: the 64 × 64 mma tile and the
            // 128 × 256 wgmma tile have row-major kernels only.
            let narrow = match v {
                GemmVariant::Wgmma(_) => GemmVariant::Wgmma(WgmmaTile::B128x256),
                _ => v,
            };
            let gt = Gemm::new(M, N, K).variant(narrow).transpose_a(true);
            attempts.push(attempt!(e, "variant", ["transposed"], [a, b, c], gt.run(e.ctx, &a, &b, &mut c)));
            attempts
        }),
    ]
}

fn gemm_bias() -> Vec<Row> {
    use Class::*;
    const F: &str = "gemm_run_with_bias";
    let g = Gemm::new(M, N, K).activation(Activation::Relu);
    vec![
        refuse(F, WrongLength, move |e| {
            let (a, b, bias, mut c) = (e.bf16s(M * K), e.bf16s(K * N), e.f32s(N - 1), e.out::<f32>(M * N));
            vec![attempt!(e, "bias", ["6", "5"], [a, b, bias, c], g.run_with_bias(e.ctx, &a, &b, &bias, &mut c))]
        }),
        refuse(F, ZeroDim, move |e| {
            let (a, b, bias, mut c) = (e.bf16s(M * K), e.bf16s(K * N), e.f32s(N), e.out::<f32>(M * N));
            vec![attempt!(e, "n", ["0"], [a, b, bias, c], Gemm::new(M, 0, K).run_with_bias(e.ctx, &a, &b, &bias, &mut c))]
        }),
        refuse(F, InnerMismatch, move |e| {
            let (a, b, bias, mut c) = (e.bf16s(M * (K + 1)), e.bf16s((K + 1) * N - 1), e.f32s(N), e.out::<f32>(M * N));
            vec![attempt!(e, "b", ["48", "47"], [a, b, bias, c], Gemm::new(M, N, K + 1).run_with_bias(e.ctx, &a, &b, &bias, &mut c))]
        }),
        refuse(F, LdTooSmall, move |e| {
            let (a, b, bias, mut c) = (e.bf16s(M * K), e.bf16s(K * N), e.f32s(N), e.out::<f32>(M * N));
            vec![attempt!(e, "ldb", ["3", "6"], [a, b, bias, c], g.ldb(3).run_with_bias(e.ctx, &a, &b, &bias, &mut c))]
        }),
        refuse(F, ForeignContext, move |e| {
            let (a, b, fbias, mut c) = (e.bf16s(M * K), e.bf16s(K * N), e.foreign_f32s(N), e.out::<f32>(M * N));
            vec![attempt!(e, "bias", [], [a, b, fbias, c], g.run_with_bias(e.ctx, &a, &b, &fbias, &mut c))]
        }),
        na(F, Aliasing, NO_ALIASING),
        na(F, ImageBytes, NO_IMAGE),
        na(F, RadiusBeyondImage, NO_RADIUS),
        na(F, RadiusOverLimit, NO_RADIUS),
        refuse(F, IndexOverflow, move |e| {
            let (a, b, bias, mut c) = (e.bf16s(M * K), e.bf16s(K * N), e.f32s(N), e.out::<f32>(M * N));
            vec![attempt!(e, "lda", ["4294967296"], [a, b, bias, c], g.lda(BIG).run_with_bias(e.ctx, &a, &b, &bias, &mut c))]
        }),
        refuse(F, ForcedVariant, move |e| {
            // A bias on the f32 ladder: it has no fused epilogue.
            let (a, b, bias, mut c) = (e.f32s(M * K), e.f32s(K * N), e.f32s(N), e.out::<f32>(M * N));
            vec![attempt!(e, "bias", ["sgemm"], [a, b, bias, c], Gemm::new(M, N, K).run_with_bias(e.ctx, &a, &b, &bias, &mut c))]
        }),
    ]
}

fn bias_act() -> Vec<Row> {
    use Class::*;
    const F: &str = "bias_activation";
    let act = Activation::GeluTanh;
    vec![
        refuse(F, WrongLength, move |e| {
            let (mut x, bias) = (e.out::<f32>(4 * 6 - 1), e.f32s(6));
            vec![attempt!(e, "x", ["24", "23"], [x, bias], bias_activation(e.ctx, &mut x, &bias, act, (4, 6, 6)))]
        }),
        refuse(F, ZeroDim, move |e| {
            let (mut x, bias) = (e.out::<f32>(24), e.f32s(6));
            vec![
                attempt!(e, "rows", ["0"], [x, bias], bias_activation(e.ctx, &mut x, &bias, act, (0, 6, 6))),
                attempt!(e, "cols", ["0"], [x, bias], bias_activation(e.ctx, &mut x, &bias, act, (4, 0, 6))),
                attempt!(e, "ld", ["0"], [x, bias], bias_activation(e.ctx, &mut x, &bias, act, (4, 6, 0))),
            ]
        }),
        refuse(F, InnerMismatch, move |e| {
            let (mut x, bias) = (e.out::<f32>(24), e.f32s(5));
            vec![attempt!(e, "bias", ["6", "5"], [x, bias], bias_activation(e.ctx, &mut x, &bias, act, (4, 6, 6)))]
        }),
        refuse(F, LdTooSmall, move |e| {
            let (mut x, bias) = (e.out::<f32>(24), e.f32s(6));
            vec![attempt!(e, "ld", ["5", "6"], [x, bias], bias_activation(e.ctx, &mut x, &bias, act, (4, 6, 5)))]
        }),
        refuse(F, ForeignContext, move |e| {
            let (mut x, bias) = (e.out::<f32>(24), e.f32s(6));
            let (mut fx, fbias) = (e.foreign_out::<f32>(24), e.foreign_f32s(6));
            vec![
                attempt!(e, "x", [], [fx, bias], bias_activation(e.ctx, &mut fx, &bias, act, (4, 6, 6))),
                attempt!(e, "bias", [], [x, fbias], bias_activation(e.ctx, &mut x, &fbias, act, (4, 6, 6))),
            ]
        }),
        na(F, Aliasing, "x is `&mut`, bias `&`: the same buffer as both does not compile"),
        na(F, ImageBytes, NO_IMAGE),
        na(F, RadiusBeyondImage, NO_RADIUS),
        na(F, RadiusOverLimit, NO_RADIUS),
        refuse(F, IndexOverflow, move |e| {
            let (mut x, bias) = (e.out::<f32>(24), e.f32s(6));
            vec![attempt!(e, "rows", ["4294967296"], [x, bias], bias_activation(e.ctx, &mut x, &bias, act, (BIG, 6, 6)))]
        }),
        na(F, ForcedVariant, "no variant; the element types are sealed (f32, bf16, f16), each with a kernel"),
    ]
}

fn transpose() -> Vec<Row> {
    use Class::*;
    const F: &str = "transpose";
    let t = Transpose::new(7, 5);
    vec![
        refuse(F, WrongLength, move |e| {
            let (i, mut o) = (e.f32s(34), e.out::<f32>(35));
            let (i2, mut o2) = (e.f32s(35), e.out::<f32>(36));
            vec![
                attempt!(e, "input", ["35", "34"], [i, o], t.run(e.ctx, &i, &mut o)),
                attempt!(e, "output", ["35", "36"], [i2, o2], t.run(e.ctx, &i2, &mut o2)),
            ]
        }),
        refuse(F, ZeroDim, move |e| {
            let (i, mut o) = (e.f32s(35), e.out::<f32>(35));
            vec![
                attempt!(e, "nx", ["0"], [i, o], Transpose::new(0, 5).run(e.ctx, &i, &mut o)),
                attempt!(e, "ny", ["0"], [i, o], Transpose::new(7, 0).run(e.ctx, &i, &mut o)),
            ]
        }),
        na(F, InnerMismatch, "buffers carry no shape: one nx·ny-element output fits any factorisation (the length is wrong_length)"),
        na(F, LdTooSmall, NO_LD),
        refuse(F, ForeignContext, move |e| {
            let (i, mut o) = (e.f32s(35), e.out::<f32>(35));
            let (fi, mut fo) = (e.foreign_f32s(35), e.foreign_out::<f32>(35));
            vec![
                attempt!(e, "input", [], [fi, o], t.run(e.ctx, &fi, &mut o)),
                attempt!(e, "output", [], [i, fo], t.run(e.ctx, &i, &mut fo)),
            ]
        }),
        na(F, Aliasing, NO_ALIASING),
        na(F, ImageBytes, NO_IMAGE),
        na(F, RadiusBeyondImage, NO_RADIUS),
        na(F, RadiusOverLimit, NO_RADIUS),
        refuse(F, IndexOverflow, move |e| {
            let (i, mut o) = (e.f32s(35), e.out::<f32>(35));
            vec![
                attempt!(e, "nx", ["4294967296"], [i, o], Transpose::new(BIG, 1).run(e.ctx, &i, &mut o)),
                // Within a tile of u32::MAX: the threads past the edge would wrap.
                attempt!(e, "ny", ["4294967290"], [i, o], Transpose::new(1, BIG - 6).run(e.ctx, &i, &mut o)),
            ]
        }),
        refuse(F, ForcedVariant, move |e| {
            let (i, mut o) = (e.f32s(35), e.out::<f32>(35));
            vec![attempt!(e, "variant", ["7 x 5"], [i, o], t.variant(TransposeVariant::DEFAULT_VECTOR).run(e.ctx, &i, &mut o))]
        }),
    ]
}

fn vec_add() -> Vec<Row> {
    use Class::*;
    const F: &str = "vec_add";
    vec![
        refuse(F, WrongLength, |e| {
            let (a, b, mut c) = (e.f32s(10), e.f32s(9), e.out::<f32>(10));
            let (a2, b2, mut c2) = (e.f32s(10), e.f32s(10), e.out::<f32>(11));
            vec![
                attempt!(e, "b", ["10", "9"], [a, b, c], ferrotile::vec_add(e.ctx, &a, &b, &mut c)),
                attempt!(e, "c", ["10", "11"], [a2, b2, c2], ferrotile::vec_add_with(e.ctx, VecAddVariant::Simple, &a2, &b2, &mut c2)),
            ]
        }),
        refuse(F, ZeroDim, |e| {
            let (a, b, mut c) = (e.f32s(0), e.f32s(0), e.out::<f32>(0));
            vec![
                attempt!(e, "a", ["0"], [a, b, c], ferrotile::vec_add(e.ctx, &a, &b, &mut c)),
                attempt!(e, "a", ["0"], [a, b, c], ferrotile::vec_add_with(e.ctx, VecAddVariant::Simple, &a, &b, &mut c)),
            ]
        }),
        na(F, InnerMismatch, "one dimension: every other length is wrong_length"),
        na(F, LdTooSmall, NO_LD),
        refuse(F, ForeignContext, |e| {
            let (a, b, mut c) = (e.f32s(10), e.f32s(10), e.out::<f32>(10));
            let (fa, mut fc) = (e.foreign_f32s(10), e.foreign_out::<f32>(10));
            vec![
                attempt!(e, "a", [], [fa, b, c], ferrotile::vec_add(e.ctx, &fa, &b, &mut c)),
                attempt!(e, "c", [], [a, b, fc], ferrotile::vec_add(e.ctx, &a, &b, &mut fc)),
            ]
        }),
        na(F, Aliasing, NO_ALIASING),
        na(F, ImageBytes, NO_IMAGE),
        na(F, RadiusBeyondImage, NO_RADIUS),
        na(F, RadiusOverLimit, NO_RADIUS),
        na(F, IndexOverflow, "a typed error (`a` longer than u32::MAX, check::dim, unit-tested in the host crate); a 16 GiB buffer is not allocated in CI"),
        na(F, ForcedVariant, "both rungs take any length (the float4 rung has a scalar tail)"),
    ]
}

fn image_shape() -> Vec<Row> {
    use Class::*;
    const F: &str = "image_shape";
    vec![
        refuse(F, WrongLength, |e| {
            let data = vec![1u8; 35];
            vec![attempt!(e, "data", ["36", "35"], [data], Image::new(4, 3, 3, data.clone()))]
        }),
        refuse(F, ZeroDim, |e| {
            vec![
                attempt!(e, "width", ["0"], [], DeviceImage::alloc(e.ctx, 0, 3, 3)),
                attempt!(e, "height", ["0"], [], DeviceImage::alloc(e.ctx, 4, 0, 3)),
                attempt!(e, "channels", ["0"], [], image::image_bytes(4, 3, 0)),
                attempt!(e, "width", ["0"], [], HostImage::from_fn(0, 3, 1, |_, _| [0; 4])),
            ]
        }),
        na(F, InnerMismatch, "one image"),
        na(F, LdTooSmall, "rows are packed: no leading dimension"),
        na(F, ForeignContext, "builds an image; the context is checked when a kernel uses it (the kernels' rows)"),
        na(F, Aliasing, "no output"),
        refuse(F, ImageBytes, |e| {
            let short = e.ctx.alloc::<u8>(35).expect("alloc");
            let data = vec![1u8; 37];
            vec![
                attempt!(e, "data", ["36", "35"], [short], Image::new(4, 3, 3, e.ctx.alloc::<u8>(35).expect("alloc"))),
                attempt!(e, "data", ["36", "37"], [data], Image::new(4, 3, 3, data.clone())),
                attempt!(e, "channels", ["5"], [], DeviceImage::alloc(e.ctx, 4, 3, 5)),
            ]
        }),
        na(F, RadiusBeyondImage, NO_RADIUS),
        na(F, RadiusOverLimit, NO_RADIUS),
        refuse(F, IndexOverflow, |e| {
            vec![
                attempt!(e, "width", ["4294967296"], [], DeviceImage::alloc(e.ctx, BIG, 1, 1)),
                attempt!(e, "height", ["4294967232"], [], image::image_bytes(1, BIG - 64, 1)),
                attempt!(e, "width * height * channels", ["4294967296"], [], DeviceImage::alloc(e.ctx, 1 << 16, 1 << 16, 1)),
            ]
        }),
        na(F, ForcedVariant, "no variant"),
    ]
}

fn gray() -> Vec<Row> {
    use Class::*;
    const F: &str = "rgb_to_gray";
    vec![
        na(F, WrongLength, IMAGE_BY_CONSTRUCTION),
        na(F, ZeroDim, IMAGE_BY_CONSTRUCTION),
        refuse(F, InnerMismatch, |e| {
            let (src, mut dst) = (e.image(5, 3, 3), e.out_image(5, 4, 1));
            vec![
                attempt!(e, "dst", ["5x4", "5x3"], [src, dst], image::rgb_to_gray(e.ctx, &src, &mut dst)),
                attempt!(e, "dst", ["5x4", "5x3"], [src, dst], image::rgb_to_gray_with(e.ctx, GrayVariant::Pmpp, &src, &mut dst)),
            ]
        }),
        na(F, LdTooSmall, NO_LD),
        refuse(F, ForeignContext, |e| {
            let (src, mut dst) = (e.image(5, 3, 3), e.out_image(5, 3, 1));
            let (fsrc, mut fdst) = (e.foreign_image(5, 3, 3), e.foreign_out_image(5, 3, 1));
            vec![
                attempt!(e, "src", [], [fsrc, dst], image::rgb_to_gray(e.ctx, &fsrc, &mut dst)),
                attempt!(e, "dst", [], [src, fdst], image::rgb_to_gray_with(e.ctx, GrayVariant::Pmpp, &src, &mut fdst)),
            ]
        }),
        na(F, Aliasing, NO_ALIASING),
        na(F, ImageBytes, IMAGE_BY_CONSTRUCTION),
        na(F, RadiusBeyondImage, NO_RADIUS),
        na(F, RadiusOverLimit, NO_RADIUS),
        na(F, IndexOverflow, IMAGE_BY_CONSTRUCTION),
        refuse(F, ForcedVariant, |e| {
            // The kernels read RGB and write gray: other channel counts.
            let (src4, mut dst) = (e.image(5, 3, 4), e.out_image(5, 3, 1));
            let (src, mut dst3) = (e.image(5, 3, 3), e.out_image(5, 3, 3));
            vec![
                attempt!(e, "src", ["4"], [src4, dst], image::rgb_to_gray(e.ctx, &src4, &mut dst)),
                attempt!(e, "dst", ["3"], [src, dst3], image::rgb_to_gray_with(e.ctx, GrayVariant::Vec16, &src, &mut dst3)),
            ]
        }),
    ]
}

/// Blur of a `w × h × c` image at `radius` with `variant` (or the default)
/// against the CPU reference.
fn blur_matches(e: &Env, w: usize, h: usize, c: usize, radius: u32, variant: Option<BlurVariant>) -> Result<(), String> {
    let img = e.host_image(w, h, c);
    let want = cpu::blur(&img, radius);
    let src = DeviceImage::upload(e.ctx, &img).map_err(|x| x.to_string())?;
    let mut dst = e.out_image(w, h, c);
    match variant {
        Some(v) => image::blur_with(e.ctx, v, &src, &mut dst, radius),
        None => image::blur(e.ctx, &src, &mut dst, radius),
    }
    .map_err(|x| format!("{variant:?} radius {radius} on {w}x{h}x{c}: {x}"))?;
    exact(&format!("blur {variant:?} r{radius} {w}x{h}x{c}"), dst.download().map_err(|x| x.to_string())?.data(), want.data())
}

fn blur() -> Vec<Row> {
    use Class::*;
    const F: &str = "blur";
    vec![
        na(F, WrongLength, IMAGE_BY_CONSTRUCTION),
        na(F, ZeroDim, IMAGE_BY_CONSTRUCTION),
        refuse(F, InnerMismatch, |e| {
            let (src, mut dst) = (e.image(6, 5, 1), e.out_image(6, 4, 1));
            let mut dst3 = e.out_image(6, 5, 3);
            vec![
                attempt!(e, "dst", ["6x4x1", "6x5x1"], [src, dst], image::blur(e.ctx, &src, &mut dst, 1)),
                attempt!(e, "dst", ["6x5x3", "6x5x1"], [src, dst3], image::blur_with(e.ctx, BlurVariant::Naive, &src, &mut dst3, 1)),
            ]
        }),
        na(F, LdTooSmall, NO_LD),
        refuse(F, ForeignContext, |e| {
            let (src, mut dst) = (e.image(6, 5, 1), e.out_image(6, 5, 1));
            let (fsrc, mut fdst) = (e.foreign_image(6, 5, 1), e.foreign_out_image(6, 5, 1));
            vec![
                attempt!(e, "src", [], [fsrc, dst], image::blur(e.ctx, &fsrc, &mut dst, 1)),
                attempt!(e, "dst", [], [src, fdst], image::blur_with(e.ctx, BlurVariant::Tiled, &src, &mut fdst, 1)),
            ]
        }),
        na(F, Aliasing, NO_ALIASING),
        na(F, ImageBytes, IMAGE_BY_CONSTRUCTION),
        // Defined: every window is clipped to the image, so a radius past
        // both sides averages the whole image (checked, not refused).
        valid(F, RadiusBeyondImage, |e| {
            blur_matches(e, 6, 5, 1, 9, None)?;
            blur_matches(e, 6, 5, 3, 9, Some(BlurVariant::Naive))?;
            blur_matches(e, 3, 2, 1, MAX_TILED_RADIUS, Some(BlurVariant::Tiled))?;
            blur_matches(e, 3, 2, 3, 3, Some(BlurVariant::Fast))?;
            blur_matches(e, 2, 1, 4, MAX_BLUR_RADIUS, Some(BlurVariant::Naive))
        }),
        refuse(F, RadiusOverLimit, |e| {
            let (src, mut dst) = (e.image(6, 5, 1), e.out_image(6, 5, 1));
            vec![
                attempt!(e, "radius", ["256", "255"], [src, dst], image::blur(e.ctx, &src, &mut dst, MAX_BLUR_RADIUS + 1)),
                attempt!(e, "variant", ["33"], [src, dst], image::blur_with(e.ctx, BlurVariant::Tiled, &src, &mut dst, MAX_TILED_RADIUS + 1)),
                attempt!(e, "variant", ["4"], [src, dst], image::blur_with(e.ctx, BlurVariant::Fast, &src, &mut dst, 4)),
            ]
        }),
        na(F, IndexOverflow, IMAGE_BY_CONSTRUCTION),
        refuse(F, ForcedVariant, |e| {
            let (src2, mut dst2) = (e.image(6, 5, 2), e.out_image(6, 5, 2));
            let (src, mut dst) = (e.image(6, 5, 1), e.out_image(6, 5, 1));
            // RGBA: the sliding sums take rows of whole 16-byte chunks
            // (6 pixels are 24 bytes), the column-sum slide no RGBA at all.
            let (src4, mut dst4) = (e.image(6, 5, 4), e.out_image(6, 5, 4));
            let (src4w, mut dst4w) = (e.image(8, 5, 4), e.out_image(8, 5, 4));
            vec![
                attempt!(e, "variant", ["2 channel"], [src2, dst2], image::blur_with(e.ctx, BlurVariant::Fast, &src2, &mut dst2, 1)),
                attempt!(e, "variant", ["width 6"], [src, dst], image::blur_with(e.ctx, BlurVariant::Sliding, &src, &mut dst, 1)),
                attempt!(e, "variant", ["width 6"], [src, dst], image::blur_with(e.ctx, BlurVariant::SlidingSums, &src, &mut dst, 1)),
                attempt!(e, "variant", ["4 channel", "width 6"], [src4, dst4], image::blur_with(e.ctx, BlurVariant::SlidingSums, &src4, &mut dst4, 1)),
                attempt!(e, "variant", ["4 channel", "radius 4"], [src4w, dst4w], image::blur_with(e.ctx, BlurVariant::SlidingSums, &src4w, &mut dst4w, 4)),
                attempt!(e, "variant", ["4 channel", "width 8"], [src4w, dst4w], image::blur_with(e.ctx, BlurVariant::Sliding, &src4w, &mut dst4w, 1)),
            ]
        }),
    ]
}

fn blur_strips() -> Vec<Row> {
    use Class::*;
    const F: &str = "blur_strips";
    vec![
        na(F, WrongLength, IMAGE_BY_CONSTRUCTION),
        refuse(F, ZeroDim, |e| {
            let (src, mut dst) = (e.image(16, 5, 1), e.out_image(16, 5, 1));
            vec![
                attempt!(e, "strip_rows", ["0"], [src, dst], image::blur_sliding(e.ctx, &src, &mut dst, 1, 0)),
                attempt!(e, "strip_rows", ["0"], [src, dst], image::blur_strips(e.ctx, BlurVariant::SlidingSums, &src, &mut dst, 1, 0)),
                attempt!(e, "strip_rows", ["0"], [src, dst], image::blur_window(e.ctx, &src, &mut dst, 1, 0)),
            ]
        }),
        refuse(F, InnerMismatch, |e| {
            let (src, mut dst) = (e.image(16, 5, 1), e.out_image(16, 6, 1));
            vec![
                attempt!(e, "dst", ["16x6x1", "16x5x1"], [src, dst], image::blur_sliding(e.ctx, &src, &mut dst, 1, 2)),
                attempt!(e, "dst", ["16x6x1", "16x5x1"], [src, dst], image::blur_window(e.ctx, &src, &mut dst, 1, 8)),
            ]
        }),
        na(F, LdTooSmall, NO_LD),
        refuse(F, ForeignContext, |e| {
            let (fsrc, mut dst) = (e.foreign_image(16, 5, 1), e.out_image(16, 5, 1));
            vec![
                attempt!(e, "src", [], [fsrc, dst], image::blur_strips(e.ctx, BlurVariant::Sliding, &fsrc, &mut dst, 1, 2)),
                attempt!(e, "src", [], [fsrc, dst], image::blur_window(e.ctx, &fsrc, &mut dst, 1, 8)),
            ]
        }),
        na(F, Aliasing, NO_ALIASING),
        na(F, ImageBytes, IMAGE_BY_CONSTRUCTION),
        valid(F, RadiusBeyondImage, |e| {
            // Radius 3 on a 2-row image, strips of 5 rows (past the image).
            for (c, v) in [(1, BlurVariant::Sliding), (3, BlurVariant::SlidingSums), (4, BlurVariant::SlidingSums)] {
                let img = e.host_image(16, 2, c);
                let want = cpu::blur(&img, 3);
                let src = DeviceImage::upload(e.ctx, &img).map_err(|x| x.to_string())?;
                let mut dst = e.out_image(16, 2, c);
                image::blur_strips(e.ctx, v, &src, &mut dst, 3, 5).map_err(|x| x.to_string())?;
                exact(&format!("{v:?} r3 16x2x{c}"), dst.download().map_err(|x| x.to_string())?.data(), want.data())?;
            }
            Ok(())
        }),
        refuse(F, RadiusOverLimit, |e| {
            let (src, mut dst) = (e.image(16, 5, 1), e.out_image(16, 5, 1));
            vec![
                attempt!(e, "variant", ["radius 4"], [src, dst], image::blur_sliding(e.ctx, &src, &mut dst, 4, 2)),
                attempt!(e, "radius", ["1000"], [src, dst], image::blur_strips(e.ctx, BlurVariant::SlidingSums, &src, &mut dst, 1000, 2)),
            ]
        }),
        na(F, IndexOverflow, IMAGE_BY_CONSTRUCTION),
        refuse(F, ForcedVariant, |e| {
            let (src, mut dst) = (e.image(16, 5, 1), e.out_image(16, 5, 1));
            let (src5, mut dst5) = (e.image(5, 5, 1), e.out_image(5, 5, 1));
            vec![
                attempt!(e, "variant", ["Naive"], [src, dst], image::blur_strips(e.ctx, BlurVariant::Naive, &src, &mut dst, 1, 2)),
                attempt!(e, "variant", ["width 5"], [src5, dst5], image::blur_sliding(e.ctx, &src5, &mut dst5, 1, 2)),
            ]
        }),
    ]
}

fn blur_experiments() -> Vec<Row> {
    use Class::*;
    const F: &str = "blur_experiments";
    vec![
        na(F, WrongLength, IMAGE_BY_CONSTRUCTION),
        refuse(F, ZeroDim, |e| {
            let (src, mut dst) = (e.image(16, 5, 1), e.out_image(16, 5, 1));
            vec![
                attempt!(e, "strip_rows", ["0"], [src, dst], image::blur_sliding_sums_experiment(e.ctx, &src, &mut dst, 1, 0, "p2")),
                attempt!(e, "strip_rows", ["0"], [src, dst], image::blur_sliding_prefetch(e.ctx, &src, &mut dst, 1, 0, 2)),
            ]
        }),
        refuse(F, InnerMismatch, |e| {
            let (src, mut dst) = (e.image(16, 5, 1), e.out_image(16, 4, 1));
            vec![attempt!(e, "dst", ["16x4x1", "16x5x1"], [src, dst], image::blur_sliding_prefetch(e.ctx, &src, &mut dst, 1, 2, 2))]
        }),
        na(F, LdTooSmall, NO_LD),
        refuse(F, ForeignContext, |e| {
            let (src, mut fdst) = (e.image(16, 5, 1), e.foreign_out_image(16, 5, 1));
            vec![attempt!(e, "dst", [], [src, fdst], image::blur_sliding_sums_experiment(e.ctx, &src, &mut fdst, 1, 2, "p2"))]
        }),
        na(F, Aliasing, NO_ALIASING),
        na(F, ImageBytes, IMAGE_BY_CONSTRUCTION),
        na(F, RadiusBeyondImage, "hidden benchmark experiments: the same strips as blur_strips, whose row checks a radius past the image"),
        refuse(F, RadiusOverLimit, |e| {
            let (src, mut dst) = (e.image(16, 5, 1), e.out_image(16, 5, 1));
            vec![attempt!(e, "radius", ["4"], [src, dst], image::blur_sliding_prefetch(e.ctx, &src, &mut dst, 4, 2, 2))]
        }),
        na(F, IndexOverflow, IMAGE_BY_CONSTRUCTION),
        refuse(F, ForcedVariant, |e| {
            let (src, mut dst) = (e.image(16, 5, 1), e.out_image(16, 5, 1));
            vec![
                attempt!(e, "experiment", ["nope"], [src, dst], image::blur_sliding_sums_experiment(e.ctx, &src, &mut dst, 1, 2, "nope")),
                attempt!(e, "prefetch", ["7"], [src, dst], image::blur_sliding_prefetch(e.ctx, &src, &mut dst, 1, 2, 7)),
            ]
        }),
    ]
}

fn volume() -> Vec<Row> {
    use Class::*;
    const F: &str = "volume_affine";
    let dims = [2, 3, 4];
    vec![
        refuse(F, WrongLength, move |e| {
            let (i, s, o, mut out) = (e.f32s(23), e.f32s(2), e.f32s(2), e.out::<f32>(24));
            vec![attempt!(e, "input", ["24", "23"], [i, s, o, out], image::volume_affine(e.ctx, dims, &i, &s, &o, &mut out))]
        }),
        refuse(F, ZeroDim, move |e| {
            let (i, s, o, mut out) = (e.f32s(24), e.f32s(2), e.f32s(2), e.out::<f32>(24));
            vec![attempt!(e, "dims", ["0"], [i, s, o, out], image::volume_affine(e.ctx, [2, 0, 4], &i, &s, &o, &mut out))]
        }),
        refuse(F, InnerMismatch, move |e| {
            let (i, s, o, mut out) = (e.f32s(24), e.f32s(3), e.f32s(2), e.out::<f32>(24));
            let (i2, s2, o2, mut out2) = (e.f32s(24), e.f32s(2), e.f32s(1), e.out::<f32>(24));
            vec![
                attempt!(e, "scale", ["2", "3"], [i, s, o, out], image::volume_affine(e.ctx, dims, &i, &s, &o, &mut out)),
                attempt!(e, "offset", ["2", "1"], [i2, s2, o2, out2], image::volume_affine(e.ctx, dims, &i2, &s2, &o2, &mut out2)),
            ]
        }),
        na(F, LdTooSmall, NO_LD),
        refuse(F, ForeignContext, move |e| {
            let (i, s, fo, mut out) = (e.f32s(24), e.f32s(2), e.foreign_f32s(2), e.out::<f32>(24));
            vec![attempt!(e, "offset", [], [i, s, fo, out], image::volume_affine(e.ctx, dims, &i, &s, &fo, &mut out))]
        }),
        na(F, Aliasing, NO_ALIASING),
        na(F, ImageBytes, "an f32 volume, not an image"),
        na(F, RadiusBeyondImage, NO_RADIUS),
        na(F, RadiusOverLimit, NO_RADIUS),
        refuse(F, IndexOverflow, move |e| {
            let (i, s, o, mut out) = (e.f32s(24), e.f32s(2), e.f32s(2), e.out::<f32>(24));
            vec![attempt!(e, "dims", ["4294967295"], [i, s, o, out], image::volume_affine(e.ctx, [1, 1, u32::MAX as usize], &i, &s, &o, &mut out))]
        }),
        na(F, ForcedVariant, "no variant"),
    ]
}

fn copy_from() -> Vec<Row> {
    use Class::*;
    const F: &str = "buffer_copy_from";
    vec![
        refuse(F, WrongLength, |e| {
            let mut b = e.out::<f32>(10);
            let data = vec![1.0f32; 9];
            vec![attempt!(e, "data", ["10", "9"], [b], b.copy_from(&data))]
        }),
        // A zero-length buffer is allowed everywhere a buffer is: it
        // allocates, copies, fills and downloads (nothing).
        valid(F, ZeroDim, |e| {
            let mut b = e.ctx.upload::<f32>(&[]).map_err(|x| format!("upload of nothing: {x}"))?;
            b.copy_from(&[]).map_err(|x| x.to_string())?;
            b.fill(1.0).map_err(|x| x.to_string())?;
            let z = e.ctx.alloc::<u8>(0).map_err(|x| format!("alloc of nothing: {x}"))?;
            if !b.download().map_err(|x| x.to_string())?.is_empty() || !z.download().map_err(|x| x.to_string())?.is_empty() {
                return Err("an empty buffer downloaded elements".into());
            }
            Ok(())
        }),
        na(F, InnerMismatch, "one buffer"),
        na(F, LdTooSmall, NO_LD),
        na(F, ForeignContext, "the source is host memory"),
        na(F, Aliasing, "the source is a host slice; the buffer is `&mut`"),
        refuse(F, ImageBytes, |e| {
            let mut img = e.out_image(4, 3, 3);
            let data = vec![1u8; 35];
            vec![attempt!(e, "data", ["36", "35"], [img], img.copy_from(&data))]
        }),
        na(F, RadiusBeyondImage, NO_RADIUS),
        na(F, RadiusOverLimit, NO_RADIUS),
        na(F, IndexOverflow, "no kernel: a host-to-device copy of the buffer's length"),
        na(F, ForcedVariant, "no variant"),
    ]
}

fn copy_from_buffer() -> Vec<Row> {
    use Class::*;
    const F: &str = "buffer_copy_from_buffer";
    vec![
        refuse(F, WrongLength, |e| {
            let (mut dst, src) = (e.out::<f32>(10), e.f32s(9));
            vec![attempt!(e, "src", ["10", "9"], [dst, src], dst.copy_from_buffer(&src))]
        }),
        valid(F, ZeroDim, |e| {
            let (mut dst, src) = (e.out::<f32>(0), e.f32s(0));
            dst.copy_from_buffer(&src).map_err(|x| format!("copy of nothing: {x}"))
        }),
        na(F, InnerMismatch, "one dimension"),
        na(F, LdTooSmall, NO_LD),
        refuse(F, ForeignContext, |e| {
            let (mut dst, fsrc) = (e.out::<f32>(10), e.foreign_f32s(10));
            vec![attempt!(e, "src", [], [dst, fsrc], dst.copy_from_buffer(&fsrc))]
        }),
        na(F, Aliasing, "`&mut self` and `&src`: copying a buffer onto itself does not compile"),
        na(F, ImageBytes, NO_IMAGE),
        na(F, RadiusBeyondImage, NO_RADIUS),
        na(F, RadiusOverLimit, NO_RADIUS),
        na(F, IndexOverflow, "no kernel: a device-to-device copy of the buffer's length"),
        na(F, ForcedVariant, "no variant"),
    ]
}

fn cublas() -> Vec<Row> {
    use ferrotile::cublas::Cublas;
    use Class::*;
    const F: &str = "cublas";
    let g = Gemm::new(M, N, K);
    let handle = |e: &Env| Cublas::new(e.ctx).expect("cuBLAS on a CUDA context");
    vec![
        refuse(F, WrongLength, move |e| {
            let h = handle(e);
            let (a, b, mut c) = (e.f32s(M * K - 1), e.f32s(K * N), e.out::<f32>(M * N));
            vec![attempt!(e, "a", ["35", "34"], [a, b, c], h.sgemm(e.ctx, &g, &a, &b, &mut c))]
        }),
        refuse(F, ZeroDim, move |e| {
            let h = handle(e);
            let (a, b, mut c) = (e.f32s(M * K), e.f32s(K * N), e.out::<f32>(M * N));
            vec![attempt!(e, "m", ["0"], [a, b, c], h.sgemm(e.ctx, &Gemm::new(0, N, K), &a, &b, &mut c))]
        }),
        refuse(F, InnerMismatch, move |e| {
            let h = handle(e);
            let (a, b, mut c) = (e.bf16s(M * K), e.bf16s((K - 1) * N), e.out::<f32>(M * N));
            vec![attempt!(e, "b", ["42", "36"], [a, b, c], h.gemm(e.ctx, &g, &a, &b, &mut c))]
        }),
        refuse(F, LdTooSmall, move |e| {
            let h = handle(e);
            let (a, b, mut c) = (e.f32s(M * K), e.f32s(K * N), e.out::<f32>(M * N));
            vec![attempt!(e, "ldc", ["5", "6"], [a, b, c], h.sgemm(e.ctx, &g.ldc(5), &a, &b, &mut c))]
        }),
        refuse(F, ForeignContext, move |e| {
            let h = handle(e);
            let (a, fb, mut c) = (e.f32s(M * K), e.foreign_f32s(K * N), e.out::<f32>(M * N));
            let (a2, b2, mut c2) = (e.f32s(M * K), e.f32s(K * N), e.out::<f32>(M * N));
            vec![
                attempt!(e, "b", [], [a, fb, c], h.sgemm(e.ctx, &g, &a, &fb, &mut c)),
                attempt!(e, "ctx", ["emulator"], [a2, b2, c2], ferrotile::cublas::cublas_sgemm(&e.other, &g, &a2, &b2, &mut c2)),
            ]
        }),
        na(F, Aliasing, NO_ALIASING),
        na(F, ImageBytes, NO_IMAGE),
        na(F, RadiusBeyondImage, NO_RADIUS),
        na(F, RadiusOverLimit, NO_RADIUS),
        refuse(F, IndexOverflow, move |e| {
            let h = handle(e);
            let (a, b, mut c) = (e.f32s(M * K), e.f32s(K * N), e.out::<f32>(M * N));
            vec![attempt!(e, "m", ["4294967296"], [a, b, c], h.sgemm(e.ctx, &Gemm::new(BIG, N, K), &a, &b, &mut c))]
        }),
        refuse(F, ForcedVariant, move |e| {
            let h = handle(e);
            let (a, b, mut c) = (e.bf16s(M * K), e.bf16s(K * N), e.out::<half::f16>(M * N));
            let (a2, b2, mut c2) = (e.f32s(M * K), e.f32s(K * N), e.out::<f32>(M * N));
            vec![
                attempt!(e, "c", ["f16"], [a, b, c], h.gemm(e.ctx, &g, &a, &b, &mut c)),
                attempt!(e, "activation", [], [a2, b2, c2], h.gemm(e.ctx, &g.activation(Activation::Relu), &a2, &b2, &mut c2)),
            ]
        }),
    ]
}

// ---------------------------------------------------------------------------
// Completeness
// ---------------------------------------------------------------------------

/// `file:fn` of every `pub fn` under `host/src/` whose signature takes a
/// `&Context` (the functions that reach a device).
pub fn public_context_functions() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("host/src");
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("host/src") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("source");
            let rel = path.strip_prefix(&root).expect("under root").to_string_lossy().replace('\\', "/");
            let mut rest = text.as_str();
            while let Some(i) = rest.find("pub fn ") {
                let after = &rest[i + "pub fn ".len()..];
                let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                let sig_end = after.find('{').unwrap_or(after.len());
                if after[..sig_end].contains("&Context") {
                    out.push(format!("{rel}:{name}"));
                }
                rest = &after[sig_end..];
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Every function has exactly one cell per class, and every public
/// function that takes a context is in the matrix (or launches nothing).
fn matrix_is_complete(_: &Context) -> Result<(), String> {
    let t = table();
    let mut problems = Vec::new();
    for f in FUNCTIONS {
        for &c in Class::ALL {
            let n = t.iter().filter(|r| r.function == f.name && r.class == c).count();
            if n != 1 {
                problems.push(format!("{} × {}: {n} cells", f.name, c.name()));
            }
        }
    }
    for r in &t {
        if !FUNCTIONS.iter().any(|f| f.name == r.function) {
            problems.push(format!("a cell for the unlisted function {}", r.function));
        }
    }
    let found = public_context_functions();
    for name in &found {
        let covered = FUNCTIONS.iter().any(|f| f.covers.contains(&name.as_str()));
        let exempt = LAUNCH_NOTHING.iter().any(|(n, _)| n == name);
        if !covered && !exempt {
            problems.push(format!("public function {name} takes a &Context and has no row in the bad-input matrix"));
        }
    }
    if found.len() < 10 {
        problems.push(format!("the source scan found only {} functions: {found:?}", found.len()));
    }
    let refuse = t.iter().filter(|r| matches!(r.cell, Cell::Refuse(_))).count();
    let valid = t.iter().filter(|r| matches!(r.cell, Cell::Valid(_))).count();
    let na = t.len() - refuse - valid;
    eprintln!(
        "bad-input matrix: {} functions × {} classes = {} cells: {refuse} refuse, {valid} valid, {na} not applicable",
        FUNCTIONS.len(),
        Class::ALL.len(),
        t.len()
    );
    if problems.is_empty() { Ok(()) } else { Err(problems.join("\n")) }
}

/// The cases: one per function × class that can arise, and the
/// completeness check.
pub fn cases() -> Vec<Case> {
    let mut v = vec![Case::new("bad_input::matrix_is_complete", matrix_is_complete)];
    for row in table() {
        let gpu_only = FUNCTIONS.iter().any(|f| f.name == row.function && f.gpu_only);
        let name = format!("bad_input::{}::{}", row.function, row.class.name());
        let seed_name = name.clone();
        let body: CaseFn = match row.cell {
            Cell::NotApplicable(_) => continue,
            Cell::Refuse(f) => Box::new(move |ctx| judge(&f(&env(ctx, &seed_name)))),
            Cell::Valid(f) => Box::new(move |ctx| f(&env(ctx, &seed_name))),
        };
        v.push(if gpu_only { Case::gpu_only(name, body) } else { Case::new(name, body) });
    }
    v
}

fn env<'a>(ctx: &'a Context, name: &str) -> Env<'a> {
    Env { ctx, other: Context::emulator(), rng: std::cell::RefCell::new(Rng::new(seed(name))) }
}

/// The not-applicable cells and why (for RELIABILITY.md).
#[allow(dead_code)]
pub fn not_applicable() -> Vec<(String, &'static str)> {
    table()
        .into_iter()
        .filter_map(|r| match r.cell {
            Cell::NotApplicable(why) => Some((format!("{} × {}", r.function, r.class.name()), why)),
            _ => None,
        })
        .collect()
}
