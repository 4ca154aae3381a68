//! Kernel tests: every case runs on the CPU emulator and on the CUDA
//! backend.
//!
//! Whether a CUDA device is present is decided at start-up: with one, the
//! `cuda::` tests run; without one they are reported *ignored* (never
//! passed). `FERROTILE_REQUIRE_GPU=1` turns a missing device into a
//! failure (the GPU bundle sets it). Cases for one GPU generation (the
//! sm_90a kernels) are ignored on the others.
//!
//! `FERROTILE_TESTS_FROM=<file>` runs only the tests named in the file, one
//! exact name per line (the harness takes one filter; a GPU call cut short
//! reruns the cases it did not reach this way).

mod cases;
mod common;

use std::sync::Arc;

use ferrotile::Context;
use libtest_mimic::{Arguments, Failed, Trial};

fn main() {
    let args = Arguments::from_args();
    let cuda = Context::cuda(0).map(Arc::new);
    let cuda_ignored = common::gpu::cuda_ignored("ferrotile tests", &cuda);
    let cuda_missing = cuda.as_ref().err().map(|e| e.to_string());
    let emu = Arc::new(Context::emulator());
    let mut trials = Vec::new();
    for case in cases::all() {
        let case = Arc::new(case);
        if case.emulator {
            let (c, ctx) = (case.clone(), emu.clone());
            trials.push(Trial::test(format!("emulator::{}", case.name), move || (c.run)(&ctx).map_err(Failed::from)));
        }
        let c = case.clone();
        let cc = cuda.as_ref().ok().and_then(|c| c.device_info().map(|i| i.compute_capability));
        // A case for another GPU generation is ignored, not passed.
        let other_gpu = matches!((case.needs_cc, cc), (Some(want), Some(have)) if want != have);
        let (ctx, why) = (cuda.as_ref().ok().cloned(), cuda_missing.clone());
        let t = Trial::test(format!("cuda::{}", case.name), move || match &ctx {
            Some(ctx) => (c.run)(ctx).map_err(Failed::from),
            None => Err(Failed::from(format!("no CUDA device: {}", why.clone().unwrap_or_default()))),
        });
        trials.push(t.with_ignored_flag(cuda_ignored || other_gpu));
    }
    // The multi-GPU trials build their own groups of contexts.
    trials.extend(cases::multi::trials(common::gpu::require_gpu()));
    if let Some(path) = std::env::var_os("FERROTILE_TESTS_FROM") {
        let list = match std::fs::read_to_string(&path) {
            Ok(list) => list,
            Err(e) => {
                eprintln!("FERROTILE_TESTS_FROM: cannot read {}: {e}", path.to_string_lossy());
                std::process::exit(2);
            }
        };
        let names: std::collections::HashSet<&str> = list.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        let unknown: Vec<&str> = names.iter().copied().filter(|n| !trials.iter().any(|t| t.name() == *n)).collect();
        if !unknown.is_empty() {
            eprintln!("FERROTILE_TESTS_FROM: {} name(s) match no test, e.g. {}", unknown.len(), unknown[0]);
            std::process::exit(2);
        }
        trials.retain(|t| names.contains(t.name()));
    }
    libtest_mimic::run(&args, trials).exit();
}
