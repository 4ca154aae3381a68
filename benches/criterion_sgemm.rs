//! Criterion benchmark of a few SGEMM rungs and cuBLAS at 4096³ (CUDA).
//! Without a CUDA device it prints a note and measures nothing.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ferrotile::cublas::Cublas;
use ferrotile::gemm::{Gemm, GemmVariant, WarpConfig};
use ferrotile::Context;

const N: usize = 4096;

fn bench(c: &mut Criterion) {
    let ctx = match Context::cuda(0) {
        Ok(ctx) => ctx,
        Err(e) => {
            println!("criterion_sgemm: no CUDA device ({e}); nothing to measure.");
            return;
        }
    };
    let data: Vec<f32> = (0..N * N).map(|i| ((i * 7919 % 2003) as f32 / 1001.0) - 1.0 + 1e-3).collect();
    let (a, b, mut out) = match (ctx.upload(&data), ctx.upload(&data), ctx.alloc::<f32>(N * N)) {
        (Ok(a), Ok(b), Ok(o)) => (a, b, o),
        _ => {
            println!("criterion_sgemm: could not allocate 3 × {N}² floats");
            return;
        }
    };
    let mut g = c.benchmark_group(format!("sgemm_{N}"));
    g.throughput(Throughput::Elements((2 * N * N * N) as u64)); // flops
    for v in [GemmVariant::Vectorized, GemmVariant::DoubleBuffered, GemmVariant::Warptile(WarpConfig::B128x128x8W32x128Lb2), GemmVariant::Auto] {
        let gemm = Gemm::new(N, N, N).variant(v);
        g.bench_function(v.name(), |bch| {
            bch.iter(|| {
                gemm.run(&ctx, &a, &b, &mut out).expect("sgemm");
                ctx.synchronize().expect("sync");
            })
        });
    }
    match Cublas::new(&ctx) {
        Ok(cb) => {
            let gemm = Gemm::new(N, N, N);
            g.bench_function("cublas", |bch| {
                bch.iter(|| {
                    cb.sgemm(&ctx, &gemm, &a, &b, &mut out).expect("cublas");
                    ctx.synchronize().expect("sync");
                })
            });
        }
        Err(e) => println!("criterion_sgemm: no cuBLAS ({e})"),
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
