//! The README's library example, compiled and run.

#[test]
fn readme_example() {
    main().unwrap();
}

use ferrotile::gemm::{Activation, Gemm};
use ferrotile::Context;
use half::bf16;

fn main() -> ferrotile::Result<()> {
    let ctx = Context::emulator(); // Context::auto(): CUDA device 0, else the emulator
    let (m, n, k) = (64, 48, 32);

    // f32 on CUDA cores: C = 2·A·B.
    let a = ctx.upload(&vec![1.0f32; m * k])?;
    let b = ctx.upload(&vec![0.5f32; k * n])?;
    let mut c = ctx.alloc::<f32>(m * n)?;
    Gemm::new(m, n, k).alpha(2.0).run(&ctx, &a, &b, &mut c)?;
    assert_eq!(c.download()?[0], 32.0);

    // bf16 on tensor cores, f32 out, with a fused bias and GELU.
    let a16 = ctx.upload(&vec![bf16::from_f32(1.0); m * k])?;
    let b16 = ctx.upload(&vec![bf16::from_f32(0.5); k * n])?;
    let bias = ctx.upload(&vec![-16.0f32; n])?;
    Gemm::new(m, n, k).activation(Activation::Relu).run_with_bias(&ctx, &a16, &b16, &bias, &mut c)?;
    assert_eq!(c.download()?[0], 0.0);

    // A bad argument is a typed error naming it; nothing was launched.
    let err = Gemm::new(m, n, 0).run(&ctx, &a, &b, &mut c).unwrap_err();
    assert!(err.to_string().contains("`k`"));
    Ok(())
}
