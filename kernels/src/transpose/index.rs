//! Index math of the transpose kernels.
//!
//! Every coordinate a transpose kernel touches comes from a function here:
//! which input element a thread loads, where it lands in shared memory, which
//! output element a thread writes and where it reads it back from. The
//! kernels call these functions; the tests below call the very same ones and
//! check that the mapping is a bijection, that a warp's global writes are
//! consecutive (coalesced), and the shared-memory bank-conflict degree of
//! each warp-wide access.
//!
//! Coordinates are `(row, col)`. The input has `ny` rows of `nx`
//! ([`input_layout`]); the output has `nx` rows of `ny` ([`output_layout`]);
//! `output(c, r) = input(r, c)`.

use crate::launch::LaunchConfig;
use crate::layout::{Layout2, Swizzle};

/// The input matrix: `ny` rows of `nx`.
#[inline(always)]
pub const fn input_layout(nx: u32, ny: u32) -> Layout2 {
    Layout2::row_major(ny as usize, nx as usize)
}

/// The output matrix: `nx` rows of `ny`.
#[inline(always)]
pub const fn output_layout(nx: u32, ny: u32) -> Layout2 {
    Layout2::row_major(nx as usize, ny as usize)
}

/// Threads per block of the naive rungs (32 × 8, as the seeds' BDIMX × BDIMY).
pub const NAIVE_BLOCK: [u32; 2] = [32, 8];

/// Lanes per warp; the tiled rungs are laid out so one warp covers 32
/// consecutive elements of a row.
pub const WARP: usize = 32;

/// One thread per input element, `x` along the input's rows (the naive row
/// rung: thread `(x, y)` handles input `(y, x)`).
pub const fn naive_config(nx: u32, ny: u32) -> LaunchConfig {
    LaunchConfig::cover_2d(nx, ny, NAIVE_BLOCK).fold_rows()
}

/// One thread per output element, `x` along the output's rows (the naive
/// column rung: thread `(x, y)` handles output `(y, x)` = input `(x, y)`).
pub const fn naive_col_config(nx: u32, ny: u32) -> LaunchConfig {
    LaunchConfig::cover_2d(ny, nx, NAIVE_BLOCK).fold_rows()
}

/// Input coordinate `(row, col)` of the naive-row thread at global `(x, y)`.
#[inline(always)]
pub const fn naive_row_coord(gx: u32, gy: u32) -> (usize, usize) {
    (gy as usize, gx as usize)
}

/// Output coordinate `(row, col)` of the naive-column thread at global `(x, y)`.
#[inline(always)]
pub const fn naive_col_coord(gx: u32, gy: u32) -> (usize, usize) {
    (gy as usize, gx as usize)
}

/// A scalar shared-memory tile: the block stages a `rows × cols` tile of the
/// input (`rows` along the input's y, `cols` along x) in shared memory laid
/// out as [`SmemTile::shared_layout`], then writes it out transposed.
///
/// Threads: `32 × block_y`. Load phase: thread `(tx, ty)` loads input
/// `(ty + k·block_y, tx + u·32)` for every `k < rows / block_y`,
/// `u < cols / 32` (the seeds' `×2` unrolling is `cols = 64`): lanes of a
/// warp read 32 consecutive elements of one row. Write phase: the seeds'
/// `bidx → (irow, icol)` remapping generalised to several elements per
/// thread: element `e = bidx + s·threads` of the *output* tile (`cols`
/// rows of `rows`) is `(irow, icol) = (e / rows, e % rows)`, read from
/// shared `tile[icol][irow]`; lanes of a warp write 32 consecutive output
/// elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmemTile {
    /// Tile rows (input y extent of the tile).
    pub rows: usize,
    /// Tile columns (input x extent of the tile).
    pub cols: usize,
    /// Threads per block in y (x is always 32).
    pub block_y: usize,
    /// Unused shared-memory elements after each tile row (the `+IPAD`).
    pub pad: usize,
}

impl SmemTile {
    /// A tile configuration; see [`SmemTile::validate`].
    pub const fn new(rows: usize, cols: usize, block_y: usize, pad: usize) -> Self {
        SmemTile { rows, cols, block_y, pad }
    }

    /// Whether the configuration is one the kernels support: `rows` and
    /// `cols` multiples of 32 (full-warp runs in both phases), `block_y`
    /// divides `rows`.
    pub const fn validate(&self) -> bool {
        self.rows > 0
            && self.cols > 0
            && self.rows % WARP == 0
            && self.cols % WARP == 0
            && self.block_y > 0
            && self.rows % self.block_y == 0
    }

    /// Threads per block.
    #[inline(always)]
    pub const fn threads(&self) -> usize {
        WARP * self.block_y
    }

    /// Elements each thread moves (loads, and later writes).
    #[inline(always)]
    pub const fn per_thread(&self) -> usize {
        self.rows * self.cols / self.threads()
    }

    /// The shared tile: `rows × cols`, row-major with `pad` extra elements per row.
    #[inline(always)]
    pub const fn shared_layout(&self) -> Layout2 {
        Layout2::padded(self.rows, self.cols, self.pad)
    }

    /// Dynamic shared memory per block, in bytes, for elements of `elem` bytes.
    pub const fn shared_bytes(&self, elem: usize) -> u32 {
        (self.shared_layout().cosize() * elem) as u32
    }

    /// Input coordinate of the top-left element of block `(bx, by)`'s tile.
    #[inline(always)]
    pub const fn input_origin(&self, bx: u32, by: u32) -> (usize, usize) {
        (by as usize * self.rows, bx as usize * self.cols)
    }

    /// Output coordinate of the top-left element of block `(bx, by)`'s tile.
    #[inline(always)]
    pub const fn output_origin(&self, bx: u32, by: u32) -> (usize, usize) {
        (bx as usize * self.cols, by as usize * self.rows)
    }

    /// Tile coordinate `(r, c)` that thread `(tx, ty)` loads on step `s`
    /// (`s < per_thread`); also where it stores it in the shared tile.
    #[inline(always)]
    pub const fn load_coord(&self, tx: u32, ty: u32, s: usize) -> (usize, usize) {
        let col_steps = self.cols / WARP;
        let (k, u) = (s / col_steps, s % col_steps);
        (ty as usize + k * self.block_y, tx as usize + u * WARP)
    }

    /// Output-tile coordinate `(irow, icol)` that the thread with linear index
    /// `bidx` writes on step `s`: `e = bidx + s·threads`, `irow = e / rows`,
    /// `icol = e % rows`. It reads the value from shared `tile[icol][irow]`.
    #[inline(always)]
    pub const fn store_coord(&self, bidx: u32, s: usize) -> (usize, usize) {
        let e = bidx as usize + s * self.threads();
        (e / self.rows, e % self.rows)
    }

    /// Launch geometry covering an `nx × ny` input.
    pub const fn config(&self, nx: u32, ny: u32) -> LaunchConfig {
        LaunchConfig {
            grid: [nx.div_ceil(self.cols as u32), ny.div_ceil(self.rows as u32), 1],
            block: [WARP as u32, self.block_y as u32, 1],
            shared_bytes: self.shared_bytes(4),
            early_launch: false,
            cluster: 1,
        }
        .fold_rows()
    }
}

/// Rung 3: 32 × 32 tile, 32 × 8 threads (4 elements per thread), no padding.
pub const SMEM: SmemTile = SmemTile::new(32, 32, 8, 0);
/// Rung 4: the same tile padded to 32 × 33.
pub const SMEM_PAD: SmemTile = SmemTile::new(32, 32, 8, 1);
/// Rung 5: padded 32 × 64 tile (the seeds' ×2 unrolling along x), 32 × 8
/// threads, 8 elements per thread.
pub const SMEM_PAD_UNROLL2: SmemTile = SmemTile::new(32, 64, 8, 1);
/// Config: padded 32 × 33 tile with 32 × 16 threads (2 elements per thread).
pub const SMEM_PAD_B32X16: SmemTile = SmemTile::new(32, 32, 16, 1);
/// Config: padded 32 × 33 tile with 32 × 32 threads (1 element per thread,
/// the seeds' square block).
pub const SMEM_PAD_B32X32: SmemTile = SmemTile::new(32, 32, 32, 1);
/// Config: padded 64 × 65 tile with 32 × 8 threads (16 elements per thread).
pub const SMEM_PAD_T64: SmemTile = SmemTile::new(64, 64, 8, 1);
/// Config: ×2 unrolled padded 32 × 64 tile with 32 × 16 threads (4 per thread).
pub const SMEM_PAD_UNROLL2_B32X16: SmemTile = SmemTile::new(32, 64, 16, 1);

/// A vectorised tile: the block stages a `tile × tile` square of the input;
/// every global access is 16 bytes (4 × f32).
///
/// The tile is cut into 4 × 4 micro-blocks; micro-block `(R, C)` covers
/// tile rows `4R..4R+4`, columns `4C..4C+4`. Load phase: the thread with
/// linear index `t` takes micro-blocks `m = t + j·threads`,
/// `(R, C) = (m / (tile/4), m % (tile/4))` — lanes of a warp read
/// consecutive 16-byte chunks of a row — loads its 4 rows, transposes the
/// 4 × 4 in registers and stores the 4 resulting rows into the shared tile
/// *in output orientation* (shared row `4C + i`, columns `4R..4R+4`). Write
/// phase: output-tile chunk `e = t + s·threads` is
/// `(row, q) = (e / (tile/4), e % (tile/4))`: one 16-byte shared load and one
/// 16-byte global store, lanes writing consecutive chunks of an output row.
///
/// Without a swizzle the micro-block store has a conflict degree of 8 (the
/// 8 lanes of a quarter-warp write 8 rows 4 apart, all in the same 4 banks);
/// the XOR swizzle `chunk ^= (row / 4) % 8` spreads them over all 32 banks
/// while keeping each row's chunks a permutation of itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VecTile {
    /// Tile side in elements (a multiple of 32).
    pub tile: usize,
    /// Threads per block (1D).
    pub threads: usize,
    /// The XOR swizzle applied to shared offsets (in elements).
    pub swizzle: Swizzle,
}

/// Elements per vector access.
pub const VEC: usize = 4;

impl VecTile {
    /// A vectorised tile of side `tile` with `threads` threads and the
    /// conflict-free swizzle for that side.
    pub const fn new(tile: usize, threads: usize) -> Self {
        // Source bits: the row's bits 2..5, i.e. offset bits log2(tile)+2..+5;
        // target: the 16-byte chunk's low 3 bits, offset bits 2..5.
        VecTile { tile, threads, swizzle: Swizzle { bits: 3, base: 2, shift: tile.trailing_zeros() } }
    }

    /// The same tile with no swizzle (to show what the swizzle fixes).
    pub const fn unswizzled(self) -> Self {
        VecTile { swizzle: Swizzle::NONE, ..self }
    }

    /// Whether the configuration is supported: `tile` a power of two ≥ 32
    /// whose row of chunks divides a warp (the realigned accesses shift
    /// between neighbouring lanes of one row), `threads` a multiple of 32
    /// dividing the micro-block count.
    pub const fn validate(&self) -> bool {
        self.tile >= 32
            && self.tile.is_power_of_two()
            && self.threads > 0
            && self.threads % WARP == 0
            && self.micro_blocks() % self.threads == 0
            && WARP % self.chunks_per_row() == 0
            && self.swizzle.is_valid()
    }

    /// Threads per block.
    #[inline(always)]
    pub const fn threads(&self) -> usize {
        self.threads
    }

    /// 16-byte chunks per tile row.
    #[inline(always)]
    pub const fn chunks_per_row(&self) -> usize {
        self.tile / VEC
    }

    /// 4 × 4 micro-blocks per tile.
    #[inline(always)]
    pub const fn micro_blocks(&self) -> usize {
        self.chunks_per_row() * self.chunks_per_row()
    }

    /// Micro-blocks per thread (loads: 4 vectors each); also the output
    /// chunks per thread divided by 4.
    #[inline(always)]
    pub const fn blocks_per_thread(&self) -> usize {
        self.micro_blocks() / self.threads
    }

    /// The shared tile before swizzling: `tile × tile` row-major, output
    /// orientation (row = input column within the tile).
    #[inline(always)]
    pub const fn shared_layout(&self) -> Layout2 {
        Layout2::row_major(self.tile, self.tile)
    }

    /// Shared-memory element offset of tile coordinate `(row, col)`.
    #[inline(always)]
    pub const fn shared_offset(&self, row: usize, col: usize) -> usize {
        self.swizzle.apply(self.shared_layout().offset(row, col))
    }

    /// Dynamic shared memory per block, bytes, for elements of `elem` bytes.
    pub const fn shared_bytes(&self, elem: usize) -> u32 {
        (self.shared_layout().cosize() * elem) as u32
    }

    /// Input coordinate of the top-left element of block `(bx, by)`'s tile.
    #[inline(always)]
    pub const fn input_origin(&self, bx: u32, by: u32) -> (usize, usize) {
        (by as usize * self.tile, bx as usize * self.tile)
    }

    /// Output coordinate of the top-left element of block `(bx, by)`'s tile.
    #[inline(always)]
    pub const fn output_origin(&self, bx: u32, by: u32) -> (usize, usize) {
        (bx as usize * self.tile, by as usize * self.tile)
    }

    /// Micro-block `(R, C)` that thread `t` loads on step `j`.
    #[inline(always)]
    pub const fn micro_block(&self, t: u32, j: usize) -> (usize, usize) {
        let m = t as usize + j * self.threads;
        (m / self.chunks_per_row(), m % self.chunks_per_row())
    }

    /// Output-tile `(row, first column)` of the chunk thread `t` writes on
    /// step `s` (`s < 4 · blocks_per_thread`).
    #[inline(always)]
    pub const fn store_chunk(&self, t: u32, s: usize) -> (usize, usize) {
        let e = t as usize + s * self.threads;
        (e / self.chunks_per_row(), (e % self.chunks_per_row()) * VEC)
    }

    /// Launch geometry covering an `nx × ny` input.
    pub const fn config(&self, nx: u32, ny: u32) -> LaunchConfig {
        LaunchConfig {
            grid: [nx.div_ceil(self.tile as u32), ny.div_ceil(self.tile as u32), 1],
            block: [self.threads as u32, 1, 1],
            shared_bytes: self.shared_bytes(4),
            early_launch: false,
            cluster: 1,
        }
        .fold_rows()
    }

    /// Whether an `nx × ny` input can use 16-byte accesses: every row must
    /// start 16-byte aligned in both matrices, so `nx` and `ny` are
    /// multiples of 4.
    pub const fn supports(nx: u32, ny: u32) -> bool {
        nx as usize % VEC == 0 && ny as usize % VEC == 0
    }
}

/// Rung 6: 64 × 64 tile, 256 threads, one 4 × 4 micro-block per thread
/// (4 × 16-byte loads in flight per thread), swizzled shared tile.
pub const VEC4_T64_B256: VecTile = VecTile::new(64, 256);
/// Config: 64 × 64 tile, 128 threads, two micro-blocks per thread (8 × 16 B in flight).
pub const VEC4_T64_B128: VecTile = VecTile::new(64, 128);
/// Config: 32 × 32 tile, 64 threads, one micro-block per thread.
pub const VEC4_T32_B64: VecTile = VecTile::new(32, 64);
/// Config: 64 × 64 tile, 64 threads, four micro-blocks per thread (16 × 16 B in flight).
pub const VEC4_T64_B64: VecTile = VecTile::new(64, 64);

/// Realigned 16-byte accesses for sides that are not multiples of 4 (or
/// a matrix that does not start on a 16-byte boundary): the rows of a
/// [`VecTile`]'s segment then start at any element of a 16-byte chunk, so
/// the kernel moves the aligned chunks that hold them and shifts the
/// elements between neighbouring lanes (lanes holding consecutive chunks
/// of a row are consecutive: [`VecTile::micro_block`], [`VecTile::store_chunk`]).
///
/// `chunk_shift(flat, base)`: where element `flat` of a matrix whose
/// element 0 lies `base` elements past a 16-byte boundary sits in its
/// chunk (0–3).
#[inline(always)]
pub const fn chunk_shift(flat: usize, base: u32) -> usize {
    (flat + base as usize) % VEC
}

/// Realigned load, for a tile row segment starting at element `seg` with
/// chunk shift `s` ([`chunk_shift`]): the lane holding columns `4c .. 4c + 4`
/// of the segment reads the aligned chunk that starts at element
/// `seg + 4c - s` (returned; negative only before the matrix's first
/// element) and takes the next chunk from the lane holding `4c + 4 ..`
/// (the row's last lane reads it itself); its column `4c + e` is element
/// [`realigned_pick`]`(s, e)` of the two chunks.
#[inline(always)]
pub const fn realigned_load_start(seg: usize, c: usize, s: usize) -> isize {
    (seg + VEC * c) as isize - s as isize
}

/// Element of the 8 loaded (own chunk, then the next one) that is column
/// `4c + e` of the segment: `s + e`.
#[inline(always)]
pub const fn realigned_pick(s: usize, e: usize) -> usize {
    s + e
}

/// Realigned store, for an output row segment starting at element `seg`
/// with chunk shift `t`: the lane holding segment columns `4c .. 4c + 4`
/// writes the aligned chunk that starts `t` elements before them (at
/// `seg + 4c - t`); its element `j` is element `realigned_store_pick(t, j)`
/// of the 8 (the previous lane's vector, then its own).
#[inline(always)]
pub const fn realigned_store_pick(t: usize, j: usize) -> usize {
    VEC - t + j
}

/// Elements `lo .. hi` of that chunk that belong to the segment (the
/// others to the neighbouring tile: not written). The first lane's chunk
/// is cut when `t > 0`; its lane writes `t .. 4` one by one, every other
/// chunk is whole (one 16-byte store). The row's last lane (`c = tile/4 -
/// 1`) also writes the segment's last `t` columns, its own elements
/// `4 - t .. 4`, one by one.
#[inline(always)]
pub const fn realigned_store_span(c: usize, t: usize) -> (usize, usize) {
    if c == 0 { (t, VEC) } else { (0, VEC) }
}

/// Elements of one 128-byte line (the L2's unit of a whole write).
pub const LINE: usize = 32;

/// The line-aligned tile (rung 10): every warp of the write phase stores
/// whole, aligned 128-byte lines of the output, whatever the shape.
///
/// An output row `o` (`ny` elements) starts `s_o = `[`row_shift`]`(o, ny,
/// base)` elements past a line boundary when the sides are not multiples
/// of 32. Block `(j, b)` writes, for each of its `rows` output rows
/// `o = b·rows + c`, the `width` columns `p = j·width − s_o + q`,
/// `q = 0 .. width` ([`LineTile::output_column`]): a run that starts on a
/// line boundary, so no line is written by two blocks (except at the ends of
/// a row). The columns a block writes depend on the row's shift, so it
/// reads `span = width + LINE` input rows (`p` from [`LineTile::span_start`]),
/// each element only where its row needs it ([`LineTile::needs`]): every
/// input element is read by exactly one block.
///
/// Load phase: a warp reads 32 consecutive input elements of one span row
/// (`rows` = 32 columns, [`LineTile::load_row`], [`LineTile::load_column`]);
/// store phase: lane `l` of the warp for block row `c` writes columns
/// `q = 4l .. 4l + 4` (one 16-byte store, [`LineTile::store_chunk`]).
/// The shared tile is in output orientation (row `c`, position = span row),
/// positions spread by one word every 32 ([`LineTile::spread`]) and rows at
/// an odd stride: the load phase's stores (32 rows, one position) are
/// conflict-free, the store phase's reads (one row, positions 4 apart) at
/// most 2-way.
///
/// Launch order ([`LineTile::block_coords`]): a 1-D grid walks `group`
/// block rows at a time, column by column (block row fastest). Neighbouring
/// block rows read the two halves of the input lines at their shared
/// columns, and with `group` > 1 they run at nearly the same time, so the
/// second read of such a line hits the L2; with `group` = 1 (block rows one
/// after the other) a long output row's blocks are far apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineTile {
    /// Output columns per row segment: a multiple of 128 (one 16-byte store
    /// per lane of a warp).
    pub width: usize,
    /// Output rows per block (= input columns): one warp's 32 lanes.
    pub rows: usize,
    /// Threads per block (1D).
    pub threads: usize,
    /// Block rows per group of the launch order.
    pub group: usize,
}

/// `o · ny + base` modulo [`LINE`]: where output row `o` starts in its
/// line, for an output whose element 0 lies `base` elements past a
/// 128-byte boundary. Computed in 32 bits (wrapping): 2³² is a multiple of
/// `LINE`, so the low bits are those of the full product.
#[inline(always)]
pub const fn row_shift(o: usize, ny: u32, base: u32) -> usize {
    ((o as u32).wrapping_mul(ny).wrapping_add(base) as usize) % LINE
}

impl LineTile {
    /// Whether the configuration is supported (see the type's invariants).
    pub const fn validate(&self) -> bool {
        self.rows == WARP
            && self.width > 0
            && self.width % (VEC * WARP) == 0
            && self.threads > 0
            && self.threads % WARP == 0
            && (self.span() * self.rows) % self.threads == 0
            && (self.width * self.rows / VEC) % self.threads == 0
            && self.group > 0
    }

    /// Threads per block.
    #[inline(always)]
    pub const fn threads(&self) -> usize {
        self.threads
    }

    /// Input rows a block's loads cover: the segment plus the line before
    /// it (a row's shift moves its segment back by up to `LINE − 1`).
    #[inline(always)]
    pub const fn span(&self) -> usize {
        self.width + LINE
    }

    /// Loads per thread (one element each).
    #[inline(always)]
    pub const fn loads_per_thread(&self) -> usize {
        self.span() * self.rows / self.threads
    }

    /// 16-byte stores per thread.
    #[inline(always)]
    pub const fn stores_per_thread(&self) -> usize {
        self.width * self.rows / VEC / self.threads
    }

    /// Input row of block column `j`'s span row 0: `j · width − LINE`
    /// (negative for the first block column).
    #[inline(always)]
    pub const fn span_start(&self, j: u32) -> isize {
        (j as usize * self.width) as isize - LINE as isize
    }

    /// The block row (= input column within the block) thread `t` loads;
    /// the same on every step.
    #[inline(always)]
    pub const fn load_column(&self, t: u32) -> usize {
        t as usize % self.rows
    }

    /// The span row thread `t` loads on step `k`: element
    /// `t + k · threads` of the span, row-major (`threads` is a multiple of
    /// `rows`).
    #[inline(always)]
    pub const fn load_row(&self, t: u32, k: usize) -> usize {
        t as usize / self.rows + k * self.load_step()
    }

    /// Span rows between a thread's consecutive loads.
    #[inline(always)]
    pub const fn load_step(&self) -> usize {
        self.threads / self.rows
    }

    /// Whether an output row with shift `s` needs span row `r` (its
    /// segment's columns are span rows `LINE − s .. LINE − s + width`).
    #[inline(always)]
    pub const fn needs(&self, r: usize, s: usize) -> bool {
        r + s >= LINE && r + s < LINE + self.width
    }

    /// `(block row c, first segment column q)` of the chunk thread `t`
    /// stores on step `k`: a warp holds one row, lanes consecutive chunks.
    #[inline(always)]
    pub const fn store_chunk(&self, t: u32, k: usize) -> (usize, usize) {
        let e = t as usize + k * self.threads;
        let per_row = self.width / VEC;
        (e / per_row, (e % per_row) * VEC)
    }

    /// The span row holding segment column `q` of a row with shift `s`.
    #[inline(always)]
    pub const fn span_row(q: usize, s: usize) -> usize {
        q + LINE - s
    }

    /// The output column of segment column `q` of a row with shift `s` in
    /// block column `j` (negative before the row's start).
    #[inline(always)]
    pub const fn output_column(&self, j: u32, q: usize, s: usize) -> isize {
        self.span_start(j) + Self::span_row(q, s) as isize
    }

    /// Shared position of span row `r`: one word skipped after every 32.
    #[inline(always)]
    pub const fn spread(r: usize) -> usize {
        r + r / LINE
    }

    /// Shared row stride: past the last spread position, odd.
    #[inline(always)]
    pub const fn stride(&self) -> usize {
        (Self::spread(self.span() - 1) + 1) | 1
    }

    /// Shared offset of block row `c`, span row `r`.
    #[inline(always)]
    pub const fn shared_offset(&self, c: usize, r: usize) -> usize {
        c * self.stride() + Self::spread(r)
    }

    /// Dynamic shared memory per block, bytes, for elements of `elem` bytes.
    pub const fn shared_bytes(&self, elem: usize) -> u32 {
        (self.rows * self.stride() * elem) as u32
    }

    /// `(block rows, block columns)` for an `nx × ny` input: `nx / rows`
    /// and `(ny + LINE − 1) / width`, rounded up (column `ny − 1` of a row
    /// shifted by `s ≤ LINE − 1` lies in segment `(ny − 1 + s) / width`).
    #[inline(always)]
    pub const fn blocks(&self, nx: u32, ny: u32) -> (u32, u32) {
        (nx.div_ceil(self.rows as u32), (ny as usize + LINE - 1).div_ceil(self.width) as u32)
    }

    /// `(block row b, block column j)` of block `idx` of the 1-D grid over
    /// `rows × cols` blocks: groups of `group` block rows one after the
    /// other (the last one shorter), inside a group column by column, block
    /// row fastest. Needs `group · cols` < 2³² ([`LineTile::supports`]).
    #[inline(always)]
    pub const fn block_coords(&self, idx: u32, rows: u32, cols: u32) -> (u32, u32) {
        let g = self.group as u32;
        let per_group = g * cols;
        let (first, within) = (idx / per_group * g, idx % per_group);
        let height = if rows - first < g { rows - first } else { g };
        (first + within % height, within / height)
    }

    /// Whether an `nx × ny` input fits the launch order's 32-bit block
    /// arithmetic: `group · cols` and the grid's `rows · cols` blocks below
    /// 2³¹ (only a few output rows of more than 2³¹ / `group` · `width`
    /// elements fail it).
    pub const fn supports(&self, nx: u32, ny: u32) -> bool {
        let (rows, cols) = self.blocks(nx, ny);
        let limit = i32::MAX as u64;
        (self.group as u64) * (cols as u64) <= limit && (rows as u64) * (cols as u64) <= limit
    }

    /// Launch geometry for an `nx × ny` input: one 1-D grid of every block
    /// ([`LineTile::blocks`]; at most 2³¹ − 1 of them: a matrix of 2⁴³
    /// elements).
    pub const fn config(&self, nx: u32, ny: u32) -> LaunchConfig {
        let (rows, cols) = self.blocks(nx, ny);
        LaunchConfig::linear(rows * cols, self.threads as u32).with_shared(self.shared_bytes(4))
    }
}

/// Rung 10: 128-column segments (four lines) of 32 output rows, 256 threads
/// (20 loads and 4 16-byte stores each), block rows launched one after the
/// other.
pub const LINES_W128: LineTile = LineTile { width: 128, rows: WARP, threads: 256, group: 1 };
/// Rung 10's tile launched 256 block rows at a time (column by column for
/// up to 8192 output rows).
pub const LINES_W128_G256: LineTile = LineTile { group: 256, ..LINES_W128 };

/// Longest short side the thin kernels take: matrices with at most this
/// many columns (tall) or rows (wide).
pub const THIN_MAX: u32 = 32;

/// A thin tile: for a matrix whose short side `s` is at most [`THIN_MAX`],
/// a block moves `lines` whole lines of the long side (`lines · s`
/// elements, at most `elems`). One side of the transpose is then one
/// contiguous run of `lines · s` elements (the input rows of a tall matrix,
/// the output rows of a wide one), the other `s` runs of `lines` elements:
/// both coalesced, where a square tile would leave most of its threads
/// idle.
///
/// Element `i` of the contiguous run is line `i / s`, position `i % s`;
/// element `j` of the strided side is position `j / lines`, line
/// `j % lines` (the runs one after the other). The shared tile is
/// `(lines, s)` padded to an odd row stride, so the strided side's warp
/// accesses (32 lines, stride `s + pad`) are conflict-free.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThinTile {
    /// Most elements one block moves.
    pub elems: usize,
    /// Threads per block (1D).
    pub threads: usize,
}

impl ThinTile {
    /// Whether the configuration is supported: `threads` a multiple of 32
    /// dividing `elems`, and room for 32 lines of the longest short side.
    pub const fn validate(&self) -> bool {
        self.threads > 0 && self.threads % WARP == 0 && self.elems % self.threads == 0 && self.elems >= WARP * THIN_MAX as usize
    }

    /// Elements each thread moves (at most).
    #[inline(always)]
    pub const fn per_thread(&self) -> usize {
        self.elems / self.threads
    }

    /// Lines of the long side per block for short side `s`: the largest
    /// multiple of 32 with `lines · s ≤ elems`.
    #[inline(always)]
    pub const fn lines(&self, s: u32) -> u32 {
        ((self.elems / s as usize) / WARP * WARP) as u32
    }

    /// The shared tile for short side `s`: `(lines, s)`, rows padded to an
    /// odd stride.
    #[inline(always)]
    pub const fn shared_layout(&self, s: u32) -> Layout2 {
        Layout2::padded(self.lines(s) as usize, s as usize, if s % 2 == 0 { 1 } else { 0 })
    }

    /// `(short, long)` sides of an `nx × ny` input, and whether it is tall
    /// (few columns: `nx` is the short side).
    #[inline(always)]
    pub const fn sides(nx: u32, ny: u32) -> (u32, u32, bool) {
        if nx <= ny { (nx, ny, true) } else { (ny, nx, false) }
    }

    /// Whether an `nx × ny` input is thin enough for these kernels.
    pub const fn supports(nx: u32, ny: u32) -> bool {
        let (s, _, _) = Self::sides(nx, ny);
        s >= 1 && s <= THIN_MAX
    }

    /// Launch geometry for an `nx × ny` input ([`ThinTile::supports`]):
    /// one block per `lines` lines of the long side.
    pub const fn config(&self, nx: u32, ny: u32) -> LaunchConfig {
        let (s, l, _) = Self::sides(nx, ny);
        LaunchConfig::linear(l.div_ceil(self.lines(s)), self.threads as u32)
            .with_shared((self.shared_layout(s).cosize() * 4) as u32)
    }
}

/// The thin kernels: 4096 elements (16 per thread) over 256 threads.
pub const THIN: ThinTile = ThinTile { elems: 4096, threads: 256 };

/// Longest output row (`ny`) the flat-chunk tiles take (their shared tile,
/// 31 output rows at least, stays within 64 KB up to here).
pub const FLAT_MAX_NY: u32 = 512;

/// The flat-chunk tile (rung 11) for short output rows: the output is one
/// contiguous run of `nx · ny` elements, and block `b` writes the chunk of
/// [`FlatTile::chunk`] elements from flat element `b · chunk − base`
/// ([`FlatTile::range`]): a run that starts and ends on 128-byte line
/// boundaries whatever `ny`, so every line is written whole by one warp
/// store. Where rung 10 gives each warp one output row of a few lines, a
/// short row ends inside a line that the next row's warp completes.
///
/// The chunk holds the output rows `row .. row + rows` (input columns),
/// the first and last partly, at most [`FlatTile::rows_max`]; the block
/// reads those columns of all `ny` input rows, each element only where the
/// chunk needs it. Load slots come in warp units ([`FlatTile::slot`]): a
/// unit is 32 consecutive columns of one input row, [`FlatTile::row_units`]
/// units per row, so a warp reads 32 consecutive elements; the chunk is
/// sized to the units (about `elems` elements, whatever `ny`), so that
/// nearly every lane of a unit loads an element the chunk needs. The shared tile
/// is the chunk itself in output order, from flat element `e0` (the
/// chunk's first row start, rounded down to 4, so the store phase's
/// 16-byte groups are aligned in shared memory too): the load phase's
/// stores are `ny` apart across a warp (conflict-free for odd `ny`), the
/// store phase reads consecutive 16-byte groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlatTile {
    /// Output elements a block moves, about ([`FlatTile::chunk`]).
    pub elems: usize,
    /// Threads per block (1D).
    pub threads: usize,
    /// Loads a thread issues before storing them to shared memory.
    pub batch: usize,
}

/// Where block `b` of a flat-chunk launch works ([`FlatTile::range`]):
/// tile positions are flat output elements less `e0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlatRange {
    /// Flat output element of tile position 0 (a multiple of 4 when the
    /// output's line shift is).
    pub e0: isize,
    /// Tile position of the chunk's first element (negative in block 0
    /// when the output starts 4 or more elements past a line boundary).
    pub first: isize,
    /// Tile positions `start .. end` are the chunk's elements inside the
    /// matrix.
    pub start: u32,
    /// See `start`.
    pub end: u32,
    /// First output row (input column) of the chunk.
    pub row: usize,
    /// Output rows the chunk touches (at most [`FlatTile::rows_max`]); 0
    /// for a block past the matrix.
    pub rows: u32,
}

impl FlatTile {
    /// Whether the configuration is supported.
    pub const fn validate(&self) -> bool {
        self.threads > 0 && self.threads % WARP == 0 && self.batch > 0 && self.elems >= LINE
    }

    /// Threads per block.
    #[inline(always)]
    pub const fn threads(&self) -> usize {
        self.threads
    }

    /// Load units (32 columns each) per input row: the `elems / ny + 2`
    /// columns of a chunk of about `elems` elements, rounded to the
    /// nearest whole number of units (at least one).
    #[inline(always)]
    pub const fn row_units(&self, ny: u32) -> u32 {
        let u = (self.elems / ny as usize + 2 + WARP / 2) / WARP;
        if u == 0 { 1 } else { u as u32 }
    }

    /// Output elements per block: the whole lines within `(32 · units −
    /// 2) · ny`, so a chunk's rows ([`FlatTile::rows_max`]) fit the units.
    #[inline(always)]
    pub const fn chunk(&self, ny: u32) -> usize {
        (WARP * self.row_units(ny) as usize - 2) * ny as usize / LINE * LINE
    }

    /// Output rows a chunk touches at most: `(chunk − 1) / ny + 2`.
    #[inline(always)]
    pub const fn rows_max(&self, ny: u32) -> u32 {
        ((self.chunk(ny) - 1) / ny as usize + 2) as u32
    }

    /// Blocks of an `nx × ny` launch: enough chunks for any line shift of
    /// the output's start (`base < LINE`).
    pub const fn blocks(&self, nx: u32, ny: u32) -> u64 {
        (nx as u64 * ny as u64 + LINE as u64 - 1).div_ceil(self.chunk(ny) as u64)
    }

    /// Block `b`'s chunk of the output of an `nx × ny` input whose element
    /// 0 lies `base` elements past a line boundary.
    #[inline(always)]
    pub const fn range(&self, b: u32, nx: u32, ny: u32, base: u32) -> FlatRange {
        let n = nx as usize * ny as usize;
        let f = self.chunk(ny);
        let f0 = b as isize * f as isize - base as isize;
        let lo = if f0 < 0 { 0 } else { f0 as usize };
        let hi = if f0 + (f as isize) < n as isize { (f0 + f as isize) as usize } else { n };
        if lo >= hi {
            return FlatRange { e0: 0, first: 0, start: 0, end: 0, row: 0, rows: 0 };
        }
        let row = lo / ny as usize;
        let rows = ((hi - 1) / ny as usize - row + 1) as u32;
        let at = (row * ny as usize) as isize;
        let e0 = at - (at - f0).rem_euclid(VEC as isize);
        FlatRange { e0, first: f0 - e0, start: (lo as isize - e0) as u32, end: (hi as isize - e0) as u32, row, rows }
    }

    /// The walk over thread `t`'s load units, `(input row, unit of the
    /// row)` on step `k` after `k` advances: unit `t / 32 + k · threads /
    /// 32` of the row-major `(ny, row_units)` grid.
    #[inline(always)]
    pub const fn slot(&self, t: u32, ny: u32) -> DivWalk {
        DivWalk::new(t / WARP as u32, (self.threads / WARP) as u32, self.row_units(ny))
    }

    /// `(input row p, chunk column c)` of lane `t % 32` at walk position
    /// `w`: a warp's 32 slots are 32 consecutive columns of one row.
    #[inline(always)]
    pub const fn slot_coords(w: &DivWalk, t: u32) -> (u32, u32) {
        (w.q, w.r * WARP as u32 + t % WARP as u32)
    }

    /// Tile position of input row `p`, chunk column `c` (output row
    /// `row + c`, column `p`): `c · ny + p` past the chunk's first row start.
    #[inline(always)]
    pub const fn shared_offset(r: FlatRange, c: u32, p: u32, ny: u32) -> u32 {
        c * ny + p + (r.row as isize * ny as isize - r.e0) as u32
    }

    /// Load rounds of `batch` slots per thread for output rows of `ny`.
    #[inline(always)]
    pub const fn rounds(&self, ny: u32) -> u32 {
        (ny as usize * self.row_units(ny) as usize).div_ceil(self.threads / WARP * self.batch) as u32
    }

    /// Tile position of the first element of thread `t`'s 16-byte group
    /// on step `j` of the store phase: groups of 4 consecutive elements
    /// from the chunk's first, lanes consecutive.
    #[inline(always)]
    pub const fn group(&self, r: FlatRange, t: u32, j: u32) -> isize {
        r.first + (VEC * (t as usize + j as usize * self.threads)) as isize
    }

    /// Store steps per thread: `chunk / 4` groups over the block.
    #[inline(always)]
    pub const fn store_steps(&self, ny: u32) -> u32 {
        (self.chunk(ny) / VEC).div_ceil(self.threads) as u32
    }

    /// Dynamic shared memory per block for output rows of `ny`, bytes: the
    /// rows a chunk may touch and the alignment of its start.
    pub const fn shared_bytes(&self, ny: u32) -> u32 {
        (((self.rows_max(ny) as usize * ny as usize + VEC) * 4).div_ceil(16) * 16) as u32
    }

    /// Whether an `nx × ny` input suits the tile: output rows of at most
    /// [`FLAT_MAX_NY`] and a grid below 2³¹ blocks.
    pub const fn supports(&self, nx: u32, ny: u32) -> bool {
        ny >= 1 && ny <= FLAT_MAX_NY && nx >= 1 && self.blocks(nx, ny) <= i32::MAX as u64
    }

    /// Launch geometry for an `nx × ny` input ([`FlatTile::supports`]).
    pub const fn config(&self, nx: u32, ny: u32) -> LaunchConfig {
        LaunchConfig::linear(self.blocks(nx, ny) as u32, self.threads as u32).with_shared(self.shared_bytes(ny))
    }
}

/// Rung 11: chunks of about 6144 elements, 256 threads, 16 loads in flight
/// per thread.
pub const FLAT_E6144: FlatTile = FlatTile { elems: 6144, threads: 256, batch: 16 };
/// Rung 11 with chunks of about 8192 elements.
pub const FLAT_E8192: FlatTile = FlatTile { elems: 8192, ..FLAT_E6144 };

/// `(i / d, i % d)` for `i = start, start + step, …`, advanced with adds
/// and one compare instead of a division per step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DivWalk {
    /// `i / d`.
    pub q: u32,
    /// `i % d`.
    pub r: u32,
    dq: u32,
    dr: u32,
    d: u32,
}

impl DivWalk {
    /// Starts at `start`; `d > 0`.
    #[inline(always)]
    pub const fn new(start: u32, step: u32, d: u32) -> Self {
        DivWalk { q: start / d, r: start % d, dq: step / d, dr: step % d, d }
    }

    /// Moves to `i + step`.
    #[inline(always)]
    pub fn advance(&mut self) {
        self.q += self.dq;
        self.r += self.dr;
        if self.r >= self.d {
            self.r -= self.d;
            self.q += 1;
        }
    }
}

#[cfg(test)]
mod tests;
