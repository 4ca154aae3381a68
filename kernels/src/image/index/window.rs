//! Index math of the window blur of any radius and width (`blur_window_*`).

#[allow(unused_imports)]
use super::*;

// ---------------------------------------------------------------------------
// Sliding-window blur of any radius and width (`blur_window_*`)
// ---------------------------------------------------------------------------

/// Warps of a window-blur block; also the rows of one batch (one warp per
/// row in the horizontal phases).
pub const WIN_WARPS: u32 = 8;
/// Threads of a window-blur block.
pub const WIN_THREADS: u32 = 32 * WIN_WARPS;
/// Rows a window-blur block advances per batch (between its barriers).
pub const WIN_BATCH: u32 = WIN_WARPS;
/// Bytes of a row segment one lane sums horizontally: a multiple of 1, 2,
/// 3 and 4 (a lane's run starts on the segment's channel phase whatever the
/// channel count) and of 8 (its column sums are three 16-byte shared loads).
pub const WIN_RUN: u32 = 24;
/// Bytes of a block's row segment: its band of output bytes and the halo
/// on each side ([`win_band`]); one 4-byte column word per vertical thread.
pub const WIN_SEG: u32 = 32 * WIN_RUN;
/// Threads of a block that own a column word of the segment (the vertical
/// phase): the first `WIN_SEG / 4`.
pub const WIN_VERTICAL: u32 = WIN_SEG / 4;
/// Leading zero entries of a row of horizontal prefix sums (the sums
/// `channels` bytes before the segment's first byte).
pub const WIN_P_PAD: u32 = 4;
/// u32 entries of a row of horizontal prefix sums.
pub const WIN_P_ROW: u32 = WIN_SEG + WIN_P_PAD;
/// Largest radius of the window blur: a column sum of `2r + 1` bytes fits
/// its u16 lane, and the halo leaves a band of output bytes.
pub const WIN_MAX_RADIUS: u32 = 64;

/// Halo bytes on each side of a band: the `channels · r` bytes a window
/// reaches beyond it.
#[inline(always)]
pub const fn win_halo(channels: u32, r: u32) -> u32 {
    channels * r
}

/// Bytes of the segment before the band: the halo rounded up to a whole
/// column word, so that the segment starts 4-byte aligned in its row
/// whenever the band does (bands start at multiples of 4).
#[inline(always)]
pub const fn win_lead(channels: u32, r: u32) -> u32 {
    win_halo(channels, r).div_ceil(4) * 4
}

/// Output bytes per row of a window-blur block: what the segment holds
/// after its lead and the halo on the far side, rounded down to a multiple
/// of 4 and of `channels` (every band starts on a column word and on
/// channel 0).
#[inline(always)]
pub const fn win_band(channels: u32, r: u32) -> u32 {
    let room = WIN_SEG.saturating_sub(win_lead(channels, r) + win_halo(channels, r));
    let unit = if channels == 3 { 12 } else { 4 };
    room / unit * unit
}

/// Image column byte of segment byte 0 for the band starting at column
/// byte `x0` (negative in the first band).
#[inline(always)]
pub const fn win_seg_x(x0: u32, channels: u32, r: u32) -> i64 {
    x0 as i64 - win_lead(channels, r) as i64
}

/// Steps a block takes before its first output row: the `2r` rows of the
/// first window, rounded up to whole batches (its vertical sums start at
/// zero).
#[inline(always)]
pub const fn win_prologue(r: u32) -> u32 {
    (2 * r).div_ceil(WIN_BATCH) * WIN_BATCH
}

/// Buffers of column sums: batch `b` writes buffer `b % 2`, so the
/// vertical phase of the next batch never overwrites sums a slower warp
/// still reads (one barrier per batch).
pub const WIN_VSUM_BUFFERS: u32 = 2;

/// The batches' column sums (u16): `(buffer · WIN_BATCH + row, segment word
/// · 4 + k)` ([`win_vsum_row`]), where the four u16 of word `t` are the sums
/// of its bytes 0, 2 (one u32) and 1, 3 (the next): the vertical thread
/// stores its two packed sums as they are.
#[inline(always)]
pub const fn win_vsum() -> Layout2 {
    Layout2::row_major((WIN_VSUM_BUFFERS * WIN_BATCH) as usize, WIN_SEG as usize)
}

/// The [`win_vsum`] row of batch `b`'s row `g`.
#[inline(always)]
pub const fn win_vsum_row(b: u32, g: u32) -> usize {
    ((b % WIN_VSUM_BUFFERS) * WIN_BATCH + g) as usize
}

/// Segment byte `k` of a lane's run as an index into its column sums
/// ([`win_vsum`] entries from the run's first): the u16 holding it. The
/// mapping is its own inverse: entry `e` holds byte `win_vsum_entry(e)`.
#[inline(always)]
pub const fn win_vsum_entry(k: u32) -> u32 {
    4 * (k / 4) + 2 * (k % 2) + (k % 4) / 2
}

/// The batch's horizontal prefix sums (u32): `(row, WIN_P_PAD + segment
/// byte)`.
#[inline(always)]
pub const fn win_prefix() -> Layout2 {
    Layout2::row_major(WIN_BATCH as usize, WIN_P_ROW as usize)
}

/// Byte offset of the prefix sums in shared memory (the column sums start
/// at 0).
#[inline(always)]
pub const fn win_shared_parts() -> usize {
    2 * win_vsum().size()
}

/// Dynamic shared memory of a window-blur block (the same at every radius).
pub const fn win_shared_bytes() -> u32 {
    (win_shared_parts() + 4 * win_prefix().size()).div_ceil(16) as u32 * 16
}

/// Whether the window blur handles `channels` at radius `r` (any width and
/// height): 1 to 4 channels, radius 1 to [`WIN_MAX_RADIUS`] with a band of
/// at least 64 bytes.
pub const fn win_supports(channels: u32, r: u32) -> bool {
    channels >= 1
        && channels <= 4
        && r >= 1
        && r <= WIN_MAX_RADIUS
        && win_band(channels, r) >= 64
        && (2 * r + 1) * 255 <= u16::MAX as u32
}

/// `(m, s)` such that `div_round_half_up(sum, count) = mul_hi(sum +
/// count / 2, m) >> s` for `2 ≤ count < 2²²` and `sum ≤ 255 · count`:
/// `s = 0` below 4096, else `floor(log2(count - 1))`, and `m =
/// ceil(2^(32 + s) / count)` (below 2³² because `2^s < count`). With `n =
/// sum + count / 2 < 256 · count` and `m · count = 2^(32 + s) + e`, `e <
/// count`, the product exceeds `n / count` by `n · e / (count · 2^(32 +
/// s)) < 256 · count / 2^(32 + s)`, which is below `1 / count` — never enough to reach
/// the next integer — when `count² < 2^(24 + s)`: below 4096 with `s = 0`
/// (no shift: the blur's output loop for such windows has none), and
/// always with the larger shift (`2^s > (count - 1) / 2`). Tested below for
/// every full window up to radius 64.
pub const fn recip_magic_shift(count: u32) -> (u32, u32) {
    if count < 2 {
        return (0, 0);
    }
    let s = if count < 4096 { 0 } else { 31 - (count - 1).leading_zeros() };
    (((1u64 << (32 + s)).div_ceil(count as u64)) as u32, s)
}

/// [`div_round_half_up`] through [`recip_magic_shift`]`(count) = (m, s)`.
#[inline(always)]
pub const fn div_round_magic_shift(sum: u32, count: u32, m: u32, s: u32) -> u32 {
    mul_hi(sum + count / 2, m) >> s
}

/// [`div_round_magic_shift`] with the device's multiply-high
/// ([`mul_hi_u32`](crate::arch::mul_hi_u32): one instruction in a loop).
#[inline(always)]
pub fn div_round_magic_shift_dev(sum: u32, count: u32, m: u32, s: u32) -> u32 {
    crate::arch::mul_hi_u32(sum + count / 2, m) >> s
}

/// The shape of a window-blur launch, passed by value
/// (`.param .align 4 .b8 p[40]`). The channel count is a compile-time
/// constant of each kernel.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowParams {
    /// Pixels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Bytes per row.
    pub row_bytes: u32,
    /// Blur radius.
    pub radius: u32,
    /// Output bytes per row of a block ([`win_band`]).
    pub band: u32,
    /// Bands per row: `ceil(row_bytes / band)`.
    pub bands: u32,
    /// Output rows per block (the strip height).
    pub strip_rows: u32,
    /// Strips: `ceil(height / strip_rows)`.
    pub strips: u32,
    /// [`recip_magic_shift`] of the full window `(2r + 1)²`: multiplier.
    pub magic: u32,
    /// ... and shift.
    pub shift: u32,
}

impl WindowParams {
    /// Parameters of a `width × height × channels` image blurred with radius
    /// `r` in strips of `strip_rows` rows (`strip_rows ≥ 1`; the caller
    /// checked [`win_supports`] and the image size).
    pub const fn new(width: u32, height: u32, channels: u32, r: u32, strip_rows: u32) -> Self {
        let row_bytes = width * channels;
        let band = win_band(channels, r);
        let (magic, shift) = recip_magic_shift(full_count(r));
        WindowParams {
            width,
            height,
            row_bytes,
            radius: r,
            band,
            bands: row_bytes.div_ceil(band),
            strip_rows,
            strips: height.div_ceil(strip_rows),
            magic,
            shift,
        }
    }

    /// Blocks of the launch: one per band and strip.
    pub const fn blocks(&self) -> u32 {
        self.bands * self.strips
    }
}

/// Band and strip of window-blur block `b`: bands fastest, so the blocks
/// running together cover whole rows and read each other's halo bytes at
/// about the same time (the second read hits L2).
#[inline(always)]
pub const fn win_block(b: u32, bands: u32) -> (u32, u32) {
    (b % bands, b / bands)
}

/// Launch of the window blur: one block per band and strip.
pub const fn blur_window_config(p: WindowParams) -> LaunchConfig {
    LaunchConfig::linear(p.blocks(), WIN_THREADS).with_shared(win_shared_bytes())
}

/// Blocks per SM the window-blur kernels are built for (their launch
/// bounds: at most 64 registers a thread, so four blocks of
/// [`WIN_THREADS`] fit an SM's registers, as they fit its shared memory).
/// The kernel is latency-bound: more blocks hide more of its loads and
/// barriers.
pub const WIN_BLOCKS_BOUND: u32 = 4;

/// Blocks of the window blur that fit one SM (228 KB of shared memory,
/// 1 KB of it reserved per block; at most [`WIN_BLOCKS_BOUND`], its
/// registers).
pub const fn win_blocks_per_sm() -> u32 {
    let n = (228 * 1024) / (win_shared_bytes() + 1024);
    if n > WIN_BLOCKS_BOUND {
        WIN_BLOCKS_BOUND
    } else if n == 0 {
        1
    } else {
        n
    }
}

/// The default strip height of the window blur: the shortest strips (a
/// multiple of [`WIN_BATCH`] rows) whose blocks fill at most `waves` whole
/// waves of `blocks_per_sm` blocks on `sm_count` SMs, and at least one
/// prologue tall (the `2r` rows a strip reads before its first output
/// cost a vertical pass each, without the horizontal phases: an extra
/// fifth or so at most, far less than idle SMs), at most the image. Whole
/// waves: every block does the same work, so a partly filled last wave
/// would run as long as a full one.
pub const fn win_strip_rows(bands: u32, height: u32, r: u32, sm_count: u32, blocks_per_sm: u32, waves: u32) -> u32 {
    let slots = waves as u64 * sm_count as u64 * blocks_per_sm as u64;
    let strips = slots / if bands == 0 { 1 } else { bands as u64 };
    let rows = if strips == 0 { height as u64 } else { (height as u64).div_ceil(strips) };
    let rows = rows.div_ceil(WIN_BATCH as u64) * WIN_BATCH as u64;
    let floor = win_prologue(r) as u64;
    let rows = if rows < floor { floor } else { rows };
    let cap = (height as u64).div_ceil(WIN_BATCH as u64) * WIN_BATCH as u64;
    let rows = if rows > cap { cap } else { rows };
    if rows == 0 {
        1
    } else if rows > u32::MAX as u64 {
        u32::MAX
    } else {
        rows as u32
    }
}

/// Image byte (flat offset, may be negative at the left edge) of the first
/// byte of the segment of `row`: `row · row_bytes + band_start - halo`.
#[inline(always)]
pub const fn win_seg_start(row: u32, row_bytes: u32, band_start: u32, halo: u32) -> i64 {
    row as i64 * row_bytes as i64 + band_start as i64 - halo as i64
}

/// Mask of the bytes of segment word `t` (bytes `4t .. 4t + 4` of the
/// segment starting at image column byte `seg_x`, possibly negative) that
/// lie inside the row `[0, row_bytes)`: 0xff per byte inside.
#[inline(always)]
pub const fn win_word_mask(seg_x: i64, t: u32, row_bytes: u32) -> u32 {
    let mut m = 0u32;
    let mut j = 0;
    while j < 4 {
        let x = seg_x + 4 * t as i64 + j;
        if x >= 0 && x < row_bytes as i64 {
            m |= 0xff << (8 * j);
        }
        j += 1;
    }
    m
}

