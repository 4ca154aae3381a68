//! Streams, events and pinned memory: a pipeline of batches spread over two
//! streams of one context, so that one batch's copy can run while another
//! batch computes; each batch is uploaded from pinned memory, multiplied by
//! shared weights, and downloaded into pinned memory, all without a host
//! wait until the results are read. Events time the whole pipeline.
//!
//! ```text
//! cargo run --release --example streams
//! ```
//!
//! Runs on CUDA device 0 when there is one, else on the CPU emulator (where
//! the same program runs, each operation completing when it is called).
//! Exits with 1 when a result is wrong.

use std::process::ExitCode;

use ferrotile::gemm::Gemm;
use ferrotile::reference::{self, GemmShape};
use ferrotile::testing::Rng;
use ferrotile::{Buffer, Context, PinnedBuffer};

/// CUDA device 0 when it opens; otherwise the emulator, saying why.
fn context() -> Context {
    match Context::cuda(0) {
        Ok(ctx) => {
            let name = ctx.device_info().map_or_else(String::new, |d| d.name.clone());
            println!("backend: CUDA ({name})");
            ctx
        }
        Err(e) => {
            println!("backend: CPU emulator (no CUDA device: {e})");
            Context::emulator()
        }
    }
}

/// One batch's pinned host memory and device buffers.
struct Batch {
    host_in: PinnedBuffer<f32>,
    host_out: PinnedBuffer<f32>,
    dev_in: Buffer<f32>,
    dev_out: Buffer<f32>,
}

fn run() -> Result<bool, ferrotile::Error> {
    let ctx = context();
    // Small on the emulator, large enough on a GPU for the copies to matter.
    let n = if ctx.backend() == ferrotile::Backend::Cuda { 1024 } else { 48 };
    let batches = 6;
    let mut rng = Rng::new(17);
    let weights = rng.f32s(n * n);
    let w = ctx.upload(&weights)?; // on the default stream; every stream reads it

    let mut work = Vec::new();
    for _ in 0..batches {
        let mut host_in = ctx.alloc_pinned::<f32>(n * n)?;
        host_in.as_mut_slice()?.copy_from_slice(&rng.f32s(n * n));
        work.push(Batch { host_in, host_out: ctx.alloc_pinned(n * n)?, dev_in: ctx.alloc(n * n)?, dev_out: ctx.alloc(n * n)? });
    }

    // Two streams and a handle on each: every ferrotile function takes the
    // handle in place of the context and enqueues on its stream.
    let streams = [ctx.new_stream()?, ctx.new_stream()?];
    let lanes = [ctx.on(&streams[0])?, ctx.on(&streams[1])?];
    let gemm = Gemm::new(n, n, n);

    let start = ctx.record_event()?;
    for lane in &lanes {
        lane.wait_event(&start)?; // both streams start after `start`
    }
    for (i, b) in work.iter_mut().enumerate() {
        let lane = &lanes[i % 2];
        lane.upload_async(&b.host_in, &mut b.dev_in)?;
        gemm.run(lane, &b.dev_in, &w, &mut b.dev_out)?;
        lane.download_async(&b.dev_out, &mut b.host_out)?;
    }
    // The default stream waits for both lanes; `end` follows all the work.
    for lane in &lanes {
        ctx.wait_event(&lane.record_event()?)?;
    }
    let end = ctx.record_event()?;
    println!("{batches} batches of {n}×{n}×{n} on 2 streams: {:?}", start.elapsed(&end)?);

    // Reading a pinned buffer waits for the copy into it.
    let mut ok = true;
    let shape = GemmShape { m: 1, n, k: n, lda: n, ldb: n, ldc: n };
    for (i, b) in work.iter().enumerate() {
        let want = reference::sgemm_f64(shape, 1.0, &b.host_in.as_slice()?[..n], &weights, 0.0, &vec![0.0; n]);
        let got = &b.host_out.as_slice()?[..n];
        // Relative error of the row, in norm, against the f64 reference.
        let num: f64 = got.iter().zip(&want).map(|(g, w)| (*g as f64 - w).powi(2)).sum();
        let den: f64 = want.iter().map(|w| w * w).sum();
        let err = (num / den).sqrt();
        if err.is_nan() || err >= 1e-5 {
            println!("batch {i}: first row wrong (relative error {err:e})");
            ok = false;
        }
    }
    Ok(ok)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => {
            println!("all batches match the CPU reference");
            ExitCode::SUCCESS
        }
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            println!("ferrotile: {e}");
            ExitCode::FAILURE
        }
    }
}
