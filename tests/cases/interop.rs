//! Zero-copy interop (issue 17, part 2): cudarc slices in and out of
//! buffers, raw device pointers, and the ordering against the
//! application's own stream. The CUDA cases are GPU-only; the emulator
//! case checks that every interop entry point refuses the emulator with a
//! typed error and loses nothing.

use ferrotile::cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr};
use ferrotile::transpose::Transpose;
use ferrotile::{reference, Backend, Buffer, Context, Error};
use std::sync::Arc;

use crate::common::*;

fn e(what: &str) -> impl Fn(ferrotile::cudarc::driver::DriverError) -> String + '_ {
    move |err| format!("{what}: {err}")
}

/// The application's side: its own cudarc context handle on device 0 and a
/// non-blocking stream of its own.
fn app_stream() -> Result<Arc<CudaStream>, String> {
    let app = CudaContext::new(0).map_err(e("CudaContext::new"))?;
    app.new_stream().map_err(e("new_stream"))
}

fn raw(slice: &CudaSlice<f32>, stream: &Arc<CudaStream>) -> u64 {
    slice.device_ptr(stream).0
}

/// On the emulator: typed refusals, and the refused buffer comes back whole.
fn emulator_refuses(ctx: &Context) -> Result<(), String> {
    if ctx.backend() != Backend::Emulator {
        return Ok(()); // the CUDA cases below
    }
    if ctx.cudarc_context().is_some() || ctx.cudarc_stream().is_some() {
        return Err("the emulator reports a cudarc context or stream".into());
    }
    let data = Rng::new(seed("interop::emulator")).f32s(33);
    let b = up(ctx, &data)?;
    if b.raw_device_ptr().is_some() {
        return Err("an emulator buffer reports a device pointer".into());
    }
    let b = match b.into_cudarc() {
        Ok(_) => return Err("into_cudarc gave a slice for an emulator buffer".into()),
        Err(b) => b,
    };
    exact("buffer refused by into_cudarc", &down(&b)?, &data)?;
    // SAFETY: refused before the pointer is used.
    match unsafe { Buffer::<f32>::from_raw_device_ptr(ctx, 0x1000, 4) } {
        Err(Error::BadArgument { arg: "ctx", .. }) => Ok(()),
        other => Err(format!("from_raw_device_ptr on the emulator: {other:?}")),
    }
}

/// Application slices in, a ferrotile kernel on them, the result out and
/// read on the application's stream with no host synchronisation of
/// ferrotile's context in between: the events order it.
fn cudarc_round_trip(ctx: &Context) -> Result<(), String> {
    let s = app_stream()?;
    let (nx, ny) = (1031, 517);
    let data = Rng::new(seed("interop::cudarc_round_trip")).f32s(nx * ny);
    let input = s.clone_htod(&data).map_err(e("clone_htod"))?;
    let mut poison = s.alloc_zeros::<f32>(nx * ny).map_err(e("alloc_zeros"))?;
    s.memcpy_htod(&vec![f32::NAN; nx * ny], &mut poison).map_err(e("memcpy_htod"))?;
    let input = Buffer::from_cudarc(ctx, input).map_err(|(err, _)| format!("from_cudarc(input): {err}"))?;
    let mut output = Buffer::from_cudarc(ctx, poison).map_err(|(err, _)| format!("from_cudarc(output): {err}"))?;
    Transpose::new(nx, ny).run(ctx, &input, &mut output).map_err(|e| e.to_string())?;
    let output = output.into_cudarc().map_err(|_| "into_cudarc refused a buffer it owns".to_string())?;
    if !Arc::ptr_eq(output.stream(), &s) {
        return Err("the slice came back on another stream than it went in on".into());
    }
    let got = s.clone_dtoh(&output).map_err(e("clone_dtoh"))?;
    exact("transpose through cudarc slices", &got, &reference::transpose(&data, nx, ny))?;
    // A buffer ferrotile allocated leaves as a slice on its context's stream.
    let mine = up(ctx, &data)?;
    let slice = mine.into_cudarc().map_err(|_| "into_cudarc refused".to_string())?;
    let stream = ctx.cudarc_stream().ok_or("no cudarc stream on CUDA")?;
    if !Arc::ptr_eq(slice.stream(), stream) {
        return Err("a ferrotile allocation left on another stream than the context's".into());
    }
    exact("ferrotile allocation as a slice", &stream.clone_dtoh(&slice).map_err(e("clone_dtoh"))?, &data)
}

/// Raw pointers: a view into the application's allocation (with an
/// offset), used by a kernel and dropped without freeing; misaligned,
/// too long and unknown pointers refused by name.
fn raw_pointers(ctx: &Context) -> Result<(), String> {
    let s = app_stream()?;
    let (nx, ny) = (67, 129);
    let n = nx * ny;
    let data = Rng::new(seed("interop::raw_pointers")).f32s(n + 5);
    let host = s.clone_htod(&data).map_err(e("clone_htod"))?;
    let out = s.clone_htod(&vec![f32::NAN; n]).map_err(e("clone_htod"))?;
    s.synchronize().map_err(e("synchronize"))?; // the contract: writes done first
    let (pin, pout) = (raw(&host, &s), raw(&out, &s));
    {
        // SAFETY: both allocations outlive the buffers and ctx.synchronize()
        // below; nothing else writes them meanwhile.
        let input = unsafe { Buffer::<f32>::from_raw_device_ptr(ctx, pin + 4 * 4, n) }.map_err(|e| e.to_string())?;
        let mut output = unsafe { Buffer::<f32>::from_raw_device_ptr(ctx, pout, n) }.map_err(|e| e.to_string())?;
        if input.raw_device_ptr() != Some(pin + 16) {
            return Err("raw_device_ptr is not the pointer given".into());
        }
        Transpose::new(nx, ny).run(ctx, &input, &mut output).map_err(|e| e.to_string())?;
    }
    ctx.synchronize().map_err(|e| e.to_string())?;
    // Still allocated (the views did not free it) and holding the result.
    let got = s.clone_dtoh(&out).map_err(e("clone_dtoh"))?;
    exact("transpose through raw pointers", &got, &reference::transpose(&data[4..4 + n], nx, ny))?;
    exact("input untouched", &s.clone_dtoh(&host).map_err(e("clone_dtoh"))?, &data)?;
    // SAFETY (all three): refused before the pointer is used.
    match unsafe { Buffer::<f32>::from_raw_device_ptr(ctx, pin + 2, 4) } {
        Err(Error::BadArgument { arg: "ptr", .. }) => {}
        other => return Err(format!("misaligned pointer: {other:?}")),
    }
    match unsafe { Buffer::<f32>::from_raw_device_ptr(ctx, pin + 4, 4) } {
        Err(Error::BadArgument { arg: "ptr", .. }) => {}
        other => return Err(format!("a pointer aligned for f32, not to 16 bytes: {other:?}")),
    }
    match unsafe { Buffer::<f32>::from_raw_device_ptr(ctx, pin + 16, n + 5) } {
        Err(Error::LengthMismatch { arg: "len", .. }) => {}
        other => return Err(format!("a length past the allocation: {other:?}")),
    }
    match unsafe { Buffer::<f32>::from_raw_device_ptr(ctx, 0x10, 1) } {
        Err(Error::BadArgument { arg: "ptr", .. }) => Ok(()),
        other => Err(format!("a pointer the driver does not know: {other:?}")),
    }
}

/// Views at 16-byte offsets into the application's allocations are used
/// as they are (the default transpose, exact, on aligned and odd sides,
/// nothing written outside the output view; on odd sides the offsets move
/// the output rows within their 128-byte lines);
/// a pointer aligned for `f32` but not to [`ferrotile::DEVICE_ALIGN`] is
/// refused naming `ptr` (the kernels' 16-byte accesses would fault on it).
fn aligned_views(ctx: &Context) -> Result<(), String> {
    let s = app_stream()?;
    for (nx, ny) in [(68, 132), (128, 128), (131, 193), (257, 64), (1001, 67)] {
        let n = nx * ny;
        let data = Rng::new(seed("interop::aligned_views") ^ n as u64).f32s(n + 8);
        let host = s.clone_htod(&data).map_err(e("clone_htod"))?;
        let pin = raw(&host, &s);
        for (a, b) in [(4, 0), (0, 4), (8, 4), (0, 28)] {
            let out = s.clone_htod(&vec![f32::NAN; n + 32]).map_err(e("clone_htod"))?;
            s.synchronize().map_err(e("synchronize"))?;
            let pout = raw(&out, &s);
            {
                // SAFETY: both allocations outlive the views and the
                // synchronize below; nothing else writes them meanwhile.
                let input = unsafe { Buffer::<f32>::from_raw_device_ptr(ctx, pin + 4 * a, n) }.map_err(|e| e.to_string())?;
                let mut output = unsafe { Buffer::<f32>::from_raw_device_ptr(ctx, pout + 4 * b, n) }.map_err(|e| e.to_string())?;
                Transpose::new(nx, ny).run(ctx, &input, &mut output).map_err(|e| e.to_string())?;
            }
            ctx.synchronize().map_err(|e| e.to_string())?;
            let got = s.clone_dtoh(&out).map_err(e("clone_dtoh"))?;
            exact(&format!("transpose {nx}x{ny}, input at +{a}, output at +{b}"), &got[b as usize..b as usize + n], &reference::transpose(&data[a as usize..a as usize + n], nx, ny))?;
            if got[..b as usize].iter().chain(&got[b as usize + n..]).any(|x| !x.is_nan()) {
                return Err(format!("transpose {nx}x{ny}, output at +{b}: written outside the view"));
            }
        }
        for a in [1u64, 2, 3, 5] {
            // SAFETY: refused before the pointer is used.
            match unsafe { Buffer::<f32>::from_raw_device_ptr(ctx, pin + 4 * a, n) } {
                Err(Error::BadArgument { arg: "ptr", .. }) => {}
                other => return Err(format!("a view {a} elements in: {other:?}")),
            }
        }
    }
    Ok(())
}

pub fn cases() -> Vec<Case> {
    vec![
        Case::new("interop::emulator_refuses_interop", emulator_refuses),
        Case::gpu_only("interop::cudarc_slices_in_and_out", cudarc_round_trip),
        Case::gpu_only("interop::raw_device_pointers", raw_pointers),
        Case::gpu_only("interop::aligned_views_transpose", aligned_views),
    ]
}
