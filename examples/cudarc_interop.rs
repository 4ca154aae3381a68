//! An application that already uses cudarc hands its device memory to
//! ferrotile and takes the result back, with no copy and no host
//! synchronisation of ferrotile's context: a GEMM on slices the
//! application allocated on its own stream, the result read back on that
//! stream; then the same through raw device pointers.
//!
//! ```text
//! cargo run --release --example cudarc_interop
//! ```
//!
//! Needs a CUDA device; without one it says so and exits 0 (the emulator
//! has no device memory to share).

use std::process::ExitCode;
use std::sync::Arc;

use ferrotile::cudarc::driver::{CudaContext, CudaStream, DevicePtr};
use ferrotile::gemm::Gemm;
use ferrotile::reference::{self, GemmShape};
use ferrotile::testing::Rng;
use ferrotile::{Buffer, Context};

type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

fn run(ctx: &Context, app: &Arc<CudaStream>) -> AnyResult<()> {
    let (m, n, k) = (513, 257, 129);
    let mut rng = Rng::new(9);
    let (a, b) = (rng.f32s(m * k), rng.f32s(k * n));
    let want = reference::sgemm_f64(GemmShape { m, n, k, lda: k, ldb: n, ldc: n }, 1.0, &a, &b, 0.0, &vec![0.0; m * n]);

    // 1. cudarc slices: the application's allocations, on its stream.
    let (sa, sb, sc) = (app.clone_htod(&a)?, app.clone_htod(&b)?, app.alloc_zeros::<f32>(m * n)?);
    // Ownership moves to ferrotile (no copy); ferrotile's stream waits for
    // the uploads above through an event.
    let da = Buffer::from_cudarc(ctx, sa).map_err(|(e, _)| e)?;
    let db = Buffer::from_cudarc(ctx, sb).map_err(|(e, _)| e)?;
    let mut dc = Buffer::from_cudarc(ctx, sc).map_err(|(e, _)| e)?;
    Gemm::new(m, n, k).run(ctx, &da, &db, &mut dc)?;
    // Back to cudarc: the application's stream waits for the GEMM.
    let sc = dc.into_cudarc().map_err(|_| "the buffer does not own CUDA memory")?;
    let err = reference::rel_norm_error(&app.clone_dtoh(&sc)?, &want);
    println!("GEMM on cudarc slices, read on the application's stream: relative error {err:.1e}");
    if err > 1e-5 {
        return Err(format!("relative error {err:.1e} over 1e-5").into());
    }

    // 2. Raw device pointers (memory of any other CUDA library): views that
    // never free it. The contract: writes are done, the memory outlives the
    // views and ferrotile's work on them.
    let (sa, sb, sc) = (app.clone_htod(&a)?, app.clone_htod(&b)?, app.alloc_zeros::<f32>(m * n)?);
    app.synchronize()?;
    {
        let ptr = |s: &ferrotile::cudarc::driver::CudaSlice<f32>| s.device_ptr(app).0;
        // SAFETY: the three slices outlive these views and the
        // ctx.synchronize() below; nothing else uses them meanwhile.
        let (da, db, mut dc) = unsafe {
            (
                Buffer::<f32>::from_raw_device_ptr(ctx, ptr(&sa), m * k)?,
                Buffer::<f32>::from_raw_device_ptr(ctx, ptr(&sb), k * n)?,
                Buffer::<f32>::from_raw_device_ptr(ctx, ptr(&sc), m * n)?,
            )
        };
        Gemm::new(m, n, k).run(ctx, &da, &db, &mut dc)?;
    }
    ctx.synchronize()?;
    let err = reference::rel_norm_error(&app.clone_dtoh(&sc)?, &want);
    println!("GEMM on raw device pointers: relative error {err:.1e}");
    if err > 1e-5 {
        return Err(format!("relative error {err:.1e} over 1e-5").into());
    }
    Ok(())
}

fn main() -> ExitCode {
    let ctx = match Context::cuda(0) {
        Ok(ctx) => ctx,
        Err(e) => {
            println!("cudarc_interop needs a CUDA device ({e}); nothing to run on the emulator");
            return ExitCode::SUCCESS;
        }
    };
    // The application's own cudarc context handle (the device's primary
    // context, the one ferrotile's context is on too) and stream.
    let app = match CudaContext::new(0).and_then(|c| c.new_stream()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cudarc: {e}");
            return ExitCode::FAILURE;
        }
    };
    match run(&ctx, &app) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
