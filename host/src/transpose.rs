//! Matrix transpose: `output (nx rows of ny) = input (ny rows of nx)ᵀ`.

use ferrotile_kernels as k;

use crate::{check, Buffer, Context, Result};

/// The rungs of the transpose ladder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransposeVariant {
    /// Coalesced read, strided write.
    NaiveRow,
}

impl TransposeVariant {
    /// Every rung, in ladder order.
    pub const ALL: &'static [TransposeVariant] = &[TransposeVariant::NaiveRow];

    /// The kernel's name.
    pub fn name(self) -> &'static str {
        match self {
            TransposeVariant::NaiveRow => "transpose_naive_row",
        }
    }
}

/// A transpose of an `nx × ny` f32 matrix (`ny` rows of `nx`).
#[derive(Clone, Copy, Debug)]
pub struct Transpose {
    nx: usize,
    ny: usize,
    variant: TransposeVariant,
}

impl Transpose {
    /// Transpose of a matrix with `ny` rows of `nx` elements.
    pub fn new(nx: usize, ny: usize) -> Self {
        Transpose { nx, ny, variant: TransposeVariant::NaiveRow }
    }

    /// Picks a rung (default: the fastest).
    pub fn variant(mut self, v: TransposeVariant) -> Self {
        self.variant = v;
        self
    }

    /// Runs on `ctx`: `output` gets `nx * ny` elements.
    pub fn run(&self, ctx: &Context, input: &Buffer<f32>, output: &mut Buffer<f32>) -> Result<()> {
        let nx = check::dim("nx", self.nx)?;
        let ny = check::dim("ny", self.ny)?;
        let n = check::product("nx * ny", &[self.nx, self.ny])?;
        check::len("input", input, n)?;
        check::len("output", output, n)?;
        check::backend(ctx, &[("input", input.is_on(ctx)), ("output", output.is_on(ctx))])?;
        match self.variant {
            TransposeVariant::NaiveRow => launch!(
                ctx,
                k::transpose::transpose_naive_row,
                k::transpose::index::naive_config(nx, ny),
                input,
                output,
                nx,
                ny
            ),
        }
    }
}
