//! Tour rows of the transpose ladder: every rung and tile configuration,
//! each size next to a device-to-device copy of the same bytes.

use ferrotile::reference;
use ferrotile::transpose::{Transpose, TransposeVariant};
use ferrotile::{Context, Result};

use super::{max_rel_error, random_f32, reps, Ceiling, Row, Rows, Scale, Work};

pub fn rows(ctx: &Context, scale: Scale, keep: &dyn Fn(&str) -> bool, rows: &mut Rows) {
    let sizes: &[(usize, usize)] = match scale {
        Scale::Full => &[(4096, 4096), (8192, 8192), (8191, 37), (37, 8191)],
        Scale::Small => &[(132, 68), (129, 67)],
    };
    for &(nx, ny) in sizes {
        let wanted: Vec<TransposeVariant> =
            TransposeVariant::all().into_iter().filter(|&v| keep(v.name()) && v.supports(nx, ny)).collect();
        if keep("transpose_copy_dtod") || !wanted.is_empty() {
            rows.push(copy(ctx, scale, nx, ny).map_err(|e| format!("copy {nx}x{ny}: {e}")));
        }
        for v in wanted {
            rows.push(transpose(ctx, scale, v, nx, ny).map_err(|e| format!("{} {nx}x{ny}: {e}", v.name())));
        }
    }
}

/// The ceiling group of the transposes of one size.
fn group(nx: usize, ny: usize) -> String {
    format!("transpose {nx}x{ny}")
}

/// The ceiling: a device-to-device copy of the `nx · ny` f32.
fn copy(ctx: &Context, scale: Scale, nx: usize, ny: usize) -> Result<Row> {
    let a = random_f32(nx * ny, 6);
    let da = ctx.upload(&a)?;
    let mut out = ctx.alloc::<f32>(nx * ny)?;
    out.fill(f32::NAN)?;
    let (w, i) = reps(scale);
    let time = ctx.time(w, i, || out.copy_from_buffer(&da))?;
    let error = max_rel_error(&out.download()?, &a);
    Ok(Row {
        kernel: "transpose_copy_dtod".into(),
        size: format!("{nx}x{ny}"),
        time,
        work: Work::Bytes(8.0 * (nx * ny) as f64),
        error,
        tolerance: 0.0,
        ceiling: Ceiling::Is(group(nx, ny)),
        default_pick: false,
    })
}

fn transpose(ctx: &Context, scale: Scale, v: TransposeVariant, nx: usize, ny: usize) -> Result<Row> {
    let a = random_f32(nx * ny, 7);
    let da = ctx.upload(&a)?;
    let mut out = ctx.alloc::<f32>(nx * ny)?;
    out.fill(f32::NAN)?;
    let t = Transpose::new(nx, ny).variant(v);
    let (w, i) = reps(scale);
    let time = ctx.time(w, i, || t.run(ctx, &da, &mut out))?;
    let error = max_rel_error(&out.download()?, &reference::transpose(&a, nx, ny));
    Ok(Row {
        kernel: v.name().into(),
        size: format!("{nx}x{ny}"),
        time,
        work: Work::Bytes(8.0 * (nx * ny) as f64),
        error,
        tolerance: 0.0,
        ceiling: Ceiling::Under(group(nx, ny)),
        default_pick: Transpose::new(nx, ny).resolved_variant() == v,
    })
}
