//! The Hopper engine's host side: the tiles, the kernel of each (tile,
//! types, orientation) from the kernels crate's table, the TMA tensor maps
//! (encoded by the driver on CUDA, by [`EmuTensorMap`] on the emulator),
//! and the persistent launch.

use std::any::Any;

use cudarc::driver::sys;
use ferrotile_kernels as k;
use k::arch::sm90::{EmuTensorMap, TensorMap};
use k::gemm::mma::{Dt, BF16, F16_KIND, F32};
use k::gemm::wgmma::index::epi_box;
use k::gemm::wgmma::{WgmmaKernel, WgmmaParams, WgmmaTiling};

use super::mma::{no_kernel, stage, typed, HostElem, Stored};
use super::{Activation, GemmElement, GemmParams, Problem};
use crate::launch::{Absent, TensorMaps};
use k::gemm::mma::{split_k_config, SplitKParams};
use crate::{Backend, Buffer, Context, Error, LaunchConfig, Result};

/// A wgmma tile configuration (sm_90a: Hopper GPUs): the block tile the
/// kernel computes, `128 × 256` or `128 × 128`, `k` tiles of 64.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WgmmaTile {
    /// 128 × 256 block tiles, 4 stages: every orientation for bf16 → bf16,
    /// the row-major ones for the other types.
    B128x256,
    /// 128 × 128 block tiles, 6 stages (twice the tiles: problems with few
    /// of the large ones).
    B128x128,
    /// Ping-pong 128 × 128 block tiles, 6 stages: each consumer warpgroup
    /// computes its own tiles, so one's epilogue runs under the other's
    /// k-loop; row-major operands, `B` also transposed for bf16 → bf16.
    /// Measured slower than [`WgmmaTile::B128x256`] plain and fused
    /// (BENCHMARKS.md, "Ping-pong consumers, tried"): `Auto` does not pick
    /// it; a forced variant.
    P128x128,
}

impl WgmmaTile {
    /// Every tile.
    pub const ALL: &'static [WgmmaTile] = &[WgmmaTile::B128x256, WgmmaTile::B128x128, WgmmaTile::P128x128];

    /// The tile's name.
    pub fn name(self) -> &'static str {
        match self {
            WgmmaTile::B128x256 => "wgmma_128x256",
            WgmmaTile::B128x128 => "wgmma_128x128",
            WgmmaTile::P128x128 => "wgmma_pp_128x128",
        }
    }

    /// Block tile columns.
    fn bn(self) -> usize {
        match self {
            WgmmaTile::B128x256 => 256,
            WgmmaTile::B128x128 | WgmmaTile::P128x128 => 128,
        }
    }

    /// Whether the tile's consumers ping-pong.
    fn pingpong(self) -> bool {
        self == WgmmaTile::P128x128
    }

    /// Whether kernel configuration `c` is this tile.
    pub fn matches(self, c: &WgmmaTiling) -> bool {
        c.bn == self.bn() && c.pingpong == self.pingpong()
    }

    /// The kernels of this tile.
    pub fn kernels(self) -> impl Iterator<Item = WgmmaKernel> {
        WgmmaKernel::ALL.iter().copied().filter(move |k| self.matches(&k.config()))
    }

    /// The tile for a problem on a GPU of `sms` multiprocessors: the one
    /// with the shorter estimated time, `waves × work per tile / tile
    /// throughput`, where a wave is one tile per multiprocessor (the grid
    /// is persistent) and a `128 × 256` tile, twice the work of a `128 ×
    /// 128` one, runs [`WIDE_TILE_SPEEDUP`] times its throughput; `None`
    /// when neither tile has a kernel for the types and orientation.
    pub(super) fn auto(p: &Problem, input: usize, output: usize, transposes: (bool, bool), sms: usize) -> Option<WgmmaTile> {
        let waves = |t: WgmmaTile| (p.g.m.div_ceil(128) as usize * (p.g.n as usize).div_ceil(t.bn()) * p.batch).div_ceil(sms.max(1)) as f64;
        let wide = waves(WgmmaTile::B128x256) * 2.0 / WIDE_TILE_SPEEDUP;
        let wanted = if wide <= waves(WgmmaTile::B128x128) {
            [WgmmaTile::B128x256, WgmmaTile::B128x128]
        } else {
            [WgmmaTile::B128x128, WgmmaTile::B128x256]
        };
        wanted.into_iter().find(|&t| kernel_for(t, input, output, transposes).is_ok())
    }
}

/// How much faster a `128 × 256` tile computes than a `128 × 128` one when
/// both fill the GPU (fewer operand bytes per flop): the ratio of their
/// throughputs at 4096³, 8192³ and 4096 × 14336 × 4096 (1.19–1.31 on the
/// H100, BENCHMARKS.md, wgmma), rounded down.
pub const WIDE_TILE_SPEEDUP: f64 = 1.25;

/// The kernel of tile `t` for these types and orientation, or
/// `BadArgument { arg: "variant" }` listing what the tile has.
pub(super) fn kernel_for(t: WgmmaTile, input: usize, output: usize, (ta, tb): (bool, bool)) -> Result<WgmmaKernel> {
    let found = t.kernels().find(|k| {
        let c = k.config();
        (c.input, c.output, c.ta, c.tb) == (input, output, ta, tb)
    });
    found.ok_or_else(|| no_kernel(t.name(), input, output, (ta, tb), t.kernels().map(|k| k.name())))
}

/// Whether `ctx` can run the wgmma kernels: a GPU of compute capability
/// 9.0 (the sm_90a module), or the emulator.
pub(super) fn runs_on(ctx: &Context) -> bool {
    match ctx.device_info() {
        Some(info) => info.compute_capability == (9, 0),
        None => true,
    }
}

/// A table-declared wgmma kernel that can launch itself on type-erased
/// buffers (checked against the kernel's types).
trait WgmmaLaunch {
    fn launch(self, ctx: &Context, cfg: LaunchConfig, p: WgmmaParams, maps: &Buffer<u64>, c: &dyn Any, bias: Option<&Buffer<f32>>) -> Result<()>;
}

/// One `launch!` arm per row of the kernels crate's `wgmma_table!`.
macro_rules! wgmma_launcher {
    (
        $(#[$emeta:meta])* pub enum $Enum:ident: $Cfg:ty;
        $( $(#[$doc:meta])* [$gate:meta] $V:ident => $kernel:ident = $define:ident!($cfg:ident), bounds $lb:literal; )*
    ) => {
        impl WgmmaLaunch for $Enum {
            fn launch(self, ctx: &Context, cfg: LaunchConfig, p: WgmmaParams, maps: &Buffer<u64>, c: &dyn Any, bias: Option<&Buffer<f32>>) -> Result<()> {
                let maps = TensorMaps(maps);
                match self {
                    $( #[$gate] $Enum::$V => {
                        type Out = <Dt<{ k::gemm::wgmma::$cfg.output }> as HostElem>::T;
                        let c = typed::<Out>(c, "c")?;
                        match bias {
                            Some(bias) => launch!(ctx, ferrotile_kernels::gemm::wgmma::$kernel, cfg, p, maps, c, bias),
                            None => launch!(ctx, ferrotile_kernels::gemm::wgmma::$kernel, cfg, p, maps, c, Absent::<f32>::new()),
                        }
                    } )*
                }
            }
        }
    };
}
ferrotile_kernels::wgmma_table!(wgmma_launcher);

/// Blocks of a persistent launch on the emulator: fewer than the tiles of
/// most tests, so that blocks walk several tiles.
const EMULATOR_BLOCKS: usize = 3;

/// The TMA map of an operand as stored: `rows × cols` (`cols` contiguous,
/// leading dimension `ld`), `matrices` of them `stride` elements apart,
/// boxes of `box_`.
struct MapSpec {
    rows: usize,
    cols: usize,
    ld: usize,
    matrices: usize,
    stride: usize,
    box_: [u32; 3],
}

/// Encodes `spec` over `buf` for `ctx`'s backend.
fn tensor_map<T: GemmElement>(ctx: &Context, buf: &Buffer<T>, spec: &MapSpec, arg: &'static str) -> Result<TensorMap> {
    let es = std::mem::size_of::<T>();
    // A batch of one still has a third dimension: its stride is one
    // matrix (any multiple of 16 bytes past the last row will do).
    let stride = if spec.matrices > 1 { spec.stride } else { spec.rows * spec.ld };
    let dims = [spec.cols as u64, spec.rows as u64, spec.matrices as u64];
    let strides = [(spec.ld * es) as u64, (stride * es) as u64];
    let too_big = dims.iter().any(|&d| d > u32::MAX as u64) || strides.iter().any(|&s| s >= 1 << 40);
    if too_big {
        return Err(Error::BadArgument { arg, detail: format!("{dims:?} elements with strides {strides:?} bytes exceed what a TMA tensor map describes") });
    }
    match ctx.backend() {
        Backend::Emulator => Ok(EmuTensorMap {
            base: buf.device_ptr(),
            len: (buf.len() * es) as u64,
            elem_bytes: es as u32,
            dims: dims.map(|d| d as u32),
            strides,
            box_: spec.box_,
        }
        .encode()),
        Backend::Cuda => {
            let dtype = match T::KIND {
                BF16 => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
                F16_KIND => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                // tf32 operands, staged rounded: f32 bits moved as they are.
                _ => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
            };
            let mut map = std::mem::MaybeUninit::<sys::CUtensorMap>::uninit();
            let element_strides = [1u32; 3];
            // SAFETY: the pointers reach arrays of the rank's length (the
            // strides one shorter), alive for the call; the map is written
            // by the driver before it is read.
            let r = unsafe {
                sys::cuTensorMapEncodeTiled(
                    map.as_mut_ptr(),
                    dtype,
                    3,
                    buf.device_ptr() as *mut std::ffi::c_void,
                    dims.as_ptr(),
                    strides.as_ptr(),
                    spec.box_.as_ptr(),
                    element_strides.as_ptr(),
                    sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                    sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
                    sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                    sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
                )
            };
            if r != sys::CUresult::CUDA_SUCCESS {
                return Err(Error::Driver { op: "encoding a TMA tensor map", detail: format!("{r:?} for {arg}: dims {dims:?}, strides {strides:?} bytes, box {:?}", spec.box_) });
            }
            // SAFETY: initialised by the successful call.
            Ok(TensorMap(unsafe { map.assume_init() }.opaque))
        }
    }
}

/// `C`'s tensor map for the kernel's TMA-store epilogue (box
/// [`epi_box`]): `Some` when TMA can write `C` — its start, its rows and
/// its matrices 16-byte aligned, and its rows a whole number of 16-byte
/// pieces — else `None` (the kernel then stores from the accumulators).
///
/// The last condition is measured, not documented: on an H100 a store
/// whose box crosses the last column wrote the whole 16-byte piece holding
/// it (a 65-column f32 `C` with rows of 68 lost columns 65–67 of its
/// padding); the emulator's stores do the same.
fn store_map<O: GemmElement>(ctx: &Context, c: &Buffer<O>, rows: usize, cols: usize, ld: usize, matrices: usize, stride: usize) -> Result<Option<TensorMap>> {
    let es = std::mem::size_of::<O>();
    let pieces = |elems: usize| (elems * es) % 16 == 0;
    let aligned = c.device_ptr() % 16 == 0 && pieces(ld) && pieces(cols) && (matrices == 1 || (stride != 0 && pieces(stride)));
    if !aligned {
        return Ok(None);
    }
    let spec = MapSpec { rows, cols, ld, matrices, stride, box_: epi_box(es) };
    tensor_map(ctx, c, &spec, "c").map(Some)
}

/// The maps buffer of a launch: `A`'s and `B`'s, then `C`'s when the
/// epilogue stores through TMA; and the matching [`WgmmaParams::store_map`].
fn upload_maps(ctx: &Context, ab: &[TensorMap; 2], c: Option<TensorMap>) -> Result<(Buffer<u64>, u32)> {
    let words: Vec<u64> = ab.iter().chain(c.as_ref()).flat_map(|m| m.0).collect();
    Ok((ctx.upload(&words)?, c.is_some() as u32))
}

/// Runs the wgmma kernel of `tile` on `p` (types `I` → `O`, checked by the
/// caller): operands whose rows or matrices do not start 16-byte aligned
/// are staged into aligned copies first (TMA's requirement), the tensor
/// maps go to device memory, one persistent block per multiprocessor.
#[allow(clippy::too_many_arguments)]
pub(super) fn run<I: GemmElement, O: GemmElement>(
    ctx: &Context,
    tile: WgmmaTile,
    (ta, tb): (bool, bool),
    act: Activation,
    p: &Problem,
    a: &Buffer<I>,
    b: &Buffer<I>,
    bias: Option<&Buffer<f32>>,
    c: &mut Buffer<O>,
) -> Result<()> {
    if !runs_on(ctx) {
        let cc = ctx.device_info().map(|i| i.compute_capability);
        return Err(Error::BadArgument {
            arg: "variant",
            detail: format!("`{}` runs on Hopper GPUs (compute capability 9.0), not on {cc:?}; use Auto or an Mma tile", tile.name()),
        });
    }
    let tf32 = I::KIND == F32;
    // The orientation the kernel reads (tf32 operands are staged k-major).
    let kernel_t = super::mma::kernel_orientation(I::KIND, (ta, tb));
    let kernel = kernel_for(tile, I::KIND, O::KIND, kernel_t)?;
    let config = kernel.config();
    let g = p.g;
    let (m, n, kk) = (g.m as usize, g.n as usize, g.k as usize);
    // The kernel's producer counts its work units (tiles × parts of `k`)
    // in 32 bits.
    let most_units = m.div_ceil(config.bm()).saturating_mul(n.div_ceil(config.bn)).saturating_mul(p.batch).saturating_mul(MAX_SPLITS);
    if most_units > u32::MAX as usize {
        return Err(Error::BadArgument { arg: "c", detail: format!("{m} × {n} × {} batch: more block tiles than the wgmma kernels count", p.batch) });
    }
    let [sa, sb] = Stored::operands(p, (ta, tb));
    // tf32: both operands k-major and rounded (`wgmma` reads them from
    // shared memory as they are), so always staged; `A` transposed when
    // stored `k × m`, `B` when stored `k × n`.
    let staged_a = stage(ctx, a, sa, p.batch, tf32 && ta, tf32)?;
    let staged_b = stage(ctx, b, sb, p.batch, tf32 && !tb, tf32)?;
    let (a, sa) = staged_a.as_ref().map_or((a, sa), |(buf, s)| (buf, *s));
    let (b, sb) = staged_b.as_ref().map_or((b, sb), |(buf, s)| (buf, *s));
    let matrices = |s: &Stored| if p.batch > 1 && s.stride != 0 { p.batch } else { 1 };
    let map_a = MapSpec { rows: sa.rows, cols: sa.cols, ld: sa.ld, matrices: matrices(&sa), stride: sa.stride, box_: config.a_box() };
    let map_b = MapSpec { rows: sb.rows, cols: sb.cols, ld: sb.ld, matrices: matrices(&sb), stride: sb.stride, box_: config.b_box() };
    let ab = [tensor_map(ctx, a, &map_a, "a")?, tensor_map(ctx, b, &map_b, "b")?];
    let params = WgmmaParams {
        g: GemmParams { lda: sa.ld as u32, ldb: sb.ld as u32, ..g },
        batch: p.batch as u32,
        a_batched: (map_a.matrices > 1) as u32,
        b_batched: (map_b.matrices > 1) as u32,
        activation: act.code(),
        stride_c: p.strides[2] as u64,
        has_bias: bias.is_some() as u32,
        splits: 1,
        // Set below, with the launch that stores through `C`'s map.
        store_map: 0,
    };
    let tiles = config.tiles(&params);
    let sms = match ctx.device_info() {
        Some(info) => info.sm_count.max(1) as usize,
        None => EMULATOR_BLOCKS,
    };
    let blocks = |units: usize| units.min(sms).min(k::launch::MAX_GRID_X as usize) as u32;
    let splits = split_k(tiles, kk.div_ceil(k::gemm::wgmma::index::bk(config.es())), sms);
    // The partial products come from the tile's f32-output kernel of the
    // same orientation (same tensor-map boxes); without one, no split.
    let partial = if splits > 1 { kernel_for(tile, I::KIND, F32, kernel_t).ok() } else { None };
    let Some(partial) = partial else {
        let (maps, store) = upload_maps(ctx, &ab, store_map(ctx, c, m, n, g.ldc as usize, p.batch, p.strides[2])?)?;
        let params = WgmmaParams { store_map: store, ..params };
        return kernel.launch(ctx, config.config(blocks(tiles)), params, &maps, &*c, bias);
    };
    // Split-K: f32 partial products of every part of k, then the
    // reduction with the epilogue.
    // Every element of every part is written by the partial launch (each
    // unit stores its whole tile, an empty part of `k` zeros): no clearing
    // pass on the stream.
    let parts = ctx.alloc_unzeroed::<f32>(p.batch * splits * m * n)?;
    let (part_maps, part_store) = upload_maps(ctx, &ab, store_map(ctx, &parts, m, n, n, p.batch * splits, m * n)?)?;
    let pp = WgmmaParams {
        g: GemmParams { alpha: 1.0, beta: 0.0, ldc: n as u32, ..params.g },
        activation: Activation::None.code(),
        stride_c: (m * n) as u64,
        has_bias: 0,
        splits: splits as u32,
        store_map: part_store,
        ..params
    };
    partial.launch(ctx, partial.config().config(blocks(tiles * splits)), pp, &part_maps, &parts, None)?;
    let rp = SplitKParams {
        rows: g.m,
        cols: g.n,
        ldc: g.ldc,
        splits: splits as u32,
        batch: p.batch as u32,
        activation: act.code(),
        has_bias: bias.is_some() as u32,
        pad: 0,
        alpha: g.alpha,
        beta: g.beta,
        stride_c: p.strides[2] as u64,
    };
    let cfg = split_k_config(&rp);
    let any: &mut dyn Any = c;
    macro_rules! reduce {
        ($kernel:ident, $c:expr) => {
            match bias {
                Some(bias) => launch!(ctx, ferrotile_kernels::gemm::mma::$kernel, cfg, &parts, $c, bias, rp),
                None => launch!(ctx, ferrotile_kernels::gemm::mma::$kernel, cfg, &parts, $c, Absent::<f32>::new(), rp),
            }
        };
    }
    if let Some(c) = any.downcast_mut::<Buffer<f32>>() {
        return reduce!(gemm_splitk_reduce_f32, c);
    }
    if let Some(c) = any.downcast_mut::<Buffer<half::bf16>>() {
        return reduce!(gemm_splitk_reduce_bf16, c);
    }
    match any.downcast_mut::<Buffer<half::f16>>() {
        Some(c) => reduce!(gemm_splitk_reduce_f16, c),
        None => unreachable!("GemmElement is f32, bf16 or f16"),
    }
}

/// Parts of `k` for a problem of `tiles` block tiles and `ktiles` k-tiles
/// on `sms` multiprocessors: 1 (no split) when the tiles fill at least
/// half the GPU; otherwise enough parts to give every multiprocessor a
/// unit, each at least [`MIN_SPLIT_KTILES`] k-tiles long (so the reduction
/// stays small next to the GEMM), at most [`MAX_SPLITS`]; then as few as
/// cover `ktiles` with that part length (no empty part).
pub(super) fn split_k(tiles: usize, ktiles: usize, sms: usize) -> usize {
    if tiles == 0 || 2 * tiles > sms {
        return 1;
    }
    let want = (sms / tiles).min(ktiles / MIN_SPLIT_KTILES).min(MAX_SPLITS);
    if want <= 1 {
        return 1;
    }
    ktiles.div_ceil(ktiles.div_ceil(want))
}

/// The shortest part of `k` split-K makes, in k-tiles of 64.
pub const MIN_SPLIT_KTILES: usize = 4;
/// The most parts of `k`.
pub const MAX_SPLITS: usize = 32;

#[cfg(test)]
mod tests {
    use super::*;

    /// The tensor-core split-K reduction is bit for bit
    /// `act(fma(β, C, α·(((0 + s₀) + s₁) + …)) + bias[col])` per element,
    /// parts summed in order, for every matrix of a batch with a padded
    /// `C` stride (f32 output: no rounding hides a difference).
    #[test]
    fn split_k_reduction_is_the_ordered_sum_bit_for_bit() -> Result<()> {
        let ctx = Context::emulator();
        let mut rng = crate::testing::Rng::new(0x5_1e7_7c);
        for (rows, cols, ldc, splits, batch, beta, act) in
            [(1u32, 1u32, 1u32, 1u32, 1u32, 0.5f32, Activation::None), (7, 9, 11, 3, 2, -0.75, Activation::Relu), (33, 70, 70, 4, 3, 0.0, Activation::None)]
        {
            let stride_c = rows as usize * ldc as usize + 5;
            let plane = rows as usize * cols as usize;
            let parts: Vec<f32> = (0..batch as usize * splits as usize * plane).map(|i| rng.f32() * [1.0, 1e4, 1e-3, 3e7][(i / plane) % 4]).collect();
            let bias: Vec<f32> = (0..cols).map(|_| rng.f32()).collect();
            let c0: Vec<f32> = (0..batch as usize * stride_c).map(|_| if beta == 0.0 { f32::NAN } else { rng.f32() }).collect();
            let p = SplitKParams {
                rows,
                cols,
                ldc,
                splits,
                batch,
                activation: act.code(),
                has_bias: 1,
                pad: 0,
                alpha: 1.5,
                beta,
                stride_c: stride_c as u64,
            };
            let (pb, bb, mut cb) = (ctx.upload(&parts)?, ctx.upload(&bias)?, ctx.upload(&c0)?);
            let _op = ctx.op(&[], &[])?;
            let c = &mut cb;
            launch!(&ctx, k::gemm::mma::gemm_splitk_reduce_f32, split_k_config(&p), &pb, c, &bb, p)?;
            let got = cb.download()?;
            for z in 0..batch as usize {
                for i in 0..rows as usize {
                    for j in 0..cols as usize {
                        let o = z * stride_c + i * ldc as usize + j;
                        let mut sum = 0f32;
                        for s in 0..splits as usize {
                            sum += parts[(z * splits as usize + s) * plane + i * cols as usize + j];
                        }
                        let mut v = p.alpha * sum;
                        if beta != 0.0 {
                            v = beta.mul_add(c0[o], v);
                        }
                        v += bias[j];
                        if act == Activation::Relu && v <= 0.0 {
                            v = 0.0;
                        }
                        assert_eq!(got[o].to_bits(), v.to_bits(), "{rows}x{cols}x{batch}, {splits} parts, ({z}, {i}, {j})");
                    }
                }
            }
        }
        Ok(())
    }

    #[test]
    fn every_kernel_is_reachable_and_valid() {
        for k in WgmmaKernel::ALL {
            let c = k.config();
            assert!(c.validate(), "{k:?}");
            let tiles: Vec<WgmmaTile> = WgmmaTile::ALL.iter().copied().filter(|t| t.matches(&c)).collect();
            assert_eq!(tiles.len(), 1, "{k:?} is tile {tiles:?}");
            assert_eq!(kernel_for(tiles[0], c.input, c.output, (c.ta, c.tb)).ok(), Some(*k));
        }
        // bf16 → bf16 has every orientation on the large tile.
        for t in [(false, false), (true, false), (false, true), (true, true)] {
            assert!(kernel_for(WgmmaTile::B128x256, BF16, BF16, t).is_ok(), "{t:?}");
        }
        assert!(matches!(kernel_for(WgmmaTile::B128x128, F16_KIND, F32, (true, true)), Err(Error::BadArgument { arg: "variant", .. })));
        // The ping-pong tile has the row-major kernels (and NT for bf16 → bf16) only.
        assert!(matches!(kernel_for(WgmmaTile::P128x128, BF16, BF16, (true, false)), Err(Error::BadArgument { arg: "variant", .. })));
        assert!(matches!(kernel_for(WgmmaTile::P128x128, F32, F32, (false, true)), Err(Error::BadArgument { arg: "variant", .. })));
    }

    #[test]
    fn split_k_only_where_tiles_leave_the_gpu_idle() {
        // Enough tiles: no split.
        assert_eq!(split_k(128, 64, 132), 1);
        assert_eq!(split_k(67, 64, 132), 1);
        // Decode, 64 × 8192 × 8192 on 128 × 256 tiles: 32 tiles, 128 k-tiles.
        assert_eq!(split_k(32, 128, 132), 4);
        // One tile, deep k: capped at MAX_SPLITS parts of ≥ 4 k-tiles.
        assert_eq!(split_k(1, 1000, 132), 32);
        assert_eq!(split_k(1, 17, 3), 3);
        // Short k: parts would be too short.
        assert_eq!(split_k(1, 7, 132), 1);
        for (tiles, ktiles, sms) in [(1, 17, 132), (3, 130, 132), (10, 99, 132), (2, 9, 3)] {
            let s = split_k(tiles, ktiles, sms);
            let chunk = ktiles.div_ceil(s);
            assert!(chunk * (s - 1) < ktiles, "{tiles} {ktiles} {sms}: part {s} of {chunk} would be empty");
            assert!(s == 1 || chunk >= MIN_SPLIT_KTILES);
        }
    }

    #[test]
    fn auto_weighs_waves_against_tile_throughput() {
        let pick = |m, n, k, batch| {
            let p = crate::gemm::Gemm::new(m, n, k).batch(batch).problem().unwrap();
            WgmmaTile::auto(&p, BF16, BF16, (false, false), 132)
        };
        // One wave of wide tiles (128 of 132) beats two of narrow ones.
        assert_eq!(pick(2048, 2048, 2048, 1), Some(WgmmaTile::B128x256));
        assert_eq!(pick(8192, 8192, 8192, 1), Some(WgmmaTile::B128x256));
        // Narrow tiles fit in one wave where wide ones would idle half the GPU.
        assert_eq!(pick(1024, 1024, 1024, 1), Some(WgmmaTile::B128x128));
        assert_eq!(pick(128, 128, 4096, 1), Some(WgmmaTile::B128x128));
        // Five waves of wide tiles (544) against eight of narrow ones
        // (1056, exactly full): the wide tile's throughput decides.
        assert_eq!(pick(4093, 4099, 4091, 1), Some(WgmmaTile::B128x256));
        // The batch counts: 4 × 1024² is 128 wide tiles.
        assert_eq!(pick(1024, 1024, 64, 4), Some(WgmmaTile::B128x256));
        // f16 → f32 has only a wide-tile kernel: that one, even where the
        // narrow tile would be chosen.
        let p = crate::gemm::Gemm::new(1024, 1024, 1024).problem().unwrap();
        assert_eq!(WgmmaTile::auto(&p, F16_KIND, F32, (false, false), 132), Some(WgmmaTile::B128x256));
    }
}
