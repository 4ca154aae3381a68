//! The transpose ladder: every rung and configuration on square,
//! rectangular, tile-unaligned and degenerate shapes, bit-exact against the
//! serial CPU reference; the API's validation.

use ferrotile::reference;
use ferrotile::transpose::{FlatConfig, Transpose, TransposeVariant};
use ferrotile::{Context, Error};

use crate::common::*;

/// Transposes random data with `v` (`None`: the default) and compares
/// bit-exactly with the serial reference; the output starts as NaN.
fn check(ctx: &Context, v: Option<TransposeVariant>, nx: usize, ny: usize) -> Result<(), String> {
    let label = v.map_or("default", |v| v.name());
    let mut r = Rng::new(seed(label) ^ (nx * 1_000_003 + ny) as u64);
    let a = r.f32s(nx * ny);
    let da = up(ctx, &a)?;
    let mut out = poisoned(ctx, nx * ny, f32::NAN)?;
    let t = match v {
        Some(v) => Transpose::new(nx, ny).variant(v),
        None => Transpose::new(nx, ny),
    };
    t.run(ctx, &da, &mut out).map_err(|e| e.to_string())?;
    exact_f32(&format!("{} {nx}x{ny}", t.resolved_variant().name()), &down(&out)?, &reference::transpose_serial(&a, nx, ny))
}

/// Shapes for the scalar variants: degenerate, primes, one off a tile
/// either way, rectangular both ways.
const SHAPES: &[(usize, usize)] = &[
    (1, 1),
    (1, 97),
    (97, 1),
    (7, 7),
    (31, 33),
    (33, 31),
    (64, 64),
    (65, 63),
    (127, 129),
    (200, 3),
    (3, 200),
];

/// Shapes for the vectorised variants (sides multiples of 4).
const VEC_SHAPES: &[(usize, usize)] = &[(4, 4), (4, 132), (132, 4), (60, 68), (64, 64), (128, 36), (196, 100)];

/// Shapes for the thin kernels: short sides 1, 2, odd, prime, at the
/// limit; long sides one block, several with a partial last one.
const THIN_SHAPES: &[(usize, usize)] = &[
    (1, 1),
    (2, 1),
    (1, 4099),
    (2, 4099),
    (4099, 2),
    (3, 200),
    (200, 3),
    (7, 1023),
    (1023, 7),
    (17, 1000),
    (1000, 17),
    (31, 257),
    (32, 1000),
    (1000, 32),
    (32, 32),
];

/// Shapes for rung 6 with scalar global accesses and for rungs 7 and 10:
/// every residue of 4 on both sides, partial tiles, primes, a single row
/// and column, several whole tiles (rung 7's shifted path), and several
/// block rows and columns of rung 10 (its 128-column segments shifted per
/// row).
const UNALIGNED_SHAPES: &[(usize, usize)] = &[
    (1, 1),
    (1, 97),
    (97, 1),
    (7, 7),
    (31, 33),
    (65, 63),
    (66, 130),
    (127, 129),
    (129, 67),
    (200, 3),
    (64, 64),
    (131, 193),
    (196, 100),
    (257, 255),
    (33, 700),
    (700, 33),
    (301, 517),
];

/// Further shapes for rung 11 (besides the unaligned ones whose output
/// rows it takes, at most 512): a few rows, many blocks with chunks ending
/// in every part of a row, rows at the limit.
const FLAT_EXTRA_SHAPES: &[(usize, usize)] = &[(4099, 2), (12_345, 7), (5_001, 67), (3_001, 131), (1_000, 509), (777, 512)];

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for var in TransposeVariant::all() {
        if var == TransposeVariant::NaiveRow {
            continue; // covered by tests/cases/foundation.rs
        }
        let flat: Vec<(usize, usize)> =
            UNALIGNED_SHAPES.iter().copied().filter(|&(nx, ny)| var.supports(nx, ny)).chain(FLAT_EXTRA_SHAPES.iter().copied()).collect();
        let shapes = match var {
            TransposeVariant::Thin => THIN_SHAPES,
            TransposeVariant::Flat(_) => &flat,
            TransposeVariant::Copy => &[(1, 1), (1, 4099), (4099, 1)][..],
            TransposeVariant::Vec4Unaligned | TransposeVariant::Vec4Realigned | TransposeVariant::Lines(_) => UNALIGNED_SHAPES,
            v if v.is_vectorised() => VEC_SHAPES,
            _ => SHAPES,
        };
        let short = var.name().trim_start_matches("transpose_");
        for &(nx, ny) in shapes {
            v.push(Case::new(format!("transpose::{short}::{nx}x{ny}"), move |ctx| check(ctx, Some(var), nx, ny)));
        }
        assert!(shapes.iter().all(|&(nx, ny)| var.supports(nx, ny)), "{var:?}");
        for (nx, ny) in [(4096, 4096), (8191, 37), (37, 8191), (8191, 8193), (31, 1 << 20), (1 << 20, 31), (1_048_573, 67), (262_147, 257)] {
            if var.supports(nx, ny) {
                v.push(Case::gpu_only(format!("transpose::{short}::{nx}x{ny}"), move |ctx| check(ctx, Some(var), nx, ny)));
            }
        }
    }
    // The default picks a vectorised kernel where it can, a scalar one elsewhere.
    for (nx, ny) in [(1, 1), (5, 3), (1, 130), (130, 1), (68, 132), (129, 67), (33, 2049), (2049, 33), (35, 37), (64, 5000), (5000, 64)] {
        v.push(Case::new(format!("transpose::default::{nx}x{ny}"), move |ctx| check(ctx, None, nx, ny)));
    }
    for (nx, ny) in [(8192, 8192), (8191, 37), (37, 8191), (4093, 4099), (8191, 8193), (64, 1 << 20), (1 << 20, 64), (1, 1 << 24)] {
        v.push(Case::gpu_only(format!("transpose::default::{nx}x{ny}"), move |ctx| check(ctx, None, nx, ny)));
    }
    v.push(Case::new("transpose::api::rejects_bad_arguments_before_launch", bad_arguments));
    // Grids taller than 65535 blocks are folded, never refused (issue 11):
    // one column of 2^20 rows is 131072 block rows for the naive rungs.
    for var in [TransposeVariant::NaiveRow, TransposeVariant::NaiveCol] {
        let short = var.name().trim_start_matches("transpose_");
        v.push(Case::new(format!("transpose::folded_grid::{short}::1x1048576"), move |ctx| check(ctx, Some(var), 1, 1 << 20)));
        v.push(Case::new(format!("transpose::folded_grid::{short}::1048576x1"), move |ctx| check(ctx, Some(var), 1 << 20, 1)));
    }
    // The default on a few columns and millions of rows (the tiled rungs
    // fold above 65535 × 32 rows), and the transposed shape.
    for (nx, ny) in [(3, 2_200_001), (2_200_001, 3), (4, 4_194_308), (1, 8_000_000)] {
        v.push(Case::gpu_only(format!("transpose::folded_grid::default::{nx}x{ny}"), move |ctx| check(ctx, None, nx, ny)));
    }
    v
}

fn bad_arguments(ctx: &Context) -> Result<(), String> {
    let a = up(ctx, &[1.0f32; 12])?;
    let mut out = poisoned(ctx, 12, 0.5f32)?;
    let expect = |what: &str, got: Result<(), Error>, ok: &dyn Fn(&Error) -> bool| match got {
        Err(e) if ok(&e) => Ok(()),
        other => Err(format!("{what}: {other:?}")),
    };
    expect("nx = 0", Transpose::new(0, 12).run(ctx, &a, &mut out), &|e| matches!(e, Error::BadArgument { arg: "nx", .. }))?;
    expect("ny = 0", Transpose::new(12, 0).run(ctx, &a, &mut out), &|e| matches!(e, Error::BadArgument { arg: "ny", .. }))?;
    expect("nx > u32::MAX", Transpose::new(1 << 33, 1).run(ctx, &a, &mut out), &|e| {
        matches!(e, Error::BadArgument { arg: "nx", .. })
    })?;
    expect("short input", Transpose::new(4, 4).run(ctx, &a, &mut out), &|e| {
        matches!(e, Error::LengthMismatch { arg: "input", expected: 16, actual: 12 })
    })?;
    let mut long = poisoned(ctx, 13, 0.5f32)?;
    expect("long output", Transpose::new(3, 4).run(ctx, &a, &mut long), &|e| {
        matches!(e, Error::LengthMismatch { arg: "output", expected: 12, actual: 13 })
    })?;
    for var in TransposeVariant::all().into_iter().filter(|v| v.is_vectorised() || *v == TransposeVariant::Copy) {
        expect(var.name(), Transpose::new(3, 4).variant(var).run(ctx, &a, &mut out), &|e| {
            matches!(e, Error::BadArgument { arg: "variant", .. })
        })?;
    }
    // Rung 11 takes output rows of at most 512 elements.
    let (nx, ny) = (2, ferrotile::kernels::transpose::index::FLAT_MAX_NY as usize + 1);
    let long = up(ctx, &vec![1.0f32; nx * ny])?;
    let mut long_out = poisoned(ctx, nx * ny, 0.5f32)?;
    for c in FlatConfig::ALL {
        let var = TransposeVariant::Flat(*c);
        expect(var.name(), Transpose::new(nx, ny).variant(var).run(ctx, &long, &mut long_out), &|e| {
            matches!(e, Error::BadArgument { arg: "variant", .. })
        })?;
    }
    exact_f32("untouched output of the refused flat calls", &down(&long_out)?, &vec![0.5; nx * ny])?;
    // Nothing was written by the rejected calls.
    exact_f32("untouched output", &down(&out)?, &[0.5; 12])
}
