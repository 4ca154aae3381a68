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

/// `x`, or 1 for 0 (`Ord::max` is not `const`).
const fn max1(x: u32) -> u32 {
    if x == 0 { 1 } else { x }
}

impl StageParams {
    /// Elements of the source a copy reads from its start: one past the
    /// last element of the last matrix (0 for an empty copy). The chunked
    /// copy's aligned reads stay below it.
    pub const fn src_extent(&self) -> usize {
        if self.rows == 0 || self.cols == 0 || self.batch == 0 {
            return 0;
        }
        self.offsets_at(self.batch - 1, self.rows - 1, self.cols - 1).0 + 1
    }

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

    /// Whether the copy runs by warps ([`stage_config`]): chunked,
    /// writing whole copied rows ([`zero_pad`](Self::zero_pad)) — every
    /// operand a GEMM engine stages untransposed (the f32 one's too).
    pub const fn by_warps(&self, per: u32) -> bool {
        self.chunked(per) && self.zero_pad != 0 && self.ld_dst >= per
    }

    /// Chunks of one matrix's copy: its rows of `ld_dst / per` chunks
    /// (padding included), one after the other.
    pub const fn matrix_chunks(&self, per: u32) -> u64 {
        self.rows as u64 * (self.ld_dst / per) as u64
    }

    /// Warps of a copy by warps: one per [`STAGE_SEGMENT`] consecutive
    /// chunks of each matrix's copy (a matrix's last segment may be
    /// shorter).
    pub const fn warp_items(&self, per: u32) -> u64 {
        self.batch as u64 * self.matrix_chunks(per).div_ceil(STAGE_SEGMENT as u64)
    }

    /// `(matrix, first chunk)` of warp `w`'s segment (`w` below
    /// [`warp_items`](Self::warp_items)), the chunk counted over the
    /// matrix's copy row by row: warps in order over matrices and
    /// segments.
    #[inline(always)]
    pub const fn warp_item(&self, per: u32, w: u64) -> (u32, u64) {
        // At least 1 (`w` is below `warp_items`): no division by zero to
        // check for; 32-bit divisions where they suffice.
        let segs = self.matrix_chunks(per).div_ceil(STAGE_SEGMENT as u64);
        let segs = if segs == 0 { 1 } else { segs };
        let (b, seg) = if w <= u32::MAX as u64 && segs <= u32::MAX as u64 { ((w as u32 / segs as u32) as u64, (w as u32 % segs as u32) as u64) } else { (w / segs, w % segs) };
        (b as u32, seg * STAGE_SEGMENT as u64)
    }

    /// `(row, chunk)` of lane `lane`'s [`STAGE_CHUNKS`] slots of the
    /// segment from chunk `first` ([`warp_item`](Self::warp_item)): slot
    /// `s = first + lane + 32 j` is chunk `s % chunks` of row `s / chunks`
    /// — one division for the lane's first, then stepped by 32 chunks;
    /// `None` past the matrix's copy.
    #[inline(always)]
    pub fn warp_slots(&self, per: u32, first: u64, lane: u32) -> [Option<(u32, u32)>; STAGE_CHUNKS as usize] {
        let chunks = max1(self.ld_dst / per);
        // Slots of the matrix's copy from `first` on (`first` is inside it).
        let left = self.matrix_chunks(per).saturating_sub(first);
        let s = first + lane as u64;
        let (mut row, mut chunk) = if s <= u32::MAX as u64 { (s as u32 / chunks, s as u32 % chunks) } else { ((s / chunks as u64) as u32, (s % chunks as u64) as u32) };
        let (step_rows, step_chunks) = (32 / chunks, 32 % chunks);
        let mut out = [None; STAGE_CHUNKS as usize];
        for (j, out) in out.iter_mut().enumerate() {
            *out = (((lane + 32 * j as u32) as u64) < left).then_some((row, chunk));
            chunk += step_chunks;
            row = row.wrapping_add(step_rows);
            if chunk >= chunks {
                chunk -= chunks;
                row = row.wrapping_add(1);
            }
        }
        out
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

/// 16-byte chunks each lane of a copy by warps moves, [`STAGE_CHUNKS`]
/// · 32 = [`STAGE_SEGMENT`] per warp, all loaded before any is stored:
/// several loads in flight per lane (BENCHMARKS.md, "Staging: a copy by
/// warps, kept buffers").
pub const STAGE_CHUNKS: u32 = 4;

/// Consecutive chunks of a matrix's copy one warp moves in a copy by
/// warps.
pub const STAGE_SEGMENT: u32 = 32 * STAGE_CHUNKS;

/// Warps per block of a copy by warps.
const STAGE_WARPS: u32 = STAGE_THREADS / 32;

/// `warps` warps in blocks of [`STAGE_THREADS`] along x.
const fn warps_launch(warps: u64) -> LaunchConfig {
    LaunchConfig::linear(warps.div_ceil(STAGE_WARPS as u64) as u32, STAGE_THREADS)
}

/// A copy by warps ([`StageParams::by_warps`]: every staged operand)
/// runs a warp per [`STAGE_SEGMENT`] consecutive chunks of a matrix's
/// copy (its rows one after the other, padding included), lane `l` moving
/// chunks `l, l + 32, …` of the segment ([`StageParams::warp_slots`]): a
/// store instruction writes 512 consecutive bytes of the copy, and every
/// lane is busy but in a matrix's last segment, whatever the rows' length.
/// Other copies: for a chunked one one thread per 16-byte
/// chunk of a copied row, otherwise one per `(row, column)` (x along the
/// source's rows: coalesced reads), rows folded into z beyond the grid's
/// y limit. `elem_bytes`: 2 or 4.
pub const fn stage_config(p: &StageParams, elem_bytes: u32) -> LaunchConfig {
    let per = 16 / elem_bytes;
    if p.by_warps(per) {
        return warps_launch(p.warp_items(per));
    }
    LaunchConfig::cover_2d(p.threads_per_row(per), p.rows, [STAGE_THREADS, 1]).fold_rows()
}

/// An element the staging copy moves as raw bits, `PER` to a 16-byte chunk.
pub trait StageElem: Copy {
    /// Elements per 16-byte chunk.
    const PER: u32;
    /// A chunk of source bits as staged: each element rounded to tf32 when
    /// `round` (f32 only; the 16-bit types' chunks are returned as they are).
    #[inline(always)]
    fn staged_chunk(v: u32x4, _round: bool) -> u32x4 {
        v
    }
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
    fn staged_chunk(v: u32x4, round: bool) -> u32x4 {
        if round { u32x4::from_array(core::array::from_fn(|i| cvt_rna_tf32_f32(f32::from_bits(v[i])))) } else { v }
    }
    #[inline(always)]
    fn chunk(get: impl Fn(u32) -> Option<Self>) -> u32x4 {
        u32x4::from_array(core::array::from_fn(|i| get(i as u32).map_or(0, f32::to_bits)))
    }
}

/// Bytes `shift .. shift + 16` of the 32 bytes `hi:lo` (`lo` first in
/// memory; `shift` below 16, a multiple of 2): the 16 bytes from a
/// position inside one aligned chunk, out of it and the next. Two steps
/// of word selects (by 2 words, then by 1) and one funnel shift per word
/// (`SHF.R`), so no register array is indexed at run time.
#[inline(always)]
pub fn realign16(lo: u32x4, hi: u32x4, shift: u32) -> u32x4 {
    let mut w = [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]];
    let words = shift / 4;
    if words & 2 != 0 {
        for j in 0..6 {
            w[j] = w[j + 2];
        }
    }
    if words & 1 != 0 {
        for j in 0..5 {
            w[j] = w[j + 1];
        }
    }
    let bits = 8 * (shift % 4);
    u32x4::from_array(core::array::from_fn(|i| ((((w[i + 1] as u64) << 32) | w[i] as u64) >> bits) as u32))
}

/// The `T::PER` source elements from `s` on as one chunk, read as the one
/// or two 16-byte aligned chunks that hold them ([`realign16`]; the
/// source starts 16-byte aligned): two vector loads where `PER` element
/// loads were, so a warp issues a quarter of the loads. `None` where the
/// second aligned chunk would reach `extent` ([`StageParams::src_extent`]),
/// the end of what the copy may read: the caller reads element by element.
///
/// # Safety
/// The source holds `extent` elements and starts 16-byte aligned; `s +
/// T::PER <= extent`.
#[inline(always)]
unsafe fn read_chunk<T: StageElem>(src: Global<T>, s: usize, extent: usize) -> Option<u32x4> {
    let per = T::PER as usize;
    let sh = s % per;
    let lo = s - sh;
    // SAFETY: `lo .. lo + per` (and `.. lo + 2 per` when read) lie below
    // `extent`, and `lo` is a multiple of 16 bytes from the start.
    unsafe {
        if sh == 0 {
            return Some(src.read_vec::<u32x4>(lo));
        }
        if lo + 2 * per > extent {
            return None;
        }
        Some(realign16(src.read_vec::<u32x4>(lo), src.read_vec::<u32x4>(lo + per), (sh * size_of::<T>()) as u32))
    }
}

/// The copy ([`stage_config`]'s mapping): each thread copies its chunk,
/// or its `(row, column)`, of every matrix of the batch (no division per
/// element).
///
/// # Safety
/// The buffers hold every element `p` reaches; a chunked copy's
/// destination and source start 16-byte aligned (every buffer does).
#[inline(always)]
unsafe fn stage_body<T: StageElem>(src: Global<T>, dst: Global<T>, p: StageParams) {
    unsafe {
        if p.by_warps(T::PER) {
            stage_warp(src, dst, p, global_warp())
        } else {
            stage_at(src, dst, p, global_x(), global_row())
        }
    }
}

/// This warp's global index (blocks of [`STAGE_WARPS`] warps along x).
#[inline(always)]
fn global_warp() -> u64 {
    block_idx_x() as u64 * STAGE_WARPS as u64 + (thread_idx_x() / 32) as u64
}

/// Warp `w`'s segment of a copy by warps ([`stage_config`]): this lane's
/// [`STAGE_CHUNKS`] chunks, 32 slots apart ([`StageParams::warp_slots`]),
/// each read as [`chunk_at`] reads it, then all stored (16-byte stores).
///
/// # Safety
/// As for [`stage_body`]; `p` is a copy by warps.
#[inline(always)]
unsafe fn stage_warp<T: StageElem>(src: Global<T>, dst: Global<T>, p: StageParams, w: u64) {
    if w >= p.warp_items(T::PER) {
        return;
    }
    let (b, first) = p.warp_item(T::PER, w);
    let (round, extent) = (p.round_tf32 != 0, p.src_extent());
    let slots = p.warp_slots(T::PER, first, thread_idx_x() % 32);
    let mut v = [u32x4::splat(0); STAGE_CHUNKS as usize];
    for (v, slot) in v.iter_mut().zip(&slots) {
        if let Some((r, chunk)) = *slot {
            let c0 = chunk * T::PER;
            let n = if c0 + T::PER <= p.cols { T::PER } else { p.cols.saturating_sub(c0) };
            // SAFETY: `n` elements from there are inside the source row.
            *v = unsafe { chunk_at::<T>(src, p.offsets_at(b, r, c0).0, n, extent, round) };
        }
    }
    for (v, slot) in v.iter().zip(&slots) {
        if let Some((r, chunk)) = *slot {
            // SAFETY: a chunk of the copied row (16-byte aligned: `chunked`).
            unsafe { dst.write_vec::<u32x4>(p.offsets_at(b, r, chunk * T::PER).1, *v) };
        }
    }
}

/// The chunk of a copy whose source elements start at `s`: its `n`
/// elements (fewer than `T::PER` at the end of a row, 0 in the padding)
/// as staged, zeros after them. Read as [`read_chunk`] reads a whole chunk
/// wherever the `T::PER` elements from `s` lie inside the source — at the
/// end of a row the ones past it (the next row's, or a gap) are read too
/// and cleared ([`keep_bytes`]), so a row's last chunk costs no more loads
/// than the others and a warp's lanes stay on one path — otherwise (at the
/// source's very end) element by element.
///
/// # Safety
/// Elements `s .. s + n` are inside the source, which holds `extent`
/// elements ([`StageParams::src_extent`]) and starts 16-byte aligned.
#[inline(always)]
unsafe fn chunk_at<T: StageElem>(src: Global<T>, s: usize, n: u32, extent: usize, round: bool) -> u32x4 {
    unsafe {
        if n > 0
            && s + T::PER as usize <= extent
            && let Some(v) = read_chunk(src, s, extent)
        {
            let v = if n < T::PER { keep_bytes(v, n * size_of::<T>() as u32) } else { v };
            return T::staged_chunk(v, round);
        }
        T::chunk(|e| if e < n { Some(src.read(s + e as usize).staged(round)) } else { None })
    }
}

/// The first `bytes` bytes of `v` (memory order, little-endian words),
/// zeros after them (`bytes` at most 16).
#[inline(always)]
pub fn keep_bytes(v: u32x4, bytes: u32) -> u32x4 {
    u32x4::from_array(core::array::from_fn(|i| {
        let kept = bytes.saturating_sub(4 * i as u32);
        if kept >= 4 { v[i] } else { v[i] & ((1u32 << (8 * kept)) - 1) }
    }))
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

impl Stage2Params {
    /// Whether both copies run by warps ([`StageParams::by_warps`]).
    pub const fn by_warps(&self, per: u32) -> bool {
        self.a.by_warps(per) && self.b.by_warps(per)
    }
}

/// The launch of [`Stage2Params`]: two copies by warps as [`stage_config`]
/// over both copies' warps (`a`'s first); otherwise over the wider of the
/// two copies' rows and both copies' rows.
pub const fn stage2_config(p: &Stage2Params, elem_bytes: u32) -> LaunchConfig {
    let per = 16 / elem_bytes;
    if p.by_warps(per) {
        return warps_launch(p.a.warp_items(per) + p.b.warp_items(per));
    }
    let (xa, xb) = (p.a.threads_per_row(per), p.b.threads_per_row(per));
    LaunchConfig::cover_2d(if xa > xb { xa } else { xb }, p.a.rows + p.b.rows, [STAGE_THREADS, 1]).fold_rows()
}

/// [`Stage2Params`]' copies: by warps, warp `w` copies `a`'s segment `w`
/// or `b`'s segment `w - a`'s warps; otherwise grid row `r` copies row `r`
/// of `a` or row `r - a.rows` of `b`.
///
/// # Safety
/// As for [`stage_body`], for both copies.
#[inline(always)]
unsafe fn stage2_body<T: StageElem>((src_a, dst_a): (Global<T>, Global<T>), (src_b, dst_b): (Global<T>, Global<T>), p: Stage2Params) {
    if p.by_warps(T::PER) {
        let (w, wa) = (global_warp(), p.a.warp_items(T::PER));
        unsafe {
            if w < wa {
                stage_warp(src_a, dst_a, p.a, w)
            } else {
                stage_warp(src_b, dst_b, p.b, w - wa)
            }
        }
        return;
    }
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
    let extent = p.src_extent();
    for b in 0..p.batch {
        // `s` is read only at columns inside the matrix.
        let (s, d) = p.offsets_at(b, r, c0);
        unsafe {
            if n == T::PER || p.zero_pad != 0 {
                dst.write_vec::<u32x4>(d, chunk_at::<T>(src, s, n, extent, round));
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
    use proptest::prelude::*;
    use std::collections::HashSet;

    proptest! {
        /// [`realign16`] returns the 16 bytes from `shift` on of the 32
        /// bytes `hi:lo` (memory order, little-endian words), for every
        /// even shift below 16.
        #[test]
        fn realign16_is_the_byte_window(bytes in prop::array::uniform32(any::<u8>()), half in 0u32..8) {
            let word = |i: usize| u32::from_le_bytes([bytes[4 * i], bytes[4 * i + 1], bytes[4 * i + 2], bytes[4 * i + 3]]);
            let (lo, hi) = (u32x4::from_array(core::array::from_fn(word)), u32x4::from_array(core::array::from_fn(|i| word(i + 4))));
            let shift = 2 * half;
            let got: std::vec::Vec<u8> = realign16(lo, hi, shift).to_array().iter().flat_map(|w| w.to_le_bytes()).collect();
            prop_assert_eq!(&got[..], &bytes[shift as usize..shift as usize + 16]);
        }
    }

    proptest! {
        /// [`keep_bytes`] keeps the first `bytes` bytes and clears the rest.
        #[test]
        fn keep_bytes_clears_past_the_count(bytes in prop::array::uniform16(any::<u8>()), count in 0u32..=16) {
            let word = |i: usize| u32::from_le_bytes([bytes[4 * i], bytes[4 * i + 1], bytes[4 * i + 2], bytes[4 * i + 3]]);
            let got: std::vec::Vec<u8> = keep_bytes(u32x4::from_array(core::array::from_fn(word)), count).to_array().iter().flat_map(|w| w.to_le_bytes()).collect();
            for (i, (&g, &b)) in got.iter().zip(&bytes).enumerate() {
                prop_assert_eq!(g, if (i as u32) < count { b } else { 0 }, "byte {}", i);
            }
        }
    }

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

    proptest! {
        /// A copy by warps reaches every chunk of every row of every
        /// matrix exactly once, in bounds: each warp's segment
        /// ([`StageParams::warp_item`]) and its lanes' slots
        /// ([`StageParams::warp_slots`], chunk `s % chunks` of row `s /
        /// chunks` for slot `s` of the matrix's copy), over the launch's
        /// warps, alone and as the second copy of a pair — rows of one
        /// chunk to many segments; every slot of a segment busy but in a
        /// matrix's last.
        #[test]
        fn a_copy_by_warps_reaches_every_chunk_once(rows in 1u32..40, chunks in 1u32..600, batch in 1u32..4, per in prop::sample::select(std::vec![4u32, 8])) {
            let ld_dst = chunks * per;
            let cols = ld_dst - (ld_dst / 3).min(per - 1);
            let p = StageParams { rows, cols, ld_src: cols + 1, ld_dst, batch, transpose: 0, stride_src: 0, stride_dst: (rows * ld_dst) as u64, zero_pad: 1, round_tf32: 0 };
            prop_assert!(p.by_warps(per));
            let pair = Stage2Params { a: StageParams { rows: 3, ..p }, b: p };
            let total = rows as u64 * chunks as u64;
            for (c, skip) in [(stage_config(&p, 16 / per), 0), (stage2_config(&pair, 16 / per), pair.a.warp_items(per))] {
                prop_assert_eq!((c.grid[1], c.grid[2], c.block), (1, 1, [STAGE_THREADS, 1, 1]));
                let warps = c.grid[0] as u64 * STAGE_WARPS as u64;
                prop_assert!(warps >= skip + p.warp_items(per) && warps < skip + p.warp_items(per) + STAGE_WARPS as u64);
                let mut seen = HashSet::new();
                for w in 0..p.warp_items(per) {
                    let (b, first) = p.warp_item(per, w);
                    prop_assert!(b < batch && first < total && first % STAGE_SEGMENT as u64 == 0);
                    let mut busy = 0;
                    for lane in 0..32 {
                        for (j, slot) in p.warp_slots(per, first, lane).into_iter().enumerate() {
                            let s = first + (lane + 32 * j as u32) as u64;
                            if let Some((r, chunk)) = slot {
                                prop_assert_eq!((r as u64, chunk as u64), (s / chunks as u64, s % chunks as u64));
                                prop_assert!(r < rows && chunk < chunks);
                                prop_assert!(seen.insert((b, r, chunk)));
                                busy += 1;
                            } else {
                                prop_assert!(s >= total, "slot {} of {} left out", s, total);
                            }
                        }
                    }
                    prop_assert_eq!(busy as u64, (total - first).min(STAGE_SEGMENT as u64));
                }
                prop_assert_eq!(seen.len() as u64, batch as u64 * total);
            }
        }
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
