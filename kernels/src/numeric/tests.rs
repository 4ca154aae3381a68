//! The software roundings against the `half` crate (bf16, f16) and against
//! a reference written from the PTX ISA's words (tf32).

use super::*;
use proptest::prelude::*;
use std::vec::Vec;

/// f32 bit patterns where roundings go wrong: zeros, subnormals, the
/// boundaries of the three formats, ties, infinities and NaNs, each with
/// its neighbours one ulp either side and both signs.
fn edge_bits() -> Vec<u32> {
    let centres: [u32; 24] = [
        0x0000_0000, // 0
        0x0000_0001, // smallest f32 subnormal
        0x007F_FFFF, // largest f32 subnormal
        0x0080_0000, // smallest f32 normal
        0x3F80_0000, // 1
        0x3F80_8000, // 1 + 2^-8: a bf16 tie (to even: down)
        0x3F81_8000, // 1 + 3·2^-8: a bf16 tie (to even: up)
        0x3F80_1000, // 1 + 2^-11: an f16 / tf32 tie
        0x3F80_3000, // 1 + 3·2^-11: an f16 / tf32 tie (odd below)
        0x7F7F_FFFF, // largest f32
        0x7F7F_8000, // bf16 overflow tie
        0x7F7F_F000, // tf32 overflow tie
        0x477F_E000, // 65504, largest f16
        0x477F_EFFF, // just below the f16 overflow tie
        0x477F_F000, // 65520: f16 overflow tie (rounds to ∞)
        0x3880_0000, // 2^-14, smallest normal f16
        0x387F_C000, // largest f16 subnormal
        0x3380_0000, // 2^-24, smallest f16 subnormal
        0x3300_0000, // 2^-25: tie between 0 and 2^-24
        0x3340_0000, // 1.5·2^-25
        0x33C0_0000, // 1.5·2^-24: tie between 1 and 2 (to even: 2)
        0x7F80_0000, // ∞
        0x7FC0_0000, // quiet NaN
        0x7F80_0001, // signalling NaN with a low payload
    ];
    let mut v = Vec::new();
    for c in centres {
        for d in [c.wrapping_sub(1), c, c.wrapping_add(1)] {
            v.push(d & 0x7FFF_FFFF);
            v.push(d | 0x8000_0000);
        }
    }
    v.extend([0xFFFF_FFFF, 0x7FFF_FFFF, 0xFFC0_0000, 0x7F80_2000]);
    v
}

fn bits() -> impl Strategy<Value = u32> {
    let edges = edge_bits();
    prop_oneof![any::<u32>(), proptest::sample::select(edges)]
}

fn check_bf16(b: u32) -> Result<(), TestCaseError> {
    let x = f32::from_bits(b);
    let ours = Bf16::from_f32(x);
    let theirs = half::bf16::from_f32(x);
    if x.is_nan() {
        prop_assert_eq!(ours, Bf16::NAN, "{:#010x}", b);
    } else {
        prop_assert_eq!(ours.0, theirs.to_bits(), "{:#010x} ({:e})", b, x);
    }
    Ok(())
}

fn check_f16(b: u32) -> Result<(), TestCaseError> {
    let x = f32::from_bits(b);
    let ours = F16::from_f32(x);
    let theirs = half::f16::from_f32(x);
    if x.is_nan() {
        prop_assert_eq!(ours, F16::NAN, "{:#010x}", b);
    } else {
        prop_assert_eq!(ours.0, theirs.to_bits(), "{:#010x} ({:e})", b, x);
    }
    Ok(())
}

/// tf32 from the PTX ISA's words: "round to nearest, ties away from zero"
/// to a format with the range of f32 and 10 mantissa bits, computed in f64
/// on values (not on bits).
fn tf32_reference(x: f32) -> u32 {
    // Not in the ISA's words: ∞ and NaN lose their low 13 bits (what ptxas
    // emits for the instruction).
    if !x.is_finite() {
        return x.to_bits() & 0xFFFF_E000;
    }
    if x == 0.0 {
        return x.to_bits();
    }
    let a = (x as f64).abs();
    // Every f32 is a normal f64: its exponent is exact.
    let e = (((a.to_bits() >> 52) & 0x7FF) as i32 - 1023).max(-126);
    let ulp = 2f64.powi(e - 10);
    let q = a / ulp;
    let r = q.floor();
    let rounded = if q - r >= 0.5 { r + 1.0 } else { r } * ulp;
    let mag = if rounded >= 2f64.powi(128) { f32::INFINITY } else { rounded as f32 };
    let v = if x < 0.0 { -mag } else { mag };
    v.to_bits()
}

#[test]
fn edge_cases_round_like_half_and_the_ptx_reference() {
    for b in edge_bits() {
        check_bf16(b).unwrap();
        check_f16(b).unwrap();
        assert_eq!(tf32_rna(f32::from_bits(b)), tf32_reference(f32::from_bits(b)), "{b:#010x}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn bf16_rounds_like_half(b in bits()) {
        check_bf16(b)?;
    }

    #[test]
    fn f16_rounds_like_half(b in bits()) {
        check_f16(b)?;
    }

    #[test]
    fn tf32_rounds_like_the_ptx_reference(b in bits()) {
        let x = f32::from_bits(b);
        let t = tf32_rna(x);
        prop_assert_eq!(t, tf32_reference(x), "{:#010x}", b);
        prop_assert_eq!(t & 0x1FFF, 0, "low 13 bits of {:#010x}", t);
    }

    #[test]
    fn tf32_operand_ignores_the_low_13_bits(b in any::<u32>(), low in 0u32..0x2000) {
        let hi = b & 0xFFFF_E000;
        prop_assert_eq!(tf32_operand(hi | low).to_bits(), hi);
    }
}

#[test]
fn tf32_examples() {
    let t = |b: u32| tf32_rna(f32::from_bits(b));
    assert_eq!(t(0x3F80_1000), 0x3F80_2000, "a tie rounds away from zero");
    assert_eq!(t(0xBF80_1000), 0xBF80_2000, "also below zero");
    assert_eq!(t(0x3F80_0FFF), 0x3F80_0000);
    assert_eq!(t(0x0000_1000), 0x0000_2000, "subnormals round too");
    assert_eq!(t(0x0000_0FFF), 0);
    assert_eq!(t(0x7F7F_F000), 0x7F80_0000, "past the largest tf32: ∞");
    assert_eq!(t(0x7F7F_EFFF), 0x7F7F_E000);
    assert_eq!(t(0xFF80_0000), 0xFF80_0000);
    assert_eq!(t(0x7FC0_1234), 0x7FC0_0000, "a NaN keeps its sign and upper payload");
    assert_eq!(t(0xFF81_2345), 0xFF81_2000);
    assert_eq!(t(0x7F80_0001), 0x7F80_0000, "a NaN with only low payload bits becomes ∞");
}

#[test]
fn every_bf16_and_f16_widens_exactly() {
    for h in 0..=u16::MAX {
        let b = Bf16(h);
        let theirs = half::bf16::from_bits(h).to_f32();
        assert_eq!(b.is_nan(), theirs.is_nan(), "bf16 {h:#06x}");
        if b.is_nan() {
            // `half` quietens the NaN; the shift keeps its bits.
            assert_eq!(b.to_f32().to_bits(), (h as u32) << 16);
        } else {
            assert_eq!(b.to_f32().to_bits(), theirs.to_bits(), "bf16 {h:#06x}");
            assert_eq!(Bf16::from_f32(b.to_f32()), b, "bf16 {h:#06x} round trip");
        }

        let f = F16(h);
        let theirs = half::f16::from_bits(h).to_f32();
        assert_eq!(f.is_nan(), theirs.is_nan(), "f16 {h:#06x}");
        if f.is_nan() {
            assert_eq!(f.to_f32().to_bits(), F32_NAN_BITS);
        } else {
            assert_eq!(f.to_f32().to_bits(), theirs.to_bits(), "f16 {h:#06x}");
            assert_eq!(F16::from_f32(f.to_f32()), f, "f16 {h:#06x} round trip");
        }
    }
}

#[test]
fn midpoints_between_neighbouring_f16_round_to_even() {
    // Every positive finite f16 and its successor: the f32 midpoint (exact)
    // rounds to whichever has an even mantissa.
    for h in 0u16..0x7BFF {
        let (lo, hi) = (F16(h).to_f32() as f64, F16(h + 1).to_f32() as f64);
        let mid = ((lo + hi) / 2.0) as f32;
        let want = if h % 2 == 0 { h } else { h + 1 };
        assert_eq!(F16::from_f32(mid).0, want, "midpoint of {h:#06x} and its successor");
        assert_eq!(F16::from_f32(-mid).0, want | 0x8000);
    }
}

#[test]
fn packing_puts_the_first_element_in_the_low_half() {
    let (a, b) = (Bf16::from_f32(1.0), Bf16::from_f32(-2.0));
    assert_eq!(pack_bf16x2(a, b), 0xC000_3F80);
    assert_eq!(unpack_bf16x2(0xC000_3F80), (a, b));
    let (c, d) = (F16::from_f32(1.0), F16::from_f32(-2.0));
    assert_eq!(pack_f16x2(c, d), 0xC000_3C00);
    assert_eq!(unpack_f16x2(0xC000_3C00), (c, d));
}
