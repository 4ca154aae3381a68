//! The Hopper engine (wgmma + TMA, sm_90a): every kernel of the table on
//! the emulator (its TMA, mbarrier and wgmma models) and on a GPU of
//! compute capability 9.0 (ignored on others), against the f64 reference
//! of [`super::mma`]'s checker: odd and prime shapes, k not a multiple of
//! 8 (operands staged for TMA), every orientation, batches (packed, padded
//! strides, an operand shared by the batch), β, the fused epilogue, and
//! persistent blocks that walk several tiles.

use ferrotile::gemm::{Activation, Gemm, GemmVariant, WgmmaTile};
use ferrotile::{Context, Error};
use half::{bf16, f16};

use super::mma::{check, Spec, Ty, ORIENTATIONS};
use crate::common::*;

/// The compute capability the sm_90a module runs on.
const HOPPER: (i32, i32) = (9, 0);

/// Emulator shapes: one element, primes, several tiles in each direction
/// (the emulator launches 3 persistent blocks: most shapes give a block
/// two tiles or more), `k` over several stages and not a multiple of 8, and
/// `k` deep enough that the stage ring wraps several times, and single
/// tiles with a deep `k` (split-K: the emulator's 3 blocks take 3 parts),
/// and seven tiles (two rounds of 3 blocks whole, the seventh tile in two
/// parts of `k`).
const SHAPES: &[(usize, usize, usize)] =
    &[(1, 1, 1), (7, 9, 13), (129, 257, 72), (200, 130, 131), (257, 300, 64), (70, 300, 1031), (33, 200, 1031), (5, 100, 777), (769, 9, 513)];

/// GPU shapes; 2100 × 2051 leaves a last round of 21 (`128 × 256`) or 25
/// (`128 × 128`) tiles on 132 multiprocessors, split in parts of `k`.
const GPU_SHAPES: &[(usize, usize, usize)] =
    &[(1000, 1000, 1000), (1024, 1024, 1024), (4093, 251, 259), (256, 4096, 1031), (2048, 2048, 4096), (127, 1000, 513), (64, 4096, 4096), (1, 3000, 2048), (16, 1000, 4093), (2100, 2051, 520)];

fn push<I: Ty, O: Ty>(v: &mut Vec<Case>, name: String, case: Spec, gpu_only: bool) {
    let run = move |ctx: &Context| check::<I, O>(ctx, &case, false);
    let c = if gpu_only { Case::gpu_only(name, run) } else { Case::new(name, run) };
    v.push(c.on_cc(HOPPER));
}

/// Every kernel for inputs `I`, output `O` (f32 inputs: as tf32). A
/// 16-bit kernel reads one orientation as stored; the tf32 kernel (both
/// operands k-major) runs every orientation, the host staging the
/// operands rounded and transposed where needed.
fn cases_for<I: Ty, O: Ty>(v: &mut Vec<Case>) {
    let tf32 = I::KIND == ferrotile::kernels::gemm::mma::F32;
    let tag = if tf32 { "tf32".to_string() } else { format!("{}_{}", I::NAME, O::NAME) };
    for &tile in WgmmaTile::ALL {
        for k in tile.kernels().filter(|k| k.config().input == I::KIND && k.config().output == O::KIND) {
            let c = k.config();
            for (ta, tb, o) in ORIENTATIONS {
                if tf32 || (ta, tb) == c.problem_orientation() {
                    orientation_cases::<I, O>(v, &tag, tile, (ta, tb, o), tf32);
                }
            }
        }
    }
}

/// The cases of one tile and orientation.
fn orientation_cases<I: Ty, O: Ty>(v: &mut Vec<Case>, tag: &str, tile: WgmmaTile, (ta, tb, o): (bool, bool, &str), tf32: bool) {
    let mk = |m, n, kk| Spec { ta, tb, tf32, variant: GemmVariant::Wgmma(tile), ..Spec::new(m, n, kk) };
    for &(m, n, kk) in SHAPES {
        let case = Spec { alpha: 1.5, beta: -0.75, ..mk(m, n, kk) };
        push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::{m}x{n}x{kk}", tile.name()), case, false);
    }
    // Whole tiles inside C with β = 0 over a NaN C, no bias: the
    // epilogue's short path (the other shapes reach it only with β).
    push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::plain::257x300x200", tile.name()), Spec { alpha: 1.5, ..mk(257, 300, 200) }, false);
    // The same with rows of C 16-byte aligned: the TMA-store epilogue (the
    // 257 × 300 one, rows of C not 16-byte aligned for a 16-bit output,
    // stores from the accumulators, held on the 128 × 256 tile).
    push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::plain::257x512x200", tile.name()), Spec { alpha: 1.5, ..mk(257, 512, 200) }, false);
    // Ping-pong: three tiles per block (the emulator's 3 blocks, 9 tiles)
    // of 17 k-tiles each, more than the ring's stages, so that a consumer
    // letting the other's tile by would run a whole tile ahead of the loads
    // without its turn barrier; clustered, 5 rows of tiles (3 pairs, the
    // last half below `C`) over the emulator's 3 clusters of 2 blocks.
    if matches!(tile, WgmmaTile::P128x128 | WgmmaTile::P128x128x2) {
        // Rows of C not 16-byte aligned for a 16-bit output (stores from
        // the accumulators) and aligned (TMA stores).
        let m = if tile == WgmmaTile::P128x128x2 { 600 } else { 300 };
        for (m, n) in [(m, 300), (m, 320)] {
            push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::turns::{m}x{n}x1031", tile.name()), Spec { beta: 0.5, ..mk(m, n, 1031) }, false);
        }
    }
    // A row-major `B` whose rows are 16- but not 128-byte aligned apart
    // (72 bf16: 144 bytes) in a product of at least 2048 rows (the host's
    // RESTAGE_B_MIN_ROWS): staged to a 128-byte pitch first (one batch of
    // two, `B` strided).
    if !tb && !tf32 {
        let case = Spec { batch: 2, beta: 0.5, ..mk(2048, 72, 40) };
        push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::restaged_b::2048x72x40", tile.name()), case, false);
    }
    // A row-major `A` whose rows are 16- but not 128-byte aligned apart
    // (8 bf16, one k-tile) in a product of at least 2048 rows and columns
    // (the host's RESTAGE_A_MIN): staged to a 128-byte pitch first on the
    // `128`-wide tiles.
    if !ta && !tf32 {
        let case = Spec { beta: 0.5, ..mk(2048, 2048, 8) };
        push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::restaged_a::2048x2048x8", tile.name()), case, false);
    }
    // Padded leading dimensions, β = 0 over a NaN C.
    push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::padded::65x70x40", tile.name()), Spec { pad: 3, ..mk(65, 70, 40) }, false);
    // Rows of C 16-byte aligned (65 + 7 columns) past the last column: the
    // TMA stores of the edge chunks must not write the padding.
    push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::padded::129x65x19", tile.name()), Spec { pad: 7, alpha: -1.25, ..mk(129, 65, 19) }, false);
    for &(m, n, kk) in GPU_SHAPES {
        let case = Spec { beta: 0.5, ..mk(m, n, kk) };
        push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::{m}x{n}x{kk}", tile.name()), case, true);
    }
    // The same split-K call twice on the same buffers (`C` set back in
    // between): the second launch reuses the first's cached maps buffer, so
    // it needs the counters the first left at zero. Rows of C not 16-byte
    // aligned and aligned (TMA stores); on the GPU a decode shape.
    for (m, n, kk) in [(33, 200, 1031), (33, 208, 1031)] {
        let case = Spec { beta: 0.5, runs: 2, ..mk(m, n, kk) };
        push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::twice::{m}x{n}x{kk}", tile.name()), case, false);
    }
    push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::thrice::1x4096x4096", tile.name()), Spec { beta: 0.5, runs: 3, ..mk(1, 4096, 4096) }, true);
    // Programmatic dependent launches (the default), three with β = 0:
    // the second and third follow each other with nothing between them,
    // each waiting for the one before, whose split-K counters and workspace
    // it reuses; with `k` odd every launch follows the staging kernel that
    // wrote its operand. And the plain launch.
    push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::pdl::33x200x1031", tile.name()), Spec { runs: 3, ..mk(33, 200, 1031) }, false);
    push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::pdl::1x4096x4096", tile.name()), Spec { runs: 3, ..mk(1, 4096, 4096) }, true);
    push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::plain_launch::1x4096x4096", tile.name()), Spec { runs: 3, programmatic: false, ..mk(1, 4096, 4096) }, true);
    // Batches: packed (3-D tensor maps), padded strides, A shared.
    push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::batch3::70x90x40", tile.name()), Spec { batch: 3, beta: 0.25, ..mk(70, 90, 40) }, false);
    let (ar, br) = (if ta { 40 } else { 33 }, if tb { 48 } else { 40 });
    let (lda, ldb) = (if ta { 33 } else { 40 }, if tb { 40 } else { 48 });
    let strided = Spec { batch: 2, strides: Some([ar * lda + 24, br * ldb + 8, 33 * 48 + 48]), ..mk(33, 48, 40) };
    push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::batch2_strided::33x48x40", tile.name()), strided, false);
    let shared = Spec { batch: 4, strides: Some([0, br * ldb, 33 * 48]), ..mk(33, 48, 40) };
    push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::batch4_shared_a::33x48x40", tile.name()), shared, false);
    push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::batch32::512x384x256", tile.name()), Spec { batch: 32, ..mk(512, 384, 256) }, true);
    // The fused epilogue.
    for (act, a) in [(Activation::Relu, "relu"), (Activation::GeluTanh, "gelu")] {
        let case = Spec { bias: true, activation: act, beta: 0.5, ..mk(45, 70, 33) };
        push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::bias_{a}::45x70x33", tile.name()), case, false);
        // Whole tiles inside C: the short path with β, bias and activation.
        let case = Spec { bias: true, activation: act, beta: 0.5, ..mk(130, 260, 40) };
        push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::bias_{a}::130x260x40", tile.name()), case, false);
        // Split-K: the tile's last part sums the parts, then the epilogue.
        let case = Spec { bias: true, activation: act, beta: 0.5, alpha: 0.75, ..mk(45, 70, 600) };
        push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::bias_{a}::45x70x600", tile.name()), case, false);
        // The same two with rows of C 16-byte aligned: the TMA-store
        // epilogue with β, bias and activation, edge tiles clipped by TMA,
        // and the split-K sum stored through TMA.
        let case = Spec { bias: true, activation: act, beta: 0.5, ..mk(130, 264, 40) };
        push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::bias_{a}::130x264x40", tile.name()), case, false);
        let case = Spec { bias: true, activation: act, beta: 0.5, alpha: 0.75, ..mk(45, 72, 600) };
        push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::bias_{a}::45x72x600", tile.name()), case, false);
        // Three tiles per block (the emulator's 3 blocks), 5 k-tiles each,
        // edge tiles in both directions, rows of C 16-byte aligned: the
        // fused epilogue through TMA stores on tiles that follow another
        // tile's epilogue in the same block.
        let case = Spec { bias: true, activation: act, beta: 0.5, alpha: 0.75, ..mk(260, 520, 300) };
        push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::bias_{a}::260x520x300", tile.name()), case, false);
        let case = Spec { bias: true, activation: act, ..mk(1000, 1000, 512) };
        push::<I, O>(v, format!("wgmma::{tag}::{o}::{}::bias_{a}::1000x1000x512", tile.name()), case, true);
    }
}

/// `Auto` takes the wgmma engine on a Hopper GPU (and only there), for
/// the types and orientations it has kernels for.
fn auto_picks_wgmma_on_hopper(ctx: &Context) -> Result<(), String> {
    let g = Gemm::new(4096, 4096, 4096);
    let v = g.resolved_variant_on::<bf16, bf16>(ctx).map_err(|e| e.to_string())?;
    let hopper = ctx.device_info().is_some_and(|i| i.compute_capability == HOPPER);
    match (hopper, v) {
        (true, GemmVariant::Wgmma(WgmmaTile::B128x256)) | (false, GemmVariant::Mma(_)) => {}
        other => return Err(format!("Auto for bf16 4096³: {other:?}")),
    }
    // tf32 too (its operands staged rounded), every orientation.
    for (ta, tb, _) in ORIENTATIONS {
        let t = g.tf32(true).transpose_a(ta).transpose_b(tb).resolved_variant_on::<f32, f32>(ctx).map_err(|e| e.to_string())?;
        match (hopper, t) {
            (true, GemmVariant::Wgmma(_)) | (false, GemmVariant::Mma(_)) => {}
            other => return Err(format!("Auto for tf32 ({ta}, {tb}): {other:?}")),
        }
    }
    // Without a context, Auto does not assume a Hopper GPU.
    if !matches!(g.resolved_variant_for::<bf16, bf16>(), Ok(GemmVariant::Mma(_))) {
        return Err("resolved_variant_for picked a Hopper kernel".into());
    }
    Ok(())
}

fn bad_arguments(ctx: &Context) -> Result<(), String> {
    let a = up(ctx, &[bf16::from_f32(1.0); 64])?;
    let f = up(ctx, &[1.0f32; 64])?;
    let mut c = poisoned(ctx, 64, f32::NAN)?;
    let mut c16 = poisoned(ctx, 64, f16::from_f32(7.0))?;
    let mut cb = poisoned(ctx, 64, bf16::from_f32(7.0))?;
    let expect = |what: &str, got: Result<(), Error>| match got {
        Err(Error::BadArgument { arg: "variant", .. }) => Ok(()),
        other => Err(format!("{what}: {other:?}")),
    };
    let g = Gemm::new(8, 8, 8).variant(GemmVariant::Wgmma(WgmmaTile::B128x128));
    expect("f32 inputs on wgmma", g.run(ctx, &f, &f, &mut c))?;
    expect("an orientation the tile lacks", g.transpose_a(true).transpose_b(true).run(ctx, &a, &a, &mut c))?;
    let h = up(ctx, &[f16::from_f32(1.0); 64])?;
    expect("f16 → f16 with A transposed on 128 × 128", g.transpose_a(true).run(ctx, &h, &h, &mut c16))?;
    let swapped = Gemm::new(8, 8, 8).variant(GemmVariant::Wgmma(WgmmaTile::S64x128));
    expect("f16 → f32 on the swapped tile", swapped.run(ctx, &h, &h, &mut c))?;
    expect("bf16 → f32 with B transposed on the swapped tile", swapped.transpose_b(true).run(ctx, &a, &a, &mut c))?;
    // The narrow swapped tile has no tf32 kernel, none for f16 → f32 and
    // none for a transposed `A`.
    let narrow = Gemm::new(8, 8, 8).variant(GemmVariant::Wgmma(WgmmaTile::S16x128));
    expect("tf32 on the narrow swapped tile", narrow.run(ctx, &f, &f, &mut c))?;
    expect("f16 → f32 on the narrow swapped tile", narrow.run(ctx, &h, &h, &mut c))?;
    expect("bf16 → bf16 with A transposed on the narrow swapped tile", narrow.transpose_a(true).run(ctx, &a, &a, &mut cb))?;
    if ctx.device_info().is_some_and(|i| i.compute_capability != HOPPER) {
        expect("wgmma on a GPU that is not a Hopper", g.run(ctx, &a, &a, &mut c))?;
    }
    if !down(&c)?.iter().all(|x| x.is_nan()) || down(&c16)?.iter().any(|&x| x != f16::from_f32(7.0)) || down(&cb)?.iter().any(|&x| x != bf16::from_f32(7.0)) {
        return Err("c was written".into());
    }
    Ok(())
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    cases_for::<bf16, bf16>(&mut v);
    cases_for::<bf16, f32>(&mut v);
    cases_for::<f16, f16>(&mut v);
    cases_for::<f16, f32>(&mut v);
    cases_for::<f32, f32>(&mut v);
    v.push(Case::new("wgmma::auto_picks_wgmma_on_hopper", auto_picks_wgmma_on_hopper));
    v.push(Case::new("wgmma::rejects_bad_arguments", bad_arguments));
    v
}
