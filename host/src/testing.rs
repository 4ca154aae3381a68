//! Deterministic random inputs for tests, the tour and the benchmarks.
//!
//! Kernels are never tested or timed on zeros (they hide unwritten outputs
//! and can run faster than real data): these generators are seeded,
//! reproducible, and never produce an exact zero float.

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// A seeded generator of test data: `rand`'s Xoshiro256++, one of its
/// generators whose output is guaranteed reproducible (unlike `StdRng`), with
/// the conveniences the tests use. Good enough for test data, not for
/// anything else.
#[derive(Clone, Debug)]
pub struct Rng(Xoshiro256PlusPlus);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(Xoshiro256PlusPlus::seed_from_u64(seed))
    }

    /// Uniform in [-1, 1), never exactly zero.
    pub fn f32(&mut self) -> f32 {
        loop {
            let x = self.0.random_range(-1.0f32..1.0);
            if x != 0.0 {
                return x;
            }
        }
    }

    /// 64 uniform bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.random()
    }

    /// A uniform byte.
    pub fn u8(&mut self) -> u8 {
        self.0.random()
    }

    /// `n` values of [`Rng::f32`].
    pub fn f32s(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.f32()).collect()
    }

    /// `n` values of [`Rng::u8`].
    pub fn u8s(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.u8()).collect()
    }
}

/// `n` floats in [-1, 1), never zero, from `seed`.
pub fn random_f32(n: usize, seed: u64) -> Vec<f32> {
    Rng::new(seed).f32s(n)
}

/// `n` uniform bytes from `seed`.
pub fn random_u8(n: usize, seed: u64) -> Vec<u8> {
    Rng::new(seed).u8s(n)
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
        assert!(a.iter().any(|&x| x < -0.99) && a.iter().any(|&x| x > 0.99));
        let b = random_u8(10_000, 7);
        assert!(b.iter().any(|&x| x > 250) && b.iter().any(|&x| x < 5));
    }
}
