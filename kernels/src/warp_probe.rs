//! Probe kernels for the sm_80 warp instructions: each runs one instruction
//! on known inputs and writes what every lane got to global memory, so that
//! a test can hold the hardware (and the emulator) to the fragment maps of
//! [`crate::layout::fragment`] and the roundings of [`crate::numeric`].
//! Test support, launched by `ferrotile::probe`; one block of one warp
//! each, except [`warp_probe_cvt`].

use crate::arch::*;
use crate::kernel;
use crate::launch::LaunchConfig;
use crate::layout::fragment::ldmatrix_a_m16n8k16;
use crate::numeric::{Bf16, F16};

/// Row stride, in 16-bit elements, of [`warp_probe_ldmatrix`]'s 16 × 16
/// tile: 16 elements plus 8 of padding (48 bytes, still 16-byte aligned),
/// so that the row addresses are not simply consecutive.
pub const LDMATRIX_PROBE_STRIDE: usize = 24;
/// The value of [`warp_probe_ldmatrix`]'s padding elements (never loaded).
pub const LDMATRIX_PROBE_PAD: u16 = 0xFFFF;
/// Words [`warp_probe_ldmatrix`] writes per lane: x4, x4.trans, x2,
/// x2.trans, x1, x1.trans.
pub const LDMATRIX_PROBE_WORDS: usize = 4 + 4 + 2 + 2 + 1 + 1;

/// [`warp_probe_ldmatrix`]'s launch: one warp, the padded tile in shared
/// memory.
pub const fn ldmatrix_probe_config() -> LaunchConfig {
    LaunchConfig::linear(1, 32).with_shared((16 * LDMATRIX_PROBE_STRIDE * 2) as u32)
}

kernel! {
    /// Iota through `ldmatrix`: shared memory holds a 16 × 16 tile of
    /// 16-bit values `16 · row + col` (rows [`LDMATRIX_PROBE_STRIDE`] apart,
    /// padding [`LDMATRIX_PROBE_PAD`]); lane `l` gives the address of tile
    /// element [`ldmatrix_a_m16n8k16(l)`](ldmatrix_a_m16n8k16) to each of
    /// `ldmatrix` x4, x4.trans, x2, x2.trans, x1 and x1.trans, and writes
    /// the registers it receives to `out[l · 14 ..]` in that order.
    pub fn warp_probe_ldmatrix(out: Global<u32>) {
        let t = thread_idx_x() as usize;
        let s = dynamic_shared::<u16>();
        let mut q = t;
        while q < 16 * LDMATRIX_PROBE_STRIDE {
            let (r, c) = (q / LDMATRIX_PROBE_STRIDE, q % LDMATRIX_PROBE_STRIDE);
            s.store(q, if c < 16 { (16 * r + c) as u16 } else { LDMATRIX_PROBE_PAD });
            q += 32;
        }
        sync_threads();
        let (r, c) = ldmatrix_a_m16n8k16(t);
        let i = r * LDMATRIX_PROBE_STRIDE + c;
        let x4 = ldmatrix_x4(s, i);
        let x4t = ldmatrix_x4_trans(s, i);
        let x2 = ldmatrix_x2(s, i);
        let x2t = ldmatrix_x2_trans(s, i);
        let x1 = ldmatrix_x1(s, i);
        let x1t = ldmatrix_x1_trans(s, i);
        let o = t * LDMATRIX_PROBE_WORDS;
        for j in 0..4 {
            out.write(o + j, x4[j]);
            out.write(o + 4 + j, x4t[j]);
        }
        for j in 0..2 {
            out.write(o + 8 + j, x2[j]);
            out.write(o + 10 + j, x2t[j]);
        }
        out.write(o + 12, x1);
        out.write(o + 13, x1t);
    }
}

/// [`warp_probe_mma`] with `mma.m16n8k16` bf16 operands.
pub const MMA_PROBE_BF16: u32 = 0;
/// [`warp_probe_mma`] with `mma.m16n8k16` f16 operands.
pub const MMA_PROBE_F16: u32 = 1;
/// [`warp_probe_mma`] with `mma.m16n8k8` tf32 operands.
pub const MMA_PROBE_TF32: u32 = 2;

/// [`warp_probe_mma`]'s and [`warp_probe_shfl`]'s launch: one warp.
pub const fn warp_probe_config() -> LaunchConfig {
    LaunchConfig::linear(1, 32)
}

kernel! {
    /// One `mma` on given fragments: lane `l` passes `a[4l..4l + 4]`,
    /// `b[2l..2l + 2]`, `c[4l..4l + 4]` to the instruction `kind` selects
    /// ([`MMA_PROBE_BF16`], [`MMA_PROBE_F16`], anything else
    /// [`MMA_PROBE_TF32`]; uniform, so the warp stays converged) and writes
    /// its D fragment to `d[4l..4l + 4]`.
    pub fn warp_probe_mma(kind: u32, a: Global<u32>, b: Global<u32>, c: Global<f32>, d: Global<f32>) {
        let l = lane_id() as usize;
        let fa = [a.read(4 * l), a.read(4 * l + 1), a.read(4 * l + 2), a.read(4 * l + 3)];
        let fb = [b.read(2 * l), b.read(2 * l + 1)];
        let fc = [c.read(4 * l), c.read(4 * l + 1), c.read(4 * l + 2), c.read(4 * l + 3)];
        let fd = if kind == MMA_PROBE_BF16 {
            mma_m16n8k16_bf16(fa, fb, fc)
        } else if kind == MMA_PROBE_F16 {
            mma_m16n8k16_f16(fa, fb, fc)
        } else {
            mma_m16n8k8_tf32(fa, fb, fc)
        };
        for (i, x) in fd.iter().enumerate() {
            d.write(4 * l + i, *x);
        }
    }
}

/// Words [`warp_probe_shfl`] writes per lane.
pub const SHFL_PROBE_WORDS: usize = 3;

kernel! {
    /// Shuffles of `v = 1000 + 7 · lane`: lane `l` writes to
    /// `out[3l..3l + 3]` what it got from `shfl_sync_idx(v, 5l + 3)`,
    /// `shfl_sync_bfly(v, 6)`, and the butterfly sum of `v` over the warp
    /// (`shfl_sync_bfly_f32` with masks 16, 8, 4, 2, 1).
    pub fn warp_probe_shfl(out: Global<u32>) {
        let l = lane_id();
        let v = 1000 + 7 * l;
        let o = SHFL_PROBE_WORDS * l as usize;
        out.write(o, shfl_sync_idx(v, 5 * l + 3));
        out.write(o + 1, shfl_sync_bfly(v, 6));
        let mut s = v as f32;
        let mut m = 16;
        while m > 0 {
            s += shfl_sync_bfly_f32(s, m);
            m /= 2;
        }
        out.write(o + 2, s.to_bits());
    }
}

/// Threads per block of [`warp_probe_cvt`].
pub const CVT_PROBE_THREADS: u32 = 128;
/// Words [`warp_probe_cvt`] writes per pair of inputs.
pub const CVT_PROBE_WORDS: usize = 8;

/// [`warp_probe_cvt`]'s launch for `pairs` pairs of inputs.
pub const fn cvt_probe_config(pairs: u32) -> LaunchConfig {
    LaunchConfig::linear(pairs.div_ceil(CVT_PROBE_THREADS), CVT_PROBE_THREADS)
}

kernel! {
    /// The conversions on pairs `(lo, hi) = (x[2i], x[2i + 1])`, `i < pairs`,
    /// one thread each, writing to `out[8i..8i + 8]`:
    /// `cvt_rn_bf16x2_f32(lo, hi)`, `cvt_rn_f16x2_f32(lo, hi)`,
    /// `cvt_rna_tf32_f32(lo)`, `cvt_rna_tf32_f32(hi)`,
    /// `cvt_rn_bf16_f32(lo)` in the low and `cvt_rn_f16_f32(hi)` in the high
    /// half of one word, then the bits of `cvt_f32_bf16` of `lo`'s low 16
    /// bits, `cvt_f32_f16` of `lo`'s low 16 bits and of its high 16 bits.
    pub fn warp_probe_cvt(x: Global<f32>, out: Global<u32>, pairs: u32) {
        let i = global_x();
        if i < pairs {
            let i = i as usize;
            let (lo, hi) = (x.read(2 * i), x.read(2 * i + 1));
            let o = CVT_PROBE_WORDS * i;
            out.write(o, cvt_rn_bf16x2_f32(lo, hi));
            out.write(o + 1, cvt_rn_f16x2_f32(lo, hi));
            out.write(o + 2, cvt_rna_tf32_f32(lo));
            out.write(o + 3, cvt_rna_tf32_f32(hi));
            out.write(o + 4, cvt_rn_bf16_f32(lo).0 as u32 | (cvt_rn_f16_f32(hi).0 as u32) << 16);
            let bits = lo.to_bits();
            out.write(o + 5, cvt_f32_bf16(Bf16(bits as u16)).to_bits());
            out.write(o + 6, cvt_f32_f16(F16(bits as u16)).to_bits());
            out.write(o + 7, cvt_f32_f16(F16((bits >> 16) as u16)).to_bits());
        }
    }
}

/// [`warp_probe_trap`]'s launch: one warp.
pub const fn trap_probe_config() -> LaunchConfig {
    LaunchConfig::linear(1, 32)
}

kernel! {
    /// A device fault on request: every lane writes its index to `out`,
    /// then, when `trap` is not zero, lane 0 panics, which traps on a GPU
    /// (the kernel's panic handler: a sticky `CUDA_ERROR_LAUNCH_FAILED`
    /// that leaves the context unusable) and is a kernel fault on the
    /// emulator. The device-fault tests use it.
    pub fn warp_probe_trap(out: Global<u32>, trap: u32) {
        let t = thread_idx_x();
        out.write(t as usize, t);
        if trap != 0 && t == 0 {
            panic!()
        }
    }
}
