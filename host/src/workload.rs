//! Mixed, verified workloads for the stress and soak runs (issue 16,
//! parts 5 and 6): one call of a public function on fresh buffers with
//! seeded random inputs and odd shapes, checked against the CPU reference.
//! Shared by `tests/cases/stress.rs` and the `soak` bench program.

use crate::gemm::Gemm;
use crate::image::{self, cpu, DeviceImage, HostImage};
use crate::reference::{gemm_f64, rel_norm_error, GemmSpec};
use crate::testing::Rng;
use crate::transpose::Transpose;
use crate::{Context, Error};

/// One kind of verified call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    /// f32 GEMM (the ladder, `Auto`), against the f64 reference.
    GemmF32,
    /// bf16 → f32 GEMM (tensor cores: mma, or wgmma on a Hopper GPU),
    /// against the f64 reference of the bf16 inputs.
    GemmBf16,
    /// Transpose, bit-exact.
    Transpose,
    /// Box blur (gray or RGB, radius 1–3), bit-exact.
    Blur,
    /// Vector add, bit-exact.
    VecAdd,
}

impl Job {
    /// Every job, in the order a mixed run cycles through them.
    pub const ALL: &'static [Job] = &[Job::GemmF32, Job::Transpose, Job::GemmBf16, Job::Blur, Job::VecAdd];
}

/// Sizes: `Small` for the emulator (a few blocks), `Large` for a GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// Emulator-sized: tens of elements per side.
    Small,
    /// GPU-sized: hundreds per side (the CPU reference stays cheap).
    Large,
}

fn e(x: Error) -> String {
    x.to_string()
}

/// A side in `lo..=hi`.
fn side(r: &mut Rng, lo: usize, hi: usize) -> usize {
    lo + (r.next_u64() % (hi - lo + 1) as u64) as usize
}

/// Runs `job` once on `ctx` with inputs drawn from `seed`; `Err` names the
/// job, the shape and what differed.
pub fn run(ctx: &Context, job: Job, scale: Scale, seed: u64) -> Result<(), String> {
    let mut r = Rng::new(seed);
    let big = scale == Scale::Large;
    match job {
        Job::GemmF32 | Job::GemmBf16 => {
            let (m, n, k) = if big {
                (side(&mut r, 100, 300), side(&mut r, 100, 300), side(&mut r, 50, 200))
            } else {
                (side(&mut r, 1, 40), side(&mut r, 1, 40), side(&mut r, 1, 24))
            };
            let (a, b, c0) = (r.f32s(m * k), r.f32s(k * n), r.f32s(m * n));
            let g = Gemm::new(m, n, k).alpha(1.5).beta(0.5);
            let spec = GemmSpec {
                m,
                n,
                k,
                lda: k,
                ldb: n,
                ldc: n,
                ta: false,
                tb: false,
                batch: 1,
                strides: [m * k, k * n, m * n],
                alpha: 1.5,
                beta: 0.5,
                activation: Default::default(),
            };
            let mut c = ctx.upload(&c0).map_err(e)?;
            let (a64, b64, tol): (Vec<f64>, Vec<f64>, f64) = if job == Job::GemmF32 {
                let (da, db) = (ctx.upload(&a).map_err(e)?, ctx.upload(&b).map_err(e)?);
                g.run(ctx, &da, &db, &mut c).map_err(|x| format!("{job:?} {m}x{n}x{k}: {x}"))?;
                (a.iter().map(|&x| x as f64).collect(), b.iter().map(|&x| x as f64).collect(), 1e-5)
            } else {
                let a16: Vec<half::bf16> = a.iter().map(|&x| half::bf16::from_f32(x)).collect();
                let b16: Vec<half::bf16> = b.iter().map(|&x| half::bf16::from_f32(x)).collect();
                let (da, db) = (ctx.upload(&a16).map_err(e)?, ctx.upload(&b16).map_err(e)?);
                g.run(ctx, &da, &db, &mut c).map_err(|x| format!("{job:?} {m}x{n}x{k}: {x}"))?;
                (a16.iter().map(|x| x.to_f64()).collect(), b16.iter().map(|x| x.to_f64()).collect(), 1e-4)
            };
            let want = gemm_f64(&spec, &a64, &b64, &c0.iter().map(|&x| x as f64).collect::<Vec<_>>(), None);
            let err = rel_norm_error(&c.download().map_err(e)?, &want);
            if err > tol {
                return Err(format!("{job:?} {m}x{n}x{k}: relative norm error {err:.2e} > {tol:.0e}"));
            }
            Ok(())
        }
        Job::Transpose => {
            let (nx, ny) = if big { (side(&mut r, 300, 1100), side(&mut r, 300, 900)) } else { (side(&mut r, 1, 70), side(&mut r, 1, 50)) };
            let input = r.f32s(nx * ny);
            let di = ctx.upload(&input).map_err(e)?;
            let mut out = ctx.alloc::<f32>(nx * ny).map_err(e)?;
            out.fill(f32::NAN).map_err(e)?;
            Transpose::new(nx, ny).run(ctx, &di, &mut out).map_err(|x| format!("transpose {nx}x{ny}: {x}"))?;
            let want = crate::reference::transpose(&input, nx, ny);
            let got = out.download().map_err(e)?;
            match got.iter().zip(&want).position(|(g, w)| g.to_bits() != w.to_bits()) {
                None => Ok(()),
                Some(i) => Err(format!("transpose {nx}x{ny}: element {i} is {}, expected {}", got[i], want[i])),
            }
        }
        Job::Blur => {
            let (w, h) = if big { (side(&mut r, 200, 700), side(&mut r, 100, 500)) } else { (side(&mut r, 1, 48), side(&mut r, 1, 20)) };
            let c = if r.next_u64().is_multiple_of(2) { 1 } else { 3 };
            let radius = 1 + (r.next_u64() % 3) as u32;
            let img = HostImage::new(w, h, c, r.u8s(w * h * c)).map_err(e)?;
            let src = DeviceImage::upload(ctx, &img).map_err(e)?;
            let mut dst = DeviceImage::alloc(ctx, w, h, c).map_err(e)?;
            dst.fill(0xAB).map_err(e)?;
            image::blur(ctx, &src, &mut dst, radius).map_err(|x| format!("blur {w}x{h}x{c} r{radius}: {x}"))?;
            let (got, want) = (dst.download().map_err(e)?, cpu::blur(&img, radius));
            if got.data() != want.data() {
                return Err(format!("blur {w}x{h}x{c} r{radius}: output differs from the CPU reference"));
            }
            Ok(())
        }
        Job::VecAdd => {
            let n = if big { side(&mut r, 10_000, 300_000) } else { side(&mut r, 1, 3000) };
            let (a, b) = (r.f32s(n), r.f32s(n));
            let (da, db) = (ctx.upload(&a).map_err(e)?, ctx.upload(&b).map_err(e)?);
            let mut dc = ctx.alloc::<f32>(n).map_err(e)?;
            crate::vec_add(ctx, &da, &db, &mut dc).map_err(|x| format!("vec_add {n}: {x}"))?;
            let want = crate::reference::vec_add(&a, &b);
            if dc.download().map_err(e)? != want {
                return Err(format!("vec_add {n}: output differs from the CPU reference"));
            }
            Ok(())
        }
    }
}

/// The resident set size of this process in bytes (`VmRSS` of
/// `/proc/self/status`), where the system reports it.
pub fn host_rss_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: u64 = s.lines().find_map(|l| l.strip_prefix("VmRSS:"))?.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib * 1024)
}
