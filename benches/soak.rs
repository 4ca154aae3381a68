//! Soak (issue 16, part 6): 10,000 mixed, verified calls on one context
//! (GEMM f32 and bf16, transpose, blur, vector add; fresh buffers every
//! call), with device memory in use (`cuMemGetInfo`) and the host's
//! resident set measured after a warm-up and at the end.
//!
//! Prints one table and exits non-zero when a call fails or memory grows
//! by more than the allowance (device: 64 MiB, host: 128 MiB; allocator
//! pools and caches settle during the warm-up). Run it alone: device
//! memory is the whole device's.
//!
//! `FERROTILE_SOAK_LAUNCHES=N` changes the count (default 10,000 on CUDA,
//! 300 on the emulator). Without CUDA it runs on the emulator (a smoke run).

use ferrotile::workload::{self, host_rss_bytes, Job, Scale};
use ferrotile::{Backend, Context};

const MIB: f64 = 1024.0 * 1024.0;

fn device_used(ctx: &Context) -> Option<u64> {
    ctx.synchronize().ok()?;
    let (free, total) = ctx.device_memory()?.ok()?;
    Some((total - free) as u64)
}

fn mib(v: Option<u64>) -> String {
    v.map_or("-".into(), |b| format!("{:.1} MiB", b as f64 / MIB))
}

fn main() {
    let ctx = Context::auto();
    let cuda = ctx.backend() == Backend::Cuda;
    let launches: usize = std::env::var("FERROTILE_SOAK_LAUNCHES").ok().and_then(|v| v.parse().ok()).unwrap_or(if cuda { 10_000 } else { 300 });
    let scale = Scale::Small;
    let device = ctx.device_info().map_or("the CPU emulator".to_string(), |d| d.name.clone());
    println!("soak: {launches} mixed verified calls on {device}");
    let warmup = (launches / 20).max(Job::ALL.len());
    let mut failures = 0usize;
    let mut first_failure = None;
    let mut call = |i: usize| {
        let job = Job::ALL[i % Job::ALL.len()];
        if let Err(e) = workload::run(&ctx, job, scale, 0x50a4 ^ i as u64) {
            failures += 1;
            first_failure.get_or_insert(format!("call {i}: {e}"));
        }
    };
    for i in 0..warmup {
        call(i);
    }
    let (dev0, rss0) = (device_used(&ctx), host_rss_bytes());
    let t = std::time::Instant::now();
    for i in warmup..launches {
        call(i);
    }
    let secs = t.elapsed().as_secs_f64();
    let (dev1, rss1) = (device_used(&ctx), host_rss_bytes());
    let grow = |a: Option<u64>, b: Option<u64>| match (a, b) {
        (Some(a), Some(b)) => Some(b as i64 - a as i64),
        _ => None,
    };
    let (dd, dr) = (grow(dev0, dev1), grow(rss0, rss1));
    println!("| calls | failed | device used before | after | host RSS before | after | seconds |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    println!("| {launches} | {failures} | {} | {} | {} | {} | {secs:.1} |", mib(dev0), mib(dev1), mib(rss0), mib(rss1));
    println!("(before: after {warmup} warm-up calls; launches counted by the context: {})", ctx.launch_count());
    let mut ok = failures == 0;
    if let Some(f) = first_failure {
        println!("FAIL first failure: {f}");
    }
    if dd.is_some_and(|d| d > 64 * 1024 * 1024) {
        println!("FAIL device memory grew by {:.1} MiB", dd.unwrap() as f64 / MIB);
        ok = false;
    }
    if dr.is_some_and(|d| d > 128 * 1024 * 1024) {
        println!("FAIL host RSS grew by {:.1} MiB", dr.unwrap() as f64 / MIB);
        ok = false;
    }
    println!("soak: {}", if ok { "PASS" } else { "FAIL" });
    if !ok {
        std::process::exit(1);
    }
}
