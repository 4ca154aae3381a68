//! Strip heights of the sliding and window rungs: how many output rows
//! one thread (sliding) or block (window) runs, sized by the image and
//! the device's multiprocessors. The heuristics take any `usize`
//! arguments (they run before, or without, a shape check) and saturate.

use ferrotile_kernels::image::index as ix;

use crate::Context;

/// The default strip height of the window rung for `width × height ×
/// channels` at `radius` on `ctx`: strips whose blocks fill one whole wave
/// ([`ix::win_strip_rows`]).
pub fn window_strip_rows(ctx: &Context, width: usize, height: usize, channels: usize, radius: u32) -> u32 {
    let c = clamp_u32(channels).clamp(1, 4);
    let r = radius.clamp(1, ix::WIN_MAX_RADIUS);
    let band = ix::win_band(c, r).max(1) as usize;
    let bands = clamp_u32(width.saturating_mul(c as usize).div_ceil(band)).max(1);
    let (h, bps, sms) = (clamp_u32(height), ix::win_blocks_per_sm(), sm_count(ctx));
    ix::win_strip_rows(bands, h, r, sms, bps, 1).min(WINDOW_MAX_STRIP)
}

/// Tallest strip of the window rung (its step counter is an `i32`).
pub(super) const WINDOW_MAX_STRIP: u32 = 1 << 30;
/// The default strip height of the horizontal-first sliding rung for
/// `width × height × channels` at `radius` on `ctx`: strips that fill 3
/// whole waves of blocks, 2 on small images
/// ([`ix::hslide_default_strip_rows`]).
pub fn sliding_sums_strip_rows(ctx: &Context, width: usize, height: usize, channels: usize, radius: u32) -> u32 {
    let blocks = ix::hslide_blocks_per_sm(clamp_u32(channels), radius);
    ix::hslide_default_strip_rows(slide_chunks(width, channels), clamp_u32(height), sm_count(ctx), blocks)
}

/// [`sliding_sums_strip_rows`] for `waves` waves (the benchmark compares).
#[doc(hidden)]
pub fn sliding_sums_strip_rows_for_waves(ctx: &Context, width: usize, height: usize, channels: usize, radius: u32, waves: u32) -> u32 {
    let blocks = ix::hslide_blocks_per_sm(clamp_u32(channels), radius);
    ix::hslide_strip_rows(slide_chunks(width, channels), clamp_u32(height), sm_count(ctx), blocks, waves)
}

/// The default strip height of the sliding rung for `width × height ×
/// channels` on `ctx` (about [`ix::slide_target_threads`] threads).
pub fn sliding_strip_rows(ctx: &Context, width: usize, height: usize, channels: usize) -> u32 {
    ix::slide_strip_rows(slide_chunks(width, channels), clamp_u32(height), ix::slide_target_threads(sm_count(ctx)))
}

/// SMs of `ctx`'s device (an H200's 132 for the emulator): the strip-height
/// heuristics size their launches by it.
fn sm_count(ctx: &Context) -> u32 {
    ctx.device_info().map_or(132, |d| d.sm_count.max(1) as u32)
}

/// 16-byte chunks of a `width`-pixel row of `channels`, at most
/// `u32::MAX`: the strip-height heuristics take any `usize` arguments (they
/// run before, or without, a shape check), so the product saturates
/// instead of overflowing into a small, wrong count.
fn slide_chunks(width: usize, channels: usize) -> u32 {
    clamp_u32(width.saturating_mul(channels) / ix::SLIDE_CHUNK as usize)
}

/// `v`, or `u32::MAX` where it does not fit.
pub(super) fn clamp_u32(v: usize) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}
