//! Criterion benchmark of the transpose at 8192² f32: the copy ceiling, the
//! padded tile (rung 4) and the default variant. Needs a CUDA device;
//! without one it prints a note and measures nothing.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ferrotile::transpose::{SmemConfig, Transpose, TransposeVariant};
use ferrotile::Context;

fn bench(c: &mut Criterion) {
    let ctx = match Context::cuda(0) {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("criterion_transpose: no CUDA device ({e}); skipping");
            return;
        }
    };
    let (nx, ny) = (8192usize, 8192usize);
    let n = nx * ny;
    let data: Vec<f32> = (0..n).map(|i| (i % 1021) as f32 + 0.5).collect();
    let (Ok(input), Ok(mut output)) = (ctx.upload(&data), ctx.alloc::<f32>(n)) else {
        eprintln!("criterion_transpose: cannot allocate 2 x {} MiB; skipping", (n * 4) >> 20);
        return;
    };
    let mut g = c.benchmark_group(format!("transpose_{nx}x{ny}"));
    g.throughput(Throughput::Bytes(8 * n as u64));
    g.bench_function("copy_dtod", |b| {
        b.iter(|| {
            output.copy_from_buffer(&input).unwrap();
            ctx.synchronize().unwrap();
        })
    });
    let default = Transpose::new(nx, ny);
    for (label, t) in [
        ("smem_pad", Transpose::new(nx, ny).variant(TransposeVariant::Smem(SmemConfig::Pad))),
        ("default", default),
    ] {
        g.bench_function(format!("{label} ({})", t.resolved_variant().name()), |b| {
            b.iter(|| {
                t.run(&ctx, &input, &mut output).unwrap();
                ctx.synchronize().unwrap();
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    targets = bench
}
criterion_main!(benches);
