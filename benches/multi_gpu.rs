//! One GPU against the group of every visible GPU (`ferrotile::multi`),
//! with the communication that the group needs measured next to the
//! device-to-device copy between two GPUs.
//!
//! | row | one GPU | group |
//! | --- | --- | --- |
//! | sharded SGEMM `N³` (f32) | [`Gemm`] on GPU 0 | [`ShardedGemm`], operands in the plan's layout, result left sharded (transfers in order, and overlapped on a side stream); then the same with the gather of `C` to rank 0 |
//! | bf16 `M × N × K` → f32 | [`Gemm`] on GPU 0 | [`ShardedGemm`] with `k` panels (`B` all-gathered panel by panel; with and without overlap, and 4 panels per GPU) and with `B` broadcast once from rank 0 |
//! | image batch (RGB blur r = 3) | [`process_batch`] (and [`process_pinned_batch`] over pinned images) on a group of GPU 0 | the same on the group; host to host |
//! | NCCL broadcast / all-gather | — | bus bandwidth (nccl-tests' definition) of `S` bytes, next to `cuMemcpyPeerAsync` 0 → 1 of `S` bytes |
//!
//! Every group result is compared with the one-GPU result (GEMMs: the
//! relative norm error over sampled rows; images: exactly), and the
//! speed-up (one GPU's time / the group's) is printed and recorded
//! (`ratio` of the `multi_gpu` records, `ceiling` = `one GPU`).
//!
//! Arguments (sizes for a small run): `--sgemm N` (16384),
//! `--bf16 M,N,K` (32768,32768,8192), `--images COUNT,W,H` (64,3840,2160),
//! `--comm-mib S` (1024), `--only sgemm,bf16,images,comm`.
//! `FERROTILE_BENCH_QUICK=1` divides the defaults (4096³, 8192×8192×2048,
//! 16 × 1920×1080, 64 MiB). With one GPU the group is a group of one
//! (reported as such); without a GPU it prints a note and exits 0
//! (`FERROTILE_BENCH_EMULATOR=1`: a smoke run on 2 emulated devices at
//! tiny sizes). NCCL must be loadable (see `ferrotile::multi`; without it
//! the bench prints that it skipped, or fails with
//! `FERROTILE_REQUIRE_NCCL=1`); run with `NCCL_NVLS_ENABLE=0` in the
//! environment (bundle/run.sh sets it and finds NCCL).

use std::sync::Arc;
use std::time::Duration;

use ferrotile::cudarc::driver::{CudaContext, CudaSlice, CudaStream, PinnedHostSlice};
use ferrotile::gemm::{Gemm, GemmElement};
use ferrotile::half::bf16;
use ferrotile::image::{HostImage, PinnedImage};
use ferrotile::multi::{self, copy_peer, process_batch, process_batch_into, process_pinned_batch, BatchOp, DeviceGroup, ShardedGemm, ShardedMatrix};
use ferrotile::testing::Rng;
use ferrotile::{Context, Result};

#[path = "common/results.rs"]
mod results;
use results::{Measured, Work};

struct Args {
    sgemm: usize,
    bf16: (usize, usize, usize),
    images: (usize, usize, usize),
    comm_bytes: usize,
    only: Option<Vec<String>>,
    iters: usize,
}

fn parse_args(emulated: bool) -> std::result::Result<Args, String> {
    let quick = std::env::var("FERROTILE_BENCH_QUICK").is_ok_and(|v| v == "1");
    let mut a = if emulated {
        Args { sgemm: 96, bf16: (64, 64, 64), images: (3, 64, 48), comm_bytes: 1 << 16, only: None, iters: 1 }
    } else if quick {
        Args { sgemm: 4096, bf16: (8192, 8192, 2048), images: (16, 1920, 1080), comm_bytes: 64 << 20, only: None, iters: 5 }
    } else {
        Args { sgemm: 16384, bf16: (32768, 32768, 8192), images: (64, 3840, 2160), comm_bytes: 1 << 30, only: None, iters: 5 }
    };
    let mut it = std::env::args().skip(1).filter(|s| s != "--bench");
    let nums = |s: &str, n: usize| -> std::result::Result<Vec<usize>, String> {
        let v: Vec<usize> = s.split(',').map(|x| x.trim().parse::<usize>().map_err(|e| format!("{s}: {e}"))).collect::<std::result::Result<_, _>>()?;
        if v.len() != n || v.contains(&0) {
            return Err(format!("{s}: expected {n} positive numbers"));
        }
        Ok(v)
    };
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--sgemm" => a.sgemm = nums(&val()?, 1)?[0],
            "--bf16" => {
                let v = nums(&val()?, 3)?;
                a.bf16 = (v[0], v[1], v[2]);
            }
            "--images" => {
                let v = nums(&val()?, 3)?;
                a.images = (v[0], v[1], v[2]);
            }
            "--comm-mib" => a.comm_bytes = nums(&val()?, 1)?[0] << 20,
            "--iters" => a.iters = nums(&val()?, 1)?[0],
            "--only" => a.only = Some(val()?.split(',').map(str::to_owned).collect()),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(a)
}

fn main() {
    let emulated = std::env::var("FERROTILE_BENCH_EMULATOR").is_ok_and(|v| v == "1");
    let args = match parse_args(emulated) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("multi_gpu bench: {e}");
            std::process::exit(2);
        }
    };
    let group = if emulated {
        DeviceGroup::emulated(2)
    } else {
        match multi::cuda_device_count() {
            Err(e) => {
                println!("multi_gpu bench: no CUDA device ({e}); nothing to measure.");
                return;
            }
            Ok(_) => DeviceGroup::cuda_all(),
        }
    };
    let group = match group {
        Ok(g) => g,
        Err(e @ ferrotile::Error::LibraryMissing { .. }) if std::env::var("FERROTILE_REQUIRE_NCCL").map_or(true, |v| v != "1") => {
            println!("multi_gpu bench: skipped: {e}");
            return;
        }
        Err(e) => {
            println!("multi_gpu bench: cannot form the device group: {e}");
            std::process::exit(1);
        }
    };
    results::set_gpu(group.context(0).device_info().map(|d| d.name.as_str()));
    let names: Vec<String> =
        group.contexts().iter().map(|c| c.device_info().map_or("emulator".to_string(), |d| d.name.clone())).collect();
    println!("## multi_gpu: a group of {} ({:?}: {})", group.len(), group.collective_kind(), names.join(", "));
    if let Ok(v) = DeviceGroup::nccl_version() {
        println!("NCCL {}.{}.{}", v / 10000, v / 100 % 100, v % 100);
    }
    println!("NCCL_NVLS_ENABLE={}", std::env::var("NCCL_NVLS_ENABLE").unwrap_or_else(|_| "(unset: ferrotile sets 0)".into()));
    let peers: Vec<String> =
        (0..group.len()).flat_map(|i| (0..group.len()).filter(move |&j| j != i).map(move |j| (i, j))).map(|(i, j)| format!("{i}→{j}: {}", group.peer_access(i, j))).collect();
    println!("peer access: {}", if peers.is_empty() { "(one device)".into() } else { peers.join(", ") });
    println!();
    println!("| row | shape | one GPU | group | speed-up | throughput (group) | check |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    let on = |part: &str| args.only.as_ref().is_none_or(|o| o.iter().any(|w| w == part));
    let mut failed = false;
    let mut report = |r: Result<()>, what: &str| {
        if let Err(e) = r {
            println!("| {what} | | | | | | ERROR {e} |");
            failed = true;
        }
    };
    if on("comm") {
        report(comm(&group, &args), "communication");
    }
    if on("sgemm") {
        let n = args.sgemm;
        report(gemm_f32(&group, &args, n), "sharded sgemm");
    }
    if on("bf16") {
        report(gemm_bf16(&group, &args), "sharded bf16 gemm");
    }
    if on("images") {
        report(images(&group, &args), "image batch");
    }
    if failed {
        std::process::exit(1);
    }
}

fn ms(t: Duration) -> String {
    format!("{:.3} ms", t.as_secs_f64() * 1e3)
}

/// Prints and records one row against the one-GPU time.
#[allow(clippy::too_many_arguments)]
fn row(group: &DeviceGroup, kernel: &str, shape: &str, dtype: &str, one: Duration, t: Duration, work: Work, check: &str) {
    let rung = format!("group of {}", group.len());
    let m = Measured { family: "multi_gpu", kernel, rung: Some(&rung), shape, dtype, time: t, work, ceiling: Some(("one GPU", one)), check };
    let r = m.record("", "", "");
    println!(
        "| {kernel} | {shape} | {} | {} | {:.2}× | {:.1} {} | {check} |",
        ms(one),
        ms(t),
        one.as_secs_f64() / t.as_secs_f64(),
        r.throughput,
        r.unit
    );
    results::record(m);
}

/// Relative norm error of `got` against `want` over sampled rows (the
/// first, last and 30 spread rows).
fn sampled_error(got: &[f32], want: &[f32], rows: usize, cols: usize) -> f64 {
    let picks: Vec<usize> = (0..32).map(|i| i * (rows - 1) / 31).collect();
    let (mut num, mut den) = (0f64, 0f64);
    for r in picks {
        for c in 0..cols {
            let (g, w) = (got[r * cols + c] as f64, want[r * cols + c] as f64);
            num += (g - w) * (g - w);
            den += w * w;
        }
    }
    if den == 0.0 { num.sqrt() } else { (num / den).sqrt() }
}

fn verdict(err: f64, tol: f64) -> String {
    if err <= tol { format!("ok ({err:.1e})") } else { format!("FAIL: error {err:.2e} vs one GPU") }
}

/// Median of `iters` runs of `f` on one context, each until the device is
/// idle, on the host clock: measured the way [`DeviceGroup::time`]
/// measures the group, so that the ratio compares like with like.
fn time_one(ctx: &Context, iters: usize, mut f: impl FnMut() -> Result<()>) -> Result<Duration> {
    f()?;
    ctx.synchronize()?;
    let mut times = Vec::with_capacity(iters.max(1));
    for _ in 0..iters.max(1) {
        let t = std::time::Instant::now();
        f()?;
        ctx.synchronize()?;
        times.push(t.elapsed());
    }
    times.sort();
    Ok(times[times.len() / 2])
}

/// The decomposition's ceiling: every GPU multiplies its share of the rows
/// (`⌈m / p⌉ × n × k`, the largest share) with its operands already in
/// place, all at once: no communication. The group's rows above it pay for
/// the transfers; this row's own speed-up shows how well the products
/// alone scale.
fn local_products<I: GemmElement>(group: &DeviceGroup, args: &Args, a: &[I], b: &[I], (m, n, k): (usize, usize, usize)) -> Result<Duration> {
    let rows = m.div_ceil(group.len());
    let g = Gemm::new(rows, n, k);
    let mut local = (0..group.len())
        .map(|d| {
            let ctx = group.context(d);
            Ok((ctx.upload(&a[..rows * k])?, ctx.upload(b)?, ctx.alloc::<f32>(rows * n)?))
        })
        .collect::<Result<Vec<_>>>()?;
    group.time(1, args.iters, || {
        for (d, (la, lb, lc)) in local.iter_mut().enumerate() {
            g.run(group.context(d), la, lb, lc)?;
        }
        Ok(())
    })
}

fn gemm_f32(group: &DeviceGroup, args: &Args, n: usize) -> Result<()> {
    let (m, k) = (n, n);
    let mut r = Rng::new(7);
    let (a, b) = (r.f32s(m * k), r.f32s(k * n));
    let ctx = group.context(0);
    let g1 = Gemm::new(m, n, k);
    let (da, db) = (ctx.upload(&a)?, ctx.upload(&b)?);
    let mut dc = ctx.alloc::<f32>(m * n)?;
    let one = time_one(ctx, args.iters, || g1.run(ctx, &da, &db, &mut dc))?;
    let want = dc.download()?;
    drop((da, db, dc));
    let sg = ShardedGemm::new(m, n, k);
    let plan = sg.plan(group)?;
    let sa = ShardedMatrix::from_host(group, &a, m, k, &plan.a)?;
    let sb = ShardedMatrix::from_host(group, &b, k, n, &plan.b)?;
    let mut sc = ShardedMatrix::<f32>::alloc(group, m, n, &plan.c)?;
    let shape = format!("{m}×{n}×{k} grid {}×{} q {}", plan.grid.0, plan.grid.1, plan.k_panels.len());
    let flops = 2.0 * (m * n * k) as f64;
    let tl = local_products(group, args, &a, &b, (m, n, k))?;
    row(group, "local products only (no communication)", &format!("{m}×{n}×{k}, rows split"), "f32", one, tl, Work::TFlops(flops), "—");
    for (label, g) in [("sharded sgemm (C sharded)", sg), ("sharded sgemm, overlapped (C sharded)", sg.overlap(true))] {
        sc.fill(f32::NAN)?;
        let t = group.time(1, args.iters, || g.run(group, &sa, &sb, &mut sc))?;
        let check = verdict(sampled_error(&sc.to_host()?, &want, m, n), 1e-5);
        row(group, label, &shape, "f32", one, t, Work::TFlops(flops), &check);
    }
    if plan.grid.1 == 1 {
        let tg = group.time(1, args.iters, || {
            sg.run(group, &sa, &sb, &mut sc)?;
            sc.gather_to(group, 0).map(drop)
        })?;
        let gathered = sc.gather_to(group, 0)?.download()?;
        row(group, "sharded sgemm + gather to rank 0", &shape, "f32", one, tg, Work::TFlops(flops), &verdict(sampled_error(&gathered, &want, m, n), 1e-5));
    }
    Ok(())
}

fn gemm_bf16(group: &DeviceGroup, args: &Args) -> Result<()> {
    let (m, n, k) = args.bf16;
    let mut r = Rng::new(11);
    let a: Vec<bf16> = r.f32s(m * k).into_iter().map(bf16::from_f32).collect();
    let b: Vec<bf16> = r.f32s(k * n).into_iter().map(bf16::from_f32).collect();
    let ctx = group.context(0);
    let g1 = Gemm::new(m, n, k);
    let (da, db) = (ctx.upload(&a)?, ctx.upload(&b)?);
    let mut dc = ctx.alloc::<f32>(m * n)?;
    let one = time_one(ctx, args.iters, || g1.run(ctx, &da, &db, &mut dc))?;
    let want = dc.download()?;
    drop((da, db, dc));
    let flops = 2.0 * m as f64 * n as f64 * k as f64;
    let p = group.len();
    let tl = local_products(group, args, &a, &b, (m, n, k))?;
    row(group, "local bf16 products only (no communication)", &format!("{m}×{n}×{k}, rows split"), "bf16→f32", one, tl, Work::TFlops(flops), "—");
    for (label, sg) in [
        ("sharded bf16 gemm, k panels (C sharded)", ShardedGemm::new(m, n, k)),
        ("sharded bf16 gemm, k panels, overlapped (C sharded)", ShardedGemm::new(m, n, k).overlap(true)),
        ("sharded bf16 gemm, 4 panels per GPU, overlapped (C sharded)", ShardedGemm::new(m, n, k).grid(p, 1).k_panels(4 * p).overlap(true)),
        ("sharded bf16 gemm, B broadcast once (C sharded)", ShardedGemm::new(m, n, k).grid(p, 1).k_panels(1)),
    ] {
        let plan = sg.plan(group)?;
        let sa = ShardedMatrix::from_host(group, &a, m, k, &plan.a)?;
        let sb = ShardedMatrix::from_host(group, &b, k, n, &plan.b)?;
        let mut sc = ShardedMatrix::<f32>::alloc(group, m, n, &plan.c)?;
        let t = group.time(1, args.iters, || sg.run(group, &sa, &sb, &mut sc))?;
        let check = verdict(sampled_error(&sc.to_host()?, &want, m, n), 1e-5);
        let shape = format!("{m}×{n}×{k} grid {}×{} q {}", plan.grid.0, plan.grid.1, plan.k_panels.len());
        row(group, label, &shape, "bf16→f32", one, t, Work::TFlops(flops), &check);
    }
    Ok(())
}

fn images(group: &DeviceGroup, args: &Args) -> Result<()> {
    let (count, w, h) = args.images;
    let batch: Vec<HostImage> =
        (0..count).map(|i| HostImage::new(w, h, 3, Rng::new(100 + i as u64).u8s(w * h * 3))).collect::<Result<_>>()?;
    let op = BatchOp::Blur { radius: 3 };
    let solo = if group.len() == 1 { None } else { Some(first_only(group)?) };
    let solo_ref = solo.as_ref().unwrap_or(group);
    let want = process_batch(solo_ref, &batch, op)?;
    let one = solo_ref.time(1, args.iters, || process_batch(solo_ref, &batch, op).map(drop))?;
    let got = process_batch(group, &batch, op)?;
    let t = group.time(1, args.iters, || process_batch(group, &batch, op).map(drop))?;
    let same = got.iter().zip(&want).all(|(g, w)| g == w) && got.len() == want.len();
    let bytes = 2.0 * (count * w * h * 3) as f64;
    row(group, "image batch, blur r3 (host to host)", &format!("{count} × {w}×{h}×3"), "u8", one, t, Work::Bytes(bytes), if same { "ok (exact)" } else { "FAIL: differs from one GPU" });
    // A pipeline that keeps its outputs: no result memory allocated (and
    // zeroed by the OS) per batch.
    let mut outs = want.clone();
    let one = solo_ref.time(1, args.iters, || process_batch_into(solo_ref, &batch, &mut outs, op))?;
    let t = group.time(1, args.iters, || process_batch_into(group, &batch, &mut outs, op))?;
    let same = outs.iter().zip(&want).all(|(g, w)| g == w);
    row(group, "image batch into kept outputs, blur r3 (host to host)", &format!("{count} × {w}×{h}×3"), "u8", one, t, Work::Bytes(bytes), if same { "ok (exact)" } else { "FAIL: differs from one GPU" });
    // Images the caller holds in pinned memory: no staging copy on the
    // host, each group with its own (a batch is pinned by the contexts
    // that process it).
    let pinned_for = |g: &DeviceGroup, fill: bool| -> Result<Vec<PinnedImage>> {
        (0..count)
            .map(|i| {
                let mut im = PinnedImage::alloc(g.context(g.batch_rank(count, i)), w, h, 3)?;
                if fill {
                    im.pixels_mut()?.copy_from_slice(batch[i].data());
                }
                Ok(im)
            })
            .collect()
    };
    let (solo_in, mut solo_out) = (pinned_for(solo_ref, true)?, pinned_for(solo_ref, false)?);
    let one = solo_ref.time(1, args.iters, || process_pinned_batch(solo_ref, &solo_in, &mut solo_out, op))?;
    drop((solo_in, solo_out));
    let (group_in, mut group_out) = (pinned_for(group, true)?, pinned_for(group, false)?);
    let t = group.time(1, args.iters, || process_pinned_batch(group, &group_in, &mut group_out, op))?;
    let mut same = true;
    for (g, w) in group_out.iter().zip(&want) {
        same &= g.pixels()? == &w.data()[..];
    }
    row(group, "image batch of pinned images, blur r3 (host to host)", &format!("{count} × {w}×{h}×3"), "u8", one, t, Work::Bytes(bytes), if same { "ok (exact)" } else { "FAIL: differs from one GPU" });
    Ok(())
}

/// A group of the first device alone (the one-GPU baseline of the batch).
fn first_only(group: &DeviceGroup) -> Result<DeviceGroup> {
    match group.collective_kind() {
        multi::CollectiveKind::Emulated => DeviceGroup::emulated(1),
        multi::CollectiveKind::Nccl => DeviceGroup::cuda(&[0]),
    }
}

/// NCCL broadcast and all-gather bus bandwidth, and the peer copy.
fn comm(group: &DeviceGroup, args: &Args) -> Result<()> {
    let p = group.len();
    let bytes = args.comm_bytes / p * p;
    let per = bytes / p;
    let mut bufs = (0..p).map(|d| group.context(d).alloc::<u8>(bytes)).collect::<Result<Vec<_>>>()?;
    let tb = group.time(2, args.iters.max(5), || group.broadcast(0, &mut bufs))?;
    let send = (0..p).map(|d| group.context(d).alloc::<u8>(per)).collect::<Result<Vec<_>>>()?;
    let ta = group.time(2, args.iters.max(5), || group.all_gather(&send, &mut bufs))?;
    // nccl-tests: broadcast bus bw = size / t; all-gather = size / t · (p − 1) / p.
    let gbs = |b: f64, t: Duration| b / t.as_secs_f64() / 1e9;
    let bcast_bw = gbs(bytes as f64, tb);
    let ag_bw = gbs(bytes as f64, ta) * (p - 1) as f64 / p as f64;
    println!("| NCCL broadcast | {} MiB | | {} | | bus {bcast_bw:.1} GB/s | |", bytes >> 20, ms(tb));
    println!("| NCCL all-gather | {} MiB | | {} | | bus {ag_bw:.1} GB/s | |", bytes >> 20, ms(ta));
    let rung = format!("group of {p}");
    for (kernel, t, bw) in [("NCCL broadcast", tb, bcast_bw), ("NCCL all-gather", ta, ag_bw)] {
        // Recorded as the bus bandwidth's bytes over the measured time.
        let moved = bw * 1e9 * t.as_secs_f64();
        results::record(Measured {
            family: "multi_gpu",
            kernel,
            rung: Some(&rung),
            shape: &format!("{} MiB", bytes >> 20),
            dtype: "u8",
            time: t,
            work: Work::Bytes(moved),
            ceiling: None,
            check: "bus bandwidth",
        });
    }
    if p > 1 && group.collective_kind() == multi::CollectiveKind::Nccl {
        let src = group.context(0).alloc::<u8>(bytes)?;
        let mut dst = group.context(1).alloc::<u8>(bytes)?;
        let tc = group.time(2, args.iters.max(5), || copy_peer(group, 0, &src, 1, &mut dst))?;
        let bw = gbs(bytes as f64, tc);
        println!("| cuMemcpyPeer 0 → 1 | {} MiB | | {} | | {bw:.1} GB/s | |", bytes >> 20, ms(tc));
        results::record(Measured {
            family: "multi_gpu",
            kernel: "cuMemcpyPeer 0 → 1",
            rung: Some(&rung),
            shape: &format!("{} MiB", bytes >> 20),
            dtype: "u8",
            time: tc,
            work: Work::Bytes(bytes as f64),
            ceiling: None,
            check: "copy",
        });
    }
    if group.collective_kind() == multi::CollectiveKind::Nccl {
        host_links(group, bytes, args.iters.max(3))?;
    }
    Ok(())
}

/// One GPU's end of a host link: its context, and two sets of a stream,
/// pinned host memory and a device buffer of the same size (the second
/// for the copies the other way at the same time).
type HostEnd = (Arc<CudaContext>, [(Arc<CudaStream>, PinnedHostSlice<u8>, CudaSlice<u8>); 2]);

/// Which way a host-link row copies.
#[derive(Clone, Copy, PartialEq)]
enum Way {
    ToDevice,
    ToHost,
    /// Both at once, on two streams: what a host-to-host batch does.
    Both,
}

/// The host links: pinned host → device, device → host, and both at once
/// (two streams), copies of `bytes` on GPU 0 alone and on every GPU at
/// once (one thread each). A host-to-host batch cannot scale past what
/// "both ways, all at once" moves.
fn host_links(group: &DeviceGroup, bytes: usize, iters: usize) -> Result<()> {
    use std::sync::Barrier;
    let driver = |e: ferrotile::cudarc::driver::DriverError| ferrotile::Error::Driver { op: "timing host copies", detail: e.to_string() };
    let p = group.len();
    let mut ends: Vec<HostEnd> = Vec::with_capacity(p);
    for d in 0..p {
        let cctx = group.context(d).cudarc_context().expect("a CUDA group").clone();
        cctx.bind_to_thread().map_err(driver)?;
        let set = || -> Result<(Arc<CudaStream>, PinnedHostSlice<u8>, CudaSlice<u8>)> {
            // SAFETY: written by the copies before it is read.
            let host = unsafe { cctx.alloc_pinned::<u8>(bytes) }.map_err(driver)?;
            let stream = cctx.new_stream().map_err(driver)?;
            let dev = stream.alloc_zeros::<u8>(bytes).map_err(driver)?;
            Ok((stream, host, dev))
        };
        let sets = [set()?, set()?];
        ends.push((cctx, sets));
    }
    // (way, how many GPUs) → the median time of all of them copying once.
    let run = |ends: &mut Vec<HostEnd>, way: Way, gpus: usize| -> Result<Duration> {
        let barrier = Barrier::new(gpus);
        let mut times = Vec::with_capacity(iters);
        for _ in 0..iters + 1 {
            let t0 = std::time::Instant::now();
            std::thread::scope(|scope| -> Result<()> {
                let workers: Vec<_> = ends
                    .iter_mut()
                    .take(gpus)
                    .map(|(cctx, [(s0, h0, d0), (s1, h1, d1)]): &mut HostEnd| {
                        let barrier = &barrier;
                        scope.spawn(move || -> Result<()> {
                            cctx.bind_to_thread().map_err(driver)?;
                            barrier.wait();
                            if way != Way::ToHost {
                                s0.memcpy_htod(&*h0, d0).map_err(driver)?;
                            }
                            match way {
                                Way::ToHost => s0.memcpy_dtoh(&*d0, h0).map_err(driver)?,
                                Way::Both => s1.memcpy_dtoh(&*d1, h1).map_err(driver)?,
                                Way::ToDevice => {}
                            }
                            s0.synchronize().map_err(driver)?;
                            s1.synchronize().map_err(driver)
                        })
                    })
                    .collect();
                workers.into_iter().try_for_each(|w| w.join().expect("a copy thread panicked"))
            })?;
            times.push(t0.elapsed());
        }
        times.remove(0);
        times.sort();
        Ok(times[times.len() / 2])
    };
    for (way, name) in [(Way::ToDevice, "pinned host → device"), (Way::ToHost, "device → pinned host"), (Way::Both, "pinned host ⇄ device, both ways at once")] {
        let per_gpu = if way == Way::Both { 2 * bytes } else { bytes };
        let alone = run(&mut ends, way, 1)?;
        let all = run(&mut ends, way, p)?;
        let (bw1, bwp) = (per_gpu as f64 / alone.as_secs_f64() / 1e9, (p * per_gpu) as f64 / all.as_secs_f64() / 1e9);
        println!("| {name}, GPU 0 alone / all {p} at once | {} MiB each | {} | {} | {:.2}× | {bw1:.1} / {bwp:.1} GB/s | |", per_gpu >> 20, ms(alone), ms(all), bwp / bw1);
        let rung = format!("group of {p}");
        results::record(Measured {
            family: "multi_gpu",
            kernel: &format!("{name}, all at once"),
            rung: Some(&rung),
            shape: &format!("{} MiB each", per_gpu >> 20),
            dtype: "u8",
            time: all,
            work: Work::Bytes((p * per_gpu) as f64),
            ceiling: Some(("GPU 0 alone", alone.mul_f64(p as f64))),
            check: "copy",
        });
    }
    Ok(())
}
