//! Streams, events and pinned host memory: work of one context on several
//! CUDA streams, ordered per buffer without host synchronisation.
//!
//! * [`Stream`]: a non-blocking CUDA stream of a context
//!   ([`Context::new_stream`]). [`Context::on`] gives a handle of the same
//!   context (same identity, modules and buffers) whose every operation —
//!   GEMM, transpose, image kernels, `vec_add`, allocations, uploads,
//!   downloads and copies — is enqueued on that stream. Every function that
//!   takes a `&Context` works unchanged with it.
//! * [`Event`]: a point in a stream, to make another stream wait for it
//!   ([`Context::wait_event`]) or to time the work between two of them
//!   ([`Event::elapsed`]).
//! * [`PinnedBuffer`]: page-locked host memory, the source and destination
//!   of the asynchronous copies [`Context::upload_async`] and
//!   [`Context::download_async`].
//!
//! # Ordering: what ferrotile guarantees
//!
//! Each buffer remembers, once a context has streams besides its default
//! one, an event after its last write and one after the last read on each
//! stream since. An operation on stream `S` first makes `S` wait (on the
//! device, no host wait) for the last write of every buffer it reads, and
//! for the last write and every later read of every buffer it writes, when
//! those happened on another stream; then it records its own events. So
//! every buffer is used as if its operations ran in the order the program
//! issued them: readers on several streams run concurrently, a writer waits
//! for the readers before it, and a reader for the writer before it.
//! cudarc's own per-slice tracking is turned off for ferrotile's context
//! (it keeps one read event per slice, so a write after reads on two
//! streams would wait for only the last of them); this tracking replaces it.
//!
//! Freeing: dropping a buffer makes the stream that frees it wait for every
//! recorded use on other streams first, so memory is never freed (or
//! reused by the stream-ordered allocator) while another stream still uses
//! it. A buffer dropped while work is pending is therefore fine.
//!
//! What is *not* ordered for you: host code reading results. A download to
//! a `Vec` ([`Buffer::download`], [`Context::download`]) waits for its
//! stream; an asynchronous download into a [`PinnedBuffer`] completes when
//! its stream or an event after it is synchronised, and the pinned buffer's
//! accessors wait for that themselves.
//!
//! Not ordered for you either: the [`crate::multi`] group operations
//! (collectives, [`crate::multi::ShardedGemm`], `process_batch`) run on
//! their contexts' default streams and their own transfer streams, ordered
//! against the default streams by events; their buffers' uses are not
//! recorded per buffer (only [`crate::multi::copy_peer`]'s are). Before a
//! group's buffer is used on another stream of its context, make that
//! stream wait for the default stream (`on.wait_event(&ctx.record_event()?)`),
//! and synchronise the stream before the group uses the buffer again.
//!
//! Before the first [`Context::new_stream`] everything runs on the default
//! stream and no events are recorded (no cost); after it, each operation
//! records one event per buffer it touches (about a microsecond each).
//!
//! # The default stream
//!
//! A CUDA context's default stream is a non-blocking stream of its own
//! (`CU_STREAM_NON_BLOCKING`), not the legacy null stream: it does not
//! serialise with work other code submits to the null stream.
//!
//! # The emulator
//!
//! Streams and events exist and every operation runs to completion when it
//! is called, on the calling thread: the same program runs, in the order
//! written; events time the host clock.

use std::cell::Cell;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cudarc::driver::{sys, CudaEvent, CudaStream, HostSlice, PinnedHostSlice};

use crate::backend::{driver, Cuda, Inner, Storage};
use crate::{Buffer, Context, Element, Error, Result};

/// A stream of a [`Context`]: work enqueued on it (through
/// [`Context::on`]) runs in order, concurrently with other streams.
///
/// On CUDA a non-blocking stream; on the emulator a marker (work runs when
/// it is called). Dropping it while work is pending is fine: the work
/// completes, and buffers keep what they need alive.
pub struct Stream {
    pub(crate) cuda: Option<Arc<CudaStream>>,
    pub(crate) owner: Arc<Inner>,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.cuda {
            Some(s) => write!(f, "Stream(cuda {:?})", s.cu_stream()),
            None => f.write_str("Stream(emulator)"),
        }
    }
}

impl Stream {
    /// Waits until everything enqueued on the stream has finished; reports a
    /// kernel fault since the last check.
    pub fn synchronize(&self) -> Result<()> {
        match (&self.cuda, &*self.owner) {
            (Some(s), Inner::Cuda(c)) => c.note(s.synchronize().map_err(driver("synchronizing a stream"))),
            _ => Ok(()),
        }
    }

    /// The cudarc stream (`None` on the emulator), to order the
    /// application's own cudarc work against it (`CudaStream::join`).
    pub fn cudarc_stream(&self) -> Option<&Arc<CudaStream>> {
        self.cuda.as_ref()
    }
}

/// A point in a stream's work ([`Context::record_event`]): another stream
/// can wait for it ([`Context::wait_event`]), the host can wait for it
/// ([`Event::synchronize`]), and two events time the work between them
/// ([`Event::elapsed`]).
pub struct Event {
    kind: EventKind,
    owner: Arc<Inner>,
}

enum EventKind {
    Cuda(CudaEvent),
    /// The emulator: the host clock when it was recorded (all work before
    /// it had finished then).
    Emulator(Instant),
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            EventKind::Cuda(_) => f.write_str("Event(cuda)"),
            EventKind::Emulator(t) => write!(f, "Event(emulator, {t:?})"),
        }
    }
}

impl Event {
    /// Waits until the work before the event has finished.
    pub fn synchronize(&self) -> Result<()> {
        match (&self.kind, &*self.owner) {
            (EventKind::Cuda(e), Inner::Cuda(c)) => c.note(e.synchronize().map_err(driver("waiting for an event"))),
            _ => Ok(()),
        }
    }

    /// Whether the work before the event has finished (no wait). A kernel
    /// fault is reported as an error.
    pub fn is_complete(&self) -> Result<bool> {
        match &self.kind {
            EventKind::Cuda(e) => e.try_is_complete().map_err(driver("querying an event")),
            EventKind::Emulator(_) => Ok(true),
        }
    }

    /// The device time from `self` to `end` (waits for both): on CUDA the
    /// events' timestamps (about half a microsecond of resolution), on the
    /// emulator the host clock between the two recordings.
    ///
    /// Errors: [`Error::BadArgument`] `end` when it belongs to another
    /// context; a driver error when either has not been recorded.
    pub fn elapsed(&self, end: &Event) -> Result<Duration> {
        if !Arc::ptr_eq(&self.owner, &end.owner) {
            return Err(Error::BadArgument { arg: "end", detail: "the events belong to different contexts".into() });
        }
        match (&self.kind, &end.kind) {
            (EventKind::Cuda(a), EventKind::Cuda(b)) => {
                let ms = a.elapsed_ms(b).map_err(driver("timing events"))?;
                Ok(Duration::from_secs_f64(ms.max(0.0) as f64 / 1e3))
            }
            (EventKind::Emulator(a), EventKind::Emulator(b)) => Ok(b.saturating_duration_since(*a)),
            _ => unreachable!("events of one context share its backend"),
        }
    }
}

/// Page-locked ("pinned") host memory: the host side of
/// [`Context::upload_async`] and [`Context::download_async`], which the
/// DMA engines copy without staging, concurrently with kernels.
///
/// # Safety of the asynchronous copies
///
/// The device may read or write the memory after the copy call returned.
/// Safe code never sees it mid-copy: the buffer records an event after each
/// copy that uses it (per stream), [`PinnedBuffer::as_slice`] waits for
/// the last copy into it and [`PinnedBuffer::as_mut_slice`] for every copy
/// before they hand out the memory; a copy that writes it takes the buffer
/// by `&mut` (so no slice of it is alive), and waits on the device for the
/// earlier copies on other streams, a copy that reads it for the last
/// write. Dropping the buffer waits (on the host) for every copy before the
/// memory is freed.
///
/// On the emulator it is an ordinary host allocation.
pub struct PinnedBuffer<T: Element> {
    kind: PinnedKind<T>,
    owner: Arc<Inner>,
    /// The copies that use the memory, per stream (the device's last write
    /// into it and its reads since). cudarc's own event in the pinned
    /// slice is never recorded, since event tracking is off for
    /// ferrotile's contexts: this one replaces it.
    track: Tracker,
}

impl<T: Element> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        // The memory is freed right after: every copy using it must be
        // done (a failing driver fails the next call that can report it).
        let _ = self.track.host_wait(true);
    }
}

enum PinnedKind<T> {
    Cuda(PinnedHostSlice<T>),
    Host(Vec<T>),
}

impl<T: Element> std::fmt::Debug for PinnedBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let where_ = if matches!(self.kind, PinnedKind::Cuda(_)) { "pinned" } else { "emulator" };
        write!(f, "PinnedBuffer<{}>({} elements, {where_})", std::any::type_name::<T>(), self.len())
    }
}

impl<T: Element> PinnedBuffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match &self.kind {
            PinnedKind::Cuda(p) => p.len(),
            PinnedKind::Host(v) => v.len(),
        }
    }

    /// Whether it holds no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The contents, once every copy that uses the buffer has finished
    /// (waits for them).
    pub fn as_slice(&self) -> Result<&[T]> {
        self.track.host_wait(false)?;
        match &self.kind {
            PinnedKind::Cuda(p) if p.is_empty() => Ok(&[]),
            PinnedKind::Cuda(p) => p.as_slice().map_err(driver("waiting for a pinned buffer's copies")),
            PinnedKind::Host(v) => Ok(v),
        }
    }

    /// The contents, writable, once every copy that uses the buffer has
    /// finished (waits for them).
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.track.host_wait(true)?;
        match &mut self.kind {
            PinnedKind::Cuda(p) if p.is_empty() => Ok(&mut []),
            PinnedKind::Cuda(p) => p.as_mut_slice().map_err(driver("waiting for a pinned buffer's copies")),
            PinnedKind::Host(v) => Ok(v),
        }
    }

    /// Whether the buffer was allocated on `ctx`'s context.
    pub(crate) fn is_on(&self, ctx: &Context) -> bool {
        Arc::ptr_eq(&self.owner, &ctx.inner)
    }
}

// ---------------------------------------------------------------------------
// Per-buffer ordering across streams.

/// What a buffer's uses on several streams need in order to be ordered
/// (see the module documentation). One per CUDA buffer, shared (`Arc`)
/// with the operations in flight on it.
#[derive(Default)]
pub(crate) struct Tracker(Mutex<Uses>);

#[derive(Default)]
struct Uses {
    /// `false` while every use was on the context's default stream with no
    /// event recorded (before the context had streams).
    tracked: bool,
    /// The stream of the last write and an event after it.
    write: Option<(Arc<CudaStream>, CudaEvent)>,
    /// Since that write: per stream, an event after its last read.
    reads: Vec<(Arc<CudaStream>, CudaEvent)>,
}

fn same(a: &CudaStream, b: &CudaStream) -> bool {
    a.cu_stream() == b.cu_stream()
}

fn new_event(s: &CudaStream) -> Result<CudaEvent> {
    s.context().new_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)).map_err(driver("creating an event"))
}

impl Tracker {
    /// Makes `s` wait for the uses the coming one must follow.
    fn before(&self, c: &Cuda, s: &Arc<CudaStream>, write: bool) -> Result<()> {
        let mut u = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if !u.tracked {
            // Everything so far ran on the default stream, unrecorded: an
            // event there now stands for it (as a write).
            let ev = new_event(&c.stream)?;
            ev.record(&c.stream).map_err(driver("recording an event"))?;
            u.write = Some((c.stream.clone(), ev));
            u.tracked = true;
        }
        if let Some((ws, ev)) = &u.write
            && !same(ws, s) {
                s.wait(ev).map_err(driver("ordering after a buffer's last write"))?;
            }
        if write {
            for (rs, ev) in &u.reads {
                if !same(rs, s) {
                    s.wait(ev).map_err(driver("ordering after a buffer's reads"))?;
                }
            }
        }
        Ok(())
    }

    /// Records the use just enqueued on `s`.
    fn after(&self, s: &Arc<CudaStream>, write: bool) -> Result<()> {
        let mut u = self.0.lock().unwrap_or_else(|e| e.into_inner());
        u.tracked = true;
        if write {
            let ev = match u.write.take() {
                Some((_, ev)) => ev,
                None => new_event(s)?,
            };
            ev.record(s).map_err(driver("recording an event"))?;
            u.write = Some((s.clone(), ev));
            u.reads.clear();
        } else if let Some((_, ev)) = u.reads.iter().find(|(rs, _)| same(rs, s)) {
            ev.record(s).map_err(driver("recording an event"))?;
        } else {
            let ev = new_event(s)?;
            ev.record(s).map_err(driver("recording an event"))?;
            u.reads.push((s.clone(), ev));
        }
        Ok(())
    }

    /// Makes `s` (the stream about to free or hand over the memory) wait
    /// for every recorded use on other streams; `default` is the context's
    /// default stream, where unrecorded uses ran.
    pub(crate) fn settle(&self, s: &CudaStream, default: &CudaStream) -> std::result::Result<(), cudarc::driver::DriverError> {
        let u = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if !u.tracked {
            if !same(s, default) {
                s.join(default)?;
            }
            return Ok(());
        }
        for (us, ev) in u.write.iter().chain(u.reads.iter()) {
            if !same(us, s) {
                s.wait(ev)?;
            }
        }
        Ok(())
    }

    /// Waits on the host for the last write and, when the host is about to
    /// write (or free) the memory, for every read since.
    fn host_wait(&self, write: bool) -> Result<()> {
        let u = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let reads = if write { &u.reads[..] } else { &[] };
        for (_, ev) in u.write.iter().chain(reads) {
            ev.synchronize().map_err(driver("waiting for a pinned buffer's copies"))?;
        }
        Ok(())
    }

    /// A tracker that records from the start (pinned memory: its copies are
    /// always recorded, whether or not the context has streams).
    fn recording() -> Tracker {
        Tracker(Mutex::new(Uses { tracked: true, write: None, reads: Vec::new() }))
    }

    /// A new buffer's first write (allocation, upload) on `s`.
    pub(crate) fn born(c: &Cuda, s: &Arc<CudaStream>) -> Result<Arc<Tracker>> {
        let t = Arc::new(Tracker::default());
        if c.multi.load(Ordering::Acquire) {
            t.after(s, true)?;
        }
        Ok(t)
    }
}

thread_local! {
    /// Ordered operations open on this thread (see [`Op`]).
    static OPEN_OPS: Cell<u32> = const { Cell::new(0) };
}

/// Whether the calling thread is inside an ordered operation: every launch
/// must be (checked in debug builds by `launch!`, so a public function that
/// forgot to order its buffers fails the emulator tests).
pub(crate) fn in_op() -> bool {
    OPEN_OPS.with(|n| n.get() > 0)
}

/// Where an [`Op`] records its completion: the stream, and the trackers it
/// marks (with whether each is a write).
type Recorded = (Arc<CudaStream>, Vec<(Arc<Tracker>, bool)>);

/// One operation on a stream over some buffers: created before anything
/// is enqueued (the stream waits for the buffers' earlier conflicting
/// uses), dropped after (records the operation's uses, also when it failed
/// half-way).
pub(crate) struct Op {
    record: Option<Recorded>,
}

impl Op {
    pub(crate) fn new(inner: &Inner, stream: Option<&Arc<CudaStream>>, reads: &[Option<&Arc<Tracker>>], writes: &[Option<&Arc<Tracker>>]) -> Result<Op> {
        OPEN_OPS.with(|n| n.set(n.get() + 1));
        let mut op = Op { record: None };
        let Inner::Cuda(c) = inner else { return Ok(op) };
        if !c.multi.load(Ordering::Acquire) {
            return Ok(op);
        }
        let s = stream.unwrap_or(&c.stream);
        let mut uses = Vec::with_capacity(reads.len() + writes.len());
        for (list, write) in [(reads, false), (writes, true)] {
            for t in list.iter().flatten() {
                t.before(c, s, write)?;
                uses.push(((*t).clone(), write));
            }
        }
        op.record = Some((s.clone(), uses));
        Ok(op)
    }
}

impl Drop for Op {
    fn drop(&mut self) {
        OPEN_OPS.with(|n| n.set(n.get() - 1));
        if let Some((s, uses)) = self.record.take() {
            for (t, write) in uses {
                // A failing driver fails the next call that can report it.
                let _ = t.after(&s, write);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The context's stream API.

impl Context {
    /// A new non-blocking stream of this context. Use it through
    /// [`Context::on`].
    ///
    /// From the first stream on, the context orders each buffer's uses
    /// across streams with events (see the [module documentation](crate::stream)).
    pub fn new_stream(&self) -> Result<Stream> {
        match &*self.inner {
            Inner::Cuda(c) => {
                c.multi.store(true, Ordering::Release);
                let s = c.ctx.new_stream().map_err(driver("creating a stream"))?;
                Ok(Stream { cuda: Some(s), owner: self.inner.clone() })
            }
            Inner::Emulator => Ok(Stream { cuda: None, owner: self.inner.clone() }),
        }
    }

    /// A handle of this context (the same context: same buffers, modules
    /// and identity) that enqueues every operation on `stream`: pass it
    /// wherever a `&Context` is taken. [`Context::synchronize`] on it waits
    /// for `stream` only.
    ///
    /// Errors: [`Error::BadArgument`] `stream` when it belongs to another
    /// context.
    pub fn on(&self, stream: &Stream) -> Result<Context> {
        if !Arc::ptr_eq(&stream.owner, &self.inner) {
            return Err(Error::BadArgument { arg: "stream", detail: "the stream belongs to another context".into() });
        }
        Ok(self.with_stream(stream.cuda.clone()))
    }

    /// Records an event on this handle's stream, after the work enqueued so
    /// far (timing enabled, for [`Event::elapsed`]).
    pub fn record_event(&self) -> Result<Event> {
        let kind = match &*self.inner {
            Inner::Cuda(c) => {
                let s = self.stream_of(c);
                let e = c.ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(driver("creating an event"))?;
                e.record(s).map_err(driver("recording an event"))?;
                EventKind::Cuda(e)
            }
            Inner::Emulator => EventKind::Emulator(Instant::now()),
        };
        Ok(Event { kind, owner: self.inner.clone() })
    }

    /// Makes this handle's stream wait (on the device, the host does not
    /// block) until the work before `event` has finished.
    ///
    /// Errors: [`Error::BadArgument`] `event` of another context.
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        if !Arc::ptr_eq(&event.owner, &self.inner) {
            return Err(Error::BadArgument { arg: "event", detail: "the event belongs to another context".into() });
        }
        match (&*self.inner, &event.kind) {
            (Inner::Cuda(c), EventKind::Cuda(e)) => self.stream_of(c).wait(e).map_err(driver("waiting for an event")),
            _ => Ok(()),
        }
    }

    /// `len` elements of page-locked host memory, zero-filled: the host
    /// side of the asynchronous copies. Allocating it is slow (it maps the
    /// pages for the device): allocate once, reuse.
    ///
    /// Errors: [`Error::OutOfMemory`] when the host cannot lock that much.
    pub fn alloc_pinned<T: Element>(&self, len: usize) -> Result<PinnedBuffer<T>> {
        let bytes = len.checked_mul(std::mem::size_of::<T>()).filter(|&b| b < isize::MAX as usize).ok_or(Error::OutOfMemory { bytes: usize::MAX })?;
        let kind = match &*self.inner {
            Inner::Cuda(c) => {
                // SAFETY: filled with zeros right below, before any read;
                // flags 0: cached memory (the host reads downloads back).
                let mut p = unsafe { c.ctx.alloc_pinned_with_flags::<T>(len, 0) }.map_err(|e| crate::backend::oom_or(e, bytes, "allocating pinned memory"))?;
                if len > 0 {
                    p.as_mut_slice().map_err(driver("clearing pinned memory"))?.fill(T::default());
                }
                PinnedKind::Cuda(p)
            }
            Inner::Emulator => {
                let mut v = crate::backend::host_vec::<T>(len)?;
                v.resize(len, T::default());
                PinnedKind::Host(v)
            }
        };
        Ok(PinnedBuffer { kind, owner: self.inner.clone(), track: Tracker::recording() })
    }

    /// Enqueues a copy of `src` (pinned host memory) into `dst` on this
    /// handle's stream and returns at once. `src` may be read again by the
    /// host at any time; writing it through [`PinnedBuffer::as_mut_slice`]
    /// waits for the copy.
    ///
    /// Errors (nothing enqueued): [`Error::LengthMismatch`] `src` of
    /// another length; [`Error::BadArgument`] `src`/`dst` of another context.
    pub fn upload_async<T: Element>(&self, src: &PinnedBuffer<T>, dst: &mut Buffer<T>) -> Result<()> {
        if src.len() != dst.len() {
            return Err(Error::LengthMismatch { arg: "src", expected: dst.len(), actual: src.len() });
        }
        crate::check::backend(self, &[("src", src.is_on(self)), ("dst", dst.is_on(self))])?;
        if dst.is_empty() {
            return Ok(());
        }
        let _op = self.op(&[], &[dst.tracker()])?;
        match (&*self.inner, &src.kind) {
            (Inner::Cuda(c), PinnedKind::Cuda(p)) => {
                let s = self.stream_of(c);
                c.ctx.bind_to_thread().map_err(driver("making the context current"))?;
                // The copy reads the pinned memory: after the device's last
                // write into it; recorded, so the host's writes and the
                // free wait for it.
                src.track.before(c, s, false)?;
                // SAFETY: the host writes the memory only through
                // `as_mut_slice` and frees it only on drop, both of which
                // wait for the event recorded below; the destination holds
                // `len` elements. (cudarc's own event `_rec` is inert with
                // event tracking off.)
                let (host, _rec) = unsafe { p.stream_synced_slice(s) };
                let r = unsafe { cudarc::driver::result::memcpy_htod_async(dst.device_ptr(), host, s.cu_stream()) };
                r.map_err(driver("copying to the device"))?;
                src.track.after(s, false)
            }
            (_, PinnedKind::Host(v)) => dst.copy_from(v),
            _ => unreachable!("a pinned buffer of a CUDA context is pinned"),
        }
    }

    /// Enqueues a copy of `src` into `dst` (pinned host memory) on this
    /// handle's stream and returns at once. The data is there once the
    /// stream (or an event recorded after this call) has been
    /// synchronised; [`PinnedBuffer::as_slice`] waits for it.
    ///
    /// Errors (nothing enqueued): [`Error::LengthMismatch`] `dst` of
    /// another length; [`Error::BadArgument`] `src`/`dst` of another context.
    pub fn download_async<T: Element>(&self, src: &Buffer<T>, dst: &mut PinnedBuffer<T>) -> Result<()> {
        if src.len() != dst.len() {
            return Err(Error::LengthMismatch { arg: "dst", expected: src.len(), actual: dst.len() });
        }
        crate::check::backend(self, &[("src", src.is_on(self)), ("dst", dst.is_on(self))])?;
        if src.is_empty() {
            return Ok(());
        }
        let _op = self.op(&[src.tracker()], &[])?;
        match (&*self.inner, &mut dst.kind) {
            (Inner::Cuda(c), PinnedKind::Cuda(p)) => {
                let s = self.stream_of(c);
                c.ctx.bind_to_thread().map_err(driver("making the context current"))?;
                // The copy writes the pinned memory: after every earlier
                // copy that uses it, on any stream.
                dst.track.before(c, s, true)?;
                // SAFETY: `dst` is borrowed mutably, so no slice of it is
                // alive; its accessors and its drop wait for the event
                // recorded below.
                let (host, _rec) = unsafe { p.stream_synced_mut_slice(s) };
                let r = unsafe { cudarc::driver::result::memcpy_dtoh_async(host, src.device_ptr(), s.cu_stream()) };
                r.map_err(driver("copying to the host"))?;
                dst.track.after(s, true)
            }
            (_, PinnedKind::Host(v)) => {
                v.copy_from_slice(&src.download()?);
                Ok(())
            }
            _ => unreachable!("a pinned buffer of a CUDA context is pinned"),
        }
    }

    /// Copies `src` to the host on this handle's stream (waits for it;
    /// [`Buffer::download`] does the same on the context's default stream).
    pub fn download<T: Element>(&self, src: &Buffer<T>) -> Result<Vec<T>> {
        crate::check::backend(self, &[("src", src.is_on(self))])?;
        if src.is_empty() {
            return Ok(Vec::new());
        }
        let _op = self.op(&[src.tracker()], &[])?;
        match (&*self.inner, &src.storage) {
            (Inner::Cuda(c), Storage::Cuda { slice, .. }) => self.stream_of(c).clone_dtoh(&**slice).map_err(driver("copying to the host")),
            _ => src.download(),
        }
    }

    /// Enqueues a device-to-device copy of `src` into `dst` (same length)
    /// on this handle's stream ([`Buffer::copy_from_buffer`] on the
    /// default stream).
    ///
    /// Errors (nothing enqueued): [`Error::LengthMismatch`] `src`;
    /// [`Error::BadArgument`] a buffer of another context.
    pub fn copy<T: Element>(&self, src: &Buffer<T>, dst: &mut Buffer<T>) -> Result<()> {
        if src.len() != dst.len() {
            return Err(Error::LengthMismatch { arg: "src", expected: dst.len(), actual: src.len() });
        }
        crate::check::backend(self, &[("src", src.is_on(self)), ("dst", dst.is_on(self))])?;
        dst.copy_from_buffer_on(self.cuda_stream(), src)
    }

    /// Enqueues a copy of host `data` (ordinary, pageable memory: the call
    /// returns once the driver has staged it) into `dst` on this handle's
    /// stream ([`Buffer::copy_from`] on the default stream).
    ///
    /// Errors (nothing enqueued): [`Error::LengthMismatch`] `data`;
    /// [`Error::BadArgument`] `dst` of another context.
    pub fn copy_from_host<T: Element>(&self, data: &[T], dst: &mut Buffer<T>) -> Result<()> {
        crate::check::backend(self, &[("dst", dst.is_on(self))])?;
        dst.copy_from_on(self.cuda_stream(), data)
    }

    /// Opens an ordered operation on this handle's stream over buffers read
    /// and written (see [`Op`]).
    pub(crate) fn op(&self, reads: &[Option<&Arc<Tracker>>], writes: &[Option<&Arc<Tracker>>]) -> Result<Op> {
        Op::new(&self.inner, self.cuda_stream(), reads, writes)
    }
}

impl<T: Element> Buffer<T> {
    /// The ordering state of a CUDA buffer (`None` on the emulator).
    pub(crate) fn tracker(&self) -> Option<&Arc<Tracker>> {
        match &self.storage {
            Storage::Cuda { track, .. } => Some(track),
            Storage::Host { .. } => None,
        }
    }
}

// The thread-safety the backend documentation promises, checked.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Stream>();
    send_sync::<Event>();
    send_sync::<PinnedBuffer<f32>>();
};
