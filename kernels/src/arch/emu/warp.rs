//! Warp collectives of the emulator: the rendezvous.
//!
//! A lane that reaches a warp collective (`shfl.sync`, `ldmatrix`,
//! `mma.sync`, `bar.warp.sync`) deposits its operands in its [`WarpSlot`] and yields
//! ([`Yield::Warp`]). The block scheduler completes a warp once every lane
//! of it that has not exited waits at a collective: [`complete`] checks
//! that they all wait at the same instruction (else a *divergent warp
//! collective* fault), that an `.aligned` instruction has all 32 lanes of
//! a full warp, computes every lane's result from the instruction's
//! per-lane semantics ([`super::sm80`]) into its slot, and the scheduler
//! resumes the lanes, which read their results back.
//!
//! Slots are plain arrays of registers inside each thread's context: a
//! collective allocates nothing.

use core::fmt;
use std::format;
use std::string::String;

use super::sched::{current, suspend, ThreadCtx, Yield};
use super::sm80;

/// Threads per warp.
pub(crate) const WARP: usize = 32;

/// Registers a lane deposits and gets back: enough for one `mma` (4 A,
/// 2 B, 4 C registers).
pub(crate) type Regs = [u32; 10];

/// The warp instructions the emulator knows, with the qualifiers that must
/// agree between lanes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum WarpOp {
    /// `shfl.sync.idx.b32` (full mask): `regs[0]` the value, `regs[1]` the
    /// source lane.
    ShflIdx,
    /// `shfl.sync.bfly.b32` (full mask): `regs[0]` the value, `regs[1]` the
    /// lane mask.
    ShflBfly,
    /// `ldmatrix.sync.aligned.m8n8.x{matrices}{.trans}.shared.b16`:
    /// `regs[0..4]` the 16-byte row this lane's address points at (lanes
    /// past `8 · matrices` deposit nothing).
    Ldmatrix { matrices: u8, trans: bool },
    /// `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`.
    MmaBf16,
    /// `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`.
    MmaF16,
    /// `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`.
    MmaTf32,
    /// `bar.warp.sync` with the full mask: a rendezvous of the warp's 32
    /// lanes that orders their shared-memory accesses (no registers).
    SyncWarp,
}

impl WarpOp {
    /// Whether the instruction is `.aligned`: every lane of a full warp
    /// must execute it together.
    fn aligned(self) -> bool {
        !matches!(self, WarpOp::ShflIdx | WarpOp::ShflBfly)
    }
}

impl fmt::Display for WarpOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            WarpOp::ShflIdx => f.write_str("shfl.sync.idx"),
            WarpOp::ShflBfly => f.write_str("shfl.sync.bfly"),
            WarpOp::Ldmatrix { matrices, trans } => {
                write!(f, "ldmatrix.sync.aligned.m8n8.x{matrices}{}", if trans { ".trans" } else { "" })
            }
            WarpOp::MmaBf16 => f.write_str("mma.sync.aligned.m16n8k16 (bf16)"),
            WarpOp::MmaF16 => f.write_str("mma.sync.aligned.m16n8k16 (f16)"),
            WarpOp::MmaTf32 => f.write_str("mma.sync.aligned.m16n8k8 (tf32)"),
            WarpOp::SyncWarp => f.write_str("bar.warp.sync"),
        }
    }
}

/// What a lane waiting at a collective deposited, then what it receives.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WarpSlot {
    pub(crate) op: WarpOp,
    pub(crate) regs: Regs,
}

impl Default for WarpSlot {
    fn default() -> Self {
        WarpSlot { op: WarpOp::ShflIdx, regs: [0; 10] }
    }
}

/// Runs in a lane's coroutine: deposits `regs` for `op`, waits until the
/// scheduler has completed the warp, returns this lane's result registers.
pub(crate) fn collective(op: WarpOp, regs: Regs) -> Regs {
    let (_, t) = current();
    t.warp.set(WarpSlot { op, regs });
    suspend(Yield::Warp);
    t.warp.get().regs
}

/// The lane of the calling thread (its linear index in the block mod 32).
pub(crate) fn lane() -> usize {
    current().1.linear as usize % WARP
}

/// `lanes 0–15, 20` for a set of lanes.
pub(crate) fn lane_list(mask: u32) -> String {
    let mut s = String::new();
    let mut l = 0;
    while l < 32 {
        if mask & (1 << l) == 0 {
            l += 1;
            continue;
        }
        let start = l;
        while l + 1 < 32 && mask & (1 << (l + 1)) != 0 {
            l += 1;
        }
        if !s.is_empty() {
            s.push_str(", ");
        }
        if l == start {
            s.push_str(&format!("{start}"));
        } else {
            s.push_str(&format!("{start}–{l}"));
        }
        l += 1;
    }
    let plural = if mask.count_ones() == 1 { "" } else { "s" };
    format!("lane{plural} {s}")
}

/// Completes the collective every lane of one warp waits at. `lanes` are
/// the warp's threads (fewer than 32 in a partial last warp); `waiting`
/// has a bit per lane at the collective, the others have exited.
///
/// Returns the instruction completed, or a description of the fault
/// (without the block prefix) when the lanes disagree, an `.aligned`
/// instruction lacks lanes, or a shuffle reads a lane that is not there.
pub(crate) fn complete(lanes: &[ThreadCtx], waiting: u32) -> Result<WarpOp, String> {
    let n = lanes.len();
    let first = waiting.trailing_zeros() as usize;
    let op = lanes[first].warp.get().op;
    let other = (0..n).filter(|&l| waiting & (1 << l) != 0).find(|&l| lanes[l].warp.get().op != op);
    if let Some(o) = other {
        let op2 = lanes[o].warp.get().op;
        let at = |x: WarpOp| (0..n).filter(|&l| waiting & (1 << l) != 0 && lanes[l].warp.get().op == x).fold(0u32, |m, l| m | 1 << l);
        return Err(format!(
            "divergent warp collective: {} wait at {op} while {} wait at {op2}",
            lane_list(at(op)),
            lane_list(at(op2))
        ));
    }
    let present = if n == WARP { u32::MAX } else { (1u32 << n) - 1 };
    if op.aligned() {
        if n < WARP {
            return Err(format!(
                "{op} needs all 32 lanes of a full warp, but this is a partial warp of {n} lanes (block size not a multiple of 32)"
            ));
        }
        if waiting != present {
            return Err(format!(
                "divergent warp collective: {op} needs all 32 lanes, but {} exited while {} wait at it",
                lane_list(present & !waiting),
                lane_list(waiting)
            ));
        }
    }
    let mut input = [[0u32; 10]; WARP];
    for l in 0..n {
        if waiting & (1 << l) != 0 {
            input[l] = lanes[l].warp.get().regs;
        }
    }
    let mut out = [[0u32; 10]; WARP];
    match op {
        WarpOp::ShflIdx | WarpOp::ShflBfly => {
            for l in 0..n {
                if waiting & (1 << l) == 0 {
                    continue;
                }
                // Full mask and clamp 31: only the low five bits count.
                let b = input[l][1] as usize & 31;
                let src = if op == WarpOp::ShflIdx { b } else { l ^ b };
                if waiting & (1 << src) == 0 {
                    let why = if src >= n { "is not in this partial warp" } else { "has exited" };
                    return Err(format!(
                        "{op}: lane {l} reads lane {src}, which {why} (the value is undefined on the GPU)"
                    ));
                }
                out[l][0] = input[src][0];
            }
        }
        WarpOp::Ldmatrix { matrices, trans } => sm80::ldmatrix_exchange(matrices as usize, trans, &input, &mut out),
        WarpOp::MmaBf16 | WarpOp::MmaF16 | WarpOp::MmaTf32 => sm80::mma_exchange(op, &input, &mut out),
        WarpOp::SyncWarp => {}
    }
    for l in 0..n {
        if waiting & (1 << l) != 0 {
            lanes[l].warp.set(WarpSlot { op, regs: out[l] });
        }
    }
    Ok(op)
}
