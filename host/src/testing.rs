//! Deterministic random inputs for tests, the tour and the benchmarks.
//!
//! Kernels are never tested or timed on zeros (they hide unwritten outputs
//! and can run faster than real data): these generators are seeded,
//! reproducible, and never produce an exact zero float.

/// SplitMix64: a small, fast, seeded generator (good enough for test data,
/// not for anything else).
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [-1, 1) on a 2^-23 grid, never exactly zero.
    pub fn f32(&mut self) -> f32 {
        let x = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0;
        if x == 0.0 { 0.5 } else { x }
    }

    /// A uniform byte.
    pub fn u8(&mut self) -> u8 {
        (self.next_u64() >> 56) as u8
    }

    /// `n` values of [`SplitMix64::f32`].
    pub fn f32s(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.f32()).collect()
    }

    /// `n` values of [`SplitMix64::u8`].
    pub fn u8s(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.u8()).collect()
    }
}

/// `n` floats in [-1, 1), never zero, from `seed`.
pub fn random_f32(n: usize, seed: u64) -> Vec<f32> {
    SplitMix64::new(seed).f32s(n)
}

/// `n` uniform bytes from `seed`.
pub fn random_u8(n: usize, seed: u64) -> Vec<u8> {
    SplitMix64::new(seed).u8s(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproducible_in_range_and_never_zero() {
        let a = random_f32(10_000, 7);
        assert_eq!(a, random_f32(10_000, 7));
        assert_ne!(a, random_f32(10_000, 8));
        assert!(a.iter().all(|&x| (-1.0..1.0).contains(&x) && x != 0.0));
        let b = random_u8(10_000, 7);
        assert!(b.iter().any(|&x| x > 250) && b.iter().any(|&x| x < 5));
    }
}
