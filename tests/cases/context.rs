//! Contexts and buffers: every context has an identity, a buffer is usable
//! only on the context that allocated it (issue 11, items 3 and 4), and an
//! allocation that cannot be satisfied is `Error::OutOfMemory` on both
//! backends, after which the context keeps working (item 8).

use ferrotile::cublas::Cublas;
use ferrotile::gemm::Gemm;
use ferrotile::transpose::Transpose;
use ferrotile::{Backend, Buffer, Context, Error};

use crate::common::*;

/// Another context of the same kind as `ctx`: a second CUDA context on the
/// same device, or a second emulator.
fn another(ctx: &Context) -> Result<Context, String> {
    match ctx.backend() {
        Backend::Cuda => Context::cuda(0).map_err(|e| e.to_string()),
        Backend::Emulator => Ok(Context::emulator()),
    }
}

/// `got` must be `BadArgument` naming `arg`.
fn refused(what: &str, got: ferrotile::Result<()>, arg: &str) -> Result<(), String> {
    match got {
        Err(Error::BadArgument { arg: a, .. }) if a == arg => Ok(()),
        other => Err(format!("{what}: expected BadArgument {{ arg: {arg:?} }}, got {other:?}")),
    }
}

/// Every public launching function refuses a buffer of `other` on `ctx`,
/// naming the argument, and writes nothing.
fn refuses_buffers_of(ctx: &Context, other: &Context) -> Result<(), String> {
    let n = 64;
    let mut r = Rng::new(seed("context"));
    let data = r.f32s(n);
    let (a, b) = (up(ctx, &data)?, up(ctx, &data)?);
    let foreign = up(other, &data)?;
    let mut c = poisoned(ctx, n, 7.0f32)?;
    let mut foreign_out = poisoned(other, n, 7.0f32)?;

    refused("vec_add a", ferrotile::vec_add(ctx, &foreign, &b, &mut c), "a")?;
    refused("vec_add b", ferrotile::vec_add(ctx, &a, &foreign, &mut c), "b")?;
    refused("vec_add c", ferrotile::vec_add(ctx, &a, &b, &mut foreign_out), "c")?;
    let g = Gemm::new(8, 8, 8);
    refused("gemm a", g.run(ctx, &foreign, &b, &mut c), "a")?;
    refused("gemm b", g.run(ctx, &a, &foreign, &mut c), "b")?;
    refused("gemm c", g.run(ctx, &a, &b, &mut foreign_out), "c")?;
    let t = Transpose::new(8, 8);
    refused("transpose input", t.run(ctx, &foreign, &mut c), "input")?;
    refused("transpose output", t.run(ctx, &a, &mut foreign_out), "output")?;
    let mut c2: Buffer<f32> = poisoned(ctx, n, 7.0f32)?;
    refused("copy_from_buffer", c2.copy_from_buffer(&foreign), "src")?;

    exact_f32("c untouched", &down(&c)?, &[7.0; 64])?;
    exact_f32("c2 untouched", &down(&c2)?, &[7.0; 64])?;
    exact_f32("foreign output untouched", &down(&foreign_out)?, &[7.0; 64])
}

/// A buffer of a second context of the same kind is refused.
fn same_kind(ctx: &Context) -> Result<(), String> {
    let other = another(ctx)?;
    if other.same_as(ctx) || !ctx.same_as(ctx) {
        return Err("two contexts compare as the same context".into());
    }
    refuses_buffers_of(ctx, &other)
}

/// CUDA only: emulator buffers on a CUDA context, CUDA buffers on the
/// emulator, and a cuBLAS handle of one context used with another.
fn across_backends(ctx: &Context) -> Result<(), String> {
    if ctx.backend() != Backend::Cuda {
        return Ok(());
    }
    let emu = Context::emulator();
    refuses_buffers_of(ctx, &emu)?;
    refuses_buffers_of(&emu, ctx)?;
    let blas = match Cublas::new(ctx) {
        Err(Error::LibraryMissing { .. }) => return Ok(()),
        other => other.map_err(|e| e.to_string())?,
    };
    let g = Gemm::new(8, 8, 8);
    let data = vec![0.5f32; 64];
    // Emulator buffers checked against the emulator context: before the
    // fix these host pointers reached cuBLAS.
    let (ea, eb) = (up(&emu, &data)?, up(&emu, &data)?);
    let mut ec = poisoned(&emu, 64, 7.0f32)?;
    refused("cuBLAS on the emulator's context", blas.sgemm(&emu, &g, &ea, &eb, &mut ec), "ctx")?;
    // Another CUDA context's buffers, checked against that context.
    let other = another(ctx)?;
    let (oa, ob) = (up(&other, &data)?, up(&other, &data)?);
    let mut oc = poisoned(&other, 64, 7.0f32)?;
    refused("cuBLAS on another CUDA context", blas.sgemm(&other, &g, &oa, &ob, &mut oc), "ctx")?;
    exact_f32("emulator c untouched", &down(&ec)?, &[7.0; 64])?;
    exact_f32("other c untouched", &down(&oc)?, &[7.0; 64])
}

/// 1 TiB cannot be allocated on either backend: `OutOfMemory`, no abort,
/// and the context works afterwards.
fn out_of_memory(ctx: &Context) -> Result<(), String> {
    let tib = 1usize << 40;
    match ctx.alloc::<f32>(tib / 4) {
        Err(Error::OutOfMemory { bytes }) if bytes == tib => {}
        other => return Err(format!("alloc of 1 TiB: {other:?}")),
    }
    match ctx.alloc::<f32>(usize::MAX / 2) {
        Err(Error::OutOfMemory { .. }) => {}
        other => return Err(format!("alloc of usize::MAX / 2 floats: {other:?}")),
    }
    let data = Rng::new(seed("oom")).f32s(1000);
    let (a, b) = (up(ctx, &data)?, up(ctx, &data)?);
    let mut c = poisoned(ctx, 1000, f32::NAN)?;
    ferrotile::vec_add(ctx, &a, &b, &mut c).map_err(|e| e.to_string())?;
    let want: Vec<f32> = data.iter().map(|x| x + x).collect();
    exact_f32("vec_add after OutOfMemory", &down(&c)?, &want)
}

/// Freed device memory stays in the device's pool (the next allocation
/// maps nothing) until `release_cached_memory` hands it back: the driver's
/// free-memory count falls by what was allocated and stays down after the
/// buffer is dropped, then rises again. Margins of gigabytes keep the
/// other tests' allocations (running in parallel) out of the verdict.
fn freed_memory_is_kept_until_released(ctx: &Context) -> Result<(), String> {
    let cu = ctx.cudarc_context().ok_or("a CUDA context")?;
    cu.bind_to_thread().map_err(|e| e.to_string())?;
    let free = || ferrotile::cudarc::driver::result::mem_get_info().map(|(f, _)| f as i64).map_err(|e| e.to_string());
    const GIB: i64 = 1 << 30;
    let before = free()?;
    let big = ctx.alloc::<u8>(4 * GIB as usize).map_err(|e| e.to_string())?;
    ctx.synchronize().map_err(|e| e.to_string())?;
    drop(big);
    ctx.synchronize().map_err(|e| e.to_string())?;
    let kept = free()?;
    if before - kept < 3 * GIB {
        return Err(format!("free memory {before} before the 4 GiB buffer, {kept} after dropping it: not kept in the pool"));
    }
    ctx.release_cached_memory().map_err(|e| e.to_string())?;
    let released = free()?;
    if released - kept < 3 * GIB {
        return Err(format!("free memory {kept} with the pool holding 4 GiB, {released} after release_cached_memory"));
    }
    Ok(())
}

pub fn cases() -> Vec<Case> {
    vec![
        Case::gpu_only("context::freed_memory_is_kept_until_released", freed_memory_is_kept_until_released),
        Case::new("context::buffers_of_another_context_are_refused", same_kind),
        Case::gpu_only("context::buffers_across_backends_and_cublas_handles", across_backends),
        Case::new("context::out_of_memory_is_an_error_and_recoverable", out_of_memory),
    ]
}
