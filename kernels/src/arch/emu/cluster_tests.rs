//! Thread-block clusters in the emulator: the blocks of a cluster share
//! tiles through multicast TMA copies and release them through remote
//! mbarrier arrivals; each planted misuse (a missing remote arrival, a
//! producer blind to its peer's consumers, a missing cluster barrier after
//! `mbarrier.init`, an operation into a block that has returned, a
//! divergent cluster barrier) is reported.

use super::test_util::{fault, global};
use super::{launch, Dim3, EmuError, LaunchSpec};
use crate::arch::sm90::{
    cluster_ctarank, cluster_nctarank, cluster_sync, fence_mbarrier_init_cluster, fence_proxy_tensormap, mbarrier_arrive_cluster,
    mbarrier_arrive_expect_tx, mbarrier_init, mbarrier_wait, tma_load_3d_multicast, wgmma_commit_group, wgmma_fence,
    wgmma_m64n64k16_bf16, wgmma_wait_group, EmuTensorMap, TensorMap,
};
use crate::arch::*;
use crate::kernel;
use crate::layout::wgmma::{d_fragment, tma_box, SmemDesc, ATOM_BYTES, WGMMA_K16};
use crate::numeric::Bf16;
use std::vec;
use std::vec::Vec;

fn spec(kernel: &'static str, grid: [u32; 2], block: u32, shared: usize, cluster: u32) -> LaunchSpec {
    LaunchSpec {
        kernel,
        grid: Dim3 { x: grid[0], y: grid[1], z: 1 },
        block: Dim3 { x: block, y: 1, z: 1 },
        shared_bytes: shared,
        dependent: false,
        cluster,
    }
}



/// A tile: 64 rows of 64 bf16 (128 bytes, one swizzled row each).
const ROWS: u32 = 64;
const COLS: u32 = 64;
const TILE_BYTES: u32 = ROWS * COLS * 2;
/// Each block of a pair loads half the rows (one box).
const HALF_ROWS: u32 = ROWS / 2;
const HALF_BYTES: u32 = TILE_BYTES / 2;

/// Element `(x, y)` of tile `z`: a small integer (exact in bf16, and
/// every product sum of them exact in f32), distinct enough that a wrong
/// tile, half or row shows.
fn value(x: u32, y: u32, z: u32) -> f32 {
    ((x * 3 + y * 5 + z * 11 + x * y) % 7) as f32 - 3.0
}

/// `tiles` tiles of bf16 (tile `z` at `z · 4096` elements) and the map
/// of their halves.
fn tiles(tiles: u32) -> (Vec<u16>, EmuTensorMap) {
    let mut v = vec![0u16; (tiles * ROWS * COLS) as usize];
    for z in 0..tiles {
        for y in 0..ROWS {
            for x in 0..COLS {
                v[((z * ROWS + y) * COLS + x) as usize] = Bf16::from_f32(value(x, y, z)).0;
            }
        }
    }
    let map = EmuTensorMap {
        base: v.as_ptr() as u64,
        len: (v.len() * 2) as u64,
        elem_bytes: 2,
        dims: [COLS, ROWS, tiles],
        strides: [(COLS * 2) as u64, TILE_BYTES as u64],
        box_: [COLS, HALF_ROWS, 1],
    };
    (v, map)
}

// ------------------------------------------------------------ ranks

kernel! {
    /// Each block writes its rank and cluster size, then its threads pass
    /// values through shared memory with `cluster_sync` as the barrier.
    pub fn cl_ranks(out: Global<u32>, pass: Global<u32>, sync: u32) {
        let t = thread_idx_x() as usize;
        let n = block_dim_x() as usize;
        let b = (block_idx_y() * grid_dim_x() + block_idx_x()) as usize;
        if t == 0 {
            out.write(2 * b, cluster_ctarank());
            out.write(2 * b + 1, cluster_nctarank());
        }
        let s = dynamic_shared::<u32>();
        s.store(t, 100 * b as u32 + t as u32);
        if sync != 0 {
            cluster_sync();
        }
        pass.write(b * n + t, s.load(n - 1 - t));
    }
}

fn run_ranks(grid: [u32; 2], cluster: u32, sync: u32) -> Result<(Vec<u32>, Vec<u32>), EmuError> {
    let blocks = (grid[0] * grid[1]) as usize;
    let (mut out, mut pass) = (vec![0u32; 2 * blocks], vec![0u32; 32 * blocks]);
    let (o, p) = (global(&mut out, "out"), global(&mut pass, "pass"));
    launch(spec("cl_ranks", grid, 32, 128, cluster), &|| unsafe { cl_ranks(o, p, sync) })?;
    Ok((out, pass))
}

/// Ranks count along x inside each cluster; a launch without clusters is
/// clusters of one; `cluster_sync` is a barrier of the block's threads.
#[test]
fn ranks_follow_the_block_index_and_cluster_sync_orders_shared_memory() {
    for (grid, cluster) in [([8, 1], 4), ([4, 3], 2), ([3, 2], 1), ([8, 1], 8)] {
        let (out, pass) = run_ranks(grid, cluster, 1).unwrap_or_else(|e| panic!("{grid:?} / {cluster}: {e}"));
        for b in 0..(grid[0] * grid[1]) as usize {
            let x = b as u32 % grid[0];
            assert_eq!((out[2 * b], out[2 * b + 1]), (x % cluster, cluster), "block {b} of {grid:?} / {cluster}");
            for t in 0..32 {
                assert_eq!(pass[32 * b + t], 100 * b as u32 + 31 - t as u32);
            }
        }
    }
    // Without the barrier, the same exchange is a race (in a cluster too).
    for cluster in [1, 2] {
        let m = fault(run_ranks([2, 1], cluster, 0));
        assert!(m.contains("race") && m.contains("block (0, 0, 0)"), "{m}");
    }
}

#[test]
fn cluster_geometry_is_checked() {
    let config = |grid: [u32; 2], cluster| match launch(spec("k", grid, 32, 0, cluster), &|| {}) {
        Err(EmuError::Config(m)) => m,
        other => panic!("{grid:?} / {cluster}: expected a configuration error, got {other:?}"),
    };
    let m = config([3, 1], 2);
    assert!(m.contains("cluster of 2") && m.contains("x: 3"), "{m}");
    let m = config([4, 1], 0);
    assert!(m.contains("cluster of 0") && m.contains("x: 4"), "{m}");
    let m = config([16, 1], 16);
    assert!(m.contains("cluster of 16"), "{m}");
    launch(spec("k", [6, 2], 32, 0, 2), &|| {}).unwrap_or_else(|e| panic!("{e}"));
}

// -------------------------------------------------------- multicast

/// The `full` mbarrier of [`cl_tile`], after the tile.
const FULL: u32 = TILE_BYTES;

kernel! {
    /// Each block of a pair multicasts its half of the pair's tile (tile
    /// `block_idx.x / 2`) into both; both expect the whole tile on their
    /// `full` barrier, wait, and write what they hold to `out` (rows of
    /// 64, one tile per block). `mode` plants a misuse: 1 rank 1 returns
    /// right after the cluster barrier while rank 0's copy into it is in
    /// flight, 2 the same with rank 0's copy issued after rank 1 returned,
    /// 3 a mask naming rank 2; 4: rank 1 multicasts both halves into
    /// rank 0 only and returns at once (correct: the copies still land).
    pub fn cl_tile(maps: Global<TensorMap>, out: Global<u16>, mode: u32) {
        let t = thread_idx_x();
        let rank = cluster_ctarank();
        let pair = block_idx_x() / 2;
        if t == 0 {
            mbarrier_init(FULL, 1);
            fence_mbarrier_init_cluster();
        }
        cluster_sync();
        if (mode == 1 || mode == 2) && rank == 1 {
            return;
        }
        if mode == 2 {
            sync_threads();
        }
        if mode == 4 {
            if rank == 1 {
                if t == 0 {
                    fence_proxy_tensormap(maps, 0);
                    for h in 0..2 {
                        tma_load_3d_multicast(h * HALF_BYTES, maps, 0, [0, (HALF_ROWS * h) as i32, pair as i32], FULL, 0b01);
                    }
                }
                return;
            }
            if t == 0 {
                mbarrier_arrive_expect_tx(FULL, TILE_BYTES);
            }
        } else if t == 0 {
            fence_proxy_tensormap(maps, 0);
            mbarrier_arrive_expect_tx(FULL, TILE_BYTES);
            let mask = if mode == 3 { 0b101 } else { 0b11 };
            tma_load_3d_multicast(rank * HALF_BYTES, maps, 0, [0, (HALF_ROWS * rank) as i32, pair as i32], FULL, mask);
        }
        mbarrier_wait(FULL, 0);
        let s = dynamic_shared::<u16>();
        let base = (block_idx_x() * ROWS * COLS) as usize;
        let mut y = t;
        while y < ROWS {
            for x in 0..COLS {
                out.write(base + (y * COLS + x) as usize, s.load((tma_box(0, x, y, 2) / 2) as usize));
            }
            y += block_dim_x();
        }
        // Rank 1 has returned in mode 4; otherwise neither block returns
        // while the other may still use it.
        if mode != 4 {
            cluster_sync();
        }
    }
}

fn run_tile(blocks: u32, mode: u32) -> Result<Vec<u16>, EmuError> {
    let (_src, map) = tiles(blocks / 2);
    let mut maps = vec![map.encode()];
    let mut out = vec![0u16; (blocks * ROWS * COLS) as usize];
    let (m, o) = (global(&mut maps, "maps"), global(&mut out, "out"));
    launch(spec("cl_tile", [blocks, 1], 64, (TILE_BYTES + ATOM_BYTES) as usize, 2), &|| unsafe { cl_tile(m, o, mode) })?;
    Ok(out)
}

/// Whether block `b`'s part of `out` holds its pair's tile.
fn holds_tile(out: &[u16], b: u32) -> bool {
    (0..ROWS).all(|y| (0..COLS).all(|x| Bf16(out[((b * ROWS + y) * COLS + x) as usize]).to_f32() == value(x, y, b / 2)))
}

#[test]
fn a_multicast_lands_in_every_block_of_its_mask() {
    for blocks in [2, 6] {
        let out = run_tile(blocks, 0).unwrap_or_else(|e| panic!("{blocks} blocks: {e}"));
        for b in 0..blocks {
            assert!(holds_tile(&out, b), "block {b} of {blocks} does not hold its pair's tile");
        }
    }
    // Issued by a block that returns at once, the copies still land.
    let out = run_tile(2, 4).unwrap_or_else(|e| panic!("{e}"));
    assert!(holds_tile(&out, 0));
}

#[test]
fn a_multicast_into_a_block_that_returned_or_outside_the_cluster_is_reported() {
    let m = fault(run_tile(2, 1));
    assert!(m.contains("block (1, 0, 0): the TMA copy to byte 0 issued by block (0, 0, 0)") && m.contains("shared memory is gone"), "{m}");
    let m = fault(run_tile(2, 2));
    assert!(m.contains("(multicast) into block (1, 0, 0) (rank 1), whose threads have all returned"), "{m}");
    let m = fault(run_tile(2, 3));
    assert!(m.contains("names rank 2, outside the cluster of 2"), "{m}");
}

kernel! {
    /// A pair loads its tile as [`cl_tile`] does; rank 1's warpgroup
    /// multiplies it with one `wgmma` group; after a cluster barrier rank 0
    /// refills the first half of rank 1's tile. Correct when rank 1 waited
    /// for its group before the barrier; with `mode` 1 the group is still
    /// unfinished when the refill is issued.
    pub fn cl_refill(maps: Global<TensorMap>, out: Global<f32>, mode: u32) {
        let t = thread_idx_x();
        let rank = cluster_ctarank();
        let pair = block_idx_x() / 2;
        if t == 0 {
            mbarrier_init(FULL, 1);
            fence_mbarrier_init_cluster();
        }
        cluster_sync();
        if t == 0 {
            fence_proxy_tensormap(maps, 0);
            mbarrier_arrive_expect_tx(FULL, TILE_BYTES);
            tma_load_3d_multicast(rank * HALF_BYTES, maps, 0, [0, (HALF_ROWS * rank) as i32, pair as i32], FULL, 0b11);
        }
        mbarrier_wait(FULL, 0);
        let mut acc = [0u32; 32];
        let d = SmemDesc::sw128(0, 16, ATOM_BYTES).encode();
        if rank == 1 {
            wgmma_fence();
            wgmma_m64n64k16_bf16::<false, false>(&mut acc, d, d, false);
            wgmma_commit_group();
            if mode == 0 {
                wgmma_wait_group::<0, 32>(&mut acc);
            }
        }
        cluster_sync();
        if rank == 0 && t == 0 {
            tma_load_3d_multicast(0, maps, 0, [0, 0, pair as i32], FULL, 0b10);
        }
        if rank == 1 {
            if t == 0 {
                mbarrier_arrive_expect_tx(FULL, HALF_BYTES);
            }
            mbarrier_wait(FULL, 1);
            wgmma_wait_group::<0, 32>(&mut acc);
            let (row, col) = d_fragment(t, 0);
            out.write((row * ROWS + col) as usize, f32::from_bits(acc[0]));
        }
        cluster_sync();
    }
}

/// A multicast is checked against the unfinished `wgmma` reads of every
/// block it lands in, not only the issuer's.
#[test]
fn a_multicast_into_bytes_a_peers_wgmma_still_reads_is_reported() {
    let run = |mode| {
        let (_src, map) = tiles(1);
        let mut maps = vec![map.encode()];
        let mut out = vec![0.0f32; (ROWS * ROWS) as usize];
        let (m, o) = (global(&mut maps, "maps"), global(&mut out, "out"));
        launch(spec("cl_refill", [2, 1], 128, (TILE_BYTES + ATOM_BYTES) as usize, 2), &|| unsafe { cl_refill(m, o, mode) })
            .map(|()| out)
    };
    let out = run(0).unwrap_or_else(|e| panic!("{e}"));
    let (row, col) = d_fragment(0, 0);
    assert_eq!(out[(row * ROWS + col) as usize], (0..WGMMA_K16).map(|k| value(k, row, 0) * value(k, col, 0)).sum::<f32>());
    let m = fault(run(1));
    assert!(
        m.contains("block (0, 0, 0), thread (0, 0, 0): cp.async.bulk.tensor into bytes 0..4096 of block (1, 0, 0), which an unfinished wgmma group"),
        "{m}"
    );
}

// -------------------------------------------------------------- ring

/// Stages of [`cl_ring`]'s ring (one tile each) and tiles it streams.
const STAGES: u32 = 2;
const PHASES: u32 = 6;
/// The ring's mbarriers after the stages: `full[s]`, then `empty[s]`.
const RING_FULL: u32 = STAGES * TILE_BYTES;
const RING_EMPTY: u32 = RING_FULL + 8 * STAGES;
/// Consumer warps per block (one warpgroup); thread 128 produces.
const CONSUMER_WARPS: u32 = 4;

kernel! {
    /// A producer/consumer ring over a pair of blocks: each block's
    /// producer (thread 128) multicasts its half of each tile into both
    /// blocks' stage; each block's consumer warpgroup waits for the stage,
    /// accumulates `T · Tᵀ` of it with `wgmma` (one group in flight), and
    /// releases the previous stage by arriving (one lane per warp) on the
    /// `empty` barrier of both blocks, since either producer refills both.
    /// A producer waits for its `empty` (the consumers of both blocks)
    /// before refilling. `mode` plants a bug: 1 the remote arrival is
    /// missing; 2 producers and consumers ignore the peer block (`empty`
    /// counts the block's own consumers); 3 the producer never waits.
    pub fn cl_ring(maps: Global<TensorMap>, out: Global<f32>, mode: u32) {
        let t = thread_idx_x();
        let rank = cluster_ctarank();
        let peer = rank ^ 1;
        let pair = block_idx_x() / 2;
        let stage = |s: u32| s * TILE_BYTES;
        if t == 0 {
            let releasers = if mode == 2 { CONSUMER_WARPS } else { 2 * CONSUMER_WARPS };
            for s in 0..STAGES {
                mbarrier_init(RING_FULL + 8 * s, 1);
                mbarrier_init(RING_EMPTY + 8 * s, releasers);
            }
            fence_mbarrier_init_cluster();
        }
        cluster_sync();
        if t == 32 * CONSUMER_WARPS {
            fence_proxy_tensormap(maps, 0);
            for p in 0..PHASES {
                let s = p % STAGES;
                if p >= STAGES && mode != 3 {
                    mbarrier_wait(RING_EMPTY + 8 * s, (p / STAGES - 1) & 1);
                }
                mbarrier_arrive_expect_tx(RING_FULL + 8 * s, TILE_BYTES);
                let coords = [0, (HALF_ROWS * rank) as i32, (pair * PHASES + p) as i32];
                tma_load_3d_multicast(stage(s) + rank * HALF_BYTES, maps, 0, coords, RING_FULL + 8 * s, 0b11);
            }
        } else if t < 32 * CONSUMER_WARPS {
            let mut acc = [0u32; 32];
            for p in 0..PHASES {
                let s = p % STAGES;
                mbarrier_wait(RING_FULL + 8 * s, (p / STAGES) & 1);
                wgmma_fence();
                for j in 0..ROWS / WGMMA_K16 {
                    let d = SmemDesc::sw128(stage(s) + j * 32, 16, ATOM_BYTES).encode();
                    wgmma_m64n64k16_bf16::<false, false>(&mut acc, d, d, p > 0 || j > 0);
                }
                wgmma_commit_group();
                wgmma_wait_group::<1, 32>(&mut acc);
                if p > 0 && t.is_multiple_of(32) {
                    let prev = RING_EMPTY + 8 * ((p - 1) % STAGES);
                    mbarrier_arrive_cluster(prev, rank);
                    if mode == 0 || mode == 3 {
                        mbarrier_arrive_cluster(prev, peer);
                    }
                }
            }
            wgmma_wait_group::<0, 32>(&mut acc);
            let base = (block_idx_x() * ROWS * ROWS) as usize;
            for (r, v) in acc.iter().enumerate() {
                let (row, col) = d_fragment(t, r as u32);
                out.write(base + (row * ROWS + col) as usize, f32::from_bits(*v));
            }
        }
        // No block returns while the other may still arrive on its barriers.
        cluster_sync();
    }
}

fn run_ring(blocks: u32, mode: u32) -> Result<Vec<f32>, EmuError> {
    let (_src, map) = tiles(blocks / 2 * PHASES);
    let mut maps = vec![map.encode()];
    let mut out = vec![0.0f32; (blocks * ROWS * ROWS) as usize];
    let (m, o) = (global(&mut maps, "maps"), global(&mut out, "out"));
    let shared = (STAGES * TILE_BYTES + ATOM_BYTES) as usize;
    launch(spec("cl_ring", [blocks, 1], 32 * CONSUMER_WARPS + 32, shared, 2), &|| unsafe { cl_ring(m, o, mode) })?;
    Ok(out)
}

#[test]
fn a_multicast_ring_released_by_both_blocks_consumers_passes() {
    let blocks = 4;
    let out = run_ring(blocks, 0).unwrap_or_else(|e| panic!("{e}"));
    for b in 0..blocks {
        for m in 0..ROWS {
            for n in 0..ROWS {
                let want: f32 = (0..PHASES)
                    .map(|p| {
                        let z = b / 2 * PHASES + p;
                        (0..COLS).map(|k| value(k, m, z) * value(k, n, z)).sum::<f32>()
                    })
                    .sum();
                assert_eq!(out[((b * ROWS + m) * ROWS + n) as usize], want, "block {b}, ({m}, {n})");
            }
        }
    }
}

/// Without the remote arrival a producer's `empty` never completes: the
/// whole cluster waits. A ring blind to the peer lets a producer refill
/// the peer's stage while the peer's consumers have not read it yet (its
/// `wgmma` finds the refill in flight). A producer that never waits
/// arrives a second time on a `full` phase that has not completed.
#[test]
fn a_ring_that_does_not_release_both_blocks_is_reported() {
    let m = fault(run_ring(2, 1));
    assert!(m.contains("deadlock") && m.contains("mbarrier"), "{m}");
    let m = fault(run_ring(2, 2));
    assert!(m.contains("block (1, 0, 0)") && m.contains("wgmma") && m.contains("has not written yet"), "{m}");
    let m = fault(run_ring(2, 3));
    assert!(m.contains("mbarrier.arrive.expect_tx") && m.contains("more arrivals"), "{m}");
}

// ---------------------------------------------------- remote arrivals

kernel! {
    /// Both blocks of a pair initialise an mbarrier for two arrivals;
    /// thread 0 of each arrives on its own and on the peer's, then every
    /// thread waits for the phase. `mode` plants a bug: 1 no cluster
    /// barrier between the initialisation and the arrivals; 2 rank 1
    /// returns after the cluster barrier; 3 rank 1 initialises a second
    /// mbarrier after the cluster barrier, which rank 0 arrives on.
    pub fn cl_arrive(out: Global<u32>, mode: u32) {
        let t = thread_idx_x();
        let rank = cluster_ctarank();
        let (bar, late) = (0u32, 8u32);
        if t == 0 {
            mbarrier_init(bar, 2);
            fence_mbarrier_init_cluster();
        }
        if mode != 1 {
            cluster_sync();
        }
        if mode == 3 && rank == 1 && t == 0 {
            mbarrier_init(late, 1);
        }
        if mode == 2 && rank == 1 {
            return;
        }
        // A pass later: the peer has initialised (or returned) by then.
        sync_threads();
        if t == 0 {
            mbarrier_arrive_cluster(bar, rank);
            mbarrier_arrive_cluster(if mode == 3 { late } else { bar }, rank ^ 1);
        }
        mbarrier_wait(bar, 0);
        out.write((block_idx_x() * block_dim_x() + t) as usize, 1 + rank);
        cluster_sync();
    }
}

fn run_arrive(mode: u32) -> Result<Vec<u32>, EmuError> {
    let mut out = vec![0u32; 4 * 32];
    let o = global(&mut out, "out");
    launch(spec("cl_arrive", [4, 1], 32, 64, 2), &|| unsafe { cl_arrive(o, mode) })?;
    Ok(out)
}

#[test]
fn remote_arrivals_complete_the_peers_phase() {
    let out = run_arrive(0).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out, (0..128).map(|i| 1 + (i / 32) % 2).collect::<Vec<u32>>());
}

#[test]
fn a_remote_arrival_before_the_cluster_barrier_or_into_a_returned_block_is_reported() {
    let m = fault(run_arrive(1));
    assert!(m.contains("before that block passed a cluster barrier") && m.contains("cluster_sync"), "{m}");
    assert!(m.contains("block (0, 0, 0), thread (0, 0, 0): mbarrier.arrive.shared::cluster into block (1, 0, 0)"), "{m}");
    let m = fault(run_arrive(2));
    assert!(m.contains("into block (1, 0, 0) (rank 1), whose threads have all returned"), "{m}");
    let m = fault(run_arrive(3));
    assert!(m.contains("mbarrier at byte 8 of block (1, 0, 0), initialised after that block's last cluster barrier"), "{m}");
}

// ------------------------------------------------- divergent barriers

kernel! {
    /// Every thread of the pair meets at the cluster barrier, except:
    /// 1 thread 0 of rank 1 returns first; 2 all of rank 1 returns first;
    /// 3 thread 0 of rank 0 waits at `sync_threads` instead.
    pub fn cl_diverge(out: Global<u32>, mode: u32) {
        let t = thread_idx_x();
        let rank = cluster_ctarank();
        if rank == 1 && (mode == 2 || (mode == 1 && t == 0)) {
            return;
        }
        if mode == 3 && rank == 0 && t == 0 {
            sync_threads();
        } else {
            cluster_sync();
        }
        out.write((block_idx_x() * block_dim_x() + t) as usize, 1);
    }
}

#[test]
fn a_divergent_cluster_barrier_is_reported() {
    let run = |mode| {
        let mut out = vec![0u32; 64];
        let o = global(&mut out, "out");
        launch(spec("cl_diverge", [2, 1], 32, 0, 2), &|| unsafe { cl_diverge(o, mode) }).map(|()| out)
    };
    assert_eq!(run(0).unwrap_or_else(|e| panic!("{e}")), vec![1; 64]);
    let m = fault(run(1));
    assert!(m.contains("block (1, 0, 0): divergent cluster barrier: thread (0, 0, 0) returned while thread (1, 0, 0) waits"), "{m}");
    let m = fault(run(2));
    assert!(
        m.contains("block (0, 0, 0): divergent cluster barrier: every thread of block (1, 0, 0) (rank 1) returned"),
        "{m}"
    );
    let m = fault(run(3));
    assert!(m.contains("deadlock: thread (0, 0, 0) waits at sync_threads while thread (1, 0, 0) waits at cluster_sync"), "{m}");
}
