//! Concurrency (issue 16, part 5): GEMM (f32 and bf16), transpose, blur
//! and vector add from 8 host threads at once, every result checked
//! against the CPU reference. Three arrangements: the threads share one
//! context and its default stream (submissions from every thread), share
//! one context with a stream each (`Context::new_stream`, `Context::on`),
//! and each own a context. Emulator-sized in CI; the `gpu_` cases run
//! GPU-sized shapes (the GPU bundle runs them).

use ferrotile::workload::{self, Job, Scale};
use ferrotile::{Backend, Context};

use crate::common::*;

const THREADS: usize = 8;

/// How the threads reach the device.
#[derive(Clone, Copy)]
enum Arrangement {
    /// One context, its default stream.
    SharedStream,
    /// One context, a `Stream` per thread.
    OwnStreams,
    /// A context per thread.
    OwnContexts,
}

/// `iters` jobs per thread, cycling through every job kind from a
/// different start in each thread.
fn hammer(ctx: &Context, how: Arrangement, scale: Scale, iters: usize, name: &str) -> Result<(), String> {
    let kind = ctx.backend();
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                s.spawn(move || -> Result<usize, String> {
                    let own;
                    let ctx = match how {
                        Arrangement::SharedStream => ctx,
                        Arrangement::OwnStreams => {
                            let stream = ctx.new_stream().map_err(|e| e.to_string())?;
                            own = ctx.on(&stream).map_err(|e| e.to_string())?;
                            &own
                        }
                        Arrangement::OwnContexts => {
                            own = match kind {
                                Backend::Cuda => Context::cuda(0).map_err(|e| e.to_string())?,
                                Backend::Emulator => Context::emulator(),
                            };
                            &own
                        }
                    };
                    for i in 0..iters {
                        let job = Job::ALL[(t + i) % Job::ALL.len()];
                        let seed = seed(name) ^ ((t as u64) << 32 | i as u64);
                        workload::run(ctx, job, scale, seed).map_err(|e| format!("thread {t}, call {i}: {e}"))?;
                    }
                    ctx.synchronize().map_err(|e| e.to_string())?;
                    Ok(iters)
                })
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| match h.join() {
                Ok(Ok(_)) => None,
                Ok(Err(e)) => Some(e),
                Err(_) => Some("a thread panicked".into()),
            })
            .collect()
    });
    eprintln!(
        "stress {name}: {THREADS} threads x {iters} verified calls, {}: {} failed",
        match how {
            Arrangement::SharedStream => "one shared context and stream".to_string(),
            Arrangement::OwnStreams => format!("one context, {THREADS} streams"),
            Arrangement::OwnContexts => format!("{THREADS} contexts"),
        },
        failures.len()
    );
    if failures.is_empty() { Ok(()) } else { Err(failures.join("\n")) }
}

/// The cases.
pub fn cases() -> Vec<Case> {
    fn scale(ctx: &Context) -> Scale {
        if ctx.backend() == Backend::Cuda { Scale::Large } else { Scale::Small }
    }
    use Arrangement::*;
    vec![
        Case::new("stress::mixed_8_threads_one_context", |ctx| hammer(ctx, SharedStream, scale(ctx), 12, "one_context")),
        Case::new("stress::mixed_8_threads_own_streams", |ctx| hammer(ctx, OwnStreams, scale(ctx), 12, "own_streams")),
        Case::new("stress::mixed_8_threads_own_contexts", |ctx| hammer(ctx, OwnContexts, scale(ctx), 12, "own_contexts")),
        Case::gpu_only("stress::gpu_mixed_8_threads_one_context_x50", |ctx| hammer(ctx, SharedStream, Scale::Large, 50, "gpu_one_context")),
        Case::gpu_only("stress::gpu_mixed_8_threads_own_streams_x50", |ctx| hammer(ctx, OwnStreams, Scale::Large, 50, "gpu_own_streams")),
        Case::gpu_only("stress::gpu_mixed_8_threads_own_contexts_x50", |ctx| hammer(ctx, OwnContexts, Scale::Large, 50, "gpu_own_contexts")),
    ]
}
