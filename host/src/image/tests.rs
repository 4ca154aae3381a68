//! Unit tests of the image module: the CPU references against the
//! definition, launch bounds against the launched blocks, shape
//! validation, strip heights, device-image writes.

use ferrotile_kernels as k;
use ferrotile_kernels::image::index::{self as ix, SlideParams, WindowParams};
use proptest::prelude::*;

use super::*;
use crate::{Context, Error, Result};

fn random_image(w: usize, h: usize, c: usize, seed: u64) -> HostImage {
    let mut s = seed;
    HostImage::from_fn(w, h, c, |_, _| {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let b = (s >> 24).to_le_bytes();
        [b[0], b[1], b[2], b[3]]
    })
    .unwrap()
}

proptest! {
    #[test]
    fn separable_reference_is_the_definition(w in 1usize..20, h in 1usize..20, c in prop::sample::select(vec![1usize, 3]), r in 0u32..6, seed: u64) {
        let img = random_image(w, h, c, seed);
        prop_assert_eq!(cpu::blur(&img, r), cpu::blur_direct(&img, r));
    }
}

#[test]
fn image_launch_bounds_match_the_launched_blocks() {
    // Every image kernel with bounds launches SLIDE_THREADS threads with
    // the rings of the sliding-sums config; n blocks of rings fit an SM.
    for b in k::image::LAUNCH_BOUNDS {
        assert!(b.kernel.starts_with("blur_hslide_"), "{}", b.kernel);
        let r: u32 = b.kernel[b.kernel.rfind("_r").unwrap() + 2..][..1].parse().unwrap();
        let cfg = ix::blur_hslide_config(SlideParams::new(16, 16, 1, 4), r);
        assert_eq!(cfg.threads_per_block(), b.max_threads, "{}", b.kernel);
        assert!(cfg.shared_bytes * b.min_blocks_per_sm <= 227 * 1024, "{}", b.kernel);
    }
    // The window kernels: their block, and the blocks their bounds promise
    // fit the shared memory (the same at every radius).
    for b in k::image::WINDOW_LAUNCH_BOUNDS {
        for r in [1, 3, 32, ix::WIN_MAX_RADIUS] {
            let cfg = ix::blur_window_config(WindowParams::new(100, 100, 1, r, 8));
            assert_eq!(cfg.threads_per_block(), b.max_threads, "{}", b.kernel);
            assert!((cfg.shared_bytes + 1024) * b.min_blocks_per_sm <= 228 * 1024, "{}", b.kernel);
        }
        assert_eq!(ix::win_blocks_per_sm(), b.min_blocks_per_sm);
    }
    for c in [1usize, 3] {
        for r in 1..=3 {
            let name = format!("blur_hslide_{}_r{r}", if c == 1 { "gray" } else { "rgb" });
            let b = k::LAUNCH_BOUNDS.iter().find(|b| b.kernel == name).expect("default kernels have bounds");
            assert_eq!(b.min_blocks_per_sm, ix::hslide_blocks_per_sm(c as u32, r));
        }
    }
}

#[test]
fn shapes_are_validated() {
    assert!(matches!(HostImage::new(0, 1, 1, vec![]), Err(Error::BadArgument { arg: "width", .. })));
    assert!(matches!(HostImage::new(1, 0, 1, vec![]), Err(Error::BadArgument { arg: "height", .. })));
    assert!(matches!(HostImage::new(1, 1, 5, vec![0; 5]), Err(Error::BadArgument { arg: "channels", .. })));
    assert!(matches!(
        HostImage::new(2, 2, 3, vec![0; 11]),
        Err(Error::LengthMismatch { arg: "data", expected: 12, actual: 11 })
    ));
    assert!(matches!(
        HostImage::new(70_000, 70_000, 1, vec![]),
        Err(Error::BadArgument { arg: "width * height * channels", .. })
    ));
}

#[test]
fn builtin_image_has_the_asked_shape() {
    let img = builtin_test_image(62, 76).unwrap();
    assert_eq!((img.width(), img.height(), img.channels(), img.data().len()), (62, 76, 3, 62 * 76 * 3));
}

#[test]
fn builtin_image_refuses_bad_sizes_instead_of_panicking_or_clamping() {
    let arg = |r: Result<HostImage>| match r {
        Err(Error::BadArgument { arg, .. }) => arg,
        other => panic!("expected BadArgument, got {other:?}"),
    };
    assert_eq!(arg(builtin_test_image(0, 5)), "width");
    assert_eq!(arg(builtin_test_image(5, 0)), "height");
    assert_eq!(arg(builtin_test_image(0, 0)), "width");
    assert_eq!(arg(builtin_test_image(1, MAX_HEIGHT + 1)), "height");
    assert_eq!(arg(builtin_test_image(100_000, 100_000)), "width * height * channels");
    assert_eq!(arg(builtin_test_image(usize::MAX, 1)), "width");
    // The same rule as image_bytes (what the CLI checks --size with).
    assert!(image_bytes(100_000, 100_000, 3).is_err());
    assert_eq!(image_bytes(37, 23, 3), Ok(37 * 23 * 3));
}

#[test]
fn strip_heights_saturate_on_huge_widths() {
    // A row of 2^63 pixels of 2 channels wrapped a usize product to 0
    // chunks (then the shortest strips); it is the widest row there is,
    // as wide as u32::MAX chunks: one strip for the sliding sums
    // (more chunks than threads), the tallest strips for the sliding rung.
    let ctx = Context::emulator();
    let (height, widest) = (1000, u32::MAX as usize * ix::SLIDE_CHUNK as usize);
    for (width, channels) in [(1usize << 63, 2usize), (1 << 62, 4), (usize::MAX, 3), (usize::MAX / 3 + 1, 3), (usize::MAX, usize::MAX)] {
        let c = channels.min(4);
        assert_eq!(sliding_strip_rows(&ctx, width, height, channels), ix::SLIDE_STRIP_RANGE[1], "{width} x {channels}");
        assert_eq!(sliding_strip_rows(&ctx, width, height, channels), sliding_strip_rows(&ctx, widest, height, c));
        for r in 1..=3 {
            assert_eq!(sliding_sums_strip_rows(&ctx, width, height, channels, r), height as u32, "{width} x {channels}, r {r}");
            assert_eq!(
                sliding_sums_strip_rows_for_waves(&ctx, width, height, channels, r, 2),
                sliding_sums_strip_rows_for_waves(&ctx, widest, height, c, r, 2)
            );
        }
    }
    // Huge heights saturate too.
    assert_eq!(sliding_sums_strip_rows(&ctx, widest, usize::MAX, 1, 1), u32::MAX);
}

#[test]
fn device_image_writes_keep_the_shape() {
    let ctx = Context::emulator();
    let (w, h, c) = (37, 23, 3);
    let n = w * h * c;
    let mut img = DeviceImage::alloc(&ctx, w, h, c).unwrap();
    img.fill(0xAB).unwrap();
    assert_eq!(img.download().unwrap().data(), &vec![0xAB; n]);
    let pixels = random_image(w, h, c, 7);
    img.copy_from(pixels.data()).unwrap();
    assert_eq!(img.download().unwrap(), pixels);
    for wrong in [0, 1, n - 1, n + 1, 2 * n] {
        assert_eq!(img.copy_from(&vec![0x11; wrong]), Err(Error::LengthMismatch { arg: "data", expected: n, actual: wrong }));
        assert_eq!(img.download().unwrap(), pixels, "a refused copy leaves the pixels as they were");
    }
    assert_eq!((img.width(), img.height(), img.channels(), img.data().len()), (w, h, c, n));
    // The kernels index by the recorded shape: still in bounds, still exact.
    let mut out = DeviceImage::alloc(&ctx, w, h, c).unwrap();
    out.fill(0x54).unwrap();
    blur_with(&ctx, BlurVariant::Naive, &img, &mut out, 2).unwrap();
    assert_eq!(out.download().unwrap(), cpu::blur(&pixels, 2));
}
