//! The sm_80 warp instructions through their probe kernels
//! (`ferrotile::probe`): what each lane gets is checked against the
//! fragment maps of `layout::fragment` (ldmatrix, mma), a CPU product (mma)
//! and the software roundings of `numeric` (cvt), bit for bit. On the
//! emulator these hold the rendezvous to the maps; on a GPU they hold the
//! maps and the roundings to the hardware.

use ferrotile::kernels::layout::fragment::*;
use ferrotile::kernels::numeric::{self, Bf16, F16};
use ferrotile::kernels::warp_probe as k;
use ferrotile::probe::{self, MmaKind};
use ferrotile::{Context, Error};

use crate::common::*;

fn ldmatrix_iota(ctx: &Context) -> Result<(), String> {
    let got = probe::ldmatrix(ctx).map_err(|e| e.to_string())?;
    // The probe's tile holds 16 · row + col; lane s gives the address of
    // (row, col) = ldmatrix_a_m16n8k16(s).
    let value = |src_lane: usize, c: usize| {
        let (r0, c0) = ldmatrix_a_m16n8k16(src_lane);
        (16 * r0 + c0 + c) as u32
    };
    let regs = |lane: usize, matrices: usize, trans: bool| -> Vec<u32> {
        (0..matrices)
            .map(|j| {
                (0..2)
                    .map(|h| {
                        let (r, c) = ldmatrix_dest(lane, h, trans);
                        value(ldmatrix_row_lane(j, r), c) << (16 * h)
                    })
                    .sum()
            })
            .collect()
    };
    let names = ["x4", "x4", "x4", "x4", "x4.trans", "x4.trans", "x4.trans", "x4.trans", "x2", "x2", "x2.trans", "x2.trans", "x1", "x1.trans"];
    for lane in 0..32 {
        let mut want = regs(lane, 4, false);
        want.extend(regs(lane, 4, true));
        want.extend(regs(lane, 2, false));
        want.extend(regs(lane, 2, true));
        want.extend(regs(lane, 1, false));
        want.extend(regs(lane, 1, true));
        let g = &got[lane * k::LDMATRIX_PROBE_WORDS..(lane + 1) * k::LDMATRIX_PROBE_WORDS];
        if let Some(w) = (0..want.len()).find(|&w| g[w] != want[w]) {
            return Err(format!(
                "lane {lane}, word {w} ({}): got {:#010x}, expected {:#010x}",
                names[w], g[w], want[w]
            ));
        }
    }
    Ok(())
}

fn shfl(ctx: &Context) -> Result<(), String> {
    let got = probe::shfl(ctx).map_err(|e| e.to_string())?;
    let v = |l: u32| 1000 + 7 * l;
    let sum: u32 = (0..32).map(v).sum();
    let want: Vec<u32> = (0..32).flat_map(|l| [v((5 * l + 3) % 32), v(l ^ 6), (sum as f32).to_bits()]).collect();
    exact("shfl words", &got, &want)
}

/// An element of A or B as the register bits the operand type stores.
fn operand_bits(kind: MmaKind, x: f32) -> u32 {
    match kind {
        MmaKind::Bf16 => Bf16::from_f32(x).0 as u32,
        MmaKind::F16 => F16::from_f32(x).0 as u32,
        MmaKind::Tf32 => numeric::tf32_rna(x),
    }
}

/// `x` rounded to what the operand type can hold.
fn representable(kind: MmaKind, x: f32) -> f32 {
    match kind {
        MmaKind::Bf16 => Bf16::from_f32(x).to_f32(),
        MmaKind::F16 => F16::from_f32(x).to_f32(),
        MmaKind::Tf32 => f32::from_bits(numeric::tf32_rna(x)),
    }
}

/// One mma on random A (16 × K), B (K × 8), C (16 × 8), packed into the
/// lanes' fragments with the layout functions: small non-zero integers
/// (exact on any hardware), or values in [-1, 1) checked against an f64
/// product (and, for tf32, with garbage in the 13 low bits the instruction
/// must ignore).
fn mma(ctx: &Context, kind: MmaKind, integers: bool) -> Result<(), String> {
    let kk = if kind == MmaKind::Tf32 { MMA_K8 } else { MMA_K16 };
    let mut r = Rng::new(seed(&format!("mma {kind:?} {integers}")));
    let mut small = |max: u64| {
        let m = (r.next_u64() % max) as f32 + 1.0;
        if r.next_u64() % 2 == 0 { m } else { -m }
    };
    let (a, b, c): (Vec<f32>, Vec<f32>, Vec<f32>) = if integers {
        (
            (0..MMA_M * kk).map(|_| small(8)).collect(),
            (0..kk * MMA_N).map(|_| small(8)).collect(),
            (0..MMA_M * MMA_N).map(|_| small(64)).collect(),
        )
    } else {
        let mut r = Rng::new(seed(&format!("mma values {kind:?}")));
        (
            (0..MMA_M * kk).map(|_| representable(kind, r.f32())).collect(),
            (0..kk * MMA_N).map(|_| representable(kind, r.f32())).collect(),
            r.f32s(MMA_M * MMA_N),
        )
    };
    let mut noise = Rng::new(seed("tf32 low bits"));
    let mut low_bits = || if kind == MmaKind::Tf32 && !integers { (noise.next_u64() & 0x1FFF) as u32 } else { 0 };
    let mut fa = vec![0u32; 32 * MmaKind::A_REGS];
    let mut fb = vec![0u32; 32 * MmaKind::B_REGS];
    let mut fc = vec![0f32; 32 * MmaKind::C_REGS];
    for lane in 0..32 {
        match kind {
            MmaKind::Bf16 | MmaKind::F16 => {
                for i in 0..8 {
                    let (row, col) = mma_m16n8k16_a(lane, i);
                    fa[4 * lane + i / 2] |= operand_bits(kind, a[row * kk + col]) << (16 * (i % 2));
                }
                for i in 0..4 {
                    let (kx, n) = mma_m16n8k16_b(lane, i);
                    fb[2 * lane + i / 2] |= operand_bits(kind, b[kx * MMA_N + n]) << (16 * (i % 2));
                }
            }
            MmaKind::Tf32 => {
                for i in 0..4 {
                    let (row, col) = mma_m16n8k8_tf32_a(lane, i);
                    fa[4 * lane + i] = operand_bits(kind, a[row * kk + col]) | low_bits();
                }
                for i in 0..2 {
                    let (kx, n) = mma_m16n8k8_tf32_b(lane, i);
                    fb[2 * lane + i] = operand_bits(kind, b[kx * MMA_N + n]) | low_bits();
                }
            }
        }
        for i in 0..4 {
            let (row, n) = mma_m16n8_c(lane, i);
            fc[4 * lane + i] = c[row * MMA_N + n];
        }
    }
    let fd = probe::mma(ctx, kind, &fa, &fb, &fc).map_err(|e| e.to_string())?;
    let mut got = vec![f32::NAN; MMA_M * MMA_N];
    for lane in 0..32 {
        for i in 0..4 {
            let (row, n) = mma_m16n8_c(lane, i);
            got[row * MMA_N + n] = fd[4 * lane + i];
        }
    }
    let want: Vec<f64> = (0..MMA_M * MMA_N)
        .map(|e| {
            let (row, n) = (e / MMA_N, e % MMA_N);
            (0..kk).fold(c[e] as f64, |s, x| s + a[row * kk + x] as f64 * b[x * MMA_N + n] as f64)
        })
        .collect();
    if integers {
        let want: Vec<f32> = want.iter().map(|&x| x as f32).collect();
        exact_f32("D", &got, &want)
    } else {
        close("D", &got, &want, 1e-6)
    }
}

fn mma_rejects_bad_lengths(ctx: &Context) -> Result<(), String> {
    match probe::mma(ctx, MmaKind::Bf16, &[0; 127], &[0; 64], &[0.0; 128]) {
        Err(Error::LengthMismatch { arg: "a", expected: 128, actual: 127 }) => Ok(()),
        other => Err(format!("a of 127 registers: {other:?}")),
    }
}

/// f32 bit patterns where the conversions differ most easily: zeros,
/// subnormals, format boundaries, ties, infinities, NaNs with payloads.
const CVT_EDGES: &[u32] = &[
    0x0000_0000, 0x8000_0000, 0x0000_0001, 0x807F_FFFF, 0x0080_0000, 0x3F80_0000, 0x3F80_8000, 0x3F81_8000,
    0x3F80_1000, 0x3F80_3000, 0xBF80_1000, 0x7F7F_FFFF, 0x7F7F_8000, 0x7F7F_F000, 0x477F_E000, 0x477F_F000,
    0x477F_EFFF, 0x3880_0000, 0x387F_C000, 0x3380_0000, 0x3300_0000, 0x3340_0000, 0x33C0_0000, 0x7F80_0000,
    0xFF80_0000, 0x7FC0_0000, 0xFFC0_0000, 0x7F80_0001, 0x7FFF_FFFF, 0x7F80_2000, 0x3F80_7C01, 0x3F80_FE01,
];

/// Whether a pair of cvt inputs involves a NaN: either input, or a 16-bit
/// half of `lo` that the probe widens as binary16.
fn involves_nan(lo: u32, hi: u32) -> bool {
    f32::from_bits(lo).is_nan() || f32::from_bits(hi).is_nan() || F16(lo as u16).is_nan() || F16((lo >> 16) as u16).is_nan()
}

/// The probe's conversions against `numeric`, bit for bit, on pairs that
/// involve a NaN (`nan`) or on the others. The NaN pairs are a case of
/// their own: PTX does not specify a NaN's bits, so on a GPU that case
/// checks `numeric`'s choices (canonical NaNs for bf16 / f16, cleared low
/// bits for tf32) rather than the roundings.
fn cvt(ctx: &Context, nan: bool) -> Result<(), String> {
    let mut r = Rng::new(seed("cvt"));
    let mut bits: Vec<u32> = CVT_EDGES.to_vec();
    // Every edge case also as `hi`, then random bit patterns and values.
    bits.extend(CVT_EDGES.iter().rev());
    bits.extend((0..4000).map(|_| r.next_u64() as u32));
    bits.extend((0..1000).map(|_| (r.f32() * 70000.0).to_bits()));
    let pairs: Vec<(u32, u32)> =
        bits.chunks(2).map(|p| (p[0], p[1])).filter(|&(lo, hi)| involves_nan(lo, hi) == nan).collect();
    let x: Vec<f32> = pairs.iter().flat_map(|&(lo, hi)| [f32::from_bits(lo), f32::from_bits(hi)]).collect();
    let got = probe::cvt(ctx, &x).map_err(|e| e.to_string())?;
    let names = ["bf16x2", "f16x2", "tf32(lo)", "tf32(hi)", "bf16(lo) | f16(hi)", "f32(bf16)", "f32(f16 lo)", "f32(f16 hi)"];
    let mut bad = Vec::new();
    for (p, &(lo_bits, hi_bits)) in pairs.iter().enumerate() {
        let (lo, hi) = (f32::from_bits(lo_bits), f32::from_bits(hi_bits));
        let want = [
            numeric::pack_bf16x2(Bf16::from_f32(lo), Bf16::from_f32(hi)),
            numeric::pack_f16x2(F16::from_f32(lo), F16::from_f32(hi)),
            numeric::tf32_rna(lo),
            numeric::tf32_rna(hi),
            Bf16::from_f32(lo).0 as u32 | (F16::from_f32(hi).0 as u32) << 16,
            Bf16(lo_bits as u16).to_f32().to_bits(),
            F16(lo_bits as u16).to_f32().to_bits(),
            F16((lo_bits >> 16) as u16).to_f32().to_bits(),
        ];
        for (w, name) in names.iter().enumerate() {
            let g = got[p * k::CVT_PROBE_WORDS + w];
            if g != want[w] {
                bad.push(format!("{name} of ({lo_bits:#010x}, {hi_bits:#010x}): got {g:#010x}, expected {:#010x}", want[w]));
            }
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        let n = bad.len();
        bad.truncate(12);
        Err(format!("{n} of {} conversions differ from numeric.rs:\n  {}", pairs.len() * names.len(), bad.join("\n  ")))
    }
}

pub fn cases() -> Vec<Case> {
    let mut v = vec![Case::new("warp::ldmatrix_iota", ldmatrix_iota), Case::new("warp::shfl", shfl)];
    for (name, kind) in [("bf16", MmaKind::Bf16), ("f16", MmaKind::F16), ("tf32", MmaKind::Tf32)] {
        v.push(Case::new(format!("warp::mma_{name}::integers"), move |ctx| mma(ctx, kind, true)));
        v.push(Case::new(format!("warp::mma_{name}::values"), move |ctx| mma(ctx, kind, false)));
    }
    v.push(Case::new("warp::mma_rejects_bad_lengths", mma_rejects_bad_lengths));
    v.push(Case::new("warp::cvt", |ctx| cvt(ctx, false)));
    v.push(Case::new("warp::cvt_nan", |ctx| cvt(ctx, true)));
    v
}
