//! Beyond one GPU: a [`DeviceGroup`] of contexts (one per GPU, in this
//! process) with NCCL communicators across them, matrices sharded over
//! the group ([`ShardedMatrix`]), the sharded GEMM ([`ShardedGemm`]) and
//! batch image processing over the group ([`process_batch`], and
//! [`process_pinned_batch`] for images the caller keeps in pinned memory).
//!
//! ```
//! use ferrotile::multi::{DeviceGroup, ShardedGemm, ShardedMatrix};
//! # fn main() -> ferrotile::Result<()> {
//! // Two emulated devices (on GPUs: `DeviceGroup::cuda_all()`).
//! let group = DeviceGroup::emulated(2)?;
//! let (m, n, k) = (5, 3, 4);
//! let a: Vec<f32> = (0..m * k).map(|i| i as f32).collect();
//! let b: Vec<f32> = (0..k * n).map(|i| 1.0 + i as f32).collect();
//! let g = ShardedGemm::new(m, n, k);
//! let plan = g.plan(&group)?;
//! let a = ShardedMatrix::from_host(&group, &a, m, k, &plan.a)?;
//! let b = ShardedMatrix::from_host(&group, &b, k, n, &plan.b)?;
//! let mut c = ShardedMatrix::<f32>::alloc(&group, m, n, &plan.c)?;
//! g.run(&group, &a, &b, &mut c)?;
//! let c = c.to_host()?; // or c.gather_to(&group, 0) for one device
//! assert_eq!(c[0], (0..4).map(|p| (p * (1 + 3 * p)) as f32).sum::<f32>());
//! # Ok(()) }
//! ```
//!
//! The division of work (which device holds which rows, blocks, panels,
//! images) is the index math of
//! [`ferrotile_kernels::layout::shard`], property-tested there.
//!
//! # Streams and overlap
//!
//! On CUDA each device of a group has two streams: its context's stream
//! (kernels and copies in submission order) and a transfer stream the
//! group creates (non-blocking), where NCCL runs. A collective is ordered
//! as if it ran on the context's stream (events both ways), unless the
//! GEMM overlaps it (below). The
//! devices run at the same time: every call is asynchronous, and the host
//! loop issues each step to every device before waiting for any.
//! [`ShardedGemm::overlap`] moves the GEMM's panels on the transfer
//! streams, two scratch slots per operand, ordered by events, so that
//! panel `t + 1` moves while panel `t` multiplies. The image batch
//! overlaps the host's copies with the GPU's work (pinned staging, two
//! slots); its uploads and kernels share the context's stream. The batch
//! of pinned images has no host copies: each device alternates two
//! streams of its own, so one image's upload overlaps the previous one's
//! kernel and download.
//!
//! # NCCL at run time
//!
//! NCCL is loaded when a CUDA group is made, like the driver: nothing is
//! needed at build time. cudarc opens `libnccl.so` (and versioned names,
//! but not `libnccl.so.2`, the name NCCL's packages and the
//! `nvidia-nccl-cu12` wheel install): put a `libnccl.so` link to the
//! library in a directory on `LD_LIBRARY_PATH` (`bundle/run.sh` does).
//! Without it [`DeviceGroup::cuda`] returns [`Error::LibraryMissing`]
//! (`library` = [`NCCL`]). NVLink multicast (NVLS) is turned off
//! (`NCCL_NVLS_ENABLE=0`, unless the environment says otherwise). The
//! group is one process driving every device (`ncclCommInitAll`); several
//! hosts would need one process per GPU and `ncclCommInitRank`
//! (docs/SCALING.md).

mod collective;
mod gemm;
mod image;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cudarc::driver::CudaStream;

pub use collective::{nccl_present, CollectiveKind, NCCL};
pub use ferrotile_kernels::layout::shard::Span;
pub use gemm::{GemmPlan, ShardedGemm};
pub use image::{process_batch, process_batch_into, process_pinned_batch, BatchOp};

use crate::backend::{Inner, Storage};
use crate::{Buffer, Context, Element, Error, Result};
use collective::{Collective, Emulated, Lane, Nccl, Op};

/// Contexts on several devices with the collectives across them.
///
/// Rank `r` of the group is [`DeviceGroup::context`]`(r)`. Buffers stay
/// per context: the group's functions take one buffer per rank and check
/// each against its rank's context.
pub struct DeviceGroup {
    // Dropped first: NCCL's communicators before the contexts.
    collective: Box<dyn Collective>,
    contexts: Vec<Context>,
    /// One group call at a time (NCCL groups are per thread, a
    /// communicator is used by one call at a time).
    lock: Mutex<()>,
    /// `peer[i][j]`: device `i` can read and write device `j`'s memory
    /// directly (peer access enabled).
    peer: Vec<Vec<bool>>,
    /// Each CUDA device's (context stream, transfer stream); empty on the
    /// emulator.
    streams: Vec<(Arc<CudaStream>, Arc<CudaStream>)>,
}

impl std::fmt::Debug for DeviceGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceGroup({} × {:?})", self.contexts.len(), self.collective.kind())
    }
}

impl Drop for DeviceGroup {
    fn drop(&mut self) {
        // The communicators are destroyed (next) after the devices' work
        // that uses them.
        let _ = self.synchronize();
    }
}

impl DeviceGroup {
    /// Every CUDA device the driver sees, NCCL across them.
    ///
    /// Errors: as [`DeviceGroup::cuda`].
    pub fn cuda_all() -> Result<DeviceGroup> {
        let n = cuda_device_count()?;
        DeviceGroup::cuda(&(0..n).collect::<Vec<_>>())
    }

    /// The CUDA devices `ordinals` (rank `r` on device `ordinals[r]`),
    /// ferrotile's PTX loaded on each, peer access enabled between every
    /// pair that offers it, and one NCCL communicator per device
    /// (`ncclCommInitAll`, with `NCCL_NVLS_ENABLE=0` unless the
    /// environment sets it).
    ///
    /// Two settings of each device's stream-ordered memory pool (the one
    /// every ferrotile buffer comes from), for the whole process: a peer
    /// may read and write it (so copies between the GPUs take the direct
    /// link, not a trip through the host), and freed memory stays in the
    /// pool for the next allocation rather than going back to the driver
    /// at each synchronisation (as PyTorch's caching allocator does; the
    /// driver's free-memory figure then does not grow back after a run).
    ///
    /// Errors: [`Error::NoDriver`], [`Error::NoDevice`];
    /// [`Error::BadArgument`] `ordinals` when empty, repeated or past the
    /// device count; [`Error::LibraryMissing`] (`library` = [`NCCL`])
    /// when NCCL cannot be loaded (see [`nccl_present`]); [`Error::Driver`]
    /// when NCCL or the driver fails.
    pub fn cuda(ordinals: &[usize]) -> Result<DeviceGroup> {
        let count = cuda_device_count()?;
        check_ranks("ordinals", ordinals, count)?;
        collective::require_nccl()?;
        let contexts = ordinals.iter().map(|&o| Context::cuda(o)).collect::<Result<Vec<_>>>()?;
        let peer = enable_peer_access(&contexts)?;
        let streams = contexts
            .iter()
            .map(|c| match &*c.inner {
                // The transfer stream does not synchronize with the
                // context's (legacy default) stream: cudarc makes it
                // non-blocking.
                Inner::Cuda(c) => Ok((c.stream.clone(), c.ctx.new_stream().map_err(crate::backend::driver("creating a stream"))?)),
                Inner::Emulator => unreachable!("Context::cuda made an emulator context"),
            })
            .collect::<Result<Vec<_>>>()?;
        type Pair = (Arc<CudaStream>, Arc<CudaStream>);
        let raw = |pick: fn(&Pair) -> &Arc<CudaStream>| {
            streams.iter().map(|s| pick(s).cu_stream() as cudarc::nccl::sys::cudaStream_t).collect::<Vec<_>>()
        };
        let ords: Vec<i32> = ordinals.iter().map(|&o| o as i32).collect();
        let collective = Box::new(Nccl::new(&ords, [raw(|s| &s.0), raw(|s| &s.1)])?);
        Ok(DeviceGroup { collective, contexts, lock: Mutex::new(()), peer, streams })
    }

    /// `n` emulator contexts with the emulated collective (NCCL's
    /// semantics, host copies): for tests of the sharding logic without
    /// GPUs.
    ///
    /// Errors: [`Error::BadArgument`] `n` when 0 or over 64.
    pub fn emulated(n: usize) -> Result<DeviceGroup> {
        if !(1..=64).contains(&n) {
            return Err(Error::BadArgument { arg: "n", detail: format!("{n} devices; a group has 1 to 64") });
        }
        Ok(DeviceGroup {
            collective: Box::new(Emulated::new(n)),
            contexts: (0..n).map(|_| Context::emulator()).collect(),
            lock: Mutex::new(()),
            peer: vec![vec![true; n]; n],
            streams: Vec::new(),
        })
    }

    /// The number of devices (ranks).
    pub fn len(&self) -> usize {
        self.contexts.len()
    }

    /// Always false: a group has at least one device.
    pub fn is_empty(&self) -> bool {
        self.contexts.is_empty()
    }

    /// The context of rank `rank` (panics past [`DeviceGroup::len`]).
    pub fn context(&self, rank: usize) -> &Context {
        &self.contexts[rank]
    }

    /// Every rank's context, in rank order.
    pub fn contexts(&self) -> &[Context] {
        &self.contexts
    }

    /// Which implementation moves the data.
    pub fn collective_kind(&self) -> CollectiveKind {
        self.collective.kind()
    }

    /// Whether rank `from` can access rank `to`'s memory directly (peer
    /// access enabled; always true on the emulator and for `from == to`).
    pub fn peer_access(&self, from: usize, to: usize) -> bool {
        from == to || self.peer.get(from).and_then(|p| p.get(to)).copied().unwrap_or(false)
    }

    /// NCCL's version code (`22703` is 2.27.3), when NCCL can be loaded.
    pub fn nccl_version() -> Result<i32> {
        collective::require_nccl()?;
        Nccl::version()
    }

    /// Waits for every device's work; reports the first fault.
    pub fn synchronize(&self) -> Result<()> {
        for (_, side) in &self.streams {
            side.synchronize().map_err(crate::backend::driver("synchronizing"))?;
        }
        self.contexts.iter().try_for_each(Context::synchronize)
    }

    /// Each CUDA device's (context stream, transfer stream); empty on the
    /// emulator.
    pub(crate) fn streams(&self) -> &[(Arc<CudaStream>, Arc<CudaStream>)] {
        &self.streams
    }

    /// Runs `f` `warmup` times, then `iters` times, synchronizing the whole
    /// group after each, and returns the median host-clock time of one
    /// call (the time until the slowest device finished).
    pub fn time<F: FnMut() -> Result<()>>(&self, warmup: usize, iters: usize, mut f: F) -> Result<Duration> {
        for _ in 0..warmup {
            f()?;
        }
        self.synchronize()?;
        let mut times = Vec::with_capacity(iters.max(1));
        for _ in 0..iters.max(1) {
            let t = Instant::now();
            f()?;
            self.synchronize()?;
            times.push(t.elapsed());
        }
        times.sort();
        Ok(times[times.len() / 2])
    }

    /// Broadcast (`ncclBroadcast`): every rank's buffer gets `bufs[root]`'s
    /// elements (in place: one buffer per rank, all of one length).
    ///
    /// Errors: [`Error::BadArgument`] `root` past the group, `bufs` not one
    /// per rank or a buffer not on its rank's context;
    /// [`Error::LengthMismatch`] `bufs` of unequal lengths.
    pub fn broadcast<T: Element>(&self, root: usize, bufs: &mut [Buffer<T>]) -> Result<()> {
        self.check_root("root", root)?;
        self.check_per_rank("bufs", bufs)?;
        let len = bufs[root].len();
        check_lengths("bufs", bufs, len)?;
        let dst: Vec<u64> = bufs.iter().map(Buffer::device_ptr).collect();
        let op = Op::Broadcast { root, src: dst[root], dst, bytes: len * size_of::<T>() };
        // SAFETY: every address is a checked buffer of its rank holding `len` elements.
        unsafe { self.run(&[op]) }
    }

    /// All-gather (`ncclAllGather`): every rank's `recv` gets the
    /// concatenation of every rank's `send`, in rank order.
    ///
    /// Errors: [`Error::BadArgument`] `send` / `recv` not one buffer per
    /// rank on its rank's context; [`Error::LengthMismatch`] `send` of
    /// unequal lengths, `recv` not `len() ×` theirs.
    pub fn all_gather<T: Element>(&self, send: &[Buffer<T>], recv: &mut [Buffer<T>]) -> Result<()> {
        self.check_per_rank("send", send)?;
        self.check_per_rank("recv", recv)?;
        let len = send[0].len();
        check_lengths("send", send, len)?;
        check_lengths("recv", recv, len * self.len())?;
        let op = Op::AllGather {
            src: send.iter().map(Buffer::device_ptr).collect(),
            dst: recv.iter().map(Buffer::device_ptr).collect(),
            bytes: len * size_of::<T>(),
        };
        // SAFETY: checked buffers of each rank with the lengths the op uses.
        unsafe { self.run(&[op]) }
    }

    /// Runs one group of collectives under the group's lock.
    ///
    /// # Safety
    /// As [`Collective::run`].
    ///
    /// The ops are ordered as if on the context streams (after their
    /// earlier work, before their later work), but NCCL runs them on the
    /// transfer streams: it never sees the contexts' legacy default
    /// streams, whose implicit synchronization with other blocking streams
    /// NCCL's single-process mode does not expect.
    pub(crate) unsafe fn run(&self, ops: &[Op]) -> Result<()> {
        if ops.is_empty() {
            return Ok(());
        }
        if self.streams.is_empty() {
            // SAFETY: the caller's contract.
            return unsafe { self.run_on(ops, Lane::Main) };
        }
        for (main, side) in &self.streams {
            side.join(main).map_err(crate::backend::driver("ordering the streams"))?;
        }
        // SAFETY: the caller's contract.
        let r = unsafe { self.run_on(ops, Lane::Side) };
        for (main, side) in &self.streams {
            main.join(side).map_err(crate::backend::driver("ordering the streams"))?;
        }
        r
    }

    /// Runs one group of collectives on each device's `lane`.
    ///
    /// # Safety
    /// As [`Collective::run`].
    pub(crate) unsafe fn run_on(&self, ops: &[Op], lane: Lane) -> Result<()> {
        if ops.is_empty() {
            return Ok(());
        }
        let _g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: the caller's contract.
        unsafe { self.collective.run(ops, lane) }
    }

    fn check_root(&self, arg: &'static str, root: usize) -> Result<()> {
        if root >= self.len() {
            return Err(Error::BadArgument { arg, detail: format!("rank {root} of a group of {}", self.len()) });
        }
        Ok(())
    }

    /// One buffer per rank, each on its rank's context.
    fn check_per_rank<T: Element>(&self, arg: &'static str, bufs: &[Buffer<T>]) -> Result<()> {
        if bufs.len() != self.len() {
            return Err(Error::BadArgument { arg, detail: format!("{} buffers for a group of {}", bufs.len(), self.len()) });
        }
        match bufs.iter().zip(&self.contexts).position(|(b, c)| !b.is_on(c)) {
            Some(r) => Err(Error::BadArgument { arg, detail: format!("buffer {r} is not on rank {r}'s context") }),
            None => Ok(()),
        }
    }
}

fn check_lengths<T: Element>(arg: &'static str, bufs: &[Buffer<T>], len: usize) -> Result<()> {
    match bufs.iter().find(|b| b.len() != len) {
        Some(b) => Err(Error::LengthMismatch { arg, expected: len, actual: b.len() }),
        None => Ok(()),
    }
}

/// Ranks (or ordinals) must be non-empty, distinct and below `count`.
fn check_ranks(arg: &'static str, ranks: &[usize], count: usize) -> Result<()> {
    if ranks.is_empty() {
        return Err(Error::BadArgument { arg, detail: "no device".into() });
    }
    if let Some(&o) = ranks.iter().find(|&&o| o >= count) {
        return Err(Error::BadArgument { arg, detail: format!("device {o} of {count}") });
    }
    let mut seen = vec![false; count];
    for &o in ranks {
        if std::mem::replace(&mut seen[o], true) {
            return Err(Error::BadArgument { arg, detail: format!("device {o} named twice") });
        }
    }
    Ok(())
}

/// How many CUDA devices the driver sees.
///
/// Errors: [`Error::NoDriver`], [`Error::NoDevice`], [`Error::Driver`].
pub fn cuda_device_count() -> Result<usize> {
    use cudarc::driver::sys;
    // SAFETY: only probes whether the library can be opened.
    if !unsafe { sys::is_culib_present() } {
        return Err(Error::NoDriver);
    }
    match cudarc::driver::CudaContext::device_count() {
        Ok(n) if n > 0 => Ok(n as usize),
        Ok(_) => Err(Error::NoDevice),
        Err(e) if e.0 == sys::CUresult::CUDA_ERROR_NO_DEVICE => Err(Error::NoDevice),
        Err(e) => Err(Error::Driver { op: "counting devices", detail: e.to_string() }),
    }
}

/// Enables peer access between every pair of devices that offers it;
/// returns who can access whom.
fn enable_peer_access(contexts: &[Context]) -> Result<Vec<Vec<bool>>> {
    use cudarc::driver::sys;
    let cuda = |c: &Context| match &*c.inner {
        Inner::Cuda(c) => c.ctx.clone(),
        Inner::Emulator => unreachable!("peer access on the emulator"),
    };
    let ctxs: Vec<_> = contexts.iter().map(cuda).collect();
    let mut peer = vec![vec![false; ctxs.len()]; ctxs.len()];
    for (i, a) in ctxs.iter().enumerate() {
        for (j, b) in ctxs.iter().enumerate() {
            if i == j || a.cu_device() == b.cu_device() {
                peer[i][j] = true;
                continue;
            }
            let mut can = 0;
            // SAFETY: an out pointer and two device handles.
            unsafe { sys::cuDeviceCanAccessPeer(&mut can, a.cu_device(), b.cu_device()) }
                .result()
                .map_err(crate::backend::driver("asking for peer access"))?;
            if can == 0 {
                continue;
            }
            a.bind_to_thread().map_err(crate::backend::driver("making the context current"))?;
            // SAFETY: `b`'s context is alive (held by its `Context`).
            match unsafe { sys::cuCtxEnablePeerAccess(b.cu_ctx(), 0) } {
                sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => peer[i][j] = true,
                e => return Err(Error::Driver { op: "enabling peer access", detail: format!("{e:?}") }),
            }
            // Buffers come from the device's stream-ordered memory pool,
            // which peer access of the contexts does not cover: without
            // this, a copy between the GPUs is staged through the host.
            let access = sys::CUmemAccessDesc {
                location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: a.cu_device() },
                flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
            };
            // SAFETY: `pool` is `b`'s device's current pool, `access` one
            // descriptor alive for the call.
            unsafe { sys::cuMemPoolSetAccess(crate::backend::device_pool(b.cu_device())?, &access, 1) }
                .result()
                .map_err(crate::backend::driver("opening a device's memory pool to its peer"))?;
        }
    }
    // Each device's pool keeps freed memory (set when its context was
    // made, `backend::keep_freed_memory`): a sharded product allocates its
    // panels' scratch on each run.
    Ok(peer)
}

/// Where one block of a [`ShardedMatrix`] lives: rows × columns of the
/// whole matrix, on a rank of the group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlockSpec {
    /// The block's rows of the matrix.
    pub rows: Span,
    /// The block's columns of the matrix.
    pub cols: Span,
    /// The rank that holds it.
    pub rank: usize,
}

/// A matrix (row-major) held in blocks by the devices of a group: each
/// block a dense row-major buffer of its own (`rows.len × cols.len`, its
/// leading dimension its width) on its rank's context.
///
/// The blocks are disjoint and cover the matrix. The layouts the sharded
/// GEMM expects come from its [`GemmPlan`]; results stay sharded
/// ([`ShardedMatrix::block`]) or are gathered ([`ShardedMatrix::to_host`],
/// [`ShardedMatrix::gather_to`]).
pub struct ShardedMatrix<T: Element> {
    rows: usize,
    cols: usize,
    specs: Vec<BlockSpec>,
    bufs: Vec<Buffer<T>>,
}

impl<T: Element> std::fmt::Debug for ShardedMatrix<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ShardedMatrix<{}>({} × {}, {} blocks)", std::any::type_name::<T>(), self.rows, self.cols, self.specs.len())
    }
}

impl<T: Element> ShardedMatrix<T> {
    /// Checks that `specs` tile a `rows × cols` matrix over `group`.
    fn check_specs(group: &DeviceGroup, rows: usize, cols: usize, specs: &[BlockSpec]) -> Result<()> {
        let bad = |detail: String| Err(Error::BadArgument { arg: "specs", detail });
        if rows == 0 || cols == 0 {
            return Err(Error::BadArgument { arg: if rows == 0 { "rows" } else { "cols" }, detail: "0, must be at least 1".into() });
        }
        let mut area = 0usize;
        for (i, s) in specs.iter().enumerate() {
            if s.rank >= group.len() {
                return bad(format!("block {i} on rank {} of a group of {}", s.rank, group.len()));
            }
            if s.rows.end() > rows || s.cols.end() > cols {
                return bad(format!("block {i} ({:?} × {:?}) past the {rows} × {cols} matrix", s.rows, s.cols));
            }
            for (j, t) in specs[..i].iter().enumerate() {
                let meet = |a: Span, b: Span| a.start < b.end() && b.start < a.end();
                if meet(s.rows, t.rows) && meet(s.cols, t.cols) {
                    return bad(format!("blocks {j} and {i} overlap"));
                }
            }
            area += s.rows.len * s.cols.len;
        }
        if area != rows * cols {
            return bad(format!("the blocks cover {area} of the {} elements", rows * cols));
        }
        Ok(())
    }

    /// Zero-filled blocks laid out as `specs` (blocks of a `rows × cols`
    /// matrix over `group`).
    ///
    /// Errors: [`Error::BadArgument`] `rows`/`cols` zero, `specs` that
    /// overlap, leave a gap, leave the matrix or name a rank past the
    /// group; [`Error::OutOfMemory`].
    pub fn alloc(group: &DeviceGroup, rows: usize, cols: usize, specs: &[BlockSpec]) -> Result<Self> {
        Self::check_specs(group, rows, cols, specs)?;
        let bufs = specs.iter().map(|s| group.context(s.rank).alloc::<T>(s.rows.len * s.cols.len)).collect::<Result<_>>()?;
        Ok(ShardedMatrix { rows, cols, specs: specs.to_vec(), bufs })
    }

    /// The row-major `rows × cols` matrix `data` cut into `specs`'s blocks,
    /// each copied to its rank.
    ///
    /// Errors: as [`ShardedMatrix::alloc`], and [`Error::LengthMismatch`]
    /// `data` not `rows · cols` elements.
    pub fn from_host(group: &DeviceGroup, data: &[T], rows: usize, cols: usize, specs: &[BlockSpec]) -> Result<Self> {
        Self::check_specs(group, rows, cols, specs)?;
        if data.len() != rows * cols {
            return Err(Error::LengthMismatch { arg: "data", expected: rows * cols, actual: data.len() });
        }
        let bufs = specs
            .iter()
            .map(|s| {
                let mut block = Vec::with_capacity(s.rows.len * s.cols.len);
                for r in s.rows.start..s.rows.end() {
                    block.extend_from_slice(&data[r * cols + s.cols.start..r * cols + s.cols.end()]);
                }
                group.context(s.rank).upload(&block)
            })
            .collect::<Result<_>>()?;
        Ok(ShardedMatrix { rows, cols, specs: specs.to_vec(), bufs })
    }

    /// Rows of the whole matrix.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns of the whole matrix.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Where the blocks are, in block order.
    pub fn specs(&self) -> &[BlockSpec] {
        &self.specs
    }

    /// Block `i`'s buffer (on rank `specs()[i].rank`), or `None` past the
    /// last block.
    pub fn block(&self, i: usize) -> Option<&Buffer<T>> {
        self.bufs.get(i)
    }

    /// Sets every element of every block to `v` (e.g. a NaN poison
    /// before a test run).
    pub fn fill(&mut self, v: T) -> Result<()> {
        self.bufs.iter_mut().try_for_each(|b| b.fill(v))
    }

    pub(crate) fn bufs(&self) -> &[Buffer<T>] {
        &self.bufs
    }

    pub(crate) fn bufs_mut(&mut self) -> &mut [Buffer<T>] {
        &mut self.bufs
    }

    /// The whole matrix on the host, row-major (downloads every block).
    pub fn to_host(&self) -> Result<Vec<T>> {
        let mut out = vec![T::default(); self.rows * self.cols];
        for (s, b) in self.specs.iter().zip(&self.bufs) {
            let block = b.download()?;
            for (i, r) in (s.rows.start..s.rows.end()).enumerate() {
                out[r * self.cols + s.cols.start..r * self.cols + s.cols.end()]
                    .copy_from_slice(&block[i * s.cols.len..(i + 1) * s.cols.len]);
            }
        }
        Ok(out)
    }

    /// The whole matrix in one buffer on rank `rank`, moved there by the
    /// group's collective (NCCL send/receive). Each block must span every
    /// column (row panels: the layout of a result on a grid of one
    /// column).
    ///
    /// Errors: [`Error::BadArgument`] `rank` past the group, `group` not the
    /// group of the blocks, `self` with blocks narrower than the matrix
    /// (gather those with [`ShardedMatrix::to_host`]).
    pub fn gather_to(&self, group: &DeviceGroup, rank: usize) -> Result<Buffer<T>> {
        group.check_root("rank", rank)?;
        if self.specs.iter().zip(&self.bufs).any(|(s, b)| s.rank >= group.len() || !b.is_on(group.context(s.rank))) {
            return Err(Error::BadArgument { arg: "group", detail: "the matrix's blocks are not on this group's contexts".into() });
        }
        if self.specs.iter().any(|s| s.cols.len != self.cols) {
            return Err(Error::BadArgument {
                arg: "self",
                detail: "blocks narrower than the matrix (a 2D grid) cannot be gathered by contiguous copies; use to_host".into(),
            });
        }
        let out = group.context(rank).alloc::<T>(self.rows * self.cols)?;
        let base = out.device_ptr();
        let ops: Vec<Op> = self
            .specs
            .iter()
            .zip(&self.bufs)
            .filter(|(s, _)| s.rows.len > 0)
            .map(|(s, b)| Op::SendRecv {
                from: s.rank,
                to: rank,
                src: b.device_ptr(),
                dst: base + (s.rows.start * self.cols * size_of::<T>()) as u64,
                bytes: b.len() * size_of::<T>(),
            })
            .collect();
        // SAFETY: each block's bytes go to its rows of `out` (disjoint, in
        // bounds: the specs tile the matrix).
        unsafe { group.run(&ops)? };
        Ok(out)
    }
}

/// The device-to-device copy of `bytes` bytes from rank `from`'s `src` to
/// rank `to`'s `dst` through the driver (`cuMemcpyPeerAsync` on `to`'s
/// stream; over NVLink / PCIe peer access where enabled): the ceiling the
/// NCCL bus bandwidth is compared with.
///
/// Errors: [`Error::BadArgument`] a rank past the group, a buffer not on
/// its rank's context, the emulated group; [`Error::LengthMismatch`]
/// `dst` shorter than `src`.
pub fn copy_peer<T: Element>(group: &DeviceGroup, from: usize, src: &Buffer<T>, to: usize, dst: &mut Buffer<T>) -> Result<()> {
    group.check_root("from", from)?;
    group.check_root("to", to)?;
    if !src.is_on(group.context(from)) {
        return Err(Error::BadArgument { arg: "src", detail: format!("not on rank {from}'s context") });
    }
    if !dst.is_on(group.context(to)) {
        return Err(Error::BadArgument { arg: "dst", detail: format!("not on rank {to}'s context") });
    }
    crate::check::len_at_least("dst", dst, src.len())?;
    // `src` is read on `to`'s stream: `from`'s work on it must be done.
    group.context(from).synchronize()?;
    let (Inner::Cuda(a), Inner::Cuda(b)) = (&*group.context(from).inner, &*group.context(to).inner) else {
        return Err(Error::BadArgument { arg: "group", detail: "peer copies need CUDA devices".into() });
    };
    let (Storage::Cuda { ptr: s, .. }, Storage::Cuda { ptr: d, .. }) = (&src.storage, &dst.storage) else {
        unreachable!("CUDA contexts hold CUDA buffers")
    };
    // The copy runs on `to`'s default stream: an ordered operation there
    // for `dst`, and one over `src` whose stream is that same stream (a
    // wait on `from`'s events across devices), so that streams of either
    // context (`Context::on`) order their uses and frees after it.
    let _dst_op = group.context(to).op(&[], &[dst.tracker()])?;
    let _src_op = crate::stream::Op::new(&group.context(from).inner, Some(&b.stream), &[src.tracker()], &[])?;
    b.ctx.bind_to_thread().map_err(crate::backend::driver("making the context current"))?;
    // SAFETY: both allocations hold at least `src.len()` elements.
    unsafe {
        cudarc::driver::result::memcpy_peer_async(b.ctx.cu_ctx(), *d, a.ctx.cu_ctx(), *s, src.len() * size_of::<T>(), b.stream.cu_stream())
    }
    .map_err(crate::backend::driver("copying between devices"))?;
    // `src` is freed on `from`'s default stream when it was allocated
    // there (and recorded nowhere before `from` has streams): that stream
    // waits for the copy, so dropping `src` right away is safe.
    a.stream.join(&b.stream).map_err(crate::backend::driver("ordering after the peer copy"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A missing NCCL (or driver) is a typed error, never cudarc's panic.
    #[test]
    fn missing_libraries_are_typed_errors() {
        if !nccl_present() {
            match DeviceGroup::nccl_version() {
                Err(Error::LibraryMissing { library: NCCL, detail }) => assert!(detail.contains("libnccl.so"), "{detail}"),
                other => panic!("{other:?}"),
            }
        }
        match DeviceGroup::cuda_all() {
            Ok(g) => assert_eq!(g.collective_kind(), CollectiveKind::Nccl),
            Err(Error::NoDriver | Error::NoDevice | Error::LibraryMissing { library: NCCL, .. }) => {}
            Err(e) => panic!("{e:?}"),
        }
    }

    #[test]
    fn ranks_are_checked() {
        assert!(check_ranks("ordinals", &[0, 1], 2).is_ok());
        for bad in [&[][..], &[2][..], &[1, 1][..]] {
            assert!(matches!(check_ranks("ordinals", bad, 2), Err(Error::BadArgument { arg: "ordinals", .. })), "{bad:?}");
        }
    }
}
