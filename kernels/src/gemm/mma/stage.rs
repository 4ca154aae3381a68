//! Operand staging: a copy of a (batched) matrix into rows that start
//! 16-byte aligned, for operands whose leading dimension or batch stride
//! is not a multiple of 16 bytes (e.g. a packed bf16 `A` with odd `k`),
//! which the engine's 16-byte `cp.async` copies cannot read; or a
//! transposed copy, for a k-major tf32 `A` (`ldmatrix` cannot transpose
//! 32-bit elements), through shared-memory tiles ([`gemm_stage_f32_t`]).
//! The Hopper engine's tf32 operands are staged rounded to tf32
//! ([`StageParams::round_tf32`]): `wgmma` reads them from shared memory as
//! they are, and takes only each element's upper 19 bits. One pass over
//! the operand; the GEMM then runs on the copy at full speed.


use crate::arch::simd::u32x4;
use crate::arch::sm80::cvt_rna_tf32_f32;
use crate::arch::{block_idx_x, block_row, dynamic_shared, global_row, global_x, sync_threads, thread_idx_x, thread_idx_y, Global};
use crate::kernel;
use crate::layout::Layout2;
use crate::launch::LaunchConfig;
use crate::numeric::{Bf16, F16};

/// A batch of `rows × cols` matrices copied from leading dimension
/// `ld_src` (batch stride `stride_src`) to `ld_dst` (`stride_dst`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StageParams {
    /// Rows of one matrix.
    pub rows: u32,
    /// Elements per row.
    pub cols: u32,
    /// Leading dimension of the source.
    pub ld_src: u32,
    /// Leading dimension of the copy.
    pub ld_dst: u32,
    /// Matrices.
    pub batch: u32,
    /// 1: the copy is transposed (element `(r, c)` lands at `(c, r)`, the
    /// copy's rows are the source's columns); 0: a plain copy.
    pub transpose: u32,
    /// Elements from one source matrix to the next.
    pub stride_src: u64,
    /// Elements from one copied matrix to the next.
    pub stride_dst: u64,
    /// 1: a chunked copy also writes the copy's padding (columns `cols ..
    /// ld_dst`) with zeros, so that a fresh copy needs no clearing first;
    /// 0: only the `cols` columns are written.
    pub zero_pad: u32,
    /// 1 (f32 only): each element is rounded to tf32 (`cvt.rna`,
    /// [`crate::numeric::tf32_rna`]) on the way; 0: copied bit for bit.
    pub round_tf32: u32,
}

impl StageParams {
    /// Elements copied.
    pub const fn elements(&self) -> u64 {
        self.batch as u64 * self.rows as u64 * self.cols as u64
    }
    /// `(source, destination)` offsets of element `i` (row-major over
    /// batch, row, column).
    #[inline(always)]
    pub const fn offsets(&self, i: u64) -> (usize, usize) {
        let per = self.rows as u64 * self.cols as u64;
        let (b, rem) = (i / per, i % per);
        self.offsets_at(b as u32, (rem / self.cols as u64) as u32, (rem % self.cols as u64) as u32)
    }

    /// Whether the copy moves 16-byte chunks of `per` elements (`per` =
    /// 16 / element bytes): a plain copy whose destination rows and
    /// matrices start 16-byte aligned (every staged operand).
    pub const fn chunked(&self, per: u32) -> bool {
        self.transpose == 0 && self.ld_dst % per == 0 && self.stride_dst % per as u64 == 0
    }

    /// Threads along x per row: chunks (whole copied rows with
    /// [`zero_pad`](Self::zero_pad), else the chunks holding the `cols`
    /// columns), or one per column.
    pub const fn threads_per_row(&self, per: u32) -> u32 {
        match (self.chunked(per), self.zero_pad != 0) {
            (true, true) => self.ld_dst / per,
            (true, false) => self.cols.div_ceil(per),
            (false, _) => self.cols,
        }
    }

    /// `(source, destination)` offsets of element `(r, c)` of matrix `b`.
    #[inline(always)]
    pub const fn offsets_at(&self, b: u32, r: u32, c: u32) -> (usize, usize) {
        let (b, r, c) = (b as u64, r as u64, c as u64);
        let (dr, dc) = if self.transpose != 0 { (c, r) } else { (r, c) };
        (
            (b * self.stride_src + r * self.ld_src as u64 + c) as usize,
            (b * self.stride_dst + dr * self.ld_dst as u64 + dc) as usize,
        )
    }
}

/// Threads per block of the staging copy.
pub const STAGE_THREADS: u32 = 256;

/// For a chunked copy ([`StageParams::chunked`]) one thread per 16-byte
/// chunk of a copied row (16-byte stores; the source, whose rows need not
/// be aligned, read element by element: a warp still reads 512
/// consecutive bytes); otherwise one thread per `(row, column)` (x along
/// the source's rows: coalesced reads). Rows folded into z beyond the
/// grid's y limit. `elem_bytes`: 2 or 4.
pub const fn stage_config(p: &StageParams, elem_bytes: u32) -> LaunchConfig {
    LaunchConfig::cover_2d(p.threads_per_row(16 / elem_bytes), p.rows, [STAGE_THREADS, 1]).fold_rows()
}

/// An element the staging copy moves as raw bits, `PER` to a 16-byte chunk.
pub trait StageElem: Copy {
    /// Elements per 16-byte chunk.
    const PER: u32;
    /// The element as staged: rounded to tf32 when `round` (f32 only; the
    /// 16-bit types are never rounded).
    #[inline(always)]
    fn staged(self, _round: bool) -> Self {
        self
    }
    /// The chunk of `PER` elements `get(0) .. get(PER - 1)` (0 bits where
    /// `get` gives `None`), in memory order (little-endian: element `2i`
    /// of a 2-byte type in the low half of word `i`).
    fn chunk(get: impl Fn(u32) -> Option<Self>) -> u32x4;
}

/// Eight 16-bit elements' bits `h(0) .. h(7)` as a 16-byte chunk.
#[inline(always)]
fn pack_halves(h: impl Fn(u32) -> u32) -> u32x4 {
    u32x4::from_array(core::array::from_fn(|i| h(2 * i as u32) | (h(2 * i as u32 + 1) << 16)))
}

impl StageElem for Bf16 {
    const PER: u32 = 8;
    #[inline(always)]
    fn chunk(get: impl Fn(u32) -> Option<Self>) -> u32x4 {
        pack_halves(|e| get(e).map_or(0, |x| x.0 as u32))
    }
}

impl StageElem for F16 {
    const PER: u32 = 8;
    #[inline(always)]
    fn chunk(get: impl Fn(u32) -> Option<Self>) -> u32x4 {
        pack_halves(|e| get(e).map_or(0, |x| x.0 as u32))
    }
}

impl StageElem for f32 {
    const PER: u32 = 4;
    #[inline(always)]
    fn staged(self, round: bool) -> Self {
        if round { f32::from_bits(cvt_rna_tf32_f32(self)) } else { self }
    }
    #[inline(always)]
    fn chunk(get: impl Fn(u32) -> Option<Self>) -> u32x4 {
        u32x4::from_array(core::array::from_fn(|i| get(i as u32).map_or(0, f32::to_bits)))
    }
}

/// The copy ([`stage_config`]'s mapping): each thread copies its chunk,
/// or its `(row, column)`, of every matrix of the batch (no division per
/// element).
///
/// # Safety
/// The buffers hold every element `p` reaches; a chunked copy's
/// destination starts 16-byte aligned.
#[inline(always)]
unsafe fn stage_body<T: StageElem>(src: Global<T>, dst: Global<T>, p: StageParams) {
    unsafe { stage_at(src, dst, p, global_x(), global_row()) }
}

/// Two plain staging copies in one launch ([`stage2_config`]): the grid's
/// rows are `a`'s rows, then `b`'s. For the two operands of a product,
/// which would otherwise be two launches one after the other (at small
/// sizes each launch costs more than its copy).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stage2Params {
    /// The first copy (rows `0 .. a.rows` of the grid).
    pub a: StageParams,
    /// The second copy (the grid's rows from `a.rows` on).
    pub b: StageParams,
}

/// The launch of [`Stage2Params`]: as [`stage_config`] over the wider of
/// the two copies' rows and both copies' rows.
pub const fn stage2_config(p: &Stage2Params, elem_bytes: u32) -> LaunchConfig {
    let per = 16 / elem_bytes;
    let (xa, xb) = (p.a.threads_per_row(per), p.b.threads_per_row(per));
    LaunchConfig::cover_2d(if xa > xb { xa } else { xb }, p.a.rows + p.b.rows, [STAGE_THREADS, 1]).fold_rows()
}

/// [`Stage2Params`]' copies: row `r` of the grid copies row `r` of `a` or
/// row `r - a.rows` of `b`.
///
/// # Safety
/// As for [`stage_body`], for both copies.
#[inline(always)]
unsafe fn stage2_body<T: StageElem>((src_a, dst_a): (Global<T>, Global<T>), (src_b, dst_b): (Global<T>, Global<T>), p: Stage2Params) {
    let (x, r) = (global_x(), global_row());
    unsafe {
        if r < p.a.rows {
            stage_at(src_a, dst_a, p.a, x, r)
        } else {
            stage_at(src_b, dst_b, p.b, x, r - p.a.rows)
        }
    }
}

/// Thread `x` of row `r` of [`stage_body`]'s copy.
///
/// # Safety
/// As for [`stage_body`].
#[inline(always)]
unsafe fn stage_at<T: StageElem>(src: Global<T>, dst: Global<T>, p: StageParams, x: u32, r: u32) {
    if r >= p.rows || x >= p.threads_per_row(T::PER) {
        return;
    }
    let round = p.round_tf32 != 0;
    if !p.chunked(T::PER) {
        for b in 0..p.batch {
            let (s, d) = p.offsets_at(b, r, x);
            unsafe { dst.write(d, src.read(s).staged(round)) };
        }
        return;
    }
    let c0 = x * T::PER;
    let n = if c0 + T::PER <= p.cols { T::PER } else { p.cols.saturating_sub(c0) };
    for b in 0..p.batch {
        // `s` is read only at columns inside the matrix.
        let (s, d) = p.offsets_at(b, r, c0);
        unsafe {
            if n == T::PER || p.zero_pad != 0 {
                let v = T::chunk(|e| if e < n { Some(src.read(s + e as usize).staged(round)) } else { None });
                dst.write_vec::<u32x4>(d, v);
            } else {
                for e in 0..n {
                    dst.write(d + e as usize, src.read(s + e as usize).staged(round));
                }
            }
        }
    }
}

kernel! {
    /// Staging copy of a bf16 operand ([`StageParams`]).
    pub fn gemm_stage_bf16(src: Global<Bf16>, dst: Global<Bf16>, p: StageParams) {
        stage_body(src, dst, p)
    }
}

kernel! {
    /// Staging copy of an f16 operand.
    pub fn gemm_stage_f16(src: Global<F16>, dst: Global<F16>, p: StageParams) {
        stage_body(src, dst, p)
    }
}

kernel! {
    /// Staging copy of an f32 (tf32) operand.
    pub fn gemm_stage_f32(src: Global<f32>, dst: Global<f32>, p: StageParams) {
        stage_body(src, dst, p)
    }
}

kernel! {
    /// Staging copies of both bf16 operands ([`Stage2Params`]).
    pub fn gemm_stage2_bf16(src_a: Global<Bf16>, dst_a: Global<Bf16>, src_b: Global<Bf16>, dst_b: Global<Bf16>, p: Stage2Params) {
        stage2_body((src_a, dst_a), (src_b, dst_b), p)
    }
}

kernel! {
    /// Staging copies of both f16 operands.
    pub fn gemm_stage2_f16(src_a: Global<F16>, dst_a: Global<F16>, src_b: Global<F16>, dst_b: Global<F16>, p: Stage2Params) {
        stage2_body((src_a, dst_a), (src_b, dst_b), p)
    }
}

kernel! {
    /// Staging copies of both f32 (tf32) operands.
    pub fn gemm_stage2_f32(src_a: Global<f32>, dst_a: Global<f32>, src_b: Global<f32>, dst_b: Global<f32>, p: Stage2Params) {
        stage2_body((src_a, dst_a), (src_b, dst_b), p)
    }
}

/// Side of the square tiles [`gemm_stage_f32_t`] moves through shared
/// memory: each thread moves 16 elements, all loaded before any is
/// stored (16 loads in flight per thread, 16 KiB per block).
pub const STAGE_T_TILE: u32 = 64;

/// Thread rows of [`gemm_stage_f32_t`]'s block (`32 × 8` threads).
pub const STAGE_T_ROWS: u32 = 8;

/// Elements each thread moves per tile.
pub const STAGE_T_STEPS: u32 = STAGE_T_TILE * STAGE_T_TILE / (32 * STAGE_T_ROWS);

/// Row pitch of the shared tile: one word of padding, so that a warp
/// reading a tile column touches 32 banks.
pub const STAGE_T_PITCH: u32 = STAGE_T_TILE + 1;

/// Where thread `(tx, ty)` of [`gemm_stage_f32_t`] goes in step `s`
/// (`0..STAGE_T_STEPS`): the tile coordinates `(row, col)` of the source
/// element it reads (a warp: 32 consecutive columns of one source row),
/// and those of the element it writes, which lands at the copy's row `col`
/// and column `row` (a warp: 32 consecutive source rows, consecutive in
/// the copy). The shared tile holds source `(row, col)` at `row ·
/// STAGE_T_PITCH + col`.
#[inline(always)]
pub const fn stage_t_coords(tx: u32, ty: u32, s: u32) -> ((u32, u32), (u32, u32)) {
    let per_half = STAGE_T_TILE / STAGE_T_ROWS;
    let (line, half) = (ty + STAGE_T_ROWS * (s % per_half), 32 * (s / per_half));
    ((line, half + tx), (half + tx, line))
}

/// The transposing copy's launch: one block per [`STAGE_T_TILE`]-square
/// tile of the source (x along its columns, rows folded into z past the grid's y
/// limit), the shared tile.
pub const fn stage_t_config(p: &StageParams) -> LaunchConfig {
    let tiles = LaunchConfig::cover_2d(p.cols.div_ceil(STAGE_T_TILE), p.rows.div_ceil(STAGE_T_TILE), [1, 1]);
    LaunchConfig { grid: tiles.grid, block: [32, STAGE_T_ROWS, 1], shared_bytes: STAGE_T_TILE * STAGE_T_PITCH * 4, early_launch: false, cluster: 1 }.fold_rows()
}

kernel! {
    /// Transposed staging copy of an f32 (tf32) operand (`p.transpose`
    /// set; rounded to tf32 with `p.round_tf32`): each block moves a `64 ×
    /// 64` tile of every matrix of the batch through shared memory, so both
    /// the reads (source rows) and the writes (the copy's rows) are
    /// coalesced. Launch: [`stage_t_config`].
    pub fn gemm_stage_f32_t(src: Global<f32>, dst: Global<f32>, p: StageParams) {
        let (tx, ty) = (thread_idx_x(), thread_idx_y());
        let (r0, c0) = (block_row() * STAGE_T_TILE, block_idx_x() * STAGE_T_TILE);
        if r0 >= p.rows {
            // A folded grid's extra blocks (no barrier reached yet).
            return;
        }
        let round = p.round_tf32 != 0;
        let tile = dynamic_shared::<f32>();
        let (lds, ldd) = (p.ld_src as usize, p.ld_dst as usize);
        // Tiles wholly inside the matrix skip the per-element tests.
        let full = r0 + STAGE_T_TILE <= p.rows && c0 + STAGE_T_TILE <= p.cols;
        let inside = |(r, c): (u32, u32)| full || (r0 + r < p.rows && c0 + c < p.cols);
        const STEPS: usize = STAGE_T_STEPS as usize;
        for b in 0..p.batch {
            // Source `(r0 + r, c0 + c)` is `sb + r·ld_src + c`, and lands at
            // `db + c·ld_dst + r`.
            let (sb, db) = p.offsets_at(b, r0, c0);
            let mut v = [0.0f32; STEPS];
            for (s, v) in v.iter_mut().enumerate() {
                let ((r, c), _) = stage_t_coords(tx, ty, s as u32);
                if inside((r, c)) {
                    // SAFETY: inside the source matrix (the host checked its length).
                    *v = unsafe { src.read(sb + r as usize * lds + c as usize) };
                }
            }
            for (s, v) in v.iter().enumerate() {
                let ((r, c), _) = stage_t_coords(tx, ty, s as u32);
                tile.store((r * STAGE_T_PITCH + c) as usize, v.staged(round));
            }
            sync_threads();
            for s in 0..STEPS {
                let (_, (r, c)) = stage_t_coords(tx, ty, s as u32);
                if inside((r, c)) {
                    // SAFETY: inside the copy (the host allocated it for `p`).
                    unsafe { dst.write(db + c as usize * ldd + r as usize, tile.load((r * STAGE_T_PITCH + c) as usize)) };
                }
            }
            sync_threads();
        }
    }
}

/// A bias and activation pass over a matrix (`rows × cols`, leading
/// dimension `ld`): `x = act(x + bias[col])`. What an epilogue that is not
/// fused costs: the benchmark's cuBLAS-then-pass baseline, and a public
/// helper for GEMMs that ran elsewhere.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BiasActParams {
    /// Rows.
    pub rows: u32,
    /// Columns (elements of `bias`).
    pub cols: u32,
    /// Leading dimension.
    pub ld: u32,
    /// The activation ([`super::ACT_NONE`], …).
    pub activation: u32,
}

/// One thread per element, 256 × 1 blocks covering the columns, rows
/// folded into z beyond the grid's y limit.
pub const fn bias_act_config(p: &BiasActParams) -> LaunchConfig {
    LaunchConfig::cover_2d(p.cols, p.rows, [256, 1]).fold_rows()
}

/// The pass.
///
/// # Safety
/// `x` holds the matrix, `bias` its `cols` elements.
#[inline(always)]
unsafe fn bias_act_body<T: super::Value>(x: Global<T>, bias: Global<f32>, p: BiasActParams) {
    let (c, r) = (global_x(), crate::arch::global_row());
    if c < p.cols && r < p.rows {
        let o = Layout2::row_major_ld(p.rows as usize, p.cols as usize, p.ld as usize).offset(r as usize, c as usize);
        unsafe {
            let v = super::act_scale::<T>(p.activation) * (x.read(o).to_f32() + bias.read(c as usize));
            x.write(o, T::one(super::activate::<T>(p.activation, v)));
        }
    }
}

kernel! {
    /// Bias and activation over an f32 matrix ([`BiasActParams`]).
    pub fn gemm_bias_act_f32(x: Global<f32>, bias: Global<f32>, p: BiasActParams) {
        bias_act_body(x, bias, p)
    }
}

kernel! {
    /// Bias and activation over a bf16 matrix.
    pub fn gemm_bias_act_bf16(x: Global<Bf16>, bias: Global<f32>, p: BiasActParams) {
        bias_act_body(x, bias, p)
    }
}

kernel! {
    /// Bias and activation over an f16 matrix.
    pub fn gemm_bias_act_f16(x: Global<F16>, bias: Global<f32>, p: BiasActParams) {
        bias_act_body(x, bias, p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// The transposing copy's steps read every element of a tile once and
    /// write every element once; the write of source `(row, col)` lands
    /// at the copy's `(col, row)`; in each step a warp (one thread row)
    /// reads 32 consecutive source columns and writes 32 consecutive copy
    /// columns; and its shared accesses hit 32 different banks (the
    /// column read through the padded pitch included).
    #[test]
    fn the_transposing_stage_moves_each_tile_element_once_coalesced_and_conflict_free() {
        let steps = STAGE_T_STEPS;
        let (mut read, mut written) = (HashSet::new(), HashSet::new());
        for ty in 0..STAGE_T_ROWS {
            for s in 0..steps {
                let (mut banks_r, mut banks_w) = (HashSet::new(), HashSet::new());
                for tx in 0..32 {
                    let ((r, c), (wr, wc)) = stage_t_coords(tx, ty, s);
                    assert!(r < STAGE_T_TILE && c < STAGE_T_TILE && wr < STAGE_T_TILE && wc < STAGE_T_TILE);
                    assert!(read.insert((r, c)));
                    assert!(written.insert((wr, wc)));
                    // Coalesced: along the source row when reading, along
                    // the copy's row (the source column `wc` fixed, source
                    // rows consecutive) when writing.
                    let ((r0, c0), (wr0, wc0)) = stage_t_coords(0, ty, s);
                    assert_eq!((r, c), (r0, c0 + tx));
                    assert_eq!((wr, wc), (wr0 + tx, wc0));
                    banks_r.insert((r * STAGE_T_PITCH + c) % 32);
                    banks_w.insert((wr * STAGE_T_PITCH + wc) % 32);
                }
                assert_eq!((banks_r.len(), banks_w.len()), (32, 32), "ty {ty} step {s}");
            }
        }
        assert_eq!(read.len() as u32, STAGE_T_TILE * STAGE_T_TILE);
        assert_eq!(read, written);
    }

    /// The launch covers every tile once and its shared tile holds the
    /// padded rows.
    #[test]
    fn the_transposing_stage_launch_covers_the_matrix() {
        for (rows, cols) in [(1u32, 1u32), (31, 33), (4099, 4093), (3_000_000, 7)] {
            let p = StageParams { rows, cols, ld_src: cols, ld_dst: rows, batch: 1, transpose: 1, stride_src: 0, stride_dst: 0, zero_pad: 0, round_tf32: 1 };
            let c = stage_t_config(&p);
            assert_eq!(c.grid[0], cols.div_ceil(STAGE_T_TILE));
            assert!(c.grid[1] as u64 * c.grid[2] as u64 >= rows.div_ceil(STAGE_T_TILE) as u64);
            assert!(c.grid[1] <= crate::launch::MAX_GRID_YZ);
            assert_eq!(c.shared_bytes, STAGE_T_TILE * STAGE_T_PITCH * 4);
            // The block's threads move the tile once ([`stage_t_coords`]'s steps).
            assert_eq!(c.block, [32, STAGE_T_ROWS, 1]);
            assert_eq!(c.block[0] * c.block[1] * STAGE_T_STEPS, STAGE_T_TILE * STAGE_T_TILE);
        }
    }
}
