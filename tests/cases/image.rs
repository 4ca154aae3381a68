//! PMPP chapter 3: grayscale, blur, the 3D kernel and vector add rungs,
//! exact against the CPU references on tile-unaligned shapes.

use ferrotile::image::{self, cpu, BlurVariant, DeviceImage, GrayVariant, HostImage};
use ferrotile::{Context, Error, VecAddVariant};
use proptest::prelude::{prop, prop_oneof, Just, TestCaseError};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::common::*;

/// Two poisons: an unwritten byte fails at least one of the runs, whatever
/// its correct value.
const POISONS: [u8; 2] = [0xAB, 0x54];

fn random_image(w: usize, h: usize, c: usize, name: &str) -> HostImage {
    let mut r = Rng::new(seed(name) ^ (w * 7919 + h * 31 + c) as u64);
    HostImage::new(w, h, c, r.u8s(w * h * c)).expect("valid test shape")
}

fn poisoned_image(ctx: &Context, w: usize, h: usize, c: usize, poison: u8) -> Result<DeviceImage, String> {
    let mut img = DeviceImage::alloc(ctx, w, h, c).map_err(|e| e.to_string())?;
    img.fill(poison).map_err(|e| e.to_string())?;
    Ok(img)
}

fn gray(ctx: &Context, v: GrayVariant, w: usize, h: usize) -> Result<(), String> {
    let rgb = random_image(w, h, 3, v.name());
    let want = cpu::rgb_to_gray(&rgb);
    let src = DeviceImage::upload(ctx, &rgb).map_err(|e| e.to_string())?;
    for poison in POISONS {
        let mut dst = poisoned_image(ctx, w, h, 1, poison)?;
        image::rgb_to_gray_with(ctx, v, &src, &mut dst).map_err(|e| e.to_string())?;
        exact("gray", dst.download().map_err(|e| e.to_string())?.data(), want.data())?;
    }
    Ok(())
}

fn blur(ctx: &Context, v: BlurVariant, w: usize, h: usize, c: usize, r: u32) -> Result<(), String> {
    let img = random_image(w, h, c, v.name());
    let want = cpu::blur(&img, r);
    let src = DeviceImage::upload(ctx, &img).map_err(|e| e.to_string())?;
    for poison in POISONS {
        let mut dst = poisoned_image(ctx, w, h, c, poison)?;
        image::blur_with(ctx, v, &src, &mut dst, r).map_err(|e| e.to_string())?;
        exact("blur", dst.download().map_err(|e| e.to_string())?.data(), want.data())?;
    }
    Ok(())
}

/// A sliding rung with strips of `strip` rows.
fn blur_strip(ctx: &Context, v: BlurVariant, w: usize, h: usize, c: usize, r: u32, strip: u32) -> Result<(), String> {
    let img = random_image(w, h, c, "blur_slide_strip");
    let want = cpu::blur(&img, r);
    let src = DeviceImage::upload(ctx, &img).map_err(|e| e.to_string())?;
    for poison in POISONS {
        let mut dst = poisoned_image(ctx, w, h, c, poison)?;
        image::blur_strips(ctx, v, &src, &mut dst, r, strip).map_err(|e| e.to_string())?;
        exact("blur", dst.download().map_err(|e| e.to_string())?.data(), want.data())?;
    }
    Ok(())
}

/// `image::blur`, whichever rung it picks.
fn blur_default(ctx: &Context, w: usize, h: usize, c: usize, r: u32) -> Result<(), String> {
    let img = random_image(w, h, c, "blur_default");
    let want = cpu::blur(&img, r);
    let src = DeviceImage::upload(ctx, &img).map_err(|e| e.to_string())?;
    let mut dst = poisoned_image(ctx, w, h, c, 0xAB)?;
    image::blur(ctx, &src, &mut dst, r).map_err(|e| e.to_string())?;
    exact("blur", dst.download().map_err(|e| e.to_string())?.data(), want.data())
}

/// The window rung with strips of `strip` rows (`None`: the default).
fn blur_win(ctx: &Context, w: usize, h: usize, c: usize, r: u32, strip: Option<u32>) -> Result<(), String> {
    let img = random_image(w, h, c, "blur_window");
    let want = cpu::blur(&img, r);
    let src = DeviceImage::upload(ctx, &img).map_err(|e| e.to_string())?;
    for poison in POISONS {
        let mut dst = poisoned_image(ctx, w, h, c, poison)?;
        match strip {
            Some(s) => image::blur_window(ctx, &src, &mut dst, r, s),
            None => image::blur_with(ctx, BlurVariant::Window, &src, &mut dst, r),
        }
        .map_err(|e| e.to_string())?;
        exact("blur", dst.download().map_err(|e| e.to_string())?.data(), want.data())?;
    }
    Ok(())
}

/// Radii of the window rung's cases: small, the radii of the old rungs'
/// limits, powers of two and their neighbours, and the largest.
const WINDOW_RADII: [u32; 9] = [1, 2, 3, 5, 8, 16, 31, 32, image::WINDOW_MAX_RADIUS];

/// The window rung's emulator shapes: one pixel, one row, one column,
/// odd widths (7, 33, primes, 1023: not multiples of 4, 16 or the band),
/// rows shorter and taller than a window, several bands (2047 × 45: inner
/// bands of full windows, rows starting off a word).
const WINDOW_SHAPES: [(usize, usize); 9] = [(1, 1), (7, 1), (1, 37), (33, 9), (97, 23), (251, 5), (1023, 3), (13, 131), (2047, 45)];

fn volume(ctx: &Context, dims: [usize; 3]) -> Result<(), String> {
    let n = dims.iter().product();
    let mut r = Rng::new(seed("volume") ^ n as u64);
    let (x, scale, offset) = (r.f32s(n), r.f32s(dims[0]), r.f32s(dims[0]));
    let (dx, ds, doff) = (up(ctx, &x)?, up(ctx, &scale)?, up(ctx, &offset)?);
    let mut out = poisoned(ctx, n, f32::NAN)?;
    image::volume_affine(ctx, dims, &dx, &ds, &doff, &mut out).map_err(|e| e.to_string())?;
    exact_f32("volume", &down(&out)?, &cpu::volume_affine(dims, &x, &scale, &offset))
}

fn vec_add(ctx: &Context, v: VecAddVariant, n: usize) -> Result<(), String> {
    let mut r = Rng::new(seed(v.name()) ^ n as u64);
    let (a, b) = (r.f32s(n), r.f32s(n));
    let (da, db) = (up(ctx, &a)?, up(ctx, &b)?);
    let mut dc = poisoned(ctx, n, f32::NAN)?;
    ferrotile::vec_add_with(ctx, v, &da, &db, &mut dc).map_err(|e| e.to_string())?;
    exact_f32("c", &down(&dc)?, &ferrotile::reference::vec_add(&a, &b))
}

/// Random shapes and radii: every rung that handles the case equals the
/// reference exactly (24 cases, fixed seed, so runs are reproducible).
fn proptest_all_rungs(ctx: &Context) -> Result<(), String> {
    let config = Config { cases: 24, failure_persistence: None, ..Config::default() };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let side = prop_oneof![Just(1usize), Just(2), Just(16), Just(31), Just(37), Just(61), 1usize..80];
    let strategy = (side.clone(), side, prop::sample::select(vec![1usize, 3, 4]), 0u32..6);
    runner
        .run(&strategy, |(w, h, c, r)| {
            if c == 3 {
                for &v in GrayVariant::ALL {
                    gray(ctx, v, w, h).map_err(|e| TestCaseError::fail(format!("{v:?} {w}x{h}: {e}")))?;
                }
            }
            for &v in BlurVariant::ALL {
                if v.supports(w, c, r) {
                    blur(ctx, v, w, h, c, r).map_err(|e| TestCaseError::fail(format!("{v:?} {w}x{h}x{c} r{r}: {e}")))?;
                }
            }
            Ok(())
        })
        .map_err(|e| e.to_string())
}

/// Shapes of the emulator cases: 1 × 1, single rows and columns, the PMPP
/// 62 × 76, primes, and rows of whole 16-byte chunks (vector paths).
const SHAPES: [(usize, usize); 9] = [(1, 1), (1, 23), (23, 1), (62, 76), (13, 7), (17, 5), (31, 33), (160, 67), (48, 20)];

/// Shapes of the sliding rung's emulator cases (rows of whole 16-byte
/// chunks): one chunk wide, single rows, fewer rows than a window, primes
/// of rows, several warps of chunks.
const SLIDE_SHAPES: [(usize, usize); 9] = [(16, 1), (16, 2), (16, 23), (32, 7), (48, 20), (160, 67), (64, 129), (96, 3), (1040, 5)];

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for &g in GrayVariant::ALL {
        for (w, h) in SHAPES {
            v.push(Case::new(format!("image::gray::{}::{w}x{h}", g.name()), move |ctx| gray(ctx, g, w, h)));
        }
        for (w, h) in [(8192, 8192), (1920, 1080), (1023, 769)] {
            v.push(Case::gpu_only(format!("image::gray::{}::{w}x{h}", g.name()), move |ctx| gray(ctx, g, w, h)));
        }
    }
    for &b in BlurVariant::ALL {
        for c in [1usize, 3, 4] {
            for r in [0u32, 1, 2, 3, 5, 17] {
                let sliding = matches!(b, BlurVariant::Sliding | BlurVariant::SlidingSums);
                let shapes = if sliding { &SLIDE_SHAPES[..] } else { &SHAPES[..] };
                for &(w, h) in shapes {
                    if !b.supports(w, c, r) || (r == 17 && w * h > 62 * 76) {
                        continue;
                    }
                    v.push(Case::new(format!("image::blur::{}::c{c}::r{r}::{w}x{h}", b.name()), move |ctx| {
                        blur(ctx, b, w, h, c, r)
                    }));
                }
                if r <= 3 {
                    for (w, h) in [(8192, 8192), (1920, 1080), (1021, 777), (1024, 777)] {
                        if b.supports(w, c, r) {
                            v.push(Case::gpu_only(format!("image::blur::{}::c{c}::r{r}::{w}x{h}", b.name()), move |ctx| {
                                blur(ctx, b, w, h, c, r)
                            }));
                        }
                    }
                }
            }
        }
    }
    // The sliding rungs with every kind of strip: one row, fewer rows than
    // the window, a partial last strip, one strip for the whole image.
    for b in [BlurVariant::Sliding, BlurVariant::SlidingSums] {
        for c in [1usize, 3, 4] {
            for r in 1..=3u32 {
                if !b.supports(16, c, r) {
                    continue; // RGBA: the horizontal-first rung only
                }
                for strip in [1u32, 2, 3, 5, 8, 64] {
                    for (w, h) in [(32, 29), (16, 7), (48, 20)] {
                        v.push(Case::new(format!("image::blur::{}::c{c}::r{r}::{w}x{h}::strip{strip}", b.name()), move |ctx| {
                            blur_strip(ctx, b, w, h, c, r, strip)
                        }));
                    }
                }
                for strip in [1u32, 7, 16, 32, 128] {
                    v.push(Case::gpu_only(format!("image::blur::{}::c{c}::r{r}::2048x1031::strip{strip}", b.name()), move |ctx| {
                        blur_strip(ctx, b, 2048, 1031, c, r, strip)
                    }));
                }
            }
        }
    }
    // The horizontal-first rung's experiment kernels of the benchmark.
    for (c, r, e) in [(1usize, 1u32, "p2"), (1, 2, "p2"), (1, 3, "p2"), (3, 1, "p2"), (3, 3, "p2"), (1, 1, "down"), (1, 2, "down"), (1, 3, "down"), (1, 1, "serial"), (1, 2, "serial"), (1, 3, "serial")] {
        for (w, h, strip) in [(48usize, 21usize, 5u32), (64, 9, 2)] {
            v.push(Case::new(format!("image::blur::blur_hslide_{e}::c{c}::r{r}::{w}x{h}"), move |ctx| {
                let img = random_image(w, h, c, "blur_hslide_experiment");
                let src = DeviceImage::upload(ctx, &img).map_err(|e| e.to_string())?;
                let mut dst = poisoned_image(ctx, w, h, c, 0xAB)?;
                image::blur_sliding_sums_experiment(ctx, &src, &mut dst, r, strip, e).map_err(|e| e.to_string())?;
                exact("blur", dst.download().map_err(|e| e.to_string())?.data(), cpu::blur(&img, r).data())
            }));
        }
        v.push(Case::gpu_only(format!("image::blur::blur_hslide_{e}::c{c}::r{r}::1024x777"), move |ctx| {
            let img = random_image(1024, 777, c, "blur_hslide_experiment");
            let src = DeviceImage::upload(ctx, &img).map_err(|e| e.to_string())?;
            let mut dst = poisoned_image(ctx, 1024, 777, c, 0x54)?;
            image::blur_sliding_sums_experiment(ctx, &src, &mut dst, r, 16, e).map_err(|e| e.to_string())?;
            exact("blur", dst.download().map_err(|e| e.to_string())?.data(), cpu::blur(&img, r).data())
        }));
    }
    // The prefetch-depth experiments of the benchmark.
    for (c, r, d) in [(1usize, 1u32, 2u32), (1, 2, 2), (1, 3, 4), (3, 1, 2), (3, 3, 4)] {
        v.push(Case::new(format!("image::blur::blur_slide_prefetch{d}::c{c}::r{r}::48x21"), move |ctx| {
            let img = random_image(48, 21, c, "blur_slide_prefetch");
            let src = DeviceImage::upload(ctx, &img).map_err(|e| e.to_string())?;
            let mut dst = poisoned_image(ctx, 48, 21, c, 0xAB)?;
            image::blur_sliding_prefetch(ctx, &src, &mut dst, r, 5, d).map_err(|e| e.to_string())?;
            exact("blur", dst.download().map_err(|e| e.to_string())?.data(), cpu::blur(&img, r).data())
        }));
    }
    // The window rung: every channel count, radius class and odd shape.
    for c in 1..=4usize {
        for r in WINDOW_RADII {
            if !BlurVariant::Window.supports(1, c, r) {
                continue;
            }
            for (w, h) in WINDOW_SHAPES {
                v.push(Case::new(format!("image::blur::blur_window::c{c}::r{r}::{w}x{h}"), move |ctx| blur_win(ctx, w, h, c, r, None)));
            }
            for (w, h) in [(8192, 8192), (4093, 4099), (1920, 1080), (3, 100_003)] {
                if r <= 8 || r == 32 || (w, h) == (4093, 4099) {
                    v.push(Case::gpu_only(format!("image::blur::blur_window::c{c}::r{r}::{w}x{h}"), move |ctx| blur_win(ctx, w, h, c, r, None)));
                }
            }
        }
        // Strips of every kind: shorter than a batch, than the prologue,
        // partial last strips, one strip for the whole image; bands that
        // end inside a 16-byte chunk.
        for (r, strip) in [(1u32, 1u32), (1, 3), (2, 8), (3, 5), (5, 13), (8, 1000), (16, 7), (32, 40)] {
            for (w, h) in [(301, 29), (64, 47)] {
                v.push(Case::new(format!("image::blur::blur_window::c{c}::r{r}::{w}x{h}::strip{strip}"), move |ctx| {
                    blur_win(ctx, w, h, c, r, Some(strip))
                }));
            }
        }
        v.push(Case::gpu_only(format!("image::blur::blur_window::c{c}::r3::2047x1031::strip9"), move |ctx| blur_win(ctx, 2047, 1031, c, 3, Some(9))));
    }
    for (w, h, c, r) in [(160, 67, 1, 2), (48, 20, 3, 3), (62, 76, 3, 1), (13, 7, 1, 0), (31, 33, 1, 5), (37, 11, 4, 7), (19, 23, 2, 33), (5, 4, 3, 200)] {
        v.push(Case::new(format!("image::blur::default::c{c}::r{r}::{w}x{h}"), move |ctx| blur_default(ctx, w, h, c, r)));
    }
    for dims in [[1, 1, 1], [3, 5, 7], [2, 33, 65], [5, 4, 1], [1, 9, 40], [7, 1, 1]] {
        v.push(Case::new(format!("image::volume::{}x{}x{}", dims[0], dims[1], dims[2]), move |ctx| volume(ctx, dims)));
    }
    v.push(Case::gpu_only("image::volume::67x513x511", |ctx| volume(ctx, [67, 513, 511])));
    // Grids over the launch limits (issue 11): 2 M rows fold into z for the
    // one-thread-per-pixel rungs (16-row blocks: 125 000 block rows), and
    // 300 000 planes walk the grid's z in strides.
    for variant in [BlurVariant::Naive, BlurVariant::Tiled] {
        v.push(Case::gpu_only(format!("image::folded_grid::{}::3x2000000", variant.name()), move |ctx| blur(ctx, variant, 3, 2_000_000, 1, 1)));
    }
    v.push(Case::gpu_only("image::folded_grid::rgba_default::5x1100000", |ctx| blur_default(ctx, 5, 1_100_000, 4, 2)));
    v.push(Case::gpu_only("image::folded_grid::gray_pmpp::2x2100000", |ctx| gray(ctx, GrayVariant::Pmpp, 2, 2_100_000)));
    v.push(Case::gpu_only("image::folded_grid::volume::300000x3x5", |ctx| volume(ctx, [300_000, 3, 5])));
    v.push(Case::gpu_only("image::folded_grid::volume::2x300000x3", |ctx| volume(ctx, [2, 300_000, 3])));
    for &va in VecAddVariant::ALL {
        for n in [1usize, 3, 4, 5, 17, 4095, 4096, 4097, 100_003] {
            v.push(Case::new(format!("image::vec_add::{}::n{n}", va.name()), move |ctx| vec_add(ctx, va, n)));
        }
        v.push(Case::gpu_only(format!("image::vec_add::{}::n67108864", va.name()), move |ctx| vec_add(ctx, va, 1 << 26)));
        v.push(Case::gpu_only(format!("image::vec_add::{}::n67108863", va.name()), move |ctx| vec_add(ctx, va, (1 << 26) - 1)));
    }
    v.push(Case::new("image::proptest::random_shapes_and_radii", proptest_all_rungs));
    v.push(Case::new("image::api::rejects_bad_arguments_before_launch", bad_arguments));
    v
}

fn bad_arguments(ctx: &Context) -> Result<(), String> {
    let rgb = DeviceImage::upload(ctx, &random_image(4, 3, 3, "bad")).map_err(|e| e.to_string())?;
    let mut gray = poisoned_image(ctx, 4, 3, 1, 0xAB)?;
    let mut other = poisoned_image(ctx, 3, 4, 1, 0xAB)?;
    let mut rgb_out = poisoned_image(ctx, 4, 3, 3, 0xAB)?;
    let expect = |what: &str, got: Result<(), Error>, arg: &str| match got {
        Err(Error::BadArgument { arg: a, .. }) if a == arg => Ok(()),
        other => Err(format!("{what}: expected BadArgument `{arg}`, got {other:?}")),
    };
    expect("gray from a gray image", image::rgb_to_gray(ctx, &gray, &mut other), "src")?;
    expect("gray into 3 channels", image::rgb_to_gray(ctx, &rgb, &mut rgb_out), "dst")?;
    let mut rotated = poisoned_image(ctx, 3, 4, 1, 0xAB)?;
    expect("gray of another shape", image::rgb_to_gray(ctx, &rgb, &mut rotated), "dst")?;
    expect("blur radius too large", image::blur(ctx, &rgb, &mut rgb_out, 256), "radius")?;
    expect("blur tiled radius too large", image::blur_with(ctx, BlurVariant::Tiled, &rgb, &mut rgb_out, 40), "variant")?;
    expect("blur fast at radius 4", image::blur_with(ctx, BlurVariant::Fast, &rgb, &mut rgb_out, 4), "variant")?;
    expect("blur into gray", image::blur(ctx, &rgb, &mut gray, 1), "dst")?;
    expect("sliding blur of a 4-pixel row", image::blur_with(ctx, BlurVariant::Sliding, &rgb, &mut rgb_out, 1), "variant")?;
    let rgb16 = DeviceImage::upload(ctx, &random_image(16, 3, 3, "bad")).map_err(|e| e.to_string())?;
    let mut rgb16_out = poisoned_image(ctx, 16, 3, 3, 0xAB)?;
    expect("sliding blur with empty strips", image::blur_sliding(ctx, &rgb16, &mut rgb16_out, 1, 0), "strip_rows")?;
    expect("sliding blur at radius 4", image::blur_sliding(ctx, &rgb16, &mut rgb16_out, 4, 8), "variant")?;
    expect("sliding-sums blur of a 4-pixel row", image::blur_with(ctx, BlurVariant::SlidingSums, &rgb, &mut rgb_out, 1), "variant")?;
    expect("strips of the fast rung", image::blur_strips(ctx, BlurVariant::Fast, &rgb16, &mut rgb16_out, 1, 8), "variant")?;
    expect("sliding-sums blur with empty strips", image::blur_strips(ctx, BlurVariant::SlidingSums, &rgb16, &mut rgb16_out, 1, 0), "strip_rows")?;
    expect("sliding-sums blur at radius 4", image::blur_strips(ctx, BlurVariant::SlidingSums, &rgb16, &mut rgb16_out, 4, 8), "variant")?;
    expect(
        "unknown sliding-sums experiment",
        image::blur_sliding_sums_experiment(ctx, &rgb16, &mut rgb16_out, 1, 8, "p9"),
        "experiment",
    )?;
    expect("window blur with empty strips", image::blur_window(ctx, &rgb, &mut rgb_out, 1, 0), "strip_rows")?;
    expect("window blur beyond its radii", image::blur_with(ctx, BlurVariant::Window, &rgb, &mut rgb_out, image::WINDOW_MAX_RADIUS + 1), "variant")?;
    expect("window blur at radius 0", image::blur_window(ctx, &rgb, &mut rgb_out, 0, 8), "variant")?;
    expect("window blur into gray", image::blur_window(ctx, &rgb, &mut gray, 1, 8), "dst")?;
    expect("radius-0 copy into gray", image::blur(ctx, &rgb, &mut gray, 0), "dst")?;
    exact("untouched sliding output", rgb16_out.download().map_err(|e| e.to_string())?.data(), &[0xAB; 16 * 3 * 3])?;
    match HostImage::new(4, 3, 3, vec![0u8; 35]) {
        Err(Error::LengthMismatch { arg: "data", expected: 36, actual: 35 }) => {}
        other => return Err(format!("short image data: {other:?}")),
    }
    match HostImage::new(4, 3, 2 + 3, vec![0u8; 60]) {
        Err(Error::BadArgument { arg: "channels", .. }) => {}
        other => return Err(format!("5 channels: {other:?}")),
    }
    let buf = ctx.alloc::<u8>(10).map_err(|e| e.to_string())?;
    match DeviceImage::new(4, 3, 1, buf) {
        Err(Error::LengthMismatch { arg: "data", expected: 12, actual: 10 }) => {}
        other => return Err(format!("device image of the wrong length: {other:?}")),
    }
    let x = up(ctx, &[1.0f32; 6])?;
    let s = up(ctx, &[1.0f32; 2])?;
    let mut o = poisoned(ctx, 6, 0.0f32)?;
    match image::volume_affine(ctx, [3, 1, 2], &x, &s, &s, &mut o) {
        Err(Error::LengthMismatch { arg: "scale", expected: 3, actual: 2 }) => {}
        other => return Err(format!("volume with a short scale: {other:?}")),
    }
    match image::volume_affine(ctx, [0, 1, 2], &x, &s, &s, &mut o) {
        Err(Error::BadArgument { arg: "dims", .. }) => {}
        other => return Err(format!("volume with a zero extent: {other:?}")),
    }
    // Nothing was launched: the outputs still hold their poison.
    exact("untouched gray", gray.download().map_err(|e| e.to_string())?.data(), &[0xAB; 12])?;
    exact("untouched rgb", rgb_out.download().map_err(|e| e.to_string())?.data(), &[0xAB; 36])?;
    exact_f32("untouched volume", &down(&o)?, &[0.0; 6])
}
