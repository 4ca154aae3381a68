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
//!
//! Images the caller already holds in page-locked memory
//! ([`PinnedImage`], [`process_pinned_batch`]) skip the staging: the
//! devices copy them directly, each device alternating two streams.

use cudarc::driver::{result as cu, CudaEvent, PinnedHostSlice};
use ferrotile_kernels::image::index::MAX_BLUR_RADIUS;
use ferrotile_kernels::layout::shard::split;

use super::DeviceGroup;
use crate::backend::{driver, Cuda, Inner};
use crate::image::{self, DeviceImage, HostImage, Image, PinnedImage};
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
/// returns the results in the batch's order (new images; to reuse
/// outputs from batch to batch, see [`process_batch_into`]).
///
/// Errors, before anything is copied or launched: [`Error::BadArgument`]
/// `images` naming the first image [`BatchOp::Gray`] cannot take (not 3
/// channels), `radius` over the blur's limit; then what the copies and
/// kernels return (the first device's error).
pub fn process_batch(group: &DeviceGroup, images: &[HostImage], op: BatchOp) -> Result<Vec<HostImage>> {
    check_op(images.iter().map(|im| im.channels()), op)?;
    let mut outputs = images
        .iter()
        .map(|im| HostImage::new(im.width(), im.height(), op.out_channels(im.channels()), vec![0; im.width() * im.height() * op.out_channels(im.channels())]))
        .collect::<Result<Vec<_>>>()?;
    process_batch_into(group, images, &mut outputs, op)?;
    Ok(outputs)
}

/// [`process_batch`] into images the caller holds: `outputs[i]` receives
/// `op` of `images[i]`. A pipeline that keeps its outputs from batch to
/// batch saves allocating (and the OS zeroing) every result's memory.
///
/// Errors, before anything is copied or launched: as [`process_batch`];
/// [`Error::LengthMismatch`] `outputs` when it does not hold one image per
/// input; [`Error::BadArgument`] `outputs` naming the first output whose
/// width, height or channel count is not what `op` makes of its input.
pub fn process_batch_into(group: &DeviceGroup, images: &[HostImage], outputs: &mut [HostImage], op: BatchOp) -> Result<()> {
    check_op(images.iter().map(|im| im.channels()), op)?;
    check_outputs(images.iter().map(shape).zip(outputs.iter().map(shape)), images.len(), outputs.len(), op)?;
    per_device(group, images, outputs, |ctx, run, outs| match &*ctx.inner {
        Inner::Cuda(c) => run_cuda(ctx, c, run, outs, op),
        Inner::Emulator => run_direct(ctx, run, outs, op),
    })
}

/// An image's `(width, height, channels)`.
fn shape<S: image::ImageData>(im: &Image<S>) -> (usize, usize, usize) {
    (im.width(), im.height(), im.channels())
}

/// The checks of `op` against the batch's channel counts.
fn check_op(channels: impl Iterator<Item = usize>, op: BatchOp) -> Result<()> {
    match op {
        BatchOp::Gray => {
            if let Some((i, c)) = channels.enumerate().find(|&(_, c)| c != 3) {
                return Err(Error::BadArgument { arg: "images", detail: format!("image {i} has {c} channels; grayscale needs 3 (RGB)") });
            }
        }
        BatchOp::Blur { radius } if radius > MAX_BLUR_RADIUS => {
            return Err(Error::BadArgument { arg: "radius", detail: format!("{radius}, at most {MAX_BLUR_RADIUS}") });
        }
        BatchOp::Blur { .. } => {}
    }
    Ok(())
}

/// The checks of the outputs against the inputs' `(input, output)` shapes:
/// one output per input, each of the shape `op` makes.
fn check_outputs(shapes: impl Iterator<Item = ((usize, usize, usize), (usize, usize, usize))>, inputs: usize, outputs: usize, op: BatchOp) -> Result<()> {
    if outputs != inputs {
        return Err(Error::LengthMismatch { arg: "outputs", expected: inputs, actual: outputs });
    }
    for (i, ((w, h, c), out)) in shapes.enumerate() {
        let want = (w, h, op.out_channels(c));
        if out != want {
            return Err(Error::BadArgument {
                arg: "outputs",
                detail: format!("output {i} is {}×{}×{}; image {i} makes {}×{}×{}", out.0, out.1, out.2, want.0, want.1, want.2),
            });
        }
    }
    Ok(())
}

/// Cuts the batch into one contiguous run per device ([`split`]) and runs
/// `work` on each device's inputs and outputs, one host thread per
/// device; the first device's error, if any.
fn per_device<A: Sync, B: Send>(group: &DeviceGroup, images: &[A], outputs: &mut [B], work: impl Fn(&Context, &[A], &mut [B]) -> Result<()> + Sync) -> Result<()> {
    let p = group.len();
    let mut runs = Vec::with_capacity(p);
    let mut rest = outputs;
    for d in 0..p {
        let s = split(images.len(), p, 1, d);
        let (outs, tail) = std::mem::take(&mut rest).split_at_mut(s.len);
        rest = tail;
        runs.push((&images[s.start..s.end()], outs));
    }
    let work = &work;
    let results: Vec<Result<()>> = std::thread::scope(|scope| {
        let workers: Vec<_> = runs
            .into_iter()
            .enumerate()
            .map(|(d, (run, outs))| {
                let ctx = group.context(d);
                scope.spawn(move || work(ctx, run, outs))
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    results.into_iter().collect()
}

impl DeviceGroup {
    /// The rank whose device processes image `i` of a batch of `count`
    /// images: [`process_pinned_batch`] needs image `i` (and its output)
    /// pinned by that rank's context.
    pub fn batch_rank(&self, count: usize, i: usize) -> usize {
        (0..self.len()).find(|&d| split(count, self.len(), 1, d).end() > i).unwrap_or(self.len() - 1)
    }
}

/// [`process_batch_into`] for images in page-locked memory: the devices
/// copy straight from the inputs and into the outputs (no staging copy on
/// the host), each device on two streams of its own so that one image's
/// upload overlaps the previous one's kernel and download. Returns when
/// every output holds its result.
///
/// Image `i` and output `i` must be pinned by the context of rank
/// [`DeviceGroup::batch_rank`]`(images.len(), i)` (page-locked memory is
/// mapped for the context that allocated it).
///
/// Errors, before anything is copied or launched: as
/// [`process_batch_into`]; [`Error::BadArgument`] `images` or `outputs`
/// naming the first one pinned by another context.
pub fn process_pinned_batch(group: &DeviceGroup, images: &[PinnedImage], outputs: &mut [PinnedImage], op: BatchOp) -> Result<()> {
    check_op(images.iter().map(|im| im.channels()), op)?;
    check_outputs(images.iter().map(shape).zip(outputs.iter().map(shape)), images.len(), outputs.len(), op)?;
    for (arg, list) in [("images", images), ("outputs", &*outputs)] {
        let rank = |i| group.batch_rank(list.len(), i);
        if let Some((i, d)) = (0..list.len()).map(|i| (i, rank(i))).find(|&(i, d)| !list[i].data().is_on(group.context(d))) {
            return Err(Error::BadArgument { arg, detail: format!("{arg}[{i}] is not pinned by rank {d}'s context, which processes it (DeviceGroup::batch_rank)") });
        }
    }
    per_device(group, images, outputs, |ctx, run, outs| run_pinned(ctx, run, outs, op))
}

/// One device's run of pinned images: image `n` on stream `n % 2`, with
/// that stream's pair of device images (reused two images later, in the
/// stream's order).
fn run_pinned(ctx: &Context, run: &[PinnedImage], outs: &mut [PinnedImage], op: BatchOp) -> Result<()> {
    if run.is_empty() {
        return Ok(());
    }
    let streams = [ctx.new_stream()?, ctx.new_stream()?];
    let on = [ctx.on(&streams[0])?, ctx.on(&streams[1])?];
    let mut slots: [Option<(Buffer<u8>, Buffer<u8>)>; 2] = [None, None];
    for (n, (img, out)) in run.iter().zip(outs.iter_mut()).enumerate() {
        let s = &on[n % 2];
        let (w, h, ch) = shape(img);
        let och = op.out_channels(ch);
        let (mut din, dout) = match slots[n % 2].take() {
            Some((i, o)) if i.len() == img.data().len() && o.len() == out.data().len() => (i, o),
            // On the image's stream, not cleared: the upload writes every
            // input byte, the kernel every output byte.
            _ => (s.alloc_unzeroed::<u8>(img.data().len())?, s.alloc_unzeroed::<u8>(out.data().len())?),
        };
        s.upload_async(img.data(), &mut din)?;
        let src = Image::new(w, h, ch, din)?;
        let mut dst = Image::new(w, h, och, dout)?;
        op.apply(s, &src, &mut dst)?;
        s.download_async(dst.data(), out.pinned_mut())?;
        slots[n % 2] = Some((src.into_data(), dst.into_data()));
    }
    for s in &on {
        s.synchronize()?;
    }
    Ok(())
}

/// One image at a time through ordinary uploads and downloads (the
/// emulator).
fn run_direct(ctx: &Context, run: &[HostImage], outs: &mut [HostImage], op: BatchOp) -> Result<()> {
    for (img, out) in run.iter().zip(outs) {
        let src = DeviceImage::upload(ctx, img)?;
        let mut dst = DeviceImage::alloc(ctx, img.width(), img.height(), op.out_channels(img.channels()))?;
        op.apply(ctx, &src, &mut dst)?;
        *out = dst.download()?;
    }
    Ok(())
}

/// One staging slot: pinned input and output, the device images, and the
/// event recorded after the slot's download.
struct Slot {
    pin_in: PinnedHostSlice<u8>,
    pin_out: PinnedHostSlice<u8>,
    dev_in: Option<Buffer<u8>>,
    dev_out: Option<Buffer<u8>>,
    done: CudaEvent,
    /// The run index and byte length of the image in flight in this slot.
    pending: Option<(usize, usize)>,
}

fn run_cuda(ctx: &Context, c: &Cuda, run: &[HostImage], outs: &mut [HostImage], op: BatchOp) -> Result<()> {
    if run.is_empty() {
        return Ok(());
    }
    c.ctx.bind_to_thread().map_err(driver("making the context current"))?;
    let mut slots = Vec::with_capacity(2);
    let r = pipeline(ctx, c, run, outs, op, &mut slots);
    if r.is_err() {
        // Copies still in flight read and write the pinned slots: they
        // finish before the slots are freed.
        let _ = c.stream.synchronize();
    }
    r
}

fn pipeline(ctx: &Context, c: &Cuda, run: &[HostImage], outs: &mut [HostImage], op: BatchOp, slots: &mut Vec<Slot>) -> Result<()> {
    let in_max = run.iter().map(|im| im.data().len()).max().unwrap_or(1).max(1);
    let out_max = run.iter().map(|im| im.width() * im.height() * op.out_channels(im.channels())).max().unwrap_or(1).max(1);
    for _ in 0..2 {
        // The input slot is write-combined (cudarc's `alloc_pinned`): the
        // host only writes it, the copy engine reads it. The output slot
        // is read by the host, so it is ordinary cached memory (flags 0):
        // reads of write-combined memory are uncached, several times
        // slower than the copy into the image.
        // SAFETY: the pinned memory is written before it is read.
        let pin_in = unsafe { c.ctx.alloc_pinned::<u8>(in_max) }.map_err(driver("allocating pinned host memory"))?;
        // SAFETY: as above.
        let pin_out = unsafe { c.ctx.alloc_pinned_with_flags::<u8>(out_max, 0) }.map_err(driver("allocating pinned host memory"))?;
        let done = c.ctx.new_event(None).map_err(driver("creating an event"))?;
        slots.push(Slot { pin_in, pin_out, dev_in: None, dev_out: None, done, pending: None });
    }
    let stream = c.stream.cu_stream();
    for (n, img) in run.iter().enumerate() {
        let slot = &mut slots[n % 2];
        finish(slot, outs)?;
        let (w, h, ch) = (img.width(), img.height(), img.channels());
        let (in_len, out_len) = (img.data().len(), w * h * op.out_channels(ch));
        // The host copy into pinned memory: overlaps the GPU's work on the
        // other slot.
        let pin_in = slot.pin_in.as_mut_slice().map_err(driver("waiting for pinned memory"))?;
        par_copy(&mut pin_in[..in_len], img.data());
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
        slot.pending = Some((n, out_len));
    }
    for slot in slots.iter_mut() {
        finish(slot, outs)?;
    }
    Ok(())
}

/// Waits for the slot's image in flight, if any, and copies it out.
fn finish(slot: &mut Slot, outs: &mut [HostImage]) -> Result<()> {
    if let Some((n, len)) = slot.pending.take() {
        slot.done.synchronize().map_err(driver("waiting for an image"))?;
        let pinned = slot.pin_out.as_slice().map_err(driver("reading pinned memory"))?;
        par_copy(outs[n].data_mut(), &pinned[..len]);
    }
    Ok(())
}

/// `dst.copy_from_slice(src)` in 1 MiB pieces over rayon's threads: the
/// host copies into and out of the pinned slots are what a batch's time
/// is spent on (one thread's copy bandwidth is a fraction of the
/// machine's, and each GPU's thread would otherwise copy alone). Pieces
/// of 1 MiB rather than 4 MiB give a 1080p image's 6 MB six threads
/// instead of two (measured: docs/benchmarks/2026-11-25-h100-batch-staging/).
fn par_copy(dst: &mut [u8], src: &[u8]) {
    use rayon::prelude::*;
    const PIECE: usize = 1 << 20;
    dst.par_chunks_mut(PIECE).zip(src.par_chunks(PIECE)).for_each(|(d, s)| d.copy_from_slice(s));
}

/// The slot's device buffer if it has `len` bytes, else a new one.
fn reuse<'a>(ctx: &Context, b: &'a mut Option<Buffer<u8>>, len: usize) -> Result<&'a mut Buffer<u8>> {
    if b.as_ref().is_none_or(|b| b.len() != len) {
        *b = Some(ctx.alloc::<u8>(len)?);
    }
    Ok(b.as_mut().expect("set above"))
}
