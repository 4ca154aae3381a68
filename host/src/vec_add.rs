//! Vector addition (PMPP chapter 2).

use ferrotile_kernels as k;

use crate::{check, Buffer, Context, Result};

/// `c = a + b`, element-wise, on `ctx`'s backend.
///
/// Errors: `a` empty or longer than `u32::MAX`; `b` or `c` of another
/// length; a buffer from another backend.
pub fn vec_add(ctx: &Context, a: &Buffer<f32>, b: &Buffer<f32>, c: &mut Buffer<f32>) -> Result<()> {
    let n = check::dim("a", a.len())?;
    check::len("b", b, a.len())?;
    check::len("c", c, a.len())?;
    check::backend(ctx, &[("a", a.is_on(ctx)), ("b", b.is_on(ctx)), ("c", c.is_on(ctx))])?;
    launch!(ctx, k::vec_add::vec_add, k::vec_add::vec_add_config(n), a, b, c, n)
}
