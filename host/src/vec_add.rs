//! Vector addition (PMPP chapter 2).

use ferrotile_kernels as k;

use crate::{check, Buffer, Context, Result};

/// The rungs of vector add.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum VecAddVariant {
    /// PMPP `vecAddKernel`: one thread per element.
    Simple,
    /// Four float4s per thread, 16-byte loads and stores.
    Vec4,
}

impl VecAddVariant {
    /// Every rung, in ladder order.
    pub const ALL: &'static [VecAddVariant] = &[VecAddVariant::Simple, VecAddVariant::Vec4];

    /// The kernel's name.
    pub fn name(self) -> &'static str {
        match self {
            VecAddVariant::Simple => "vec_add",
            VecAddVariant::Vec4 => "vec_add_vec4",
        }
    }
}

/// `c = a + b`, element-wise, on `ctx`'s backend, with the fastest rung.
///
/// Errors: `a` empty or longer than `u32::MAX`; `b` or `c` of another
/// length; a buffer from another backend.
pub fn vec_add(ctx: &Context, a: &Buffer<f32>, b: &Buffer<f32>, c: &mut Buffer<f32>) -> Result<()> {
    vec_add_with(ctx, VecAddVariant::Vec4, a, b, c)
}

/// `c = a + b` with a chosen rung (errors as for [`vec_add`]).
pub fn vec_add_with(ctx: &Context, variant: VecAddVariant, a: &Buffer<f32>, b: &Buffer<f32>, c: &mut Buffer<f32>) -> Result<()> {
    let n = check::dim("a", a.len())?;
    check::len("b", b, a.len())?;
    check::len("c", c, a.len())?;
    check::backend(ctx, &[("a", a.is_on(ctx)), ("b", b.is_on(ctx)), ("c", c.is_on(ctx))])?;
    let _op = ctx.op(&[a.tracker(), b.tracker()], &[c.tracker()])?;
    match variant {
        VecAddVariant::Simple => launch!(ctx, k::vec_add::vec_add, k::vec_add::vec_add_config(n), a, b, c, n),
        VecAddVariant::Vec4 => launch!(ctx, k::vec_add::vec_add_vec4, k::vec_add::vec_add_vec4_config(n), a, b, c, n),
    }
}
