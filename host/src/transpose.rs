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

pub use k::transpose::{FlatConfig, LinesConfig, SmemConfig, VecConfig};

/// The rungs of the transpose ladder, and further tile configurations of
/// the tiled rungs (for the benchmark to compare).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransposeVariant {
    /// Rung 1: one thread per element, coalesced read, strided write.
    NaiveRow,
    /// Rung 2: one thread per element, strided read, coalesced write.
    NaiveCol,
    /// Rungs 3–5: a shared tile with scalar accesses, in one of its
    /// configurations ([`SmemConfig`]).
    Smem(SmemConfig),
    /// Rung 6: 16-byte accesses, 4 × 4 register transposes, swizzled
    /// shared tile, in one of its configurations ([`VecConfig`]). Needs
    /// `nx`, `ny` multiples of 4.
    Vec4(VecConfig),
    /// Rung 6's tile for any shape: scalar global accesses (sides that are
    /// not multiples of 4).
    Vec4Unaligned,
    /// Rung 7: rung 6's tile for any shape: aligned 16-byte chunks,
    /// elements shifted to their places between lanes.
    Vec4Realigned,
    /// Rung 10: any shape; each block's output row segments start on
    /// 128-byte line boundaries (whole-line 16-byte stores), in one of its
    /// launch orders ([`LinesConfig`]).
    Lines(LinesConfig),
    /// Rung 11: output rows of at most [`ix::FLAT_MAX_NY`] elements; each
    /// block writes one contiguous run of the output that starts and ends
    /// on 128-byte lines, in one of its chunk sizes ([`FlatConfig`]).
    Flat(FlatConfig),
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
    pub const LADDER: &'static [TransposeVariant] = &[
        V::NaiveRow,
        V::NaiveCol,
        V::Smem(SmemConfig::Unpadded),
        V::Smem(SmemConfig::Pad),
        V::Smem(SmemConfig::PadUnroll2),
        V::Vec4(VecConfig::T64B256),
        V::Vec4Realigned,
        V::Lines(LinesConfig::W128),
        V::Flat(FlatConfig::E6144),
    ];

    /// Every variant: each configuration of the tables, then the rungs
    /// that have one.
    pub fn all() -> Vec<TransposeVariant> {
        let mut v = vec![V::NaiveRow, V::NaiveCol];
        v.extend(SmemConfig::ALL.iter().map(|&c| V::Smem(c)));
        v.extend(VecConfig::ALL.iter().map(|&c| V::Vec4(c)));
        v.extend([V::Vec4Unaligned, V::Vec4Realigned]);
        v.extend(LinesConfig::ALL.iter().map(|&c| V::Lines(c)));
        v.extend(FlatConfig::ALL.iter().map(|&c| V::Flat(c)));
        v.extend([V::Thin, V::Copy]);
        v
    }

    /// The default for shapes whose sides are multiples of 4.
    pub const DEFAULT_VECTOR: TransposeVariant = V::Vec4(VecConfig::T64B256);
    /// The default for other shapes with both sides above [`ix::THIN_MAX`]
    /// and output rows longer than [`Self::SHORT_ROWS`].
    pub const DEFAULT_SCALAR: TransposeVariant = V::Lines(LinesConfig::W128G256);
    /// The default for other shapes with output rows of at most
    /// [`Self::SHORT_ROWS`] elements: rung 10 launched block row by block
    /// row (a row's end shares its line with the next row's start, and both
    /// halves are then written by neighbouring blocks).
    pub const DEFAULT_SHORT_ROWS: TransposeVariant = V::Lines(LinesConfig::W128);
    /// Longest output row (`ny`) that takes [`Self::DEFAULT_SHORT_ROWS`]:
    /// four of rung 10's 128-column segments.
    pub const SHORT_ROWS: usize = 4 * ix::LINES_W128.width;
    /// The default for output rows of at most [`Self::FLAT_LONG_ROWS`]
    /// elements, not a multiple of 16, where [`Self::fastest_for`] takes neither a
    /// copy nor the thin kernel for a few columns (at most [`ix::THIN_MAX`]
    /// output rows whatever the alignment; otherwise sides not both
    /// multiples of 4): rung 11,
    /// each block one line-aligned run of whole short rows (rung 10 writes
    /// the line a short row ends in from two warps).
    pub const DEFAULT_FLAT: TransposeVariant = V::Flat(FlatConfig::E6144);
    /// [`Self::DEFAULT_FLAT`] for output rows longer than
    /// [`Self::FLAT_LONG_ROWS`]: chunks of about 8192 elements, two
    /// 32-column load units per input row where 6144 would give one.
    pub const DEFAULT_FLAT_LONG: TransposeVariant = V::Flat(FlatConfig::E8192);
    /// Longest output row that takes [`Self::DEFAULT_FLAT`] rather than
    /// [`Self::DEFAULT_FLAT_LONG`].
    pub const FLAT_LONG_ROWS: usize = 128;
    /// Longest output row (`ny`) that takes rung 11 ([`Self::DEFAULT_FLAT`]
    /// or [`Self::DEFAULT_FLAT_LONG`]); from about 190 on, rung 10 is as
    /// fast.
    pub const FLAT_ROWS: usize = 160;

    /// Whether rung 11 suits output rows of `ny`: at most
    /// [`Self::FLAT_ROWS`] and not a multiple of 16 (rung 11's loads store
    /// into shared memory `ny` words apart across a warp: 16- or 32-way bank
    /// conflicts there).
    fn flat_rows(ny: usize) -> bool {
        ny <= Self::FLAT_ROWS && !ny.is_multiple_of(16)
    }

    /// Rung 11's chunk size for output rows of `ny`.
    fn flat_for(ny: usize) -> TransposeVariant {
        if ny <= Self::FLAT_LONG_ROWS { Self::DEFAULT_FLAT } else { Self::DEFAULT_FLAT_LONG }
    }

    /// The variant [`Transpose::new`] uses for an `nx × ny` input unless
    /// [`Transpose::variant`] picks one:
    ///
    /// | shape | variant |
    /// | --- | --- |
    /// | one row or one column | [`Copy`](V::Copy) |
    /// | `nx` ≤ [`ix::THIN_MAX`], `nx` ≤ `ny` (a few columns) | [`Thin`](V::Thin) |
    /// | `ny` ≤ [`ix::THIN_MAX`] (a few rows), not a multiple of 16 | [`DEFAULT_FLAT`](V::DEFAULT_FLAT) |
    /// | `ny` ≤ [`ix::THIN_MAX`], a multiple of 16 | [`Thin`](V::Thin) |
    /// | `nx`, `ny` multiples of 4 | [`DEFAULT_VECTOR`](V::DEFAULT_VECTOR) |
    /// | `ny` ≤ [`FLAT_LONG_ROWS`](V::FLAT_LONG_ROWS), not a multiple of 16 | [`DEFAULT_FLAT`](V::DEFAULT_FLAT) |
    /// | `ny` ≤ [`FLAT_ROWS`](V::FLAT_ROWS), not a multiple of 16 | [`DEFAULT_FLAT_LONG`](V::DEFAULT_FLAT_LONG) |
    /// | `ny` ≤ [`SHORT_ROWS`](V::SHORT_ROWS) | [`DEFAULT_SHORT_ROWS`](V::DEFAULT_SHORT_ROWS) |
    /// | any other | [`DEFAULT_SCALAR`](V::DEFAULT_SCALAR) |
    pub fn fastest_for(nx: usize, ny: usize) -> TransposeVariant {
        let few_rows = ny <= ix::THIN_MAX as usize;
        if V::Copy.supports(nx, ny) {
            V::Copy
        } else if V::Thin.supports(nx, ny) && ix::ThinTile::sides(nx as u32, ny as u32).2 {
            V::Thin
        } else if few_rows && Self::flat_rows(ny) {
            Self::flat_for(ny)
        } else if few_rows {
            V::Thin
        } else if Self::DEFAULT_VECTOR.supports(nx, ny) {
            Self::DEFAULT_VECTOR
        } else if Self::flat_rows(ny) {
            Self::flat_for(ny)
        } else if ny <= Self::SHORT_ROWS {
            Self::DEFAULT_SHORT_ROWS
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
            V::Smem(c) => c.name(),
            V::Vec4(c) => c.name(),
            V::Vec4Unaligned => "transpose_vec4u_t64_b256",
            V::Vec4Realigned => "transpose_vec4r_t64_b256",
            V::Lines(c) => c.name(),
            V::Flat(c) => c.name(),
            V::Thin => "transpose_thin",
            V::Copy => "transpose_copy",
        }
    }

    /// The variant whose [`name`](Self::name) is `name`.
    pub fn from_name(name: &str) -> Option<TransposeVariant> {
        Self::all().into_iter().find(|v| v.name() == name)
    }

    /// Whether this is a rung of the ladder (not an extra configuration).
    pub fn is_rung(self) -> bool {
        Self::LADDER.contains(&self)
    }

    /// Whether the variant uses 16-byte accesses (needs `nx`, `ny` multiples of 4).
    pub fn is_vectorised(self) -> bool {
        matches!(self, V::Vec4(_))
    }

    /// Whether the variant can transpose an `nx × ny` input.
    pub fn supports(self, nx: usize, ny: usize) -> bool {
        match self {
            V::Copy => nx == 1 || ny == 1,
            V::Thin => nx.min(ny) <= ix::THIN_MAX as usize,
            V::Lines(c) => c.config().supports(nx.min(u32::MAX as usize) as u32, ny.min(u32::MAX as usize) as u32),
            V::Flat(c) => c.config().supports(nx.min(u32::MAX as usize) as u32, ny.min(u32::MAX as usize) as u32),
            v => !v.is_vectorised() || (nx.is_multiple_of(ix::VEC) && ny.is_multiple_of(ix::VEC)),
        }
    }

    /// Why the variant does not support a shape (for the error message).
    fn requirement(self) -> String {
        match self {
            V::Copy => "needs one row or one column".into(),
            V::Thin => format!("needs nx or ny at most {}", ix::THIN_MAX),
            V::Lines(_) => "launches block rows in groups whose block count must stay below 2^31; take the default or `LinesConfig::W128`".into(),
            V::Flat(_) => format!("needs ny at most {}", ix::FLAT_MAX_NY),
            _ => format!("uses 16-byte accesses and needs nx and ny multiples of {}", ix::VEC),
        }
    }

    /// The launch geometry for an `nx × ny` input (computed in `kernels`).
    pub fn launch_config(self, nx: u32, ny: u32) -> LaunchConfig {
        match self {
            V::NaiveRow => ix::naive_config(nx, ny),
            V::NaiveCol => ix::naive_col_config(nx, ny),
            V::Smem(c) => c.config().config(nx, ny),
            V::Vec4(c) => c.config().config(nx, ny),
            V::Vec4Unaligned | V::Vec4Realigned => ix::VEC4_T64_B256.config(nx, ny),
            V::Lines(c) => c.config().config(nx, ny),
            V::Flat(c) => c.config().config(nx, ny),
            V::Thin => ix::THIN.config(nx, ny),
            V::Copy => LaunchConfig::linear(0, 0),
        }
    }
}

/// Largest tile side of any transpose kernel, with the line tile's span
/// (bounds the index headroom).
const MAX_TILE_SIDE: u32 = (ix::LINES_W128.span()) as u32;

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
    /// Errors (nothing is launched): `nx` or `ny` zero or within the widest
    /// tile's span (160) of `u32::MAX`
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

/// Elements from the last `unit`-element boundary to the buffer's first
/// element. 16-byte boundaries (`unit` 4): 0 for every buffer today
/// (allocations, and views, which [`Buffer::from_raw_device_ptr`] takes only
/// [`crate::DEVICE_ALIGN`]-aligned); rung 7 would take any other. 128-byte
/// lines (`unit` [`ix::LINE`]): any multiple of 4 for a view.
fn base_shift(b: &Buffer<f32>, unit: usize) -> u32 {
    b.raw_device_ptr().map_or(0, |p| ((p / 4) % unit as u64) as u32)
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
        V::Smem(c) => c.launch(ctx, cfg, input, output, nx, ny),
        V::Vec4(c) => c.launch(ctx, cfg, input, output, nx, ny),
        V::Vec4Unaligned => go!(transpose_vec4u_t64_b256),
        V::Vec4Realigned => {
            let (in_base, out_base) = (base_shift(input, ix::VEC), base_shift(output, ix::VEC));
            launch!(ctx, k::transpose::transpose_vec4r_t64_b256, cfg, input, output, nx, ny, in_base, out_base)
        }
        V::Lines(c) => c.launch(ctx, cfg, input, output, nx, ny, base_shift(output, ix::LINE)),
        V::Flat(c) => c.launch(ctx, cfg, input, output, nx, ny, base_shift(output, ix::LINE)),
        V::Thin if ix::ThinTile::sides(nx, ny).2 => go!(transpose_thin_tall),
        V::Thin => go!(transpose_thin_wide),
        V::Copy => ctx.copy(input, output),
    }
}

/// Launches one row of a transpose table.
trait TableLaunch {
    /// Launches the row's kernel with `cfg` on the `nx × ny` input.
    fn launch(self, ctx: &Context, cfg: LaunchConfig, input: &Buffer<f32>, output: &mut Buffer<f32>, nx: u32, ny: u32) -> Result<()>;
}

/// Writes [`TableLaunch`] for a transpose table: one `launch!` arm per row.
macro_rules! transpose_launcher {
    (
        $(#[$emeta:meta])* pub enum $Enum:ident: $Cfg:ty;
        $( $(#[$doc:meta])* [$gate:meta] $V:ident => $kernel:ident = $define:ident!($cfg:ident), bounds $lb:literal; )*
    ) => {
        impl TableLaunch for $Enum {
            fn launch(self, ctx: &Context, cfg: LaunchConfig, input: &Buffer<f32>, output: &mut Buffer<f32>, nx: u32, ny: u32) -> Result<()> {
                match self {
                    $( #[$gate] $Enum::$V => launch!(ctx, k::transpose::$kernel, cfg, input, output, nx, ny), )*
                }
            }
        }
    };
}
k::transpose_smem_table!(transpose_launcher);
k::transpose_vec_table!(transpose_launcher);

/// Launches one row of a table whose kernels also take the output's line
/// shift (the line-aligned and the flat-chunk tables).
trait LinesLaunch {
    /// Launches the row's kernel with `cfg` on the `nx × ny` input, the
    /// output starting `out_base` elements past a 128-byte line.
    #[allow(clippy::too_many_arguments)]
    fn launch(self, ctx: &Context, cfg: LaunchConfig, input: &Buffer<f32>, output: &mut Buffer<f32>, nx: u32, ny: u32, out_base: u32) -> Result<()>;
}

/// Writes [`LinesLaunch`] for the line-aligned or flat-chunk table (their kernels also take
/// the output's line shift): one `launch!` arm per row.
macro_rules! lines_launcher {
    (
        $(#[$emeta:meta])* pub enum $Enum:ident: $Cfg:ty;
        $( $(#[$doc:meta])* [$gate:meta] $V:ident => $kernel:ident = $define:ident!($cfg:ident), bounds $lb:literal; )*
    ) => {
        impl LinesLaunch for $Enum {
            fn launch(self, ctx: &Context, cfg: LaunchConfig, input: &Buffer<f32>, output: &mut Buffer<f32>, nx: u32, ny: u32, out_base: u32) -> Result<()> {
                match self {
                    $( #[$gate] $Enum::$V => launch!(ctx, k::transpose::$kernel, cfg, input, output, nx, ny, out_base), )*
                }
            }
        }
    };
}
k::transpose_lines_table!(lines_launcher);
k::transpose_flat_table!(lines_launcher);

#[cfg(test)]
mod tests {
    use super::*;

    /// The default per shape class (the table of [`TransposeVariant::fastest_for`]),
    /// and every default supports its shape.
    #[test]
    fn fastest_for_follows_the_shape_classes() {
        let cases = [
            ((1, 4099), V::Copy),
            ((4099, 1), V::Copy),
            ((7, 1 << 22), V::Thin),
            ((32, 1 << 20), V::Thin),
            ((1 << 20, 32), V::Thin),
            ((1 << 20, 16), V::Thin),
            ((1 << 22, 7), V::DEFAULT_FLAT),
            ((1 << 20, 8), V::DEFAULT_FLAT),
            ((1 << 20, 33), V::DEFAULT_FLAT),
            ((1 << 20, 64), V::DEFAULT_VECTOR),
            ((1_048_573, 48), V::DEFAULT_SHORT_ROWS),
            ((1_048_573, V::FLAT_LONG_ROWS - 1), V::DEFAULT_FLAT),
            ((1_048_573, V::FLAT_LONG_ROWS + 1), V::DEFAULT_FLAT_LONG),
            ((1_048_573, V::FLAT_ROWS - 1), V::DEFAULT_FLAT_LONG),
            ((1_048_573, V::FLAT_ROWS + 1), V::DEFAULT_SHORT_ROWS),
            ((129, 1 << 20), V::DEFAULT_SCALAR),
            ((8192, 8192), V::DEFAULT_VECTOR),
            ((68, 132), V::DEFAULT_VECTOR),
            ((1_048_573, 67), V::DEFAULT_FLAT),
            ((8191, V::SHORT_ROWS), V::DEFAULT_SHORT_ROWS),
            ((8191, V::SHORT_ROWS + 1), V::DEFAULT_SCALAR),
            ((67, 1_048_573), V::DEFAULT_SCALAR),
            ((8191, 8193), V::DEFAULT_SCALAR),
        ];
        for ((nx, ny), want) in cases {
            let got = V::fastest_for(nx, ny);
            assert_eq!(got, want, "{nx} x {ny}");
            assert!(got.supports(nx, ny), "{nx} x {ny}");
        }
        assert_eq!(V::DEFAULT_SCALAR, V::Lines(LinesConfig::W128G256));
        // The grouped launch order's 32-bit block arithmetic: 2^24 block
        // columns of 256-row groups do not fit, one row at a time does.
        assert!(!V::Lines(LinesConfig::W128G256).supports(4, 1 << 31));
        assert!(V::Lines(LinesConfig::W128).supports(4, 1 << 31));
        assert!(V::Lines(LinesConfig::W128G256).supports(67, 1_048_573));
        assert_eq!(V::DEFAULT_SHORT_ROWS, V::Lines(LinesConfig::W128));
        assert_eq!(V::DEFAULT_FLAT, V::Flat(FlatConfig::E6144));
        assert_eq!(V::DEFAULT_FLAT_LONG, V::Flat(FlatConfig::E8192));
        assert!(V::DEFAULT_FLAT_LONG.supports(1 << 30, V::FLAT_ROWS));
    }
}
