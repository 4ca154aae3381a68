//! Index math of the wgmma engine: where each stage's tiles and barriers
//! sit in shared memory, which TMA boxes fill a stage, the `wgmma`
//! descriptors that read them back, and the order of the block tiles a
//! persistent block walks. The kernel calls these functions; the tests
//! check that the descriptors see every element where TMA put it.

use crate::layout::wgmma::{d_fragment, tma_box, SmemDesc, ATOM_BYTES, ROW_BYTES, WGMMA_K16, WGMMA_M};

/// `k` per stage of 16-bit elements: one 128-byte swizzled row.
pub const BK: usize = bk(2);

/// Bytes per 16-bit operand element (bf16 / f16; tf32 operands are 4).
pub const ES: usize = 2;

/// `k` per stage for elements of `es` bytes: one 128-byte swizzled row
/// (64 bf16 or f16, 32 tf32). A stage holds the same bytes for every type.
pub const fn bk(es: usize) -> usize {
    ROW_BYTES as usize / es
}

/// Bytes of each row one `wgmma` reads (`k` = 16 of a 16-bit type, 8 of
/// tf32).
pub const KSTEP_BYTES: usize = WGMMA_K16 as usize * ES;

/// `wgmma` per stage (per k-tile).
pub const KSTEPS: usize = ROW_BYTES as usize / KSTEP_BYTES;

/// Bytes of one 64 × 64 block of an m/n-major operand (64 rows of `k`, 128
/// bytes of `m` or `n` each), the box TMA copies for it.
pub const MN_BLOCK_BYTES: usize = 64 * ROW_BYTES as usize;

/// Warpgroups that compute: each owns `64` rows of the block tile, or
/// (ping-pong, [`SmemPlan::pingpong`]) whole block tiles, every other one
/// of the block's walk.
pub const CONSUMERS: usize = 2;

/// Threads per block: one producer warpgroup and [`CONSUMERS`].
pub const THREADS: usize = 128 * (1 + CONSUMERS);

/// Block tile rows: 64 per consumer warpgroup.
pub const BM: usize = WGMMA_M as usize * CONSUMERS;

/// Buffers of the store epilogue per consumer: a chunk is written while
/// the previous one's TMA store still reads the other.
pub const EPI_BUFFERS: usize = 2;

/// Bytes of one epilogue buffer: a chunk of a consumer's results, 64 rows
/// ([`WGMMA_M`]) of 128 bytes (one swizzled row: 64 16-bit or 32 f32
/// columns), the box of `C`'s tensor map.
pub const EPI_BYTES: usize = WGMMA_M as usize * ROW_BYTES as usize;

/// Columns of `C` in one epilogue chunk for outputs of `es` bytes.
pub const fn epi_cols(es: usize) -> usize {
    ROW_BYTES as usize / es
}

/// Warps of a warpgroup, each storing whole rows of an epilogue chunk
/// when the threads store it ([`super::STORE_THREADS`]).
pub const CHUNK_WARPS: u32 = crate::layout::wgmma::WARPGROUP / 32;

/// The chunk row warp `warp` stores in its step `i` (`0..WGMMA_M /
/// CHUNK_WARPS`): rows `warp, warp + 4, …`.
pub const fn chunk_row(warp: u32, i: u32) -> u32 {
    CHUNK_WARPS * i + warp
}

/// The first chunk column lane `lane` stores in pass `pass` of a row:
/// `per` consecutive columns per lane (2: a pair of 16-bit elements, one
/// pass; 1: an element, `epi_cols / 32` passes).
pub const fn chunk_col(lane: u32, pass: u32, per: u32) -> u32 {
    32 * per * pass + per * lane
}

/// The TMA box of `C` (innermost first): one epilogue chunk.
pub const fn epi_box(es: usize) -> [u32; 3] {
    [epi_cols(es) as u32, WGMMA_M, 1]
}

/// Where element `(row, col)` of an epilogue chunk (`col < epi_cols(es)`)
/// goes in the buffer at `buf` (1024-byte aligned): TMA's 128-byte
/// swizzle, so that a store reads it back as the box. The eight rows one
/// store instruction of a warp writes (`d_fragment`: rows `lane / 4`, the
/// same 16 or 32 bytes of each) land in eight different 16-byte columns.
#[inline(always)]
pub const fn epi_at(buf: u32, row: u32, col: u32, es: u32) -> u32 {
    tma_box(buf, col, row, es)
}

/// Where a block's shared memory goes, from a 1024-byte aligned `base`:
/// `stages` stages of the `A` tile (`BM × BK`) then the `B` tile
/// (`BN × BK`), then the epilogue buffers ([`EPI_BUFFERS`] per consumer),
/// then the bias of the block tile (one per consumer when ping-pong), then
/// the `full` and `empty` mbarriers of each stage. A swapped tile stores
/// element by element and reads its bias from global memory: it has
/// neither buffers nor bias slot, and their bytes go to the stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmemPlan {
    /// Block tile columns.
    pub bn: usize,
    /// Stages of the ring.
    pub stages: usize,
    /// Ping-pong: each consumer computes whole block tiles (the block's
    /// tiles taken in turn), so one consumer reads a stage and releases
    /// it, and each has its own tile's bias. Otherwise both consumers
    /// compute halves of every tile.
    pub pingpong: bool,
    /// Swapped operands ([`WgmmaTiling::swapped`](super::WgmmaTiling)):
    /// no epilogue buffers, no bias slot.
    pub swapped: bool,
    /// Blocks whose consumers read each stage: 1, or [`CLUSTER`] when a
    /// cluster's blocks share `B` ([`WgmmaTiling::cluster`](super::WgmmaTiling)):
    /// every stage of a block then also holds the half of `B` its partner
    /// loaded, so both blocks' consumers release it.
    pub ctas: usize,
}

impl SmemPlan {
    /// Bytes of a stage's `A` tile.
    pub const fn a_bytes(&self) -> usize {
        BM * ROW_BYTES as usize
    }
    /// Bytes of a stage's `B` tile.
    pub const fn b_bytes(&self) -> usize {
        self.bn * ROW_BYTES as usize
    }
    /// Bytes of one stage (what its TMA copies deliver).
    pub const fn stage_bytes(&self) -> usize {
        self.a_bytes() + self.b_bytes()
    }
    /// Offset of stage `s`'s `A` tile from the base.
    #[inline(always)]
    pub const fn a(&self, s: usize) -> usize {
        s * self.stage_bytes()
    }
    /// Offset of stage `s`'s `B` tile.
    #[inline(always)]
    pub const fn b(&self, s: usize) -> usize {
        self.a(s) + self.a_bytes()
    }
    /// Epilogue buffers per consumer: [`EPI_BUFFERS`], none when swapped.
    pub const fn epi_buffers(&self) -> usize {
        if self.swapped { 0 } else { EPI_BUFFERS }
    }
    /// Offset of epilogue buffer `b` of consumer `g`.
    #[inline(always)]
    pub const fn epi(&self, g: usize, b: usize) -> usize {
        self.stages * self.stage_bytes() + (g * self.epi_buffers() + b) * EPI_BYTES
    }
    /// Bias slots: one per consumer when ping-pong, none when swapped,
    /// else one.
    pub const fn bias_slots(&self) -> usize {
        if self.swapped {
            0
        } else if self.pingpong {
            CONSUMERS
        } else {
            1
        }
    }
    /// Offset of the block tile's bias that consumer `g` reads: `bn` f32,
    /// `bias[n0 + j]` (clamped into `C`) at `j`, copied by the consumers
    /// at the start of each tile when the call has a bias (both into slot
    /// 0, or each its own tile's when ping-pong).
    #[inline(always)]
    pub const fn bias(&self, g: usize) -> usize {
        self.epi(CONSUMERS, 0) + if self.pingpong { g * 4 * self.bn } else { 0 }
    }
    /// Offset of the mbarrier stage `s`'s copies complete on: the barriers
    /// follow the bias slots.
    #[inline(always)]
    pub const fn full(&self, s: usize) -> usize {
        self.bias(0) + 4 * self.bn * self.bias_slots() + 8 * s
    }
    /// Arrivals that release a stage: one per warp of the consumers that
    /// read it (both, or the tile's one when ping-pong), in each of the
    /// [`ctas`](Self::ctas) blocks.
    pub const fn empty_arrivals(&self) -> u32 {
        4 * self.ctas as u32 * if self.pingpong { 1 } else { CONSUMERS as u32 }
    }
    /// Offset of the mbarrier the consumers release stage `s` on.
    #[inline(always)]
    pub const fn empty(&self, s: usize) -> usize {
        self.full(self.stages + s)
    }
    /// Offset of ping-pong consumer `g`'s turn mbarrier: the other consumer
    /// arrives once it has waited for the last stage of its tile, and `g`
    /// waits for that before its own tile's first stage.
    #[inline(always)]
    pub const fn turn(&self, g: usize) -> usize {
        self.full(2 * self.stages + g)
    }
    /// Offset of the split-K ticket: the arrival count a unit's atomic
    /// returned, shared by the consumer thread that took it with the others.
    #[inline(always)]
    pub const fn ticket(&self) -> usize {
        self.full(2 * self.stages + if self.pingpong { CONSUMERS } else { 0 })
    }
    /// Dynamic shared memory to request: the plan plus the slack that
    /// aligns the base to 1024 bytes.
    pub const fn shared_bytes(&self) -> usize {
        ATOM_BYTES as usize + self.ticket() + 8
    }
}

/// The first `.shared` address at or after `addr` that is a multiple of
/// 1024 (the 128-byte swizzle's atom).
#[inline(always)]
pub const fn align_base(addr: u32) -> u32 {
    addr.next_multiple_of(ATOM_BYTES)
}

/// The TMA boxes of an operand tile of `rows` (`BM` of `A` or `BN` of
/// `B`) by [`bk`]`(es)` (elements of `es` bytes): `(byte offset in the
/// tile, coordinates of the box in the stored matrix, innermost first)` of
/// box `q`, for `k` tile `kt` at row (or column) `r0`, batch `z`. A k-major
/// operand (rows of `k` contiguous) is one box of `bk(es) × rows`; an
/// m/n-major one (16-bit only) is `rows / 64` boxes of `64 × 64`,
/// [`MN_BLOCK_BYTES`] apart.
#[inline(always)]
pub const fn tile_box(mn_major: bool, q: usize, r0: usize, kt: usize, z: usize, es: usize) -> (usize, [i32; 3]) {
    if mn_major {
        (q * MN_BLOCK_BYTES, [(r0 + 64 * q) as i32, (kt * BK) as i32, z as i32])
    } else {
        (0, [(kt * bk(es)) as i32, r0 as i32, z as i32])
    }
}

/// Boxes per operand tile of `rows` (see [`tile_box`]).
pub const fn tile_boxes(mn_major: bool, rows: usize) -> usize {
    if mn_major { rows / 64 } else { 1 }
}

/// The box TMA copies per operand (innermost first): `bk(es) × rows` for
/// a k-major tile, `64 × 64` for an m/n-major one.
pub const fn box_dims(mn_major: bool, rows: usize, es: usize) -> [u32; 3] {
    if mn_major { [64, 64, 1] } else { [bk(es) as u32, rows as u32, 1] }
}

/// The descriptor of the operand tile at `tile` (a `.shared` address) for
/// the `wgmma` at `k` step `j` (`0..KSTEPS`), rows `64g..64g + 64` (for `A`:
/// consumer `g`; for `B`: 0, the whole `N` in one instruction).
#[inline(always)]
pub const fn operand_desc(mn_major: bool, tile: u32, g: usize, j: usize) -> u64 {
    let d = if mn_major {
        // 64 × 64 blocks: block `g` holds rows 64g.., `k` step j is 16 rows
        // of 128 bytes further; the next 64 columns of `n` are LBO away.
        SmemDesc::sw128(
            tile + (g * MN_BLOCK_BYTES) as u32 + j as u32 * WGMMA_K16 * ROW_BYTES,
            MN_BLOCK_BYTES as u32,
            ATOM_BYTES,
        )
    } else {
        // Rows of 128 bytes: rows 64g.. start 64g rows in, `k` step j is
        // 32 bytes further along the row (16 elements of 16 bits, 8 of tf32).
        SmemDesc::sw128(tile + (g * 64) as u32 * ROW_BYTES + (j * KSTEP_BYTES) as u32, 16, ATOM_BYTES)
    };
    d.encode()
}

/// The block tile `tile` of a persistent block's walk: `(batch, m0, n0)`.
/// Tiles go batch by batch; inside a batch, [`crate::gemm::mma::index::block_tile`]'s
/// grouped order (column of 8 block rows at a time), so the blocks running
/// together share their `A` rows and `B` columns in L2.
#[inline(always)]
pub const fn tile_origin(tile: usize, tiles_m: usize, tiles_n: usize, bn: usize) -> (usize, usize, usize) {
    let per_batch = tiles_m * tiles_n;
    let (z, t) = (tile / per_batch, tile % per_batch);
    let (tm, tn) = crate::gemm::mma::index::block_tile(t, tiles_m, tiles_n, GROUP);
    (z, tm * BM, tn * bn)
}

/// Blocks per cluster of the clustered kernels ([`pair_origin`]).
pub const CLUSTER: usize = 2;

/// The block tile of the block of rank `rank` in its cluster, for the
/// cluster's work unit `pair`: `(batch, m0, n0)`. A cluster computes
/// [`CLUSTER`] tiles one above the other (the same columns: they share
/// `B`, each block loading its half for both); the pairs are walked as
/// [`tile_origin`] walks tiles, over `pairs_m` rows of pairs (a group of
/// [`GROUP`] tile rows is `GROUP / CLUSTER` rows of pairs). A tile of a
/// last, partial pair lies below `C` (`m0 ≥ m`): its block loads and
/// computes it (its share of `B` is its partner's too) and stores nothing.
#[inline(always)]
pub const fn pair_origin(pair: usize, rank: usize, pairs_m: usize, tiles_n: usize, bn: usize) -> (usize, usize, usize) {
    let per_batch = pairs_m * tiles_n;
    let (z, t) = (pair / per_batch, pair % per_batch);
    let (pm, tn) = crate::gemm::mma::index::block_tile(t, pairs_m, tiles_n, GROUP / CLUSTER);
    (z, (CLUSTER * pm + rank) * BM, tn * bn)
}

/// The k-tiles `k0..k1` of part `part` of `splits` (split-K): consecutive
/// runs of `ceil(ktiles / splits)`, the last one shorter; a part past the
/// end is empty (`k0 == k1`; the host picks `splits` so none is).
#[inline(always)]
pub const fn k_part(part: usize, splits: usize, ktiles: usize) -> (usize, usize) {
    let chunk = ktiles.div_ceil(splits);
    let k0 = if part * chunk < ktiles { part * chunk } else { ktiles };
    let k1 = if k0 + chunk < ktiles { k0 + chunk } else { ktiles };
    (k0, k1)
}

/// Work units of a walk over `tiles` block tiles whose first `whole` run
/// whole and whose others are split in `splits` parts of `k` each.
#[inline(always)]
pub const fn walk_units(tiles: usize, whole: usize, splits: usize) -> usize {
    whole + (tiles - whole) * splits
}

/// Work unit `unit` of that walk: `(tile, part, parts)` — tile `unit`
/// whole (`(unit, 0, 1)`) for the first `whole`, then the parts of the
/// split tiles, a tile's parts next to each other. A persistent grid of
/// `G` blocks takes units `b, b + G, …`: with `whole` a multiple of `G`,
/// every block runs the same whole tiles and then at most one part, so a
/// last round of few tiles is spread over the whole grid.
#[inline(always)]
pub const fn unit_work(unit: usize, whole: usize, splits: usize) -> (usize, usize, usize) {
    if unit < whole {
        (unit, 0, 1)
    } else {
        let v = unit - whole;
        (whole + v / splits, v % splits, splits)
    }
}

/// Where element `(row, col)` of the block tile (`BM × bn`) of part `part`
/// of split tile `tile` (counted from the first split one, [`unit_work`])
/// goes in the split-K workspace: one dense `BM × bn` f32 tile per unit,
/// the parts of a tile next to each other.
#[inline(always)]
pub const fn part_at(tile: usize, part: usize, splits: usize, bn: usize, row: usize, col: usize) -> usize {
    ((tile * splits + part) * BM + row) * bn + col
}

/// Row and column in the block tile of accumulator register `reg` of
/// consumer `g`'s thread `tw`: consumer `g` holds rows `64g .. 64g + 64`,
/// at [`d_fragment`]'s place within them (the split-K workspace's
/// coordinates, [`part_at`]).
#[inline(always)]
pub const fn unit_fragment(g: usize, tw: usize, reg: usize) -> (usize, usize) {
    let (dr, dc) = d_fragment(tw as u32, reg as u32);
    (WGMMA_M as usize * g + dr as usize, dc as usize)
}

/// A position in the ring of `ST` stages: stage `s` in its `phase`-th use
/// (mod 2), what a stage's `full` and `empty` mbarriers are waited on with.
/// Stepped in 32 bits rather than divided out of a running count of
/// k-tiles (a 64-bit division by `ST` per k-tile in the consumers' loop).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ring<const ST: usize> {
    /// The stage.
    pub s: u32,
    /// The parity of its use.
    pub phase: u32,
}

impl<const ST: usize> Ring<ST> {
    /// Stage 0 in its first use.
    pub const START: Self = Ring { s: 0, phase: 0 };

    /// The next stage (stage 0 again, in its next use, after the last).
    #[inline(always)]
    pub fn step(&mut self) {
        self.s += 1;
        if self.s == ST as u32 {
            self.s = 0;
            self.phase ^= 1;
        }
    }

    /// `n` stages on (the k-tiles of a tile another consumer computes):
    /// `n` calls of [`Ring::step`].
    #[inline(always)]
    pub fn skip(&mut self, n: u32) {
        // Two rounds of the ring leave the position and its parity as they
        // were: only `n mod 2·ST` moves it (and `s` stays far from overflow).
        let to = self.s + n % (2 * ST as u32);
        self.phase ^= (to / ST as u32) & 1;
        self.s = to % ST as u32;
    }
}

/// Block rows walked together by [`tile_origin`].
pub const GROUP: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::wgmma::WARPGROUP;
    use proptest::prelude::*;
    use std::collections::HashSet;

    proptest! {
        /// The parts cover `0..ktiles` once, in order, each at most one
        /// chunk long.
        #[test]
        fn k_parts_partition_the_k_tiles(ktiles in 0usize..500, splits in 1usize..40) {
            let mut next = 0;
            for part in 0..splits {
                let (k0, k1) = k_part(part, splits, ktiles);
                prop_assert_eq!(k0, next);
                prop_assert!(k1 >= k0 && k1 - k0 <= ktiles.div_ceil(splits));
                next = k1;
            }
            prop_assert_eq!(next, ktiles);
        }
    }

    proptest! {
        /// `skip(n)` is `n` steps, and after `n` steps from the start the
        /// ring is at stage `n mod ST` in use `n / ST` (the division it
        /// replaces), from any starting position.
        #[test]
        fn the_ring_steps_and_skips_as_the_count_divides(start in 0u32..100, n in 0u32..200, big in 0u32..3) {
            fn check<const ST: usize>(start: u32, n: u32) -> Result<(), TestCaseError> {
                let mut r = Ring::<ST>::START;
                for _ in 0..start {
                    r.step();
                }
                prop_assert_eq!(r, Ring { s: start % ST as u32, phase: (start / ST as u32) & 1 });
                let mut stepped = r;
                for _ in 0..n {
                    stepped.step();
                }
                let mut skipped = r;
                skipped.skip(n);
                prop_assert_eq!(skipped, stepped);
                prop_assert_eq!(stepped, Ring { s: (start + n) % ST as u32, phase: ((start + n) / ST as u32) & 1 });
                Ok(())
            }
            check::<3>(start, n)?;
            check::<4>(start, n)?;
            check::<6>(start, n)?;
            check::<9>(start, n)?;
            // Counts near the top of `u32` (k-tiles of a very deep walk).
            let huge = u32::MAX - big * 1000 - n;
            let mut r = Ring::<6>::START;
            r.skip(huge);
            prop_assert_eq!(r, Ring { s: huge % 6, phase: (huge / 6) & 1 });
        }
    }

    proptest! {
        /// The units cover every tile once: each whole tile as one unit,
        /// each split tile as its `splits` parts (`k_part`'s partition).
        #[test]
        fn the_units_cover_every_tile_once(tiles in 0usize..300, whole_frac in 0usize..=100, splits in 1usize..40) {
            let whole = tiles * whole_frac / 100;
            let mut seen = std::vec![std::vec::Vec::new(); tiles];
            for unit in 0..walk_units(tiles, whole, splits) {
                let (tile, part, parts) = unit_work(unit, whole, splits);
                prop_assert!(tile < tiles && part < parts);
                prop_assert_eq!(parts, if tile < whole { 1 } else { splits });
                seen[tile].push(part);
            }
            for (tile, parts) in seen.iter().enumerate() {
                let want: std::vec::Vec<usize> = (0..if tile < whole { 1 } else { splits }).collect();
                prop_assert_eq!(parts, &want);
            }
        }
    }

    /// For both orientations of both operands (16-bit) and k-major tf32:
    /// the descriptors of every `wgmma` of a stage address each element of
    /// the tile exactly where the TMA boxes wrote it.
    #[test]
    fn descriptors_read_what_the_boxes_wrote() {
        for rows in [64usize, 128, 256] {
            for (mn_major, es) in [(false, 2u32), (true, 2), (false, 4)] {
                let (bk, kk) = (bk(es as usize), KSTEP_BYTES as u32 / es);
                let tile = 7 * ATOM_BYTES;
                // Where TMA puts (row, k) of the tile.
                let written = |r: usize, k: usize| -> u32 {
                    if mn_major {
                        let (off, _) = tile_box(true, r / 64, 0, 0, 0, es as usize);
                        tma_box(tile + off as u32, (r % 64) as u32, k as u32, es)
                    } else {
                        tma_box(tile, k as u32, r as u32, es)
                    }
                };
                let mut seen = HashSet::new();
                let groups = rows / 64;
                for g in 0..groups {
                    for j in 0..KSTEPS {
                        let d = SmemDesc::decode(operand_desc(mn_major, tile, g, j));
                        for r in 0..64u32 {
                            for k in 0..kk {
                                let (row, kx) = (g * 64 + r as usize, j * kk as usize + k as usize);
                                let at = if mn_major { d.mn_major(r, k, es) } else { d.k_major(r, k, es) };
                                assert_eq!(at, written(row, kx), "rows {rows} mn {mn_major} es {es} row {row} k {kx}");
                                assert!(seen.insert(at));
                            }
                        }
                    }
                }
                assert_eq!(seen.len(), rows * bk);
                assert!(seen.iter().all(|&a| a >= tile && a < tile + rows as u32 * ROW_BYTES));
            }
        }
    }

    /// `B` of `n` columns read by one `wgmma` of `N = n` through the m/n-major
    /// descriptor of consumer 0 reaches all `n / 64` blocks.
    #[test]
    fn one_descriptor_spans_the_n_blocks() {
        let tile = 0;
        for n in [128u32, 256] {
            let d = SmemDesc::decode(operand_desc(true, tile, 0, 1));
            let blocks: HashSet<u32> = (0..n).map(|c| d.mn_major(c, 0, 2) / MN_BLOCK_BYTES as u32).collect();
            assert_eq!(blocks.len() as u32, n / 64);
        }
    }

    /// The threads' stores of a chunk: the warps' steps cover its 64 rows
    /// once, and the lanes' passes its columns once, by pairs (16-bit rows
    /// 4-byte aligned) or by elements (any row, 16- or 32-bit).
    #[test]
    fn chunk_stores_cover_the_chunk_once() {
        let mut rows = HashSet::new();
        for warp in 0..CHUNK_WARPS {
            for i in 0..WGMMA_M / CHUNK_WARPS {
                assert!(rows.insert(chunk_row(warp, i)));
            }
        }
        assert_eq!(rows, (0..WGMMA_M).collect());
        for (es, per) in [(2usize, 2u32), (2, 1), (4, 1)] {
            let cols = epi_cols(es) as u32;
            let passes = cols / (32 * per);
            let mut seen = HashSet::new();
            for pass in 0..passes {
                for lane in 0..32 {
                    let c = chunk_col(lane, pass, per);
                    for e in c..c + per {
                        assert!(seen.insert(e), "es {es} per {per}: column {e} twice");
                    }
                    // A warp's pass covers consecutive columns.
                    assert_eq!(c, chunk_col(0, pass, per) + per * lane);
                }
            }
            assert_eq!(seen, (0..cols).collect(), "es {es} per {per}");
        }
    }

    proptest! {
        /// The split-K workspace holds every element of every unit's tile
        /// once, densely.
        #[test]
        fn split_k_parts_tile_the_workspace(tiles in 1usize..5, splits in 1usize..5, wide in any::<bool>()) {
            let bn = if wide { 256 } else { 128 };
            let mut seen = std::vec![false; tiles * splits * BM * bn];
            for tile in 0..tiles {
                for part in 0..splits {
                    for row in 0..BM {
                        for col in 0..bn {
                            let o = part_at(tile, part, splits, bn, row, col);
                            prop_assert!(!seen[o]);
                            seen[o] = true;
                        }
                    }
                }
            }
            prop_assert!(seen.iter().all(|&s| s));
        }
    }

    #[test]
    fn the_consumers_fragments_tile_the_block_tile() {
        // The consumers' 128 threads, `bn / 2` registers each: every
        // element of the `BM × bn` block tile once.
        for bn in [128usize, 256] {
            let mut seen = HashSet::new();
            for g in 0..CONSUMERS {
                for tw in 0..WARPGROUP as usize {
                    for reg in 0..bn / 2 {
                        let (row, col) = unit_fragment(g, tw, reg);
                        assert!(row < BM && col < bn, "{g} {tw} {reg}");
                        assert!(seen.insert((row, col)), "{g} {tw} {reg}");
                    }
                }
            }
            assert_eq!(seen.len(), BM * bn);
        }
    }

    #[test]
    fn the_plan_is_aligned_and_disjoint() {
        for (bn, stages, pingpong, swapped) in [(128usize, 6usize, false, false), (256, 4, false, false), (256, 3, false, false), (128, 6, true, false), (64, 9, false, true)] {
            let p = SmemPlan { bn, stages, pingpong, swapped, ctas: 1 };
            for s in 0..stages {
                assert_eq!(p.a(s) % ATOM_BYTES as usize, 0);
                assert_eq!(p.b(s) % ATOM_BYTES as usize, 0);
                assert_eq!(p.b(s) + p.b_bytes(), p.a(s + 1));
                assert_eq!(p.full(s) % 8, 0);
                assert!(p.empty(s) >= p.full(stages - 1) + 8);
            }
            if pingpong {
                assert_eq!(p.turn(0), p.empty(stages - 1) + 8);
                assert_eq!(p.turn(CONSUMERS - 1) + 8, p.ticket());
            } else {
                assert_eq!(p.empty(stages - 1) + 8, p.ticket());
            }
            assert_eq!(p.ticket() + 8 + ATOM_BYTES as usize, p.shared_bytes());
            for g in 0..CONSUMERS {
                for b in 0..p.epi_buffers() {
                    assert_eq!(p.epi(g, b) % ATOM_BYTES as usize, 0);
                    assert!(p.epi(g, b) >= p.a(stages) && p.epi(g, b) + EPI_BYTES <= p.full(0));
                }
            }
            assert_eq!(p.epi(CONSUMERS, 0), p.bias(0));
            assert_eq!(p.bias(0), p.a(stages) + CONSUMERS * p.epi_buffers() * EPI_BYTES);
            if swapped {
                assert_eq!((p.epi_buffers(), p.bias_slots()), (0, 0));
                assert_eq!(p.full(0), p.a(stages), "a swapped plan is its stages and barriers");
            } else {
                let last = if pingpong { CONSUMERS - 1 } else { 0 };
                assert_eq!(p.bias(last) + 4 * bn, p.full(0));
            }
            assert!((0..CONSUMERS).all(|g| p.bias(g) % 8 == 0), "8-byte bias loads");
            assert_eq!(p.empty_arrivals(), if pingpong { 4 } else { 8 });
            assert!(p.shared_bytes() <= 227 * 1024, "{bn} {stages}: {}", p.shared_bytes());
            // The boxes of one stage deliver exactly the stage's bytes.
            for (mn, es) in [(false, 2usize), (true, 2), (false, 4)] {
                let a: usize = (0..tile_boxes(mn, BM)).map(|_| box_dims(mn, BM, es).iter().product::<u32>() as usize * es).sum();
                let b: usize = (0..tile_boxes(mn, bn)).map(|_| box_dims(mn, bn, es).iter().product::<u32>() as usize * es).sum();
                assert_eq!(a + b, p.stage_bytes());
            }
        }
        assert_eq!(align_base(0), 0);
        assert_eq!(align_base(1), 1024);
        assert_eq!(align_base(1024 + 16), 2048);
    }

    /// The epilogue: for both output sizes, the fragments of a warpgroup
    /// fill each chunk's buffer exactly once (every byte the TMA store reads
    /// is written), and each warp store instruction (one register pair of
    /// the 32 lanes) touches each 4-byte bank at most `ceil(bytes / 128)`
    /// times: as few shared-memory wavefronts as its bytes need.
    #[test]
    fn epilogue_chunks_are_filled_once_without_bank_conflicts() {
        for (es, bn) in [(2u32, 256u32), (2, 128), (4, 256), (4, 128)] {
            let cols = epi_cols(es as usize) as u32;
            let pair_regs = cols / 2;
            for q in 0..bn / cols {
                let mut bytes = std::vec![0u8; EPI_BYTES];
                for reg in (q * pair_regs..(q + 1) * pair_regs).step_by(2) {
                    for w in 0..4 {
                        let mut banks = [0u32; 32];
                        for lane in 0..32 {
                            let t = 32 * w + lane;
                            let (row, col) = d_fragment(t, reg);
                            assert_eq!(d_fragment(t, reg + 1), (row, col + 1));
                            assert!(col >= q * cols && col + 1 < (q + 1) * cols, "es {es} reg {reg}");
                            let at = epi_at(0, row, col - q * cols, es);
                            assert_eq!(epi_at(0, row, col + 1 - q * cols, es), at + es, "a pair is contiguous");
                            for x in at..at + 2 * es {
                                bytes[x as usize] += 1;
                            }
                            for word in (at / 4)..(at + 2 * es) / 4 {
                                banks[(word % 32) as usize] += 1;
                            }
                        }
                        let wavefronts = (32 * 2 * es).div_ceil(128);
                        assert!(banks.iter().all(|&n| n <= wavefronts), "es {es} reg {reg} warp {w}: {banks:?}");
                    }
                }
                assert!(bytes.iter().all(|&n| n == 1), "es {es} bn {bn} chunk {q}");
            }
            assert_eq!(WARPGROUP * pair_regs * es, EPI_BYTES as u32);
        }
    }

    /// A persistent walk visits every tile of every batch once, in bounds.
    #[test]
    fn the_tile_walk_is_a_bijection() {
        for (tm, tn, batches, bn) in [(1usize, 1usize, 1usize, 256usize), (3, 5, 2, 128), (17, 9, 3, 256), (8, 8, 1, 256)] {
            let mut seen = HashSet::new();
            for t in 0..tm * tn * batches {
                let (z, m0, n0) = tile_origin(t, tm, tn, bn);
                assert!(z < batches && m0 < tm * BM && n0 < tn * bn);
                assert_eq!((m0 % BM, n0 % bn), (0, 0));
                assert!(seen.insert((z, m0, n0)));
            }
        }
    }

    proptest! {
        /// A clustered walk: the ranks of each pair take the same columns
        /// of the same matrix, one tile above the other (the `B` they
        /// share), and the pairs cover every tile of every batch once; the
        /// only tiles outside `C` are the lower halves of a last row of
        /// pairs when the tile rows are odd.
        #[test]
        fn the_pair_walk_covers_every_tile_once(tm in 1usize..40, tn in 1usize..40, batches in 1usize..4, wide in any::<bool>()) {
            let bn = if wide { 256 } else { 128 };
            let pairs_m = tm.div_ceil(CLUSTER);
            let mut seen = HashSet::new();
            let mut outside = 0;
            for pair in 0..pairs_m * tn * batches {
                let o: [(usize, usize, usize); CLUSTER] = core::array::from_fn(|r| pair_origin(pair, r, pairs_m, tn, bn));
                for (r, &(z, m0, n0)) in o.iter().enumerate() {
                    prop_assert_eq!((z, m0 - r * BM, n0), (o[0].0, o[0].1, o[0].2), "pair {}", pair);
                    prop_assert!(z < batches && n0 < tn * bn && m0 % (CLUSTER * BM) == r * BM);
                    if m0 >= tm * BM {
                        outside += 1;
                        prop_assert!(tm % CLUSTER != 0 && m0 == tm * BM, "pair {} rank {}", pair, r);
                    } else {
                        prop_assert!(seen.insert((z, m0, n0)));
                    }
                }
            }
            prop_assert_eq!(seen.len(), tm * tn * batches);
            prop_assert_eq!(outside, if tm % CLUSTER == 0 { 0 } else { tn * batches });
        }
    }
}
