//! The CPU emulator: runs kernel bodies on the host with GPU semantics.
//!
//! * A block's threads are stackful coroutines on one OS thread, resumed in
//!   a fixed order (deterministic): each runs until it reaches
//!   [`sync_threads`](device::sync_threads) or returns. When every live
//!   thread waits at the barrier a new barrier interval begins. A thread that
//!   returns while others wait at a barrier is reported (divergent barrier).
//! * Warp collectives (`shfl.sync`, `ldmatrix`, `mma.sync`) are a
//!   rendezvous (`warp.rs`): each lane deposits its operands and yields;
//!   once every lane of the warp that has not exited waits at one, the
//!   scheduler checks they wait at the same instruction (and, for the
//!   `.aligned` ones, that all 32 lanes of a full warp are there), computes
//!   each lane's result from the instruction's per-lane semantics and
//!   resumes them. Collectives complete before a block barrier releases;
//!   lanes of one warp split between a collective and the barrier, or
//!   between two collectives, are reported (divergent warp collective).
//! * Blocks run in parallel on rayon's pool, one block per task; the
//!   blocks of a thread-block cluster (`LaunchSpec::cluster`) run as one
//!   task, their threads in one scheduling loop (block after block in
//!   rank order each pass), so a thread of one block may wait for an
//!   arrival, a multicast copy or the cluster barrier of another; a
//!   deadlock is a pass where nothing anywhere in the cluster changed.
//! * Global accesses are bounds-checked against the buffer they came from;
//!   a fault names kernel, block, thread, buffer, index and length.
//! * Dynamic shared memory is a per-block buffer. Every byte remembers its
//!   last writer and its readers in the current barrier interval: a read of
//!   a byte another thread wrote, or a write to a byte another thread read
//!   or wrote, in the same interval is reported as a race; a read of a byte
//!   no thread wrote in this block is reported as uninitialised.

pub mod device;
mod sched;
pub(crate) mod sm80;
pub(crate) mod sm90;
mod warp;

pub use sched::{launch, Dim3, EmuError, LaunchSpec};

#[cfg(test)]
mod test_util;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod warp_tests;
#[cfg(test)]
mod mutation_tests;
#[cfg(test)]
mod store_tests;
#[cfg(test)]
mod cluster_tests;
