//! CPU references (rayon), the ground truth of every test.

use rayon::prelude::*;

/// `c[i] = a[i] + b[i]`.
pub fn vec_add(a: &[f32], b: &[f32]) -> Vec<f32> {
    a.par_iter().zip(b).map(|(x, y)| x + y).collect()
}

/// Serial transpose: `out (nx, ny)` from `input (ny, nx)`, row-major.
pub fn transpose_serial<T: Copy + Default>(input: &[T], nx: usize, ny: usize) -> Vec<T> {
    let mut out = vec![T::default(); nx * ny];
    for r in 0..ny {
        for c in 0..nx {
            out[c * ny + r] = input[r * nx + c];
        }
    }
    out
}

/// Cache-blocked parallel transpose (32 × 32 blocks, one output row band
/// per task); same result as [`transpose_serial`].
pub fn transpose<T: Copy + Default + Send + Sync>(input: &[T], nx: usize, ny: usize) -> Vec<T> {
    const B: usize = 32;
    let mut out = vec![T::default(); nx * ny];
    if ny == 0 {
        return out;
    }
    out.par_chunks_mut(B * ny).enumerate().for_each(|(band, rows)| {
        let c0 = band * B;
        let c1 = (c0 + B).min(nx);
        for r0 in (0..ny).step_by(B) {
            for c in c0..c1 {
                for r in r0..(r0 + B).min(ny) {
                    rows[(c - c0) * ny + r] = input[r * nx + c];
                }
            }
        }
    });
    out
}

/// The SGEMM problem for the references: row-major with leading dimensions.
#[derive(Clone, Copy, Debug)]
pub struct GemmShape {
    /// Rows of A and C.
    pub m: usize,
    /// Columns of B and C.
    pub n: usize,
    /// Inner dimension.
    pub k: usize,
    /// Leading dimension of A.
    pub lda: usize,
    /// Leading dimension of B.
    pub ldb: usize,
    /// Leading dimension of C.
    pub ldc: usize,
}

/// `C = αAB + βC` with f64 accumulation: the precision reference.
/// Returns C in f64 (elements between rows, `ldc > n`, are copied from `c`).
pub fn sgemm_f64(s: GemmShape, alpha: f32, a: &[f32], b: &[f32], beta: f32, c: &[f32]) -> Vec<f64> {
    let mut out: Vec<f64> = c.iter().map(|&x| x as f64).collect();
    out.par_chunks_mut(s.ldc).take(s.m).enumerate().for_each(|(i, row)| {
        let mut acc = vec![0f64; s.n];
        for p in 0..s.k {
            let av = a[i * s.lda + p] as f64;
            let brow = &b[p * s.ldb..p * s.ldb + s.n];
            for (x, &bv) in acc.iter_mut().zip(brow) {
                *x += av * bv as f64;
            }
        }
        for j in 0..s.n {
            // β = 0: C is not read (BLAS semantics).
            let old = if beta == 0.0 { 0.0 } else { beta as f64 * row[j] };
            row[j] = alpha as f64 * acc[j] + old;
        }
    });
    out
}

/// Rayon-blocked f32 SGEMM (the fast CPU path, for big sizes).
pub fn sgemm_f32(s: GemmShape, alpha: f32, a: &[f32], b: &[f32], beta: f32, c: &mut [f32]) {
    c.par_chunks_mut(s.ldc).take(s.m).enumerate().for_each(|(i, row)| {
        let mut acc = vec![0f32; s.n];
        for p in 0..s.k {
            let av = a[i * s.lda + p];
            for (x, &bv) in acc.iter_mut().zip(&b[p * s.ldb..p * s.ldb + s.n]) {
                *x = av.mul_add(bv, *x);
            }
        }
        for j in 0..s.n {
            let old = if beta == 0.0 { 0.0 } else { beta * row[j] };
            row[j] = alpha * acc[j] + old;
        }
    });
}

/// ‖got − want‖₂ / ‖want‖₂ in f64; `inf` when `got` holds a NaN or the
/// lengths differ. The measure every GEMM test uses.
pub fn rel_norm_error(got: &[f32], want: &[f64]) -> f64 {
    if got.len() != want.len() || got.iter().any(|x| !x.is_finite()) {
        return f64::INFINITY;
    }
    let (mut num, mut den) = (0f64, 0f64);
    for (&g, &w) in got.iter().zip(want) {
        num += (g as f64 - w).powi(2);
        den += w * w;
    }
    if den == 0.0 { num.sqrt() } else { (num / den).sqrt() }
}
