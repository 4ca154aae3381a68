//! Host side of [`crate::arch`]'s sm_90a instructions (documented in
//! `arch/sm90.rs`): mbarriers, TMA copies and `wgmma` on the emulator.
//!
//! The block's asynchronous state ([`BlockAsync`]) lives beside its shared
//! memory: the mbarriers by address, the TMA copies issued but not landed,
//! and the shared-memory ranges that `wgmma` groups not yet waited for
//! read. The scheduler lands the copies at the start of each pass
//! ([`land`]), so a copy issued in one pass is visible to the next.
//!
//! Thread-block clusters: the blocks of a cluster run in one scheduling
//! loop and reach each other through [`BlockCtx::peer`]. A remote
//! arrival ([`mbarrier_arrive_cluster`]) updates the target block's
//! mbarrier at once; a multicast copy ([`tma_load_3d_multicast`]) reads
//! its box once and queues it in every destination block, where it lands
//! like a copy of that block's own. Each is checked against the target:
//! a rank of the cluster, a block still running, which has passed a
//! cluster barrier since it initialised the mbarrier (the barrier
//! publishes initialisations to the cluster: [`publish`]).

use std::collections::BTreeMap;
use std::format;
use std::string::String;
use std::vec::Vec;

use super::device::Global;
use super::sched::{current, fault, suspend, warp_of, BlockCtx, Yield, MAX_WARPS};
use crate::arch::sm90::{EmuTensorMap, TensorMap};
use crate::layout::wgmma::{d_fragment, tma_box, SmemDesc, ATOM_BYTES, ROW_BYTES, SWIZZLE_128B, WARPGROUP, WGMMA_K16, WGMMA_M};
use crate::numeric::{tf32_operand, Bf16, F16};

/// One mbarrier: its phase and what the phase still waits for.
#[derive(Clone, Copy, Debug)]
struct Mbar {
    /// Arrivals each phase expects.
    expected: u32,
    /// Arrivals still missing in the current phase.
    pending: u32,
    /// Transaction bytes still expected in the current phase (may go
    /// below zero while a copy completes before its `expect_tx`).
    tx: i64,
    /// Completed phases (the current phase's parity is `phase & 1`).
    phase: u32,
    /// Per warp, the stamp below which its accesses are ordered before the
    /// arrivals so far in the current phase (the join of their releases,
    /// [`super::sched::SharedState::release`]; 0: none), and the same of
    /// the last completed phase: a thread whose wait sees that phase
    /// complete acquires them
    /// ([`super::sched::SharedState::acquire`]), so bytes written before an
    /// arrival and read after the wait are not a race.
    arriving: [u32; MAX_WARPS],
    released: [u32; MAX_WARPS],
    /// Whether a cluster barrier has passed since the initialisation: the
    /// other blocks of the cluster may use the mbarrier only then.
    published: bool,
}

/// A TMA copy in flight: its bytes, read when it was issued.
struct Copy {
    dst: u32,
    bytes: Vec<u8>,
    bar: u32,
    /// Rank of the issuing block in its cluster (a multicast copy from
    /// another block lands here too).
    from: u32,
}

/// A TMA store issued but not yet waited for: the box as read at issue.
struct Store {
    /// Issuing thread and its bulk group.
    tid: u32,
    group: u32,
    src: u32,
    bytes: Vec<u8>,
    map: EmuTensorMap,
    coords: [i32; 3],
}

/// Shared memory read by one unfinished `wgmma` group of a warpgroup.
struct Read {
    warpgroup: u32,
    group: u32,
    lo: u32,
    hi: u32,
}

/// The asynchronous state of one emulated block.
pub(crate) struct BlockAsync {
    mbars: BTreeMap<u32, Mbar>,
    copies: Vec<Copy>,
    reads: Vec<Read>,
    /// Per thread: the index of its open `wgmma` group (= groups committed).
    committed: Vec<u32>,
    /// TMA stores not yet waited for.
    stores: Vec<Store>,
    /// Per thread: the index of its open bulk async-group.
    bulk_committed: Vec<u32>,
    /// Changes to mbarriers (arrivals, transactions, phases): the scheduler
    /// tells a deadlock from a wait that is still making progress.
    progress: u64,
}

impl BlockAsync {
    pub(crate) fn new(threads: usize) -> Self {
        BlockAsync {
            mbars: BTreeMap::new(),
            copies: Vec::new(),
            reads: Vec::new(),
            committed: std::vec![0; threads],
            stores: Vec::new(),
            bulk_committed: std::vec![0; threads],
            progress: 0,
        }
    }

    pub(crate) fn progress(&self) -> u64 {
        self.progress
    }

    pub(crate) fn copies_in_flight(&self) -> bool {
        !self.copies.is_empty()
    }

    fn mbar(&mut self, bar: u32, op: &str) -> Result<&mut Mbar, String> {
        self.mbars.get_mut(&bar).ok_or_else(|| format!("{op} on byte {bar}, which holds no initialised mbarrier"))
    }

    /// Applies an arrival (`arrivals` of them) and `tx` transaction bytes
    /// to `bar`; completes the phase when nothing is missing.
    fn update(&mut self, bar: u32, arrivals: u32, tx: i64, op: &str) -> Result<(), String> {
        self.update_from(bar, arrivals, tx, op, None)
    }

    /// [`BlockAsync::update`] by an arriving thread whose release is `by`
    /// ([`super::sched::SharedState::release`]).
    fn update_from(&mut self, bar: u32, arrivals: u32, tx: i64, op: &str, by: Option<[u32; MAX_WARPS]>) -> Result<(), String> {
        let m = self.mbar(bar, op)?;
        if let Some(v) = by {
            for (a, s) in m.arriving.iter_mut().zip(v) {
                *a = (*a).max(s);
            }
        }
        if arrivals > m.pending {
            return Err(format!(
                "{op} on the mbarrier at byte {bar}: more arrivals than the {} its phase expects",
                m.expected
            ));
        }
        m.pending -= arrivals;
        m.tx += tx;
        if m.pending == 0 && m.tx == 0 {
            m.phase += 1;
            m.pending = m.expected;
            m.released = core::mem::replace(&mut m.arriving, [0; MAX_WARPS]);
        }
        self.progress += 1;
        Ok(())
    }
}

/// Runs `f` on the block's asynchronous state; a returned error is a fault
/// of the calling thread.
fn with_async<R>(f: impl FnOnce(&mut BlockAsync) -> Result<R, String>) -> R {
    with_async_of(current().0, f)
}

/// [`with_async`] on the asynchronous state of block `b` (the caller's
/// or another block of its cluster).
fn with_async_of<R>(b: &BlockCtx, f: impl FnOnce(&mut BlockAsync) -> Result<R, String>) -> R {
    let r = f(&mut b.hopper.borrow_mut());
    r.unwrap_or_else(|m| fault(m))
}

/// Checks that `n` bytes at `addr` lie inside the block's shared memory.
fn check_shared(addr: u32, n: u32, what: &str) {
    let (b, _) = current();
    let len = b.shared.borrow().len;
    if addr as usize + n as usize > len {
        fault(format!("{what}: bytes {addr}..{} are outside the {len} bytes of dynamic shared memory", addr as usize + n as usize));
    }
}

pub(crate) unsafe fn mbarrier_init(bar: u32, count: u32) {
    if bar % 8 != 0 {
        fault(format!("mbarrier.init at byte {bar}: an mbarrier is 8-byte aligned"));
    }
    if count == 0 || count >= 1 << 20 {
        fault(format!("mbarrier.init at byte {bar}: count {count} is outside 1..2^20"));
    }
    check_shared(bar, 8, "mbarrier.init");
    with_async(|a| {
        a.mbars.insert(
            bar,
            Mbar { expected: count, pending: count, tx: 0, phase: 0, arriving: [0; MAX_WARPS], released: [0; MAX_WARPS], published: false },
        );
        a.progress += 1;
        Ok(())
    })
}

/// Arrives, then yields to the other threads until the next pass: a
/// consumer that releases a stage too early (before `wgmma.wait_group`
/// retired the group reading it) lets the producer refill the stage while
/// the reads are in flight, and the refill's check reports it.
pub(crate) unsafe fn mbarrier_arrive(bar: u32) {
    let by = release();
    with_async(|a| a.update_from(bar, 1, 0, "mbarrier.arrive", Some(by)));
    let (_, t) = current();
    t.spin_on.set((bar, 2));
    suspend(Yield::Spin);
}

pub(crate) unsafe fn mbarrier_arrive_expect_tx(bar: u32, bytes: u32) {
    let by = release();
    with_async(|a| a.update_from(bar, 1, bytes as i64, "mbarrier.arrive.expect_tx", Some(by)))
}

/// The release of the calling thread's arrival (`mbarrier.arrive`
/// releases the thread's earlier accesses, and those ordered before them).
fn release() -> [u32; MAX_WARPS] {
    let (b, t) = current();
    b.shared.borrow_mut().release(warp_of(t.linear))
}

pub(crate) unsafe fn mbarrier_wait(bar: u32, parity: u32) {
    if parity > 1 {
        fault(format!("mbarrier wait on byte {bar} with parity {parity} (0 or 1)"));
    }
    loop {
        let phase = with_async(|a| Ok(a.mbar(bar, "mbarrier.try_wait.parity")?.phase));
        // The phase of parity `parity` has completed when the current
        // phase has the other parity.
        if phase & 1 != parity {
            // The wait acquires what the arrivals of the completed phase
            // released.
            let released = with_async(|a| Ok(a.mbar(bar, "mbarrier.try_wait.parity")?.released));
            let (b, t) = current();
            b.shared.borrow_mut().acquire(warp_of(t.linear), &released);
            return;
        }
        let (_, t) = current();
        t.spin_on.set((bar, parity));
        suspend(Yield::Spin);
    }
}

pub(crate) unsafe fn fence_proxy_tensormap(maps: Global<TensorMap>, i: usize) {
    // The read checks that the map is inside its buffer.
    let _ = unsafe { maps.read_unaligned(i) };
}

/// Issues a TMA copy: reads the box now (zero outside the tensor), checks
/// the destination, and queues the bytes to land in the next pass.
pub(crate) unsafe fn tma_load_3d(dst: u32, maps: Global<TensorMap>, i: usize, coords: [i32; 3], bar: u32) {
    let bytes = read_box(dst, maps, i, coords, "cp.async.bulk.tensor");
    let (b, _) = current();
    with_async(|a| queue_copy(a, dst, bytes, bar, b.rank, ""))
}

/// The box of `maps[i]` at `coords` (zero outside the tensor) as it lands
/// at `dst`, read now; `dst` checked (alignment, inside shared memory).
fn read_box(dst: u32, maps: Global<TensorMap>, i: usize, coords: [i32; 3], op: &str) -> Vec<u8> {
    let m = emu_map(maps, i, op);
    let es = m.elem_bytes;
    // Measured on an H200 (BENCHMARKS.md, "Odd `lda`: residue maps"): a
    // 128-byte-swizzled load whose box starts inside a 16-byte piece of its
    // rows raised an illegal instruction, whatever the map's base.
    if (coords[0] as i64 * es as i64) % 16 != 0 {
        fault(format!("{op}: the box starts at element {} of its rows, not on a 16-byte boundary (the hardware raises an illegal instruction)", coords[0]));
    }
    if !dst.is_multiple_of(ATOM_BYTES) {
        fault(format!("{op}: destination byte {dst} is not 1024-byte aligned (128-byte swizzle)"));
    }
    let n = m.box_[0] * m.box_[1] * m.box_[2] * es;
    check_shared(dst, n, &format!("{op} destination"));
    let mut bytes = std::vec![0u8; n as usize];
    let dims = m.dims.map(|d| d as i64);
    box_elements(&m, dst, coords, dims, op, |at, src| {
        // SAFETY: inside the buffer the map describes (checked).
        let src = unsafe { core::slice::from_raw_parts(src as *const u8, es as usize) };
        bytes[at..at + es as usize].copy_from_slice(src);
    });
    bytes
}

/// Queues a copy of `bytes` to `dst` completing on `bar`, issued by the
/// block of rank `from`, in the block whose state is `a` (`whose` names
/// that block in faults when it is another than the issuer's): checked
/// against the unfinished `wgmma` reads and the copies in flight there.
fn queue_copy(a: &mut BlockAsync, dst: u32, bytes: Vec<u8>, bar: u32, from: u32, whose: &str) -> Result<(), String> {
    a.mbar(bar, "cp.async.bulk.tensor completion")?;
    let (lo, hi) = (dst, dst + bytes.len() as u32);
    if let Some(r) = a.reads.iter().find(|r| r.lo < hi && lo < r.hi) {
        return Err(format!(
            "cp.async.bulk.tensor into bytes {lo}..{hi}{whose}, which an unfinished wgmma group of warpgroup {} still reads \
             (bytes {}..{}): the stage was refilled before wgmma.wait_group retired the group that reads it",
            r.warpgroup, r.lo, r.hi
        ));
    }
    if let Some(c) = a.copies.iter().find(|c| c.dst < hi && lo < c.dst + c.bytes.len() as u32) {
        return Err(format!("cp.async.bulk.tensor into bytes {lo}..{hi}{whose} while another copy into byte {} is in flight", c.dst));
    }
    a.copies.push(Copy { dst, bytes, bar, from });
    Ok(())
}

// ------------------------------------------------------------- clusters

pub(crate) fn cluster_ctarank() -> u32 {
    current().0.rank
}

pub(crate) fn cluster_nctarank() -> u32 {
    current().0.cluster_size
}

/// Waits at the cluster barrier with every thread of every block of the
/// cluster (without clusters: every thread of the block). Its release ends
/// a barrier interval in each block, as `sync_threads` does, and publishes
/// each block's mbarriers to the cluster ([`publish`]).
pub(crate) fn cluster_sync() {
    super::sched::cluster_barrier()
}

/// Nothing to do: the emulator's cluster barrier (`.release`, then
/// `.acquire`) publishes every mbarrier initialised before it.
pub(crate) fn fence_mbarrier_init_cluster() {}

/// Marks block `b` as past a cluster barrier, with every mbarrier it has
/// initialised so far: the scheduler calls it when the barrier releases.
pub(crate) fn publish(b: &BlockCtx) {
    b.published.set(true);
    for m in b.hopper.borrow_mut().mbars.values_mut() {
        m.published = true;
    }
}

/// The block of rank `cta` of the calling thread's cluster as the target
/// of the remote operation `op`: a rank of the cluster and, unless it is
/// the caller's own block, a block still running that has passed a
/// cluster barrier (before that, its mbarrier initialisations are not
/// visible to the others: the classic missing `cluster_sync` after
/// `mbarrier.init`).
fn target(cta: u32, op: &str) -> &'static BlockCtx {
    let (b, _) = current();
    if cta >= b.cluster_size {
        fault(format!("{op}: rank {cta} is outside the cluster of {} block(s)", b.cluster_size));
    }
    let p = b.peer(cta);
    if cta != b.rank {
        if p.finished.get() {
            fault(format!("{op} into {} (rank {cta}), whose threads have all returned: its shared memory is gone", p.name()));
        }
        if !p.published.get() {
            fault(format!(
                "{op} into {} (rank {cta}) before that block passed a cluster barrier: its mbarrier initialisations \
                 are not visible to the cluster yet (fence_mbarrier_init_cluster, then cluster_sync, before remote use)",
                p.name()
            ));
        }
    }
    p
}

/// Checks that `bar` holds an mbarrier of block `p` (whose state is `a`)
/// published to the cluster by a cluster barrier after its initialisation.
fn check_published(a: &mut BlockAsync, p: &BlockCtx, bar: u32, op: &str) -> Result<(), String> {
    let m = a.mbar(bar, &format!("{op} into {}", p.name()))?;
    if !m.published {
        return Err(format!(
            "{op} on the mbarrier at byte {bar} of {}, initialised after that block's last cluster barrier: \
             no cluster_sync has published it to the cluster",
            p.name()
        ));
    }
    Ok(())
}

/// One arrival on the mbarrier at `bar` of block `cta` of the cluster.
/// On the caller's own block it is [`mbarrier_arrive`] (the race checker
/// orders the arriving warp's accesses before the phase's waiters); on
/// another block just the arrival (the warps of two blocks share no
/// shared memory to order). Then yields to the other threads until the
/// next pass, as [`mbarrier_arrive`] does.
pub(crate) unsafe fn mbarrier_arrive_cluster(bar: u32, cta: u32) {
    const OP: &str = "mbarrier.arrive.shared::cluster";
    let p = target(cta, OP);
    let (b, t) = current();
    if cta == b.rank {
        let by = release();
        with_async(|a| a.update_from(bar, 1, 0, OP, Some(by)));
    } else {
        with_async_of(p, |a| {
            check_published(a, p, bar, OP)?;
            a.update(bar, 1, 0, OP)
        });
    }
    t.spin_on.set((bar, 2));
    suspend(Yield::Spin);
}

/// Issues a multicast TMA copy: reads the box once now, then queues it in
/// every block of `mask` (checked as the target of a remote operation,
/// and as [`tma_load_3d`] checks its destination: no unfinished `wgmma`
/// of that block reads the bytes, no copy into them is in flight). Each
/// lands in the next pass and completes its bytes on that block's `bar`,
/// whether or not the issuing block's threads are still running.
pub(crate) unsafe fn tma_load_3d_multicast(dst: u32, maps: Global<TensorMap>, i: usize, coords: [i32; 3], bar: u32, mask: u16) {
    const OP: &str = "cp.async.bulk.tensor (multicast)";
    let (b, _) = current();
    if mask == 0 {
        fault(format!("{OP}: the CTA mask is empty"));
    }
    let top = 15 - mask.leading_zeros();
    if top >= b.cluster_size {
        fault(format!("{OP}: mask {mask:#06x} names rank {top}, outside the cluster of {} block(s)", b.cluster_size));
    }
    let bytes = read_box(dst, maps, i, coords, OP);
    for r in (0..b.cluster_size).filter(|r| mask >> r & 1 != 0) {
        let p = target(r, OP);
        if r == b.rank {
            with_async(|a| queue_copy(a, dst, bytes.clone(), bar, r, ""));
        } else {
            let whose = format!(" of {}", p.name());
            with_async_of(p, |a| {
                check_published(a, p, bar, OP)?;
                queue_copy(a, dst, bytes.clone(), bar, b.rank, &whose)
            });
        }
    }
}

/// The tensor map `maps[i]` of a TMA instruction (`op`), decoded and checked
/// for the 128-byte swizzle.
fn emu_map(maps: Global<TensorMap>, i: usize, op: &str) -> EmuTensorMap {
    let map = unsafe { maps.read_unaligned(i) };
    let Some(m) = EmuTensorMap::decode(&map) else {
        fault(format!("{op}: tensor map {i} of `{}` is not an emulator tensor map", maps.name()));
    };
    if m.box_[0] * m.elem_bytes != ROW_BYTES {
        fault(format!("{op}: box rows of {} bytes; the 128-byte swizzle wants 128", m.box_[0] * m.elem_bytes));
    }
    m
}

/// Issues a TMA store: checks the source (aligned, inside shared memory,
/// written by this block), reads the box now and queues the store on the
/// thread's open bulk group; [`bulk_wait_group_read`] writes it.
pub(crate) unsafe fn tma_store_3d(src: u32, maps: Global<TensorMap>, i: usize, coords: [i32; 3]) {
    const OP: &str = "cp.async.bulk.tensor (store)";
    let m = emu_map(maps, i, OP);
    if src % ATOM_BYTES != 0 {
        fault(format!("{OP}: source byte {src} is not 1024-byte aligned (128-byte swizzle)"));
    }
    let n = m.box_[0] * m.box_[1] * m.box_[2] * m.elem_bytes;
    check_shared(src, n, &format!("{OP} source"));
    let (b, t) = current();
    let bytes = {
        let mut sh = b.shared.borrow_mut();
        if !sh.initialised(src as usize, n as usize) {
            drop(sh);
            fault(format!("{OP}: source bytes {src}..{} include shared memory this block never wrote", src + n));
        }
        // SAFETY: inside shared memory (checked).
        unsafe { core::slice::from_raw_parts(sh.bytes().add(src as usize), n as usize) }.to_vec()
    };
    let tid = t.linear;
    with_async(|a| {
        let group = a.bulk_committed[tid as usize];
        a.stores.push(Store { tid, group, src, bytes, map: m, coords });
        Ok(())
    })
}

pub(crate) fn bulk_commit_group() {
    let (_, t) = current();
    with_async(|a| {
        a.bulk_committed[t.linear as usize] += 1;
        Ok(())
    })
}

/// Completes the calling thread's stores of groups older than the `N`
/// most recent: checks that their shared-memory bytes are still those read
/// at issue, then writes the box's elements inside the tensor.
pub(crate) fn bulk_wait_group_read<const N: u32>() {
    let (b, t) = current();
    let tid = t.linear;
    let done = with_async(|a| {
        let below = a.bulk_committed[tid as usize].saturating_sub(N);
        let (done, keep) = core::mem::take(&mut a.stores).into_iter().partition(|s| s.tid == tid && s.group < below);
        a.stores = keep;
        Ok::<Vec<Store>, String>(done)
    });
    for st in done {
        let now = {
            let mut sh = b.shared.borrow_mut();
            // SAFETY: checked against the shared size at issue.
            unsafe { core::slice::from_raw_parts(sh.bytes().add(st.src as usize), st.bytes.len()) }.to_vec()
        };
        if let Some(at) = (0..now.len()).find(|&j| now[j] != st.bytes[j]) {
            fault(format!(
                "cp.async.bulk.wait_group.read: byte {} of the TMA store from byte {} changed between the store's issue and this wait \
                 (overwritten before the store had read it)",
                st.src as usize + at,
                st.src
            ));
        }
        // As an H100 does: the innermost dimension is clipped in whole
        // 16-byte pieces (a piece holding the last element is written whole).
        let es = st.map.elem_bytes as usize;
        let row_end = (st.map.dims[0] as usize * es).next_multiple_of(16) / es;
        let ends = [row_end as i64, st.map.dims[1] as i64, st.map.dims[2] as i64];
        box_elements(&st.map, st.src, st.coords, ends, "cp.async.bulk.tensor (store)", |at, dst| {
            // SAFETY: inside the buffer the map describes (checked).
            let dst = unsafe { core::slice::from_raw_parts_mut(dst as *mut u8, es) };
            dst.copy_from_slice(&st.bytes[at..at + es]);
        });
    }
}

/// Calls `f(at, address)` for every element of the box of `m` at `coords`
/// whose coordinates lie below `ends` (elements, innermost first): `at` is
/// its byte in the box's shared-memory image at `image` (rows of 128 bytes,
/// swizzled by address), `address` its host address in the tensor, checked
/// to lie inside the map's buffer (`op` names the fault).
fn box_elements(m: &EmuTensorMap, image: u32, coords: [i32; 3], ends: [i64; 3], op: &str, mut f: impl FnMut(usize, u64)) {
    let es = m.elem_bytes;
    for z in 0..m.box_[2] {
        for y in 0..m.box_[1] {
            for x in 0..m.box_[0] {
                let g = [coords[0] as i64 + x as i64, coords[1] as i64 + y as i64, coords[2] as i64 + z as i64];
                if !(0..3).all(|d| g[d] >= 0 && g[d] < ends[d]) {
                    continue;
                }
                let off = g[0] as u64 * es as u64 + g[1] as u64 * m.strides[0] + g[2] as u64 * m.strides[1];
                if off + es as u64 > m.len {
                    fault(format!("{op}: element ({}, {}, {}) at byte {off} is past the {} bytes of the tensor's buffer", g[0], g[1], g[2], m.len));
                }
                f((tma_box(image, x, z * m.box_[1] + y, es) - image) as usize, m.base + off);
            }
        }
    }
}

/// Called when thread `tid` returns: a fault message when it left TMA
/// stores it never waited for (their shared memory may be gone before
/// they read it).
pub(crate) fn on_return(b: &BlockCtx, tid: u32) -> Option<String> {
    let a = b.hopper.borrow();
    a.stores.iter().find(|s| s.tid == tid).map(|s| {
        format!("returned with the TMA store from shared byte {} not waited for (cp.async.bulk.wait_group.read)", s.src)
    })
}

/// Lands every TMA copy in flight: writes its bytes to shared memory
/// (initialised, outside the race checks) and completes them on its
/// mbarrier. Called by the scheduler at the start of each pass.
pub(crate) fn land(b: &BlockCtx) -> Result<(), String> {
    let mut a = b.hopper.borrow_mut();
    if a.copies.is_empty() {
        return Ok(());
    }
    if b.finished.get() {
        let c = &a.copies[0];
        return Err(format!(
            "the TMA copy to byte {} issued by {} (rank {}) lands after every thread of this block returned: \
             its shared memory is gone",
            c.dst,
            b.peer(c.from).name(),
            c.from
        ));
    }
    let copies = core::mem::take(&mut a.copies);
    let mut sh = b.shared.borrow_mut();
    for c in copies {
        let n = c.bytes.len();
        // SAFETY: dst..dst + n was checked against the shared size at issue.
        unsafe { core::ptr::copy_nonoverlapping(c.bytes.as_ptr(), sh.bytes().add(c.dst as usize), n) };
        sh.on_async_write(c.dst as usize, n);
        a.update(c.bar, 0, -(n as i64), "a TMA copy's completion")?;
    }
    Ok(())
}

pub(crate) fn wgmma_fence() {}

/// Closes the thread's open group.
pub(crate) fn wgmma_commit_group() {
    let (_, t) = current();
    with_async(|a| {
        a.committed[t.linear as usize] += 1;
        Ok(())
    })
}

/// Retires the groups older than the `N` most recent: their shared-memory
/// reads are over.
pub(crate) fn wgmma_wait_group<const N: u32, const R: usize>(_acc: &mut [u32; R]) {
    let (_, t) = current();
    let tid = t.linear;
    with_async(|a| {
        let done_below = a.committed[tid as usize].saturating_sub(N);
        // Reads are registered by the warpgroup's first thread.
        if tid % WARPGROUP == 0 {
            let wg = tid / WARPGROUP;
            a.reads.retain(|r| r.warpgroup != wg || r.group >= done_below);
        }
        Ok(())
    })
}

/// Nothing to order on the emulator (its `wgmma` completes when issued).
pub(crate) fn wgmma_fence_regs<const R: usize>(_acc: &mut [u32; R]) {}

pub(crate) fn fence_proxy_async_shared() {}
pub(crate) fn setmaxnreg_inc_232() {}
pub(crate) fn setmaxnreg_dec_40() {}
/// The emulator runs one launch after another: the previous one has ended
/// and its writes are visible before a block starts. The wait ends the
/// thread's ban on global memory in a programmatic dependent launch
/// (`LaunchSpec::dependent`).
pub(crate) fn griddepcontrol_wait() {
    super::sched::current().1.awaiting_grid.set(false);
}
pub(crate) fn griddepcontrol_launch_dependents() {}

/// Element kinds of `wgmma` operands.
#[derive(Clone, Copy)]
enum Ty {
    Bf16,
    F16,
    /// 32-bit elements read as tf32 (`k` = 8 per instruction).
    Tf32,
}

impl Ty {
    /// Bytes per element and `k` of one instruction (32 bytes of each row).
    const fn geometry(self) -> (u32, u32) {
        match self {
            Ty::Bf16 | Ty::F16 => (2, WGMMA_K16),
            Ty::Tf32 => (4, WGMMA_K16 / 2),
        }
    }
}

/// One `wgmma.m64nNk16` (`k8` for tf32) of the calling thread: its accumulator fragment
/// from the operands the descriptors address (the warpgroup's first thread
/// also checks the operands and registers the bytes read as in flight).
fn wgmma<const R: usize>(ty: Ty, ta: bool, tb: bool, acc: &mut [u32; R], desc_a: u64, desc_b: u64, scale_d: bool) {
    let n = 2 * R as u32;
    let (b, t) = current();
    let threads = b.block_dim.volume() as u32;
    let tid = t.linear;
    let wg = tid / WARPGROUP;
    if (wg + 1) * WARPGROUP > threads {
        fault(format!("wgmma: thread {tid} is in warpgroup {wg}, which the block of {threads} threads does not fill"));
    }
    let (da, db) = (SmemDesc::decode(desc_a), SmemDesc::decode(desc_b));
    for (d, which) in [(da, "A"), (db, "B")] {
        if d.swizzle != SWIZZLE_128B || d.base_offset != 0 {
            fault(format!("wgmma: operand {which}'s descriptor has swizzle mode {} and base offset {}; the emulator models the 128-byte swizzle with base offset 0", d.swizzle, d.base_offset));
        }
    }
    let (es, kk) = ty.geometry();
    let a_at = |m: u32, k: u32| if ta { da.mn_major(m, k, es) } else { da.k_major(m, k, es) };
    let b_at = |k: u32, nn: u32| if tb { db.mn_major(nn, k, es) } else { db.k_major(nn, k, es) };
    let mut sh = b.shared.borrow_mut();
    let len = sh.len as u32;
    if tid % WARPGROUP == 0 {
        // The warpgroup's first thread checks the operands (the others
        // use the same descriptors) and registers them as read until the
        // group is waited for.
        let span = |at: &dyn Fn(u32, u32) -> u32, rows: u32| {
            let (mut lo, mut hi) = (u32::MAX, 0);
            for r in 0..rows {
                for k in 0..kk {
                    let x = at(r, k);
                    lo = lo.min(x);
                    hi = hi.max(x + es);
                }
            }
            (lo, hi)
        };
        let spans = [(span(&a_at, WGMMA_M), "A"), (span(&|nn, k| b_at(k, nn), n), "B")];
        let mut ab = b.hopper.borrow_mut();
        for ((lo, hi), which) in spans {
            let problem = if hi > len {
                Some(format!("reaches byte {hi}, past the {len} bytes of dynamic shared memory"))
            } else if let Some(c) = ab.copies.iter().find(|c| c.dst < hi && lo < c.dst + c.bytes.len() as u32) {
                Some(format!("reads what the TMA copy to byte {} has not written yet: wait on its mbarrier first", c.dst))
            } else if !sh.initialised(lo as usize, (hi - lo) as usize) {
                Some("reads uninitialised shared memory".into())
            } else {
                None
            };
            if let Some(p) = problem {
                drop(ab);
                drop(sh);
                fault(format!("wgmma: operand {which} (bytes {lo}..{hi}) {p}"));
            }
            let group = ab.committed[tid as usize];
            ab.reads.push(Read { warpgroup: wg, group, lo, hi });
        }
    }
    let bytes = sh.bytes();
    let read = |at: u32| -> f32 {
        if at + es > len {
            return f32::NAN;
        }
        // SAFETY: inside shared memory (checked above).
        unsafe {
            match ty {
                Ty::Bf16 => Bf16((bytes.add(at as usize) as *const u16).read_unaligned()).to_f32(),
                Ty::F16 => F16((bytes.add(at as usize) as *const u16).read_unaligned()).to_f32(),
                Ty::Tf32 => tf32_operand((bytes.add(at as usize) as *const u32).read_unaligned()),
            }
        }
    };
    drop(sh);
    // The thread's two rows of A, then each of its columns of B once.
    let tw = tid % WARPGROUP;
    let rows = [d_fragment(tw, 0).0, d_fragment(tw, 2).0];
    // Rows of `k` (`kk` used: the tail of a tf32 row stays 0).
    let a_rows: [[f32; WGMMA_K16 as usize]; 2] =
        core::array::from_fn(|h| core::array::from_fn(|k| if (k as u32) < kk { read(a_at(rows[h], k as u32)) } else { 0.0 }));
    for i in 0..R / 4 {
        for e in 0..2 {
            let col = d_fragment(tw, (4 * i + e) as u32).1;
            debug_assert!(col < n);
            let bcol: [f32; WGMMA_K16 as usize] = core::array::from_fn(|k| if (k as u32) < kk { read(b_at(k as u32, col)) } else { 0.0 });
            for (h, arow) in a_rows.iter().enumerate() {
                let reg = 4 * i + 2 * h + e;
                debug_assert_eq!(d_fragment(tw, reg as u32), (rows[h], col));
                let mut v = if scale_d { f32::from_bits(acc[reg]) } else { 0.0 };
                for k in 0..kk as usize {
                    v = f32::mul_add(arow[k], bcol[k], v);
                }
                acc[reg] = v.to_bits();
            }
        }
    }
}

macro_rules! wgmma_entry {
    ($($name:ident, $n:literal, $ty:expr;)*) => {$(
        pub(crate) unsafe fn $name<const TA: bool, const TB: bool>(acc: &mut [u32; $n / 2], desc_a: u64, desc_b: u64, scale_d: bool) {
            wgmma($ty, TA, TB, acc, desc_a, desc_b, scale_d)
        }
    )*};
}

wgmma_entry! {
    wgmma_m64n256k16_bf16, 256, Ty::Bf16;
    wgmma_m64n128k16_bf16, 128, Ty::Bf16;
    wgmma_m64n256k16_f16, 256, Ty::F16;
    wgmma_m64n128k16_f16, 128, Ty::F16;
    wgmma_m64n64k16_bf16, 64, Ty::Bf16;
    wgmma_m64n64k16_f16, 64, Ty::F16;
    wgmma_m64n16k16_bf16, 16, Ty::Bf16;
    wgmma_m64n16k16_f16, 16, Ty::F16;
}

pub(crate) unsafe fn wgmma_m64n256k8_tf32(acc: &mut [u32; 128], desc_a: u64, desc_b: u64, scale_d: bool) {
    wgmma(Ty::Tf32, false, false, acc, desc_a, desc_b, scale_d)
}

pub(crate) unsafe fn wgmma_m64n128k8_tf32(acc: &mut [u32; 64], desc_a: u64, desc_b: u64, scale_d: bool) {
    wgmma(Ty::Tf32, false, false, acc, desc_a, desc_b, scale_d)
}

pub(crate) unsafe fn wgmma_m64n64k8_tf32(acc: &mut [u32; 32], desc_a: u64, desc_b: u64, scale_d: bool) {
    wgmma(Ty::Tf32, false, false, acc, desc_a, desc_b, scale_d)
}
