//! Concurrency (issue 16, part 5): GEMM (f32 and bf16), transpose, blur
//! and vector add from 8 host threads at once, every result checked
//! against the CPU reference. Two arrangements: the threads share one
//! context (on CUDA: one stream, submissions from every thread), and each
//! thread owns a context (on CUDA: its own stream). Emulator-sized in CI;
//! the `gpu_` cases run GPU-sized shapes (the GPU bundle runs them).

use ferrotile::workload::{self, Job, Scale};
use ferrotile::{Backend, Context};

use crate::common::*;

const THREADS: usize = 8;

/// `iters` jobs per thread on `ctx(thread)`, cycling through every job
/// kind from a different start in each thread.
fn hammer(shared: Option<&Context>, kind: Backend, scale: Scale, iters: usize, name: &str) -> Result<(), String> {
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                s.spawn(move || -> Result<usize, String> {
                    let own;
                    let ctx = match shared {
                        Some(c) => c,
                        None => {
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
        if shared.is_some() { "one shared context".to_string() } else { format!("{THREADS} contexts") },
        failures.len()
    );
    if failures.is_empty() { Ok(()) } else { Err(failures.join("\n")) }
}

/// The cases.
pub fn cases() -> Vec<Case> {
    vec![
        Case::new("stress::mixed_8_threads_one_context", |ctx| {
            let scale = if ctx.backend() == Backend::Cuda { Scale::Large } else { Scale::Small };
            hammer(Some(ctx), ctx.backend(), scale, 12, "one_context")
        }),
        Case::new("stress::mixed_8_threads_own_contexts", |ctx| {
            let scale = if ctx.backend() == Backend::Cuda { Scale::Large } else { Scale::Small };
            hammer(None, ctx.backend(), scale, 12, "own_contexts")
        }),
        Case::gpu_only("stress::gpu_mixed_8_threads_one_context_x50", |ctx| hammer(Some(ctx), ctx.backend(), Scale::Large, 50, "gpu_one_context")),
        Case::gpu_only("stress::gpu_mixed_8_threads_own_contexts_x50", |ctx| hammer(None, ctx.backend(), Scale::Large, 50, "gpu_own_contexts")),
    ]
}
