//! Warp collectives in the emulator: a correct ldmatrix + mma tile, and
//! each planted bug (wrong fragment index, divergent or partial warps, a
//! race into an ldmatrix row) reported.

use super::test_util::{fault, global};
use super::{launch, Dim3, LaunchSpec};
use crate::arch::*;
use crate::kernel;
use crate::layout::fragment::{ldmatrix_a_m16n8k16, ldmatrix_b_trans_m16n8k16, mma_m16n8_c};
use crate::numeric::Bf16;
use std::vec;
use std::vec::Vec;

fn spec(kernel: &'static str, block: u32, shared: usize) -> LaunchSpec {
    LaunchSpec {
        kernel,
        grid: Dim3 { x: 1, y: 1, z: 1 },
        block: Dim3 { x: block, y: 1, z: 1 },
        shared_bytes: shared,
        dependent: false,
        cluster: 1,
    }
}



/// Bytes of shared memory of [`tile_mma`]: A (16 × 16) then B (16 × 8),
/// bf16, row-major.
const TILE_SHARED: usize = (16 * 16 + 16 * 8) * 2;

kernel! {
    /// One warp: `C = A · B` for a 16 × 16 bf16 A and a 16 × 8 bf16 B
    /// (both row-major in global memory), staged in shared memory, loaded
    /// with `ldmatrix.x4` (A) and `ldmatrix.x2.trans` (B), multiplied with
    /// one `mma.m16n8k16`. `bug` plants a mistake: 1 gives A's row
    /// addresses from `lane % 8` instead of `lane % 16`, 2 swaps two A
    /// registers.
    pub fn tile_mma(a: Global<u16>, b: Global<u16>, c: Global<f32>, bug: u32) {
        let lane = lane_id() as usize;
        let sa = dynamic_shared::<u16>();
        let sb = sa.offset(16 * 16);
        for e in (lane..16 * 16).step_by(32) {
            sa.store(e, a.read(e));
        }
        for e in (lane..16 * 8).step_by(32) {
            sb.store(e, b.read(e));
        }
        sync_threads();
        let (mut r, col) = ldmatrix_a_m16n8k16(lane);
        if bug == 1 {
            r = lane % 8;
        }
        let mut fa = ldmatrix_x4(sa, r * 16 + col);
        if bug == 2 {
            fa.swap(1, 2);
        }
        // `.x2` reads the addresses of lanes 0..16 only.
        let (k, n) = ldmatrix_b_trans_m16n8k16(lane % 16);
        let fb = ldmatrix_x2_trans(sb, k * 8 + n);
        let d = mma_m16n8k16_bf16(fa, fb, [0.0; 4]);
        for (i, x) in d.iter().enumerate() {
            let (row, col) = mma_m16n8_c(lane, i);
            c.write(row * 8 + col, *x);
        }
    }
}

/// Runs [`tile_mma`] on small integers; returns (got, want).
fn run_tile(bug: u32) -> (Vec<f32>, Vec<f32>) {
    // Small non-zero integers from a hash of the index (no structure a
    // wrong fragment could hide in); every product and sum is exact.
    let nz = |i: u32, salt: u32| {
        let h = (i ^ salt).wrapping_mul(0x9E37_79B1) >> 28; // 0..16
        if h < 8 { h as f32 - 8.0 } else { h as f32 - 7.0 }
    };
    let av: Vec<f32> = (0..256).map(|i| nz(i, 0x51)).collect();
    let bv: Vec<f32> = (0..128).map(|i| nz(i, 0xA7)).collect();
    let mut a: Vec<u16> = av.iter().map(|&x| Bf16::from_f32(x).0).collect();
    let mut b: Vec<u16> = bv.iter().map(|&x| Bf16::from_f32(x).0).collect();
    let mut c = vec![f32::NAN; 128];
    let (ga, gb, gc) = (global(&mut a, "a"), global(&mut b, "b"), global(&mut c, "c"));
    launch(spec("tile_mma", 32, TILE_SHARED), &|| unsafe { tile_mma(ga, gb, gc, bug) }).unwrap_or_else(|e| panic!("{e}"));
    let want = (0..128).map(|e| (0..16).map(|k| av[e / 8 * 16 + k] * bv[k * 8 + e % 8]).sum()).collect();
    (c, want)
}

#[test]
fn ldmatrix_and_mma_multiply_a_tile() {
    let (got, want) = run_tile(0);
    assert_eq!(got, want);
}

#[test]
fn a_wrong_fragment_index_gives_a_wrong_product() {
    for bug in [1, 2] {
        let (got, want) = run_tile(bug);
        assert_ne!(got, want, "planted bug {bug} went unnoticed");
    }
}

kernel! {
    /// Half the warp exits before the mma.
    pub fn half_skip_mma(out: Global<f32>) {
        let lane = lane_id();
        if lane >= 16 {
            return;
        }
        let d = mma_m16n8k16_bf16([0; 4], [0; 2], [1.0; 4]);
        out.write(lane as usize, d[0]);
    }
}

kernel! {
    /// Half the warp reaches an mma, the other half a shuffle.
    pub fn mma_or_shfl(out: Global<f32>) {
        let lane = lane_id();
        let x = if lane < 16 {
            mma_m16n8k16_bf16([0; 4], [0; 2], [1.0; 4])[0]
        } else {
            shfl_sync_idx_f32(1.0, 0)
        };
        out.write(lane as usize, x);
    }
}

kernel! {
    /// Half the warp shuffles while the other half waits at the barrier.
    pub fn shfl_or_barrier(out: Global<u32>) {
        let lane = lane_id();
        let x = if lane < 16 {
            shfl_sync_bfly(lane, 1)
        } else {
            sync_threads();
            lane
        };
        out.write(lane as usize, x);
    }
}

kernel! {
    /// Every thread of a 48-thread block runs an mma: the second warp has
    /// 16 lanes.
    pub fn partial_warp_mma(out: Global<f32>) {
        let d = mma_m16n8k16_bf16([0; 4], [0; 2], [1.0; 4]);
        out.write(thread_idx_x() as usize, d[0]);
    }
}

#[test]
fn divergent_and_partial_warps_are_reported() {
    let mut o = vec![0.0f32; 64];
    let go = global(&mut o, "out");
    let m = fault(launch(spec("half_skip_mma", 32, 0), &|| unsafe { half_skip_mma(go) }));
    assert!(m.contains("divergent warp collective"), "{m}");
    assert!(m.contains("mma.sync.aligned.m16n8k16 (bf16) needs all 32 lanes, but lanes 16–31 exited while lanes 0–15 wait at it"), "{m}");
    assert!(m.contains("kernel `half_skip_mma`, block (0, 0, 0), warp 0"), "{m}");

    let m = fault(launch(spec("mma_or_shfl", 32, 0), &|| unsafe { mma_or_shfl(go) }));
    assert!(m.contains("divergent warp collective: lanes 0–15 wait at mma.sync.aligned.m16n8k16 (bf16) while lanes 16–31 wait at shfl.sync.idx"), "{m}");

    let mut u = vec![0u32; 32];
    let gu = global(&mut u, "out");
    let m = fault(launch(spec("shfl_or_barrier", 32, 0), &|| unsafe { shfl_or_barrier(gu) }));
    assert!(m.contains("divergent warp collective: lanes 0–15 wait at shfl.sync.bfly while lanes 16–31 wait at sync_threads"), "{m}");

    let m = fault(launch(spec("partial_warp_mma", 48, 0), &|| unsafe { partial_warp_mma(go) }));
    assert!(m.contains("warp 1 (threads 32..48)"), "{m}");
    assert!(m.contains("partial warp of 16 lanes"), "{m}");
}

kernel! {
    /// Fills an 8 × 8 tile, barrier, then lane 5 rewrites an element of row
    /// 3 (whose address lane 3 gives) right before the warp's ldmatrix:
    /// a race without a barrier in between. `misaligned` instead offsets
    /// every row address by one element.
    pub fn ldmatrix_race(out: Global<u32>, misaligned: u32) {
        let lane = lane_id() as usize;
        let s = dynamic_shared::<u16>();
        s.store(2 * lane, lane as u16);
        s.store(2 * lane + 1, lane as u16);
        sync_threads();
        if misaligned == 0 && lane == 5 {
            s.store(3 * 8 + 2, 99);
        }
        let r = ldmatrix_x1(s, (lane % 8) * 8 + misaligned as usize);
        out.write(lane, r);
    }
}

#[test]
fn an_ldmatrix_row_written_in_the_same_interval_is_a_race() {
    let mut o = vec![0u32; 32];
    let go = global(&mut o, "out");
    let m = fault(launch(spec("ldmatrix_race", 32, 128), &|| unsafe { ldmatrix_race(go, 0) }));
    assert!(m.contains("race"), "{m}");
    assert!(m.contains("thread 5") && m.contains("thread 3"), "{m}");
    let m = fault(launch(spec("ldmatrix_race", 32, 128), &|| unsafe { ldmatrix_race(go, 1) }));
    assert!(m.contains("misaligned shared-memory ldmatrix row read at byte 2: needs 16-byte alignment"), "{m}");
    assert!(m.contains("thread (0, 0, 0)"), "{m}");
}

kernel! {
    /// Shuffles in two warps: `out[3t..]` = value of lane `31 - lane`, of
    /// lane `lane ^ 5`, and the warp's butterfly sum.
    pub fn shuffles(out: Global<u32>) {
        let t = thread_idx_x();
        let lane = lane_id();
        let v = 3 * t + 1;
        let o = 3 * t as usize;
        out.write(o, shfl_sync_idx(v, 31 - lane));
        out.write(o + 1, shfl_sync_bfly(v, 5));
        let mut s = v;
        for m in [16, 8, 4, 2, 1] {
            s += shfl_sync_bfly(s, m);
        }
        out.write(o + 2, s);
    }
}

kernel! {
    /// Lanes 8.. of each warp exit; lanes 0..8 shuffle among themselves
    /// (fine), or with `far` from lane `lane ^ 16` (exited: reported).
    pub fn shfl_after_exit(out: Global<u32>, far: u32) {
        let lane = lane_id();
        if lane >= 8 {
            return;
        }
        let m = if far != 0 { 16 } else { 1 };
        out.write(thread_idx_x() as usize, shfl_sync_bfly(lane, m));
    }
}

kernel! {
    /// Warp 1 arrives on an mbarrier (32 arrivals); in warp 0, lane 0 waits
    /// for its phase before a shuffle that lanes 1.. reach at once.
    pub fn shfl_after_mbarrier_wait(out: Global<u32>) {
        let bar = dynamic_shared::<u8>().addr();
        let t = thread_idx_x();
        unsafe {
            if t == 0 {
                crate::arch::sm90::mbarrier_init(bar, 32);
            }
            sync_threads();
            if t >= 32 {
                crate::arch::sm90::mbarrier_arrive(bar);
                return;
            }
            if t == 0 {
                crate::arch::sm90::mbarrier_wait(bar, 0);
            }
        }
        out.write(t as usize, shfl_sync_bfly(t, 1));
    }
}

/// A lane still spinning on an mbarrier has not reached the shuffle yet:
/// the collective waits for it (it once completed without that lane and
/// reported it as exited).
#[test]
fn a_shuffle_waits_for_a_lane_spinning_on_an_mbarrier() {
    let mut o = vec![u32::MAX; 32];
    let go = global(&mut o, "out");
    launch(spec("shfl_after_mbarrier_wait", 64, 16), &|| unsafe { shfl_after_mbarrier_wait(go) }).unwrap_or_else(|e| panic!("{e}"));
    for t in 0..32u32 {
        assert_eq!(o[t as usize], t ^ 1, "thread {t}");
    }
}

#[test]
fn shuffles_follow_the_ptx_semantics() {
    let mut o = vec![0u32; 3 * 64];
    let go = global(&mut o, "out");
    launch(spec("shuffles", 64, 0), &|| unsafe { shuffles(go) }).unwrap_or_else(|e| panic!("{e}"));
    for t in 0..64u32 {
        let (w, lane) = (t / 32, t % 32);
        let v = |l: u32| 3 * (32 * w + l) + 1;
        let sum: u32 = (0..32).map(v).sum();
        assert_eq!(&o[3 * t as usize..3 * t as usize + 3], &[v(31 - lane), v(lane ^ 5), sum], "thread {t}");
    }

    let mut o = vec![u32::MAX; 40];
    let go = global(&mut o, "out");
    launch(spec("shfl_after_exit", 40, 0), &|| unsafe { shfl_after_exit(go, 0) }).unwrap_or_else(|e| panic!("{e}"));
    for t in 0..40u32 {
        let want = if t % 32 < 8 { (t % 32) ^ 1 } else { u32::MAX };
        assert_eq!(o[t as usize], want, "thread {t}");
    }
    let m = fault(launch(spec("shfl_after_exit", 40, 0), &|| unsafe { shfl_after_exit(go, 1) }));
    assert!(m.contains("shfl.sync.bfly: lane 0 reads lane 16, which has exited"), "{m}");
    // In the partial second warp (8 lanes), lane 16 does not exist.
    let m = fault(launch(spec("shfl_after_exit", 8, 0), &|| unsafe { shfl_after_exit(go, 1) }));
    assert!(m.contains("is not in this partial warp"), "{m}");
}

kernel! {
    /// Collectives and block barriers interleaved differently per warp:
    /// warp 0 shuffles twice before the barrier, warp 1 after it; the
    /// values cross warps through shared memory after the barrier.
    pub fn collectives_between_barriers(out: Global<u32>) {
        let t = thread_idx_x() as usize;
        let lane = lane_id();
        let s = dynamic_shared::<u32>();
        let mut v = t as u32;
        if t < 32 {
            v = shfl_sync_bfly(v, 1);
            v = shfl_sync_idx(v, (lane + 1) % 32);
        }
        s.store(t, v);
        sync_threads();
        let mut x = s.load(63 - t);
        if t >= 32 {
            x = shfl_sync_bfly(x, 2);
        }
        out.write(t, x);
    }
}

#[test]
fn collectives_complete_before_and_after_barriers() {
    let mut o = vec![u32::MAX; 64];
    let go = global(&mut o, "out");
    launch(spec("collectives_between_barriers", 64, 256), &|| unsafe { collectives_between_barriers(go) })
        .unwrap_or_else(|e| panic!("{e}"));
    // After the first phase, slot u holds ((u + 1) % 32) ^ 1 for u < 32,
    // u itself for u ≥ 32.
    let slot = |u: usize| if u < 32 { (((u + 1) % 32) ^ 1) as u32 } else { u as u32 };
    for t in 0..64 {
        let want = if t < 32 { slot(63 - t) } else { slot(63 - (32 + ((t - 32) ^ 2))) };
        assert_eq!(o[t], want, "thread {t}");
    }
}

kernel! {
    /// Each lane writes its slot, then reads its neighbour's: `mode` 0
    /// orders them with `bar.warp.sync`, 1 leaves the barrier out (a race),
    /// 2 reads a slot of the other warp after only a warp barrier (a race:
    /// it does not order another warp's store).
    pub fn warp_sync_exchange(out: Global<u32>, mode: u32) {
        let t = thread_idx_x() as usize;
        let lane = lane_id() as usize;
        let s = dynamic_shared::<u32>();
        s.store(t, 3 * t as u32 + 1);
        if mode != 1 {
            sync_warp();
        }
        let from = if mode == 2 { (t + 32) % 64 } else { t - lane + (lane + 1) % 32 };
        out.write(t, s.load(from));
        // Lanes overwrite their slot after the warp's reads: ordered by a
        // second warp barrier.
        sync_warp();
        s.store(t, 0);
    }
}

#[test]
fn a_warp_barrier_orders_its_lanes_shared_accesses_and_only_theirs() {
    let mut o = vec![u32::MAX; 64];
    let go = global(&mut o, "out");
    launch(spec("warp_sync_exchange", 64, 256), &|| unsafe { warp_sync_exchange(go, 0) }).unwrap_or_else(|e| panic!("{e}"));
    for t in 0..64 {
        let from = t - t % 32 + (t % 32 + 1) % 32;
        assert_eq!(o[t], 3 * from as u32 + 1, "thread {t}");
    }
    let m = fault(launch(spec("warp_sync_exchange", 64, 256), &|| unsafe { warp_sync_exchange(go, 1) }));
    assert!(m.contains("race"), "{m}");
    let m = fault(launch(spec("warp_sync_exchange", 64, 256), &|| unsafe { warp_sync_exchange(go, 2) }));
    assert!(m.contains("race"), "{m}");
}

kernel! {
    /// Warp 1 writes a word of shared memory per lane and arrives on an
    /// mbarrier (32 arrivals); warp 0 reads the words after waiting for
    /// the phase (`wait != 0`) or without waiting.
    pub fn mbarrier_passes_words(out: Global<u32>, wait: u32) {
        let sh = dynamic_shared::<u32>();
        let bar = sh.offset(32).addr();
        let t = thread_idx_x();
        unsafe {
            if t == 0 {
                crate::arch::sm90::mbarrier_init(bar, 32);
            }
            sync_threads();
            if t >= 32 {
                sh.store((t - 32) as usize, 3 * t);
                crate::arch::sm90::mbarrier_arrive(bar);
                return;
            }
            if wait != 0 {
                crate::arch::sm90::mbarrier_wait(bar, 0);
            }
            out.write(t as usize, sh.load(31 - t as usize));
        }
    }
}

/// An mbarrier phase orders the arriving warps' shared-memory writes
/// before the waiting warp's reads (release and acquire): no race
/// reported, the words read; without the wait, a race.
#[test]
fn an_mbarrier_wait_orders_the_arrivals_writes() {
    let mut o = vec![u32::MAX; 32];
    let go = global(&mut o, "out");
    launch(spec("mbarrier_passes_words", 64, 34 * 4), &|| unsafe { mbarrier_passes_words(go, 1) }).unwrap_or_else(|e| panic!("{e}"));
    for t in 0..32u32 {
        assert_eq!(o[t as usize], 3 * (63 - t), "thread {t}");
    }
    let m = fault(launch(spec("mbarrier_passes_words", 64, 34 * 4), &|| unsafe { mbarrier_passes_words(go, 0) }));
    assert!(m.contains("race") || m.contains("uninitialised"), "{m}");
}
