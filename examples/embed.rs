//! ferrotile inside an application: one [`Context`] for the whole program,
//! three operations on it (a transpose, a GEMM, a blur), each checked
//! against the CPU reference, and the library's typed errors handled.
//!
//! ```text
//! cargo run --release --example embed
//! ```
//!
//! Runs on CUDA device 0 when there is one, else on the CPU emulator, and
//! says which (and why). Exits with 1 when a result is wrong.

use std::process::ExitCode;

use ferrotile::gemm::Gemm;
use ferrotile::image::{self, DeviceImage};
use ferrotile::reference::{self, GemmShape};
use ferrotile::testing::Rng;
use ferrotile::transpose::Transpose;
use ferrotile::{Buffer, Context, Error};

/// The application's own error: ferrotile's, or a result that does not
/// match the reference.
#[derive(Debug)]
enum AppError {
    Ferrotile(Error),
    Wrong { what: &'static str, detail: String },
}

impl From<Error> for AppError {
    fn from(e: Error) -> Self {
        AppError::Ferrotile(e)
    }
}

impl std::fmt::Display for AppError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AppError::Ferrotile(e) => write!(f, "ferrotile: {e}"),
            AppError::Wrong { what, detail } => write!(f, "{what} is wrong: {detail}"),
        }
    }
}

/// CUDA device 0 when it opens; otherwise the emulator, saying why.
fn open_context() -> Context {
    match Context::cuda(0) {
        Ok(ctx) => {
            let info = ctx.device_info().expect("a CUDA context has a device");
            let (major, minor) = info.compute_capability;
            println!("backend: CUDA device 0, {} (compute capability {major}.{minor})", info.name);
            ctx
        }
        Err(e @ (Error::NoDriver | Error::NoDevice)) => {
            println!("backend: CPU emulator (no GPU: {e})");
            Context::emulator()
        }
        // A driver that fails to open the device (or load the PTX) is worth
        // knowing about; the application still runs.
        Err(e) => {
            println!("backend: CPU emulator (CUDA device 0 did not open: {e})");
            Context::emulator()
        }
    }
}

/// The application: owns the context and the buffers it reuses.
struct App {
    ctx: Context,
    rng: Rng,
}

impl App {
    /// Transposes an `ny × nx` matrix and checks it element by element.
    fn transpose(&mut self, nx: usize, ny: usize) -> Result<(), AppError> {
        let host = self.rng.f32s(nx * ny);
        let input = self.ctx.upload(&host)?;
        let mut output = self.ctx.alloc::<f32>(nx * ny)?;
        let op = Transpose::new(nx, ny);
        op.run(&self.ctx, &input, &mut output)?;
        if output.download()? != reference::transpose(&host, nx, ny) {
            return Err(AppError::Wrong { what: "transpose", detail: format!("{ny} x {nx} differs from the reference") });
        }
        println!("transpose {ny} x {nx} ({}): exact", op.resolved_variant().name());
        Ok(())
    }

    /// `C = A·B` in f32, checked against the f64 reference by relative
    /// norm error.
    fn gemm(&mut self, m: usize, n: usize, k: usize) -> Result<(), AppError> {
        let (a, b) = (self.rng.f32s(m * k), self.rng.f32s(k * n));
        let (da, db) = (self.ctx.upload(&a)?, self.ctx.upload(&b)?);
        let mut dc = self.ctx.alloc::<f32>(m * n)?;
        let gemm = Gemm::new(m, n, k);
        gemm.run(&self.ctx, &da, &db, &mut dc)?;
        let shape = GemmShape { m, n, k, lda: k, ldb: n, ldc: n };
        let want = reference::sgemm_f64(shape, 1.0, &a, &b, 0.0, &vec![0.0; m * n]);
        let err = reference::rel_norm_error(&dc.download()?, &want);
        if err > 1e-5 {
            return Err(AppError::Wrong { what: "GEMM", detail: format!("relative error {err:.2e} over 1e-5") });
        }
        println!("GEMM {m} x {n} x {k} ({}): relative error {err:.1e}", gemm.resolved_variant()?.name());
        Ok(())
    }

    /// Box blur of a synthetic RGB image, checked against the CPU blur.
    fn blur(&mut self, width: usize, height: usize, radius: u32) -> Result<(), AppError> {
        let host = image::builtin_test_image(width, height)?;
        let src = DeviceImage::upload(&self.ctx, &host)?;
        let mut dst = DeviceImage::alloc(&self.ctx, width, height, 3)?;
        image::blur(&self.ctx, &src, &mut dst, radius)?;
        if dst.download()? != image::cpu::blur(&host, radius) {
            return Err(AppError::Wrong { what: "blur", detail: format!("{width} x {height} r{radius} differs from the reference") });
        }
        println!("blur {width} x {height} RGB, radius {radius}: exact");
        Ok(())
    }

    /// Bad arguments are typed errors naming the argument; nothing is
    /// launched and the context stays usable.
    fn errors(&mut self) -> Result<(), AppError> {
        let a: Buffer<f32> = self.ctx.alloc(64 * 64)?;
        let mut c: Buffer<f32> = self.ctx.alloc(64 * 64)?;
        match Gemm::new(64, 64, 0).run(&self.ctx, &a, &a, &mut c) {
            Err(Error::BadArgument { arg, detail }) => println!("refused as expected: `{arg}` {detail}"),
            other => return Err(AppError::Wrong { what: "k = 0", detail: format!("{other:?}") }),
        }
        let mut short: Buffer<f32> = self.ctx.alloc(10)?;
        match Transpose::new(64, 64).run(&self.ctx, &a, &mut short) {
            Err(Error::LengthMismatch { arg, expected, actual }) => {
                println!("refused as expected: `{arg}` holds {actual} elements, {expected} needed")
            }
            other => return Err(AppError::Wrong { what: "a short output", detail: format!("{other:?}") }),
        }
        // A buffer of another context (here: a second emulator) is refused
        // too: buffers belong to the context that allocated them.
        let other = Context::emulator();
        let foreign: Buffer<f32> = other.alloc(64 * 64)?;
        match Transpose::new(64, 64).run(&self.ctx, &foreign, &mut c) {
            Err(Error::BadArgument { arg, .. }) => println!("refused as expected: `{arg}` belongs to another context"),
            other => return Err(AppError::Wrong { what: "a foreign buffer", detail: format!("{other:?}") }),
        }
        Ok(())
    }
}

fn run() -> Result<(), AppError> {
    let mut app = App { ctx: open_context(), rng: Rng::new(17) };
    // Odd shapes: no kernel needs multiples of its tile.
    app.transpose(1023, 517)?;
    app.gemm(257, 193, 131)?;
    app.blur(641, 479, 2)?;
    app.errors()?;
    // Kernel faults surface at the next synchronisation.
    app.ctx.synchronize()?;
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
