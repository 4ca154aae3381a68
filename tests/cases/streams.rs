//! Streams, events and pinned memory (issue 17, part 1): work split over
//! several streams of one context checked against the CPU references,
//! buffers crossing streams with no host synchronisation in between
//! (write → read, read → write, free while another stream reads),
//! asynchronous copies through pinned memory, events, typed refusals; and,
//! on the GPU only, two streams overlapping a copy with a computation
//! (`streams::gpu_overlap_copy_with_compute`, run it alone with
//! `cargo test --release --test kernels -- --exact cuda::streams::gpu_overlap_copy_with_compute`).
//!
//! The cases use the shared test context: creating its first stream turns
//! on the per-buffer ordering for every case that runs after (on the GPU,
//! the rest of the suite then runs with the events on, which is meant).
//! On the emulator streams run synchronously, so these check the API and
//! the results; the ordering itself is exercised on the GPU.

use std::time::Duration;

use ferrotile::gemm::Gemm;
use ferrotile::image::{self, cpu, DeviceImage, HostImage};
use ferrotile::reference::{self, GemmShape};
use ferrotile::transpose::Transpose;
use ferrotile::{Backend, Buffer, Context, Error};

use crate::common::*;

fn s<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// One batch of mixed work on one stream handle, checked: a GEMM with the
/// weights `w` shared by every stream (read concurrently), a transpose, a
/// blur and a vec_add, all enqueued before anything is downloaded.
struct Batch {
    a: Vec<f32>,
    c: Buffer<f32>,
    t_in: Vec<f32>,
    t: Buffer<f32>,
    img: HostImage,
    blurred: DeviceImage,
    sum: Buffer<f32>,
    sum_want: Vec<f32>,
}

const M: usize = 33;
const N: usize = 31;
const K: usize = 7;

fn enqueue(on: &Context, w: &Buffer<f32>, i: usize) -> Result<Batch, String> {
    let mut r = Rng::new(seed("streams::batch") ^ i as u64);
    let a = r.f32s(M * K);
    let da = on.upload(&a).map_err(s)?;
    let mut c = on.alloc::<f32>(M * N).map_err(s)?;
    on.copy_from_host(&vec![f32::NAN; M * N], &mut c).map_err(s)?;
    Gemm::new(M, N, K).run(on, &da, w, &mut c).map_err(s)?;
    let (nx, ny) = (17 + i, 5);
    let t_in = r.f32s(nx * ny);
    let dt = on.upload(&t_in).map_err(s)?;
    let mut t = on.alloc::<f32>(nx * ny).map_err(s)?;
    Transpose::new(nx, ny).run(on, &dt, &mut t).map_err(s)?;
    let img = HostImage::new(29 + i, 13, 3, r.u8s((29 + i) * 13 * 3)).map_err(s)?;
    let src = DeviceImage::upload(on, &img).map_err(s)?;
    let mut blurred = DeviceImage::alloc(on, img.width(), img.height(), 3).map_err(s)?;
    image::blur(on, &src, &mut blurred, 2).map_err(s)?;
    let (x, y) = (r.f32s(101), r.f32s(101));
    let (dx, dy) = (on.upload(&x).map_err(s)?, on.upload(&y).map_err(s)?);
    let mut sum = on.alloc::<f32>(101).map_err(s)?;
    ferrotile::vec_add(on, &dx, &dy, &mut sum).map_err(s)?;
    // The inputs are dropped here, with their work possibly pending: the
    // frees wait for it.
    Ok(Batch { a, c, t_in, t, img, blurred, sum, sum_want: reference::vec_add(&x, &y) })
}

fn check(on: &Context, b: &Batch, w: &[f32], i: usize) -> Result<(), String> {
    let shape = GemmShape { m: M, n: N, k: K, lda: K, ldb: N, ldc: N };
    let want = reference::sgemm_f64(shape, 1.0, &b.a, w, 0.0, &vec![0.0; M * N]);
    close(&format!("batch {i}: gemm"), &on.download(&b.c).map_err(s)?, &want, 1e-5)?;
    exact_f32(&format!("batch {i}: transpose"), &on.download(&b.t).map_err(s)?, &reference::transpose(&b.t_in, 17 + i, 5))?;
    exact(&format!("batch {i}: blur"), &on.download(b.blurred.data()).map_err(s)?, cpu::blur(&b.img, 2).data())?;
    exact_f32(&format!("batch {i}: vec_add"), &on.download(&b.sum).map_err(s)?, &b.sum_want)
}

/// Work split over 2, 3 and 4 streams, shared weights uploaded on the
/// default stream, everything enqueued before the first download.
fn multi_stream_results(ctx: &Context) -> Result<(), String> {
    let w = Rng::new(seed("streams::weights")).f32s(K * N);
    let dw = up(ctx, &w)?; // default stream; read by every stream below
    for streams in 2..=4 {
        let ss: Vec<_> = (0..streams).map(|_| ctx.new_stream()).collect::<Result<_, _>>().map_err(s)?;
        let ons: Vec<Context> = ss.iter().map(|st| ctx.on(st)).collect::<Result<_, _>>().map_err(s)?;
        let batches: Vec<Batch> = (0..2 * streams).map(|i| enqueue(&ons[i % streams], &dw, i)).collect::<Result<_, _>>()?;
        // Checked on another stream than the one that computed each batch
        // (the downloads wait for the writes through the buffers' events).
        for (i, b) in batches.iter().enumerate() {
            check(&ons[(i + 1) % streams], b, &w, i)?;
        }
    }
    Ok(())
}

/// A chain of writes on one stream read on another, a read on one stream
/// followed by a write on another, and a buffer freed while another
/// stream still reads it: no host synchronisation anywhere.
fn cross_stream_ordering(ctx: &Context) -> Result<(), String> {
    let (s1, s2) = (ctx.new_stream().map_err(s)?, ctx.new_stream().map_err(s)?);
    let (on1, on2) = (ctx.on(&s1).map_err(s)?, ctx.on(&s2).map_err(s)?);
    let n = if ctx.backend() == Backend::Cuda { 1 << 22 } else { 4099 };
    let ones = on1.upload(&vec![1.0f32; n]).map_err(s)?;
    // Write after write after …: 40 additions on s1, ping-ponging.
    let mut x = on1.alloc::<f32>(n).map_err(s)?;
    let mut y = on1.alloc::<f32>(n).map_err(s)?;
    for _ in 0..20 {
        ferrotile::vec_add(&on1, &x, &ones, &mut y).map_err(s)?;
        ferrotile::vec_add(&on1, &y, &ones, &mut x).map_err(s)?;
    }
    // Read on s2 right away: waits for the 40 writes.
    let mut z = on2.alloc::<f32>(n).map_err(s)?;
    on2.copy(&x, &mut z).map_err(s)?;
    exact_f32("read on s2 after 40 writes on s1", &on2.download(&z).map_err(s)?, &vec![40.0; n])?;
    // Write after read: a long read of `x` on s1, then `x` overwritten on
    // s2 at once; the read must see the old values.
    let mut acc = on1.alloc::<f32>(n).map_err(s)?;
    for _ in 0..10 {
        ferrotile::vec_add(&on1, &x, &ones, &mut acc).map_err(s)?;
    }
    on2.copy_from_host(&vec![-5.0f32; n], &mut x).map_err(s)?;
    exact_f32("read on s1 before the write on s2", &on1.download(&acc).map_err(s)?, &vec![41.0; n])?;
    exact_f32("the write on s2", &on2.download(&x).map_err(s)?, &vec![-5.0; n])?;
    // Freed while read: `src` is read on s2 and dropped at once; s1 then
    // allocates and scribbles (the stream-ordered allocator may hand out
    // the same memory), which must not reach s2's result.
    let mut out = on2.alloc::<f32>(n).map_err(s)?;
    {
        let src = on1.upload(&vec![3.0f32; n]).map_err(s)?;
        for _ in 0..5 {
            ferrotile::vec_add(&on2, &src, &ones, &mut out).map_err(s)?;
        }
    }
    for _ in 0..4 {
        let mut scratch = on1.alloc::<f32>(n).map_err(s)?;
        on1.copy_from_host(&vec![f32::NAN; n], &mut scratch).map_err(s)?;
    }
    exact_f32("read of a buffer freed meanwhile", &on2.download(&out).map_err(s)?, &vec![4.0; n])?;
    // Buffer methods (the default stream) see the streams' writes too.
    exact_f32("download on the default stream", &down(&out)?, &vec![4.0; n])
}

/// Pinned memory: an upload, a kernel and a download, all asynchronous on
/// one stream, observed through an event; a second stream reusing the
/// pinned input while the first copy may still be running.
fn pinned_async_copies(ctx: &Context) -> Result<(), String> {
    let st = ctx.new_stream().map_err(s)?;
    let on = ctx.on(&st).map_err(s)?;
    for n in [1usize, 7, 33, 4097] {
        let data = Rng::new(seed("streams::pinned") ^ n as u64).f32s(n);
        let mut pin_in = on.alloc_pinned::<f32>(n).map_err(s)?;
        if pin_in.as_slice().map_err(s)?.iter().any(|&v| v != 0.0) {
            return Err("pinned memory not zero-filled".into());
        }
        pin_in.as_mut_slice().map_err(s)?.copy_from_slice(&data);
        let mut pin_out = on.alloc_pinned::<f32>(n).map_err(s)?;
        pin_out.as_mut_slice().map_err(s)?.fill(f32::NAN);
        let mut d_in = on.alloc::<f32>(n).map_err(s)?;
        let mut d_out = on.alloc::<f32>(n).map_err(s)?;
        on.upload_async(&pin_in, &mut d_in).map_err(s)?;
        ferrotile::vec_add(&on, &d_in, &d_in, &mut d_out).map_err(s)?;
        on.download_async(&d_out, &mut pin_out).map_err(s)?;
        // The same pinned input, uploaded again on the default stream.
        let mut d_again = ctx.alloc::<f32>(n).map_err(s)?;
        ctx.upload_async(&pin_in, &mut d_again).map_err(s)?;
        let done = on.record_event().map_err(s)?;
        done.synchronize().map_err(s)?;
        if !done.is_complete().map_err(s)? {
            return Err("an event reports pending work after its synchronize".into());
        }
        let want: Vec<f32> = data.iter().map(|v| v + v).collect();
        exact_f32(&format!("{n}: upload → add → download, pinned"), pin_out.as_slice().map_err(s)?, &want)?;
        exact_f32(&format!("{n}: the pinned input, uploaded twice"), &down(&d_again)?, &data)?;
        // Wrong lengths are refused by name, nothing enqueued.
        let mut short = on.alloc::<f32>(n + 1).map_err(s)?;
        match on.upload_async(&pin_in, &mut short) {
            Err(Error::LengthMismatch { arg: "src", .. }) => {}
            other => return Err(format!("upload_async of another length: {other:?}")),
        }
        match on.download_async(&short, &mut pin_out) {
            Err(Error::LengthMismatch { arg: "dst", .. }) => {}
            other => return Err(format!("download_async of another length: {other:?}")),
        }
    }
    Ok(())
}

/// Events: ordering a stream after another's event, timing, and the typed
/// refusals of another context's stream, event and pinned buffer.
fn events_and_refusals(ctx: &Context) -> Result<(), String> {
    let (s1, s2) = (ctx.new_stream().map_err(s)?, ctx.new_stream().map_err(s)?);
    let (on1, on2) = (ctx.on(&s1).map_err(s)?, ctx.on(&s2).map_err(s)?);
    if !on1.same_as(ctx) || !on2.same_as(&on1) {
        return Err("a stream handle is not the same context".into());
    }
    let start = on1.record_event().map_err(s)?;
    let n = 1 << 12;
    let a = on1.upload(&Rng::new(seed("streams::events")).f32s(n)).map_err(s)?;
    let mut b = on1.alloc::<f32>(n).map_err(s)?;
    for _ in 0..8 {
        ferrotile::vec_add(&on1, &a, &a, &mut b).map_err(s)?;
    }
    let end = on1.record_event().map_err(s)?;
    on2.wait_event(&end).map_err(s)?;
    let t = start.elapsed(&end).map_err(s)?;
    if t > Duration::from_secs(60) {
        return Err(format!("elapsed {t:?}"));
    }
    // s2 waited for `end`, so its own event completes after it.
    let after = on2.record_event().map_err(s)?;
    after.synchronize().map_err(s)?;
    if !end.is_complete().map_err(s)? {
        return Err("s2's event completed before the event it waited for".into());
    }
    s1.synchronize().map_err(s)?;
    s2.synchronize().map_err(s)?;
    on2.synchronize().map_err(s)?;
    if (ctx.backend() == Backend::Cuda) != s1.cudarc_stream().is_some() || on1.cudarc_stream().map(|c| c.cu_stream()) != s1.cudarc_stream().map(|c| c.cu_stream()) {
        return Err("a handle's cudarc stream is not its stream's".into());
    }
    // Another context's stream, event and pinned buffer are refused.
    let other = Context::emulator();
    let foreign = other.new_stream().map_err(s)?;
    match ctx.on(&foreign) {
        Err(Error::BadArgument { arg: "stream", .. }) => {}
        other => return Err(format!("on(another context's stream): {:?}", other.map(|_| ()))),
    }
    let fe = other.record_event().map_err(s)?;
    match ctx.wait_event(&fe) {
        Err(Error::BadArgument { arg: "event", .. }) => {}
        other => return Err(format!("wait_event(another context's event): {other:?}")),
    }
    match start.elapsed(&fe) {
        Err(Error::BadArgument { arg: "end", .. }) => {}
        other => return Err(format!("elapsed against another context's event: {other:?}")),
    }
    let fp = other.alloc_pinned::<f32>(n).map_err(s)?;
    match on1.upload_async(&fp, &mut b) {
        Err(Error::BadArgument { arg: "src", .. }) => Ok(()),
        other => Err(format!("upload_async from another context's pinned buffer: {other:?}")),
    }
}

/// GPU: a pipeline of batches (pinned upload → GEMM → pinned download)
/// on one stream, then spread over three, results checked; the overlapped
/// run must not be slower than the serial one beyond noise (5 %). The
/// speedup itself is measured by `benches/stream_overlap.rs`.
fn gpu_overlap(ctx: &Context) -> Result<(), String> {
    let n = 2048;
    let batches = 6;
    let w = Rng::new(seed("streams::overlap::w")).f32s(n * n);
    let dw = up(ctx, &w)?;
    let mut pin_in = Vec::new();
    let mut pin_out = Vec::new();
    let mut dev_a = Vec::new();
    let mut dev_c = Vec::new();
    for i in 0..batches {
        let mut p = ctx.alloc_pinned::<f32>(n * n).map_err(s)?;
        p.as_mut_slice().map_err(s)?.copy_from_slice(&Rng::new(seed("streams::overlap::a") ^ i as u64).f32s(n * n));
        pin_in.push(p);
        pin_out.push(ctx.alloc_pinned::<f32>(n * n).map_err(s)?);
        dev_a.push(ctx.alloc::<f32>(n * n).map_err(s)?);
        dev_c.push(ctx.alloc::<f32>(n * n).map_err(s)?);
    }
    let streams: Vec<_> = (0..3).map(|_| ctx.new_stream()).collect::<Result<_, _>>().map_err(s)?;
    let ons: Vec<Context> = streams.iter().map(|st| ctx.on(st)).collect::<Result<_, _>>().map_err(s)?;
    let g = Gemm::new(n, n, n);
    let mut run = |lanes: usize| -> Result<Duration, String> {
        ctx.synchronize().map_err(s)?;
        let start = ctx.record_event().map_err(s)?;
        for on in &ons[..lanes] {
            on.wait_event(&start).map_err(s)?;
        }
        for i in 0..batches {
            let on = &ons[i % lanes];
            on.upload_async(&pin_in[i], &mut dev_a[i]).map_err(s)?;
            g.run(on, &dev_a[i], &dw, &mut dev_c[i]).map_err(s)?;
            on.download_async(&dev_c[i], &mut pin_out[i]).map_err(s)?;
        }
        for on in &ons[..lanes] {
            ctx.wait_event(&on.record_event().map_err(s)?).map_err(s)?;
        }
        let end = ctx.record_event().map_err(s)?;
        start.elapsed(&end).map_err(s)
    };
    run(3)?; // warm-up (kernel loading, the allocator's pools)
    let serial = (0..3).map(|_| run(1)).collect::<Result<Vec<_>, _>>()?.into_iter().min().unwrap_or_default();
    let overlapped = (0..3).map(|_| run(3)).collect::<Result<Vec<_>, _>>()?.into_iter().min().unwrap_or_default();
    // The last run's results, against a CPU reference on a few rows.
    for i in [0, batches - 1] {
        let a = pin_in[i].as_slice().map_err(s)?;
        let got = pin_out[i].as_slice().map_err(s)?;
        let rows = 3;
        let shape = GemmShape { m: rows, n, k: n, lda: n, ldb: n, ldc: n };
        let want = reference::sgemm_f64(shape, 1.0, &a[..rows * n], &w, 0.0, &vec![0.0; rows * n]);
        close(&format!("overlap batch {i}"), &got[..rows * n], &want, 1e-5)?;
    }
    eprintln!("streams overlap: {batches} batches of {n}³ SGEMM + 2 × {} MiB copies: serial {serial:?}, 3 streams {overlapped:?}", (n * n * 4) >> 20);
    if overlapped.as_secs_f64() <= serial.as_secs_f64() * 1.05 {
        Ok(())
    } else {
        Err(format!("overlapped slower than serial: serial {serial:?}, 3 streams {overlapped:?}"))
    }
}

/// The families the batches above do not cover, each on a stream handle
/// and read back on another: grayscale, the volume affine map, the bias +
/// activation epilogue.
fn other_families_on_streams(ctx: &Context) -> Result<(), String> {
    let (s1, s2) = (ctx.new_stream().map_err(s)?, ctx.new_stream().map_err(s)?);
    let (on1, on2) = (ctx.on(&s1).map_err(s)?, ctx.on(&s2).map_err(s)?);
    let mut r = Rng::new(seed("streams::families"));
    let img = HostImage::new(37, 11, 3, r.u8s(37 * 11 * 3)).map_err(s)?;
    let src = DeviceImage::upload(&on1, &img).map_err(s)?;
    let mut gray = DeviceImage::alloc(&on1, 37, 11, 1).map_err(s)?;
    image::rgb_to_gray(&on1, &src, &mut gray).map_err(s)?;
    let dims = [3, 7, 33];
    let n = dims.iter().product::<usize>();
    let (x, sc, of) = (r.f32s(n), r.f32s(dims[0]), r.f32s(dims[0]));
    let (dx, dsc, dof) = (on2.upload(&x).map_err(s)?, on2.upload(&sc).map_err(s)?, on2.upload(&of).map_err(s)?);
    let mut vol = on2.alloc::<f32>(n).map_err(s)?;
    image::volume_affine(&on2, dims, &dx, &dsc, &dof, &mut vol).map_err(s)?;
    let (rows, cols) = (5, 31);
    let (m, bias) = (r.f32s(rows * cols), r.f32s(cols));
    let mut dm = on1.upload(&m).map_err(s)?;
    let db = on2.upload(&bias).map_err(s)?; // written on s2, read on s1
    ferrotile::gemm::bias_activation(&on1, &mut dm, &db, ferrotile::gemm::Activation::Relu, (rows, cols, cols)).map_err(s)?;
    let want: Vec<f32> = m.iter().enumerate().map(|(i, v)| (v + bias[i % cols]).max(0.0)).collect();
    exact("gray on s1, read on s2", &on2.download(gray.data()).map_err(s)?, cpu::rgb_to_gray(&img).data())?;
    exact_f32("volume_affine on s2, read on s1", &on1.download(&vol).map_err(s)?, &cpu::volume_affine(dims, &x, &sc, &of))?;
    exact_f32("bias + ReLU on s1, read on s2", &on2.download(&dm).map_err(s)?, &want)
}

pub fn cases() -> Vec<Case> {
    vec![
        Case::new("streams::multi_stream_results", multi_stream_results),
        Case::new("streams::cross_stream_ordering", cross_stream_ordering),
        Case::new("streams::pinned_async_copies", pinned_async_copies),
        Case::new("streams::events_and_refusals", events_and_refusals),
        Case::new("streams::other_families_on_streams", other_families_on_streams),
        Case::gpu_only("streams::gpu_overlap_copy_with_compute", gpu_overlap),
    ]
}
