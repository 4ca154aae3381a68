//! The vector types of the kernels' 8- and 16-byte accesses (`f32x2`,
//! `f32x4`, `u32x2`, `u32x4`).
//!
//! * On `nvptx64` they are `core::simd`'s (nightly `portable_simd`): what
//!   the device build lowers to `ld.v2`/`ld.v4` and friends.
//! * On the host (the emulator) they are plain arrays with the vector's
//!   size and alignment and the few operations the kernels use
//!   (`from_array`, `to_array`, `splat`, indexing, `+` on floats), so that
//!   the host build of this crate, and with it the `ferrotile` crate, needs
//!   no nightly feature. Kept hand-written on purpose: the kernel bodies
//!   must compile unchanged against both, so these copy `core::simd`'s
//!   names and signatures, which no stable crate offers (`wide` has other
//!   names and no 2-lane types).

#[cfg(target_arch = "nvptx64")]
pub use core::simd::{f32x2, f32x4, u32x2, u32x4};

#[cfg(not(target_arch = "nvptx64"))]
pub use host::{f32x2, f32x4, u32x2, u32x4};

#[cfg(not(target_arch = "nvptx64"))]
#[allow(non_camel_case_types)]
mod host {
    macro_rules! vector {
        ($(#[$doc:meta])* $name:ident: [$t:ty; $n:literal], align $align:literal) => {
            $(#[$doc])*
            #[derive(Clone, Copy, Debug, Default, PartialEq)]
            #[repr(C, align($align))]
            pub struct $name([$t; $n]);

            impl $name {
                /// The vector of these lanes.
                #[inline(always)]
                pub const fn from_array(lanes: [$t; $n]) -> Self {
                    Self(lanes)
                }

                /// The lanes.
                #[inline(always)]
                pub const fn to_array(self) -> [$t; $n] {
                    self.0
                }

                /// Every lane `v`.
                #[inline(always)]
                pub const fn splat(v: $t) -> Self {
                    Self([v; $n])
                }
            }

            impl core::ops::Index<usize> for $name {
                type Output = $t;
                #[inline(always)]
                fn index(&self, lane: usize) -> &$t {
                    &self.0[lane]
                }
            }

            impl core::ops::IndexMut<usize> for $name {
                #[inline(always)]
                fn index_mut(&mut self, lane: usize) -> &mut $t {
                    &mut self.0[lane]
                }
            }
        };
    }

    macro_rules! float_add {
        ($($name:ident),*) => {$(
            impl core::ops::Add for $name {
                type Output = Self;
                /// Lane-wise sum.
                #[inline(always)]
                fn add(self, rhs: Self) -> Self {
                    Self(core::array::from_fn(|i| self.0[i] + rhs.0[i]))
                }
            }
        )*};
    }

    vector!(
        /// Two f32 lanes, 8-byte aligned (`core::simd::f32x2` on the device).
        f32x2: [f32; 2], align 8
    );
    vector!(
        /// Four f32 lanes, 16-byte aligned (`core::simd::f32x4` on the device).
        f32x4: [f32; 4], align 16
    );
    vector!(
        /// Two u32 lanes, 8-byte aligned (`core::simd::u32x2` on the device).
        u32x2: [u32; 2], align 8
    );
    vector!(
        /// Four u32 lanes, 16-byte aligned (`core::simd::u32x4` on the device).
        u32x4: [u32; 4], align 16
    );
    float_add!(f32x2, f32x4);

    #[cfg(test)]
    mod tests {
        use super::*;
        use core::mem::{align_of, size_of};

        /// Size and alignment as `core::simd`'s: the emulator checks vector
        /// accesses against them.
        #[test]
        fn layout_matches_core_simd() {
            assert_eq!((size_of::<f32x2>(), align_of::<f32x2>()), (8, 8));
            assert_eq!((size_of::<u32x2>(), align_of::<u32x2>()), (8, 8));
            assert_eq!((size_of::<f32x4>(), align_of::<f32x4>()), (16, 16));
            assert_eq!((size_of::<u32x4>(), align_of::<u32x4>()), (16, 16));
            assert_eq!(size_of::<[u32x4; 3]>(), 48);
        }

        #[test]
        fn lanes() {
            let v = f32x4::from_array([1.0, 2.0, 3.0, 4.0]);
            assert_eq!((v + f32x4::splat(0.5)).to_array(), [1.5, 2.5, 3.5, 4.5]);
            assert_eq!(v[2], 3.0);
            let mut u = u32x2::splat(7);
            u[1] = 9;
            assert_eq!(u.to_array(), [7, 9]);
        }
    }
}
