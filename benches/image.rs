//! Image kernels and vector add against device-to-device copy bandwidth.
//!
//! For each size (8192², 1920×1080) every rung is checked once against its
//! CPU reference (FAIL in the table if wrong), then timed with CUDA events
//! (median; repetitions adapted to ~0.3 s per configuration, at least 3),
//! and compared with a device-to-device copy that moves the same number of
//! bytes, measured in the same run:
//!
//! | kernel | bytes per pixel / element | copy ceiling |
//! | --- | --- | --- |
//! | grayscale | 4 (3 read + 1 written) | copy of 2 B/px |
//! | blur, gray | 2 | copy of 1 B/px |
//! | blur, RGB | 6 | copy of 3 B/px |
//! | volume (f32) | 8 | copy of 4 B/element |
//! | vector add (f32, 2^26) | 12 | copy of 6 B/element |
//!
//! Targets: grayscale ≥ 90%, blur radius 1–3 ≥ 80%, vector add ≥ 90%.
//!
//! Then the **shape classes** of issue 15, each against a copy of the same
//! bytes in the same run: the default blur ([`image::blur`], the rung Auto
//! picks, named in the row) at radius 1, 3, 8, 16 and 32 × 1, 3 and 4
//! channels on 8192² (4096² with `FERROTILE_BENCH_QUICK=1`) and on
//! 4093 × 4099 (odd width and height: no row is a multiple of 4 or 16
//! bytes), grayscale on 4093 × 4099 and vector add at 2^24 + 3 elements.
//! Big outputs are checked on sampled rows (the first and last `r + 2`,
//! middle and spread rows, every column) against a CPU reference of those
//! rows; the target there is blur ≥ 80%, grayscale and vector add ≥ 90%.
//! `FERROTILE_BENCH_CLASSES_ONLY=1` runs only this table.
//! `FERROTILE_BENCH_QUICK=1`: 1920×1080 and 2^22 only;
//! `FERROTILE_BENCH_BLUR_ONLY=1`: the fast blur rungs only;
//! `FERROTILE_BENCH_STRIPS=1`: the horizontal-first sliding blur at other strip
//! heights (1, 2 and 3 waves, 16 rows; `FERROTILE_BENCH_STRIP_LIST=8,12,16`
//! names them instead) and its experiment kernels too. Without CUDA it
//! prints a note and exits 0 (`FERROTILE_BENCH_EMULATOR=1`: a smoke run on
//! the CPU emulator at tiny sizes).

use std::collections::HashMap;
use std::time::Duration;

use ferrotile::testing::{random_f32, random_u8};
use ferrotile::image::{self, cpu, BlurVariant, DeviceImage, GrayVariant, HostImage};
use ferrotile::{Buffer, Context, Result, VecAddVariant};

#[path = "common/results.rs"]
mod results;
use results::{Measured, Work};

/// Median time of `f`, repetitions adapted so that one configuration takes
/// about 0.3 s (at least 3, at most 500).
fn measure(ctx: &Context, mut f: impl FnMut() -> Result<()>) -> Result<Duration> {
    let once = ctx.time(1, 1, &mut f)?;
    let budget = if ctx.backend() == ferrotile::Backend::Emulator { 0.0 } else { 0.3 };
    let iters = ((budget / once.as_secs_f64().max(1e-6)) as usize).clamp(3, 500);
    ctx.time(2, iters, f)
}

/// Device-to-device copy times by byte count (the ceilings).
struct Ceilings<'a> {
    ctx: &'a Context,
    cache: HashMap<usize, Duration>,
}

impl Ceilings<'_> {
    /// Time of a copy of `bytes` bytes (which moves 2 · `bytes`).
    fn copy(&mut self, bytes: usize) -> Result<Duration> {
        if let Some(t) = self.cache.get(&bytes) {
            return Ok(*t);
        }
        let src: Buffer<u8> = self.ctx.upload(&random_u8(bytes, 99))?;
        let mut dst = self.ctx.alloc::<u8>(bytes)?;
        let t = measure(self.ctx, || dst.copy_from_buffer(&src))?;
        self.cache.insert(bytes, t);
        Ok(t)
    }
}


struct Table {
    rows: Vec<String>,
    failed: usize,
}

impl Table {
    fn row(&mut self, rung: &str, size: &str, t: Duration, bytes: f64, copy: Duration, ok: bool) {
        let gbs = bytes / t.as_secs_f64() / 1e9;
        let pct = 100.0 * copy.as_secs_f64() / t.as_secs_f64();
        if !ok {
            self.failed += 1;
        }
        let line = format!(
            "| {rung} | {size} | {:.4} | {gbs:.1} | {pct:.1}% | {} |",
            t.as_secs_f64() * 1e3,
            if ok { "ok" } else { "FAIL" }
        );
        println!("{line}");
        self.rows.push(line);
        let dtype = if rung.starts_with("vec_add") || rung.starts_with("volume") { "f32" } else { "u8" };
        let check = if ok { "ok" } else { "FAIL" };
        let ceiling = Some(("device-to-device copy (same bytes)", copy));
        results::record(Measured { family: "image", kernel: rung, rung: None, shape: size, dtype, time: t, work: Work::Bytes(bytes), ceiling, check });
    }

    fn copy_row(&mut self, what: &str, size: &str, bytes: usize, t: Duration) {
        let line = format!(
            "| {what} | {size} | {:.4} | {:.1} | 100.0% | ceiling |",
            t.as_secs_f64() * 1e3,
            2.0 * bytes as f64 / t.as_secs_f64() / 1e9
        );
        println!("{line}");
        self.rows.push(line);
        let work = Work::Bytes(2.0 * bytes as f64);
        results::record(Measured { family: "image", kernel: what, rung: Some("ceiling"), shape: size, dtype: "u8", time: t, work, ceiling: None, check: "ceiling" });
    }
}

fn main() {
    // FERROTILE_BENCH_EMULATOR=1: a smoke run of this program on the CPU
    // emulator at tiny sizes (times meaningless).
    let emulator = std::env::var("FERROTILE_BENCH_EMULATOR").is_ok_and(|v| v == "1");
    let ctx = match if emulator { Ok(Context::emulator()) } else { Context::cuda(0) } {
        Ok(c) => c,
        Err(e) => {
            println!("image bench: no CUDA backend ({e}); nothing to measure. Run it on a machine with an NVIDIA GPU.");
            return;
        }
    };
    if let Err(e) = run(&ctx) {
        println!("image bench: error: {e}");
        std::process::exit(1);
    }
}

fn run(ctx: &Context) -> Result<()> {
    let quick = std::env::var("FERROTILE_BENCH_QUICK").is_ok_and(|v| v == "1");
    let tiny = ctx.backend() == ferrotile::Backend::Emulator;
    results::set_gpu(ctx.device_info().map(|d| d.name.as_str()));
    if let Some(d) = ctx.device_info() {
        println!("GPU: {} (sm_{}{}, {} SMs)", d.name, d.compute_capability.0, d.compute_capability.1, d.sm_count);
    }
    println!("% of copy = time of a device-to-device copy moving the same bytes / kernel time (same run).");
    let mut table = Table { rows: Vec::new(), failed: 0 };
    let mut ceil = Ceilings { ctx, cache: HashMap::new() };
    if classes_only() {
        shape_classes(ctx, &mut ceil, &mut table, tiny, quick)?;
        return finish(&table);
    }
    println!("\n| rung | size | time ms | GB/s | % of copy | check |");
    println!("| --- | --- | --- | --- | --- | --- |");
    let sizes: &[(usize, usize)] = match (tiny, quick) {
        (true, _) => &[(130, 70), (160, 70)],
        (false, true) => &[(1920, 1080)],
        (false, false) => &[(8192, 8192), (1920, 1080)],
    };
    for &(w, h) in sizes {
        image_size(ctx, &mut ceil, &mut table, w, h)?;
    }
    if blur_only() {
        return finish(&table);
    }
    let n = if tiny { 10_001 } else if quick { 1 << 22 } else { 1 << 26 };
    vec_add(ctx, &mut ceil, &mut table, n)?;
    let dims = if tiny { [3, 20, 30] } else if quick { [4, 512, 512] } else { [16, 1024, 1024] };
    volume(ctx, &mut ceil, &mut table, dims)?;
    shape_classes(ctx, &mut ceil, &mut table, tiny, quick)?;
    finish(&table)
}

/// `FERROTILE_BENCH_CLASSES_ONLY=1`: only the shape-class table.
fn classes_only() -> bool {
    std::env::var("FERROTILE_BENCH_CLASSES_ONLY").is_ok_and(|v| v == "1")
}

/// The issue-15 shape classes (see the module doc): the default blur,
/// grayscale and vector add on large and odd shapes, each against a copy
/// of its bytes measured in this run.
fn shape_classes(ctx: &Context, ceil: &mut Ceilings, table: &mut Table, tiny: bool, quick: bool) -> Result<()> {
    println!("\n### Shape classes (issue 15): default kernels, % of a copy of the same bytes\n");
    println!("| rung | size | time ms | GB/s | % of copy | check |");
    println!("| --- | --- | --- | --- | --- | --- |");
    let sizes: &[(usize, usize)] = match (tiny, quick) {
        (true, _) => &[(96, 40), (93, 41)],
        (false, true) => &[(4096, 4096), (4093, 4099)],
        (false, false) => &[(8192, 8192), (4093, 4099)],
    };
    for &(w, h) in sizes {
        let size = format!("{w}x{h}");
        for c in [1usize, 3, 4] {
            let bytes = w * h * c;
            let img = HostImage::new(w, h, c, random_u8(bytes, (w * 31 + h * 7 + c) as u64))?;
            let src = DeviceImage::upload(ctx, &img)?;
            let mut out = DeviceImage::alloc(ctx, w, h, c)?;
            let copy = ceil.copy(bytes)?;
            table.copy_row(&format!("copy ({c}-channel blur bytes)"), &size, bytes, copy);
            for r in [1u32, 3, 8, 16, 32] {
                out.fill(0xAB)?;
                image::blur(ctx, &src, &mut out, r)?;
                let ok = sampled_blur_ok(&img, &out.download()?, r);
                let t = measure(ctx, || image::blur(ctx, &src, &mut out, r))?;
                let v = BlurVariant::best(w, c, r);
                table.row(&format!("auto → {}_c{c}_r{r}", v.name()), &size, t, 2.0 * bytes as f64, copy, ok);
            }
        }
    }
    // Grayscale and vector add at sizes that are not multiples of their vector widths.
    let (w, h) = if tiny { (93, 41) } else { (4093, 4099) };
    let px = w * h;
    let rgb = HostImage::new(w, h, 3, random_u8(3 * px, 5))?;
    let want = cpu::rgb_to_gray(&rgb);
    let src = DeviceImage::upload(ctx, &rgb)?;
    let mut dst = DeviceImage::alloc(ctx, w, h, 1)?;
    let copy = ceil.copy(2 * px)?;
    table.copy_row("copy (gray bytes)", &format!("{w}x{h}"), 2 * px, copy);
    dst.fill(0xAB)?;
    image::rgb_to_gray(ctx, &src, &mut dst)?;
    let ok = dst.download()?.data() == want.data();
    let t = measure(ctx, || image::rgb_to_gray(ctx, &src, &mut dst))?;
    table.row("auto → rgb_to_gray_vec16", &format!("{w}x{h}"), t, 4.0 * px as f64, copy, ok);
    vec_add(ctx, ceil, table, if tiny { 10_007 } else { (1 << 24) + 3 })
}

/// Whether `out` is the blur of `img` at radius `r` on sampled rows: the
/// first and last `r + 2`, three around the middle, and every 97th, each
/// over its whole width (the clipped columns included), against the
/// definition computed from column sums of those rows only.
fn sampled_blur_ok(img: &HostImage, out: &HostImage, r: u32) -> bool {
    let (w, h, c) = (img.width(), img.height(), img.channels());
    let rb = w * c;
    let ri = r as usize;
    let mut rows: Vec<usize> = (0..(ri + 2).min(h)).chain(h.saturating_sub(ri + 2)..h).chain([(h / 2).saturating_sub(1), h / 2, (h / 2 + 1).min(h - 1)]).collect();
    rows.extend((0..h).step_by(97));
    let (src, got) = (img.data(), out.data());
    rows.iter().all(|&y| {
        let (y0, y1) = (y.saturating_sub(ri), (y + ri + 1).min(h));
        let mut col = vec![0u32; rb];
        for yy in y0..y1 {
            for (s, &b) in col.iter_mut().zip(&src[yy * rb..(yy + 1) * rb]) {
                *s += b as u32;
            }
        }
        (0..w).all(|x| {
            let (x0, x1) = (x.saturating_sub(ri), (x + ri + 1).min(w));
            let count = ((x1 - x0) * (y1 - y0)) as u32;
            (0..c).all(|ch| {
                let sum: u32 = (x0..x1).map(|xx| col[xx * c + ch]).sum();
                got[y * rb + x * c + ch] as u32 == (sum + count / 2) / count
            })
        })
    })
}

fn finish(table: &Table) -> Result<()> {
    if table.failed > 0 {
        println!("\n{} configuration(s) FAILED their check", table.failed);
        std::process::exit(1);
    }
    Ok(())
}

fn image_size(ctx: &Context, ceil: &mut Ceilings, table: &mut Table, w: usize, h: usize) -> Result<()> {
    let px = w * h;
    let size = format!("{w}x{h}");
    let rgb = HostImage::new(w, h, 3, random_u8(3 * px, (w * h) as u64))?;
    let src = DeviceImage::upload(ctx, &rgb)?;

    // Grayscale: 4 bytes per pixel.
    let want_gray = cpu::rgb_to_gray(&rgb);
    let copy = ceil.copy(2 * px)?;
    if !blur_only() {
        table.copy_row("copy (gray bytes)", &size, 2 * px, copy);
    }
    let mut dst = DeviceImage::alloc(ctx, w, h, 1)?;
    for &v in GrayVariant::ALL.iter().filter(|_| !blur_only()) {
        dst.fill(0xAB)?;
        image::rgb_to_gray_with(ctx, v, &src, &mut dst)?;
        let ok = dst.download()?.data() == want_gray.data();
        let t = measure(ctx, || image::rgb_to_gray_with(ctx, v, &src, &mut dst))?;
        table.row(v.name(), &size, t, 4.0 * px as f64, copy, ok);
    }

    // Blur of the gray image (2 B/px) and of the RGB image (6 B/px).
    let gray = DeviceImage::upload(ctx, &want_gray)?;
    for (img_host, img, c) in [(&want_gray, &gray, 1usize), (&rgb, &src, 3)] {
        let copy = ceil.copy(c * px)?;
        table.copy_row(&format!("copy ({c}-channel blur bytes)"), &size, c * px, copy);
        let mut out = DeviceImage::alloc(ctx, w, h, c)?;
        for r in 1..=3u32 {
            let want = cpu::blur(img_host, r);
            for &v in BlurVariant::ALL {
                // The naive rung at 8192² RGB is slow and says nothing new.
                let skip_ladder = blur_only() && matches!(v, BlurVariant::Naive | BlurVariant::Tiled);
                if !v.supports(w, c, r) || (v == BlurVariant::Naive && c == 3 && r > 1) || skip_ladder {
                    continue;
                }
                out.fill(0xAB)?;
                image::blur_with(ctx, v, img, &mut out, r)?;
                let ok = out.download()?.data() == want.data();
                let t = measure(ctx, || image::blur_with(ctx, v, img, &mut out, r))?;
                let name = format!("{}_{}_r{r}", v.name(), if c == 1 { "gray" } else { "rgb" });
                table.row(&name, &size, t, 2.0 * (c * px) as f64, copy, ok);
            }
            // The horizontal-first sliding rung's strip height: the default
            // (3 whole waves, 2 on small images; named above) against 1, 2
            // and 3 waves and strip 16,
            // and its experiment kernels at the default strip.
            if strip_sweep() && BlurVariant::SlidingSums.supports(w, c, r) {
                let default = image::sliding_sums_strip_rows(ctx, w, h, c, r);
                let ch = if c == 1 { "gray" } else { "rgb" };
                for exp in ["p2", "down", "serial"] {
                    out.fill(0xAB)?;
                    if image::blur_sliding_sums_experiment(ctx, img, &mut out, r, default, exp).is_err() {
                        continue;
                    }
                    let ok = out.download()?.data() == want.data();
                    let t = measure(ctx, || image::blur_sliding_sums_experiment(ctx, img, &mut out, r, default, exp))?;
                    let name = format!("blur_hslide_{ch}_r{r} {exp} strip {default} (default)");
                    table.row(&name, &size, t, 2.0 * (c * px) as f64, copy, ok);
                }
                let mut strips: Vec<(u32, String)> = [1u32, 2, 3]
                    .iter()
                    .map(|&wv| (image::sliding_sums_strip_rows_for_waves(ctx, w, h, c, r, wv), format!("{wv} wave(s)")))
                    .collect();
                strips.push((16, "fixed".into()));
                if let Some(list) = strip_list() {
                    strips = list.into_iter().map(|s| (s, "listed".to_string())).collect();
                }
                for (strip, why) in strips {
                    if strip == default || strip as usize > h {
                        continue;
                    }
                    out.fill(0xAB)?;
                    image::blur_strips(ctx, BlurVariant::SlidingSums, img, &mut out, r, strip)?;
                    let ok = out.download()?.data() == want.data();
                    let t = measure(ctx, || image::blur_strips(ctx, BlurVariant::SlidingSums, img, &mut out, r, strip))?;
                    let name = format!("blur_hslide_{ch}_r{r} strip {strip}, {why} (default {default})");
                    table.row(&name, &size, t, 2.0 * (c * px) as f64, copy, ok);
                }
            }
        }
    }
    Ok(())
}

/// `FERROTILE_BENCH_STRIPS=1`: also time the sliding blur at every strip height.
fn strip_sweep() -> bool {
    std::env::var("FERROTILE_BENCH_STRIPS").is_ok_and(|v| v == "1")
}

/// `FERROTILE_BENCH_STRIP_LIST=8,12,16`: the strip heights of the sweep
/// (instead of 1, 2 and 3 waves and 16 rows).
fn strip_list() -> Option<Vec<u32>> {
    let v = std::env::var("FERROTILE_BENCH_STRIP_LIST").ok()?;
    Some(v.split(',').filter_map(|s| s.trim().parse().ok()).filter(|&s| s > 0).collect())
}

/// `FERROTILE_BENCH_BLUR_ONLY=1`: only the blur rows (and their ceilings).
fn blur_only() -> bool {
    std::env::var("FERROTILE_BENCH_BLUR_ONLY").is_ok_and(|v| v == "1")
}

fn vec_add(ctx: &Context, ceil: &mut Ceilings, table: &mut Table, n: usize) -> Result<()> {
    let size = format!("n={n}");
    let (a, b) = (random_f32(n, 1), random_f32(n, 2));
    let want = ferrotile::reference::vec_add(&a, &b);
    let (da, db) = (ctx.upload(&a)?, ctx.upload(&b)?);
    let mut dc = ctx.alloc::<f32>(n)?;
    let copy = ceil.copy(6 * n)?;
    table.copy_row("copy (vec_add bytes)", &size, 6 * n, copy);
    for &v in VecAddVariant::ALL {
        dc.fill(f32::NAN)?;
        ferrotile::vec_add_with(ctx, v, &da, &db, &mut dc)?;
        let ok = dc.download()?.iter().zip(&want).all(|(g, w)| g.to_bits() == w.to_bits());
        let t = measure(ctx, || ferrotile::vec_add_with(ctx, v, &da, &db, &mut dc))?;
        table.row(v.name(), &size, t, 12.0 * n as f64, copy, ok);
    }
    Ok(())
}

fn volume(ctx: &Context, ceil: &mut Ceilings, table: &mut Table, dims: [usize; 3]) -> Result<()> {
    let n = dims.iter().product::<usize>();
    let size = format!("{}x{}x{}", dims[0], dims[1], dims[2]);
    let (x, s, o) = (random_f32(n, 3), random_f32(dims[0], 4), random_f32(dims[0], 5));
    let want = cpu::volume_affine(dims, &x, &s, &o);
    let (dx, ds, doff) = (ctx.upload(&x)?, ctx.upload(&s)?, ctx.upload(&o)?);
    let mut out = ctx.alloc::<f32>(n)?;
    out.fill(f32::NAN)?;
    image::volume_affine(ctx, dims, &dx, &ds, &doff, &mut out)?;
    let ok = out.download()?.iter().zip(&want).all(|(g, w)| g.to_bits() == w.to_bits());
    let copy = ceil.copy(4 * n)?;
    table.copy_row("copy (volume bytes)", &size, 4 * n, copy);
    let t = measure(ctx, || image::volume_affine(ctx, dims, &dx, &ds, &doff, &mut out))?;
    table.row("volume_affine", &size, t, 8.0 * n as f64, copy, ok);
    Ok(())
}
