//! Index math of the SGEMM ladder: every thread → coordinate map and every
//! shared-memory layout the rungs use, as small `const fn`s over
//! [`Layout2`] / [`Layout3`] / [`Swizzle`]. The tests at the bottom check
//! the properties the rungs rely on: each tile load covers its tile exactly
//! once with the block's threads, each global load is coalesced, and the
//! bank-conflict degree of each shared store and load.

use crate::launch::LaunchConfig;
use crate::layout::{Layout2, Layout3, Swizzle};

use super::GemmParams;

/// Shared tile kind: row-major with no padding.
pub const PLAIN: usize = 0;
/// Shared tile kind: 4 floats of padding after each row (keeps rows 16-byte
/// aligned for `ld.shared.v4`, shifts each row by 4 banks).
pub const PADDED: usize = 1;
/// Shared tile kind: XOR-swizzled columns (CuTe `Swizzle<B, M, S>` on the
/// tile's offsets), no padding.
pub const SWIZZLED: usize = 2;

/// A shared-memory tile: a row-major [`Layout2`] whose offsets are passed
/// through a [`Swizzle`].
///
/// With a power-of-two row stride `2^L`, a swizzle either takes its source
/// bits from the row (bits ≥ `L`: the XOR mask of a row is one constant
/// once the kernel's `k` loop is unrolled) or from the column (bits < `L`);
/// its target bits are column bits. So `offset(r, c)` is
/// `layout.offset(r, c ^ mask(r, c))` with `mask` depending on `r` alone or
/// on `c` alone; the tests check it equals `swizzle.apply(layout.offset(r, c))`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmemTile {
    /// The unswizzled row-major layout (rows, cols, row stride).
    pub layout: Layout2,
    /// Applied to the offset ([`Swizzle::NONE`] for plain/padded tiles).
    pub swizzle: Swizzle,
}

impl SmemTile {
    const fn mask(&self) -> usize {
        ((1usize << self.swizzle.bits) - 1) << self.swizzle.base
    }

    /// Whether the swizzle reads row bits (else column bits).
    pub const fn row_sourced(&self) -> bool {
        self.swizzle.base + self.swizzle.shift >= self.layout.row_stride.trailing_zeros()
    }

    /// Whether the fast form of [`SmemTile::offset`] is exact: no swizzle,
    /// or a power-of-two row stride with target bits inside the column and
    /// source bits wholly in the row or wholly in the column.
    pub const fn is_valid(&self) -> bool {
        if self.swizzle.bits == 0 {
            return true;
        }
        let l = self.layout.row_stride.trailing_zeros();
        let (lo, hi) = (self.swizzle.base + self.swizzle.shift, self.swizzle.base + self.swizzle.shift + self.swizzle.bits);
        self.swizzle.is_valid()
            && self.layout.row_stride.is_power_of_two()
            && self.layout.row_stride == self.layout.cols
            && self.swizzle.base + self.swizzle.bits <= l
            && (lo >= l || hi <= l)
    }

    /// The XOR applied to column `c` of row `r`.
    #[inline(always)]
    pub const fn col_xor(&self, r: usize, c: usize) -> usize {
        if self.swizzle.bits == 0 {
            0
        } else if self.row_sourced() {
            ((r * self.layout.row_stride) >> self.swizzle.shift) & self.mask()
        } else {
            (c >> self.swizzle.shift) & self.mask()
        }
    }

    /// Offset (in floats) of `(r, c)`.
    #[inline(always)]
    pub const fn offset(&self, r: usize, c: usize) -> usize {
        self.layout.offset(r, c ^ self.col_xor(r, c))
    }

    /// Floats the tile occupies, rounded up to 4 (the next tile stays
    /// 16-byte aligned).
    pub const fn footprint(&self) -> usize {
        (self.layout.rows * self.layout.row_stride).next_multiple_of(4)
    }
}

/// `log2` of a power of two.
pub const fn log2(x: usize) -> u32 {
    assert!(x.is_power_of_two(), "not a power of two");
    x.trailing_zeros()
}

/// The `A` tile stored transposed: `(BK, BM)`, element `(k, m)`; the
/// float4 global load of `A` reads 4 consecutive `k` of one row `m` and
/// stores them as 4 scalars down a column of this tile.
///
/// With `BK / 4` float4s per `A` row, a warp's store of one `k` covers
/// `32 / (BK/4)` consecutive `m` of `BK / 4` different rows of this tile;
/// those rows are `4 · BM` floats apart, the same banks. [`PADDED`] adds 4
/// floats per row (two groups of 16 rows → banks shifted by 16: conflict-free
/// for `BK = 8`); [`SWIZZLED`] XORs bits 2.. of `k` into the `m` bits just
/// above the warp's run of `m` (conflict-free for every `BK`).
pub const fn a_tile_t(bm: usize, bk: usize, kind: usize) -> SmemTile {
    match kind {

        PADDED => SmemTile { layout: Layout2::padded(bk, bm, 4), swizzle: Swizzle::NONE },
        SWIZZLED => {
            let groups = bk / 4; // float4s per A row
            let bits = log2(groups);
            let base = 5 - bits; // the warp covers 2^base consecutive m
            // source: bit 2 of k, i.e. bit 2 + log2(bm) of the offset
            let shift = 2 + log2(bm) - base;
            SmemTile { layout: Layout2::row_major(bk, bm), swizzle: Swizzle { bits, base, shift } }
        }
        _ => SmemTile { layout: Layout2::row_major(bk, bm), swizzle: Swizzle::NONE },
    }
}

/// The `B` tile `(BK, BN)`, element `(k, n)`, stored as in global memory.
///
/// [`SWIZZLED`] XORs bit 3 of the float4 index into bit 0 (`Swizzle<1, 2,
/// 3>` on float offsets): the blocktiled rungs read 8 consecutive floats per
/// thread (two float4s), so lanes 0 and 4 of a quarter-warp hit the same
/// banks; the swizzle moves every odd group of 8 float4s by one float4.
pub const fn b_tile(bk: usize, bn: usize, kind: usize) -> SmemTile {
    match kind {
        PADDED => SmemTile { layout: Layout2::padded(bk, bn, 4), swizzle: Swizzle::NONE },
        SWIZZLED => SmemTile { layout: Layout2::row_major(bk, bn), swizzle: Swizzle { bits: 1, base: 2, shift: 3 } },
        _ => SmemTile { layout: Layout2::row_major(bk, bn), swizzle: Swizzle::NONE },
    }
}

/// The `A` tile of the multistage rung: `(BM, BK)`, element `(m, k)`, as
/// in global memory (`cp.async` copies 16-byte chunks unchanged, so `A`
/// cannot be transposed on the way), with the chunk index (bits 2.. of
/// the offset, `log2(BK/4)` of them) XORed with the row bits just above
/// one 128-byte line (`Swizzle<log2(BK/4), 2, 3>` on float offsets).
///
/// The compute loop reads 4 consecutive `k` of one row as a float4; the 8
/// lanes of one `ld.shared.v4` phase read up to 8 consecutive rows (the
/// multistage thread map interleaves rows by lane, [`LaneTiling`]). Rows
/// are `BK` floats long, so without the swizzle rows `32 / BK` apart share
/// banks (2-way for `BK = 16`, 4-way for 32); with it the 8 rows of a
/// phase hit 8 different 16-byte bank groups.
pub const fn a_tile_rows(bm: usize, bk: usize) -> SmemTile {
    SmemTile { layout: Layout2::row_major(bm, bk), swizzle: Swizzle { bits: log2(bk / 4), base: 2, shift: 3 } }
}

/// Which element of an `(rows, cols)` tile pass `p` of thread `t` loads,
/// when `nt` threads load it `vec` consecutive elements at a time: the
/// tile is seen as `(rows, cols / vec)` vectors, numbered row-major, and
/// vector `p · nt + t` is taken — consecutive threads read consecutive
/// vectors of a row (coalesced), whatever the thread count ("thread
/// re-mapping so the tile load matches the thread count").
#[inline(always)]
pub const fn tile_load(t: usize, p: usize, nt: usize, cols: usize, vec: usize) -> (usize, usize) {
    let per_row = cols / vec; // vectors per row: the inverse of row-major (rows, per_row)
    let idx = p * nt + t;
    (idx / per_row, (idx % per_row) * vec)
}

/// [`tile_load`] of single elements for an operand that may be stored
/// transposed: element `(r, c)` of the `(rows, cols)` tile that thread `t`
/// of `nt` loads in pass `p`, consecutive threads walking the stored rows —
/// along `c` when the operand is stored as is, along `r` when it is stored
/// transposed (`transposed`), so the loads stay coalesced either way.
#[inline(always)]
pub const fn tile_load_stored(t: usize, p: usize, nt: usize, (rows, cols): (usize, usize), transposed: bool) -> (usize, usize) {
    if transposed {
        let (c, r) = tile_load(t, p, nt, rows, 1);
        (r, c)
    } else {
        tile_load(t, p, nt, cols, 1)
    }
}

/// Bytes of the 16-byte chunk starting at column `c` of a row that lie
/// inside the matrix (`cols` columns; `row_ok`: the row is inside): 16 for
/// a whole chunk, 4 · (cols − c) for the last, partial one, 0 outside.
/// The source size of a zero-filling `cp.async` (32-bit arithmetic: the
/// dimensions are `u32`).
#[inline(always)]
pub const fn chunk_bytes(row_ok: bool, c: u32, cols: u32) -> u32 {
    if !row_ok || c >= cols {
        0
    } else if cols - c >= 4 {
        16
    } else {
        4 * (cols - c)
    }
}

/// Passes [`tile_load`] needs to cover a tile of `rows × cols` with `nt`
/// threads (the configs make this exact: see [`tile_load_is_exact`]).
pub const fn tile_load_passes(rows: usize, cols: usize, nt: usize, vec: usize) -> usize {
    rows * cols / vec / nt
}

/// Whether `nt` threads cover `rows × cols` exactly in whole passes.
pub const fn tile_load_is_exact(rows: usize, cols: usize, nt: usize, vec: usize) -> bool {
    cols % vec == 0 && (rows * cols / vec) % nt == 0 && rows * cols / vec >= nt
}

/// Origin `(m0, n0)` of the block tile of block `(bx, by)`: x runs over
/// the `N` tiles, y over the `M` tiles.
#[inline(always)]
pub const fn block_origin(bx: u32, by: u32, bm: usize, bn: usize) -> (usize, usize) {
    (by as usize * bm, bx as usize * bn)
}

/// Grid of `(bm, bn)` block tiles covering `C`, `threads` per block.
pub const fn tiled_config(p: &GemmParams, bm: usize, bn: usize, threads: u32) -> LaunchConfig {
    LaunchConfig {
        grid: [(p.n as usize).div_ceil(bn) as u32, (p.m as usize).div_ceil(bm) as u32, 1],
        block: [threads, 1, 1],
        shared_bytes: 0,
        early_launch: false,
            cluster: 1,
    }
}

/// Whether the block tile at `(m0, n0)` lies entirely inside `C`: then its
/// loads of `A` rows and `B` columns and its stores need no predicate.
#[inline(always)]
pub const fn tile_is_interior(p: &GemmParams, m0: usize, n0: usize, bm: usize, bn: usize) -> bool {
    m0 + bm <= p.m as usize && n0 + bn <= p.n as usize
}

/// The blocktiled rungs' thread → results map: thread `t` of a
/// `(BM/TM) × (BN/TN)` grid of threads owns rows `tr·TM + i` and columns
/// `tc·TN + j` of the block tile. As a layout: the block tile is
/// `(BM/TM, TM)` rows by `(BN/TN, TN)` columns.
#[inline(always)]
pub const fn thread_tile(t: usize, bn: usize, tn: usize) -> (usize, usize) {
    let per_row = bn / tn; // threads per row of the thread grid
    (t / per_row, t % per_row)
}

/// Rows of the block tile owned by thread row `tr`: `(BM/TM, TM)` indexed
/// by `(tr, i)`.
#[inline(always)]
pub const fn rows_of(bm: usize, tm: usize) -> Layout2 {
    Layout2::row_major(bm / tm, tm)
}

/// The seeds' `As[(threadRow·TM + i)·BK + dotIdx]`: the row-major `(BM, BK)`
/// A tile seen as `(BM/TM, TM, BK)` indexed by `(threadRow, i, dotIdx)`.
#[inline(always)]
pub const fn a_tile_by_thread(bm: usize, tm: usize, bk: usize) -> Layout3 {
    Layout3::row_major(bm / tm, tm, bk)
}

/// The warptiled rung's thread → results map inside the block tile.
///
/// The block is a `(BM/WM) × (BN/WN)` grid of warps (warp `w` at
/// `(w / (BN/WN), w % (BN/WN))`); a warp's `32` lanes are an `LM × LN`
/// grid, lane `l` at `(l % LM, l / LM)`; each lane owns `WMITER × WNITER`
/// sub-tiles of `4 × 4`. Result row `i` (of `WMITER · 4`) of the lane is
/// `(WMITER, LM, 4)` with strides `(LM·4, 4, 1)` indexed by
/// `(i / 4, lane_m, i % 4)`, plus the warp's first row; columns likewise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpTiling {
    /// Warp tile rows.
    pub wm: usize,
    /// Warp tile columns.
    pub wn: usize,
    /// Lanes along M (`LN = 32 / LM`).
    pub lm: usize,
    /// Block tile columns.
    pub bn: usize,
}

impl WarpTiling {
    /// Lanes along N.
    pub const fn ln(&self) -> usize {
        32 / self.lm
    }
    /// Sub-tiles of 4 rows per lane.
    pub const fn wmiter(&self) -> usize {
        self.wm / (self.lm * 4)
    }
    /// Sub-tiles of 4 columns per lane.
    pub const fn wniter(&self) -> usize {
        self.wn / (self.ln() * 4)
    }
    /// The lane's rows within its warp tile: `(WMITER, LM, 4)`.
    pub const fn lane_rows(&self) -> Layout3 {
        Layout3 { shape: [self.wmiter(), self.lm, 4], stride: [self.lm * 4, 4, 1] }
    }
    /// The lane's columns within its warp tile: `(WNITER, LN, 4)`.
    pub const fn lane_cols(&self) -> Layout3 {
        Layout3 { shape: [self.wniter(), self.ln(), 4], stride: [self.ln() * 4, 4, 1] }
    }
    /// First row and column of thread `t`'s first sub-tile in the block
    /// tile (add `lane_rows().offset(wi, 0, 0)` etc. for the others).
    #[inline(always)]
    pub const fn origin(&self, t: usize) -> (usize, usize) {
        let (warp, lane) = (t / 32, t % 32);
        let warps_n = self.bn / self.wn;
        let (wr, wc) = (warp / warps_n, warp % warps_n);
        let (lr, lc) = (lane % self.lm, lane / self.lm);
        (wr * self.wm + self.lane_rows().offset(0, lr, 0), wc * self.wn + self.lane_cols().offset(0, lc, 0))
    }
}

/// The multistage rung's thread → results map inside the block tile.
///
/// Warps form a `(BM/WM) × (BN/WN)` grid as in [`WarpTiling`]; a warp's
/// 32 lanes are `LM × LN` with `LM = WM / TM`, lane `l` at
/// `(l % LM, l / LM)`. A lane's `TM` result rows are interleaved with the
/// other lanes' (`lane_m + i · LM`: `A` is read along `k` now, so rows
/// need not come in runs of 4, and neighbouring lanes read neighbouring
/// rows: conflict-free with [`a_tile_rows`]); its `TN` columns are
/// `(TN/4, LN, 4)` as in [`WarpTiling`] (float4 loads of `B`, float4
/// stores of `C`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneTiling {
    /// Warp tile rows.
    pub wm: usize,
    /// Warp tile columns.
    pub wn: usize,
    /// Results per thread along M.
    pub tm: usize,
    /// Results per thread along N (a multiple of 4).
    pub tn: usize,
    /// Block tile columns.
    pub bn: usize,
}

impl LaneTiling {
    /// Lanes along M.
    pub const fn lm(&self) -> usize {
        self.wm / self.tm
    }
    /// Lanes along N.
    pub const fn ln(&self) -> usize {
        32 / self.lm()
    }
    /// Whether the warp tile is exactly `LM × LN` lanes of `TM × TN`.
    pub const fn is_valid(&self) -> bool {
        let lm = self.wm / self.tm;
        self.tm > 0
            && self.wm % self.tm == 0
            && lm.is_power_of_two()
            && lm <= 32
            && self.tn % 4 == 0
            && self.wn == (32 / lm) * self.tn
            && self.bn % self.wn == 0
    }
    /// A lane's rows: `(TM)` with stride `LM`.
    pub const fn rows(&self) -> Layout2 {
        Layout2 { rows: self.tm, cols: 1, row_stride: self.lm(), col_stride: 1 }
    }
    /// A lane's columns: `(TN/4, 4)`, groups `LN · 4` apart.
    pub const fn cols(&self) -> Layout2 {
        Layout2 { rows: self.tn / 4, cols: 4, row_stride: self.ln() * 4, col_stride: 1 }
    }
    /// First row and column of thread `t`'s results in the block tile.
    #[inline(always)]
    pub const fn origin(&self, t: usize) -> (usize, usize) {
        let (warp, lane) = (t / 32, t % 32);
        let warps_n = self.bn / self.wn;
        let (wr, wc) = (warp / warps_n, warp % warps_n);
        let lm = self.lm();
        (wr * self.wm + lane % lm, wc * self.wn + (lane / lm) * 4)
    }
}

/// The row an edge block's unpredicated `A` load reads for tile row `row`:
/// rows past the last (`m − 1`) read the last instead (their products
/// land in rows of `C` that are never written). `m ≥ 1`.
#[inline(always)]
pub const fn clamp_row(row: usize, m: usize) -> usize {
    if row < m { row } else { m - 1 }
}

/// The first column an edge block's unpredicated float4 `B` load reads for
/// a vector starting at `col` (a multiple of 4) in rows of `ldb` elements
/// (a multiple of 4, ≥ `n`): the vector itself when it starts inside the
/// row (its elements past `n`, up to `ldb`, are read but land in columns
/// of `C` that are never written), the row's last vector otherwise. The
/// result and its 3 successors lie inside the row; the columns below `n`
/// read are exactly those of the vector at `col`.
#[inline(always)]
pub const fn clamp_vec_col(col: usize, ldb: usize) -> usize {
    if col + 4 <= ldb { col } else { ldb - 4 }
}

/// `k` tiles (of `bk`) an edge block loads unpredicated: those ending
/// before `B`'s last row, the only row whose `ldb − n` trailing elements
/// may lie past the end of the buffer.
#[inline(always)]
pub const fn edge_full_k_tiles(k: usize, bk: usize) -> usize {
    if k == 0 { 0 } else { (k - 1) / bk }
}

/// k tiles `kt0..kt1` (of `bk`) that split-k slice `z` runs: `ks / bk`
/// tiles per slice (`ks` a multiple of `bk`), the last slice cut at
/// `ktiles`; empty past it.
#[inline(always)]
pub const fn split_k_tiles(z: u32, ks: u32, bk: usize, ktiles: usize) -> (usize, usize) {
    let per = ks as usize / bk;
    let (a, b) = (z as usize * per, (z as usize + 1) * per);
    (if a < ktiles { a } else { ktiles }, if b < ktiles { b } else { ktiles })
}

/// Shortest `k` of one split-k slice (shorter slices cost more in
/// workspace traffic than they gain in parallelism): a multiple of every
/// split-k tiling's `bk`.
pub const SPLIT_K_MIN_DEPTH: u32 = 256;

/// Slices of `ks` that cover `k`.
pub const fn split_k_slices(k: u32, ks: u32) -> u32 {
    k.div_ceil(ks)
}

/// Where slice `z` of the split-k workspace starts: the slices are
/// `m × ldc` matrices (`p.ldc`: the workspace's leading dimension) one
/// after the other: the start of slice `z` of the
/// [`SplitKWorkspace`](crate::gemm::index::SplitKWorkspace) the
/// reduction reads (`split_k_slice_offset_is_the_workspace_slice` checks
/// that they agree; written as `z · m · ldc` because that association is
/// what the shipped PTX of the partial-product kernel was measured with).
#[inline(always)]
pub const fn split_k_slice_offset(z: u32, p: &GemmParams) -> usize {
    z as usize * p.m as usize * p.ldc as usize
}

#[cfg(test)]
mod tests;
