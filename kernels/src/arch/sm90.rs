//! The Hopper (sm_90a) instructions of the wgmma engine: transaction
//! barriers (`mbarrier`), tensor-memory-accelerator copies
//! (`cp.async.bulk.tensor`), warpgroup matrix multiply-accumulate
//! (`wgmma.mma_async`), register reallocation (`setmaxnreg`) and the proxy
//! fences that order them.
//!
//! Each function here is one instruction (or one wait loop). On `nvptx64`
//! it is an `asm!` (`nvptx/sm90.rs`, compiled only into the sm_90a PTX
//! module); on the host it is the emulator's model of the instruction's
//! documented semantics (`emu/sm90.rs`):
//!
//! * **mbarrier**: an arrival count and a transaction count per phase. A
//!   phase completes when every expected thread has arrived and every
//!   expected byte has landed; [`mbarrier_wait`] waits for the phase of a
//!   given parity (the emulator suspends the thread and reports a deadlock
//!   when no thread can make progress).
//! * **TMA**: a tile copy described by a [`TensorMap`], with the 128-byte
//!   swizzle and zero fill outside the tensor. The emulator reads the tile
//!   when the copy is issued and writes it to shared memory one scheduling
//!   round later, then completes the bytes on the mbarrier: a consumer that
//!   reads before waiting sees stale bytes. Issuing a copy into bytes an
//!   unfinished `wgmma` still reads is a reported fault.
//! * **wgmma**: `D = A · B + D` of a warpgroup (four consecutive warps, the
//!   first a multiple of 4) with `A` and `B` in shared memory, addressed by
//!   64-bit descriptors ([`crate::layout::wgmma`]). The emulator computes
//!   each thread's accumulator fragment ([`crate::layout::wgmma::d_fragment`])
//!   from the descriptors when the instruction is issued, and keeps the
//!   bytes it read registered as in flight until the thread's
//!   [`wgmma_wait_group`] retires the group.
//! * **TMA stores** ([`tma_store_3d`]): a box from shared memory (the same
//!   swizzle) to global memory, clipped at the tensor's edges, tracked by
//!   per-thread bulk async-groups.
//! * Shared-memory addresses are the 32-bit `.shared` addresses of
//!   [`Shared::addr`](super::Shared::addr) (on the host: byte offsets).

use super::Global;

#[cfg(not(target_arch = "nvptx64"))]
pub(crate) use super::emu::sm90 as imp;
#[cfg(target_arch = "nvptx64")]
use super::nvptx::sm90 as imp;

/// A TMA tensor map: the 128 opaque bytes `cuTensorMapEncodeTiled` writes
/// (on the emulator: [`EmuTensorMap`]'s encoding). Kernels receive maps in
/// global memory (a by-value parameter aligned above 16 bytes crashes the
/// pinned rustc) and fence them with [`fence_proxy_tensormap`] before the
/// first copy.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorMap(pub [u64; 16]);

/// What the emulator's TMA needs of a tensor map (rank 3, 16-bit or 32-bit
/// elements, 128-byte swizzle, zero fill): the host writes it into the 128
/// bytes of a [`TensorMap`] for emulated launches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmuTensorMap {
    /// Host address of the tensor's first element.
    pub base: u64,
    /// Bytes from `base` to the end of the buffer (reads past it fault).
    pub len: u64,
    /// Bytes per element (2 or 4).
    pub elem_bytes: u32,
    /// Extent of each dimension, innermost first.
    pub dims: [u32; 3],
    /// Bytes between consecutive indices of dimensions 1 and 2.
    pub strides: [u64; 2],
    /// Box extent of each dimension (elements); `box_[0] · elem_bytes`
    /// is 128 (one swizzled row).
    pub box_: [u32; 3],
}

#[cfg(not(target_arch = "nvptx64"))]
impl EmuTensorMap {
    const MAGIC: u64 = u64::from_le_bytes(*b"FTTMAP01");

    /// The map as the 128 bytes a kernel receives.
    pub fn encode(&self) -> TensorMap {
        let mut w = [0u64; 16];
        w[0] = Self::MAGIC;
        w[1] = self.base;
        w[2] = self.len;
        w[3] = self.elem_bytes as u64;
        for i in 0..3 {
            w[4 + i] = self.dims[i] as u64;
            w[7 + i] = self.box_[i] as u64;
        }
        w[10] = self.strides[0];
        w[11] = self.strides[1];
        TensorMap(w)
    }

    /// The map encoded in `m`, or `None` when `m` is not an emulator map
    /// (e.g. a driver-encoded one).
    pub fn decode(m: &TensorMap) -> Option<EmuTensorMap> {
        let w = &m.0;
        (w[0] == Self::MAGIC).then(|| EmuTensorMap {
            base: w[1],
            len: w[2],
            elem_bytes: w[3] as u32,
            dims: [w[4] as u32, w[5] as u32, w[6] as u32],
            strides: [w[10], w[11]],
            box_: [w[7] as u32, w[8] as u32, w[9] as u32],
        })
    }
}

// ------------------------------------------------------------- mbarrier

/// `mbarrier.init.shared::cta.b64 [bar], count`: a fresh barrier expecting
/// `count` arrivals per phase, in phase 0. `bar` is 8-byte aligned; the
/// block synchronises (a [`sync_threads`](super::sync_threads)) before
/// another thread uses it.
///
/// # Safety
/// `bar` is an 8-byte aligned address inside the block's shared memory
/// used for nothing else.
#[inline(always)]
pub unsafe fn mbarrier_init(bar: u32, count: u32) {
    unsafe { imp::mbarrier_init(bar, count) }
}

/// `mbarrier.arrive.shared::cta.b64 _, [bar]`: one arrival on the current
/// phase.
///
/// # Safety
/// `bar` was initialised by [`mbarrier_init`].
#[inline(always)]
pub unsafe fn mbarrier_arrive(bar: u32) {
    unsafe { imp::mbarrier_arrive(bar) }
}

/// `mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], bytes`: expects
/// `bytes` more bytes of transactions (TMA copies completing on `bar`) in
/// the current phase, then arrives.
///
/// # Safety
/// As for [`mbarrier_arrive`].
#[inline(always)]
pub unsafe fn mbarrier_arrive_expect_tx(bar: u32, bytes: u32) {
    unsafe { imp::mbarrier_arrive_expect_tx(bar, bytes) }
}

/// Waits until the phase of parity `parity` (0 or 1) of `bar` has
/// completed: `mbarrier.try_wait.parity` in a loop. A barrier in phase
/// `p` counts the phase before it (parity `p ^ 1`) as complete, so the
/// first wait with parity 1 on a fresh barrier returns at once.
///
/// # Safety
/// As for [`mbarrier_arrive`].
#[inline(always)]
pub unsafe fn mbarrier_wait(bar: u32, parity: u32) {
    unsafe { imp::mbarrier_wait(bar, parity) }
}

// ------------------------------------------------------------------ TMA

/// `fence.proxy.tensormap::generic.acquire.gpu [map], 128`: makes the
/// tensor map at `maps[i]`, written through the generic proxy (by the
/// host before the launch), visible to the TMA unit. Issued once by each
/// thread that copies with the map, before its first copy.
///
/// # Safety
/// `maps[i]` is inside the buffer.
#[inline(always)]
pub unsafe fn fence_proxy_tensormap(maps: Global<TensorMap>, i: usize) {
    unsafe { imp::fence_proxy_tensormap(maps, i) }
}

/// `cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes`:
/// copies the box of `maps[i]` at `coords` (innermost first, elements)
/// to shared memory at `dst`, 128-byte swizzled, elements outside the
/// tensor zero-filled; the bytes complete on `bar` (whose phase must
/// expect them, [`mbarrier_arrive_expect_tx`]).
///
/// # Safety
/// `dst` is 1024-byte aligned with the box's bytes inside shared memory
/// that no one reads or writes until `bar`'s phase completes; `maps[i]`
/// is a valid tensor map fenced by this thread; the box starts on a
/// 16-byte piece of its rows (`coords[0]` times the element size a
/// multiple of 16: on an H200 a box starting inside a piece raised an
/// illegal instruction, whatever the map's base; the emulator reports it).
#[inline(always)]
pub unsafe fn tma_load_3d(dst: u32, maps: Global<TensorMap>, i: usize, coords: [i32; 3], bar: u32) {
    unsafe { imp::tma_load_3d(dst, maps, i, coords, bar) }
}

/// `cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group`: copies
/// the box of `maps[i]` from shared memory at `src` (128-byte swizzled,
/// as [`tma_load_3d`] writes it) to the tensor at `coords`; elements
/// outside the tensor are not written, except that the innermost
/// dimension is clipped in whole 16-byte pieces (measured on an H100: the
/// piece holding the last column is written whole, so a row that does not
/// end on a 16-byte boundary loses the padding after it). The copy joins the calling
/// thread's open bulk async-group ([`bulk_commit_group`]); `src` must
/// keep its bytes until [`bulk_wait_group_read`] says the copy has read
/// them. The emulator reads the box when the copy is issued and again at
/// that wait, writes the tensor at the wait, and reports a fault when the
/// two reads differ (the bytes were overwritten too early) or when the
/// thread returns without waiting.
///
/// # Safety
/// `src` is 1024-byte aligned with the box's bytes inside shared memory,
/// written by this block and ordered for the async proxy
/// ([`fence_proxy_async_shared`] by each writer, then a barrier);
/// `maps[i]` is a valid tensor map fenced by this thread.
#[inline(always)]
pub unsafe fn tma_store_3d(src: u32, maps: Global<TensorMap>, i: usize, coords: [i32; 3]) {
    unsafe { imp::tma_store_3d(src, maps, i, coords) }
}

/// `cp.async.bulk.commit_group`: closes the calling thread's open bulk
/// async-group (the [`tma_store_3d`] issued since the last commit).
#[inline(always)]
pub fn bulk_commit_group() {
    imp::bulk_commit_group()
}

/// `cp.async.bulk.wait_group.read N`: waits until at most the `N` most
/// recently committed bulk groups of the calling thread still read their
/// shared memory (their global writes may still be in flight).
#[inline(always)]
pub fn bulk_wait_group_read<const N: u32>() {
    imp::bulk_wait_group_read::<N>()
}

// ------------------------------------------------------------- clusters

/// `%cluster_ctarank`: this block's rank in its thread-block cluster
/// (`0..`[`cluster_nctarank`]; 0 in a launch without clusters).
#[inline(always)]
pub fn cluster_ctarank() -> u32 {
    imp::cluster_ctarank()
}

/// `%cluster_nctarank`: the blocks of this block's cluster (1 in a launch
/// without clusters).
#[inline(always)]
pub fn cluster_nctarank() -> u32 {
    imp::cluster_nctarank()
}

/// `barrier.cluster.arrive.release` then `barrier.cluster.wait.acquire`:
/// every thread of every block of the cluster waits until all have
/// arrived; their earlier memory accesses (shared memory of any block of
/// the cluster included) are ordered before the later ones. With
/// [`fence_mbarrier_init_cluster`] before it, it publishes the blocks'
/// mbarrier initialisations to the whole cluster.
#[inline(always)]
pub fn cluster_sync() {
    imp::cluster_sync()
}

/// `fence.mbarrier_init.release.cluster`: orders this thread's
/// [`mbarrier_init`]s before its next cluster barrier's release, so that
/// the other blocks of the cluster may arrive on them and complete bytes
/// on them after that barrier.
#[inline(always)]
pub fn fence_mbarrier_init_cluster() {
    imp::fence_mbarrier_init_cluster()
}

/// `mapa.shared::cluster.u32` then `mbarrier.arrive.shared::cluster.b64`
/// (release at CTA scope, the default, as CUTLASS's cluster barriers
/// release a stage; `.release.cluster` made every arrival a cluster-wide
/// fence): one arrival on the mbarrier at `bar` (an address of this
/// block's shared memory) of block `cta` of the cluster — this block's own
/// when `cta` is its rank. It tells that block's waiting threads that this
/// thread is done with what the phase guards.
///
/// # Safety
/// `cta` is a rank of the cluster whose block has initialised an mbarrier
/// at `bar`, published by a [`cluster_sync`] since, and has not exited.
#[inline(always)]
pub unsafe fn mbarrier_arrive_cluster(bar: u32, cta: u32) {
    unsafe { imp::mbarrier_arrive_cluster(bar, cta) }
}

/// `cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster`:
/// [`tma_load_3d`] into every block of the cluster whose rank's bit is set
/// in `mask`: the box lands at `dst` in each of them and its bytes
/// complete on the mbarrier at `bar` of each.
///
/// # Safety
/// As for [`tma_load_3d`], in every block of `mask`; those blocks have
/// published their mbarriers ([`cluster_sync`]) and have not exited.
#[inline(always)]
pub unsafe fn tma_load_3d_multicast(dst: u32, maps: Global<TensorMap>, i: usize, coords: [i32; 3], bar: u32, mask: u16) {
    unsafe { imp::tma_load_3d_multicast(dst, maps, i, coords, bar, mask) }
}

// ---------------------------------------------------------------- wgmma

/// `wgmma.fence.sync.aligned`: orders this warpgroup's earlier register
/// and shared-memory accesses before the `wgmma` that follow (required
/// before the first `wgmma` of a group that reuses accumulators).
#[inline(always)]
pub fn wgmma_fence() {
    imp::wgmma_fence()
}

/// `wgmma.commit_group.sync.aligned`: closes the group of `wgmma`
/// issued since the last commit.
#[inline(always)]
pub fn wgmma_commit_group() {
    imp::wgmma_commit_group()
}

/// `wgmma.wait_group.sync.aligned N`: waits until at most the `N` most
/// recently committed groups are unfinished. `acc` is every accumulator
/// array still written by those groups' `wgmma`: the compiler must not
/// move its reads above the wait.
#[inline(always)]
pub fn wgmma_wait_group<const N: u32, const R: usize>(acc: &mut [u32; R]) {
    imp::wgmma_wait_group::<N, R>(acc)
}

/// [`wgmma_wait_group`] for two accumulator arrays (a ping-pong tile's
/// halves): one wait, then both arrays fenced.
#[inline(always)]
pub fn wgmma_wait_group2<const N: u32, const R: usize>(a: &mut [u32; R], b: &mut [u32; R]) {
    imp::wgmma_wait_group::<N, R>(a);
    imp::wgmma_fence_regs::<R>(b)
}

/// `fence.proxy.async.shared::cta`: orders this thread's ordinary
/// shared-memory writes before later reads and writes by the async proxy
/// (TMA, wgmma).
#[inline(always)]
pub fn fence_proxy_async_shared() {
    imp::fence_proxy_async_shared()
}

/// `setmaxnreg.inc.sync.aligned.u32 232`: the calling warpgroup takes up
/// to 232 registers per thread (the consumers of a warp-specialised
/// kernel). A no-op on the emulator.
#[inline(always)]
pub fn setmaxnreg_inc_232() {
    imp::setmaxnreg_inc_232()
}

/// `setmaxnreg.dec.sync.aligned.u32 40`: the calling warpgroup gives its
/// registers back down to 40 per thread (the producer). A no-op on the
/// emulator.
#[inline(always)]
pub fn setmaxnreg_dec_40() {
    imp::setmaxnreg_dec_40()
}

/// `griddepcontrol.wait`: waits until the grids this launch depends on
/// (the stream's previous kernel, when it was launched as a programmatic
/// dependent: [`crate::launch::LaunchConfig::early_launch`]) have ended
/// and their memory writes are visible. A no-op in a launch without such
/// a dependency, and on the emulator (which runs launches one after
/// another). Every thread calls it before its first global-memory access.
#[inline(always)]
pub fn griddepcontrol_wait() {
    imp::griddepcontrol_wait()
}

/// `griddepcontrol.launch_dependents`: lets the stream's next kernel, when
/// launched as a programmatic dependent, be scheduled once every block of
/// this grid has called it or ended (its blocks then wait in
/// [`griddepcontrol_wait`] for this grid to end). A no-op otherwise and on
/// the emulator.
#[inline(always)]
pub fn griddepcontrol_launch_dependents() {
    imp::griddepcontrol_launch_dependents()
}

macro_rules! wgmma_api {
    ($($(#[$m:meta])* $name:ident, $n:literal;)*) => {$(
        $(#[$m])*
        ///
        /// `acc` holds the thread's `N/2` f32 accumulators (as bits) at the
        /// positions of [`crate::layout::wgmma::d_fragment`]; `scale_d`
        /// false computes `D = A · B` (the old accumulators are ignored).
        /// `TA` / `TB`: `A` stored m-major / `B` stored n-major
        /// (`imm-trans-a` / `imm-trans-b`; 0 is k-major).
        ///
        /// # Safety
        /// Issued by all 128 threads of a warpgroup together with the same
        /// descriptors, which address 128-byte-swizzled tiles inside
        /// shared memory that stay unchanged until the group is waited
        /// for; `acc` is not read or written until then.
        #[inline(always)]
        pub unsafe fn $name<const TA: bool, const TB: bool>(acc: &mut [u32; $n / 2], desc_a: u64, desc_b: u64, scale_d: bool) {
            unsafe { imp::$name::<TA, TB>(acc, desc_a, desc_b, scale_d) }
        }
    )*};
}

macro_rules! wgmma_tf32_api {
    ($($(#[$m:meta])* $name:ident, $n:literal;)*) => {$(
        $(#[$m])*
        ///
        /// `acc` as for the 16-bit shapes; both operands k-major (tf32 has
        /// no transpose). Each 32-bit element is read as tf32
        /// ([`crate::numeric::tf32_operand`]: its low 13 bits are ignored),
        /// so f32 operands are rounded first
        /// ([`crate::numeric::tf32_rna`]) or they are truncated.
        ///
        /// # Safety
        /// As for the 16-bit shapes.
        #[inline(always)]
        pub unsafe fn $name(acc: &mut [u32; $n / 2], desc_a: u64, desc_b: u64, scale_d: bool) {
            unsafe { imp::$name(acc, desc_a, desc_b, scale_d) }
        }
    )*};
}

wgmma_tf32_api! {
    /// `wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32`.
    wgmma_m64n256k8_tf32, 256;
    /// `wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32`.
    wgmma_m64n128k8_tf32, 128;
    /// `wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32`.
    wgmma_m64n64k8_tf32, 64;
}

wgmma_api! {
    /// `wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16`.
    wgmma_m64n256k16_bf16, 256;
    /// `wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16`.
    wgmma_m64n128k16_bf16, 128;
    /// `wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16`.
    wgmma_m64n256k16_f16, 256;
    /// `wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16`.
    wgmma_m64n128k16_f16, 128;
    /// `wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16`.
    wgmma_m64n64k16_bf16, 64;
    /// `wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16`.
    wgmma_m64n64k16_f16, 64;
    /// `wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16`.
    wgmma_m64n16k16_bf16, 16;
    /// `wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16`.
    wgmma_m64n16k16_f16, 16;
}
