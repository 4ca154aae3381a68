//! The start-up decision every GPU test binary makes: with a CUDA device
//! its `cuda::` trials run; without one they are reported ignored (never
//! passed), unless `FERROTILE_REQUIRE_GPU=1` (the GPU bundle sets it) makes
//! them run and fail. Included by `tests/common/mod.rs` and, by path, by
//! the test binaries that do not use the rest of `common`.

/// Whether `FERROTILE_REQUIRE_GPU=1`.
pub fn require_gpu() -> bool {
    std::env::var("FERROTILE_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// Whether the `cuda::` trials of `binary` are ignored, given how opening
/// the CUDA context went; says why on stderr when there is no device.
pub fn cuda_ignored<T>(binary: &str, cuda: &ferrotile::Result<T>) -> bool {
    let require = require_gpu();
    if let Err(why) = cuda {
        eprintln!("{binary}: no CUDA backend ({why}); the cuda:: trials are {}", if require { "failing" } else { "ignored" });
    }
    cuda.is_err() && !require
}
