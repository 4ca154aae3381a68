//! Property tests: on random shapes, the emulated kernels equal the CPU
//! references (exactly for data movement, to rounding for SGEMM).

use ferrotile::gemm::{Gemm, GemmVariant};
use ferrotile::reference::{self, GemmShape};
use ferrotile::transpose::Transpose;
use ferrotile::Context;
use proptest::prelude::*;

fn data(n: usize, seed: u64) -> Vec<f32> {
    (0..n).map(|i| ((((i as u64 + 1) * 2654435761) ^ seed) % 2001) as f32 / 1000.0 - 1.0001).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn vec_add_matches_reference(n in 1usize..5000, seed in any::<u64>()) {
        let ctx = Context::emulator();
        let (a, b) = (data(n, seed), data(n, !seed));
        let (da, db) = (ctx.upload(&a).unwrap(), ctx.upload(&b).unwrap());
        let mut dc = ctx.alloc::<f32>(n).unwrap();
        dc.fill(f32::NAN).unwrap();
        ferrotile::vec_add(&ctx, &da, &db, &mut dc).unwrap();
        prop_assert_eq!(dc.download().unwrap(), reference::vec_add(&a, &b));
    }

    #[test]
    fn transpose_matches_reference(nx in 1usize..90, ny in 1usize..90, seed in any::<u64>()) {
        let ctx = Context::emulator();
        let a = data(nx * ny, seed);
        let da = ctx.upload(&a).unwrap();
        let mut out = ctx.alloc::<f32>(nx * ny).unwrap();
        out.fill(f32::NAN).unwrap();
        Transpose::new(nx, ny).run(&ctx, &da, &mut out).unwrap();
        prop_assert_eq!(out.download().unwrap(), reference::transpose_serial(&a, nx, ny));
    }

    #[test]
    fn naive_sgemm_matches_f64_reference(m in 1usize..40, n in 1usize..40, k in 1usize..40, beta in prop::sample::select(vec![0.0f32, 1.0, -0.5])) {
        let ctx = Context::emulator();
        let s = GemmShape { m, n, k, lda: k, ldb: n, ldc: n };
        let (a, b, c) = (data(m * k, 1), data(k * n, 2), data(m * n, 3));
        let (da, db) = (ctx.upload(&a).unwrap(), ctx.upload(&b).unwrap());
        let mut dc = ctx.upload(&c).unwrap();
        Gemm::new(m, n, k).alpha(0.75).beta(beta).variant(GemmVariant::Naive).run(&ctx, &da, &db, &mut dc).unwrap();
        let want = reference::sgemm_f64(s, 0.75, &a, &b, beta, &c);
        let e = reference::rel_norm_error(&dc.download().unwrap(), &want);
        prop_assert!(e < 1e-5, "relative norm error {}", e);
    }
}

#[test]
fn no_device_is_a_typed_error_not_a_panic() {
    // On a machine without a driver this is NoDriver/NoDevice; with one it
    // succeeds. Either way nothing panics.
    match Context::cuda(0) {
        Ok(ctx) => assert_eq!(ctx.backend(), ferrotile::Backend::Cuda),
        Err(e) => assert!(matches!(e, ferrotile::Error::NoDriver | ferrotile::Error::NoDevice), "{e}"),
    }
    assert!(Context::cuda(1_000).is_err());
}
