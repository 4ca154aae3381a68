//! Each detector catches a planted bug; correct kernels pass.

use super::test_util::{fault, global};
use super::{launch, Dim3, EmuError, LaunchSpec};
use crate::arch::*;
use crate::kernel;
use std::vec;

fn spec(kernel: &'static str, grid: u32, block: u32, shared: usize) -> LaunchSpec {
    LaunchSpec {
        kernel,
        grid: Dim3 { x: grid, y: 1, z: 1 },
        block: Dim3 { x: block, y: 1, z: 1 },
        shared_bytes: shared,
        dependent: false,
        cluster: 1,
    }
}


kernel! {
    /// Reverses each block's slice through shared memory (correct).
    pub fn reverse_ok(data: Global<f32>) {
        let t = thread_idx_x() as usize;
        let n = block_dim_x() as usize;
        let base = block_idx_x() as usize * n;
        let s = dynamic_shared::<f32>();
        s.store(t, data.read(base + t));
        sync_threads();
        data.write(base + t, s.load(n - 1 - t));
    }
}

kernel! {
    /// The same without the barrier: a read-after-write race.
    pub fn reverse_no_barrier(data: Global<f32>) {
        let t = thread_idx_x() as usize;
        let n = block_dim_x() as usize;
        let base = block_idx_x() as usize * n;
        let s = dynamic_shared::<f32>();
        s.store(t, data.read(base + t));
        data.write(base + t, s.load(n - 1 - t));
    }
}

kernel! {
    /// Off by one: the last thread reads past the end.
    pub fn shift_left_oob(data: Global<f32>, out: Global<f32>) {
        let i = global_x() as usize;
        out.write(i, data.read(i + 1));
    }
}

kernel! {
    /// Two threads write the same shared word in one interval.
    pub fn double_writer(out: Global<f32>) {
        let s = dynamic_shared::<f32>();
        s.store(thread_idx_x() as usize / 2, 1.0);
        sync_threads();
        out.write(thread_idx_x() as usize, s.load(0));
    }
}

kernel! {
    /// Half the block returns before the barrier.
    pub fn divergent_barrier(out: Global<f32>) {
        if thread_idx_x() % 2 == 1 {
            return;
        }
        sync_threads();
        out.write(thread_idx_x() as usize, 1.0);
    }
}

kernel! {
    /// Reads a shared word nobody wrote.
    pub fn uninit_read(out: Global<f32>) {
        let s = dynamic_shared::<f32>();
        out.write(thread_idx_x() as usize, s.load(thread_idx_x() as usize));
    }
}

kernel! {
    /// Reads shared memory past the launch's dynamic size.
    pub fn shared_oob(out: Global<f32>) {
        let s = dynamic_shared::<f32>();
        s.store(thread_idx_x() as usize + 1, 2.0);
        out.write(0, 0.0);
    }
}

kernel! {
    /// Doubles each element after waiting for the previous grid
    /// (correct in a programmatic dependent launch).
    pub fn double_after_wait(data: Global<f32>) {
        crate::arch::sm90::griddepcontrol_wait();
        let i = global_x() as usize;
        data.write(i, 2.0 * data.read(i));
    }
}

kernel! {
    /// The same with its read moved above the wait: in a programmatic
    /// dependent launch it may read what the previous kernel has not
    /// written yet.
    pub fn double_before_wait(data: Global<f32>) {
        let i = global_x() as usize;
        let x = data.read(i);
        crate::arch::sm90::griddepcontrol_wait();
        data.write(i, 2.0 * x);
    }
}


#[test]
fn correct_shared_memory_kernel_passes() {
    let mut v: std::vec::Vec<f32> = (0..96).map(|x| x as f32).collect();
    let g = global(&mut v, "data");
    launch(spec("reverse_ok", 3, 32, 32 * 4), &|| unsafe { reverse_ok(g) }).unwrap();
    for b in 0..3 {
        for t in 0..32 {
            assert_eq!(v[b * 32 + t], (b * 32 + 31 - t) as f32);
        }
    }
}

#[test]
fn a_dependent_launch_touches_global_memory_only_after_its_wait() {
    let mut v = vec![1.0f32; 64];
    let g = global(&mut v, "data");
    let dependent = |name| LaunchSpec { dependent: true, ..spec(name, 2, 32, 0) };
    launch(dependent("double_after_wait"), &|| unsafe { double_after_wait(g) }).unwrap();
    assert!(v.iter().all(|&x| x == 2.0));
    let g = global(&mut v, "data");
    let m = fault(launch(dependent("double_before_wait"), &|| unsafe { double_before_wait(g) }));
    assert!(m.contains("read of `data` before griddepcontrol.wait"), "{m}");
    // A plain launch has no previous grid to wait for.
    launch(spec("double_before_wait", 2, 32, 0), &|| unsafe { double_before_wait(g) }).unwrap();
}

#[test]
fn race_detector_catches_a_missing_barrier() {
    let mut v = vec![1.0f32; 64];
    let g = global(&mut v, "data");
    let m = fault(launch(spec("reverse_no_barrier", 2, 32, 32 * 4), &|| unsafe { reverse_no_barrier(g) }));
    assert!(m.contains("race"), "{m}");
    assert!(m.contains("kernel `reverse_no_barrier`, block (0, 0, 0)"), "{m}");
}

#[test]
fn bounds_checker_names_buffer_index_and_length() {
    let mut a = vec![1.0f32; 64];
    let mut o = vec![0.0f32; 64];
    let (ga, go) = (global(&mut a, "data"), global(&mut o, "out"));
    let m = fault(launch(spec("shift_left_oob", 2, 32, 0), &|| unsafe { shift_left_oob(ga, go) }));
    assert!(m.contains("out-of-bounds read of `data` at index 64"), "{m}");
    assert!(m.contains("buffer length 64"), "{m}");
    assert!(m.contains("block (1, 0, 0), thread (31, 0, 0)"), "{m}");
}

#[test]
fn race_detector_catches_two_writers() {
    let mut o = vec![0.0f32; 32];
    let go = global(&mut o, "out");
    let m = fault(launch(spec("double_writer", 1, 32, 64), &|| unsafe { double_writer(go) }));
    assert!(m.contains("both write"), "{m}");
}

#[test]
fn divergent_barrier_is_reported() {
    let mut o = vec![0.0f32; 32];
    let go = global(&mut o, "out");
    let m = fault(launch(spec("divergent_barrier", 1, 32, 0), &|| unsafe { divergent_barrier(go) }));
    assert!(m.contains("divergent barrier"), "{m}");
}

#[test]
fn uninitialised_shared_read_is_reported() {
    let mut o = vec![0.0f32; 32];
    let go = global(&mut o, "out");
    let m = fault(launch(spec("uninit_read", 1, 32, 128), &|| unsafe { uninit_read(go) }));
    assert!(m.contains("uninitialised"), "{m}");
}

#[test]
fn shared_bounds_are_checked() {
    let mut o = vec![0.0f32; 32];
    let go = global(&mut o, "out");
    let m = fault(launch(spec("shared_oob", 1, 32, 128), &|| unsafe { shared_oob(go) }));
    assert!(m.contains("out-of-bounds shared-memory store"), "{m}");
}

#[test]
fn bad_geometry_is_a_config_error() {
    let r = launch(spec("k", 1, 2048, 0), &|| {});
    assert!(matches!(r, Err(EmuError::Config(_))));
    let r = launch(spec("k", 0, 32, 0), &|| {});
    assert!(matches!(r, Err(EmuError::Config(_))));
}

kernel! {
    /// Each thread copies its float4 with cp.async into slot `t`, waits,
    /// barriers, and writes out its neighbour's slot (correct). Thread `t`
    /// reads only `8 · t` bytes of its source (zero fill for the rest).
    pub fn cp_async_rotate(src: Global<f32>, out: Global<f32>, zfill: u32) {
        let t = thread_idx_x() as usize;
        let n = block_dim_x() as usize;
        let s = dynamic_shared::<f32>();
        if zfill == 0 {
            cp_async_16(s, 4 * t, src, 4 * t);
        } else {
            // Thread 0 reads nothing (any aligned index will do).
            let bytes = (8 * t).min(16) as u32;
            cp_async_16_zfill(s, 4 * t, src, if bytes == 0 { 0 } else { 4 * t }, bytes);
        }
        cp_async_commit();
        cp_async_wait_group(0);
        sync_threads();
        let u = (t + 1) % n;
        for e in 0..4 {
            out.write(4 * t + e, s.load(4 * u + e));
        }
    }
}

kernel! {
    /// Two groups in flight; waits for the older one only, then reads the
    /// newer one's destination after the barrier: it has not landed yet.
    pub fn cp_async_wait_too_little(src: Global<f32>, out: Global<f32>) {
        let t = thread_idx_x() as usize;
        let s = dynamic_shared::<f32>();
        s.store(t, -1.0);
        s.store(32 + t, -1.0);
        sync_threads();
        cp_async_16(s, 0, src, 0);
        cp_async_commit();
        cp_async_16(s, 32, src, 4);
        cp_async_commit();
        cp_async_wait_group(1);
        sync_threads();
        if t == 0 {
            out.write(0, s.load(0));
            out.write(1, s.load(32));
        }
        cp_async_wait_group(0);
    }
}

kernel! {
    /// Waits but skips the barrier before reading another thread's slot.
    pub fn cp_async_no_barrier(src: Global<f32>, out: Global<f32>) {
        let t = thread_idx_x() as usize;
        let s = dynamic_shared::<f32>();
        cp_async_16(s, 4 * t, src, 4 * t);
        cp_async_commit();
        cp_async_wait_group(0);
        out.write(t, s.load(4 * ((t + 1) % 32)));
    }
}

kernel! {
    /// A cp.async source that is not 16-byte aligned.
    pub fn cp_async_misaligned(src: Global<f32>) {
        let s = dynamic_shared::<f32>();
        cp_async_16(s, 0, src, 2);
        cp_async_commit();
        cp_async_wait_group(0);
    }
}

#[test]
fn cp_async_copies_land_at_wait_and_zero_fill() {
    let mut src: std::vec::Vec<f32> = (0..128).map(|x| x as f32 + 1.0).collect();
    let mut out = vec![0.0f32; 128];
    let (gs, go) = (global(&mut src, "src"), global(&mut out, "out"));
    launch(spec("cp_async_rotate", 1, 32, 512), &|| unsafe { cp_async_rotate(gs, go, 0) }).unwrap();
    for t in 0..32 {
        for e in 0..4 {
            assert_eq!(out[4 * t + e], src[4 * ((t + 1) % 32) + e]);
        }
    }
    // Zero fill: thread 0 reads 0 bytes, thread 1 reads 8, the others 16.
    let go = global(&mut out, "out");
    launch(spec("cp_async_rotate", 1, 32, 512), &|| unsafe { cp_async_rotate(gs, go, 1) }).unwrap();
    let want = |u: usize, e: usize| if 2 * u > e { src[4 * u + e] } else { 0.0 };
    for t in 0..32 {
        let u = (t + 1) % 32;
        for e in 0..4 {
            assert_eq!(out[4 * t + e], want(u, e), "thread {t} element {e}");
        }
    }
}

#[test]
fn cp_async_group_not_waited_for_has_not_landed() {
    let mut src: std::vec::Vec<f32> = (0..8).map(|x| x as f32 + 1.0).collect();
    let mut out = vec![0.0f32; 2];
    let (gs, go) = (global(&mut src, "src"), global(&mut out, "out"));
    // One thread: the copies of one thread cannot race with each other.
    launch(spec("cp_async_wait_too_little", 1, 1, 256), &|| unsafe { cp_async_wait_too_little(gs, go) }).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out, [1.0, -1.0], "the older group landed, the newer one not yet");
}

#[test]
fn cp_async_without_barrier_is_a_race_and_source_is_checked() {
    let mut src = vec![1.0f32; 128];
    let mut out = vec![0.0f32; 32];
    let (gs, go) = (global(&mut src, "src"), global(&mut out, "out"));
    let m = fault(launch(spec("cp_async_no_barrier", 1, 32, 512), &|| unsafe { cp_async_no_barrier(gs, go) }));
    assert!(m.contains("race") || m.contains("uninitialised"), "{m}");
    let m = fault(launch(spec("cp_async_misaligned", 1, 1, 16), &|| unsafe { cp_async_misaligned(gs) }));
    assert!(m.contains("misaligned cp.async read"), "{m}");
}

/// Set when a [`DropFlag`] is dropped.
static DROPPED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A value with a destructor, to see whether a faulted launch unwinds the
/// suspended threads' stacks.
struct DropFlag;
impl Drop for DropFlag {
    fn drop(&mut self) {
        DROPPED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[test]
fn a_fault_stops_the_launch_without_unwinding_suspended_threads() {
    // Thread 0 reads past the buffer while the others wait at a barrier
    // holding a value with a destructor. The launch must report the fault
    // and reset (not unwind) the waiting threads: under `panic = "abort"`
    // unwinding them would abort the process. The flags are leaked, never
    // dropped, and the emulator stays usable.
    let mut data = vec![0.0f32; 4];
    let g = unsafe { Global::from_raw_parts(data.as_mut_ptr(), 4, "data") };
    let thread = move || unsafe {
        let flag = DropFlag;
        if thread_idx_x() == 0 {
            g.read(100);
        }
        sync_threads();
        core::mem::forget(flag);
    };
    let before = DROPPED.load(std::sync::atomic::Ordering::SeqCst);
    let m = fault(launch(spec("drop_flag", 1, 32, 0), &thread));
    assert!(m.contains("out-of-bounds read") && m.contains("drop_flag"), "{m}");
    assert_eq!(DROPPED.load(std::sync::atomic::Ordering::SeqCst), before, "a suspended thread was unwound");
    // The next launch on the same emulator works.
    let ok = move || unsafe {
        g.write(thread_idx_x() as usize, 1.0);
    };
    launch(spec("after_fault", 1, 4, 0), &ok).expect("launch after a fault");
    assert_eq!(data, vec![1.0; 4]);
}
