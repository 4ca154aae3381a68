//! Matrix transpose: `output (nx rows of ny) = input (ny rows of nx)ᵀ`.
//!
//! ```
//! use ferrotile::transpose::Transpose;
//! # fn main() -> ferrotile::Result<()> {
//! let ctx = ferrotile::Context::auto(); // CUDA when a device is there, else the emulator
//! let (nx, ny) = (3, 2); // 2 rows of 3
//! let input = ctx.upload(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
//! let mut output = ctx.alloc::<f32>(nx * ny)?;
//! Transpose::new(nx, ny).run(&ctx, &input, &mut output)?; // the fastest rung for the shape
//! assert_eq!(output.download()?, vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
//! # Ok(()) }
//! ```

use ferrotile_kernels as k;
use k::transpose::index::{self as ix, VecTile};

use crate::{check, Buffer, Context, Error, LaunchConfig, Result};

/// The rungs of the transpose ladder, and further tile configurations of
/// the tiled rungs (for the benchmark to compare).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransposeVariant {
    /// Rung 1: one thread per element, coalesced read, strided write.
    NaiveRow,
    /// Rung 2: one thread per element, strided read, coalesced write.
    NaiveCol,
    /// Rung 3: 32 × 32 shared tile, 32 × 8 threads; 32-way bank conflicts.
    Smem,
    /// Rung 4: 32 × 33 padded shared tile, 32 × 8 threads; conflict-free.
    SmemPad,
    /// Rung 5: padded 32 × 64 tile (×2 unrolled along x), 32 × 8 threads.
    SmemPadUnroll2,
    /// Rung 6: 64 × 64 tile, 256 threads, 16-byte accesses, 4 × 4 register
    /// transposes, swizzled shared tile. Needs `nx`, `ny` multiples of 4.
    Vec4,
    /// Config of rung 4 with 32 × 16 threads.
    SmemPadB32x16,
    /// Config of rung 4 with 32 × 32 threads.
    SmemPadB32x32,
    /// Config of rung 4 with a 64 × 65 tile, 32 × 8 threads.
    SmemPadT64,
    /// Config of rung 5 with 32 × 16 threads.
    SmemPadUnroll2B32x16,
    /// Config of rung 6 with 128 threads (2 micro-blocks each).
    Vec4T64B128,
    /// Config of rung 6 with 64 threads (4 micro-blocks each).
    Vec4T64B64,
    /// Config of rung 6 with a 32 × 32 tile and 64 threads.
    Vec4T32B64,
    /// Rung 6's tile for any shape: scalar global accesses (sides that are
    /// not multiples of 4).
    Vec4Unaligned,
    /// Rung 7: rung 6's tile for any shape: aligned 16-byte chunks,
    /// elements shifted to their places between lanes.
    Vec4Realigned,
    /// A few columns or rows (short side at most
    /// [`ix::THIN_MAX`]): whole lines of the long side per block.
    Thin,
    /// One row or one column: the transpose is the same bytes, copied
    /// device to device.
    Copy,
}

use TransposeVariant as V;

impl TransposeVariant {
    /// The ladder's rungs, in order.
    pub const LADDER: &'static [TransposeVariant] =
        &[V::NaiveRow, V::NaiveCol, V::Smem, V::SmemPad, V::SmemPadUnroll2, V::Vec4, V::Vec4Realigned];

    /// Every variant: the rungs, then the extra configurations.
    pub const ALL: &'static [TransposeVariant] = &[
        V::NaiveRow,
        V::NaiveCol,
        V::Smem,
        V::SmemPad,
        V::SmemPadUnroll2,
        V::Vec4,
        V::SmemPadB32x16,
        V::SmemPadB32x32,
        V::SmemPadT64,
        V::SmemPadUnroll2B32x16,
        V::Vec4T64B128,
        V::Vec4T64B64,
        V::Vec4T32B64,
        V::Vec4Unaligned,
        V::Vec4Realigned,
        V::Thin,
        V::Copy,
    ];

    /// The default for shapes whose sides are multiples of 4.
    pub const DEFAULT_VECTOR: TransposeVariant = V::Vec4;
    /// The default for other shapes with both sides above [`ix::THIN_MAX`].
    pub const DEFAULT_SCALAR: TransposeVariant = V::Vec4Realigned;

    /// The variant [`Transpose::new`] uses for an `nx × ny` input unless
    /// [`Transpose::variant`] picks one:
    ///
    /// | shape | variant |
    /// | --- | --- |
    /// | one row or one column | [`Copy`](V::Copy) |
    /// | short side ≤ [`ix::THIN_MAX`] | [`Thin`](V::Thin) |
    /// | `nx`, `ny` multiples of 4 | [`Vec4`](V::Vec4) |
    /// | any other | [`Vec4Realigned`](V::Vec4Realigned) |
    pub fn fastest_for(nx: usize, ny: usize) -> TransposeVariant {
        if V::Copy.supports(nx, ny) {
            V::Copy
        } else if V::Thin.supports(nx, ny) {
            V::Thin
        } else if Self::DEFAULT_VECTOR.supports(nx, ny) {
            Self::DEFAULT_VECTOR
        } else {
            Self::DEFAULT_SCALAR
        }
    }

    /// The kernel's name: its PTX entry (for `Thin`, the common prefix of
    /// `transpose_thin_tall` and `transpose_thin_wide`; `Copy` launches no
    /// kernel).
    pub fn name(self) -> &'static str {
        match self {
            V::NaiveRow => "transpose_naive_row",
            V::NaiveCol => "transpose_naive_col",
            V::Smem => "transpose_smem",
            V::SmemPad => "transpose_smem_pad",
            V::SmemPadUnroll2 => "transpose_smem_pad_unroll2",
            V::Vec4 => "transpose_vec4_t64_b256",
            V::SmemPadB32x16 => "transpose_smem_pad_b32x16",
            V::SmemPadB32x32 => "transpose_smem_pad_b32x32",
            V::SmemPadT64 => "transpose_smem_pad_t64",
            V::SmemPadUnroll2B32x16 => "transpose_smem_pad_unroll2_b32x16",
            V::Vec4T64B128 => "transpose_vec4_t64_b128",
            V::Vec4T64B64 => "transpose_vec4_t64_b64",
            V::Vec4T32B64 => "transpose_vec4_t32_b64",
            V::Vec4Unaligned => "transpose_vec4u_t64_b256",
            V::Vec4Realigned => "transpose_vec4r_t64_b256",
            V::Thin => "transpose_thin",
            V::Copy => "transpose_copy",
        }
    }

    /// Whether this is a rung of the ladder (not an extra configuration).
    pub fn is_rung(self) -> bool {
        Self::LADDER.contains(&self)
    }

    /// Whether the variant uses 16-byte accesses (needs `nx`, `ny` multiples of 4).
    pub fn is_vectorised(self) -> bool {
        matches!(self, V::Vec4 | V::Vec4T64B128 | V::Vec4T64B64 | V::Vec4T32B64)
    }

    /// Whether the variant can transpose an `nx × ny` input.
    pub fn supports(self, nx: usize, ny: usize) -> bool {
        match self {
            V::Copy => nx == 1 || ny == 1,
            V::Thin => nx.min(ny) <= ix::THIN_MAX as usize,
            v => !v.is_vectorised() || (nx % ix::VEC == 0 && ny % ix::VEC == 0),
        }
    }

    /// Why the variant does not support a shape (for the error message).
    fn requirement(self) -> String {
        match self {
            V::Copy => "needs one row or one column".into(),
            V::Thin => format!("needs nx or ny at most {}", ix::THIN_MAX),
            _ => format!("uses 16-byte accesses and needs nx and ny multiples of {}", ix::VEC),
        }
    }

    /// The launch geometry for an `nx × ny` input (computed in `kernels`).
    pub fn launch_config(self, nx: u32, ny: u32) -> LaunchConfig {
        match self {
            V::NaiveRow => ix::naive_config(nx, ny),
            V::NaiveCol => ix::naive_col_config(nx, ny),
            V::Smem => ix::SMEM.config(nx, ny),
            V::SmemPad => ix::SMEM_PAD.config(nx, ny),
            V::SmemPadUnroll2 => ix::SMEM_PAD_UNROLL2.config(nx, ny),
            V::Vec4 => ix::VEC4_T64_B256.config(nx, ny),
            V::SmemPadB32x16 => ix::SMEM_PAD_B32X16.config(nx, ny),
            V::SmemPadB32x32 => ix::SMEM_PAD_B32X32.config(nx, ny),
            V::SmemPadT64 => ix::SMEM_PAD_T64.config(nx, ny),
            V::SmemPadUnroll2B32x16 => ix::SMEM_PAD_UNROLL2_B32X16.config(nx, ny),
            V::Vec4T64B128 => ix::VEC4_T64_B128.config(nx, ny),
            V::Vec4T64B64 => ix::VEC4_T64_B64.config(nx, ny),
            V::Vec4T32B64 => ix::VEC4_T32_B64.config(nx, ny),
            V::Vec4Unaligned | V::Vec4Realigned => ix::VEC4_T64_B256.config(nx, ny),
            V::Thin => ix::THIN.config(nx, ny),
            V::Copy => LaunchConfig::linear(0, 0),
        }
    }
}

/// Largest tile side of any transpose kernel (bounds the index headroom).
const MAX_TILE_SIDE: u32 = 64;

/// A transpose of an f32 matrix with `ny` rows of `nx` elements into one
/// with `nx` rows of `ny`.
#[derive(Clone, Copy, Debug)]
pub struct Transpose {
    nx: usize,
    ny: usize,
    variant: Option<TransposeVariant>,
}

impl Transpose {
    /// Transpose of a matrix with `ny` rows of `nx` elements, with the
    /// fastest variant for the shape ([`TransposeVariant::fastest_for`]).
    pub fn new(nx: usize, ny: usize) -> Self {
        Transpose { nx, ny, variant: None }
    }

    /// Picks a rung or configuration.
    pub fn variant(mut self, v: TransposeVariant) -> Self {
        self.variant = Some(v);
        self
    }

    /// The variant [`Transpose::run`] launches.
    pub fn resolved_variant(&self) -> TransposeVariant {
        self.variant.unwrap_or_else(|| TransposeVariant::fastest_for(self.nx, self.ny))
    }

    /// Runs on `ctx`: `input` and `output` both hold `nx · ny` elements.
    ///
    /// Errors (nothing is launched): `nx` or `ny` zero or above `u32::MAX`
    /// ([`Error::BadArgument`] naming it), a buffer of the wrong length
    /// ([`Error::LengthMismatch`]), a buffer of another backend, a
    /// vectorised variant with `nx` or `ny` not a multiple of 4
    /// (`BadArgument { arg: "variant" }`). Any shape whose buffers fit in
    /// memory runs, however tall or wide: grids taller than the launch
    /// limit are folded.
    pub fn run(&self, ctx: &Context, input: &Buffer<f32>, output: &mut Buffer<f32>) -> Result<()> {
        let nx = check::dim("nx", self.nx)?;
        let ny = check::dim("ny", self.ny)?;
        // Thread indices run up to a whole block past each side: keep them
        // inside the kernels' 32-bit indices.
        for (arg, v) in [("nx", nx), ("ny", ny)] {
            if v > u32::MAX - MAX_TILE_SIDE {
                return Err(Error::BadArgument { arg, detail: format!("{v} is within a tile of the kernels' 32-bit index limit") });
            }
        }
        let n = check::product("nx * ny", &[self.nx, self.ny])?;
        check::len("input", input, n)?;
        check::len("output", output, n)?;
        check::backend(ctx, &[("input", input.is_on(ctx)), ("output", output.is_on(ctx))])?;
        let _op = ctx.op(&[input.tracker()], &[output.tracker()])?;
        let v = self.resolved_variant();
        if !v.supports(self.nx, self.ny) {
            return Err(Error::BadArgument {
                arg: "variant",
                detail: format!("`{}` {}; got {nx} x {ny}", v.name(), v.requirement()),
            });
        }
        launch_variant(ctx, v, input, output, nx, ny)
    }
}

/// Elements from the last 16-byte boundary to the buffer's first element:
/// 0 for every buffer today (allocations, and views, which
/// [`Buffer::from_raw_device_ptr`] takes only [`crate::DEVICE_ALIGN`]-aligned);
/// rung 7 would take any other.
fn base_shift(b: &Buffer<f32>) -> u32 {
    b.raw_device_ptr().map_or(0, |p| ((p / 4) % ix::VEC as u64) as u32)
}

/// Launches `v` (which supports the shape) on the `nx × ny` input at the
/// start of `input`, writing the first `nx · ny` elements of `output`;
/// the buffers may be longer (the GEMM stages transposed operands this
/// way). `Copy` needs buffers of exactly `nx · ny` elements.
pub(crate) fn launch_variant(ctx: &Context, v: TransposeVariant, input: &Buffer<f32>, output: &mut Buffer<f32>, nx: u32, ny: u32) -> Result<()> {
    debug_assert!(v.supports(nx as usize, ny as usize));
    debug_assert!(!v.is_vectorised() || VecTile::supports(nx, ny));
    // Tall shapes fold their grid rows into z (every kernel reads its
    // block row with `arch::block_row`), so no shape is refused for its
    // grid; `launch!` still checks the configuration before launching.
    let cfg = v.launch_config(nx, ny);
    macro_rules! go {
        ($kernel:ident) => {
            launch!(ctx, k::transpose::$kernel, cfg, input, output, nx, ny)
        };
    }
    match v {
        V::NaiveRow => go!(transpose_naive_row),
        V::NaiveCol => go!(transpose_naive_col),
        V::Smem => go!(transpose_smem),
        V::SmemPad => go!(transpose_smem_pad),
        V::SmemPadUnroll2 => go!(transpose_smem_pad_unroll2),
        V::Vec4 => go!(transpose_vec4_t64_b256),
        V::SmemPadB32x16 => go!(transpose_smem_pad_b32x16),
        V::SmemPadB32x32 => go!(transpose_smem_pad_b32x32),
        V::SmemPadT64 => go!(transpose_smem_pad_t64),
        V::SmemPadUnroll2B32x16 => go!(transpose_smem_pad_unroll2_b32x16),
        V::Vec4T64B128 => go!(transpose_vec4_t64_b128),
        V::Vec4T64B64 => go!(transpose_vec4_t64_b64),
        V::Vec4T32B64 => go!(transpose_vec4_t32_b64),
        V::Vec4Unaligned => go!(transpose_vec4u_t64_b256),
        V::Vec4Realigned => {
            let (in_base, out_base) = (base_shift(input), base_shift(output));
            launch!(ctx, k::transpose::transpose_vec4r_t64_b256, cfg, input, output, nx, ny, in_base, out_base)
        }
        V::Thin if ix::ThinTile::sides(nx, ny).2 => go!(transpose_thin_tall),
        V::Thin => go!(transpose_thin_wide),
        V::Copy => ctx.copy(input, output),
    }
}
