//! Tour rows of the SGEMM ladder: every rung and warptile configuration,
//! checked against the f64 reference.

use ferrotile::cublas::Cublas;
use ferrotile::gemm::{Gemm, GemmVariant};
use ferrotile::reference::{self, GemmShape};
use ferrotile::{Context, Result};

use super::{random_f32, reps, Ceiling, Row, Rows, Scale, Work};

/// The ceiling group of the SGEMM rows: cuBLAS on the same shape.
const CUBLAS: &str = "cublas sgemm";

pub fn rows(ctx: &Context, scale: Scale, keep: &dyn Fn(&str) -> bool, rows: &mut Rows) {
    let variants: Vec<GemmVariant> = GemmVariant::all().into_iter().filter(|&v| keep(v.name())).collect();
    let with_cublas = ctx.backend() == ferrotile::Backend::Cuda && (keep("cublas") || !variants.is_empty());
    if variants.is_empty() && !with_cublas {
        return;
    }
    // Full: 2048³ (the naive rung takes ~35 ms a call); small: tile-unaligned.
    let (m, n, k) = if scale == Scale::Full { (2048, 2048, 2048) } else { (129, 132, 36) };
    let s = GemmShape { m, n, k, lda: k, ldb: n, ldc: n };
    let (a, b) = (random_f32(m * k, 21), random_f32(k * n, 22));
    let want = reference::sgemm_f64(s, 1.0, &a, &b, 0.0, &vec![0.0; m * n]);
    let setup = || -> Result<_> { Ok((ctx.upload(&a)?, ctx.upload(&b)?, ctx.alloc::<f32>(m * n)?)) };
    let (da, db, mut dc) = match setup() {
        Ok(x) => x,
        Err(e) => return rows.push(Err(format!("sgemm: {e}"))),
    };
    if with_cublas {
        // The ceiling, same buffers, same run.
        let mut row = || -> Result<Row> {
            dc.fill(f32::NAN)?;
            let blas = Cublas::new(ctx)?;
            let g = Gemm::new(m, n, k);
            let (w, i) = reps(scale);
            let time = ctx.time(w, i, || blas.sgemm(ctx, &g, &da, &db, &mut dc))?;
            let error = reference::rel_norm_error(&dc.download()?, &want);
            Ok(Row {
                kernel: "cuBLAS SGEMM".into(),
                size: format!("{m}x{n}x{k}"),
                time,
                work: Work::Flops(2.0 * (m * n * k) as f64),
                error,
                tolerance: 1e-5,
                ceiling: Ceiling::Is(CUBLAS.into()),
                default_pick: false,
            })
        };
        rows.push(row().map_err(|e| format!("cuBLAS: {e}")));
    }
    for v in variants {
            let mut row = || -> Result<Row> {
                dc.fill(f32::NAN)?;
                let g = Gemm::new(m, n, k).variant(v);
                let (w, i) = reps(scale);
                let time = ctx.time(w, i, || g.run(ctx, &da, &db, &mut dc))?;
                let error = reference::rel_norm_error(&dc.download()?, &want);
                Ok(Row {
                    kernel: v.name().into(),
                    size: format!("{m}x{n}x{k}"),
                    time,
                    work: Work::Flops(2.0 * (m * n * k) as f64),
                    error,
                    tolerance: 1e-5,
                    ceiling: Ceiling::Under(CUBLAS.into()),
                    default_pick: Gemm::new(m, n, k).resolved_variant_on::<f32, f32>(ctx).ok() == Some(v),
                })
            };
            rows.push(row().map_err(|e| format!("{}: {e}", v.name())));
    }
}
