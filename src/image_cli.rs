//! `ferrotile image gray|blur|gray-blur|source [--radius R] [--in-place] [INPUT] [OUTPUT]`:
//! the PMPP chapter 3 kernels on PNG/JPEG files.
//!
//! * No INPUT (or `builtin`): the built-in test picture ([`ferrotile::image::builtin_test_image`],
//!   `--size`), so the command works out of the box; OUTPUT defaults to
//!   `ferrotile-<op>.png`.
//! * INPUT a file: OUTPUT defaults to `<stem>-<op>.png` beside it; the
//!   format follows OUTPUT's extension (`.png`, `.jpg`, `.jpeg`; PNG when
//!   there is none; any other is an error).
//! * INPUT a folder: every PNG/JPEG in it is processed into OUTPUT (a
//!   folder, created if missing; default `<INPUT>-<op>`), under the same
//!   file names, with a progress bar.
//!
//! Files are never damaged by a failed run:
//! * what can be checked is checked before a kernel runs: the output
//!   format, that OUTPUT is a file where a file is expected and its folder
//!   exists, that OUTPUT is not INPUT (the same device and inode, so also
//!   through a symlink, a hard link or another spelling of the path), and
//!   that INPUT decodes completely;
//! * each output is encoded into a temporary file in its destination
//!   folder and renamed over OUTPUT only once it is complete: a failed run
//!   leaves no file behind and an existing OUTPUT as it was;
//! * `--in-place` is the one way to replace INPUT (OUTPUT equal to INPUT,
//!   or no OUTPUT); it goes through the same temporary file.
//!
//! Channels: gray, gray + alpha, RGB and RGBA inputs keep their channels.
//! `blur` blurs every channel, alpha included (straight, not premultiplied,
//! alpha); `gray` turns the colour into gray on the device and re-attaches
//! alpha unchanged on the host (RGBA → gray + alpha; gray + alpha stays
//! as it is). JPEG has no alpha: for a JPEG OUTPUT alpha is dropped, with
//! a `note:` naming the file. 16-bit samples are reduced to 8 bits (the
//! kernels take 8-bit images), also with a `note:`.

use std::fs;
use std::io::{BufWriter, Write};
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
    /// RGB → grayscale (0.21 r + 0.72 g + 0.07 b, integer rounding); alpha is kept (RGBA → gray + alpha).
    Gray,
    /// Box blur of --radius, per channel, alpha included (gray images stay gray).
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
#[command(after_help = "\
Channels: gray, gray + alpha, RGB and RGBA images keep their channels; blur blurs each
(alpha too), gray keeps alpha unchanged (RGBA -> gray + alpha). A JPEG OUTPUT has no alpha:
it is dropped, with a note. 16-bit images are reduced to 8 bits, with a note.
Files: each output is written to a temporary file beside it and renamed into place once
complete, so a failed run leaves no file and never touches an existing one. OUTPUT may not
be INPUT (also through a link) unless --in-place is given.")]
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
    #[arg(long, default_value = "640x400", value_name = "WIDTHxHEIGHT", value_parser = parse_size)]
    size: (usize, usize),
    /// Replace INPUT: allows OUTPUT to be INPUT (the same file or folder);
    /// without OUTPUT, writes over INPUT.
    #[arg(long)]
    in_place: bool,
    /// An image file, a folder of images, or `builtin` (the default: the
    /// built-in test picture).
    input: Option<PathBuf>,
    /// The output file (or folder, for a folder INPUT).
    output: Option<PathBuf>,
}

/// `WIDTHxHEIGHT`, each at least 1, together within the image limits
/// ([`fimage::image_bytes`] for RGB).
fn parse_size(s: &str) -> std::result::Result<(usize, usize), String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(|| format!("`{s}`: expected WIDTHxHEIGHT"))?;
    let p = |v: &str| v.trim().parse::<usize>().map_err(|e| format!("`{v}`: {e}"));
    let (w, h) = (p(w)?, p(h)?);
    fimage::image_bytes(w, h, 3).map_err(|e| format!("{w}x{h} is not a picture size: {e}"))?;
    Ok((w, h))
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
        None => builtin_picture(ctx, args, &suffix),
        Some(input) if input.is_dir() => {
            let out_dir = match &args.output {
                Some(o) => o.clone(),
                None if args.in_place => input.clone(),
                None => {
                    let name = input.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "images".into());
                    input.with_file_name(format!("{name}-{suffix}"))
                }
            };
            folder(ctx, args, input, &out_dir)
        }
        Some(input) => {
            let out = match &args.output {
                Some(o) => o.clone(),
                None if args.in_place => input.clone(),
                None => sibling(input, &suffix),
            };
            convert(ctx, args, input, &out, &mut |n| eprintln!("note: {n}"))?;
            println!("{} → {} ({suffix})", input.display(), out.display());
            Ok(())
        }
    }
}

/// The built-in picture through `args.op` into OUTPUT.
fn builtin_picture(ctx: &Context, args: &ImageArgs, suffix: &str) -> Result<()> {
    if args.in_place {
        return Err(Error::BadArgument { arg: "--in-place", detail: "needs an INPUT file or folder to replace".into() });
    }
    let out = args.output.clone().unwrap_or_else(|| PathBuf::from(format!("ferrotile-{suffix}.png")));
    let format = check_output(&out, None, false)?;
    let img = fimage::builtin_test_image(args.size.0, args.size.1)?;
    let t = Instant::now();
    let result = apply(ctx, args.op, args.radius, &img)?;
    save(&out, format, &result)?;
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

/// One file: checks OUTPUT, decodes INPUT, runs `args.op`, writes OUTPUT
/// (in that order; nothing is written unless everything before succeeded).
fn convert(ctx: &Context, args: &ImageArgs, input: &Path, out: &Path, note: &mut dyn FnMut(&str)) -> Result<()> {
    let format = check_output(out, Some(input), args.in_place)?;
    let img = load(input, format, note)?;
    save(out, format, &apply(ctx, args.op, args.radius, &img)?)
}

/// Every PNG/JPEG of `input` into `out_dir`, with a progress bar; a file
/// that fails is reported and skipped.
fn folder(ctx: &Context, args: &ImageArgs, input: &Path, out_dir: &Path) -> Result<()> {
    fn io(p: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
        move |e| Error::Io { path: p.display().to_string(), detail: e.to_string() }
    }
    if out_dir.exists() && !out_dir.is_dir() {
        return Err(io_error(out_dir, "is not a folder (a folder INPUT needs an OUTPUT folder)".into()));
    }
    if !args.in_place && same_file(input, out_dir) {
        return Err(io_error(
            out_dir,
            format!(
                "is the input folder `{}`: its images would be overwritten (pass --in-place to replace them)",
                input.display()
            ),
        ));
    }
    let mut files: Vec<PathBuf> = fs::read_dir(input)
        .map_err(io(input))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && is_image(p))
        .collect();
    files.sort();
    fs::create_dir_all(out_dir).map_err(io(out_dir))?;
    let pb = ProgressBar::new(files.len() as u64);
    pb.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut failed = 0;
    for f in &files {
        pb.set_message(f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
        let out = out_dir.join(f.file_name().unwrap_or_default());
        if let Err(e) = convert(ctx, args, f, &out, &mut |n| pb.suspend(|| eprintln!("note: {n}"))) {
            pb.suspend(|| eprintln!("error: {e}"));
            failed += 1;
        }
        pb.inc(1);
    }
    pb.finish_with_message("done");
    println!("{} image(s) → {} ({} failed)", files.len(), out_dir.display(), failed);
    if failed > 0 {
        Err(io_error(input, format!("{failed} image(s) failed")))
    } else {
        Ok(())
    }
}

fn io_error(path: &Path, detail: String) -> Error {
    Error::Io { path: path.display().to_string(), detail }
}

fn is_image(p: &Path) -> bool {
    matches!(p.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref(), Some("png" | "jpg" | "jpeg"))
}

fn sibling(input: &Path, suffix: &str) -> PathBuf {
    let stem = input.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "image".into());
    input.with_file_name(format!("{stem}-{suffix}.png"))
}

/// Whether `a` and `b` are one file (device and inode; false when either
/// does not exist).
fn same_file(a: &Path, b: &Path) -> bool {
    same_file::is_same_file(a, b).unwrap_or(false)
}

/// The folder a file `path` lives in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// An output format: chosen by OUTPUT's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Png,
    Jpeg,
}

impl Format {
    /// By the extension of `path`: PNG when there is none, an error for one
    /// that is not `.png`, `.jpg` or `.jpeg` (any case).
    fn of(path: &Path) -> Result<Format> {
        let Some(ext) = path.extension() else { return Ok(Format::Png) };
        match ext.to_str().map(str::to_ascii_lowercase).as_deref() {
            Some("png") => Ok(Format::Png),
            Some("jpg" | "jpeg") => Ok(Format::Jpeg),
            _ => Err(io_error(
                path,
                format!("unsupported output format `.{}` (ferrotile writes .png, .jpg and .jpeg)", ext.to_string_lossy()),
            )),
        }
    }

    fn has_alpha(self) -> bool {
        self == Format::Png
    }

    fn image_format(self) -> ::image::ImageFormat {
        match self {
            Format::Png => ::image::ImageFormat::Png,
            Format::Jpeg => ::image::ImageFormat::Jpeg,
        }
    }
}

/// Checks, before anything runs, that a file can be written at `out`: a
/// supported format, not a folder, in a folder that exists, and not
/// `input` itself unless `in_place`. Returns the format.
fn check_output(out: &Path, input: Option<&Path>, in_place: bool) -> Result<Format> {
    let format = Format::of(out)?;
    if out.is_dir() {
        return Err(io_error(out, "is a folder, not a file".into()));
    }
    let dir = folder_of(out);
    if !dir.is_dir() {
        return Err(io_error(out, format!("folder `{}` does not exist", dir.display())));
    }
    if let Some(input) = input
        && !in_place
        && same_file(input, out)
    {
        return Err(io_error(
            out,
            format!("is the same file as the input `{}`; refusing to overwrite it (pass --in-place to replace the input)", input.display()),
        ));
    }
    Ok(format)
}

/// Runs `op` on the context's backend; the result keeps the input's alpha
/// (see the module docs).
fn apply(ctx: &Context, op: Op, radius: u32, img: &HostImage) -> Result<HostImage> {
    let src = match op {
        Op::Source => return Ok(img.clone()),
        Op::Blur => DeviceImage::upload(ctx, img)?,
        Op::Gray | Op::GrayBlur => gray(ctx, img)?,
    };
    if op == Op::Gray {
        return src.download();
    }
    let mut b = DeviceImage::alloc(ctx, src.width(), src.height(), src.channels())?;
    fimage::blur(ctx, &src, &mut b, radius)?;
    b.download()
}

/// Grayscale of an image of any channel count: the colour (a gray
/// sample repeated as RGB for gray and gray + alpha) through the kernel on
/// the device, then alpha (gray + alpha, RGBA) re-attached unchanged on
/// the host. 1 channel out, or 2 with alpha.
fn gray(ctx: &Context, img: &HostImage) -> Result<DeviceImage> {
    let (w, h, c) = (img.width(), img.height(), img.channels());
    let rgb = if c == 3 {
        DeviceImage::upload(ctx, img)?
    } else {
        let data = img.data().chunks_exact(c).flat_map(|p| if c >= 3 { [p[0], p[1], p[2]] } else { [p[0]; 3] }).collect();
        DeviceImage::upload(ctx, &HostImage::new(w, h, 3, data)?)?
    };
    let mut g = DeviceImage::alloc(ctx, w, h, 1)?;
    fimage::rgb_to_gray(ctx, &rgb, &mut g)?;
    if c % 2 == 1 {
        return Ok(g);
    }
    let g = g.download()?;
    let la = g.data().iter().zip(img.data().chunks_exact(c)).flat_map(|(&l, p)| [l, p[c - 1]]).collect();
    DeviceImage::upload(ctx, &HostImage::new(w, h, 2, la)?)
}

/// Decodes a PNG/JPEG completely into 8-bit channels: gray, gray + alpha,
/// RGB or RGBA as the file has them, alpha dropped for a `format` without
/// it. Each loss (16 to 8 bits, alpha) is reported through `note`.
fn load(path: &Path, format: Format, note: &mut dyn FnMut(&str)) -> Result<HostImage> {
    let err = |detail: String| io_error(path, detail);
    let dynimg = ::image::ImageReader::open(path)
        .map_err(|e| err(e.to_string()))?
        .with_guessed_format()
        .map_err(|e| err(e.to_string()))?
        .decode()
        .map_err(|e| err(e.to_string()))?;
    let color = dynimg.color();
    let bits = color.bits_per_pixel() / u16::from(color.channel_count());
    if bits > 8 {
        note(&format!("{}: {bits}-bit samples reduced to 8 bits (the kernels take 8-bit images)", path.display()));
    }
    let alpha = color.has_alpha() && format.has_alpha();
    if color.has_alpha() && !alpha {
        note(&format!("{}: alpha dropped ({format:?} output has no alpha channel)", path.display()));
    }
    let (w, h) = (dynimg.width() as usize, dynimg.height() as usize);
    let (channels, data) = match (color.has_color(), alpha) {
        (false, false) => (1, dynimg.into_luma8().into_raw()),
        (false, true) => (2, dynimg.into_luma_alpha8().into_raw()),
        (true, false) => (3, dynimg.into_rgb8().into_raw()),
        (true, true) => (4, dynimg.into_rgba8().into_raw()),
    };
    HostImage::new(w, h, channels, data).map_err(|e| err(e.to_string()))
}

/// Encodes `img` as `format` into a temporary file in the destination's
/// folder and renames it over `path` once complete; on any failure the
/// temporary file is removed and `path` is left as it was. A symlink at
/// `path` is written through (its target is replaced), as opening it
/// would; a replaced file keeps its permissions.
fn save(path: &Path, format: Format, img: &HostImage) -> Result<()> {
    use ::image::ExtendedColorType;
    let err = |detail: String| io_error(path, detail);
    let color = match img.channels() {
        1 => ExtendedColorType::L8,
        2 => ExtendedColorType::La8,
        3 => ExtendedColorType::Rgb8,
        4 => ExtendedColorType::Rgba8,
        c => return Err(Error::BadArgument { arg: "channels", detail: format!("cannot save {c} channels") }),
    };
    let is_link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let dest = if is_link { fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()) } else { path.to_path_buf() };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".ferrotile-").suffix(".tmp");
    #[cfg(unix)]
    {
        // A new file's mode as File::create gives it (the umask applies).
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(folder_of(&dest)).map_err(|e| err(format!("creating a temporary file: {e}")))?;
    if let Ok(meta) = fs::metadata(&dest) {
        tmp.as_file().set_permissions(meta.permissions()).map_err(|e| err(e.to_string()))?;
    }
    let mut writer = BufWriter::new(tmp.as_file_mut());
    ::image::write_buffer_with_format(&mut writer, img.data(), img.width() as u32, img.height() as u32, color, format.image_format())
        .map_err(|e| err(e.to_string()))?;
    writer.flush().map_err(|e| err(e.to_string()))?;
    drop(writer);
    tmp.persist(&dest).map_err(|e| err(e.error.to_string()))?;
    Ok(())
}
