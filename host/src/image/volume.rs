//! The 3D kernel: a per-plane affine map of an f32 volume.

use ferrotile_kernels as k;
use ferrotile_kernels::image::index::{self as ix, VolumeParams};

use crate::{check, Buffer, Context, Error, Result};

/// Per-plane affine map of an f32 volume of `[planes, rows, cols]`
/// (row-major, `cols` fastest): `output[p][r][c] = fma(input[p][r][c],
/// scale[p], offset[p])`, on a 3D grid.
///
/// Errors: an extent zero or within a block of `u32::MAX` (`dims`), a
/// buffer of the wrong length, a buffer of another backend. Volumes with
/// more block rows or planes than a grid holds run in grid-sized strides.
pub fn volume_affine(
    ctx: &Context,
    dims: [usize; 3],
    input: &Buffer<f32>,
    scale: &Buffer<f32>,
    offset: &Buffer<f32>,
    output: &mut Buffer<f32>,
) -> Result<()> {
    let planes = check::dim("dims", dims[0])?;
    let rows = check::dim("dims", dims[1])?;
    let cols = check::dim("dims", dims[2])?;
    // Thread indices run up to a block past each extent.
    if dims.iter().any(|&d| d > u32::MAX as usize - 64) {
        return Err(Error::BadArgument { arg: "dims", detail: format!("{dims:?}: an extent is within a block of the kernels' 32-bit indices") });
    }
    let n = check::product("dims", &dims)?;
    let v = VolumeParams { cols, rows, planes };
    let cfg = ix::volume_config(v);
    check::len("input", input, n)?;
    check::len("scale", scale, dims[0])?;
    check::len("offset", offset, dims[0])?;
    check::len("output", output, n)?;
    check::backend(
        ctx,
        &[
            ("input", input.is_on(ctx)),
            ("scale", scale.is_on(ctx)),
            ("offset", offset.is_on(ctx)),
            ("output", output.is_on(ctx)),
        ],
    )?;
    let _op = ctx.op(&[input.tracker(), scale.tracker(), offset.tracker()], &[output.tracker()])?;
    launch!(ctx, k::image::volume_affine, cfg, input, scale, offset, output, v)
}
