//! The warp-level instructions of the sm_80 tensor-core path: `ldmatrix`,
//! `mma.sync`, `shfl.sync`, and the conversions to and from the 16-bit and
//! tf32 formats.
//!
//! Each function here is one instruction. On `nvptx64` it is one `asm!`
//! ([`super`]'s `nvptx/sm80.rs`); on the host it is the emulator's
//! rendezvous plus the per-lane semantics written below
//! (`emu/sm80.rs`). Which lane holds which matrix element is not repeated
//! here: it is data, in [`crate::layout::fragment`], and the emulator moves
//! values between lanes with those same functions.
//!
//! # Warp collectives
//!
//! `ldmatrix`, `mma` and `shfl` exchange registers between the lanes of a
//! warp (32 threads with consecutive linear indices, see [`lane_id`]):
//!
//! * `ldmatrix` and `mma` are `.sync.aligned`: all 32 lanes of a full warp
//!   must execute the same instruction together, from converged code (no
//!   lane may skip it, exit before it or be missing from a partial last
//!   warp). The emulator reports a lane that exited, a partial warp, and
//!   lanes waiting at different instructions as a fault naming the kernel,
//!   block, warp and lanes.
//! * `shfl_sync_*` use the full mask: every lane of the warp that has not
//!   exited must execute them; reading a lane that exited (or is not in a
//!   partial warp) is a fault in the emulator (the value is undefined on
//!   the GPU).
//! * A warp whose lanes wait partly at a collective and partly at
//!   [`sync_threads`](super::sync_threads) can never continue: a deadlock on
//!   the GPU, a fault in the emulator.

use crate::numeric::{Bf16, F16};

use super::Shared;

#[cfg(not(target_arch = "nvptx64"))]
use super::emu::sm80 as imp;
#[cfg(target_arch = "nvptx64")]
use super::nvptx::sm80 as imp;

/// Threads per warp.
pub const WARP_SIZE: u32 = 32;

/// The calling thread's lane in its warp: its linear index in the block
/// ([`super::thread_linear`]) mod 32. (Warps are made of consecutive
/// linear indices, so this is PTX's `%laneid` for every block shape.)
#[inline(always)]
pub fn lane_id() -> u32 {
    super::thread_linear() % WARP_SIZE
}

// ---------------------------------------------------------------- ldmatrix

/// `ldmatrix.sync.aligned.m8n8.x4.shared.b16`: loads four 8 × 8 matrices of
/// 16-bit elements from shared memory, spread over the warp in the `mma`
/// fragment order.
///
/// Lane `l` gives the address of one 16-byte row, element `i` of `src`:
/// lanes `8j..8j + 8` give rows 0..8 of matrix `j`
/// ([`ldmatrix_source`](crate::layout::fragment::ldmatrix_source)). Lane
/// `l` receives in register `j` the 32 bits of matrix `j`'s row `l / 4`
/// holding columns `2 · (l % 4)` (low half) and `2 · (l % 4) + 1` (high
/// half) ([`ldmatrix_dest`](crate::layout::fragment::ldmatrix_dest)). With
/// [`crate::layout::fragment::ldmatrix_a_m16n8k16`] as the addresses, the
/// result is an `mma.m16n8k16` A fragment.
///
/// # Safety
/// Every lane's 16 bytes at element `i` lie inside the block's dynamic
/// shared memory and start 16-byte aligned; all 32 lanes of a full warp
/// call this together (see the module's notes on warp collectives). The
/// emulator checks all of it, and treats each row read as a read by the
/// lane that gave its address (race and uninitialised-read checks).
#[inline(always)]
pub unsafe fn ldmatrix_x4<T: Copy>(src: Shared<T>, i: usize) -> [u32; 4] {
    unsafe { imp::ldmatrix_x4(src, i) }
}

/// [`ldmatrix_x4`] with `.trans`: each matrix is transposed on the way, so
/// lane `l` receives in register `j` column `l / 4` of rows `2 · (l % 4)`
/// (low half) and `2 · (l % 4) + 1` (high half) of matrix `j`. Loads an
/// `mma` B fragment from a k-major (`[k][n]`) tile
/// ([`crate::layout::fragment::ldmatrix_b_trans_m16n8k16`]).
///
/// # Safety
/// As for [`ldmatrix_x4`].
#[inline(always)]
pub unsafe fn ldmatrix_x4_trans<T: Copy>(src: Shared<T>, i: usize) -> [u32; 4] {
    unsafe { imp::ldmatrix_x4_trans(src, i) }
}

/// [`ldmatrix_x4`] of two matrices (`.x2`): lanes 0..16 give the row
/// addresses; the addresses of lanes 16..32 are not used (give any valid
/// one, e.g. lane `l % 16`'s, as sm_75 requires).
///
/// # Safety
/// As for [`ldmatrix_x4`], for lanes 0..16's rows.
#[inline(always)]
pub unsafe fn ldmatrix_x2<T: Copy>(src: Shared<T>, i: usize) -> [u32; 2] {
    unsafe { imp::ldmatrix_x2(src, i) }
}

/// [`ldmatrix_x2`] with `.trans` (see [`ldmatrix_x4_trans`]).
///
/// # Safety
/// As for [`ldmatrix_x2`].
#[inline(always)]
pub unsafe fn ldmatrix_x2_trans<T: Copy>(src: Shared<T>, i: usize) -> [u32; 2] {
    unsafe { imp::ldmatrix_x2_trans(src, i) }
}

/// [`ldmatrix_x4`] of one matrix (`.x1`): lanes 0..8 give the row
/// addresses; the other lanes' addresses are not used.
///
/// # Safety
/// As for [`ldmatrix_x4`], for lanes 0..8's rows.
#[inline(always)]
pub unsafe fn ldmatrix_x1<T: Copy>(src: Shared<T>, i: usize) -> u32 {
    unsafe { imp::ldmatrix_x1(src, i)[0] }
}

/// [`ldmatrix_x1`] with `.trans` (see [`ldmatrix_x4_trans`]).
///
/// # Safety
/// As for [`ldmatrix_x1`].
#[inline(always)]
pub unsafe fn ldmatrix_x1_trans<T: Copy>(src: Shared<T>, i: usize) -> u32 {
    unsafe { imp::ldmatrix_x1_trans(src, i)[0] }
}

// --------------------------------------------------------------------- mma

/// `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`: `D = A · B + C`
/// for a 16 × 16 bf16 A, a 16 × 8 bf16 B and 16 × 8 f32 C and D, spread
/// over the warp's 32 lanes.
///
/// Each lane passes its fragments: `a` holds A elements
/// [`mma_m16n8k16_a(lane, 0..8)`](crate::layout::fragment::mma_m16n8k16_a)
/// (two per register, the even one in the low half), `b` the B elements
/// [`mma_m16n8k16_b(lane, 0..4)`](crate::layout::fragment::mma_m16n8k16_b),
/// `c` the C elements
/// [`mma_m16n8_c(lane, 0..4)`](crate::layout::fragment::mma_m16n8_c); it
/// gets back D at the same positions as `c`.
///
/// Arithmetic: each product of two bf16 is exact; how the hardware adds
/// the 16 products and C (order, intermediate width) is not specified.
/// The emulator computes, for each element, `d = c` then
/// `d = fma(a[k], b[k], d)` for `k = 0..16` in order (one f32 rounding per
/// step), so results agree with the GPU exactly when no partial sum
/// rounds (e.g. small integers) and to a few ulps of the sum's magnitude
/// otherwise. Subnormal inputs and results are not flushed by the
/// emulator.
///
/// All 32 lanes of a full warp must call it together.
#[inline(always)]
pub fn mma_m16n8k16_bf16(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
    imp::mma_m16n8k16_bf16(a, b, c)
}

/// `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`: as
/// [`mma_m16n8k16_bf16`] with binary16 (`.f16`) A and B.
#[inline(always)]
pub fn mma_m16n8k16_f16(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
    imp::mma_m16n8k16_f16(a, b, c)
}

/// `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`: `D = A · B + C`
/// for a 16 × 8 tf32 A, an 8 × 8 tf32 B and 16 × 8 f32 C and D.
///
/// `a` holds A elements
/// [`mma_m16n8k8_tf32_a(lane, 0..4)`](crate::layout::fragment::mma_m16n8k8_tf32_a),
/// `b` the B elements
/// [`mma_m16n8k8_tf32_b(lane, 0..2)`](crate::layout::fragment::mma_m16n8k8_tf32_b),
/// one per register, `c` and the result as for [`mma_m16n8k16_bf16`].
/// Only the upper 19 bits of each A and B register are read (sign, 8
/// exponent and 10 mantissa bits; [`crate::numeric::tf32_operand`]): round
/// f32 inputs with [`cvt_rna_tf32_f32`] first, or they are truncated.
/// Arithmetic as for [`mma_m16n8k16_bf16`], with 8 products.
#[inline(always)]
pub fn mma_m16n8k8_tf32(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
    imp::mma_m16n8k8_tf32(a, b, c)
}

// ----------------------------------------------------------------- shuffles

/// `shfl.sync.idx.b32` with the full mask: every lane gets `v` of lane
/// `src_lane % 32`.
#[inline(always)]
pub fn shfl_sync_idx(v: u32, src_lane: u32) -> u32 {
    imp::shfl_sync_idx(v, src_lane)
}

/// `shfl.sync.bfly.b32` with the full mask: lane `l` gets `v` of lane
/// `l ^ (lane_mask % 32)` (the step of a butterfly reduction).
#[inline(always)]
pub fn shfl_sync_bfly(v: u32, lane_mask: u32) -> u32 {
    imp::shfl_sync_bfly(v, lane_mask)
}

/// [`shfl_sync_idx`] of an `f32` (its bits move unchanged).
#[inline(always)]
pub fn shfl_sync_idx_f32(v: f32, src_lane: u32) -> f32 {
    f32::from_bits(shfl_sync_idx(v.to_bits(), src_lane))
}

/// [`shfl_sync_bfly`] of an `f32` (its bits move unchanged).
#[inline(always)]
pub fn shfl_sync_bfly_f32(v: f32, lane_mask: u32) -> f32 {
    f32::from_bits(shfl_sync_bfly(v.to_bits(), lane_mask))
}

// -------------------------------------------------------------- conversions

/// `cvt.rn.bf16x2.f32`: `lo` and `hi` rounded to bfloat16 (to nearest,
/// ties to even) and packed with `lo` in bits 0..16, the order of `mma`
/// fragments. (PTX's operand order is the other one, `cvt d, hi, lo`: the
/// first source goes to the upper half.) Per thread, no rendezvous; the
/// emulator computes [`crate::numeric::Bf16::from_f32`].
#[inline(always)]
pub fn cvt_rn_bf16x2_f32(lo: f32, hi: f32) -> u32 {
    imp::cvt_rn_bf16x2_f32(lo, hi)
}

/// `cvt.rn.f16x2.f32`: as [`cvt_rn_bf16x2_f32`] for binary16
/// ([`crate::numeric::F16::from_f32`]).
#[inline(always)]
pub fn cvt_rn_f16x2_f32(lo: f32, hi: f32) -> u32 {
    imp::cvt_rn_f16x2_f32(lo, hi)
}

/// `cvt.rn.bf16.f32`: `x` rounded to bfloat16, to nearest, ties to even.
#[inline(always)]
pub fn cvt_rn_bf16_f32(x: f32) -> Bf16 {
    imp::cvt_rn_bf16_f32(x)
}

/// `cvt.rn.f16.f32`: `x` rounded to binary16, to nearest, ties to even.
#[inline(always)]
pub fn cvt_rn_f16_f32(x: f32) -> F16 {
    imp::cvt_rn_f16_f32(x)
}

/// `cvt.rna.tf32.f32`: `x` rounded to tf32 (to nearest, ties away from
/// zero), in a 32-bit register for [`mma_m16n8k8_tf32`]
/// ([`crate::numeric::tf32_rna`]).
#[inline(always)]
pub fn cvt_rna_tf32_f32(x: f32) -> u32 {
    imp::cvt_rna_tf32_f32(x)
}

/// The exact `f32` value of a bfloat16: its bits shifted to the upper
/// half on both targets ([`crate::numeric::Bf16::to_f32`]; what
/// `cvt.f32.bf16` computes, without needing sm_90).
#[inline(always)]
pub fn cvt_f32_bf16(x: Bf16) -> f32 {
    x.to_f32()
}

/// `cvt.f32.f16`: the exact `f32` value of a binary16.
#[inline(always)]
pub fn cvt_f32_f16(x: F16) -> f32 {
    imp::cvt_f32_f16(x)
}
