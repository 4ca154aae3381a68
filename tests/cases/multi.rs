//! Multi-GPU (`ferrotile::multi`): the collectives, the sharded GEMM and
//! the image batch on groups of 1–4 emulated devices (the emulated
//! collective, NCCL's semantics) and on every visible GPU (NCCL).
//!
//! These trials are built here rather than as [`Case`](crate::common::Case)s:
//! a case gets one context, a group needs several. The `cuda::multi::`
//! trials share one group of every visible device and run one at a time
//! (NCCL collectives of two communicators over the same GPUs, issued
//! from two threads, can deadlock). They are reported *ignored* without a
//! GPU, without NCCL (`FERROTILE_REQUIRE_NCCL=1` makes that a failure),
//! and, for the ones that need two devices, on one GPU.

use std::sync::{Arc, Mutex};

use ferrotile::gemm::Gemm;
use ferrotile::half::bf16;
use ferrotile::image::{cpu, HostImage, PinnedImage};
use ferrotile::multi::{self, BatchOp, BlockSpec, DeviceGroup, ShardedGemm, ShardedMatrix, Span};
use ferrotile::reference::{sgemm_f64, GemmShape};
use ferrotile::{Context, Error};
use libtest_mimic::{Failed, Trial};

use crate::common::*;

type Body = fn(&DeviceGroup) -> Result<(), String>;

/// The bodies: name, devices needed on CUDA, body.
const BODIES: &[(&str, usize, Body)] = &[
    ("collectives", 1, collectives),
    ("gemm_f32_row_panels", 1, gemm_f32_row_panels),
    ("gemm_f32_b_broadcast_once", 1, gemm_f32_b_once),
    ("gemm_f32_2d_grid", 1, gemm_f32_2d),
    ("gemm_bf16", 1, gemm_bf16),
    ("gather", 1, gather),
    ("image_batch", 1, image_batch),
    ("image_batch_pinned", 1, image_batch_pinned),
    ("bad_input", 1, bad_input),
];

fn e(x: ferrotile::Error) -> String {
    x.to_string()
}

/// The trials: every body on emulated groups of 1 to 4 devices, and on the
/// group of every visible GPU.
pub fn trials(require_gpu: bool) -> Vec<Trial> {
    let mut v = Vec::new();
    for &(name, _, body) in BODIES {
        v.push(Trial::test(format!("emulator::multi::{name}"), move || {
            for n in 1..=4 {
                let g = DeviceGroup::emulated(n).map_err(e)?;
                body(&g).map_err(|m| format!("{n} emulated devices: {m}"))?;
            }
            Ok(())
        }));
    }
    let devices = multi::cuda_device_count().unwrap_or(0);
    let nccl = devices > 0 && multi::nccl_present();
    let require_nccl = std::env::var("FERROTILE_REQUIRE_NCCL").is_ok_and(|v| v == "1");
    if devices > 0 && !nccl {
        eprintln!(
            "ferrotile tests: NCCL not found (cudarc looks for libnccl.so, …; link libnccl.so.2 as libnccl.so on LD_LIBRARY_PATH); \
             cuda::multi:: tests are {}",
            if require_nccl { "failing" } else { "ignored" }
        );
    }
    let group: Arc<Mutex<Option<Result<DeviceGroup, String>>>> = Arc::new(Mutex::new(None));
    for &(name, need, body) in BODIES {
        let g = group.clone();
        let t = Trial::test(format!("cuda::multi::{name}"), move || {
            let mut slot = g.lock().unwrap_or_else(|p| p.into_inner());
            let group = slot.get_or_insert_with(|| DeviceGroup::cuda_all().map_err(e));
            match group {
                Ok(group) => body(group).map_err(|m| Failed::from(format!("{} GPUs: {m}", group.len()))),
                Err(why) => Err(Failed::from(format!("no CUDA group: {why}"))),
            }
        });
        let skip = if devices == 0 { !require_gpu } else { (!nccl && !require_nccl) || devices < need };
        v.push(t.with_ignored_flag(skip));
    }
    v
}

fn rng(name: &str, salt: usize) -> Rng {
    Rng::new(seed(name) ^ salt as u64)
}

/// Shapes with no dimension a multiple of any tile, and the edge ones.
const SHAPES: &[(usize, usize, usize)] = &[(1, 1, 1), (7, 31, 33), (33, 7, 129), (131, 67, 97), (3, 200, 5)];

fn sharded_f32(group: &DeviceGroup, g: &ShardedGemm, m: usize, n: usize, k: usize, what: &str) -> Result<(), String> {
    let mut r = rng(what, m * 1000 + n * 10 + k);
    let (a, b) = (r.f32s(m * k), r.f32s(k * n));
    let plan = g.plan(group).map_err(e)?;
    let da = ShardedMatrix::from_host(group, &a, m, k, &plan.a).map_err(e)?;
    let db = ShardedMatrix::from_host(group, &b, k, n, &plan.b).map_err(e)?;
    let mut dc = ShardedMatrix::<f32>::alloc(group, m, n, &plan.c).map_err(e)?;
    // Poison: an element no device writes fails the comparison.
    dc.fill(f32::NAN).map_err(e)?;
    g.alpha(1.5).run(group, &da, &db, &mut dc).map_err(e)?;
    let got = dc.to_host().map_err(e)?;
    let want = sgemm_f64(GemmShape { m, n, k, lda: k, ldb: n, ldc: n }, 1.5, &a, &b, 0.0, &vec![0.0; m * n]);
    close(&format!("{what} {m}×{n}×{k} grid {:?} q {}", plan.grid, plan.k_panels.len()), &got, &want, 1e-5)?;
    // The same product on the first device alone.
    let ctx = group.context(0);
    let mut one = poisoned(ctx, m * n, f32::NAN)?;
    Gemm::new(m, n, k).alpha(1.5).run(ctx, &up(ctx, &a)?, &up(ctx, &b)?, &mut one).map_err(e)?;
    close(&format!("{what} vs one device"), &got, &down(&one)?.iter().map(|&x| x as f64).collect::<Vec<_>>(), 1e-5)
}

fn gemm_f32_row_panels(group: &DeviceGroup) -> Result<(), String> {
    for &(m, n, k) in SHAPES {
        let p = group.len();
        sharded_f32(group, &ShardedGemm::new(m, n, k).grid(p, 1).k_panels(p.min(k)), m, n, k, "row panels")?;
        // Transfers on the side streams (CUDA), three steps per device.
        let g = ShardedGemm::new(m, n, k).grid(p, 1).k_panels((3 * p).min(k)).overlap(true);
        sharded_f32(group, &g, m, n, k, "row panels, overlapped")?;
    }
    Ok(())
}

fn gemm_f32_b_once(group: &DeviceGroup) -> Result<(), String> {
    for &(m, n, k) in SHAPES {
        sharded_f32(group, &ShardedGemm::new(m, n, k).grid(group.len(), 1).k_panels(1), m, n, k, "B once")?;
    }
    Ok(())
}

fn gemm_f32_2d(group: &DeviceGroup) -> Result<(), String> {
    let p = group.len();
    for &(m, n, k) in SHAPES {
        // The default grid (2 × 2 on four devices for square products),
        // and every factor pair.
        sharded_f32(group, &ShardedGemm::new(m, n, k), m, n, k, "auto grid")?;
        for rows in (1..=p).filter(|r| p.is_multiple_of(*r)) {
            let q = (3 * rows).min(k);
            sharded_f32(group, &ShardedGemm::new(m, n, k).grid(rows, p / rows).k_panels(q), m, n, k, "grid")?;
            let g = ShardedGemm::new(m, n, k).grid(rows, p / rows).k_panels(q).overlap(true);
            sharded_f32(group, &g, m, n, k, "grid, overlapped")?;
        }
    }
    Ok(())
}

fn gemm_bf16(group: &DeviceGroup) -> Result<(), String> {
    for &(m, n, k) in &[(33usize, 40usize, 72usize), (7, 16, 200)] {
        let mut r = rng("bf16", m + n + k);
        let a: Vec<bf16> = r.f32s(m * k).into_iter().map(bf16::from_f32).collect();
        let b: Vec<bf16> = r.f32s(k * n).into_iter().map(bf16::from_f32).collect();
        let g = ShardedGemm::new(m, n, k);
        let plan = g.plan(group).map_err(e)?;
        let da = ShardedMatrix::from_host(group, &a, m, k, &plan.a).map_err(e)?;
        let db = ShardedMatrix::from_host(group, &b, k, n, &plan.b).map_err(e)?;
        let mut dc = ShardedMatrix::<f32>::alloc(group, m, n, &plan.c).map_err(e)?;
        dc.fill(f32::NAN).map_err(e)?;
        g.run(group, &da, &db, &mut dc).map_err(e)?;
        let af: Vec<f32> = a.iter().map(|x| x.to_f32()).collect();
        let bf: Vec<f32> = b.iter().map(|x| x.to_f32()).collect();
        let want = sgemm_f64(GemmShape { m, n, k, lda: k, ldb: n, ldc: n }, 1.0, &af, &bf, 0.0, &vec![0.0; m * n]);
        close(&format!("bf16 {m}×{n}×{k}"), &dc.to_host().map_err(e)?, &want, 1e-5)?;
    }
    Ok(())
}

fn collectives(group: &DeviceGroup) -> Result<(), String> {
    let p = group.len();
    for len in [1usize, 7, 33, 1031] {
        for root in [0, p - 1] {
            let mut r = rng("bcast", len + root);
            let data = r.f32s(len);
            let mut bufs = (0..p)
                .map(|d| if d == root { up(group.context(d), &data) } else { poisoned(group.context(d), len, f32::NAN) })
                .collect::<Result<Vec<_>, _>>()?;
            group.broadcast(root, &mut bufs).map_err(e)?;
            for (d, b) in bufs.iter().enumerate() {
                exact_f32(&format!("broadcast {len} from {root} on {d}"), &down(b)?, &data)?;
            }
        }
        let parts: Vec<Vec<u8>> = (0..p).map(|d| rng("gather", len * 8 + d).u8s(len)).collect();
        let send = parts.iter().enumerate().map(|(d, x)| up(group.context(d), x)).collect::<Result<Vec<_>, _>>()?;
        let mut recv = (0..p).map(|d| poisoned(group.context(d), len * p, 0xABu8)).collect::<Result<Vec<_>, _>>()?;
        group.all_gather(&send, &mut recv).map_err(e)?;
        let want: Vec<u8> = parts.concat();
        for (d, b) in recv.iter().enumerate() {
            exact(&format!("all-gather {len} on {d}"), &down(b)?, &want)?;
        }
    }
    Ok(())
}

fn gather(group: &DeviceGroup) -> Result<(), String> {
    for &(m, n) in &[(1usize, 1usize), (7, 3), (300, 5), (129, 131)] {
        let data = rng("gather_to", m * n).f32s(m * n);
        // Row panels of unequal heights.
        let p = group.len();
        let specs: Vec<BlockSpec> = (0..p)
            .map(|d| BlockSpec { rows: ferrotile::kernels::layout::shard::split(m, p, 1, d), cols: Span { start: 0, len: n }, rank: d })
            .collect();
        let sm = ShardedMatrix::from_host(group, &data, m, n, &specs).map_err(e)?;
        exact_f32("to_host", &sm.to_host().map_err(e)?, &data)?;
        for root in 0..p {
            let one = sm.gather_to(group, root).map_err(e)?;
            exact_f32(&format!("gather_to {root}"), &down(&one)?, &data)?;
        }
        // A 2D layout round-trips through the host.
        let plan = ShardedGemm::new(m, n, 1).plan(group).map_err(e)?;
        let sm = ShardedMatrix::from_host(group, &data, m, n, &plan.c).map_err(e)?;
        exact_f32("2D to_host", &sm.to_host().map_err(e)?, &data)?;
    }
    Ok(())
}

fn image_batch(group: &DeviceGroup) -> Result<(), String> {
    // Images of different shapes (odd widths and heights), more and fewer
    // than the devices.
    let shapes = [(37usize, 11usize), (1, 1), (64, 17), (13, 29), (7, 1), (50, 3), (33, 33)];
    for count in [1, 3, shapes.len()] {
        let rgb: Vec<HostImage> = shapes[..count]
            .iter()
            .enumerate()
            .map(|(i, &(w, h))| HostImage::new(w, h, 3, rng("batch", i).u8s(w * h * 3)).expect("valid shape"))
            .collect();
        let gray = multi::process_batch(group, &rgb, BatchOp::Gray).map_err(e)?;
        for (i, (g, src)) in gray.iter().zip(&rgb).enumerate() {
            exact(&format!("batch gray {i}"), g.data(), cpu::rgb_to_gray(src).data())?;
        }
        for radius in [1u32, 4] {
            let blurred = multi::process_batch(group, &gray, BatchOp::Blur { radius }).map_err(e)?;
            for (i, (b, src)) in blurred.iter().zip(&gray).enumerate() {
                exact(&format!("batch blur r{radius} {i}"), b.data(), cpu::blur(src, radius).data())?;
            }
        }
    }
    assert!(multi::process_batch(group, &[], BatchOp::Gray).map_err(e)?.is_empty());
    // Into outputs the caller keeps: poisoned first, then reused for a
    // second batch of the same shapes.
    let rgb: Vec<HostImage> =
        [(7usize, 5usize), (33, 2), (1, 1)].iter().enumerate().map(|(i, &(w, h))| HostImage::new(w, h, 3, rng("into", i).u8s(w * h * 3)).expect("valid shape")).collect();
    let mut outs: Vec<HostImage> = rgb.iter().map(|im| HostImage::new(im.width(), im.height(), 3, vec![0xAB; im.data().len()]).expect("valid shape")).collect();
    for radius in [2u32, 5] {
        multi::process_batch_into(group, &rgb, &mut outs, BatchOp::Blur { radius }).map_err(e)?;
        for (i, (b, src)) in outs.iter().zip(&rgb).enumerate() {
            exact(&format!("batch into, blur r{radius} {i}"), b.data(), cpu::blur(src, radius).data())?;
        }
    }
    Ok(())
}

/// Pinned images of `shapes` (`channels` each) for a batch on `group`,
/// each pinned by the rank that processes it, filled by `fill`.
fn pinned(group: &DeviceGroup, shapes: &[(usize, usize)], channels: usize, fill: impl Fn(usize) -> Vec<u8>) -> Result<Vec<PinnedImage>, String> {
    let count = shapes.len();
    shapes
        .iter()
        .enumerate()
        .map(|(i, &(w, h))| {
            let mut im = PinnedImage::alloc(group.context(group.batch_rank(count, i)), w, h, channels).map_err(e)?;
            im.pixels_mut().map_err(e)?.copy_from_slice(&fill(i));
            Ok(im)
        })
        .collect()
}

fn image_batch_pinned(group: &DeviceGroup) -> Result<(), String> {
    // Odd shapes, more and fewer images than devices, outputs poisoned;
    // the same outputs reused for a second radius (and two images of a
    // device's run share a stream's device buffers).
    let shapes = [(37usize, 11usize), (1, 1), (64, 17), (13, 29), (7, 1), (50, 3), (33, 33)];
    for count in [1, 2, 5, shapes.len()] {
        let host: Vec<HostImage> = shapes[..count]
            .iter()
            .enumerate()
            .map(|(i, &(w, h))| HostImage::new(w, h, 3, rng("pinned", i).u8s(w * h * 3)).expect("valid shape"))
            .collect();
        let rgb = pinned(group, &shapes[..count], 3, |i| host[i].data().clone())?;
        let mut gray = pinned(group, &shapes[..count], 1, |i| vec![0xAB; shapes[i].0 * shapes[i].1])?;
        multi::process_pinned_batch(group, &rgb, &mut gray, BatchOp::Gray).map_err(e)?;
        let mut outs = pinned(group, &shapes[..count], 3, |i| vec![0xCD; host[i].data().len()])?;
        for (i, (g, src)) in gray.iter().zip(&host).enumerate() {
            exact(&format!("pinned gray {i}"), g.pixels().map_err(e)?, cpu::rgb_to_gray(src).data())?;
        }
        for radius in [1u32, 4] {
            multi::process_pinned_batch(group, &rgb, &mut outs, BatchOp::Blur { radius }).map_err(e)?;
            for (i, (b, src)) in outs.iter().zip(&host).enumerate() {
                exact(&format!("pinned blur r{radius} {i} of {count}"), b.pixels().map_err(e)?, cpu::blur(src, radius).data())?;
            }
        }
    }
    multi::process_pinned_batch(group, &[], &mut [], BatchOp::Gray).map_err(e)?;
    // Refused before anything runs: an image pinned by the wrong rank, an
    // output of another shape, a gray of one channel; the outputs keep
    // their poison.
    let p = group.len();
    let shapes = vec![(5usize, 3usize); p + 1];
    let rgb = pinned(group, &shapes, 3, |i| rng("pinned bad", i).u8s(45))?;
    let mut outs = pinned(group, &shapes, 3, |_| vec![0xEE; 45])?;
    let stranger = DeviceGroup::emulated(p).map_err(e)?;
    let mut foreign = pinned(&stranger, &shapes, 3, |_| vec![0; 45])?;
    refused("input of another context", "images", || multi::process_pinned_batch(group, &foreign, &mut outs, BatchOp::Blur { radius: 1 }))?;
    refused("output of another context", "outputs", || multi::process_pinned_batch(group, &rgb, &mut foreign, BatchOp::Blur { radius: 1 }))?;
    if p > 1 {
        // The last image pinned by rank 0, which does not process it.
        let mut first = pinned(group, &shapes, 3, |_| vec![0; 45])?;
        first.pop();
        first.push(PinnedImage::alloc(group.context(0), 5, 3, 3).map_err(e)?);
        refused("input of rank 0 for the last rank", "images", || multi::process_pinned_batch(group, &first, &mut outs, BatchOp::Blur { radius: 1 }))?;
    }
    let mut small = pinned(group, &[(5, 3)], 1, |_| vec![0xEE; 15])?;
    refused("output of another shape", "outputs", || multi::process_pinned_batch(group, &rgb[..1], &mut small, BatchOp::Blur { radius: 1 }))?;
    refused("outputs missing", "outputs", || multi::process_pinned_batch(group, &rgb, &mut outs[..1], BatchOp::Blur { radius: 1 }))?;
    let gray_in = pinned(group, &shapes, 1, |_| vec![1; 15])?;
    refused("gray of 1 channel", "images", || multi::process_pinned_batch(group, &gray_in, &mut outs, BatchOp::Gray))?;
    for o in outs.iter().chain(&small) {
        if o.pixels().map_err(e)?.iter().any(|&b| b != 0xEE) {
            return Err("a refused pinned batch wrote its outputs".into());
        }
    }
    Ok(())
}

/// `r` is a typed error naming `arg`, and nothing was launched.
fn refused<T: std::fmt::Debug>(what: &str, arg: &str, r: impl FnOnce() -> ferrotile::Result<T>) -> Result<(), String> {
    let before = Context::thread_launch_count();
    let got = r();
    if Context::thread_launch_count() != before {
        return Err(format!("{what}: launched before refusing"));
    }
    match got {
        Err(Error::BadArgument { arg: a, .. } | Error::LengthMismatch { arg: a, .. }) if a == arg => Ok(()),
        other => Err(format!("{what}: expected an error naming `{arg}`, got {other:?}")),
    }
}

fn bad_input(group: &DeviceGroup) -> Result<(), String> {
    let p = group.len();
    let (m, n, k) = (9, 10, 11);
    let g = ShardedGemm::new(m, n, k);
    let plan = g.plan(group).map_err(e)?;
    let a = ShardedMatrix::from_host(group, &vec![1f32; m * k], m, k, &plan.a).map_err(e)?;
    let b = ShardedMatrix::from_host(group, &vec![1f32; k * n], k, n, &plan.b).map_err(e)?;
    let mut c = ShardedMatrix::<f32>::alloc(group, m, n, &plan.c).map_err(e)?;
    refused("grid", "grid", || ShardedGemm::new(m, n, k).grid(p + 1, 1).plan(group))?;
    refused("k panels 0", "k_panels", || ShardedGemm::new(m, n, k).k_panels(0).plan(group))?;
    refused("k panels > k", "k_panels", || ShardedGemm::new(m, n, k).k_panels(k + 1).plan(group))?;
    refused("m 0", "m", || ShardedGemm::new(0, n, k).plan(group))?;
    // `b` where `a` goes: wrong shape, named.
    refused("a of b's shape", "a", || g.run(group, &b, &b, &mut c))?;
    // A layout of another plan.
    let other = ShardedGemm::new(m, n, k).grid(p, 1).k_panels(1).plan(group).map_err(e)?;
    if other.b != plan.b {
        let b1 = ShardedMatrix::from_host(group, &vec![1f32; k * n], k, n, &other.b).map_err(e)?;
        refused("b in another layout", "b", || g.run(group, &a, &b1, &mut c))?;
    }
    // Blocks of another group.
    let stranger = DeviceGroup::emulated(p).map_err(e)?;
    let a2 = ShardedMatrix::from_host(&stranger, &vec![1f32; m * k], m, k, &plan.a).map_err(e)?;
    refused("a of another group", "a", || g.run(group, &a2, &b, &mut c))?;
    refused("data length", "data", || ShardedMatrix::from_host(group, &[1f32; 3], m, k, &plan.a))?;
    let overlap = [BlockSpec { rows: Span { start: 0, len: 2 }, cols: Span { start: 0, len: 2 }, rank: 0 }; 2];
    refused("overlapping specs", "specs", || ShardedMatrix::<f32>::alloc(group, 2, 4, &overlap))?;
    refused("gap in specs", "specs", || ShardedMatrix::<f32>::alloc(group, 2, 4, &overlap[..1]))?;
    let far = [BlockSpec { rows: Span { start: 0, len: 1 }, cols: Span { start: 0, len: 1 }, rank: p }];
    refused("rank past the group", "specs", || ShardedMatrix::<f32>::alloc(group, 1, 1, &far))?;
    refused("emulated(0)", "n", || DeviceGroup::emulated(0))?;
    let mut bufs = (0..p).map(|d| group.context(d).alloc::<f32>(4)).collect::<Result<Vec<_>, _>>().map_err(e)?;
    refused("root", "root", || group.broadcast(p, &mut bufs))?;
    refused("one buffer short", "bufs", || group.broadcast(0, &mut bufs[..p - 1]))?;
    if p > 1 {
        bufs[1] = group.context(1).alloc::<f32>(5).map_err(e)?;
        refused("unequal lengths", "bufs", || group.broadcast(0, &mut bufs))?;
        bufs.swap(0, 1);
        refused("buffer of another rank", "bufs", || group.broadcast(0, &mut bufs))?;
    }
    let send = (0..p).map(|d| group.context(d).alloc::<f32>(3)).collect::<Result<Vec<_>, _>>().map_err(e)?;
    let mut recv = (0..p).map(|d| group.context(d).alloc::<f32>(3 * p + 1)).collect::<Result<Vec<_>, _>>().map_err(e)?;
    refused("all-gather recv", "recv", || group.all_gather(&send, &mut recv))?;
    refused("gather_to rank", "rank", || c.gather_to(group, p))?;
    let one = HostImage::new(3, 3, 1, vec![1; 9]).map_err(e)?;
    refused("gray of 1 channel", "images", || multi::process_batch(group, std::slice::from_ref(&one), BatchOp::Gray))?;
    refused("radius", "radius", || multi::process_batch(group, std::slice::from_ref(&one), BatchOp::Blur { radius: u32::MAX }))?;
    let mut none: Vec<HostImage> = Vec::new();
    refused("outputs missing", "outputs", || multi::process_batch_into(group, std::slice::from_ref(&one), &mut none, BatchOp::Blur { radius: 1 }))?;
    let mut wrong = vec![HostImage::new(3, 3, 3, vec![0; 27]).map_err(e)?];
    refused("outputs of another shape", "outputs", || multi::process_batch_into(group, std::slice::from_ref(&one), &mut wrong, BatchOp::Blur { radius: 1 }))?;
    if wrong[0].data().iter().any(|&b| b != 0) {
        return Err("a refused batch wrote its outputs".into());
    }
    Ok(())
}
