//! Criterion view of a few image rungs at 8192² and vector add at 2^26
//! (wall clock with a device synchronisation inside each iteration). The
//! table with copy-bandwidth ratios is `benches/image.rs`. Without CUDA it
//! prints a note and exits 0.

use criterion::{Criterion, Throughput};
use ferrotile::image::{self, BlurVariant, DeviceImage, GrayVariant, HostImage};
use ferrotile::{Context, VecAddVariant};

fn benches(c: &mut Criterion, ctx: &Context) -> ferrotile::Result<()> {
    let (w, h) = (8192usize, 8192usize);
    let px = w * h;
    let bytes = ferrotile::testing::random_u8(3 * px, 1);
    let src = DeviceImage::upload(ctx, &HostImage::new(w, h, 3, bytes)?)?;
    let mut gray = DeviceImage::alloc(ctx, w, h, 1)?;
    let mut g = c.benchmark_group("image_8192x8192");
    g.sample_size(10).measurement_time(std::time::Duration::from_secs(2));
    g.throughput(Throughput::Bytes(4 * px as u64));
    for &v in GrayVariant::ALL {
        g.bench_function(v.name(), |b| {
            b.iter(|| image::rgb_to_gray_with(ctx, v, &src, &mut gray).and_then(|_| ctx.synchronize()).expect("gray"))
        });
    }
    let mut out = DeviceImage::alloc(ctx, w, h, 1)?;
    g.throughput(Throughput::Bytes(2 * px as u64));
    for r in [1u32, 3] {
        for v in [BlurVariant::Tiled, BlurVariant::Fast, BlurVariant::Sliding] {
            g.bench_function(format!("{}_gray_r{r}", v.name()), |b| {
                b.iter(|| image::blur_with(ctx, v, &gray, &mut out, r).and_then(|_| ctx.synchronize()).expect("blur"))
            });
        }
    }
    g.finish();

    let n = 1usize << 26;
    let a = ctx.upload(&vec![1.5f32; n])?;
    let bb = ctx.upload(&vec![2.25f32; n])?;
    let mut cc = ctx.alloc::<f32>(n)?;
    let mut g = c.benchmark_group("vec_add_2^26");
    g.sample_size(10).measurement_time(std::time::Duration::from_secs(2));
    g.throughput(Throughput::Bytes(12 * n as u64));
    for &v in VecAddVariant::ALL {
        g.bench_function(v.name(), |b| {
            b.iter(|| ferrotile::vec_add_with(ctx, v, &a, &bb, &mut cc).and_then(|_| ctx.synchronize()).expect("vec_add"))
        });
    }
    g.finish();
    Ok(())
}

fn main() {
    let ctx = match Context::cuda(0) {
        Ok(c) => c,
        Err(e) => {
            println!("criterion_image: no CUDA backend ({e}); nothing to measure.");
            return;
        }
    };
    let mut c = Criterion::default().configure_from_args();
    if let Err(e) = benches(&mut c, &ctx) {
        println!("criterion_image: error: {e}");
        std::process::exit(1);
    }
    c.final_summary();
}
