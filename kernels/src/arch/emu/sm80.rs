//! Host side of [`crate::arch`]'s sm_80 warp instructions (documented in
//! `arch/sm80.rs`): each lane deposits its operands at the warp's
//! rendezvous ([`super::warp`]); the exchange functions below compute every
//! lane's result from the PTX ISA's per-lane semantics, moving values with
//! the fragment maps of [`crate::layout::fragment`].

use core::array;

use super::device::Shared;
use super::warp::{collective, lane, Regs, WarpOp, WARP};
use crate::layout::fragment::{
    ldmatrix_dest, ldmatrix_row_lane, mma_m16n8_c, mma_m16n8k16_a, mma_m16n8k16_b, mma_m16n8k8_tf32_a,
    mma_m16n8k8_tf32_b, MMA_K16, MMA_K8, MMA_M, MMA_N,
};
use crate::numeric::{self, Bf16, F16};

/// One `ldmatrix` of `N` matrices: a lane whose address is used reads its
/// 16-byte row now (checked and race-tracked as its own read), then the
/// warp exchanges the rows.
unsafe fn ldmatrix<T: Copy, const N: usize>(src: Shared<T>, i: usize, trans: bool) -> [u32; N] {
    let mut regs: Regs = [0; 10];
    if lane() < 8 * N {
        regs[..4].copy_from_slice(&src.ldmatrix_row(i));
    }
    let out = collective(WarpOp::Ldmatrix { matrices: N as u8, trans }, regs);
    array::from_fn(|j| out[j])
}

pub(crate) unsafe fn ldmatrix_x1<T: Copy>(src: Shared<T>, i: usize) -> [u32; 1] {
    unsafe { ldmatrix::<T, 1>(src, i, false) }
}
pub(crate) unsafe fn ldmatrix_x1_trans<T: Copy>(src: Shared<T>, i: usize) -> [u32; 1] {
    unsafe { ldmatrix::<T, 1>(src, i, true) }
}
pub(crate) unsafe fn ldmatrix_x2<T: Copy>(src: Shared<T>, i: usize) -> [u32; 2] {
    unsafe { ldmatrix::<T, 2>(src, i, false) }
}
pub(crate) unsafe fn ldmatrix_x2_trans<T: Copy>(src: Shared<T>, i: usize) -> [u32; 2] {
    unsafe { ldmatrix::<T, 2>(src, i, true) }
}
pub(crate) unsafe fn ldmatrix_x4<T: Copy>(src: Shared<T>, i: usize) -> [u32; 4] {
    unsafe { ldmatrix::<T, 4>(src, i, false) }
}
pub(crate) unsafe fn ldmatrix_x4_trans<T: Copy>(src: Shared<T>, i: usize) -> [u32; 4] {
    unsafe { ldmatrix::<T, 4>(src, i, true) }
}

/// The 16-bit element `col` (0..8) of a row deposited as four
/// little-endian 32-bit words.
fn row_element(row: &Regs, col: usize) -> u32 {
    (row[col / 2] >> (16 * (col % 2))) & 0xFFFF
}

/// `ldmatrix` semantics: lane `l` receives in register `j` the two 16-bit
/// elements [`ldmatrix_dest(l, 0..2, trans)`](ldmatrix_dest) of matrix `j`,
/// each read from the row deposited by the lane that gave that row's
/// address.
pub(crate) fn ldmatrix_exchange(matrices: usize, trans: bool, input: &[Regs; WARP], out: &mut [Regs; WARP]) {
    for (l, o) in out.iter_mut().enumerate() {
        for (j, reg) in o.iter_mut().enumerate().take(matrices) {
            let mut r = 0;
            for h in 0..2 {
                let (row, col) = ldmatrix_dest(l, h, trans);
                r |= row_element(&input[ldmatrix_row_lane(j, row)], col) << (16 * h);
            }
            *reg = r;
        }
    }
}

/// `mma` semantics: the A, B and C tiles gathered from the lanes' fragments
/// (registers 0..4 of a lane's deposit are `a`, 4..6 `b`, 6..10 `c`), then
/// `D = A · B + C` with one fma per product in k order, scattered back as
/// each lane's registers 0..4.
pub(crate) fn mma_exchange(op: WarpOp, input: &[Regs; WARP], out: &mut [Regs; WARP]) {
    let mut a = [[0f32; MMA_K16]; MMA_M];
    let mut b = [[0f32; MMA_N]; MMA_K16];
    let mut c = [[0f32; MMA_N]; MMA_M];
    let half = |r: u32, i: usize| (r >> (16 * (i % 2))) as u16;
    let k_len = match op {
        WarpOp::MmaBf16 | WarpOp::MmaF16 => {
            let widen = |h: u16| if op == WarpOp::MmaBf16 { Bf16(h).to_f32() } else { F16(h).to_f32() };
            for (l, regs) in input.iter().enumerate() {
                for i in 0..8 {
                    let (r, k) = mma_m16n8k16_a(l, i);
                    a[r][k] = widen(half(regs[i / 2], i));
                }
                for i in 0..4 {
                    let (k, n) = mma_m16n8k16_b(l, i);
                    b[k][n] = widen(half(regs[4 + i / 2], i));
                }
            }
            MMA_K16
        }
        WarpOp::MmaTf32 => {
            for (l, regs) in input.iter().enumerate() {
                for i in 0..4 {
                    let (r, k) = mma_m16n8k8_tf32_a(l, i);
                    a[r][k] = numeric::tf32_operand(regs[i]);
                }
                for i in 0..2 {
                    let (k, n) = mma_m16n8k8_tf32_b(l, i);
                    b[k][n] = numeric::tf32_operand(regs[4 + i]);
                }
            }
            MMA_K8
        }
        _ => unreachable!("{op} is not an mma"),
    };
    for (l, regs) in input.iter().enumerate() {
        for i in 0..4 {
            let (r, n) = mma_m16n8_c(l, i);
            c[r][n] = f32::from_bits(regs[6 + i]);
        }
    }
    for (l, o) in out.iter_mut().enumerate() {
        for (i, reg) in o.iter_mut().enumerate().take(4) {
            let (r, n) = mma_m16n8_c(l, i);
            let mut d = c[r][n];
            for k in 0..k_len {
                d = f32::mul_add(a[r][k], b[k][n], d);
            }
            *reg = d.to_bits();
        }
    }
}

fn mma(op: WarpOp, a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
    let mut regs: Regs = [0; 10];
    regs[..4].copy_from_slice(&a);
    regs[4..6].copy_from_slice(&b);
    for (r, x) in regs[6..].iter_mut().zip(c) {
        *r = x.to_bits();
    }
    let out = collective(op, regs);
    array::from_fn(|i| f32::from_bits(out[i]))
}

pub(crate) fn mma_m16n8k16_bf16(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
    mma(WarpOp::MmaBf16, a, b, c)
}
pub(crate) fn mma_m16n8k16_f16(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
    mma(WarpOp::MmaF16, a, b, c)
}
pub(crate) fn mma_m16n8k8_tf32(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
    mma(WarpOp::MmaTf32, a, b, c)
}

pub(crate) fn shfl_sync_idx(v: u32, src_lane: u32) -> u32 {
    let mut regs: Regs = [0; 10];
    regs[0] = v;
    regs[1] = src_lane;
    collective(WarpOp::ShflIdx, regs)[0]
}
pub(crate) fn shfl_sync_bfly(v: u32, lane_mask: u32) -> u32 {
    let mut regs: Regs = [0; 10];
    regs[0] = v;
    regs[1] = lane_mask;
    collective(WarpOp::ShflBfly, regs)[0]
}

pub(crate) fn cvt_rn_bf16x2_f32(lo: f32, hi: f32) -> u32 {
    numeric::pack_bf16x2(Bf16::from_f32(lo), Bf16::from_f32(hi))
}
pub(crate) fn cvt_rn_f16x2_f32(lo: f32, hi: f32) -> u32 {
    numeric::pack_f16x2(F16::from_f32(lo), F16::from_f32(hi))
}
pub(crate) fn cvt_rn_bf16_f32(x: f32) -> Bf16 {
    Bf16::from_f32(x)
}
pub(crate) fn cvt_rn_f16_f32(x: f32) -> F16 {
    F16::from_f32(x)
}
pub(crate) fn cvt_rna_tf32_f32(x: f32) -> u32 {
    numeric::tf32_rna(x)
}
pub(crate) fn cvt_f32_f16(x: F16) -> f32 {
    x.to_f32()
}
