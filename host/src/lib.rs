//! ferrotile: CUDA kernels written in Rust.
//!
//! The kernels live in the `#![no_std]` crate `ferrotile-kernels`, compiled
//! to PTX (committed under `host/ptx/`, embedded here) and, for the CPU
//! emulator, to the host. This crate launches them:
//!
//! ```
//! use ferrotile::{Context, Result};
//! # fn main() -> Result<()> {
//! let ctx = Context::auto(); // CUDA when a device is there, else the emulator
//! let a = ctx.upload(&[1.0f32, 2.0, 3.0])?;
//! let b = ctx.upload(&[10.0f32, 20.0, 30.0])?;
//! let mut c = ctx.alloc::<f32>(3)?;
//! ferrotile::vec_add(&ctx, &a, &b, &mut c)?;
//! assert_eq!(c.download()?, vec![11.0, 22.0, 33.0]);
//! # Ok(()) }
//! ```
//!
//! Every public function validates its arguments before it launches
//! anything and returns [`Error::BadArgument`] / [`Error::LengthMismatch`]
//! naming the argument. Results are checked in the tests against the CPU
//! references in [`mod@reference`].

#![deny(missing_docs)]

mod backend;
#[cfg(feature = "cust")]
mod cust_interop;
mod error;
mod interop;
#[macro_use]
mod launch;
pub mod stream;
pub mod cublas;
pub mod gemm;
pub mod image;
pub mod multi;
#[cfg(ferrotile_experiments)]
pub mod probe;
pub mod reference;
pub mod testing;
pub mod transpose;
mod vec_add;
#[doc(hidden)]
pub mod workload;

pub use backend::{Backend, Buffer, Context, DeviceInfo, Element};
pub use interop::DEVICE_ALIGN;
pub use stream::{Event, PinnedBuffer, Stream};
pub use error::{Error, Result};
pub use ferrotile_kernels as kernels;
/// The `half` crate whose `bf16` and `f16` are this crate's 16-bit
/// [`Element`]s (use these types, not another version's).
pub use half;
/// The `cudarc` crate ferrotile runs CUDA through: its `CudaSlice`,
/// `CudaStream` and `CudaContext` are what [`Buffer::from_cudarc`],
/// [`Buffer::into_cudarc`] and [`Context::cudarc_stream`] take and return.
pub use cudarc;
/// The `cust` crate (feature `cust`) whose `DeviceSlice`, `DevicePointer`
/// and `Stream` [`Buffer::from_cust`], [`Buffer::cust_device_pointer`] and
/// [`Context::wait_for_cust`] take and return.
#[cfg(feature = "cust")]
pub use cust;
pub use ferrotile_kernels::launch::LaunchConfig;
pub use vec_add::{vec_add, vec_add_with, VecAddVariant};

/// Validation helpers shared by the public functions.
pub(crate) mod check {
    use crate::{Buffer, Element, Error, Result};

    /// A dimension must be ≥ 1 and fit the kernels' `u32` indices.
    pub fn dim(arg: &'static str, v: usize) -> Result<u32> {
        if v == 0 {
            return Err(Error::BadArgument { arg, detail: "0, must be at least 1".into() });
        }
        u32::try_from(v).map_err(|_| Error::BadArgument {
            arg,
            detail: format!("{v} does not fit the kernels' 32-bit indices"),
        })
    }

    /// A buffer must hold exactly `expected` elements.
    pub fn len<T: Element>(arg: &'static str, b: &Buffer<T>, expected: usize) -> Result<()> {
        if b.len() != expected {
            return Err(Error::LengthMismatch { arg, expected, actual: b.len() });
        }
        Ok(())
    }

    /// A buffer must hold at least `needed` elements.
    pub fn len_at_least<T: Element>(arg: &'static str, b: &Buffer<T>, needed: usize) -> Result<()> {
        if b.len() < needed {
            return Err(Error::LengthMismatch { arg, expected: needed, actual: b.len() });
        }
        Ok(())
    }

    /// Every buffer must belong to the context (`on`: each argument's name
    /// and whether its buffer was allocated on `ctx`).
    pub fn backend(ctx: &crate::Context, on: &[(&'static str, bool)]) -> Result<()> {
        match on.iter().find(|(_, ok)| !ok) {
            Some((arg, _)) => Err(Error::BadArgument {
                arg,
                detail: format!(
                    "buffer belongs to another context than the one given ({:?}): buffers are usable only on the context that allocated them",
                    ctx.backend()
                ),
            }),
            None => Ok(()),
        }
    }

    /// `rows * cols` elements, or an error if that overflows.
    pub fn product(arg: &'static str, dims: &[usize]) -> Result<usize> {
        dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)).ok_or_else(|| Error::BadArgument {
            arg,
            detail: format!("{dims:?} has more elements than memory can address"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::check;
    use crate::Error;

    /// Lengths and dimensions past the kernels' 32-bit indices are a typed
    /// error naming the argument and the size (`vec_add`'s `a` among them:
    /// the bad-input matrix cannot allocate a 16 GiB buffer in CI).
    #[test]
    fn dimensions_past_u32_are_refused_with_the_size() {
        match check::dim("a", 1 << 32) {
            Err(Error::BadArgument { arg: "a", detail }) => assert!(detail.contains("4294967296"), "{detail}"),
            other => panic!("{other:?}"),
        }
        match check::dim("n", 0) {
            Err(Error::BadArgument { arg: "n", detail }) => assert!(detail.starts_with('0'), "{detail}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(check::dim("m", u32::MAX as usize), Ok(u32::MAX));
    }
}
