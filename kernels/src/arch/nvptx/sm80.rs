//! Device side of [`crate::arch`]'s sm_80 warp instructions: one `asm!`
//! each (documented in `arch/sm80.rs`).
//!
//! `ldmatrix`, `mma` and `shfl` are not `pure`: the compiler must neither
//! drop, merge nor speculate them (they are warp collectives), only
//! schedule them like any instruction with side effects. The conversions
//! are pure.

use core::arch::asm;

use super::{shared_addr, Shared};
use crate::numeric::{Bf16, F16};

macro_rules! ldmatrix {
    ($name:ident, $n:literal, $instr:literal, [$($d:ident),+]) => {
        #[inline(always)]
        pub(crate) unsafe fn $name<T: Copy>(src: Shared<T>, i: usize) -> [u32; $n] {
            let a = shared_addr(unsafe { src.ptr.add(i) });
            $(let $d: u32;)+
            unsafe {
                asm!(
                    $instr,
                    $($d = out(reg32) $d,)+
                    a = in(reg32) a,
                    options(readonly, nostack),
                );
            }
            [$($d),+]
        }
    };
}

ldmatrix!(ldmatrix_x1, 1, "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {{{d0}}}, [{a}];", [d0]);
ldmatrix!(ldmatrix_x1_trans, 1, "ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {{{d0}}}, [{a}];", [d0]);
ldmatrix!(ldmatrix_x2, 2, "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {{{d0}, {d1}}}, [{a}];", [d0, d1]);
ldmatrix!(ldmatrix_x2_trans, 2, "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {{{d0}, {d1}}}, [{a}];", [d0, d1]);
ldmatrix!(ldmatrix_x4, 4, "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{d0}, {d1}, {d2}, {d3}}}, [{a}];", [d0, d1, d2, d3]);
ldmatrix!(
    ldmatrix_x4_trans,
    4,
    "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{{d0}, {d1}, {d2}, {d3}}}, [{a}];",
    [d0, d1, d2, d3]
);

macro_rules! mma {
    ($name:ident, $instr:literal) => {
        #[inline(always)]
        pub(crate) fn $name(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
            let (d0, d1, d2, d3): (f32, f32, f32, f32);
            unsafe {
                asm!(
                    concat!(
                        $instr,
                        " {{{d0}, {d1}, {d2}, {d3}}}, {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, {{{c0}, {c1}, {c2}, {c3}}};"
                    ),
                    d0 = out(reg32) d0,
                    d1 = out(reg32) d1,
                    d2 = out(reg32) d2,
                    d3 = out(reg32) d3,
                    a0 = in(reg32) a[0],
                    a1 = in(reg32) a[1],
                    a2 = in(reg32) a[2],
                    a3 = in(reg32) a[3],
                    b0 = in(reg32) b[0],
                    b1 = in(reg32) b[1],
                    c0 = in(reg32) c[0],
                    c1 = in(reg32) c[1],
                    c2 = in(reg32) c[2],
                    c3 = in(reg32) c[3],
                    options(nomem, nostack),
                );
            }
            [d0, d1, d2, d3]
        }
    };
}

mma!(mma_m16n8k16_bf16, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32");
mma!(mma_m16n8k16_f16, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
mma!(mma_m16n8k8_tf32, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32");

#[inline(always)]
pub(crate) fn shfl_sync_idx(v: u32, src_lane: u32) -> u32 {
    let d: u32;
    unsafe {
        asm!(
            "shfl.sync.idx.b32 {d}, {v}, {s}, 31, 0xffffffff;",
            d = out(reg32) d,
            v = in(reg32) v,
            s = in(reg32) src_lane,
            options(nomem, nostack),
        );
    }
    d
}

#[inline(always)]
pub(crate) fn shfl_sync_bfly(v: u32, lane_mask: u32) -> u32 {
    let d: u32;
    unsafe {
        asm!(
            "shfl.sync.bfly.b32 {d}, {v}, {m}, 31, 0xffffffff;",
            d = out(reg32) d,
            v = in(reg32) v,
            m = in(reg32) lane_mask,
            options(nomem, nostack),
        );
    }
    d
}

#[inline(always)]
pub(crate) fn cvt_rn_bf16x2_f32(lo: f32, hi: f32) -> u32 {
    let d: u32;
    // The first source goes to the upper half.
    unsafe {
        asm!(
            "cvt.rn.bf16x2.f32 {d}, {hi}, {lo};",
            d = out(reg32) d,
            hi = in(reg32) hi,
            lo = in(reg32) lo,
            options(pure, nomem, nostack),
        );
    }
    d
}

#[inline(always)]
pub(crate) fn cvt_rn_f16x2_f32(lo: f32, hi: f32) -> u32 {
    let d: u32;
    unsafe {
        asm!(
            "cvt.rn.f16x2.f32 {d}, {hi}, {lo};",
            d = out(reg32) d,
            hi = in(reg32) hi,
            lo = in(reg32) lo,
            options(pure, nomem, nostack),
        );
    }
    d
}

#[inline(always)]
pub(crate) fn cvt_rn_bf16_f32(x: f32) -> Bf16 {
    let d: u16;
    unsafe {
        asm!("cvt.rn.bf16.f32 {d}, {x};", d = out(reg16) d, x = in(reg32) x, options(pure, nomem, nostack));
    }
    Bf16(d)
}

#[inline(always)]
pub(crate) fn cvt_rn_f16_f32(x: f32) -> F16 {
    let d: u16;
    unsafe {
        asm!("cvt.rn.f16.f32 {d}, {x};", d = out(reg16) d, x = in(reg32) x, options(pure, nomem, nostack));
    }
    F16(d)
}

#[inline(always)]
pub(crate) fn cvt_rna_tf32_f32(x: f32) -> u32 {
    let d: u32;
    unsafe {
        asm!("cvt.rna.tf32.f32 {d}, {x};", d = out(reg32) d, x = in(reg32) x, options(pure, nomem, nostack));
    }
    d
}

#[inline(always)]
pub(crate) fn cvt_f32_f16(x: F16) -> f32 {
    let d: f32;
    unsafe {
        asm!("cvt.f32.f16 {d}, {h};", d = out(reg32) d, h = in(reg16) x.0, options(pure, nomem, nostack));
    }
    d
}
