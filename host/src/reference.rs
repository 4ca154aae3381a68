//! CPU references (rayon), the ground truth of every test.
//!
//! One rule for the whole module: the references are oracles, called with
//! shapes the caller built itself, so sizes that disagree are a bug in the
//! caller, not an input to report. Every reference checks its size
//! preconditions on entry and panics with a message that names the
//! argument (each documents them under `# Panics`); none truncates to the
//! shorter slice or reads past a row silently. [`rel_norm_error`] is a
//! measure, not an oracle: it scores a length mismatch as `inf` (a failed
//! comparison) and never panics.

use rayon::prelude::*;

/// `a · b · …` of a shape, panicking (naming `what`) where it overflows.
#[track_caller]
fn product(f: &str, what: &str, dims: &[usize]) -> usize {
    dims.iter()
        .try_fold(1usize, |p, &d| p.checked_mul(d))
        .unwrap_or_else(|| panic!("reference::{f}: `{what}` = {dims:?} overflows usize"))
}

/// Elements a row-major `rows × cols` matrix with leading dimension `ld`
/// spans: `(rows − 1) · ld + cols` (none when it is empty). Panics, naming
/// `ld`, when `ld < max(cols, 1)` (rows would overlap).
#[track_caller]
fn extent(f: &str, ld_name: &str, rows: usize, cols: usize, ld: usize) -> usize {
    assert!(ld >= cols.max(1), "reference::{f}: `{ld_name}` = {ld}, must be at least max({cols}, 1)");
    if rows == 0 || cols == 0 {
        return 0;
    }
    product(f, ld_name, &[rows - 1, ld])
        .checked_add(cols)
        .unwrap_or_else(|| panic!("reference::{f}: `{ld_name}` = {ld} overflows usize"))
}

/// Panics unless `len` is at least `needed` elements.
#[track_caller]
fn at_least(f: &str, arg: &str, len: usize, needed: usize) {
    assert!(len >= needed, "reference::{f}: `{arg}` has {len} elements, needs at least {needed}");
}

/// `c[i] = a[i] + b[i]`.
///
/// # Panics
/// When `b` has another length than `a`.
pub fn vec_add(a: &[f32], b: &[f32]) -> Vec<f32> {
    assert_eq!(b.len(), a.len(), "reference::vec_add: `b` has {} elements, `a` {}", b.len(), a.len());
    a.par_iter().zip(b).map(|(x, y)| x + y).collect()
}

/// Serial transpose: `out (nx, ny)` from `input (ny, nx)`, row-major.
///
/// # Panics
/// When `input` does not hold exactly `nx · ny` elements.
pub fn transpose_serial<T: Copy + Default>(input: &[T], nx: usize, ny: usize) -> Vec<T> {
    transpose_check("transpose_serial", input.len(), nx, ny);
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
///
/// # Panics
/// When `input` does not hold exactly `nx · ny` elements.
pub fn transpose<T: Copy + Default + Send + Sync>(input: &[T], nx: usize, ny: usize) -> Vec<T> {
    transpose_check("transpose", input.len(), nx, ny);
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

#[track_caller]
fn transpose_check(f: &str, len: usize, nx: usize, ny: usize) {
    let n = product(f, "nx * ny", &[nx, ny]);
    assert_eq!(len, n, "reference::{f}: `input` has {len} elements, nx * ny = {nx} * {ny} = {n}");
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

impl GemmShape {
    /// Checks `a`, `b` and `c` against the shape (see [`sgemm_f64`]'s
    /// `# Panics`).
    #[track_caller]
    fn check(&self, f: &str, a: usize, b: usize, c: usize) {
        at_least(f, "a", a, extent(f, "lda", self.m, self.k, self.lda));
        at_least(f, "b", b, extent(f, "ldb", self.k, self.n, self.ldb));
        at_least(f, "c", c, extent(f, "ldc", self.m, self.n, self.ldc));
    }
}

/// `C = αAB + βC` with f64 accumulation: the precision reference.
/// Returns C in f64 (elements between rows, `ldc > n`, are copied from `c`).
///
/// # Panics
/// When a leading dimension is below its row length (`lda < max(k, 1)`,
/// `ldb < max(n, 1)`, `ldc < max(n, 1)`), or `a`, `b`, `c` hold fewer
/// elements than the `m × k`, `k × n`, `m × n` matrices span
/// (`(rows − 1) · ld + cols`).
pub fn sgemm_f64(s: GemmShape, alpha: f32, a: &[f32], b: &[f32], beta: f32, c: &[f32]) -> Vec<f64> {
    s.check("sgemm_f64", a.len(), b.len(), c.len());
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

/// Rayon-blocked f32 SGEMM (the fast CPU path, for big sizes): `c`
/// becomes `αAB + βC`.
///
/// # Panics
/// As [`sgemm_f64`].
pub fn sgemm_f32(s: GemmShape, alpha: f32, a: &[f32], b: &[f32], beta: f32, c: &mut [f32]) {
    s.check("sgemm_f32", a.len(), b.len(), c.len());
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

/// A general GEMM for [`gemm_f64`]: `C = act(α·op(A)·op(B) + β·C + bias)`
/// over a strided batch, operands stored transposed or not (the layout
/// conventions of [`crate::gemm::Gemm`]).
#[derive(Clone, Debug)]
pub struct GemmSpec {
    /// Rows of `C`.
    pub m: usize,
    /// Columns of `C`.
    pub n: usize,
    /// Inner dimension.
    pub k: usize,
    /// Leading dimension of the stored `A` (`m × k`, or `k × m` with `ta`).
    pub lda: usize,
    /// Leading dimension of the stored `B` (`k × n`, or `n × k` with `tb`).
    pub ldb: usize,
    /// Leading dimension of `C`.
    pub ldc: usize,
    /// `A` stored transposed.
    pub ta: bool,
    /// `B` stored transposed.
    pub tb: bool,
    /// Matrices.
    pub batch: usize,
    /// Elements between the batch's matrices of `A`, `B`, `C`.
    pub strides: [usize; 3],
    /// Scale of the product.
    pub alpha: f64,
    /// Scale of the old `C` (0: `C` is not read).
    pub beta: f64,
    /// The activation, applied last.
    pub activation: crate::gemm::Activation,
}

/// The general GEMM of `spec` in f64 on inputs already converted to f64
/// (exactly: bf16, f16 and f32 values all are f64 values; round to tf32
/// first to model tf32), with an optional `bias` (`n` elements). Returns
/// the whole `c` buffer in f64, elements outside the matrices copied.
///
/// # Panics
/// When a buffer holds fewer elements than the batch reaches, or `bias`
/// fewer than `n`.
pub fn gemm_f64(spec: &GemmSpec, a: &[f64], b: &[f64], c: &[f64], bias: Option<&[f64]>) -> Vec<f64> {
    let s = spec;
    let reach = |stride: usize, rows: usize, cols: usize, ld: usize| (s.batch - 1) * stride + (rows - 1) * ld + cols;
    let (ar, ac) = if s.ta { (s.k, s.m) } else { (s.m, s.k) };
    let (br, bc) = if s.tb { (s.n, s.k) } else { (s.k, s.n) };
    at_least("gemm_f64", "a", a.len(), reach(s.strides[0], ar, ac, s.lda));
    at_least("gemm_f64", "b", b.len(), reach(s.strides[1], br, bc, s.ldb));
    at_least("gemm_f64", "c", c.len(), reach(s.strides[2], s.m, s.n, s.ldc));
    if let Some(bias) = bias {
        at_least("gemm_f64", "bias", bias.len(), s.n);
    }
    let mut out = c.to_vec();
    for batch in 0..s.batch {
        let (oa, ob, oc) = (batch * s.strides[0], batch * s.strides[1], batch * s.strides[2]);
        let rows: Vec<Vec<f64>> = (0..s.m)
            .into_par_iter()
            .map(|i| {
                let mut acc = vec![0f64; s.n];
                for p in 0..s.k {
                    let av = a[oa + if s.ta { p * s.lda + i } else { i * s.lda + p }];
                    for (j, x) in acc.iter_mut().enumerate() {
                        *x += av * b[ob + if s.tb { j * s.ldb + p } else { p * s.ldb + j }];
                    }
                }
                acc
            })
            .collect();
        for (i, acc) in rows.iter().enumerate() {
            for (j, &v) in acc.iter().enumerate() {
                let o = oc + i * s.ldc + j;
                let old = if s.beta == 0.0 { 0.0 } else { s.beta * c[o] };
                let v = s.alpha * v + old + bias.map_or(0.0, |b| b[j]);
                out[o] = s.activation.apply_f64(v);
            }
        }
    }
    out
}

/// ‖got − want‖₂ / ‖want‖₂ in f64; `inf` when `got` holds a NaN or the
/// lengths differ. The measure every GEMM test uses.
///
/// # Panics
/// Never: a mismatch is a failed comparison (`inf`), not a caller's bug.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(m: usize, n: usize, k: usize) -> GemmShape {
        GemmShape { m, n, k, lda: k, ldb: n, ldc: n }
    }

    #[test]
    #[should_panic(expected = "reference::vec_add: `b` has 2 elements, `a` 3")]
    fn vec_add_refuses_lengths_that_differ() {
        vec_add(&[1.0, 2.0, 3.0], &[1.0, 2.0]);
    }

    #[test]
    #[should_panic(expected = "reference::transpose_serial: `input` has 7 elements, nx * ny = 2 * 3 = 6")]
    fn transpose_serial_refuses_a_longer_input() {
        transpose_serial(&[0.5f32; 7], 2, 3);
    }

    #[test]
    #[should_panic(expected = "reference::transpose: `input` has 5 elements, nx * ny = 2 * 3 = 6")]
    fn transpose_refuses_a_shorter_input() {
        transpose(&[0.5f32; 5], 2, 3);
    }

    #[test]
    #[should_panic(expected = "reference::transpose: `nx * ny` = [18446744073709551615, 2] overflows usize")]
    fn transpose_refuses_an_overflowing_shape() {
        transpose(&[0.5f32; 5], usize::MAX, 2);
    }

    #[test]
    #[should_panic(expected = "reference::sgemm_f64: `c` has 11 elements, needs at least 12")]
    fn sgemm_f64_refuses_a_short_c() {
        let (a, b) = (vec![0.25; 3 * 2], vec![0.5; 2 * 4]);
        sgemm_f64(shape(3, 4, 2), 1.0, &a, &b, 1.0, &[1.0; 11]);
    }

    #[test]
    #[should_panic(expected = "reference::sgemm_f64: `a` has 5 elements, needs at least 6")]
    fn sgemm_f64_refuses_a_short_a() {
        sgemm_f64(shape(3, 4, 2), 1.0, &[0.25; 5], &[0.5; 8], 0.0, &[1.0; 12]);
    }

    #[test]
    #[should_panic(expected = "reference::sgemm_f32: `b` has 7 elements, needs at least 8")]
    fn sgemm_f32_refuses_a_short_b() {
        sgemm_f32(shape(3, 4, 2), 1.0, &[0.25; 6], &[0.5; 7], 0.0, &mut [1.0; 12]);
    }

    #[test]
    #[should_panic(expected = "reference::sgemm_f32: `ldc` = 3, must be at least max(4, 1)")]
    fn sgemm_f32_refuses_overlapping_rows() {
        let s = GemmShape { ldc: 3, ..shape(3, 4, 2) };
        sgemm_f32(s, 1.0, &[0.25; 6], &[0.5; 8], 0.0, &mut [1.0; 12]);
    }

    #[test]
    fn sgemm_references_accept_padded_leading_dimensions() {
        // The last row of each matrix needs only `cols` elements, not `ld`.
        let (m, n, k) = (3, 4, 2);
        let s = GemmShape { m, n, k, lda: k + 1, ldb: n + 2, ldc: n + 3 };
        let a: Vec<f32> = (0..(m - 1) * s.lda + k).map(|i| 0.5 + i as f32).collect();
        let b: Vec<f32> = (0..(k - 1) * s.ldb + n).map(|i| 1.5 - i as f32).collect();
        let c: Vec<f32> = (0..(m - 1) * s.ldc + n).map(|i| 0.25 * i as f32).collect();
        let want = sgemm_f64(s, 2.0, &a, &b, 0.5, &c);
        let mut got = c.clone();
        sgemm_f32(s, 2.0, &a, &b, 0.5, &mut got);
        assert!(rel_norm_error(&got, &want) < 1e-6);
        // Entry (1, 2) by the definition; padding copied from c.
        let c12 = 2.0 * (a[s.lda] * b[2] + a[s.lda + 1] * b[s.ldb + 2]) + 0.5 * c[s.ldc + 2];
        assert_eq!(want[s.ldc + 2], c12 as f64);
        assert_eq!(want[n], c[n] as f64);
    }

    #[test]
    fn rel_norm_error_scores_a_length_mismatch_as_inf() {
        assert_eq!(rel_norm_error(&[1.0, 2.0], &[1.0]), f64::INFINITY);
    }
}
