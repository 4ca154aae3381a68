//! The 16-bit and tensor-float number formats of the tensor-core path, and
//! their conversions in software.
//!
//! [`Bf16`] and [`F16`] are storage types: a `u16` of bits, no arithmetic.
//! The conversions here are `const fn`s on bits and run on both targets;
//! they are what the emulator's `cvt` instructions compute
//! ([`crate::arch`]'s `cvt_*` functions), while on `nvptx64` those
//! functions execute the PTX instruction itself. The tests hold the two to
//! the same answers: the `half` crate for [`Bf16`] / [`F16`], a reference
//! written from the PTX ISA for tf32, and the GPU probes of
//! `crate::warp_probe` (built with the experiments) bit for bit.
//!
//! NaN: the roundings to bf16 and f16 return the canonical NaN of their
//! format ([`Bf16::NAN`], [`F16::NAN`]) whatever the payload and sign of
//! the NaN they were given, and [`F16::to_f32`] returns the canonical
//! `f32` NaN ([`F32_NAN_BITS`]), as CUDA's own host conversions do;
//! [`Bf16::to_f32`] only moves bits, and [`tf32_rna`] only clears the low
//! 13 bits (see there). PTX does not specify a NaN's bits: the GPU probes
//! check these choices.

/// A bfloat16 number: 1 sign bit, 8 exponent bits (the range of `f32`), 7
/// mantissa bits. The upper half of an `f32`'s bits.
#[repr(transparent)]
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Bf16(pub u16);

/// An IEEE 754 binary16 number: 1 sign bit, 5 exponent bits, 10 mantissa
/// bits (largest finite 65504, subnormals down to 2^-24).
#[repr(transparent)]
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct F16(pub u16);

/// The canonical NaN of `f32` the conversions to `f32` return.
pub const F32_NAN_BITS: u32 = 0x7FFF_FFFF;

const fn f32_is_nan(b: u32) -> bool {
    (b & 0x7FFF_FFFF) > 0x7F80_0000
}

impl Bf16 {
    /// The canonical NaN.
    pub const NAN: Bf16 = Bf16(0x7FFF);
    /// +∞.
    pub const INFINITY: Bf16 = Bf16(0x7F80);

    /// `x` rounded to the nearest bfloat16, ties to even (`cvt.rn.bf16.f32`):
    /// subnormals are kept, values beyond the largest finite bfloat16 round
    /// to ±∞, a NaN becomes [`Bf16::NAN`].
    pub const fn from_f32(x: f32) -> Bf16 {
        let b = x.to_bits();
        if f32_is_nan(b) {
            return Bf16::NAN;
        }
        // Adding 0x7FFF plus the lowest kept bit rounds the magnitude to
        // nearest, ties to even; a carry moves into the exponent (up to ∞).
        let lsb = (b >> 16) & 1;
        Bf16((b.wrapping_add(0x7FFF + lsb) >> 16) as u16)
    }

    /// The exact `f32` value: the bits moved to the upper half, so a NaN
    /// keeps its sign and payload (what `cvt.f32.bf16` and CUDA's
    /// `__bfloat162float` compute).
    pub const fn to_f32(self) -> f32 {
        f32::from_bits((self.0 as u32) << 16)
    }

    /// Whether this is a NaN.
    pub const fn is_nan(self) -> bool {
        (self.0 & 0x7FFF) > 0x7F80
    }
}

impl F16 {
    /// The canonical NaN.
    pub const NAN: F16 = F16(0x7FFF);
    /// +∞.
    pub const INFINITY: F16 = F16(0x7C00);

    /// `x` rounded to the nearest binary16, ties to even (`cvt.rn.f16.f32`):
    /// results below 2^-14 become subnormals (or ±0), results beyond 65504
    /// (after rounding) become ±∞, a NaN becomes [`F16::NAN`].
    pub const fn from_f32(x: f32) -> F16 {
        let b = x.to_bits();
        let sign = ((b >> 16) & 0x8000) as u16;
        let exp = ((b >> 23) & 0xFF) as i32;
        let man = b & 0x7F_FFFF;
        if exp == 0xFF {
            return if man != 0 { F16::NAN } else { F16(sign | 0x7C00) };
        }
        // Biased binary16 exponent of a normal result.
        let he = exp - 112;
        if he >= 31 {
            return F16(sign | 0x7C00);
        }
        // The significand to round, and how many of its low bits go.
        let (kept, rem, half) = if he >= 1 {
            (((he as u32) << 10) | (man >> 13), man & 0x1FFF, 0x1000)
        } else {
            // A subnormal result, in units of 2^-24: the 24-bit significand
            // s · 2^(exp - 150) is s >> (126 - exp). (f32 zeros and
            // subnormals are far below 2^-25 and round to ±0.)
            if exp == 0 {
                return F16(sign);
            }
            let shift = (126 - exp) as u32;
            if shift > 25 {
                return F16(sign);
            }
            let s = man | 0x80_0000;
            (s >> shift, s & ((1 << shift) - 1), 1 << (shift - 1))
        };
        // A carry out of the mantissa moves into the exponent: the largest
        // subnormal rounds up to the smallest normal, 65520 up to ∞.
        let up = rem > half || (rem == half && (kept & 1) == 1);
        F16(sign | (kept + up as u32) as u16)
    }

    /// The exact `f32` value (`cvt.f32.f16`); a NaN becomes the canonical
    /// `f32` NaN.
    pub const fn to_f32(self) -> f32 {
        let h = self.0 as u32;
        let sign = (h & 0x8000) << 16;
        let e = (h >> 10) & 0x1F;
        let m = h & 0x3FF;
        let bits = if e == 0x1F {
            if m != 0 { F32_NAN_BITS } else { sign | 0x7F80_0000 }
        } else if e != 0 {
            sign | ((e + 112) << 23) | (m << 13)
        } else if m == 0 {
            sign
        } else {
            // m · 2^-24 with its top bit at position p: 2^(p - 24) · 1.f.
            let p = 31 - m.leading_zeros();
            sign | ((p + 103) << 23) | ((m << (23 - p)) & 0x7F_FFFF)
        };
        f32::from_bits(bits)
    }

    /// Whether this is a NaN.
    pub const fn is_nan(self) -> bool {
        (self.0 & 0x7FFF) > 0x7C00
    }
}

/// `x` rounded to tf32 (10 mantissa bits), to nearest with ties away from
/// zero (`cvt.rna.tf32.f32`), as the bits of an `f32` whose low 13 bits
/// are zero: subnormals are kept, finite values that round past the
/// largest finite tf32 become ±∞.
///
/// ±∞ and NaN only lose their low 13 bits: a NaN keeps its sign and the
/// upper 10 bits of its payload, so one whose payload lies only in the low
/// 13 bits becomes ±∞. PTX leaves this open; it is what `ptxas` makes of
/// the instruction on sm_80 and sm_90 (add `0x1000` unless `|x|` is ∞ or
/// NaN, then clear the low 13 bits).
pub const fn tf32_rna(x: f32) -> u32 {
    let b = x.to_bits();
    let finite = (b & 0x7F80_0000) != 0x7F80_0000;
    // Half an ulp added to the magnitude, then truncated: a tie goes away
    // from zero, a carry moves into the exponent.
    let r = if finite { b + 0x1000 } else { b };
    r & 0xFFFF_E000
}

/// The value an `mma` with `.tf32` operands reads from a 32-bit register:
/// its upper 19 bits (sign, 8 exponent bits, 10 mantissa bits) as an
/// `f32`; the low 13 bits are ignored.
pub const fn tf32_operand(bits: u32) -> f32 {
    f32::from_bits(bits & 0xFFFF_E000)
}

/// Two bfloat16 in one 32-bit register, `lo` in bits 0..16: the element
/// order of `mma` fragments and of `ldmatrix` results (the lower-indexed
/// element in the lower half).
pub const fn pack_bf16x2(lo: Bf16, hi: Bf16) -> u32 {
    lo.0 as u32 | ((hi.0 as u32) << 16)
}

/// The two bfloat16 of a register, `(lo, hi)`.
pub const fn unpack_bf16x2(r: u32) -> (Bf16, Bf16) {
    (Bf16(r as u16), Bf16((r >> 16) as u16))
}

/// Two binary16 in one 32-bit register, `lo` in bits 0..16.
pub const fn pack_f16x2(lo: F16, hi: F16) -> u32 {
    lo.0 as u32 | ((hi.0 as u32) << 16)
}

/// The two binary16 of a register, `(lo, hi)`.
pub const fn unpack_f16x2(r: u32) -> (F16, F16) {
    (F16(r as u16), F16((r >> 16) as u16))
}

#[cfg(test)]
mod tests;
