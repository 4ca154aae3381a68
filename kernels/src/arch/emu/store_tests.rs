//! Named barriers and TMA stores in the emulator: each works as
//! documented, and each planted misuse (a barrier count that never fills,
//! mismatched counts, a store's buffer overwritten before the store has
//! read it, a store issued from unwritten bytes, a thread that returns
//! without waiting for its stores) is reported; and a TMA load whose box
//! starts inside a 16-byte piece of its rows is reported as the fault it
//! is on the hardware.

use super::test_util::{fault, global};
use super::{launch, Dim3, EmuError, LaunchSpec};
use crate::arch::sm90::{bulk_commit_group, bulk_wait_group_read, fence_proxy_async_shared, mbarrier_arrive_expect_tx, mbarrier_init, mbarrier_wait, tma_load_3d, tma_store_3d, EmuTensorMap, TensorMap};
use crate::arch::*;
use crate::kernel;
use crate::layout::wgmma::tma_box;
use std::vec;
use std::vec::Vec;

fn spec(kernel: &'static str, block: u32, shared: usize) -> LaunchSpec {
    LaunchSpec { kernel, grid: Dim3 { x: 1, y: 1, z: 1 }, block: Dim3 { x: block, y: 1, z: 1 }, shared_bytes: shared, dependent: false, cluster: 1 }
}



kernel! {
    /// Warps 0–1 and warps 2–3 each pass a value through a named barrier of
    /// their own (ids 1 and 2, 64 threads); `count` is the barriers' count
    /// (64 is correct); with `mismatch`, warp 1 names a count of 96.
    pub fn named_pairs(out: Global<u32>, count: u32, mismatch: u32) {
        let t = thread_idx_x();
        let pair = t / 64;
        if t % 64 == 0 {
            out.write(pair as usize, 10 + pair);
        }
        let n = if mismatch != 0 && t / 32 == 1 { 96 } else { count };
        sync_named(1 + pair, n);
        if t % 64 == 63 {
            out.write(2 + pair as usize, out.read(pair as usize) + 1);
        }
    }
}

fn run_named(count: u32, mismatch: u32) -> Result<Vec<u32>, EmuError> {
    let mut out = vec![0u32; 4];
    let o = global(&mut out, "out");
    launch(spec("named_pairs", 128, 0), &|| unsafe { named_pairs(o, count, mismatch) })?;
    Ok(out)
}

#[test]
fn named_barriers_release_their_threads_only_and_report_misuse() {
    assert_eq!(run_named(64, 0).unwrap_or_else(|e| panic!("{e}")), vec![10, 11, 11, 12]);
    let m = fault(run_named(96, 0));
    assert!(m.contains("deadlock") && m.contains("named barrier"), "{m}");
    let m = fault(run_named(64, 1));
    assert!(m.contains("named barrier 1") && m.contains("96"), "{m}");
    let m = fault(run_named(40, 0));
    assert!(m.contains("multiple of 32"), "{m}");
}

kernel! {
    /// Warp 0 writes 32 shared words that warp 1 then reads, ordered by a
    /// named barrier of warps 0–1 (`mode` 0, 2, 3) or of warps 1–2 only
    /// (`mode` 1: a race). With `mode` 2 and 3, warp 1 also writes 32 more
    /// words before that barrier, warp 0 reads them after it, and warp 2
    /// overwrites them after a barrier of warps 0–2 (2) or of warps 1–2
    /// only (3: warp 0's reads are not ordered before the writes).
    pub fn named_handoff(out: Global<u32>, mode: u32) {
        let t = thread_idx_x() as usize;
        let (w, lane) = (t / 32, t % 32);
        let sh = dynamic_shared::<u32>();
        if w == 0 {
            sh.store(lane, 100 + lane as u32);
        }
        if w == 1 && mode >= 2 {
            sh.store(32 + lane, 200 + lane as u32);
        }
        if (mode == 1 && (w == 1 || w == 2)) || (mode != 1 && w < 2) {
            sync_named(1, 64);
        }
        if w == 1 {
            out.write(lane, sh.load(lane));
        }
        if mode >= 2 {
            if w == 0 {
                out.write(32 + lane, sh.load(32 + lane));
            }
            if (mode == 2 && w < 3) || (mode == 3 && (w == 1 || w == 2)) {
                sync_named(2, if mode == 2 { 96 } else { 64 });
            }
            if w == 2 {
                sh.store(32 + lane, 7);
            }
        }
    }
}

fn run_handoff(mode: u32) -> Result<Vec<u32>, EmuError> {
    let mut out = vec![0u32; 64];
    let o = global(&mut out, "out");
    launch(spec("named_handoff", 128, 256), &|| unsafe { named_handoff(o, mode) })?;
    Ok(out)
}

#[test]
fn named_barriers_order_shared_memory_between_the_warps_that_take_part() {
    let first: Vec<u32> = (100..132).collect();
    assert_eq!(run_handoff(0).unwrap_or_else(|e| panic!("{e}"))[..32], first[..]);
    let both = run_handoff(2).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((both[..32].to_vec(), both[32..].to_vec()), (first, (200..232).collect::<Vec<u32>>()));
    let m = fault(run_handoff(1));
    assert!(m.contains("race") && m.contains("reads what thread"), "{m}");
    let m = fault(run_handoff(3));
    assert!(m.contains("race") && m.contains("writes what thread"), "{m}");
}

kernel! {
    /// Warp 0 writes 32 words, warps 0 and 1 read them after a named
    /// barrier of both, and warp 1 then adds one to each (its own read,
    /// then its write) after a second barrier of both (`mode` 0), or
    /// without it (1: warp 0's reads are not ordered before the writes).
    pub fn named_rmw(out: Global<u32>, mode: u32) {
        let t = thread_idx_x() as usize;
        let (w, lane) = (t / 32, t % 32);
        let sh = dynamic_shared::<u32>();
        if w == 0 {
            sh.store(lane, 100 + lane as u32);
        }
        if w < 2 {
            sync_named(1, 64);
            out.write(t, sh.load(lane));
            if mode == 0 {
                sync_named(2, 64);
            }
        }
        if w == 1 {
            sh.store(lane, sh.load(lane) + 1);
            out.write(64 + lane, sh.load(lane));
        }
    }
}

#[test]
fn a_read_modify_write_after_ordered_reads_is_no_race() {
    let run = |mode| {
        let mut out = vec![0u32; 96];
        let o = global(&mut out, "out");
        launch(spec("named_rmw", 128, 256), &|| unsafe { named_rmw(o, mode) }).map(|()| out)
    };
    let out = run(0).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out[64..].to_vec(), (101..133).collect::<Vec<u32>>());
    let m = fault(run(1));
    assert!(m.contains("race") && m.contains("writes what"), "{m}");
}

kernel! {
    /// A hand-over through an mbarrier between two groups of warps: warp 3
    /// fills 32 words; warps 0–1 (the leading group) read them, pass a
    /// named barrier of both (unless `mode` is 1) and thread 0 arrives on
    /// an mbarrier; warps 2–3 (the following group) read them too — warp 2
    /// at once, warp 3 after that arrival, without waiting for its phase —
    /// pass their own named barrier, and warp 2 waits for the phase and
    /// writes new words. Every earlier read is ordered before the writes: warp 1's
    /// through its barrier with warp 0 before the arrival, warp 3's (later
    /// than the arrival) through its barrier with warp 2.
    pub fn released_reads(out: Global<u32>, mode: u32) {
        let t = thread_idx_x() as usize;
        let (w, lane) = (t / 32, t % 32);
        let bar = dynamic_shared::<u8>().addr();
        // The words after the mbarrier's 8 bytes (and padding).
        let sh = dynamic_shared::<u32>();
        let word = 4 + lane;
        if t == 0 {
            crate::arch::sm90::mbarrier_init(bar, 1);
        }
        if w == 3 {
            sh.store(word, 100 + lane as u32);
        }
        sync_threads();
        if w < 2 {
            out.write(t, sh.load(word));
            if mode != 1 {
                sync_named(1, 64);
            }
            if t == 0 {
                crate::arch::sm90::mbarrier_arrive(bar);
            }
        } else {
            if w == 3 {
                // A barrier of its own: the read comes in a later pass of
                // the scheduler, after thread 0's arrival.
                sync_named(3, 32);
            }
            out.write(t, sh.load(word));
            sync_named(2, 64);
            if w == 2 {
                crate::arch::sm90::mbarrier_wait(bar, 0);
                sh.store(word, 200 + lane as u32);
            }
        }
    }
}

/// An mbarrier's phase orders before its waiters what its arrivals'
/// threads had ordered before them (their named barriers), each reading
/// warp at its own last read (warp 3 read after the arrival, which once
/// made warps 0–1's earlier reads look unordered too); without the leading
/// group's barrier, warp 1's read is a race.
#[test]
fn an_mbarrier_passes_on_what_its_arrivals_ordered() {
    let run = |mode| {
        let mut out = vec![0u32; 128];
        let o = global(&mut out, "out");
        launch(spec("released_reads", 128, 256), &|| unsafe { released_reads(o, mode) }).map(|()| out)
    };
    let out = run(0).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out, (0..128).map(|t| 100 + t as u32 % 32).collect::<Vec<u32>>());
    let m = fault(run(1));
    assert!(m.contains("race") && m.contains("writes what"), "{m}");
}

/// The store's box: 32 f32 × 8 rows (one 1024-byte swizzle atom).
const BOX: [u32; 3] = [32, 8, 1];
/// The tensor: 37 × 5 f32 (rows of 44), so a box at (16, 2) is clipped on
/// both sides; rows end mid-piece (148 bytes), so columns 37–39 share the
/// last 16-byte piece with column 36.
const DIMS: [u32; 3] = [37, 5, 1];
const LD: usize = 44;

kernel! {
    /// 32 threads fill a box in shared memory (element `(x, y)` holds
    /// `1000·y + x`, TMA's swizzle), thread 0 stores it at `(16, 2)`.
    /// `bug`: 1 no wait before returning, 2 the buffer rewritten after the
    /// store was issued, before its wait, 3 the store issued before the
    /// buffer is written.
    pub fn store_box(maps: Global<TensorMap>, bug: u32) {
        let t = thread_idx_x();
        let sh = dynamic_shared::<f32>();
        let base = sh.addr();
        let fill = |v: f32| {
            for y in 0..BOX[1] {
                let x = t;
                let at = tma_box(base, x, y, 4);
                sh.store(((at - base) / 4) as usize, v + (1000 * y + x) as f32);
            }
        };
        if bug != 3 {
            fill(0.0);
        }
        fence_proxy_async_shared();
        sync_threads();
        if t == 0 {
            tma_store_3d(base, maps, 0, [16, 2, 0]);
            bulk_commit_group();
        }
        if bug == 2 {
            fill(0.5);
        }
        if t == 0 && bug != 1 {
            bulk_wait_group_read::<0>();
        }
    }
}

/// The map of the `DIMS` f32 tensor in `c` (rows of `LD`), boxes of `BOX`.
fn tensor_map(c: &mut [f32]) -> EmuTensorMap {
    EmuTensorMap {
        base: c.as_mut_ptr() as u64,
        len: core::mem::size_of_val(c) as u64,
        elem_bytes: 4,
        dims: DIMS,
        strides: [(LD * 4) as u64, (LD * 4 * DIMS[1] as usize) as u64],
        box_: BOX,
    }
}

fn run_store(bug: u32) -> Result<Vec<f32>, EmuError> {
    let mut c = vec![-1.0f32; LD * DIMS[1] as usize];
    let mut maps = vec![tensor_map(&mut c).encode()];
    let m = global(&mut maps, "maps");
    launch(spec("store_box", 32, 1024), &|| unsafe { store_box(m, bug) })?;
    Ok(c)
}

/// Inside the tensor only — but the row's last 16-byte piece whole, as the
/// H100 writes it (columns 37–39 of the padding).
#[test]
fn a_tma_store_writes_the_box_inside_the_tensor_and_its_last_piece_only() {
    let c = run_store(0).unwrap_or_else(|e| panic!("{e}"));
    for y in 0..DIMS[1] as usize {
        for x in 0..LD {
            let inside = (2..2 + BOX[1] as usize).contains(&y) && (16..40).contains(&x);
            let want = if inside { (1000 * (y - 2) + (x - 16)) as f32 } else { -1.0 };
            assert_eq!(c[y * LD + x], want, "({x}, {y})");
        }
    }
}

#[test]
fn tma_store_misuse_is_reported() {
    let m = fault(run_store(1));
    assert!(m.contains("not waited for"), "{m}");
    let m = fault(run_store(2));
    assert!(m.contains("changed between"), "{m}");
    let m = fault(run_store(3));
    assert!(m.contains("never wrote"), "{m}");
}

kernel! {
    /// Thread 0 loads the box at column `x`, row 1 into shared memory and
    /// waits for it; element `(0, 0)` of the box goes to `out`.
    pub fn load_box(maps: Global<TensorMap>, x: u32, out: Global<f32>) {
        if thread_idx_x() == 0 {
            let sh = dynamic_shared::<f32>();
            let bar = sh.addr() + 4096;
            mbarrier_init(bar, 1);
            mbarrier_arrive_expect_tx(bar, BOX[0] * BOX[1] * 4);
            tma_load_3d(sh.addr(), maps, 0, [x as i32, 1, 0], bar);
            mbarrier_wait(bar, 0);
            out.write(0, sh.load(0));
        }
    }
}

/// Measured on an H200: a 128-byte-swizzled TMA load at an inner
/// coordinate that is not a multiple of 16 bytes raised an illegal
/// instruction (BENCHMARKS.md, "Odd `lda`: residue maps"); the emulator
/// reports it, and loads at whole pieces as before.
#[test]
fn a_tma_load_must_start_on_a_16_byte_piece() {
    let mut c: Vec<f32> = (0..LD * DIMS[1] as usize).map(|i| i as f32).collect();
    let mut maps = vec![tensor_map(&mut c).encode()];
    let m = global(&mut maps, "maps");
    let run = |x: u32| {
        let mut out = vec![-1.0f32];
        let o = global(&mut out, "out");
        launch(spec("load_box", 32, 4096 + 8), &|| unsafe { load_box(m, x, o) }).map(|()| out[0])
    };
    assert_eq!(run(4).unwrap_or_else(|e| panic!("{e}")), (LD + 4) as f32);
    let m = fault(run(1));
    assert!(m.contains("16-byte boundary"), "{m}");
}
