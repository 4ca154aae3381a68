//! Index math of the tensor-core engine: shared-memory tile layouts (128-byte
//! swizzled panels), the thread → chunk map of the global → shared copies,
//! the `ldmatrix` row addresses of each operand orientation, and the block
//! order over the grid.
//!
//! Every map is a `const fn` that the kernel calls and the tests below
//! check (bijective, in bounds, bank-conflict-free).

use crate::layout::fragment as frag;
use crate::layout::Swizzle;

/// Bytes of one `cp.async` / `ldmatrix` chunk (a 16-byte vector).
pub const CHUNK: usize = 16;

/// Bytes of one swizzled panel row: the width of the 128-byte swizzle
/// (TMA's and wgmma's `SWIZZLE_128B` too).
pub const PANEL_BYTES: usize = 128;

/// The swizzle of every shared tile: within each 1024-byte block, the
/// 16-byte chunk (bits 4..7 of the byte offset) is XORed with bits 7..10.
/// On 128-byte rows that is `chunk ^ (row % 8)`; on 64-byte rows
/// `chunk ^ ((row / 2) % 4)` with the row's half in the chunk's top bit —
/// both put the eight rows an `ldmatrix` phase reads at one logical chunk
/// into eight distinct bank groups.
pub const SWIZZLE: Swizzle = Swizzle::ROW128_BYTES;

/// A shared-memory tile of `rows × cols` elements of `es` bytes, stored
/// row by row with the `cols` dimension contiguous in global memory and in
/// shared memory, cut into panels of [`PANEL_BYTES`] (or one panel of
/// `cols · es` bytes when a row is shorter), each panel `rows` rows of one
/// panel width, swizzled with [`SWIZZLE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmemTile {
    /// Rows (the strided dimension).
    pub rows: usize,
    /// Elements per row (the contiguous dimension).
    pub cols: usize,
    /// Bytes per element (2 for bf16/f16, 4 for tf32 operands).
    pub es: usize,
}

impl SmemTile {
    /// Bytes of one panel row: 128, or the whole row when it is shorter.
    pub const fn panel_bytes(&self) -> usize {
        let row = self.cols * self.es;
        if row < PANEL_BYTES { row } else { PANEL_BYTES }
    }

    /// Elements per panel row.
    pub const fn panel_cols(&self) -> usize {
        self.panel_bytes() / self.es
    }

    /// Bytes of the tile.
    pub const fn bytes(&self) -> usize {
        self.rows * self.cols * self.es
    }

    /// Whether the engine supports the shape: rows of whole 16-byte chunks,
    /// 64- or 128-byte panel rows, whole panels, and 1024-byte blocks of
    /// swizzle (the tile's size a multiple of 1024).
    pub const fn is_valid(&self) -> bool {
        let pb = self.panel_bytes();
        (self.es == 2 || self.es == 4)
            && (pb == 64 || pb == 128)
            && (self.cols * self.es) % pb == 0
            && self.bytes() % 1024 == 0
    }

    /// Byte offset of element `(r, c)` (swizzled).
    #[inline(always)]
    pub const fn offset(&self, r: usize, c: usize) -> usize {
        let pc = self.panel_cols();
        let (panel, cc) = (c / pc, c % pc);
        SWIZZLE.apply(panel * self.rows * self.panel_bytes() + r * self.panel_bytes() + cc * self.es)
    }

    /// 16-byte chunks per row.
    pub const fn chunks_per_row(&self) -> usize {
        self.cols * self.es / CHUNK
    }

    /// 16-byte chunks of the tile.
    pub const fn chunks(&self) -> usize {
        self.bytes() / CHUNK
    }

    /// Elements per 16-byte chunk.
    pub const fn chunk_elems(&self) -> usize {
        CHUNK / self.es
    }

    /// `offset(r + dr, c + dc)` as `(offset(r, c) ^ xor) + add`, for the
    /// `(r, c)` an `ldmatrix` row of a lane starts at: `dr` a multiple of
    /// the rows of one 1024-byte swizzle block, `dc` a multiple of 16 bytes
    /// that keeps `c` in its panel and whose chunk bits are not set in
    /// `c`'s (the tests check every kernel's lanes). The kernels compute a
    /// lane's offset once and reach every fragment of the warp tile with
    /// one XOR (shared by a `k` step) and a constant added in the load's
    /// address.
    pub const fn delta(&self, dr: usize, dc: usize) -> (usize, usize) {
        let pc = self.panel_cols();
        ((dc / pc) * self.rows * self.panel_bytes() + dr * self.panel_bytes(), (dc % pc) * self.es)
    }

    /// Rows between a thread's consecutive copy chunks (`threads` threads
    /// numbering chunks row by row): a whole number of rows, so every
    /// chunk of a thread is in the same column.
    pub const fn pass_rows(&self, threads: usize) -> usize {
        threads / self.chunks_per_row()
    }

    /// Bytes between a thread's consecutive copy chunks in shared memory:
    /// [`SmemTile::pass_rows`] panel rows, a multiple of 1024 bytes (the
    /// tile's [`SmemTile::copy_plan_ok`]), so each chunk's swizzled offset is
    /// the first's plus a constant.
    pub const fn pass_bytes(&self, threads: usize) -> usize {
        self.pass_rows(threads) * self.panel_bytes()
    }

    /// Whether `threads` threads copy the tile with a constant stride
    /// between each thread's chunks (see [`SmemTile::pass_bytes`]).
    pub const fn copy_plan_ok(&self, threads: usize) -> bool {
        threads % self.chunks_per_row() == 0 && self.pass_bytes(threads) % 1024 == 0 && self.chunks() % threads == 0
    }

    /// `(row, col)` of the first element of chunk `q`: chunks are numbered
    /// row by row, so consecutive threads copy consecutive 16-byte pieces
    /// of one global row (coalesced) and a warp's stores fill whole
    /// 128-byte panel rows.
    #[inline(always)]
    pub const fn chunk(&self, q: usize) -> (usize, usize) {
        let per_row = self.chunks_per_row();
        (q / per_row, (q % per_row) * self.chunk_elems())
    }
}

/// The block's f32 result tile in shared memory (`rows × cols`), for the
/// epilogue: rows padded by [`EpilogueTile::PAD`] floats so that a warp's
/// fragment stores (8 rows × 4 lanes × 8 bytes) spread over the banks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EpilogueTile {
    /// Rows (the block tile's `BM`).
    pub rows: usize,
    /// Columns (`BN`).
    pub cols: usize,
}

impl EpilogueTile {
    /// Floats of padding after each row (a multiple of 4: rows stay
    /// 16-byte aligned).
    pub const PAD: usize = 8;

    /// Floats per stored row.
    pub const fn stride(&self) -> usize {
        self.cols + Self::PAD
    }

    /// Float offset of `(r, c)`.
    #[inline(always)]
    pub const fn offset(&self, r: usize, c: usize) -> usize {
        r * self.stride() + c
    }

    /// Bytes of the tile.
    pub const fn bytes(&self) -> usize {
        self.rows * self.stride() * 4
    }

    /// 4-column pieces of the tile (what one thread stores at a time).
    pub const fn pieces(&self) -> usize {
        self.rows * self.cols / 4
    }

    /// `(row, col)` of piece `q`: row by row, so consecutive threads take
    /// consecutive pieces of one row.
    #[inline(always)]
    pub const fn piece(&self, q: usize) -> (usize, usize) {
        let per_row = self.cols / 4;
        (q / per_row, (q % per_row) * 4)
    }
}

/// Chunks each of `threads` threads copies for a tile of `chunks` chunks
/// (the tile is a whole number of passes over the block).
pub const fn copy_passes(chunks: usize, threads: usize) -> usize {
    chunks.div_ceil(threads)
}

/// Shared-tile `(row, col)` whose address `lane` gives to `ldmatrix.x4` for
/// the 16 × 16 A block at `(m0, k0)` (m, k) of a 16-bit A stored
/// `[m][k]` (no `.trans`): [`frag::ldmatrix_a_m16n8k16`].
#[inline(always)]
pub const fn a_rows(lane: usize, m0: usize, k0: usize) -> (usize, usize) {
    let (r, c) = frag::ldmatrix_a_m16n8k16(lane);
    (m0 + r, k0 + c)
}

/// Shared-tile `(row, col)` = `(k, m)` whose address `lane` gives to
/// `ldmatrix.x4.trans` for the 16 × 16 A block at `(m0, k0)` of a 16-bit A
/// stored `[k][m]` (transposed operand): matrix `j = lane / 8` is the
/// quarter `(m: 8 · (j % 2), k: 8 · (j / 2))`, its rows are `k`, and the
/// transpose hands each lane the A fragment
/// (the test `a_trans_rows_give_the_a_fragment` checks it element by
/// element against [`frag::mma_m16n8k16_a`]).
#[inline(always)]
pub const fn a_trans_rows(lane: usize, m0: usize, k0: usize) -> (usize, usize) {
    let (j, r) = frag::ldmatrix_source(lane);
    (k0 + 8 * (j / 2) + r, m0 + 8 * (j % 2))
}

/// Shared-tile `(row, col)` = `(k, n)` whose address `lane` gives to
/// `ldmatrix.x4.trans` for the 16 × 16 B block at `(k0, n0)` of a 16-bit B
/// stored `[k][n]`: registers 0, 1 are the fragment of columns
/// `n0..n0 + 8`, 2, 3 of `n0 + 8..n0 + 16`
/// ([`frag::ldmatrix_b_trans_m16n8k16`]).
#[inline(always)]
pub const fn b_rows(lane: usize, k0: usize, n0: usize) -> (usize, usize) {
    let (k, n) = frag::ldmatrix_b_trans_m16n8k16(lane);
    (k0 + k, n0 + n)
}

/// Shared-tile `(row, col)` = `(n, k)` whose address `lane` gives to
/// `ldmatrix.x4` for the 16 × 16 B block at `(k0, n0)` of a 16-bit B stored
/// `[n][k]` (transposed operand; [`frag::ldmatrix_b_m16n8k16`]).
#[inline(always)]
pub const fn b_trans_rows(lane: usize, k0: usize, n0: usize) -> (usize, usize) {
    let (n, k) = frag::ldmatrix_b_m16n8k16(lane);
    (n0 + n, k0 + k)
}

/// Shared-tile `(row, col)` whose address `lane` gives to `ldmatrix.x4` for
/// the 16 × 8 tf32 A block at `(m0, k0)` of an A stored `[m][k]`
/// ([`frag::ldmatrix_a_m16n8k8_tf32`]).
#[inline(always)]
pub const fn a_rows_tf32(lane: usize, m0: usize, k0: usize) -> (usize, usize) {
    let (r, c) = frag::ldmatrix_a_m16n8k8_tf32(lane);
    (m0 + r, k0 + c)
}

/// Shared-tile `(row, col)` = `(n, k)` whose address `lane` gives to
/// `ldmatrix.x4` for two neighbouring 8 × 8 tf32 B blocks at `(k0, n0)` and
/// `(k0, n0 + 8)` of a B stored `[n][k]`: lanes 0..16 load the first
/// ([`frag::ldmatrix_b_m16n8k8_tf32`]), lanes 16..32 the second, so
/// registers 0, 1 and 2, 3 are the two fragments.
#[inline(always)]
pub const fn b_trans_rows_tf32(lane: usize, k0: usize, n0: usize) -> (usize, usize) {
    let (n, k) = frag::ldmatrix_b_m16n8k8_tf32(lane % 16);
    (n0 + n + 8 * (lane / 16), k0 + k)
}

/// The block tile `(row, col)` (in tiles) that block `bid` of a grid of
/// `tiles_m × tiles_n` tiles computes: blocks walk groups of `group` tile
/// rows column by column, so consecutive blocks share `B` columns and
/// `A` rows in L2 (CUTLASS's threadblock swizzle). A bijection from
/// `0..tiles_m · tiles_n`.
#[inline(always)]
pub const fn block_tile(bid: usize, tiles_m: usize, tiles_n: usize, group: usize) -> (usize, usize) {
    let per_group = group * tiles_n;
    let g = bid / per_group;
    let first = g * group;
    let rows = if tiles_m - first < group { tiles_m - first } else { group };
    let i = bid % per_group;
    (first + i % rows, i / rows)
}

#[cfg(test)]
mod tests;
