//! Block scheduler of the emulator.

use core::cell::{Cell, RefCell};
use core::fmt;
use std::collections::BTreeMap;
use std::format;
use std::string::{String, ToString};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::vec::Vec;

use super::warp::{self, WarpSlot, WARP};
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use rayon::prelude::*;

/// Grid or block extent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3 {
    /// x extent
    pub x: u32,
    /// y extent
    pub y: u32,
    /// z extent
    pub z: u32,
}

impl Dim3 {
    /// Number of points.
    pub fn volume(self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }
    fn unlinear(self, i: u64) -> [u32; 3] {
        let x = (i % self.x as u64) as u32;
        let y = ((i / self.x as u64) % self.y as u64) as u32;
        let z = (i / (self.x as u64 * self.y as u64)) as u32;
        [x, y, z]
    }
}

impl From<[u32; 3]> for Dim3 {
    fn from(d: [u32; 3]) -> Self {
        Dim3 { x: d[0], y: d[1], z: d[2] }
    }
}

/// What to launch on the emulator.
#[derive(Clone, Copy, Debug)]
pub struct LaunchSpec {
    /// Kernel name, used in reports.
    pub kernel: &'static str,
    /// Blocks in the grid.
    pub grid: Dim3,
    /// Threads per block.
    pub block: Dim3,
    /// Bytes of dynamic shared memory per block.
    pub shared_bytes: usize,
    /// A programmatic dependent launch (`LaunchConfig::early_launch`): on
    /// a GPU its blocks may run while the stream's previous kernel ends, so
    /// every thread must wait for it (`griddepcontrol.wait`) before it
    /// touches global memory. The emulator runs launches one after another
    /// and reports an access before the wait as a fault.
    pub dependent: bool,
    /// Blocks per thread-block cluster along x (1: no clusters). The
    /// blocks of a cluster run together on one OS thread, in one
    /// scheduling loop, so a thread of one may wait for what a thread of
    /// another does (remote mbarrier arrivals, multicast copies, the
    /// cluster barrier).
    pub cluster: u32,
}

/// A fault found by the emulator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmuError {
    /// Bad launch geometry (zero extents, more than 1024 threads per block).
    Config(String),
    /// A bad access, a race, a divergent barrier or a panic inside a kernel.
    Fault(String),
}

impl fmt::Display for EmuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmuError::Config(m) => write!(f, "bad launch configuration: {m}"),
            EmuError::Fault(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for EmuError {}

/// Why a thread's coroutine gave control back.
pub(crate) enum Yield {
    /// At `sync_threads`.
    Barrier,
    /// At a warp collective; its operands are in the thread's `warp` slot.
    Warp,
    /// Waiting for an mbarrier phase (`spin_on`): resumed in the next pass.
    Spin,
    /// At a named barrier (`named`).
    Named,
    /// At the cluster barrier (`barrier.cluster.arrive` + `wait`).
    Cluster,
    /// After reporting a fault; never resumed.
    Fault,
}

/// Per-byte access record of shared memory.
#[derive(Clone, Copy, Default)]
struct ByteTrack {
    /// Interval of the last write (0: never).
    w_ep: u32,
    w_tid: u32,
    /// Interval of the last read.
    r_ep: u32,
    /// Reader in `r_ep`, or `MULTI` when several threads read.
    r_tid: u32,
    /// [`SharedState::stamp`] at the last write (each reading warp's at
    /// its last read: [`SharedState::r_stamps`]): a `bar.warp.sync` of the
    /// accessing warp, or a named barrier its warp and a later accessor's
    /// both took part in, orders it before the later access
    /// ([`SharedState::ordered`]).
    w_stamp: u32,
    /// Bit `w` set: a thread of warp `w` read the byte in `r_ep`, not
    /// ordered before a later read.
    r_warps: u32,
    /// Interval of the last write by the async proxy (a TMA copy landing):
    /// initialises the byte without taking part in the race checks (the
    /// copy is ordered by its mbarrier, not by the block barrier).
    a_ep: u32,
}

const MULTI: u32 = u32::MAX;

/// The emulated state of one block, owned by the OS thread running it.
pub(crate) struct BlockCtx {
    pub(crate) kernel: &'static str,
    pub(crate) block_idx: [u32; 3],
    pub(crate) block_dim: Dim3,
    pub(crate) grid_dim: Dim3,
    pub(crate) shared: RefCell<SharedState>,
    pub(crate) fault: RefCell<Option<String>>,
    /// Hopper's asynchronous state: mbarriers, TMA copies in flight,
    /// shared memory read by unfinished `wgmma`.
    pub(crate) hopper: RefCell<super::sm90::BlockAsync>,
    /// The block's rank in its cluster (`%cluster_ctarank`).
    pub(crate) rank: u32,
    /// Blocks of the cluster (`%cluster_nctarank`; 1 without clusters).
    pub(crate) cluster_size: u32,
    /// The cluster's blocks in rank order (this one among them), set by
    /// the cluster's driver before any thread runs: remote operations
    /// (arrivals, multicast copies) reach the other blocks through it.
    peers: Cell<*const BlockCtx>,
    /// Whether the block has passed a cluster barrier: only then are its
    /// mbarrier initialisations visible to the other blocks.
    pub(crate) published: Cell<bool>,
    /// Whether every thread of the block has returned (its shared memory
    /// is gone for the other blocks of the cluster).
    pub(crate) finished: Cell<bool>,
}

impl BlockCtx {
    /// The block of rank `rank` (below [`BlockCtx::cluster_size`]) of this
    /// block's cluster.
    pub(crate) fn peer(&self, rank: u32) -> &BlockCtx {
        assert!(rank < self.cluster_size, "cluster rank {rank} of {}", self.cluster_size);
        // SAFETY: the driver points `peers` at its slice of the cluster's
        // `cluster_size` blocks before a thread runs and keeps the slice
        // in place until the cluster is done.
        unsafe { &*self.peers.get().add(rank as usize) }
    }

    /// `block (x, y, z)`, as faults name the block.
    pub(crate) fn name(&self) -> String {
        format!("block ({}, {}, {})", self.block_idx[0], self.block_idx[1], self.block_idx[2])
    }
}

pub(crate) struct SharedState {
    /// 16-byte aligned backing store.
    words: Vec<u128>,
    pub(crate) len: usize,
    track: Vec<ByteTrack>,
    /// Per byte and warp, the stamp of the warp's last read (meaningful
    /// for the warps of the byte's `r_warps`): readers whose last reads
    /// came at different stamps are each checked at their own, so a warp
    /// that read later than another does not make the other's read look
    /// unordered.
    r_stamps: Vec<[u32; MAX_WARPS]>,
    /// Current barrier interval; intervals only grow on one OS thread, so a
    /// record from an older block is simply "older than block_start".
    pub(crate) epoch: u32,
    block_start: u32,
    /// First read of a never-written byte in this interval. Reported at the
    /// end of the interval unless a write by another thread in the same
    /// interval shows it to be a race (reported at once).
    pub(crate) pending_uninit: Option<String>,
    /// Counts completed `bar.warp.sync`s and named barriers (never reset,
    /// so stamps of older blocks stay smaller).
    stamp: u32,
    /// `met[a * MAX_WARPS + b]`: the [`stamp`](Self::stamp) of the last
    /// synchronisation warps `a` and `b` both completed (a `bar.warp.sync`
    /// of the warp where `a == b`, or a named barrier both took part in).
    met: Vec<u32>,
}

/// Warps of the largest block (1024 threads).
pub(crate) const MAX_WARPS: usize = 32;

/// The warps whose bits are set in `mask`, lowest first (only the set
/// bits are visited: the race checks call this per byte accessed).
fn warps_of(mut mask: u32) -> impl Iterator<Item = usize> {
    core::iter::from_fn(move || {
        (mask != 0).then(|| {
            let w = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            w
        })
    })
}

/// Warp of thread `tid` (its linear index in the block).
pub(crate) fn warp_of(tid: u32) -> u32 {
    tid / super::warp::WARP as u32
}

impl SharedState {
    fn new() -> Self {
        SharedState {
            words: Vec::new(),
            len: 0,
            track: Vec::new(),
            r_stamps: Vec::new(),
            epoch: 0,
            block_start: 1,
            pending_uninit: None,
            stamp: 0,
            met: std::vec![0; MAX_WARPS * MAX_WARPS],
        }
    }

    /// Records that the warps of mask `warps` (bit `w`: warp `w`) completed
    /// one synchronisation together: a named barrier, or one warp's
    /// `bar.warp.sync`.
    pub(crate) fn on_sync(&mut self, warps: u32) {
        self.stamp += 1;
        for a in warps_of(warps) {
            for b in warps_of(warps) {
                self.met[a * MAX_WARPS + b] = self.stamp;
            }
        }
    }

    /// Starts a release by a thread of warp `w` (an mbarrier arrival):
    /// per warp `x`, the stamp below which `x`'s accesses are ordered
    /// before the arrival — `w`'s own so far (a fresh stamp), and those of
    /// the warps `w` synchronised with before it (the stamp of their last
    /// synchronisation together: a release passes on what its warp has
    /// learnt, as a named barrier before an arrival orders the other
    /// warps' accesses before it).
    pub(crate) fn release(&mut self, w: u32) -> [u32; MAX_WARPS] {
        self.stamp += 1;
        let w = w as usize;
        let mut v = [0; MAX_WARPS];
        v.copy_from_slice(&self.met[w * MAX_WARPS..(w + 1) * MAX_WARPS]);
        v[w] = self.stamp;
        v
    }

    /// Records that warp `me` acquired the releases `released` (per warp
    /// `x`: the stamp below which `x`'s accesses are ordered before the
    /// arrivals of the mbarrier phase just waited for, 0 for none; the
    /// join of the arrivals' [`release`](Self::release)s): those accesses
    /// are ordered before `me`'s from now on. One way only (the arriving
    /// warps learn nothing of `me`), and per warp, not per thread: a
    /// lane's access after its own arrival but before its warp's last lane
    /// arrived counts as ordered too (the scheduler runs a warp's lanes up
    /// to their arrivals one after another, so that window is empty in the
    /// kernels that arrive once per phase).
    pub(crate) fn acquire(&mut self, me: u32, released: &[u32; MAX_WARPS]) {
        let me = me as usize;
        for (w, &s) in released.iter().enumerate() {
            let m = &mut self.met[me * MAX_WARPS + w];
            if s > *m {
                *m = s;
            }
        }
    }

    /// Whether accesses of this interval by threads of the warps in mask
    /// `warps`, the last of them at `stamp`, are all ordered before thread
    /// `tid`'s access now: each of those warps and `tid`'s completed a
    /// synchronisation together after `stamp` (a `bar.warp.sync` within one
    /// warp, a named barrier both took part in, or an mbarrier phase
    /// `tid`'s warp acquired).
    fn ordered(&self, warps: u32, stamp: u32, tid: u32) -> bool {
        let me = warp_of(tid) as usize;
        warps_of(warps).all(|w| self.met[me * MAX_WARPS + w] > stamp)
    }

    /// The warps of `warps` whose last reads of byte `b` are not ordered
    /// before thread `tid`'s access now ([`SharedState::ordered`], each at
    /// its own read's stamp).
    fn unordered_readers(&self, b: usize, warps: u32, tid: u32) -> u32 {
        let me = warp_of(tid) as usize;
        warps_of(warps).filter(|&w| self.met[me * MAX_WARPS + w] <= self.r_stamps[b][w]).fold(0, |m, w| m | 1 << w)
    }

    fn begin_block(&mut self, len: usize) {
        if self.words.len() * 16 < len {
            self.words.resize(len.div_ceil(16), 0);
        }
        if self.track.len() < len {
            self.track.resize(len, ByteTrack::default());
            self.r_stamps.resize(len, [0; MAX_WARPS]);
        }
        // Fresh memory holds garbage on a GPU: poison it.
        for w in self.words.iter_mut() {
            *w = 0xFFC0_DEAD_FFC0_DEAD_FFC0_DEAD_FFC0_DEADu128;
        }
        self.len = len;
        self.epoch = self.epoch.wrapping_add(1);
        self.block_start = self.epoch;
        self.pending_uninit = None;
    }

    pub(crate) fn bytes(&mut self) -> *mut u8 {
        self.words.as_mut_ptr() as *mut u8
    }

    /// Records a read of `n` bytes at `off` by `tid`; returns a description
    /// of the conflict if there is one.
    pub(crate) fn on_read(&mut self, off: usize, n: usize, tid: u32) -> Result<(), String> {
        for b in off..off + n {
            let t = self.track[b];
            if t.w_ep < self.block_start && t.a_ep < self.block_start && self.pending_uninit.is_none() {
                self.pending_uninit = Some(format!(
                    "thread {tid} read uninitialised shared memory at byte {b} (no thread of this block wrote it)"
                ));
            }
            if t.w_ep == self.epoch && t.w_tid != tid && !self.ordered(1 << warp_of(t.w_tid), t.w_stamp, tid) {
                return Err(format!(
                    "shared-memory race at byte {b}: thread {tid} reads what thread {} wrote in the same barrier interval",
                    t.w_tid
                ));
            }
            // Earlier reads of this interval ordered before this one are
            // dropped, warp by warp: a later write ordered after this read
            // is ordered after them too (barriers order transitively), and
            // keeping them would flag a thread's own read-modify-write
            // after them as a race.
            let others = if t.r_ep == self.epoch && t.r_tid != tid { self.unordered_readers(b, t.r_warps, tid) } else { 0 };
            let w = warp_of(tid);
            let t = &mut self.track[b];
            (t.r_tid, t.r_warps) = if others == 0 { (tid, 1 << w) } else { (MULTI, others | 1 << w) };
            t.r_ep = self.epoch;
            self.r_stamps[b][w as usize] = self.stamp;
        }
        Ok(())
    }

    /// Records that the async proxy wrote `n` bytes at `off` (a TMA copy
    /// landed): they count as initialised from now on.
    pub(crate) fn on_async_write(&mut self, off: usize, n: usize) {
        for t in &mut self.track[off..off + n] {
            t.a_ep = self.epoch;
        }
    }

    /// Whether every byte of `off..off + n` was written in this block (by
    /// a thread or the async proxy).
    pub(crate) fn initialised(&self, off: usize, n: usize) -> bool {
        self.track[off..off + n].iter().all(|t| t.w_ep >= self.block_start || t.a_ep >= self.block_start)
    }

    /// Records a write of `n` bytes at `off` by `tid`.
    pub(crate) fn on_write(&mut self, off: usize, n: usize, tid: u32) -> Result<(), String> {
        for b in off..off + n {
            let t = self.track[b];
            if t.w_ep == self.epoch && t.w_tid != tid && !self.ordered(1 << warp_of(t.w_tid), t.w_stamp, tid) {
                return Err(format!(
                    "shared-memory race at byte {b}: threads {} and {tid} both write it in the same barrier interval",
                    t.w_tid
                ));
            }
            if t.r_ep == self.epoch && t.r_tid != tid && self.unordered_readers(b, t.r_warps, tid) != 0 {
                let who = if t.r_tid == MULTI { "other threads".to_string() } else { format!("thread {}", t.r_tid) };
                return Err(format!(
                    "shared-memory race at byte {b}: thread {tid} writes what {who} read in the same barrier interval"
                ));
            }
            let t = &mut self.track[b];
            t.w_ep = self.epoch;
            t.w_tid = tid;
            t.w_stamp = self.stamp;
        }
        Ok(())
    }
}

/// The emulated state of one thread.
pub(crate) struct ThreadCtx {
    pub(crate) idx: [u32; 3],
    pub(crate) linear: u32,
    pub(crate) yielder: Cell<*const Yielder<(), Yield>>,
    /// The thread's `cp.async` copies that have not completed yet.
    pub(crate) copies: RefCell<AsyncCopies>,
    /// Operands of the warp collective the thread waits at, then its result.
    pub(crate) warp: Cell<WarpSlot>,
    /// The mbarrier (address, parity) the thread waits for while it spins.
    pub(crate) spin_on: Cell<(u32, u32)>,
    /// The named barrier (id, thread count) the thread waits at.
    pub(crate) named: Cell<(u32, u32)>,
    /// In a programmatic dependent launch, until the thread's
    /// `griddepcontrol.wait`: global memory is off limits
    /// ([`LaunchSpec::dependent`]).
    pub(crate) awaiting_grid: Cell<bool>,
}

/// One `cp.async` in flight: its source bytes (read at issue) and where
/// they go.
pub(crate) struct AsyncCopy {
    /// Destination byte offset in the block's shared memory.
    pub(crate) dst: usize,
    /// The bytes (zero-filled past the source size); `size` of them.
    pub(crate) data: [u8; 16],
    /// Bytes copied (4 or 16).
    pub(crate) size: usize,
    /// Index of the commit group the copy belongs to.
    pub(crate) group: u32,
}

/// A thread's asynchronous-copy state: copies in flight and the number of
/// groups committed so far (the open group has this index).
#[derive(Default)]
pub(crate) struct AsyncCopies {
    pub(crate) pending: Vec<AsyncCopy>,
    pub(crate) committed: u32,
}

std::thread_local! {
    static CURRENT: Cell<(*const BlockCtx, *const ThreadCtx)> =
        const { Cell::new((core::ptr::null(), core::ptr::null())) };
    /// Shared-memory states to reuse: one per block of the largest
    /// cluster run on this OS thread so far.
    static SHARED: RefCell<Vec<SharedState>> = const { RefCell::new(Vec::new()) };
    static STACKS: RefCell<Vec<DefaultStack>> = const { RefCell::new(Vec::new()) };
}

/// The block and thread being emulated on this OS thread.
///
/// Panics when called outside an emulated kernel (a device function called
/// from ordinary host code).
pub(crate) fn current() -> (&'static BlockCtx, &'static ThreadCtx) {
    let (b, t) = CURRENT.with(|c| c.get());
    assert!(!b.is_null(), "device function called outside an emulated kernel launch");
    // SAFETY: set by `BlockRun::pass` for the duration of a resume; both live
    // until the cluster finishes.
    unsafe { (&*b, &*t) }
}

/// Whether the thread being emulated on this OS thread is a programmatic
/// dependent launch's before its `griddepcontrol.wait` (false outside a
/// launch).
pub(crate) fn awaiting_grid() -> bool {
    let (_, t) = CURRENT.with(|c| c.get());
    // SAFETY: set by `BlockRun::pass` for the duration of a resume (null
    // outside one); the thread lives until its block finishes.
    !t.is_null() && unsafe { (*t).awaiting_grid.get() }
}

/// Reports a fault from inside the current thread and stops it for good.
pub(crate) fn fault(msg: String) -> ! {
    let (b, t) = current();
    let full = format!(
        "kernel `{}`, block ({}, {}, {}), thread ({}, {}, {}): {msg}",
        b.kernel, b.block_idx[0], b.block_idx[1], b.block_idx[2], t.idx[0], t.idx[1], t.idx[2]
    );
    b.fault.borrow_mut().get_or_insert(full);
    let y = t.yielder.get();
    // SAFETY: the yielder belongs to the running coroutine.
    unsafe { (*y).suspend(Yield::Fault) };
    unreachable!("a faulted emulator thread was resumed")
}

/// Suspends the current thread at a block barrier.
pub(crate) fn barrier() {
    suspend(Yield::Barrier)
}

/// Suspends the current thread at named barrier `id` of `count` threads
/// (`bar.sync id, count`).
pub(crate) fn named_barrier(id: u32, count: u32) {
    let (b, t) = current();
    let threads = b.block_dim.volume() as u32;
    if id == 0 || id >= 16 {
        fault(format!("bar.sync {id}, {count}: named barrier ids are 1..16 (0 is sync_threads')"));
    }
    if count == 0 || count % WARP as u32 != 0 || count > threads.next_multiple_of(WARP as u32) {
        fault(format!("bar.sync {id}, {count}: the count is a multiple of 32 up to the block's {threads} threads"));
    }
    t.named.set((id, count));
    suspend(Yield::Named)
}

/// Suspends the current thread at the cluster barrier (every thread of
/// every block of the cluster waits for the others).
pub(crate) fn cluster_barrier() {
    suspend(Yield::Cluster)
}

/// Gives control back to the block scheduler with `why`.
pub(crate) fn suspend(why: Yield) {
    let (_, t) = current();
    let y = t.yielder.get();
    // SAFETY: as in `fault`.
    unsafe { (*y).suspend(why) };
}

const STACK_BYTES: usize = 256 * 1024;

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Runnable: resumed in the next pass.
    Running,
    /// Waiting at `sync_threads`.
    AtBarrier,
    /// Waiting at a warp collective.
    AtWarp,
    /// Waiting for an mbarrier phase; resumed in the next pass.
    Spinning,
    /// Waiting at a named barrier.
    AtNamed,
    /// Waiting at the cluster barrier.
    AtCluster,
    /// Returned.
    Done,
}

/// Runs `thread` once per GPU thread of `spec`'s grid.
///
/// Clusters of blocks (single blocks without clusters) run in parallel;
/// the first fault stops the launch and is returned. `thread` reads its
/// indices through the device layer.
pub fn launch(spec: LaunchSpec, thread: &(dyn Fn() + Sync)) -> Result<(), EmuError> {
    let g = spec.grid;
    let b = spec.block;
    if g.volume() == 0 || b.volume() == 0 {
        return Err(EmuError::Config(format!("`{}`: grid {g:?} / block {b:?} has a zero extent", spec.kernel)));
    }
    if b.volume() > 1024 || b.z > 64 {
        return Err(EmuError::Config(format!("`{}`: block {b:?} exceeds 1024 threads", spec.kernel)));
    }
    if g.y > 65535 || g.z > 65535 {
        return Err(EmuError::Config(format!("`{}`: grid {g:?} exceeds 65535 in y or z", spec.kernel)));
    }
    let cl = spec.cluster;
    if cl == 0 || cl > 8 || !g.x.is_multiple_of(cl) {
        return Err(EmuError::Config(format!(
            "`{}`: a cluster of {cl} blocks with grid {g:?}: the cluster is 1 to 8 blocks and divides the grid's x extent",
            spec.kernel
        )));
    }
    // Cluster `c` is the blocks of linear indices `c · cl..(c + 1) · cl`
    // (consecutive in x, as `cl` divides the grid's x extent).
    // The lowest block that faulted so far: clusters above it are skipped,
    // clusters below it still run, so the reported fault is the lowest
    // cluster's whatever order the OS threads take them in.
    let lowest = AtomicU64::new(u64::MAX);
    let first: Mutex<Option<(u64, String)>> = Mutex::new(None);
    (0..g.volume() / cl as u64).into_par_iter().for_each(|c| {
        let bi = c * cl as u64;
        if bi > lowest.load(Ordering::Relaxed) {
            return;
        }
        if let Err(msg) = run_cluster(&spec, bi, thread) {
            lowest.fetch_min(bi, Ordering::Relaxed);
            let mut f = first.lock().unwrap_or_else(|e| e.into_inner());
            // Keep the lowest cluster's fault so reports are reproducible.
            if f.as_ref().is_none_or(|(i, _)| bi < *i) {
                *f = Some((bi, msg));
            }
        }
    });
    match first.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some((_, msg)) => Err(EmuError::Fault(msg)),
        None => Ok(()),
    }
}

fn take_stack() -> DefaultStack {
    STACKS
        .with(|s| s.borrow_mut().pop())
        .unwrap_or_else(|| DefaultStack::new(STACK_BYTES).expect("cannot allocate an emulator thread stack"))
}

/// Runs the cluster whose first block has linear index `first` (one
/// block without clusters) to its end or its first fault.
fn run_cluster(spec: &LaunchSpec, first: u64, thread: &(dyn Fn() + Sync)) -> Result<(), String> {
    let n = spec.cluster;
    let ctxs: Vec<BlockCtx> = (0..n)
        .map(|rank| {
            let mut shared = SHARED.with(|s| s.borrow_mut().pop()).unwrap_or_else(SharedState::new);
            shared.begin_block(spec.shared_bytes);
            BlockCtx {
                kernel: spec.kernel,
                block_idx: spec.grid.unlinear(first + rank as u64),
                block_dim: spec.block,
                grid_dim: spec.grid,
                shared: RefCell::new(shared),
                fault: RefCell::new(None),
                hopper: RefCell::new(super::sm90::BlockAsync::new(spec.block.volume() as usize)),
                rank,
                cluster_size: n,
                peers: Cell::new(core::ptr::null()),
                published: Cell::new(false),
                finished: Cell::new(false),
            }
        })
        .collect();
    // The vector is not touched again until the runs are over: the
    // pointer stays valid.
    for c in &ctxs {
        c.peers.set(ctxs.as_ptr());
    }
    let result = {
        let mut runs: Vec<BlockRun<'_>> = ctxs.iter().map(|c| BlockRun::new(spec, c, thread)).collect();
        let r = drive(&mut runs);
        CURRENT.with(|c| c.set((core::ptr::null(), core::ptr::null())));
        r
    };
    SHARED.with(|s| s.borrow_mut().extend(ctxs.into_iter().rev().map(|c| c.shared.into_inner())));
    result
}

/// `kernel `…`, block (x, y, z)` of `ctx` followed by `what`.
fn block_of(ctx: &BlockCtx, what: &str) -> String {
    format!("kernel `{}`, block ({}, {}, {}){what}", ctx.kernel, ctx.block_idx[0], ctx.block_idx[1], ctx.block_idx[2])
}

/// `thread (x, y, z)` of thread `i` of `threads`.
fn thread_name(threads: &[ThreadCtx], i: usize) -> String {
    let t = &threads[i];
    format!("thread ({}, {}, {})", t.idx[0], t.idx[1], t.idx[2])
}

/// What one pass of a block's scheduler ended in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// A warp collective, a named barrier or the block barrier completed.
    Progressed,
    /// Threads wait for mbarriers, nothing else completed.
    Spinning,
    /// Every thread that has not returned waits at the cluster barrier.
    AtCluster,
    /// Every thread has returned.
    Finished,
}

/// The scheduler state of one block: its threads' coroutines and where
/// each thread stands. Its cluster's driver ([`drive`]) advances it one
/// pass at a time.
struct BlockRun<'a> {
    ctx: &'a BlockCtx,
    threads: Vec<ThreadCtx>,
    coros: Vec<Coroutine<(), Yield, (), DefaultStack>>,
    state: Vec<State>,
    /// Whether a thread resumed in the last pass got anywhere but another
    /// mbarrier wait.
    moved: bool,
}

impl<'a> BlockRun<'a> {
    fn new(spec: &LaunchSpec, ctx: &'a BlockCtx, thread: &(dyn Fn() + Sync)) -> Self {
        let n = spec.block.volume() as usize;
        let threads: Vec<ThreadCtx> = (0..n)
            .map(|i| ThreadCtx {
                idx: spec.block.unlinear(i as u64),
                linear: i as u32,
                yielder: Cell::new(core::ptr::null()),
                copies: RefCell::new(AsyncCopies::default()),
                warp: Cell::new(WarpSlot::default()),
                spin_on: Cell::new((0, 0)),
                named: Cell::new((0, 0)),
                awaiting_grid: Cell::new(spec.dependent),
            })
            .collect();
        let coros = threads
            .iter()
            .map(|t| {
                let tp: *const ThreadCtx = t;
                // SAFETY: every coroutine is driven to completion or reset
                // (`Drop`) before `threads` (whose heap buffer does not move
                // with the vector) and `thread` go out of scope.
                unsafe {
                    Coroutine::with_stack_unchecked(take_stack(), move |y: &Yielder<(), Yield>, ()| {
                        (*tp).yielder.set(y);
                        thread();
                    })
                }
            })
            .collect();
        let state = std::vec![State::Running; n];
        BlockRun { ctx, threads, coros, state, moved: false }
    }

    /// `kernel `…`, block (x, y, z)` followed by `what`.
    fn block(&self, what: &str) -> String {
        block_of(self.ctx, what)
    }

    /// Lands the TMA copies into this block issued in the previous pass.
    fn land(&self) -> Result<(), String> {
        super::sm90::land(self.ctx).map_err(|m| self.block(&format!(": {m}")))
    }

    /// Threads waiting for an mbarrier run again in the next pass.
    fn wake_spinning(&mut self) {
        for s in self.state.iter_mut() {
            if *s == State::Spinning {
                *s = State::Running;
            }
        }
    }

    /// One pass: every runnable thread runs until it waits, faults or
    /// returns, in thread order; then the warp collectives, named
    /// barriers and the block barrier that can complete do.
    fn pass(&mut self) -> Result<Pass, String> {
        let ctx = self.ctx;
        let block = |what: &str| block_of(ctx, what);
        let (threads, state) = (&self.threads, &mut self.state);
        self.moved = false;
        let mut fault = None;
        for (i, co) in self.coros.iter_mut().enumerate() {
            if state[i] != State::Running {
                continue;
            }
            CURRENT.with(|c| c.set((ctx, &threads[i])));
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| co.resume(())));
            match r {
                Ok(CoroutineResult::Yield(Yield::Barrier)) => {
                    state[i] = State::AtBarrier;
                    self.moved = true;
                }
                Ok(CoroutineResult::Yield(Yield::Warp)) => {
                    state[i] = State::AtWarp;
                    self.moved = true;
                }
                Ok(CoroutineResult::Yield(Yield::Spin)) => state[i] = State::Spinning,
                Ok(CoroutineResult::Yield(Yield::Named)) => {
                    state[i] = State::AtNamed;
                    self.moved = true;
                }
                Ok(CoroutineResult::Yield(Yield::Cluster)) => {
                    state[i] = State::AtCluster;
                    self.moved = true;
                }
                Ok(CoroutineResult::Yield(Yield::Fault)) => {
                    fault = ctx.fault.borrow_mut().take();
                    break;
                }
                Ok(CoroutineResult::Return(())) => {
                    state[i] = State::Done;
                    self.moved = true;
                    if let Some(m) = super::sm90::on_return(ctx, threads[i].linear) {
                        let t = &threads[i];
                        fault = Some(format!(
                            "kernel `{}`, block ({}, {}, {}), thread ({}, {}, {}): {m}",
                            ctx.kernel, ctx.block_idx[0], ctx.block_idx[1], ctx.block_idx[2], t.idx[0], t.idx[1], t.idx[2]
                        ));
                        break;
                    }
                }
                Err(p) => {
                    let what = p
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| p.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "panic".to_string());
                    let t = &threads[i];
                    fault = Some(format!(
                        "kernel `{}`, block ({}, {}, {}), thread ({}, {}, {}): panicked: {what}",
                        ctx.kernel, ctx.block_idx[0], ctx.block_idx[1], ctx.block_idx[2], t.idx[0], t.idx[1], t.idx[2]
                    ));
                    break;
                }
            }
        }
        if let Some(f) = fault {
            return Err(f);
        }

        // Warp collectives first: a warp completes once each of its lanes
        // that has not exited waits at one (in warp order). A lane still
        // spinning on an mbarrier has not arrived yet: the collective waits
        // for it (on the GPU `.sync` waits for every lane of the mask), and
        // if its wait can never end, the mbarrier check reports it.
        let mut progressed = false;
        for (w, lanes) in state.chunks_mut(WARP).enumerate() {
            if !lanes.contains(&State::AtWarp)
                || lanes.iter().any(|s| matches!(s, State::AtBarrier | State::Spinning | State::AtNamed | State::AtCluster))
            {
                continue;
            }
            let waiting = lanes.iter().enumerate().filter(|(_, s)| **s == State::AtWarp).fold(0u32, |m, (l, _)| m | 1 << l);
            let base = w * WARP;
            match warp::complete(&threads[base..base + lanes.len()], waiting) {
                Err(m) => return Err(block(&format!(", warp {w} (threads {base}..{}): {m}", base + lanes.len()))),
                Ok(warp::WarpOp::SyncWarp) => ctx.shared.borrow_mut().on_sync(1 << w),
                Ok(_) => {}
            }
            for s in lanes.iter_mut() {
                if *s == State::AtWarp {
                    *s = State::Running;
                }
            }
            progressed = true;
        }
        // Named barriers: each releases once its count of threads waits.
        let mut named: BTreeMap<u32, (u32, Vec<usize>)> = BTreeMap::new();
        for (i, s) in state.iter().enumerate() {
            if *s == State::AtNamed {
                let (id, count) = threads[i].named.get();
                let e = named.entry(id).or_insert((count, Vec::new()));
                if e.0 != count {
                    let (a, b) = (&threads[e.1[0]], &threads[i]);
                    return Err(block(&format!(
                        ": named barrier {id}: thread ({}, {}, {}) waits for {} threads, thread ({}, {}, {}) for {count}",
                        a.idx[0], a.idx[1], a.idx[2], e.0, b.idx[0], b.idx[1], b.idx[2]
                    )));
                }
                e.1.push(i);
            }
        }
        for (id, (count, waiting)) in named {
            if waiting.len() as u32 > count {
                return Err(block(&format!(": named barrier {id}: {} threads wait for a count of {count}", waiting.len())));
            }
            if waiting.len() as u32 == count {
                let warps = waiting.iter().fold(0u32, |m, &i| m | 1 << warp_of(threads[i].linear));
                ctx.shared.borrow_mut().on_sync(warps);
                for i in waiting {
                    self.state[i] = State::Running;
                }
                progressed = true;
            }
        }
        if progressed {
            // Threads waiting for an mbarrier retry too: left waiting, a
            // pass that runs only the released threads could end with
            // nothing changed and report a deadlock that is none.
            self.wake_spinning();
            return Ok(Pass::Progressed);
        }
        let (threads, state) = (&self.threads, &mut self.state);

        // Threads waiting for an mbarrier retry in the next pass while
        // anything in the cluster can still change (the driver decides).
        if state.contains(&State::Spinning) {
            return Ok(Pass::Spinning);
        }

        // No collective can complete: a warp still waiting at one has lanes
        // at the block or cluster barrier, which cannot release while it
        // waits.
        if let Some(w) = state.chunks(WARP).position(|l| l.contains(&State::AtWarp)) {
            let lanes = &state[w * WARP..(w * WARP + WARP).min(state.len())];
            let mask = |x: State| lanes.iter().enumerate().filter(|(_, s)| **s == x).fold(0u32, |m, (l, _)| m | 1 << l);
            let l = lanes.iter().position(|s| *s == State::AtWarp).unwrap_or(0);
            let op = threads[w * WARP + l].warp.get().op;
            let others = match (mask(State::AtBarrier), mask(State::AtCluster)) {
                (b, 0) => format!("{} wait at sync_threads", warp::lane_list(b)),
                (0, c) => format!("{} wait at cluster_sync", warp::lane_list(c)),
                (b, c) => format!("{} wait at sync_threads and {} at cluster_sync", warp::lane_list(b), warp::lane_list(c)),
            };
            return Err(block(&format!(
                ", warp {w}: divergent warp collective: {} wait at {op} while {others}",
                warp::lane_list(mask(State::AtWarp))
            )));
        }
        if let Some(i) = state.iter().position(|s| *s == State::AtNamed) {
            let t = &threads[i];
            let (id, count) = t.named.get();
            let n = state.iter().enumerate().filter(|(j, s)| **s == State::AtNamed && threads[*j].named.get().0 == id).count();
            let others = if state.contains(&State::AtBarrier) {
                "include threads at sync_threads"
            } else if state.contains(&State::AtCluster) {
                "include threads at cluster_sync"
            } else {
                "have returned or wait elsewhere"
            };
            return Err(block(&format!(
                ": deadlock: thread ({}, {}, {}) waits at named barrier {id} with {n} of its {count} threads; the others {others}",
                t.idx[0], t.idx[1], t.idx[2]
            )));
        }
        let at_barrier = state.iter().position(|s| *s == State::AtBarrier);
        let at_cluster = state.iter().position(|s| *s == State::AtCluster);
        let done = state.iter().position(|s| *s == State::Done);
        match (at_barrier, at_cluster, done) {
            (None, None, _) => {
                // Every thread has returned.
                return match ctx.shared.borrow_mut().pending_uninit.take() {
                    Some(u) => Err(block(&format!(": {u}"))),
                    None => Ok(Pass::Finished),
                };
            }
            (Some(b), Some(c), _) => {
                return Err(block(&format!(
                    ": deadlock: {} waits at sync_threads while {} waits at cluster_sync (neither barrier can release)",
                    thread_name(threads, b),
                    thread_name(threads, c)
                )));
            }
            (Some(w), None, Some(d)) => {
                let (t, w) = (&threads[d], &threads[w]);
                return Err(format!(
                    "kernel `{}`, block ({}, {}, {}): divergent barrier: thread ({}, {}, {}) returned while thread ({}, {}, {}) waits at sync_threads",
                    ctx.kernel, ctx.block_idx[0], ctx.block_idx[1], ctx.block_idx[2],
                    t.idx[0], t.idx[1], t.idx[2], w.idx[0], w.idx[1], w.idx[2]
                ));
            }
            (None, Some(c), Some(d)) => {
                return Err(block(&format!(
                    ": divergent cluster barrier: {} returned while {} waits at cluster_sync",
                    thread_name(threads, d),
                    thread_name(threads, c)
                )));
            }
            (None, Some(_), None) => return Ok(Pass::AtCluster),
            (Some(_), None, None) => {}
        }
        // Every live thread waits at the barrier: the interval ends.
        self.end_interval(State::AtBarrier)?;
        Ok(Pass::Progressed)
    }

    /// Ends the block's barrier interval (reporting an uninitialised read
    /// of it) and releases the threads waiting in state `at`.
    fn end_interval(&mut self, at: State) -> Result<(), String> {
        if let Some(u) = self.ctx.shared.borrow_mut().pending_uninit.take() {
            return Err(self.block(&format!(": {u}")));
        }
        for s in self.state.iter_mut() {
            if *s == at {
                *s = State::Running;
            }
        }
        let mut sh = self.ctx.shared.borrow_mut();
        sh.epoch = sh.epoch.wrapping_add(1);
        Ok(())
    }

    /// The fault of a block whose threads wait for mbarrier phases that no
    /// arrival, transaction or copy in the cluster can complete.
    fn deadlock(&self) -> String {
        let state = &self.state;
        let i = state.iter().position(|s| *s == State::Spinning).unwrap_or(0);
        let (bar, parity) = self.threads[i].spin_on.get();
        let n = state.iter().filter(|s| **s == State::Spinning).count();
        let t = &self.threads[i];
        let others = if state.contains(&State::AtBarrier) {
            ", the others at sync_threads"
        } else if state.contains(&State::AtCluster) {
            ", the others at cluster_sync"
        } else {
            ""
        };
        self.block(&format!(
            ": deadlock: thread ({}, {}, {}) waits for the phase of parity {parity} of the mbarrier at byte {bar} \
             ({n} thread(s) wait for mbarriers{others}); no arrival, transaction or copy can complete it",
            t.idx[0], t.idx[1], t.idx[2],
        ))
    }
}

impl Drop for BlockRun<'_> {
    /// Gives the stacks back to the pool. Threads still suspended (at a
    /// barrier or a collective when another thread faulted) are reset, not
    /// unwound: dropping a suspended coroutine unwinds its stack, which a
    /// `panic = "abort"` build turns into an abort of the whole process,
    /// and a fault must be a typed error instead. Kernel bodies hold only
    /// `Copy` values and the emulator holds no guard across a suspension,
    /// so nothing with a destructor is skipped.
    fn drop(&mut self) {
        for mut co in self.coros.drain(..) {
            if !co.done() {
                // SAFETY: no value with `Drop` lives on a suspended kernel
                // thread's stack (see above).
                unsafe { co.force_reset() };
            }
            let s = co.into_stack();
            STACKS.with(|p| p.borrow_mut().push(s));
        }
    }
}

/// Runs the blocks of one cluster (a single block without clusters) in
/// one scheduling loop, pass after pass in rank order, until every thread
/// has returned or a fault: copies issued in one pass land at the start of
/// the next; a pass where threads wait for mbarriers and nothing anywhere
/// in the cluster changed is a deadlock; the cluster barrier releases when
/// every thread of every block waits at it.
fn drive(runs: &mut [BlockRun<'_>]) -> Result<(), String> {
    let clustered = runs.len() > 1;
    loop {
        // TMA copies issued in the previous pass land now, and complete
        // their bytes on their mbarriers (a copy into a block that has
        // finished is a fault).
        for r in runs.iter() {
            r.land()?;
        }
        let progress = |runs: &[BlockRun<'_>]| runs.iter().map(|r| r.ctx.hopper.borrow().progress()).fold(0u64, u64::wrapping_add);
        let progress_before = progress(runs);
        let (mut progressed, mut moved, mut spinning) = (false, false, None);
        for (k, r) in runs.iter_mut().enumerate() {
            if r.ctx.finished.get() {
                continue;
            }
            match r.pass()? {
                Pass::Progressed => progressed = true,
                Pass::Spinning => {
                    spinning.get_or_insert(k);
                }
                Pass::AtCluster => {}
                Pass::Finished => r.ctx.finished.set(true),
            }
            moved |= r.moved;
        }
        // Threads waiting for an mbarrier retry in the next pass while
        // anything can still change; when every live thread of the cluster
        // waits and the pass changed nothing, no phase can ever complete.
        if let Some(k) = spinning {
            let changed = progressed
                || moved
                || progress(runs) != progress_before
                || runs.iter().any(|r| r.ctx.hopper.borrow().copies_in_flight());
            if !changed {
                return Err(runs[k].deadlock());
            }
            for r in runs.iter_mut() {
                r.wake_spinning();
            }
            continue;
        }
        if progressed {
            continue;
        }
        // Every block waits at the cluster barrier or has finished.
        let Some(w) = runs.iter().position(|r| !r.ctx.finished.get()) else {
            if clustered {
                // A copy still in flight lands in a block that is gone.
                for r in runs.iter() {
                    r.land()?;
                }
            }
            return Ok(());
        };
        if let Some(f) = runs.iter().position(|r| r.ctx.finished.get()) {
            let i = runs[w].state.iter().position(|s| *s == State::AtCluster).unwrap_or(0);
            return Err(runs[w].block(&format!(
                ": divergent cluster barrier: every thread of {} (rank {f}) returned while {} waits at cluster_sync",
                runs[f].ctx.name(),
                thread_name(&runs[w].threads, i)
            )));
        }
        // The cluster barrier releases: a barrier interval ends in every
        // block, and every block's mbarriers initialised so far are
        // visible to the others.
        for r in runs.iter_mut() {
            r.end_interval(State::AtCluster)?;
            super::sm90::publish(r.ctx);
        }
    }
}
