//! Device faults: a kernel that traps. On a GPU that is a sticky error —
//! the CUDA context (the device's primary context, shared by every
//! `Context` of the device in this process) is unusable afterwards — so
//! these tests live in their own test binary, a process of their own, and
//! run one at a time in one trial each: the `cuda::` trial faults the GPU
//! on purpose, and nothing else in this process uses it afterwards.
//!
//! What is checked: the fault is reported as [`Error::DeviceFault`] (not a
//! generic driver error), the context remembers it ([`Context::fault`]),
//! the next launch is refused without reaching the driver, and every
//! later call is a typed error, never a panic or a hang. On the emulator
//! the same kernel is a typed [`Error::Emulator`] and the context stays
//! usable.
//!
//! Whether a CUDA device is present is decided at start-up, as in
//! `tests/kernels.rs`: without one the `cuda::` trial is reported ignored
//! (a failure with `FERROTILE_REQUIRE_GPU=1`).

use ferrotile::{probe, vec_add, Context, Error};
use libtest_mimic::{Arguments, Failed, Trial};

#[path = "common/gpu.rs"]
mod gpu;

/// The trap kernel without the trap: every lane writes its index.
fn clean_run(ctx: &Context) -> Result<(), Failed> {
    let got = probe::trap(ctx, false)?;
    let want: Vec<u32> = (0..32).collect();
    if got != want {
        return Err(format!("lanes wrote {got:?}").into());
    }
    Ok(())
}

/// A vector add that must either work (and be right) or fail with `ok_err`.
fn vec_add_after(ctx: &Context) -> Result<Vec<f32>, Error> {
    let a = ctx.upload(&[1.0f32, 2.0, 3.0])?;
    let b = ctx.upload(&[10.0f32, 20.0, 30.0])?;
    let mut c = ctx.alloc::<f32>(3)?;
    vec_add(ctx, &a, &b, &mut c)?;
    c.download()
}

fn emulator_trial() -> Result<(), Failed> {
    let ctx = Context::emulator();
    clean_run(&ctx)?;
    match probe::trap(&ctx, true) {
        Err(Error::Emulator { kernel, detail }) if kernel == "warp_probe_trap" && detail.contains("panicked") => {}
        other => return Err(format!("the emulator's trap: expected Error::Emulator naming the kernel, got {other:?}").into()),
    }
    if ctx.fault().is_some() {
        return Err("the emulator context reports a device fault".into());
    }
    // The emulator context stays usable.
    assert_eq!(vec_add_after(&ctx)?, vec![11.0, 22.0, 33.0]);
    clean_run(&ctx)
}

fn cuda_trial() -> Result<(), Failed> {
    let ctx = Context::cuda(0)?;
    clean_run(&ctx)?;
    let before = vec_add_after(&ctx)?;
    assert_eq!(before, vec![11.0, 22.0, 33.0]);
    // The fault: the launch itself is asynchronous, the download reports it.
    let first = probe::trap(&ctx, true);
    match &first {
        Err(Error::DeviceFault { .. }) => {}
        other => return Err(format!("the trap: expected Error::DeviceFault, got {other:?}").into()),
    }
    println!("trap reported as: {}", first.unwrap_err());
    let Some(fault) = ctx.fault() else { return Err("the context does not remember the fault".into()) };
    println!("Context::fault: {fault}");
    // The next launch is refused before the driver sees it.
    let launches = ctx.launch_count();
    let mut c = ctx.alloc::<f32>(3);
    println!("alloc after the fault: {c:?}");
    if let Ok(c) = &mut c {
        let a = ctx.upload(&[1.0f32; 3]);
        println!("upload after the fault: {:?}", a.as_ref().map(|_| "ok"));
        if let Ok(a) = &a {
            match vec_add(&ctx, a, a, c) {
                Err(Error::DeviceFault { op, .. }) => println!("vec_add after the fault: refused ({op})"),
                other => return Err(format!("vec_add after the fault: expected Error::DeviceFault, got {other:?}").into()),
            }
            if ctx.launch_count() != launches {
                return Err("a kernel was submitted to the faulted context".into());
            }
        }
    }
    // Waiting is a typed error too.
    match ctx.synchronize() {
        Err(Error::DeviceFault { .. }) => {}
        other => return Err(format!("synchronize after the fault: expected Error::DeviceFault, got {other:?}").into()),
    }
    // A new Context of the same device shares the faulted primary context:
    // it fails to open, or its first use reports the fault, typed either way.
    match Context::cuda(0) {
        Err(e) => println!("a new context of the device: {e}"),
        Ok(fresh) => match vec_add_after(&fresh) {
            Err(Error::DeviceFault { .. }) => println!("a new context of the device: its first use reports the fault"),
            Err(e) => println!("a new context of the device: first use fails with {e}"),
            Ok(v) => println!("a new context of the device works: {v:?}"),
        },
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let ignore = gpu::cuda_ignored("device_fault", &Context::cuda(0));
    let trials = vec![
        Trial::test("emulator::trapped_kernel_is_a_typed_error_and_the_context_survives", emulator_trial),
        Trial::test("cuda::trapped_kernel_is_a_sticky_device_fault", cuda_trial).with_ignored_flag(ignore),
    ];
    libtest_mimic::run(&args, trials).exit();
}
