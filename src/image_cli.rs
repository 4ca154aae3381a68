//! `ferrotile image gray|blur|gray-blur [--radius R] [INPUT] [OUTPUT]`:
//! the PMPP chapter 3 kernels on PNG/JPEG files.
//!
//! * No INPUT (or `builtin`): the built-in test picture ([`ferrotile::image::builtin_test_image`]),
//!   so the command works out of the box; OUTPUT defaults to
//!   `ferrotile-<op>.png`.
//! * INPUT a file: OUTPUT defaults to `<stem>-<op>.png` beside it; the
//!   format follows OUTPUT's extension (`.png`, `.jpg`, `.jpeg`).
//! * INPUT a folder: every PNG/JPEG in it is processed into OUTPUT (a
//!   folder, created if missing; default `<INPUT>-<op>`), with a progress bar.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Args, ValueEnum};
use ferrotile::image::{self as fimage, DeviceImage, HostImage};
use ferrotile::{Context, Error, Result};
use indicatif::{ProgressBar, ProgressStyle};

/// The INPUT that names the built-in picture.
const BUILTIN: &str = "builtin";

/// What to do to each image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Op {
    /// RGB → grayscale (0.21 r + 0.72 g + 0.07 b, integer rounding).
    Gray,
    /// Box blur of --radius, per channel (gray images stay gray).
    Blur,
    /// Grayscale, then box blur of --radius.
    GrayBlur,
    /// Write the input unchanged (e.g. to save the built-in picture).
    Source,
}

impl Op {
    fn suffix(self, radius: u32) -> String {
        match self {
            Op::Gray => "gray".into(),
            Op::Blur => format!("blur-r{radius}"),
            Op::GrayBlur => format!("gray-blur-r{radius}"),
            Op::Source => "source".into(),
        }
    }
}

/// Arguments of `ferrotile image`.
#[derive(Args, Debug)]
pub struct ImageArgs {
    /// The operation.
    #[arg(value_enum)]
    op: Op,
    /// Blur radius (BLUR_SIZE): the window is (2R + 1)² pixels.
    #[arg(long, short, default_value_t = 1)]
    radius: u32,
    /// Force the CPU emulator even when a CUDA device is present.
    #[arg(long)]
    emulator: bool,
    /// Size of the built-in picture when no INPUT is given.
    #[arg(long, default_value = "640x400", value_parser = parse_size)]
    size: (usize, usize),
    /// An image file, a folder of images, or `builtin` (the default: the
    /// built-in test picture).
    input: Option<PathBuf>,
    /// The output file (or folder, for a folder INPUT).
    output: Option<PathBuf>,
}

fn parse_size(s: &str) -> std::result::Result<(usize, usize), String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(|| format!("`{s}`: expected WIDTHxHEIGHT"))?;
    let p = |v: &str| v.trim().parse::<usize>().map_err(|e| format!("`{v}`: {e}"));
    Ok((p(w)?, p(h)?))
}

/// Runs the subcommand; returns the process exit code.
pub fn run(args: ImageArgs) -> i32 {
    let ctx = if args.emulator {
        Context::emulator()
    } else {
        Context::cuda(0).unwrap_or_else(|e| {
            eprintln!("note: {e}; running on the CPU emulator");
            Context::emulator()
        })
    };
    match go(&ctx, &args) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

fn go(ctx: &Context, args: &ImageArgs) -> Result<()> {
    let suffix = args.op.suffix(args.radius);
    let builtin = args.input.as_deref().is_none_or(|p| p == Path::new(BUILTIN) && !p.exists());
    match args.input.as_ref().filter(|_| !builtin) {
        None => {
            let img = fimage::builtin_test_image(args.size.0, args.size.1);
            let out = args.output.clone().unwrap_or_else(|| PathBuf::from(format!("ferrotile-{suffix}.png")));
            let t = Instant::now();
            let result = apply(ctx, args.op, args.radius, &img)?;
            save(&out, &result)?;
            println!(
                "built-in {}x{} picture → {} ({}, {:.1} ms on {:?})",
                img.width(),
                img.height(),
                out.display(),
                suffix,
                t.elapsed().as_secs_f64() * 1e3,
                ctx.backend()
            );
            Ok(())
        }
        Some(input) if input.is_dir() => {
            let out_dir = args.output.clone().unwrap_or_else(|| {
                let name = input.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "images".into());
                input.with_file_name(format!("{name}-{suffix}"))
            });
            folder(ctx, args, input, &out_dir)
        }
        Some(input) => {
            let out = args.output.clone().unwrap_or_else(|| sibling(input, &suffix));
            let img = load(input, args.op)?;
            save(&out, &apply(ctx, args.op, args.radius, &img)?)?;
            println!("{} → {} ({suffix})", input.display(), out.display());
            Ok(())
        }
    }
}

/// Every PNG/JPEG of `input` into `out_dir`, with a progress bar; a file
/// that fails is reported and skipped.
fn folder(ctx: &Context, args: &ImageArgs, input: &Path, out_dir: &Path) -> Result<()> {
    fn io(p: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
        move |e| Error::Io { path: p.display().to_string(), detail: e.to_string() }
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(input)
        .map_err(io(input))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && is_image(p))
        .collect();
    files.sort();
    std::fs::create_dir_all(out_dir).map_err(io(out_dir))?;
    let pb = ProgressBar::new(files.len() as u64);
    pb.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut failed = 0;
    for f in &files {
        pb.set_message(f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
        let out = out_dir.join(f.file_name().unwrap_or_default());
        if let Err(e) = load(f, args.op).and_then(|img| apply(ctx, args.op, args.radius, &img)).and_then(|r| save(&out, &r)) {
            pb.suspend(|| eprintln!("error: {e}"));
            failed += 1;
        }
        pb.inc(1);
    }
    pb.finish_with_message("done");
    println!("{} image(s) → {} ({} failed)", files.len(), out_dir.display(), failed);
    if failed > 0 {
        Err(Error::Io { path: input.display().to_string(), detail: format!("{failed} image(s) failed") })
    } else {
        Ok(())
    }
}

fn is_image(p: &Path) -> bool {
    matches!(p.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref(), Some("png" | "jpg" | "jpeg"))
}

fn sibling(input: &Path, suffix: &str) -> PathBuf {
    let stem = input.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "image".into());
    input.with_file_name(format!("{stem}-{suffix}.png"))
}

/// Runs `op` on the context's backend.
fn apply(ctx: &Context, op: Op, radius: u32, img: &HostImage) -> Result<HostImage> {
    let src = DeviceImage::upload(ctx, img)?;
    let (w, h) = (img.width(), img.height());
    let out = match op {
        Op::Source => src,
        Op::Gray => {
            let mut g = DeviceImage::alloc(ctx, w, h, 1)?;
            fimage::rgb_to_gray(ctx, &src, &mut g)?;
            g
        }
        Op::Blur => {
            let mut b = DeviceImage::alloc(ctx, w, h, img.channels())?;
            fimage::blur(ctx, &src, &mut b, radius)?;
            b
        }
        Op::GrayBlur => {
            let mut g = DeviceImage::alloc(ctx, w, h, 1)?;
            fimage::rgb_to_gray(ctx, &src, &mut g)?;
            let mut b = DeviceImage::alloc(ctx, w, h, 1)?;
            fimage::blur(ctx, &g, &mut b, radius)?;
            b
        }
    };
    out.download()
}

/// Decodes a PNG/JPEG: gray files stay 1 channel (except for the gray
/// operations, which need RGB), everything else becomes RGB (alpha dropped).
fn load(path: &Path, op: Op) -> Result<HostImage> {
    let err = |detail: String| Error::Io { path: path.display().to_string(), detail };
    let dynimg = ::image::ImageReader::open(path)
        .map_err(|e| err(e.to_string()))?
        .with_guessed_format()
        .map_err(|e| err(e.to_string()))?
        .decode()
        .map_err(|e| err(e.to_string()))?;
    let gray_in = !dynimg.color().has_color();
    let needs_rgb = matches!(op, Op::Gray | Op::GrayBlur);
    if gray_in && !needs_rgb {
        let l = dynimg.to_luma8();
        let (w, h) = l.dimensions();
        HostImage::new(w as usize, h as usize, 1, l.into_raw())
    } else {
        let rgb = dynimg.to_rgb8();
        let (w, h) = rgb.dimensions();
        HostImage::new(w as usize, h as usize, 3, rgb.into_raw())
    }
}

/// Encodes by the extension of `path` (PNG when there is none).
fn save(path: &Path, img: &HostImage) -> Result<()> {
    use ::image::{ExtendedColorType, ImageFormat};
    let color = match img.channels() {
        1 => ExtendedColorType::L8,
        3 => ExtendedColorType::Rgb8,
        4 => ExtendedColorType::Rgba8,
        c => return Err(Error::BadArgument { arg: "channels", detail: format!("cannot save {c} channels") }),
    };
    let format = ImageFormat::from_path(path).unwrap_or(ImageFormat::Png);
    ::image::save_buffer_with_format(path, img.data(), img.width() as u32, img.height() as u32, color, format)
        .map_err(|e| Error::Io { path: path.display().to_string(), detail: e.to_string() })
}
