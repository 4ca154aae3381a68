//! Shared helpers of the kernel tests: seeded random data, poison, checks.

#![allow(dead_code)]

pub mod gpu;

use ferrotile::{Buffer, Context, Element};

/// A case's body: runs on a context, `Err` says what is wrong.
pub type CaseFn = Box<dyn Fn(&Context) -> Result<(), String> + Send + Sync>;

/// A test case: one body, run on every backend.
pub struct Case {
    /// Name shown by the harness (`<family>::<what>`).
    pub name: String,
    /// Also run on the emulator (false for sizes only the GPU can do fast).
    pub emulator: bool,
    /// The compute capability the CUDA run needs (the sm_90a kernels: 9.0);
    /// on another GPU the `cuda::` test is reported ignored.
    pub needs_cc: Option<(i32, i32)>,
    /// The body.
    pub run: CaseFn,
}

impl Case {
    /// A case for both backends.
    pub fn new(name: impl Into<String>, run: impl Fn(&Context) -> Result<(), String> + Send + Sync + 'static) -> Self {
        Case { name: name.into(), emulator: true, needs_cc: None, run: Box::new(run) }
    }
    /// A case for the GPU only (too large for the emulator in CI).
    pub fn gpu_only(name: impl Into<String>, run: impl Fn(&Context) -> Result<(), String> + Send + Sync + 'static) -> Self {
        Case { name: name.into(), emulator: false, needs_cc: None, run: Box::new(run) }
    }
    /// This case, run on CUDA only on a GPU of compute capability `cc`.
    pub fn on_cc(self, cc: (i32, i32)) -> Self {
        Case { needs_cc: Some(cc), ..self }
    }
}

/// Seeded test data (never zero floats).
pub use ferrotile::testing::Rng;

/// Seed from the case name, so every case draws its own inputs: the FNV-1a
/// hash of the name (stable across Rust releases, unlike std's hasher).
pub fn seed(name: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = fnv::FnvHasher::default();
    h.write(name.as_bytes());
    h.finish()
}

/// Uploads `data`, mapping the error to a string.
pub fn up<T: Element>(ctx: &Context, data: &[T]) -> Result<Buffer<T>, String> {
    ctx.upload(data).map_err(|e| e.to_string())
}

/// An output buffer of `n` elements filled with `poison`, so that an
/// element the kernel does not write fails the comparison.
pub fn poisoned<T: Element>(ctx: &Context, n: usize, poison: T) -> Result<Buffer<T>, String> {
    let mut b = ctx.alloc::<T>(n).map_err(|e| e.to_string())?;
    b.fill(poison).map_err(|e| e.to_string())?;
    Ok(b)
}

pub fn down<T: Element>(b: &Buffer<T>) -> Result<Vec<T>, String> {
    b.download().map_err(|e| e.to_string())
}

/// Exact equality, reporting the first differing index.
pub fn exact<T: PartialEq + std::fmt::Debug>(what: &str, got: &[T], want: &[T]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{what}: length {} != {}", got.len(), want.len()));
    }
    match got.iter().zip(want).position(|(g, w)| g != w) {
        None => Ok(()),
        Some(i) => Err(format!(
            "{what}: element {i} is {:?}, expected {:?} ({} of {} elements differ)",
            got[i],
            want[i],
            got.iter().zip(want).filter(|(g, w)| g != w).count(),
            got.len()
        )),
    }
}

/// Bit-exact f32 equality (a NaN poison never passes).
pub fn exact_f32(what: &str, got: &[f32], want: &[f32]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{what}: length {} != {}", got.len(), want.len()));
    }
    match got.iter().zip(want).position(|(g, w)| g.to_bits() != w.to_bits()) {
        None => Ok(()),
        Some(i) => Err(format!(
            "{what}: element {i} is {}, expected {} ({} of {} elements differ)",
            got[i],
            want[i],
            got.iter().zip(want).filter(|(g, w)| g.to_bits() != w.to_bits()).count(),
            got.len()
        )),
    }
}

/// Relative norm error against an f64 reference, within `tol`.
pub fn close(what: &str, got: &[f32], want: &[f64], tol: f64) -> Result<(), String> {
    let e = ferrotile::reference::rel_norm_error(got, want);
    if e <= tol { Ok(()) } else { Err(format!("{what}: relative norm error {e:.3e} > {tol:.0e}")) }
}
