//! The one error type of the public API.

use std::fmt;

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in ferrotile.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// The CUDA driver library (`libcuda.so.1`) could not be loaded.
    NoDriver,
    /// The driver is there but reports no CUDA device.
    NoDevice,
    /// An optional runtime library (e.g. `libcublas`) could not be loaded;
    /// the rest of ferrotile works without it.
    LibraryMissing {
        /// The library (`"cuBLAS"`).
        library: &'static str,
        /// What was tried and how to install it.
        detail: String,
    },
    /// A driver call failed.
    Driver {
        /// What was being done.
        op: &'static str,
        /// The driver's message.
        detail: String,
    },
    /// Device memory is exhausted; the context stays usable.
    OutOfMemory {
        /// Bytes asked for.
        bytes: usize,
    },
    /// A kernel could not be launched: the launch configuration is beyond
    /// the device's limits (caught before launching) or the driver refused
    /// it. The detail names the configuration (grid, block, shared bytes).
    Launch {
        /// The kernel.
        kernel: &'static str,
        /// The launch configuration and what was wrong with it.
        detail: String,
    },
    /// The device faulted (an illegal address, a trapped kernel, a
    /// hardware exception): a *sticky* error. The CUDA context cannot be
    /// used again: every later call on it (and on every `Context` of the
    /// same device in this process, which share the device's primary
    /// context) returns this error, and [`Context::fault`](crate::Context::fault)
    /// says what happened first. Nothing in the process can repair it;
    /// results computed since the last successful synchronisation are lost.
    /// Restart the process (or use the emulator).
    DeviceFault {
        /// What was being done when the fault was reported (faults are
        /// reported by the next call that waits for the device, not
        /// necessarily by the launch that caused them).
        op: &'static str,
        /// The driver's message.
        detail: String,
    },
    /// The emulator found a fault (out-of-bounds access, shared-memory race,
    /// divergent barrier) in a kernel.
    Emulator {
        /// The kernel.
        kernel: &'static str,
        /// What, where (block, thread, buffer, index).
        detail: String,
    },
    /// An argument is invalid.
    BadArgument {
        /// The argument's name.
        arg: &'static str,
        /// Why.
        detail: String,
    },
    /// A buffer does not have the length the other arguments imply.
    LengthMismatch {
        /// The argument's name.
        arg: &'static str,
        /// Elements needed.
        expected: usize,
        /// Elements given.
        actual: usize,
    },
    /// Reading or writing a file failed (CLI helpers).
    Io {
        /// The path.
        path: String,
        /// The message.
        detail: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoDriver => write!(
                f,
                "no CUDA driver: libcuda.so.1 could not be loaded (install the NVIDIA driver, or use the emulator backend)"
            ),
            Error::NoDevice => write!(f, "the CUDA driver reports no device"),
            Error::LibraryMissing { library, detail } => write!(f, "{library} is not available: {detail}"),
            Error::Driver { op, detail } => write!(f, "CUDA driver error while {op}: {detail}"),
            Error::OutOfMemory { bytes } => write!(f, "out of device memory allocating {bytes} bytes"),
            Error::Launch { kernel, detail } => write!(f, "kernel `{kernel}` failed: {detail}"),
            Error::DeviceFault { op, detail } => write!(
                f,
                "the device faulted ({detail}), reported while {op}; the CUDA context is unusable from now on (restart the process)"
            ),
            Error::Emulator { kernel, detail } => write!(f, "emulator fault in `{kernel}`: {detail}"),
            Error::BadArgument { arg, detail } => write!(f, "invalid argument `{arg}`: {detail}"),
            Error::LengthMismatch { arg, expected, actual } => {
                write!(f, "invalid argument `{arg}`: expected {expected} elements, got {actual}")
            }
            Error::Io { path, detail } => write!(f, "{path}: {detail}"),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_missing_names_the_library() {
        let e = Error::LibraryMissing { library: "cuBLAS", detail: "libcublas.so could not be opened".into() };
        assert_eq!(e.to_string(), "cuBLAS is not available: libcublas.so could not be opened");
    }
}
