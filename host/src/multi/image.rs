//! A batch of images processed over the devices of a group, host to host.
//!
//! The batch is cut into contiguous runs of images, one per device
//! ([`split`]), each run handled by its own host thread. On CUDA every
//! image goes through page-locked (pinned) staging buffers, two slots per
//! device: while the GPU copies in, processes and copies out image `n`
//! (all asynchronous on the context's stream), the thread copies image
//! `n + 1` into the other slot and the finished image `n − 1` out of it.
//! With a second stream per device the upload of `n + 1` would also
//! overlap the kernel of `n` (see the [module docs](super)).

use cudarc::driver::{result as cu, CudaEvent, PinnedHostSlice};
use ferrotile_kernels::image::index::MAX_BLUR_RADIUS;
use ferrotile_kernels::layout::shard::split;

use super::DeviceGroup;
use crate::backend::{driver, Cuda, Inner};
use crate::image::{self, DeviceImage, HostImage, Image};
use crate::{Buffer, Context, Error, Result};

/// What [`process_batch`] does to each image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BatchOp {
    /// RGB → gray ([`image::rgb_to_gray`]): 3 channels in, 1 out.
    Gray,
    /// Box blur ([`image::blur`]) of the radius, any channel count.
    Blur {
        /// The blur's radius (at most `MAX_BLUR_RADIUS`).
        radius: u32,
    },
}

impl BatchOp {
    fn out_channels(self, channels: usize) -> usize {
        match self {
            BatchOp::Gray => 1,
            BatchOp::Blur { .. } => channels,
        }
    }

    fn apply(self, ctx: &Context, src: &DeviceImage, dst: &mut DeviceImage) -> Result<()> {
        match self {
            BatchOp::Gray => image::rgb_to_gray(ctx, src, dst),
            BatchOp::Blur { radius } => image::blur(ctx, src, dst, radius),
        }
    }
}

/// Runs `op` on every image of `images` over the group's devices and
/// returns the results in the batch's order.
///
/// Errors, before anything is copied or launched: [`Error::BadArgument`]
/// `images` naming the first image [`BatchOp::Gray`] cannot take (not 3
/// channels), `radius` over the blur's limit; then what the copies and
/// kernels return (the first device's error).
pub fn process_batch(group: &DeviceGroup, images: &[HostImage], op: BatchOp) -> Result<Vec<HostImage>> {
    match op {
        BatchOp::Gray => {
            if let Some(i) = images.iter().position(|im| im.channels() != 3) {
                return Err(Error::BadArgument {
                    arg: "images",
                    detail: format!("image {i} has {} channels; grayscale needs 3 (RGB)", images[i].channels()),
                });
            }
        }
        BatchOp::Blur { radius } if radius > MAX_BLUR_RADIUS => {
            return Err(Error::BadArgument { arg: "radius", detail: format!("{radius}, at most {MAX_BLUR_RADIUS}") });
        }
        BatchOp::Blur { .. } => {}
    }
    let p = group.len();
    let runs: Vec<&[HostImage]> = (0..p)
        .map(|d| {
            let s = split(images.len(), p, 1, d);
            &images[s.start..s.end()]
        })
        .collect();
    let results: Vec<Result<Vec<HostImage>>> = std::thread::scope(|scope| {
        let workers: Vec<_> = runs
            .iter()
            .enumerate()
            .map(|(d, run)| {
                let ctx = group.context(d);
                scope.spawn(move || match &*ctx.inner {
                    Inner::Cuda(c) => run_cuda(ctx, c, run, op),
                    Inner::Emulator => run_direct(ctx, run, op),
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    let mut out = Vec::with_capacity(images.len());
    for r in results {
        out.extend(r?);
    }
    Ok(out)
}

/// One image at a time through ordinary uploads and downloads (the
/// emulator).
fn run_direct(ctx: &Context, run: &[HostImage], op: BatchOp) -> Result<Vec<HostImage>> {
    run.iter()
        .map(|img| {
            let src = DeviceImage::upload(ctx, img)?;
            let mut dst = DeviceImage::alloc(ctx, img.width(), img.height(), op.out_channels(img.channels()))?;
            op.apply(ctx, &src, &mut dst)?;
            dst.download()
        })
        .collect()
}

/// One staging slot: pinned input and output, the device images, and the
/// event recorded after the slot's download.
struct Slot {
    pin_in: PinnedHostSlice<u8>,
    pin_out: PinnedHostSlice<u8>,
    dev_in: Option<Buffer<u8>>,
    dev_out: Option<Buffer<u8>>,
    done: CudaEvent,
    /// The batch index and shape of the image in flight in this slot.
    pending: Option<(usize, usize, usize, usize)>,
}

fn run_cuda(ctx: &Context, c: &Cuda, run: &[HostImage], op: BatchOp) -> Result<Vec<HostImage>> {
    if run.is_empty() {
        return Ok(Vec::new());
    }
    c.ctx.bind_to_thread().map_err(driver("making the context current"))?;
    let mut slots = Vec::with_capacity(2);
    let r = pipeline(ctx, c, run, op, &mut slots);
    if r.is_err() {
        // Copies still in flight read and write the pinned slots: they
        // finish before the slots are freed.
        let _ = c.stream.synchronize();
    }
    r
}

fn pipeline(ctx: &Context, c: &Cuda, run: &[HostImage], op: BatchOp, slots: &mut Vec<Slot>) -> Result<Vec<HostImage>> {
    let in_max = run.iter().map(|im| im.data().len()).max().unwrap_or(1).max(1);
    let out_max = run.iter().map(|im| im.width() * im.height() * op.out_channels(im.channels())).max().unwrap_or(1).max(1);
    for _ in 0..2 {
        // SAFETY: the pinned memory is written before it is read.
        let pin_in = unsafe { c.ctx.alloc_pinned::<u8>(in_max) }.map_err(driver("allocating pinned host memory"))?;
        // SAFETY: as above.
        let pin_out = unsafe { c.ctx.alloc_pinned::<u8>(out_max) }.map_err(driver("allocating pinned host memory"))?;
        let done = c.ctx.new_event(None).map_err(driver("creating an event"))?;
        slots.push(Slot { pin_in, pin_out, dev_in: None, dev_out: None, done, pending: None });
    }
    let mut out: Vec<Option<HostImage>> = vec![None; run.len()];
    let stream = c.stream.cu_stream();
    for (n, img) in run.iter().enumerate() {
        let slot = &mut slots[n % 2];
        finish(slot, &mut out)?;
        let (w, h, ch) = (img.width(), img.height(), img.channels());
        let (in_len, out_len) = (img.data().len(), w * h * op.out_channels(ch));
        // The host copy into pinned memory: overlaps the GPU's work on the
        // other slot.
        let pin_in = slot.pin_in.as_mut_slice().map_err(driver("waiting for pinned memory"))?;
        pin_in[..in_len].copy_from_slice(img.data());
        let dev_in = reuse(ctx, &mut slot.dev_in, in_len)?;
        // SAFETY: `dev_in` holds `in_len` bytes; the pinned source stays
        // untouched until the slot's event has completed (`finish`).
        unsafe { cu::memcpy_htod_async(dev_in.device_ptr(), &pin_in[..in_len], stream) }.map_err(driver("copying to the device"))?;
        let src = Image::new(w, h, ch, slot.dev_in.take().expect("allocated above"))?;
        let dev_out = match slot.dev_out.take() {
            Some(b) if b.len() == out_len => b,
            _ => ctx.alloc::<u8>(out_len)?,
        };
        let mut dst = Image::new(w, h, op.out_channels(ch), dev_out)?;
        let applied = op.apply(ctx, &src, &mut dst);
        slot.dev_in = Some(src.into_data());
        let dev_out = dst.into_data();
        applied?;
        let pin_out = slot.pin_out.as_mut_slice().map_err(driver("waiting for pinned memory"))?;
        // SAFETY: `dev_out` holds `out_len` bytes, the pinned slot at least
        // as many; the host reads them only after the slot's event.
        unsafe { cu::memcpy_dtoh_async(&mut pin_out[..out_len], dev_out.device_ptr(), stream) }
            .map_err(driver("copying to the host"))?;
        slot.dev_out = Some(dev_out);
        slot.done.record(&c.stream).map_err(driver("recording an event"))?;
        slot.pending = Some((n, w, h, op.out_channels(ch)));
    }
    for slot in slots.iter_mut() {
        finish(slot, &mut out)?;
    }
    Ok(out.into_iter().map(|o| o.expect("every image finished")).collect())
}

/// Waits for the slot's image in flight, if any, and copies it out.
fn finish(slot: &mut Slot, out: &mut [Option<HostImage>]) -> Result<()> {
    if let Some((n, w, h, ch)) = slot.pending.take() {
        slot.done.synchronize().map_err(driver("waiting for an image"))?;
        let pinned = slot.pin_out.as_slice().map_err(driver("reading pinned memory"))?;
        out[n] = Some(Image::new(w, h, ch, pinned[..w * h * ch].to_vec())?);
    }
    Ok(())
}

/// The slot's device buffer if it has `len` bytes, else a new one.
fn reuse<'a>(ctx: &Context, b: &'a mut Option<Buffer<u8>>, len: usize) -> Result<&'a mut Buffer<u8>> {
    if b.as_ref().is_none_or(|b| b.len() != len) {
        *b = Some(ctx.alloc::<u8>(len)?);
    }
    Ok(b.as_mut().expect("set above"))
}
