//! Tour rows of the first kernels: the copy ceiling and the PMPP vector add
//! (transpose and SGEMM rows, the naive rungs included, are in their
//! families' files).

use ferrotile::reference;
use ferrotile::{Context, Result};

use super::{max_rel_error, random_f32, reps, Ceiling, Row, Rows, Scale, Work};

/// The ceiling group of the vector adds: the large device-to-device copy.
pub const COPY: &str = "copy";

pub fn rows(ctx: &Context, scale: Scale, keep: &dyn Fn(&str) -> bool, rows: &mut Rows) {
    let n = if scale == Scale::Full { 1 << 26 } else { 100_003 };
    let add = keep("vec_add");
    if keep("copy") || add {
        rows.push(copy(ctx, scale, n).map_err(|e| format!("copy: {e}")));
    }
    if add {
        rows.push(vec_add(ctx, scale, n).map_err(|e| format!("vec_add: {e}")));
    }
}

/// The ceiling of the memory-bound rows: a device-to-device copy.
fn copy(ctx: &Context, scale: Scale, n: usize) -> Result<Row> {
    let a = random_f32(n, 9);
    let src = ctx.upload(&a)?;
    let mut dst = ctx.alloc::<f32>(n)?;
    let (w, i) = reps(scale);
    let time = ctx.time(w, i, || dst.copy_from_buffer(&src))?;
    let error = max_rel_error(&dst.download()?, &a);
    Ok(Row {
        kernel: "copy (device to device)".into(),
        size: format!("n={n}"),
        time,
        work: Work::Bytes(8.0 * n as f64),
        error,
        tolerance: 0.0,
        ceiling: Ceiling::Is(COPY.into()),
        default_pick: false,
    })
}

fn vec_add(ctx: &Context, scale: Scale, n: usize) -> Result<Row> {
    let (a, b) = (random_f32(n, 1), random_f32(n, 2));
    let (da, db) = (ctx.upload(&a)?, ctx.upload(&b)?);
    let mut dc = ctx.alloc::<f32>(n)?;
    dc.fill(f32::NAN)?;
    let (w, i) = reps(scale);
    let time = ctx.time(w, i, || ferrotile::vec_add_with(ctx, ferrotile::VecAddVariant::Simple, &da, &db, &mut dc))?;
    let error = max_rel_error(&dc.download()?, &reference::vec_add(&a, &b));
    Ok(Row {
        kernel: "vec_add (PMPP, 1 elem/thread)".into(),
        size: format!("n={n}"),
        time,
        work: Work::Bytes(12.0 * n as f64),
        error,
        tolerance: 0.0,
        ceiling: Ceiling::Under(COPY.into()),
        default_pick: false,
    })
}
