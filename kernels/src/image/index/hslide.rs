//! Index math of the sliding blur of horizontal sums (`blur_hslide_*`).

#[allow(unused_imports)]
use super::*;

// ---------------------------------------------------------------------------
// Sliding blur of horizontal sums
// ---------------------------------------------------------------------------

/// Packed words of one chunk row's horizontal sums: 16 u16 lanes, lane of
/// byte `j` at [`hsum_lane`]`(j)`.
pub const HSLIDE_WORDS: usize = 8;

/// Rows a thread of the horizontal-first sliding blur
/// ([`blur_hslide_gray_r1`](crate::image::blur_hslide_gray_r1)) loads ahead of
/// the row it sums (registers hold raw rows: 4 + 2 halo words each): 4,
/// but 2 for RGB at radius 3, whose 4 rows of 10 words would not fit the
/// registers of 5 blocks per SM. Measured on an H200 at 8192² (first
/// run, strip 16, % of copy): gray 89.3 / 83.0 / 75.4 with 4 rows against
/// 87.3 / 81.9 / 72.3 with 2; RGB radius 3 at 5 blocks per SM with 2
/// rows 56.7, with 4 rows at 4 blocks 53.3. RGBA takes RGB's settings
/// here and below: its halo is as many words (`4r` bytes against `3r`,
/// rounded up to words: 1, 2, 3).
pub const fn hslide_prefetch(channels: u32, r: u32) -> u32 {
    if channels >= 3 && r == 3 { 2 } else { 4 }
}

/// Whether the horizontal-first sliding kernel for `channels` at radius
/// `r` walks neighbouring strips in opposite directions
/// ([`slide_strip_upward`]): all but RGB at radius 3, whose alternating
/// walk (two more live registers) spills under its 5-blocks-per-SM bound;
/// it walks every strip down. (Alternating measured faster before a
/// refactor made it spill: HISTORY.md.)
pub const fn hslide_alternates(channels: u32, r: u32) -> bool {
    !(channels >= 3 && r == 3)
}

/// Most rows a horizontal-first sliding thread loads before summing the
/// first ([`hslide_prologue_rows`]): the `2r` rows its ring starts with.
pub const HSLIDE_MAX_PROLOGUE: usize = 6;

/// Rows of the ring's start (`2r` in all) that a horizontal-first sliding
/// thread loads together before summing the first of them; the rest are
/// loaded one by one. All `2r`, but 2 for RGB at radius 3 (10 words a
/// row: six rows in flight at once do not fit its registers).
pub const fn hslide_prologue_rows(channels: u32, r: u32) -> u32 {
    if channels >= 3 && r == 3 { 2 } else { 2 * r }
}

/// Blocks of [`SLIDE_THREADS`] per SM each horizontal-first sliding
/// kernel is built for: its launch bounds (`.minnctapersm`, so ptxas keeps
/// the registers under `65536 / (128 · n)`, and `cargo xtask
/// ptxas-report` shows no spills) and the strip height
/// ([`hslide_default_strip_rows`]) both use it. 6 (≤ 80 registers) where the
/// kernel fits, else 5 (≤ 96): gray radius 3 takes 96, RGB radius 2 and 3
/// spill under 80. RGB radius 2 measured faster at 5 blocks than at 4 (its
/// 119 registers without bounds; HISTORY.md). RGBA at radius 3: 4
/// (≤ 128; it spilled 4 bytes under 96).
pub const fn hslide_blocks_per_sm(channels: u32, r: u32) -> u32 {
    match (channels, r) {
        (1, 1 | 2) | (3 | 4, 1) => 6,
        // RGBA at radius 3 spilled 4 bytes under 96 registers.
        (4, 3) => 4,
        _ => 5,
    }
}

/// Waves of blocks the default horizontal-first launch is cut into
/// ([`hslide_default_strip_rows`]); [`HSLIDE_SMALL_WAVES`] where that
/// would need the shortest strips.
pub const HSLIDE_WAVES: u32 = 3;
/// Waves of the default launch on images too small for
/// [`HSLIDE_WAVES`] waves of strips taller than the shortest.
pub const HSLIDE_SMALL_WAVES: u32 = 2;

/// The strip height of a horizontal-first sliding launch that fills
/// `waves` whole waves of `blocks_per_sm` blocks on `sm_count` SMs: the
/// fewest rows per strip whose threads (one per chunk and strip) fit
/// `waves · sm_count · blocks_per_sm · 128` threads, at least
/// [`SLIDE_STRIP_RANGE`]`[0]` (small images: fewer threads than a wave).
/// Every inner block of a wave does the same work, so whole waves leave
/// no partly filled last wave; but the edge chunks' threads (1 row ahead:
/// about 1.5 µs per row on an H200, latency-bound) take longest and start
/// first, so strips must stay short enough for them: one wave of tall
/// strips ran as long as its edge threads, far below copy speed.
pub const fn hslide_strip_rows(chunks: u32, height: u32, sm_count: u32, blocks_per_sm: u32, waves: u32) -> u32 {
    let slots = waves as u64 * sm_count as u64 * blocks_per_sm as u64 * SLIDE_THREADS as u64;
    let strips = slots / if chunks == 0 { 1 } else { chunks as u64 };
    let rows = if strips == 0 { height as u64 } else { (height as u64).div_ceil(strips) };
    if rows < SLIDE_STRIP_RANGE[0] as u64 { SLIDE_STRIP_RANGE[0] } else { rows as u32 }
}

/// The default strip height of the horizontal-first sliding blur:
/// [`HSLIDE_WAVES`] (3) whole waves ([`hslide_strip_rows`]), or
/// [`HSLIDE_SMALL_WAVES`] (2) where 3 would need the shortest strips
/// (small images: the `2r` halo rows of each strip weigh more there).
/// Measured on an H200 (second run, % of copy): at 8192² 3 waves (strips
/// of 14–17 rows gray, 42–50 RGB) gave gray 83.0 / 78.8 / 72.8 and RGB
/// 82.0 / 78.9 / 59.5 for radius 1–3, 2 waves 75.4 / 71.2 / 70.4 and 73.4 /
/// 69.9 / 60.7, fixed 16 rows 83.4 / 76.9 / 70.4 and 87.8 / 76.5 / 56.2; at
/// 1920 × 1080 2 waves (RGB radius 2 and 3: 3 rows) 80.6 and 65.7 against
/// 73.1 and 62.8 with 3 waves (2 rows).
pub const fn hslide_default_strip_rows(chunks: u32, height: u32, sm_count: u32, blocks_per_sm: u32) -> u32 {
    let s = hslide_strip_rows(chunks, height, sm_count, blocks_per_sm, HSLIDE_WAVES);
    if s > SLIDE_STRIP_RANGE[0] { s } else { hslide_strip_rows(chunks, height, sm_count, blocks_per_sm, HSLIDE_SMALL_WAVES) }
}

/// A thread's ring of horizontal sums in shared memory, in 16-byte units:
/// `(slot, half, thread)` with the thread fastest (a warp's 32 vectors of
/// one slot and half are 512 contiguous bytes: no bank conflict). Slot
/// `s` holds the sums of one window row, half `h` its words `4h .. 4h + 4`.
#[inline(always)]
pub const fn hslide_ring(r: u32) -> Layout3 {
    Layout3::row_major(slide_ring_slots(r) as usize, 2, SLIDE_THREADS as usize)
}

/// Dynamic shared memory of a horizontal-first sliding-blur block.
pub const fn hslide_shared_bytes(r: u32) -> u32 {
    16 * hslide_ring(r).size() as u32
}

/// Launch of the horizontal-first sliding blur of radius `r`: the threads
/// of [`blur_slide_config`], rings of horizontal sums.
pub const fn blur_hslide_config(p: SlideParams, r: u32) -> LaunchConfig {
    LaunchConfig::linear(p.threads().div_ceil(SLIDE_THREADS), SLIDE_THREADS).with_shared(hslide_shared_bytes(r))
}

/// The bias a column-sum lane starts from: `count / 2`, so that the lane
/// holds `sum + count / 2`, the numerator of [`div_round_half_up`], with
/// no add per output.
#[inline(always)]
pub const fn lane_bias(count: u32) -> u32 {
    count / 2
}

/// `floor(a · b / 2³²)`: PTX `mul.hi.u32`.
#[inline(always)]
pub const fn mul_hi(a: u32, b: u32) -> u32 {
    ((a as u64 * b as u64) >> 32) as u32
}

/// Largest count of [`div_round_hi_lane`].
pub const HI_LANE_MAX_COUNT: u32 = 64;
/// Largest low lane [`div_round_hi_lane`] tolerates.
pub const HI_LANE_MAX_LOW: u32 = (1 << 15) - 1;

/// The rounded mean of the high lane of a packed word without extracting
/// it: `word = lo + 2¹⁶ · (sum + count / 2)` with `lo ≤ HI_LANE_MAX_LOW`,
/// `2 ≤ count ≤ HI_LANE_MAX_COUNT`, `sum ≤ 255 · count`; the result is
/// byte 2 of `mul_hi(word, magic24(count) << 8)` (returned shifted down).
///
/// Exact: the product is `floor((n + f) · m / 2²⁴)` shifted up 16 bits,
/// with `n = sum + count / 2`, `f = lo / 2¹⁶ < 1/2`, `m = magic24(count)`,
/// `m · count = 2²⁴ + e`, `e < count`. With `n = q · count + r`,
/// `(n + f) · m / 2²⁴ = q + (r + f) / count + (n + f) · e / (count · 2²⁴)`
/// and `r + f + (n + f) · e / 2²⁴ < count - 1 + 1/2 + 256 · 64² / 2²⁴ < count`
/// (tested exhaustively below). Bytes 0–1 of the product are the low
/// lane's fraction, byte 3 is zero.
#[inline(always)]
pub const fn div_round_hi_lane(word: u32, magic: u32) -> u32 {
    (mul_hi(word, magic << 8) >> 16) & 0xff
}
