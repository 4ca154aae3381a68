//! One declaration per kernel variant.
//!
//! A family whose kernels differ only by a configuration constant (rung 9's
//! warp tiles, rung 10's pipelines, the tensor-core tiles) lists its
//! variants once, in a table macro exported by this crate (the transpose
//! tiles too: `transpose_smem_table!`, `transpose_vec_table!`):
//!
//! ```text
//! #[macro_export]
//! macro_rules! simt_warptile_table {
//!     ($then:ident) => { $then! {
//!         /// The enum's doc.
//!         pub enum WarpConfig: Tiling;
//!         /// The variant's (and kernel's) doc.
//!         [cfg(all())] B128x128x8W32x128Lb2 => sgemm_warptile_128x128x8_w32x128_lb2 = tiled_kernel!(WT_128X128X8_W32X128), bounds 2;
//!         /// An experiment: built only with the `experiments` feature.
//!         [cfg(ferrotile_experiments)] B128x128x8W64x32 => … = tiled_kernel!(…), bounds 0;
//!     } };
//! }
//! ```
//!
//! Each row names the variant, its PTX entry, the macro that defines the
//! kernel from the configuration constant, and its launch bounds' blocks
//! per SM (0: no bounds). The first bracket gates the row: `cfg(all())` for
//! what the default build ships, `cfg(ferrotile_experiments)` for kernels
//! kept for the record, which then exist in neither the default PTX nor the
//! host's enum. That cfg is set by this crate's build script when its
//! `experiments` feature is on, and mirrored by the host crate's build
//! script (through `links` metadata), so both crates always agree on which
//! variants exist.
//!
//! The table is expanded twice: here by `variant_family!` (the kernels,
//! the enum with `ALL`, `name`, `from_name` and `config`, and the family's
//! launch bounds) and in the host crate by a launcher macro that writes one
//! `launch!` arm per row. Adding a variant is one row plus its
//! configuration constant.

use crate::launch::LaunchBounds;

/// One table row as the bounds collector sees it.
#[derive(Clone, Copy, Debug)]
pub struct BoundsRow {
    /// The PTX entry.
    pub kernel: &'static str,
    /// Threads per block of the configuration.
    pub threads: usize,
    /// Blocks per SM of the launch bounds (0: none).
    pub min_blocks_per_sm: u32,
}

/// Rows of `rows` that have launch bounds.
pub const fn bounds_count(rows: &[BoundsRow]) -> usize {
    let (mut i, mut n) = (0, 0);
    while i < rows.len() {
        if rows[i].min_blocks_per_sm > 0 {
            n += 1;
        }
        i += 1;
    }
    n
}

/// The launch bounds of the rows that have them, in table order.
pub const fn bounds_collect<const N: usize>(rows: &[BoundsRow]) -> [LaunchBounds; N] {
    let mut out = [LaunchBounds { kernel: "", max_threads: 0, min_blocks_per_sm: 0 }; N];
    let (mut i, mut n) = (0, 0);
    while i < rows.len() {
        let r = rows[i];
        if r.min_blocks_per_sm > 0 {
            out[n] = LaunchBounds { kernel: r.kernel, max_threads: r.threads as u32, min_blocks_per_sm: r.min_blocks_per_sm };
            n += 1;
        }
        i += 1;
    }
    assert!(n == N);
    out
}

/// Every entry of `parts`, concatenated (`N` = their total length).
pub const fn concat_bounds<const N: usize>(parts: &[&[LaunchBounds]]) -> [LaunchBounds; N] {
    let mut out = [LaunchBounds { kernel: "", max_threads: 0, min_blocks_per_sm: 0 }; N];
    let (mut p, mut n) = (0, 0);
    while p < parts.len() {
        let mut i = 0;
        while i < parts[p].len() {
            out[n] = parts[p][i];
            n += 1;
            i += 1;
        }
        p += 1;
    }
    assert!(n == N);
    out
}

/// Total length of `parts` (the `N` of [`concat_bounds`]).
pub const fn total_len(parts: &[&[LaunchBounds]]) -> usize {
    let (mut p, mut n) = (0, 0);
    while p < parts.len() {
        n += parts[p].len();
        p += 1;
    }
    n
}

/// Expands a variant table (see the module docs) into the family's
/// kernels and its enum (with `ALL`, `name`, `from_name`, `config` and
/// `BOUNDS`, the launch bounds of its kernels).
#[macro_export]
macro_rules! variant_family {
    (
        $(#[$emeta:meta])* pub enum $Enum:ident: $Cfg:ty;
        $( $(#[$doc:meta])* [$gate:meta] $V:ident => $kernel:ident = $define:ident!($cfg:ident), bounds $lb:literal; )*
    ) => {
        $(
            #[$gate]
            $define! { $(#[$doc])* $kernel = $cfg }
        )*

        $(#[$emeta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $Enum {
            $( $(#[$doc])* #[$gate] $V, )*
        }

        impl $Enum {
            /// Every variant of the build (experiments only with the
            /// `experiments` feature), in table order.
            pub const ALL: &'static [$Enum] = &[$( #[$gate] $Enum::$V, )*];

            /// The kernel's name (its PTX entry).
            pub const fn name(self) -> &'static str {
                match self {
                    $( #[$gate] $Enum::$V => stringify!($kernel), )*
                }
            }

            /// The variant whose kernel is `name`.
            pub fn from_name(name: &str) -> Option<$Enum> {
                Self::ALL.iter().copied().find(|v| v.name() == name)
            }

            /// The configuration the kernel is compiled with.
            pub const fn config(self) -> $Cfg {
                match self {
                    $( #[$gate] $Enum::$V => $cfg, )*
                }
            }

            /// The family's kernels with launch bounds (for the PTX linker).
            pub const BOUNDS: &'static [$crate::launch::LaunchBounds] = {
                const ROWS: &[$crate::variants::BoundsRow] = &[$(
                    #[$gate]
                    $crate::variants::BoundsRow { kernel: stringify!($kernel), threads: $cfg.threads(), min_blocks_per_sm: $lb },
                )*];
                &$crate::variants::bounds_collect::<{ $crate::variants::bounds_count(ROWS) }>(ROWS)
            };
        }
    };
}
