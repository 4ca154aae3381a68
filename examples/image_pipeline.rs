//! A batch image pipeline: every PNG/JPEG of a folder is loaded, turned to
//! grayscale and blurred on one [`Context`], and saved as a PNG. Each output
//! is written to a temporary file in the output folder and renamed into
//! place, so a reader never sees half a file and a failure leaves no
//! partial output. A file that fails is reported; the others go on.
//!
//! ```text
//! cargo run --release --example image_pipeline -- INPUT_DIR OUTPUT_DIR [RADIUS]
//! cargo run --release --example image_pipeline      # a demo on generated images
//! ```
//!
//! Without arguments it writes a few generated images (one of them not an
//! image at all) to a temporary folder, runs the pipeline on them and checks
//! every output against the CPU reference. Runs on CUDA device 0 when there
//! is one, else on the CPU emulator (and says so). Exits with 1 when a file
//! failed (the demo: when anything but its broken file failed).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ferrotile::image::{self as fimage, DeviceImage, HostImage};
use ferrotile::kernels::image::index::MAX_BLUR_RADIUS;
use ferrotile::{Context, Error};

type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

/// CUDA device 0 when it opens; otherwise the emulator, saying why.
fn open_context() -> Context {
    Context::cuda(0).unwrap_or_else(|e| {
        println!("backend: CPU emulator ({e})");
        Context::emulator()
    })
}

/// The device images of the last shape seen: a folder of same-sized photos
/// allocates once.
struct Pipeline {
    ctx: Context,
    radius: u32,
    buffers: Option<(DeviceImage, DeviceImage, DeviceImage)>,
}

impl Pipeline {
    /// Grayscale, then blur: RGB in, one channel out.
    fn process(&mut self, rgb: &HostImage) -> ferrotile::Result<HostImage> {
        let (w, h) = (rgb.width(), rgb.height());
        let fits = self.buffers.as_ref().is_some_and(|(src, ..)| (src.width(), src.height()) == (w, h));
        if !fits {
            self.buffers = None; // free the old shape's memory first
            let src = DeviceImage::alloc(&self.ctx, w, h, 3)?;
            let gray = DeviceImage::alloc(&self.ctx, w, h, 1)?;
            let out = DeviceImage::alloc(&self.ctx, w, h, 1)?;
            self.buffers = Some((src, gray, out));
        }
        let (src, gray, out) = self.buffers.as_mut().expect("allocated above");
        src.copy_from(rgb.data())?;
        fimage::rgb_to_gray(&self.ctx, src, gray)?;
        fimage::blur(&self.ctx, gray, out, self.radius)?;
        out.download()
    }

    /// Loads `input`, processes it, and saves `output_dir/<stem>.png`.
    fn file(&mut self, input: &Path, output_dir: &Path) -> AnyResult<PathBuf> {
        let rgb = image::open(input)?.into_rgb8();
        let (w, h) = (rgb.width() as usize, rgb.height() as usize);
        let gray = self.process(&HostImage::new(w, h, 3, rgb.into_raw())?)?;
        let stem = input.file_stem().ok_or("the input has no file name")?;
        let dest = output_dir.join(stem).with_extension("png");
        // Write beside the destination (same file system), then rename.
        let tmp = tempfile::Builder::new().prefix(".partial-").suffix(".png").tempfile_in(output_dir)?;
        let buffer = image::GrayImage::from_raw(w as u32, h as u32, gray.into_data()).ok_or("output of the wrong size")?;
        buffer.write_to(&mut std::io::BufWriter::new(tmp.as_file()), image::ImageFormat::Png)?;
        tmp.as_file().sync_all()?;
        tmp.persist(&dest)?;
        Ok(dest)
    }
}

/// The inputs of `dir`: files with an image extension, sorted.
fn inputs(dir: &Path) -> AnyResult<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    files.retain(|p| {
        p.is_file() && p.extension().and_then(|e| e.to_str()).is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "png" | "jpg" | "jpeg"))
    });
    files.sort();
    Ok(files)
}

/// The outputs a batch wrote (input, output) and the files that failed
/// (input, why).
type BatchOutcome = (Vec<(PathBuf, PathBuf)>, Vec<(PathBuf, String)>);

/// Runs the pipeline over `input_dir`; returns the outputs written and the
/// files that failed (with why).
fn run_batch(ctx: Context, input_dir: &Path, output_dir: &Path, radius: u32) -> AnyResult<BatchOutcome> {
    std::fs::create_dir_all(output_dir)?;
    // Check the radius once, before any file is read.
    if radius > MAX_BLUR_RADIUS {
        return Err(Error::BadArgument { arg: "radius", detail: format!("{radius} is over {}", MAX_BLUR_RADIUS) }.into());
    }
    let mut pipeline = Pipeline { ctx, radius, buffers: None };
    let (mut done, mut failed) = (Vec::new(), Vec::new());
    for input in inputs(input_dir)? {
        match pipeline.file(&input, output_dir) {
            Ok(out) => {
                println!("{} -> {}", input.display(), out.display());
                done.push((input, out));
            }
            Err(e) => {
                eprintln!("{}: {e}", input.display());
                failed.push((input, e.to_string()));
            }
        }
    }
    Ok((done, failed))
}

/// The demo: generated images in a temporary folder, outputs checked
/// against the CPU reference.
fn demo(ctx: Context) -> AnyResult<bool> {
    let dir = tempfile::tempdir()?;
    let (input_dir, output_dir) = (dir.path().join("in"), dir.path().join("out"));
    std::fs::create_dir_all(&input_dir)?;
    // Odd sizes; a JPEG among the PNGs; one file that is not an image.
    let shapes = [(320, 240, "png"), (320, 240, "png"), (257, 131, "jpg"), (97, 61, "png")];
    for (i, &(w, h, ext)) in shapes.iter().enumerate() {
        let img = fimage::builtin_test_image(w, h)?;
        let rgb = image::RgbImage::from_raw(w as u32, h as u32, img.into_data()).ok_or("generated image of the wrong size")?;
        rgb.save(input_dir.join(format!("scene{i}.{ext}")))?;
    }
    std::fs::File::create(input_dir.join("broken.png"))?.write_all(b"not a PNG")?;

    let radius = 2;
    let (done, failed) = run_batch(ctx, &input_dir, &output_dir, radius)?;
    let mut ok = failed.len() == 1 && failed[0].0.ends_with("broken.png") && done.len() == shapes.len();
    for (input, output) in &done {
        // The reference from the decoded input (a JPEG decodes lossily).
        let rgb = image::open(input)?.into_rgb8();
        let host = HostImage::new(rgb.width() as usize, rgb.height() as usize, 3, rgb.into_raw())?;
        let want = fimage::cpu::blur(&fimage::cpu::rgb_to_gray(&host), radius);
        let got = image::open(output)?.into_luma8().into_raw();
        if got != *want.data() {
            eprintln!("{}: differs from the CPU reference", output.display());
            ok = false;
        }
    }
    let leftovers = std::fs::read_dir(&output_dir)?.filter(|e| e.as_ref().is_ok_and(|e| e.file_name().to_string_lossy().starts_with(".partial-"))).count();
    if leftovers > 0 {
        eprintln!("{leftovers} temporary file(s) left in {}", output_dir.display());
        ok = false;
    }
    println!(
        "demo: {} outputs equal to the CPU reference, {} refused as expected (broken.png): {}",
        done.len(),
        failed.len(),
        if ok { "ok" } else { "FAILED" }
    );
    Ok(ok)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let ctx = open_context();
    let result = match args.as_slice() {
        [] => demo(ctx),
        [input, output, rest @ ..] if rest.len() <= 1 => {
            let radius = match rest.first().map(|r| r.parse::<u32>()) {
                None => Ok(3),
                Some(Ok(r)) => Ok(r),
                Some(Err(e)) => Err(format!("RADIUS: {e}").into()),
            };
            radius.and_then(|r| run_batch(ctx, Path::new(input), Path::new(output), r)).map(|(_, failed)| failed.is_empty())
        }
        _ => Err("usage: image_pipeline [INPUT_DIR OUTPUT_DIR [RADIUS]]".into()),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
