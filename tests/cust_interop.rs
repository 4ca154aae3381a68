//! Interop with the `cust` crate (feature `cust`), on the GPU: `cust`
//! device buffers viewed as ferrotile buffers without a copy, a ferrotile
//! buffer read through its `cust` pointer, and the ordering of a `cust`
//! stream against ferrotile's stream in both directions (events, no host
//! synchronisation).
//!
//! The `cust` crate links libcuda when this binary is built (CI builds it
//! against `cargo xtask cuda-stub`) and needs the driver to start: the
//! binary runs on a GPU machine only. Without a CUDA device the trials are
//! reported ignored (a failure with `FERROTILE_REQUIRE_GPU=1`).
//!
//! The ordering checks can fail: before each handover the producing stream
//! has a long operation in flight, so a missing wait shows as poison (NaN)
//! in the result or as the result of the wrong moment.

use ferrotile::cust::memory::{AsyncCopyDestination, DeviceBuffer, DeviceSlice};
use ferrotile::cust::stream::{Stream as CustStream, StreamFlags};
use ferrotile::gemm::Gemm;
use ferrotile::reference::{self, GemmShape};
use ferrotile::testing::Rng;
use ferrotile::{vec_add, Buffer, Context, Error};
use libtest_mimic::{Arguments, Failed, Trial};

#[path = "common/gpu.rs"]
mod gpu;

/// NaN with a payload: what the output holds before the product.
const POISON: u32 = 0x7fc0_dead;
/// Elements of the long operations that keep a stream busy at a handover
/// (256 MiB of f32; before the poison, `cust` sets 1 GiB eight times).
const LONG: usize = 1 << 26;

fn cust_err(what: &'static str) -> impl Fn(ferrotile::cust::error::CudaError) -> Failed {
    move |e| format!("cust: {what}: {e}").into()
}

/// A GEMM of odd shape on three `cust` buffers; the output is poisoned on
/// the `cust` stream behind a long memset, so the GEMM must wait for it.
fn gemm_on_cust_buffers() -> Result<(), Failed> {
    let _cust = ferrotile::cust::quick_init().map_err(cust_err("init"))?;
    let ctx = Context::cuda(0)?;
    let stream = CustStream::new(StreamFlags::NON_BLOCKING, None).map_err(cust_err("stream"))?;
    let (m, n, k) = (129, 67, 33);
    let mut rng = Rng::new(17);
    let (a, b) = (rng.f32s(m * k), rng.f32s(k * n));
    let want = reference::sgemm_f64(GemmShape { m, n, k, lda: k, ldb: n, ldc: n }, 1.0, &a, &b, 0.0, &vec![0.0; m * n]);
    let da = DeviceBuffer::from_slice(&a).map_err(cust_err("upload a"))?;
    let db = DeviceBuffer::from_slice(&b).map_err(cust_err("upload b"))?;
    let mut dc = DeviceBuffer::<f32>::zeroed(m * n).map_err(cust_err("alloc c"))?;
    // The GEMM once on ferrotile's own buffers first: loading its module
    // takes longer than the memsets below.
    let mut warm = ctx.alloc::<f32>(m * n)?;
    Gemm::new(m, n, k).run(&ctx, &ctx.upload(&a)?, &ctx.upload(&b)?, &mut warm)?;
    ctx.synchronize()?;
    let mut busy = DeviceBuffer::<f32>::zeroed(4 * LONG).map_err(cust_err("alloc"))?;
    // SAFETY: both buffers live until the stream is synchronised below.
    unsafe {
        for _ in 0..8 {
            busy.set_32_async(1, &stream).map_err(cust_err("long memset"))?;
        }
        dc.set_32_async(POISON, &stream).map_err(cust_err("poison"))?;
    }
    ctx.wait_for_cust(&stream)?;
    {
        // SAFETY: the cust buffers outlive the views and ferrotile's work
        // (the stream synchronisation below comes after `make_cust_wait`);
        // the poison is ordered before the GEMM by `wait_for_cust`.
        let (va, vb, mut vc) = unsafe { (Buffer::from_cust(&ctx, &da)?, Buffer::from_cust(&ctx, &db)?, Buffer::from_cust(&ctx, &dc)?) };
        Gemm::new(m, n, k).run(&ctx, &va, &vb, &mut vc)?;
    }
    ctx.make_cust_wait(&stream)?;
    let mut got = vec![0.0f32; m * n];
    // SAFETY: `got` and `dc` live until the synchronisation just after.
    unsafe { dc.async_copy_to(&mut got[..], &stream).map_err(cust_err("download"))? };
    stream.synchronize().map_err(cust_err("synchronize"))?;
    let err = reference::rel_norm_error(&got, &want);
    if !(err <= 1e-5) {
        return Err(format!("GEMM on cust buffers: relative error {err:.1e} (poison left: {})", got.iter().any(|v| v.is_nan())).into());
    }
    Ok(())
}

/// A ferrotile buffer read through its `cust` pointer on a `cust` stream
/// that waits for ferrotile's write.
fn cust_reads_a_ferrotile_buffer() -> Result<(), Failed> {
    let _cust = ferrotile::cust::quick_init().map_err(cust_err("init"))?;
    let ctx = Context::cuda(0)?;
    let stream = CustStream::new(StreamFlags::NON_BLOCKING, None).map_err(cust_err("stream"))?;
    let mut rng = Rng::new(5);
    let (a, b) = (rng.f32s(LONG), rng.f32s(LONG));
    let (da, db) = (ctx.upload(&a)?, ctx.upload(&b)?);
    let mut dc = ctx.alloc::<f32>(LONG)?;
    ctx.synchronize()?;
    vec_add(&ctx, &da, &db, &mut dc)?;
    ctx.make_cust_wait(&stream)?;
    let ptr = dc.cust_device_pointer().ok_or("a CUDA buffer has no cust pointer")?;
    let tail = 1001;
    // SAFETY: `dc` outlives the slice and the copy (synchronised below).
    let view = unsafe { DeviceSlice::from_raw_parts(ptr.add(LONG - tail), tail) };
    let mut got = vec![0.0f32; tail];
    // SAFETY: as above; `got` lives past the synchronisation.
    unsafe { view.async_copy_to(&mut got[..], &stream).map_err(cust_err("download"))? };
    stream.synchronize().map_err(cust_err("synchronize"))?;
    let want: Vec<f32> = (LONG - tail..LONG).map(|i| a[i] + b[i]).collect();
    if got != want {
        return Err("the cust stream read the buffer before ferrotile's write (or a wrong address)".into());
    }
    Ok(())
}

/// Typed errors, nothing launched: an emulator context cannot view or
/// order against `cust` memory and streams.
fn emulator_context_is_refused() -> Result<(), Failed> {
    let _cust = ferrotile::cust::quick_init().map_err(cust_err("init"))?;
    let emu = Context::emulator();
    let stream = CustStream::new(StreamFlags::NON_BLOCKING, None).map_err(cust_err("stream"))?;
    let d = DeviceBuffer::from_slice(&[1.0f32, 2.0]).map_err(cust_err("upload"))?;
    // SAFETY: refused before any use of the memory.
    match unsafe { Buffer::from_cust(&emu, &d) } {
        Err(Error::BadArgument { arg: "ctx", .. }) => {}
        other => return Err(format!("from_cust on the emulator: expected BadArgument naming ctx, got {other:?}").into()),
    }
    for (what, r) in [("wait_for_cust", emu.wait_for_cust(&stream)), ("make_cust_wait", emu.make_cust_wait(&stream))] {
        match r {
            Err(Error::BadArgument { arg: "self", .. }) => {}
            other => return Err(format!("{what} on the emulator: expected BadArgument naming self, got {other:?}").into()),
        }
    }
    if emu.upload(&[1.0f32])?.cust_device_pointer().is_some() {
        return Err("an emulator buffer has a cust pointer".into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let ignore = gpu::cuda_ignored("cust_interop", &Context::cuda(0));
    let trials = vec![
        Trial::test("cuda::cust::gemm_on_cust_buffers_ordered_both_ways", gemm_on_cust_buffers),
        Trial::test("cuda::cust::cust_reads_a_ferrotile_buffer_after_its_write", cust_reads_a_ferrotile_buffer),
        Trial::test("cuda::cust::emulator_context_is_refused", emulator_context_is_refused),
    ]
    .into_iter()
    .map(|t| t.with_ignored_flag(ignore))
    .collect();
    libtest_mimic::run(&args, trials).exit();
}
