//! Tour rows of the PMPP chapter 3 kernels: every grayscale and blur rung
//! at 8192² and 1920×1080 (small, tile-unaligned sizes on the emulator),
//! the 3D kernel, and the float4 vector add.

use ferrotile::image::{self, cpu, BlurVariant, DeviceImage, GrayVariant, HostImage};
use ferrotile::{Context, Result, VecAddVariant};

use super::{max_rel_error, random_f32, reps, Ceiling, Row, Rows, Scale, Work};

/// Radius of the blur rows.
const RADIUS: u32 = 2;

pub fn rows(ctx: &Context, scale: Scale, keep: &dyn Fn(&str) -> bool, rows: &mut Rows) {
    let sizes: &[(usize, usize)] = match scale {
        Scale::Full => &[(8192, 8192), (1920, 1080)],
        Scale::Small => &[(62, 76), (131, 67), (160, 67)],
    };
    for &(w, h) in sizes {
        let rgb = random_image(w, h, 3, 11);
        let gray_ref = cpu::rgb_to_gray(&rgb);
        let grays: Vec<GrayVariant> = GrayVariant::ALL.iter().copied().filter(|v| keep(v.name())).collect();
        let blurs: Vec<(&HostImage, &str, Vec<BlurVariant>)> = [(&gray_ref, "gray"), (&rgb, "rgb")]
            .into_iter()
            .map(|(img, label)| {
                let wanted = BlurVariant::ALL
                    .iter()
                    .copied()
                    .filter(|v| v.supports(img.width(), img.channels(), RADIUS) && keep(&blur_name(*v, label)))
                    .collect();
                (img, label, wanted)
            })
            .collect();
        if keep("image_copy_dtod") || !grays.is_empty() || blurs.iter().any(|b| !b.2.is_empty()) {
            rows.push(copy(ctx, scale, &rgb).map_err(|e| format!("image_copy_dtod {w}x{h}: {e}")));
        }
        for v in grays {
            rows.push(gray(ctx, scale, v, &rgb, &gray_ref).map_err(|e| format!("{}: {e}", v.name())));
        }
        for (img, label, wanted) in blurs {
            if wanted.is_empty() {
                continue;
            }
            let want = cpu::blur(img, RADIUS);
            for v in wanted {
                rows.push(blur(ctx, scale, v, img, &want, label).map_err(|e| format!("{}: {e}", blur_name(v, label))));
            }
        }
    }
    if keep("volume_affine") {
        let dims = if scale == Scale::Full { [16, 1024, 1024] } else { [3, 17, 45] };
        rows.push(volume(ctx, scale, dims).map_err(|e| format!("volume_affine: {e}")));
    }
    if keep("vec_add_vec4") {
        let n = if scale == Scale::Full { 1 << 26 } else { 100_003 };
        rows.push(vec_add_vec4(ctx, scale, n).map_err(|e| format!("vec_add_vec4: {e}")));
    }
}

/// The ceiling group of the image rows of one size.
fn group(w: usize, h: usize) -> String {
    format!("image {w}x{h}")
}

/// The ceiling of one size: a device-to-device copy of the RGB picture.
fn copy(ctx: &Context, scale: Scale, rgb: &HostImage) -> Result<Row> {
    let src = ctx.upload(rgb.data())?;
    let mut dst = ctx.alloc::<u8>(rgb.data().len())?;
    dst.fill(0xAB)?;
    let (w, i) = reps(scale);
    let time = ctx.time(w, i, || dst.copy_from_buffer(&src))?;
    Ok(Row {
        kernel: "image_copy_dtod".into(),
        size: format!("{}x{}", rgb.width(), rgb.height()),
        time,
        work: Work::Bytes(2.0 * rgb.data().len() as f64),
        error: byte_error(&dst.download()?, rgb.data()),
        tolerance: 0.0,
        ceiling: Ceiling::Is(group(rgb.width(), rgb.height())),
        default_pick: false,
    })
}

fn blur_name(v: BlurVariant, label: &str) -> String {
    format!("{}_{label}_r{RADIUS}", v.name())
}

fn random_image(w: usize, h: usize, c: usize, seed: u64) -> HostImage {
    HostImage::new(w, h, c, ferrotile::testing::random_u8(w * h * c, seed)).expect("valid tour shape")
}

/// Fraction of bytes that differ from the reference (0 when exact).
fn byte_error(got: &[u8], want: &[u8]) -> f64 {
    if got.len() != want.len() {
        return f64::INFINITY;
    }
    got.iter().zip(want).filter(|(g, w)| g != w).count() as f64 / want.len().max(1) as f64
}

fn gray(ctx: &Context, scale: Scale, v: GrayVariant, rgb: &HostImage, want: &HostImage) -> Result<Row> {
    let src = DeviceImage::upload(ctx, rgb)?;
    let mut dst = DeviceImage::alloc(ctx, rgb.width(), rgb.height(), 1)?;
    dst.fill(0xAB)?;
    let (w, i) = reps(scale);
    let time = ctx.time(w, i, || image::rgb_to_gray_with(ctx, v, &src, &mut dst))?;
    let px = rgb.width() * rgb.height();
    Ok(Row {
        kernel: v.name().into(),
        size: format!("{}x{}", rgb.width(), rgb.height()),
        time,
        work: Work::Bytes(4.0 * px as f64),
        error: byte_error(dst.download()?.data(), want.data()),
        tolerance: 0.0,
        ceiling: Ceiling::Under(group(rgb.width(), rgb.height())),
        default_pick: false,
    })
}

fn blur(ctx: &Context, scale: Scale, v: BlurVariant, img: &HostImage, want: &HostImage, label: &str) -> Result<Row> {
    let src = DeviceImage::upload(ctx, img)?;
    let mut dst = DeviceImage::alloc(ctx, img.width(), img.height(), img.channels())?;
    dst.fill(0xAB)?;
    let (w, i) = reps(scale);
    let time = ctx.time(w, i, || image::blur_with(ctx, v, &src, &mut dst, RADIUS))?;
    Ok(Row {
        kernel: blur_name(v, label),
        size: format!("{}x{}", img.width(), img.height()),
        time,
        work: Work::Bytes(2.0 * img.data().len() as f64),
        error: byte_error(dst.download()?.data(), want.data()),
        tolerance: 0.0,
        ceiling: Ceiling::Under(group(img.width(), img.height())),
        default_pick: false,
    })
}

fn volume(ctx: &Context, scale: Scale, dims: [usize; 3]) -> Result<Row> {
    let n = dims.iter().product::<usize>();
    let (x, s, o) = (random_f32(n, 12), random_f32(dims[0], 13), random_f32(dims[0], 14));
    let (dx, ds, doff) = (ctx.upload(&x)?, ctx.upload(&s)?, ctx.upload(&o)?);
    let mut out = ctx.alloc::<f32>(n)?;
    out.fill(f32::NAN)?;
    let (w, i) = reps(scale);
    let time = ctx.time(w, i, || image::volume_affine(ctx, dims, &dx, &ds, &doff, &mut out))?;
    Ok(Row {
        kernel: "volume_affine".into(),
        size: format!("{}x{}x{}", dims[0], dims[1], dims[2]),
        time,
        work: Work::Bytes(8.0 * n as f64),
        error: max_rel_error(&out.download()?, &cpu::volume_affine(dims, &x, &s, &o)),
        tolerance: 0.0,
        ceiling: Ceiling::Under(super::foundation::COPY.into()),
        default_pick: false,
    })
}

fn vec_add_vec4(ctx: &Context, scale: Scale, n: usize) -> Result<Row> {
    let (a, b) = (random_f32(n, 15), random_f32(n, 16));
    let (da, db) = (ctx.upload(&a)?, ctx.upload(&b)?);
    let mut dc = ctx.alloc::<f32>(n)?;
    dc.fill(f32::NAN)?;
    let (w, i) = reps(scale);
    let time = ctx.time(w, i, || ferrotile::vec_add_with(ctx, VecAddVariant::Vec4, &da, &db, &mut dc))?;
    Ok(Row {
        kernel: "vec_add_vec4".into(),
        size: format!("n={n}"),
        time,
        work: Work::Bytes(12.0 * n as f64),
        error: max_rel_error(&dc.download()?, &ferrotile::reference::vec_add(&a, &b)),
        tolerance: 0.0,
        ceiling: Ceiling::Under(super::foundation::COPY.into()),
        default_pick: false,
    })
}
