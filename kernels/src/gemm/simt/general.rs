//! Rung 9 reading any layout: the split-k tilings (Auto's four rung 9
//! tiles) with general loads, for operands the float4 loads cannot read as
//! stored — `A` or `B` stored transposed, a leading dimension or an
//! offset that is not a multiple of 4, a `C` whose rows are not 16-byte
//! aligned.
//!
//! Before these kernels, such an operand was first copied (or transposed)
//! into a packed row-major buffer by a separate pass: one read and one
//! write of the whole matrix and a workspace allocation per call. Here the
//! kernel's own tile loads read it as stored: rung 9's thread → vector
//! maps, turned along the stored rows for an operand stored transposed
//! ([`tile_vector`](super::index::tile_vector): `A`'s vectors along `m`,
//! `B`'s along `k`, so the 4 elements of a vector stay consecutive in
//! memory; such a vector is stored into the shared tile as 4 scalars),
//! one float4 where the stored rows are 16-byte aligned, 4 scalar loads
//! where not (the `loads` word, [`loads_word`](super::index::loads_word),
//! says which). The compute loop is rung 9's.
//!
//! Every kernel is split-k's partial-product kernel: launched with one
//! slice (`ks ≥ k`, grid z of 1) and the user's `α`, `β` and `C`, it is the
//! plain product; with several, it writes the slices of a workspace for
//! the reduction. Edge blocks run the predicated loop (no clamped edge
//! loop: a clamp along a stored row does not apply to a transposed one).

use super::float4::Tiling;
use super::k09_warptile::{WT_128X128X8_W32X128, WT_128X64X8_W64X32, WT_64X128X16_W32X64, WT_64X64X16_W32X32};
use crate::variant_family;

/// A general-load kernel's configuration: a rung 9 [`Tiling`] (run
/// without its clamped edge loop) and which operands are stored
/// transposed (compile-time: with a run-time orientation the addresses of
/// both kept the 128 × 128 tile over 255 registers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct General {
    /// The tiling.
    pub tiling: Tiling,
    /// `A` stored transposed (a row-major `(k, m)` matrix).
    pub ta: bool,
    /// `B` stored transposed (a row-major `(n, k)` matrix).
    pub tb: bool,
}

impl General {
    /// Threads per block.
    pub const fn threads(&self) -> usize {
        self.tiling.threads()
    }
    /// The tiling as the kernel runs it: predicated edge blocks.
    pub const fn engine(&self) -> Tiling {
        Tiling { edge_loop: false, ..self.tiling }
    }
}

/// Defines a general-load kernel from a [`General`] configuration (a row of
/// [`simt_general_table!`]).
macro_rules! general_kernel {
    ($(#[$m:meta])* $name:ident = $cfg:path) => {
        $crate::kernel! {
            $(#[$m])*
            ///
            /// `loads`: [`loads_word`](crate::gemm::simt::index::loads_word)
            /// of the launch (which operands take float4s). Block z runs the `k` tiles of slice z (`ks` of `k`
            /// each) and writes slice z of `c` (`m × p.ldc` per slice): with
            /// one slice, `C` itself with `p`'s `α`, `β`. Launch:
            /// [`split_k_config`](crate::gemm::simt::split_k_config) of the
            /// tiling.
            pub fn $name(p: $crate::gemm::GemmParams, ks: u32, loads: u32, a: $crate::arch::Global<f32>, b: $crate::arch::Global<f32>, c: $crate::arch::Global<f32>) {
                const _: () = assert!($cfg.engine().validate() && $cfg.engine().stages == 2 && $cfg.engine().interior_loop, "general loads run a valid double-buffered tiling");
                super::float4::body::<
                    { $cfg.engine().bm }, { $cfg.engine().bn }, { $cfg.engine().bk }, { $cfg.engine().tm }, { $cfg.engine().tn },
                    { $cfg.engine().wm }, { $cfg.engine().wn }, { $cfg.engine().a_smem }, { $cfg.engine().b_smem }, { $cfg.engine().stages },
                    true, false, true, true, { $cfg.ta }, { $cfg.tb },
                >(p, ks, loads, a, b, c)
            }
        }
    };
}

/// [`WT_128X128X8_W32X128`], `A` and `B` as stored.
pub const GL_128X128X8_W32X128_NN: General = General { tiling: WT_128X128X8_W32X128, ta: false, tb: false };
/// [`WT_128X128X8_W32X128`], `A` stored transposed.
pub const GL_128X128X8_W32X128_TN: General = General { tiling: WT_128X128X8_W32X128, ta: true, tb: false };
/// [`WT_128X128X8_W32X128`], `B` stored transposed.
pub const GL_128X128X8_W32X128_NT: General = General { tiling: WT_128X128X8_W32X128, ta: false, tb: true };
/// [`WT_128X128X8_W32X128`], both stored transposed.
pub const GL_128X128X8_W32X128_TT: General = General { tiling: WT_128X128X8_W32X128, ta: true, tb: true };
/// [`WT_64X64X16_W32X32`], `A` and `B` as stored.
pub const GL_64X64X16_W32X32_NN: General = General { tiling: WT_64X64X16_W32X32, ta: false, tb: false };
/// [`WT_64X64X16_W32X32`], `A` stored transposed.
pub const GL_64X64X16_W32X32_TN: General = General { tiling: WT_64X64X16_W32X32, ta: true, tb: false };
/// [`WT_64X64X16_W32X32`], `B` stored transposed.
pub const GL_64X64X16_W32X32_NT: General = General { tiling: WT_64X64X16_W32X32, ta: false, tb: true };
/// [`WT_64X64X16_W32X32`], both stored transposed.
pub const GL_64X64X16_W32X32_TT: General = General { tiling: WT_64X64X16_W32X32, ta: true, tb: true };
/// [`WT_64X128X16_W32X64`], `A` and `B` as stored.
pub const GL_64X128X16_W32X64_NN: General = General { tiling: WT_64X128X16_W32X64, ta: false, tb: false };
/// [`WT_64X128X16_W32X64`], `A` stored transposed.
pub const GL_64X128X16_W32X64_TN: General = General { tiling: WT_64X128X16_W32X64, ta: true, tb: false };
/// [`WT_64X128X16_W32X64`], `B` stored transposed.
pub const GL_64X128X16_W32X64_NT: General = General { tiling: WT_64X128X16_W32X64, ta: false, tb: true };
/// [`WT_64X128X16_W32X64`], both stored transposed.
pub const GL_64X128X16_W32X64_TT: General = General { tiling: WT_64X128X16_W32X64, ta: true, tb: true };
/// [`WT_128X64X8_W64X32`], `A` and `B` as stored.
pub const GL_128X64X8_W64X32_NN: General = General { tiling: WT_128X64X8_W64X32, ta: false, tb: false };
/// [`WT_128X64X8_W64X32`], `A` stored transposed.
pub const GL_128X64X8_W64X32_TN: General = General { tiling: WT_128X64X8_W64X32, ta: true, tb: false };
/// [`WT_128X64X8_W64X32`], `B` stored transposed.
pub const GL_128X64X8_W64X32_NT: General = General { tiling: WT_128X64X8_W64X32, ta: false, tb: true };
/// [`WT_128X64X8_W64X32`], both stored transposed.
pub const GL_128X64X8_W64X32_TT: General = General { tiling: WT_128X64X8_W64X32, ta: true, tb: true };

/// The general-load kernels, one row per rung 9 tiling of Auto and split-k
/// and orientation of `A` and `B` (see [`crate::variants`]; launch bounds
/// as the tiling's row of `simt_warptile_table!`).
#[macro_export]
macro_rules! simt_general_table {
    ($then:ident) => { $then! {
        /// The general-load kernels (block tile, `BK`, warp tile; `Lb2` /
        /// `Lb3`: launch bounds; `Ta`, `Tb`: `A`, `B` stored transposed).
        pub enum GeneralConfig: $crate::gemm::simt::General;

        /// Rung 9's large tile, `A` and `B` as stored.
        [cfg(all())] B128x128x8W32x128Lb2 => sgemm_general_128x128x8_w32x128_lb2 = general_kernel!(GL_128X128X8_W32X128_NN), bounds 2;
        /// Rung 9's large tile, `A` stored transposed.
        [cfg(all())] B128x128x8W32x128Lb2Ta => sgemm_general_128x128x8_w32x128_lb2_ta = general_kernel!(GL_128X128X8_W32X128_TN), bounds 2;
        /// Rung 9's large tile, `B` stored transposed.
        [cfg(all())] B128x128x8W32x128Lb2Tb => sgemm_general_128x128x8_w32x128_lb2_tb = general_kernel!(GL_128X128X8_W32X128_NT), bounds 2;
        /// Rung 9's large tile, both stored transposed.
        [cfg(all())] B128x128x8W32x128Lb2TaTb => sgemm_general_128x128x8_w32x128_lb2_tatb = general_kernel!(GL_128X128X8_W32X128_TT), bounds 2;
        /// Small and thin shapes, `A` and `B` as stored.
        [cfg(all())] B64x64x16W32x32 => sgemm_general_64x64x16_w32x32 = general_kernel!(GL_64X64X16_W32X32_NN), bounds 0;
        /// Small and thin shapes, `A` stored transposed.
        [cfg(all())] B64x64x16W32x32Ta => sgemm_general_64x64x16_w32x32_ta = general_kernel!(GL_64X64X16_W32X32_TN), bounds 0;
        /// Small and thin shapes, `B` stored transposed.
        [cfg(all())] B64x64x16W32x32Tb => sgemm_general_64x64x16_w32x32_tb = general_kernel!(GL_64X64X16_W32X32_NT), bounds 0;
        /// Small and thin shapes, both stored transposed.
        [cfg(all())] B64x64x16W32x32TaTb => sgemm_general_64x64x16_w32x32_tatb = general_kernel!(GL_64X64X16_W32X32_TT), bounds 0;
        /// Medium shapes, 64 × 128, `A` and `B` as stored.
        [cfg(all())] B64x128x16W32x64Lb3 => sgemm_general_64x128x16_w32x64_lb3 = general_kernel!(GL_64X128X16_W32X64_NN), bounds 3;
        /// Medium shapes, 64 × 128, `A` stored transposed: launch bounds
        /// for two blocks per SM (under three's 168 registers ptxas spilled
        /// 8 bytes of it on sm_90).
        [cfg(all())] B64x128x16W32x64Lb2Ta => sgemm_general_64x128x16_w32x64_lb2_ta = general_kernel!(GL_64X128X16_W32X64_TN), bounds 2;
        /// Medium shapes, 64 × 128, `B` stored transposed.
        [cfg(all())] B64x128x16W32x64Lb3Tb => sgemm_general_64x128x16_w32x64_lb3_tb = general_kernel!(GL_64X128X16_W32X64_NT), bounds 3;
        /// Medium shapes, 64 × 128, both stored transposed.
        [cfg(all())] B64x128x16W32x64Lb3TaTb => sgemm_general_64x128x16_w32x64_lb3_tatb = general_kernel!(GL_64X128X16_W32X64_TT), bounds 3;
        /// Medium shapes, 128 × 64, `A` and `B` as stored.
        [cfg(all())] B128x64x8W64x32Lb3 => sgemm_general_128x64x8_w64x32_lb3 = general_kernel!(GL_128X64X8_W64X32_NN), bounds 3;
        /// Medium shapes, 128 × 64, `A` stored transposed.
        [cfg(all())] B128x64x8W64x32Lb3Ta => sgemm_general_128x64x8_w64x32_lb3_ta = general_kernel!(GL_128X64X8_W64X32_TN), bounds 3;
        /// Medium shapes, 128 × 64, `B` stored transposed.
        [cfg(all())] B128x64x8W64x32Lb3Tb => sgemm_general_128x64x8_w64x32_lb3_tb = general_kernel!(GL_128X64X8_W64X32_NT), bounds 3;
        /// Medium shapes, 128 × 64, both stored transposed.
        [cfg(all())] B128x64x8W64x32Lb3TaTb => sgemm_general_128x64x8_w64x32_lb3_tatb = general_kernel!(GL_128X64X8_W64X32_TT), bounds 3;
    } };
}

crate::simt_general_table!(variant_family);

impl GeneralConfig {
    /// The kernel of `tiling` (a rung 9 tiling of the table, compared
    /// without its edge loop) for `A`, `B` stored transposed or not.
    pub fn of(tiling: Tiling, (ta, tb): (bool, bool)) -> Option<GeneralConfig> {
        let plain = Tiling { edge_loop: false, ..tiling };
        GeneralConfig::ALL.iter().copied().find(|g| g.config().engine() == plain && (g.config().ta, g.config().tb) == (ta, tb))
    }
}
