//! The collectives of a [`DeviceGroup`](super::DeviceGroup): NCCL on CUDA
//! devices (loaded at run time through cudarc), and an emulated
//! implementation over emulator contexts that follows NCCL's semantics,
//! for the tests.
//!
//! Both run the same [`Op`]s, described by device addresses and byte
//! counts (the data movement is type-agnostic: NCCL moves them as
//! `ncclUint8`). The typed, checked API is on `DeviceGroup`; this module
//! trusts its addresses.
//!
//! # Semantics (NCCL's, followed by the emulation)
//!
//! * A list of ops passed to [`Collective::run`] is one NCCL *group*
//!   (`ncclGroupStart` … `ncclGroupEnd`): every op is issued, none waits
//!   for another, so the ops of one group must not write memory another op
//!   of the group reads or writes.
//! * Each op is enqueued on every participating device's stream of the
//!   [`Lane`] asked for; `DeviceGroup` orders it after the work submitted
//!   to the context before it and before the work submitted after it.
//! * `Broadcast` with the root's destination equal to its source is in
//!   place (the root's buffer is not copied onto itself).
//!
//! # Loading NCCL
//!
//! cudarc opens the library by the names of
//! `cudarc::get_lib_name_candidates("nccl")` (`libnccl.so`,
//! `libnccl.so.13`, `libnccl.so.12`, …, `libnccl.so.1`; **not**
//! `libnccl.so.2`, the name NCCL's own packages and PyTorch's
//! `nvidia-nccl-cu12` wheel install) and panics when none opens. The group
//! therefore probes first ([`nccl_present`]) and returns
//! [`Error::LibraryMissing`] with `library` = [`NCCL`]; a directory holding
//! a `libnccl.so` link to the real library, on `LD_LIBRARY_PATH`, makes it
//! found.

use std::sync::Once;

use cudarc::nccl::{result as nccl, sys as nccl_sys};

use crate::{Error, Result};

/// The `library` of the [`Error::LibraryMissing`] returned when NCCL
/// cannot be loaded.
pub const NCCL: &str = "NCCL";

/// Which implementation moves a group's data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollectiveKind {
    /// NCCL, one communicator per device in this process.
    Nccl,
    /// Host copies between emulator contexts (tests only).
    Emulated,
}

/// One collective operation, by device address (`u64`: the CUDA address,
/// or the host address of an emulator buffer) and bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    /// `bytes` from `src` on rank `root` to `dst[r]` on every rank `r`.
    Broadcast { root: usize, src: u64, dst: Vec<u64>, bytes: usize },
    /// Rank `r`'s `bytes` at `src[r]` to `dst[q] + r · bytes` on every rank
    /// `q`.
    AllGather { src: Vec<u64>, dst: Vec<u64>, bytes: usize },
    /// `bytes` from `src` on rank `from` to `dst` on rank `to`
    /// (`ncclSend` + `ncclRecv`).
    SendRecv { from: usize, to: usize, src: u64, dst: u64, bytes: usize },
}

/// Which of a device's two streams a group of ops is enqueued on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lane {
    /// The context's stream (ordered with its kernels and copies).
    Main,
    /// The group's transfer stream of each device (overlaps the context's
    /// stream; the caller orders the two with events).
    Side,
}

/// What moves data among the devices of a group.
pub(crate) trait Collective: Send + Sync {
    /// Which implementation this is.
    fn kind(&self) -> CollectiveKind;

    /// Runs `ops` as one group on each device's `lane`.
    ///
    /// # Safety
    /// Every address must hold the bytes the op reads or writes, on the
    /// device of its rank, for as long as the devices' streams use them;
    /// ops of one group must not overlap in what they write.
    unsafe fn run(&self, ops: &[Op], lane: Lane) -> Result<()>;
}

/// Whether cudarc can open the NCCL library (one of the names it tries).
pub fn nccl_present() -> bool {
    // SAFETY: only tries to open the library.
    unsafe { nccl_sys::is_culib_present() }
}

/// [`Error::LibraryMissing`] (`library` = [`NCCL`]) naming what was tried,
/// unless cudarc can open NCCL.
pub(crate) fn require_nccl() -> Result<()> {
    if nccl_present() {
        return Ok(());
    }
    let names = cudarc::get_lib_name_candidates("nccl");
    Err(Error::LibraryMissing {
        library: NCCL,
        detail: format!(
            "none of {names:?} could be opened; put a directory with one of these names (e.g. a `libnccl.so` link to \
             nvidia/nccl/lib/libnccl.so.2 of the nvidia-nccl-cu12 wheel) on LD_LIBRARY_PATH"
        ),
    })
}

/// `NCCL_NVLS_ENABLE=0` before NCCL reads its environment: NVLink
/// multicast (NVLS) stays off. An explicit setting of the caller wins.
fn nvls_off() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if std::env::var_os("NCCL_NVLS_ENABLE").is_none() {
            // SAFETY: done once, before the first communicator is
            // created (NCCL reads it then). Another thread reading the
            // environment at this very moment is the documented hazard
            // of `set_var`; the GPU scripts also set the variable before
            // the process starts.
            unsafe { std::env::set_var("NCCL_NVLS_ENABLE", "0") };
        }
    });
}

fn nccl_err(op: &'static str) -> impl FnOnce(nccl::NcclError) -> Error {
    move |e| Error::Driver { op, detail: format!("NCCL: {:?}", e.0) }
}

/// One NCCL communicator per device of the group, made together
/// (`ncclCommInitAll`), each used on its device context's stream.
pub(crate) struct Nccl {
    comms: Vec<nccl_sys::ncclComm_t>,
    /// Each rank's stream of each [`Lane`] (`[Main, Side]`).
    streams: [Vec<nccl_sys::cudaStream_t>; 2],
}

// SAFETY: the communicators are used only through `run`, which holds
// `&self` and issues each group from one thread at a time (NCCL allows
// concurrent use of different communicators; one communicator is used by
// one group call at a time: `run` is called with the group's lock held).
unsafe impl Send for Nccl {}
unsafe impl Sync for Nccl {}

impl Nccl {
    /// Communicators over `ordinals` (rank `r` on device `ordinals[r]`),
    /// each enqueuing on `streams[lane][r]`.
    ///
    /// Errors: [`Error::LibraryMissing`] (`library` = [`NCCL`]) when the
    /// library cannot be opened; [`Error::Driver`] when NCCL fails.
    pub(crate) fn new(ordinals: &[i32], streams: [Vec<nccl_sys::cudaStream_t>; 2]) -> Result<Nccl> {
        require_nccl()?;
        nvls_off();
        let mut comms = vec![std::ptr::null_mut(); ordinals.len()];
        // SAFETY: `comms` has one slot per ordinal.
        unsafe { nccl::comm_init_all(comms.as_mut_ptr(), ordinals.len() as i32, ordinals.as_ptr()) }
            .map_err(nccl_err("creating the communicators (ncclCommInitAll)"))?;
        Ok(Nccl { comms, streams })
    }

    /// NCCL's version code (e.g. 22703 for 2.27.3).
    pub(crate) fn version() -> Result<i32> {
        nccl::get_nccl_version().map_err(nccl_err("reading the version"))
    }
}

impl Drop for Nccl {
    fn drop(&mut self) {
        for &c in &self.comms {
            // SAFETY: each communicator is destroyed once, here.
            let _ = unsafe { nccl::comm_destroy(c) };
        }
    }
}

const U8: nccl_sys::ncclDataType_t = nccl_sys::ncclDataType_t::ncclUint8;

impl Collective for Nccl {
    fn kind(&self) -> CollectiveKind {
        CollectiveKind::Nccl
    }

    unsafe fn run(&self, ops: &[Op], lane: Lane) -> Result<()> {
        let p = |a: u64| a as usize as *mut std::ffi::c_void;
        let streams = &self.streams[lane as usize];
        // SAFETY (every call below): the caller's contract.
        let issue = |op: &Op| -> Result<()> {
            match op {
                Op::Broadcast { root, src, dst, bytes } => dst.iter().enumerate().try_for_each(|(r, &d)| {
                    let s = if r == *root { p(*src) } else { p(d) };
                    unsafe { nccl::broadcast(s, p(d), *bytes, U8, *root as i32, self.comms[r], streams[r]) }
                        .map(drop)
                        .map_err(nccl_err("broadcasting"))
                }),
                Op::AllGather { src, dst, bytes } => (0..dst.len()).try_for_each(|r| {
                    unsafe { nccl::all_gather(p(src[r]), p(dst[r]), *bytes, U8, self.comms[r], streams[r]) }
                        .map(drop)
                        .map_err(nccl_err("gathering (all-gather)"))
                }),
                Op::SendRecv { from, to, src, dst, bytes } => {
                    unsafe { nccl::send(p(*src), *bytes, U8, *to as i32, self.comms[*from], streams[*from]) }
                        .map_err(nccl_err("sending"))?;
                    unsafe { nccl::recv(p(*dst), *bytes, U8, *from as i32, self.comms[*to], streams[*to]) }
                        .map(drop)
                        .map_err(nccl_err("receiving"))
                }
            }
        };
        nccl::group_start().map_err(nccl_err("starting a group"))?;
        let issued = ops.iter().try_for_each(issue);
        // The group is closed whatever happened inside it.
        let ended = nccl::group_end().map(drop).map_err(nccl_err("ending a group"));
        issued.and(ended)
    }
}

/// The emulated collective: every op is a host copy between emulator
/// buffers, done when the group runs (an emulator context has no queue,
/// so "enqueued" is "done").
pub(crate) struct Emulated {
    ranks: usize,
}

impl Emulated {
    pub(crate) fn new(ranks: usize) -> Emulated {
        Emulated { ranks }
    }
}

impl Collective for Emulated {
    fn kind(&self) -> CollectiveKind {
        CollectiveKind::Emulated
    }

    unsafe fn run(&self, ops: &[Op], _lane: Lane) -> Result<()> {
        // `copy` (memmove): an in-place all-gather reads and writes one buffer.
        let copy = |src: u64, dst: u64, bytes: usize| {
            if src != dst && bytes > 0 {
                // SAFETY: the caller's contract (host addresses of emulator buffers).
                unsafe { std::ptr::copy(src as usize as *const u8, dst as usize as *mut u8, bytes) }
            }
        };
        for op in ops {
            match op {
                Op::Broadcast { root, src, dst, bytes } => {
                    debug_assert!(*root < self.ranks && dst.len() == self.ranks);
                    for &d in dst {
                        copy(*src, d, *bytes);
                    }
                }
                Op::AllGather { src, dst, bytes } => {
                    for &d in dst {
                        for (r, &s) in src.iter().enumerate() {
                            copy(s, d + (r * bytes) as u64, *bytes);
                        }
                    }
                }
                Op::SendRecv { src, dst, bytes, .. } => copy(*src, *dst, *bytes),
            }
        }
        Ok(())
    }
}
