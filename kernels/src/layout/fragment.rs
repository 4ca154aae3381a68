//! Fragment layouts of the sm_80 tensor-core instructions: which lane of a
//! warp holds which element of an `mma.sync` operand, and which lane gives
//! and receives which row of an `ldmatrix`.
//!
//! These are the PTX ISA's tables ("Matrix Fragments for mma.m16n8k16 with
//! floating point type", "… mma.m16n8k8" for `.tf32`, and the `ldmatrix`
//! fragment figure) written as `const fn`s. The kernels call them to know
//! what to load and where a result lands; the emulator calls the same
//! functions to move values between lanes, and the GPU probes check them
//! against the hardware.
//!
//! Conventions:
//!
//! * `lane` is the lane index `0..32`; `g = lane / 4` is the PTX
//!   `groupID`, `t = lane % 4` the `threadID_in_group`.
//! * Element `i` of a 16-bit fragment (`.f16`, `.bf16`) lives in register
//!   `i / 2`, in bits `16 · (i % 2)..`: the even element in the low half.
//!   A 32-bit fragment (`.tf32`, `.f32`) has one element per register.
//! * A is `M × K` (row, col), B is `K × N` (k, n), C and D are `M × N`
//!   (row, col), for `D = A · B + C` (the `.row.col` form: A row-major, B
//!   column-major as far as the instruction is concerned, which only fixes
//!   the fragment layouts).

/// Rows of an `mma.m16n8kK` tile (M).
pub const MMA_M: usize = 16;
/// Columns of an `mma.m16n8kK` tile (N).
pub const MMA_N: usize = 8;
/// K of `mma.m16n8k16` with 16-bit operands.
pub const MMA_K16: usize = 16;
/// K of `mma.m16n8k8` with `.tf32` operands.
pub const MMA_K8: usize = 8;

/// `(row, col)` of element `i` (0..8) of `lane`'s A fragment of
/// `mma.m16n8k16` with `.f16` / `.bf16` operands (16 × 16):
/// row `g` for `i` in {0, 1, 4, 5}, else `g + 8`; col `2t + (i & 1)`,
/// plus 8 for `i ≥ 4`.
pub const fn mma_m16n8k16_a(lane: usize, i: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    let row = if i % 4 < 2 { g } else { g + 8 };
    let col = 2 * t + (i & 1) + if i >= 4 { 8 } else { 0 };
    (row, col)
}

/// `(k, n)` of element `i` (0..4) of `lane`'s B fragment of
/// `mma.m16n8k16` with `.f16` / `.bf16` operands (16 × 8): k `2t + (i & 1)`,
/// plus 8 for `i ≥ 2`; n `g`.
pub const fn mma_m16n8k16_b(lane: usize, i: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    (2 * t + (i & 1) + if i >= 2 { 8 } else { 0 }, g)
}

/// `(row, col)` of element `i` (0..4) of `lane`'s C or D fragment of
/// `mma.m16n8k16` and `mma.m16n8k8` with `.f32` accumulators (16 × 8):
/// row `g`, plus 8 for `i ≥ 2`; col `2t + (i & 1)`.
pub const fn mma_m16n8_c(lane: usize, i: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    (if i < 2 { g } else { g + 8 }, 2 * t + (i & 1))
}

/// `(row, col)` of element `i` (0..4) of `lane`'s A fragment of
/// `mma.m16n8k8` with `.tf32` operands (16 × 8): row `g` for `a0`, `a2`,
/// `g + 8` for `a1`, `a3`; col `t` for `a0`, `a1`, `t + 4` for `a2`, `a3`.
pub const fn mma_m16n8k8_tf32_a(lane: usize, i: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    (if i % 2 == 0 { g } else { g + 8 }, if i < 2 { t } else { t + 4 })
}

/// `(k, n)` of element `i` (0..2) of `lane`'s B fragment of `mma.m16n8k8`
/// with `.tf32` operands (8 × 8): k `t` for `b0`, `t + 4` for `b1`; n `g`.
pub const fn mma_m16n8k8_tf32_b(lane: usize, i: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    (if i == 0 { t } else { t + 4 }, g)
}

/// Rows (and columns) of one `ldmatrix .m8n8` matrix.
pub const LDMATRIX_ROWS: usize = 8;
/// Bytes of one `ldmatrix` row: eight 16-bit elements, 16-byte aligned.
pub const LDMATRIX_ROW_BYTES: usize = 16;

/// `(matrix, row)` whose start address `lane` gives to `ldmatrix`: lanes
/// `8j..8j + 8` give the rows of matrix `j`. With `.x1` only lanes 0..8
/// are read, with `.x2` lanes 0..16; the other lanes' addresses are
/// ignored.
pub const fn ldmatrix_source(lane: usize) -> (usize, usize) {
    (lane / LDMATRIX_ROWS, lane % LDMATRIX_ROWS)
}

/// The lane that gives the address of `row` of `matrix` (inverse of
/// [`ldmatrix_source`]).
pub const fn ldmatrix_row_lane(matrix: usize, row: usize) -> usize {
    matrix * LDMATRIX_ROWS + row
}

/// `(row, col)`, in the 8 × 8 matrix as stored (row = the row whose
/// address a lane gave, col = the 16-bit element in it), of half `h` (0:
/// bits 0..16, 1: bits 16..32) of the register `lane` receives from each
/// matrix: row `lane / 4`, col `2 · (lane % 4) + h`. With `.trans` the
/// matrix is transposed on the way: row `2 · (lane % 4) + h`, col
/// `lane / 4`.
pub const fn ldmatrix_dest(lane: usize, h: usize, trans: bool) -> (usize, usize) {
    let (a, b) = (lane / 4, 2 * (lane % 4) + h);
    if trans { (b, a) } else { (a, b) }
}

/// `(row, col)` of the 16 × 16 A tile (16-bit elements, row-major in
/// shared memory) whose address `lane` gives to `ldmatrix.x4` so that the
/// four registers it receives are exactly its `mma.m16n8k16` A fragment
/// (`a[r]` holds elements `2r`, `2r + 1`): matrices 0..4 are the
/// top-left, bottom-left, top-right and bottom-right 8 × 8 quarters, so
/// lane `l` gives row `l % 16`, col `8 · (l / 16)`.
pub const fn ldmatrix_a_m16n8k16(lane: usize) -> (usize, usize) {
    (lane % 16, 8 * (lane / 16))
}

/// `(n, k)` of a B tile stored n-major (`[n][k]`, each row of shared
/// memory one column of B, 16-bit elements) whose address `lane` gives to
/// `ldmatrix.x4` (no `.trans`) so that it receives the B fragments of two
/// neighbouring `mma.m16n8k16`: registers 0, 1 are the fragment for
/// columns `n` 0..8, registers 2, 3 for columns 8..16. Lane `l` gives
/// row `n = l % 8 + 8 · (l / 16)`, col `k = 8 · ((l / 8) % 2)`. With
/// `.x2` lanes 0..16 load the first fragment alone.
pub const fn ldmatrix_b_m16n8k16(lane: usize) -> (usize, usize) {
    (lane % 8 + 8 * (lane / 16), 8 * ((lane / 8) % 2))
}

/// `(k, n)` of a B tile stored k-major (`[k][n]`, row-major B, 16-bit
/// elements) whose address `lane` gives to `ldmatrix.x4.trans` so that it
/// receives the B fragments of two neighbouring `mma.m16n8k16`: registers
/// 0, 1 for columns `n` 0..8, registers 2, 3 for columns 8..16. Lane `l`
/// gives row `k = l % 16`, col `n = 8 · (l / 16)`. With `.x2.trans` lanes
/// 0..16 load the first fragment alone.
pub const fn ldmatrix_b_trans_m16n8k16(lane: usize) -> (usize, usize) {
    (lane % 16, 8 * (lane / 16))
}

/// `(row, col)` of a 16 × 8 A tile of 32-bit elements (`f32` rounded to
/// tf32, row-major in shared memory) whose address `lane` gives to
/// `ldmatrix.x4` (reading each 32-bit element as two 16-bit halves) so
/// that it receives its `mma.m16n8k8` `.tf32` A fragment: lane `l` gives
/// row `l % 16`, col `4 · (l / 16)`. (`.trans` moves 16-bit halves, so a
/// k-major tf32 operand cannot be loaded this way.)
pub const fn ldmatrix_a_m16n8k8_tf32(lane: usize) -> (usize, usize) {
    (lane % 16, 4 * (lane / 16))
}

/// `(n, k)` of an 8 × 8 B tile of 32-bit elements stored n-major (`[n][k]`)
/// whose address `lane` gives to `ldmatrix.x2` so that it receives its
/// `mma.m16n8k8` `.tf32` B fragment: lane `l` (0..16) gives row
/// `n = l % 8`, col `k = 4 · ((l / 8) % 2)`.
pub const fn ldmatrix_b_m16n8k8_tf32(lane: usize) -> (usize, usize) {
    (lane % 8, 4 * ((lane / 8) % 2))
}

#[cfg(test)]
mod tests;
