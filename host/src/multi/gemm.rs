//! The sharded GEMM `C = α·A·B` over a [`DeviceGroup`]: SUMMA on a grid
//! of devices.
//!
//! The devices form a `rows × cols` grid ([`grid_for`] unless chosen);
//! device `(i, j)` (rank `i · cols + j`) owns block `(i, j)` of `C`
//! ([`block`]). `k` is cut into `q` panels ([`split`]); `A`'s row block
//! `i` is stored as its `q` panels, panel `t` on device `(i, t mod
//! cols)`, and `B`'s column block `j` as its `q` panels, panel `t` on
//! device `(t mod rows, j)` ([`panel_owner`]). Step `t` moves panel `t`
//! of every row block of `A` along its grid row and of every column block
//! of `B` along its grid column (one NCCL group: a broadcast when the
//! whole group needs a panel, send/receive pairs otherwise), then every
//! device adds `A_it · B_tj` to its block of `C` with the one-GPU
//! [`Gemm`].
//!
//! Special cases of the one scheme:
//!
//! * `grid(p, 1)`, `k_panels(1)`: split along `M`, `B` held by rank 0 and
//!   broadcast once, `A`'s row panels local: no other traffic.
//! * `grid(p, 1)`, `k_panels(q)` (the default for a tall grid: `q = p`):
//!   `B` sharded in `k` panels over the devices, each broadcast in its
//!   step (an all-gather of `B`, panel by panel).
//! * a 2D grid: the operands of each device are `1/rows` of `A` and
//!   `1/cols` of `B`, the layout for products that do not fit one GPU.
//!
//! Each device's scratch is two slots per operand (panels `t` and
//! `t + 1`): by default a step's transfers and products run in order on
//! the context's stream; with [`ShardedGemm::overlap`] the transfers run
//! on the group's transfer stream and the transfer of `t + 1` overlaps the
//! product of `t` (see the [module docs](super)).

use ferrotile_kernels::layout::shard::{block, grid_for, panel_owner, split, Operand, Span};

use std::sync::Arc;

use cudarc::driver::{sys, CudaEvent, CudaStream};

use super::collective::{Lane, Op};
use crate::backend::driver;
use super::{BlockSpec, DeviceGroup, ShardedMatrix};
use crate::gemm::{Gemm, GemmElement};
use crate::{Buffer, Error, Result};

/// Granule of the `m` and `n` splits (a tile of the largest GEMM kernels).
const MN_GRANULE: usize = 128;
/// Granule of the `k` panels (keeps panels' rows 16-byte multiples).
const K_GRANULE: usize = 64;

/// The sharded GEMM `C = α·A·B` (row-major) over a [`DeviceGroup`]; a
/// builder, like [`Gemm`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShardedGemm {
    m: usize,
    n: usize,
    k: usize,
    alpha: f32,
    grid: Option<(usize, usize)>,
    k_panels: Option<usize>,
    tf32: bool,
    overlap: bool,
}

/// Where a [`ShardedGemm`] expects its operands and puts its result on a
/// group: the block layouts to build the [`ShardedMatrix`]es with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GemmPlan {
    /// The device grid `(rows, cols)`.
    pub grid: (usize, usize),
    /// The `k` panels.
    pub k_panels: Vec<Span>,
    /// `A`'s blocks: for grid row `i` and panel `t`, entry `i · q + t`.
    pub a: Vec<BlockSpec>,
    /// `B`'s blocks: for panel `t` and grid column `j`, entry `t · cols + j`.
    pub b: Vec<BlockSpec>,
    /// `C`'s blocks: entry `d` on rank `d`.
    pub c: Vec<BlockSpec>,
}

impl ShardedGemm {
    /// `C (m × n) = A (m × k) · B (k × n)`, on the grid [`grid_for`]
    /// picks, `k` in `lcm(rows, cols)` panels (at most `k`).
    pub fn new(m: usize, n: usize, k: usize) -> Self {
        ShardedGemm { m, n, k, alpha: 1.0, grid: None, k_panels: None, tf32: false, overlap: false }
    }

    /// Scales the product: `C = α·A·B`.
    pub fn alpha(mut self, alpha: f32) -> Self {
        self.alpha = alpha;
        self
    }

    /// The device grid: `rows · cols` must be the group's size.
    pub fn grid(mut self, rows: usize, cols: usize) -> Self {
        self.grid = Some((rows, cols));
        self
    }

    /// The number of `k` panels (steps); 1 keeps `B` whole on the first
    /// grid row (on a tall grid: rank 0, broadcast once).
    pub fn k_panels(mut self, q: usize) -> Self {
        self.k_panels = Some(q);
        self
    }

    /// On CUDA, move the panels on each device's transfer stream, so that
    /// the transfer of panel `t + 1` overlaps the product of panel `t`
    /// (events order the two streams: a slot is refilled only after the
    /// product that read it, a product starts only after its panels
    /// arrived). Off by default until measured on GPUs; no effect on the
    /// emulator.
    pub fn overlap(mut self, yes: bool) -> Self {
        self.overlap = yes;
        self
    }

    /// f32 operands on the tensor cores as tf32 ([`Gemm::tf32`]).
    pub fn tf32(mut self, yes: bool) -> Self {
        self.tf32 = yes;
        self
    }

    /// The layouts on `group`.
    ///
    /// Errors: [`Error::BadArgument`] `m`, `n` or `k` zero, a `grid` whose
    /// size is not the group's, `k_panels` zero or more than `k`.
    pub fn plan(&self, group: &DeviceGroup) -> Result<GemmPlan> {
        for (arg, v) in [("m", self.m), ("n", self.n), ("k", self.k)] {
            crate::check::dim(arg, v)?;
        }
        let p = group.len();
        let grid = self.grid.unwrap_or(grid_for(p, self.m, self.n));
        if grid.0 * grid.1 != p || grid.0 == 0 {
            return Err(Error::BadArgument { arg: "grid", detail: format!("{} × {} devices for a group of {p}", grid.0, grid.1) });
        }
        let q = self.k_panels.unwrap_or(lcm(grid.0, grid.1).min(self.k));
        if q == 0 || q > self.k {
            return Err(Error::BadArgument { arg: "k_panels", detail: format!("{q} panels of k = {}; 1 to k", self.k) });
        }
        let k_panels: Vec<Span> = (0..q).map(|t| split(self.k, q, K_GRANULE, t)).collect();
        let rows = |i| split(self.m, grid.0, MN_GRANULE, i);
        let cols = |j| split(self.n, grid.1, MN_GRANULE, j);
        let a = (0..grid.0)
            .flat_map(|i| k_panels.iter().enumerate().map(move |(t, &kt)| (i, t, kt)))
            .map(|(i, t, kt)| BlockSpec { rows: rows(i), cols: kt, rank: panel_owner(grid, Operand::A, i, t) })
            .collect();
        let b = k_panels
            .iter()
            .enumerate()
            .flat_map(|(t, &kt)| (0..grid.1).map(move |j| (t, j, kt)))
            .map(|(t, j, kt)| BlockSpec { rows: kt, cols: cols(j), rank: panel_owner(grid, Operand::B, j, t) })
            .collect();
        let c = (0..p)
            .map(|d| {
                let (r, c) = block(self.m, self.n, grid, MN_GRANULE, d);
                BlockSpec { rows: r, cols: c, rank: d }
            })
            .collect();
        Ok(GemmPlan { grid, k_panels, a, b, c })
    }

    /// Runs the product: `c`'s blocks get `α·A·B`. `a`, `b` and `c` must
    /// be laid out as [`ShardedGemm::plan`] says (`c`'s blocks are
    /// overwritten). Asynchronous on CUDA like [`Gemm::run`]: the
    /// group's [`DeviceGroup::synchronize`], a download or a gather waits.
    ///
    /// Types: `I` f32 (the f32 ladder, or tf32), bf16 or f16 (tensor
    /// cores); `O` f32 or `I` — partial sums over the panels are added in
    /// `O`, so f32 keeps the one-GPU accuracy.
    ///
    /// Errors: as [`ShardedGemm::plan`]; [`Error::BadArgument`] `a`, `b`
    /// or `c` not in the plan's layout on this group; what [`Gemm::run`]
    /// and the collectives return.
    pub fn run<I: GemmElement, O: GemmElement>(
        &self,
        group: &DeviceGroup,
        a: &ShardedMatrix<I>,
        b: &ShardedMatrix<I>,
        c: &mut ShardedMatrix<O>,
    ) -> Result<()> {
        let plan = self.plan(group)?;
        check_layout("a", group, a, (self.m, self.k), &plan.a)?;
        check_layout("b", group, b, (self.k, self.n), &plan.b)?;
        check_layout("c", group, c, (self.m, self.n), &plan.c)?;
        let (grid, q, p) = (plan.grid, plan.k_panels.len(), group.len());
        // Scratch: two slots per operand on each device, as large as the
        // largest panel it receives.
        let mut a_scr: Vec<[Option<Buffer<I>>; 2]> = Vec::with_capacity(p);
        let mut b_scr: Vec<[Option<Buffer<I>>; 2]> = Vec::with_capacity(p);
        for d in 0..p {
            let (i, j) = (d / grid.1, d % grid.1);
            let need_a = (0..q).filter(|&t| plan.a[i * q + t].rank != d).map(|t| a.bufs()[i * q + t].len()).max();
            let need_b = (0..q).filter(|&t| plan.b[t * grid.1 + j].rank != d).map(|t| b.bufs()[t * grid.1 + j].len()).max();
            let ctx = group.context(d);
            let two = |n: Option<usize>| -> Result<[Option<Buffer<I>>; 2]> {
                Ok(match n {
                    Some(n) => [Some(ctx.alloc::<I>(n)?), Some(ctx.alloc::<I>(n)?)],
                    None => [None, None],
                })
            };
            a_scr.push(two(need_a)?);
            b_scr.push(two(need_b)?);
        }
        let streams = if self.overlap { group.streams() } else { &[] };
        if streams.is_empty() {
            return self.steps(group, &plan, a, b, c, &a_scr, &b_scr, None);
        }
        // The transfer streams start after everything the context streams
        // hold (the operands, the cleared scratch); the context streams go
        // on only after the last transfer, whatever happened in between.
        for (main, side) in streams {
            side.join(main).map_err(driver("ordering the streams"))?;
        }
        let r = self.steps(group, &plan, a, b, c, &a_scr, &b_scr, Some(streams));
        for (main, side) in streams {
            main.join(side).map_err(driver("ordering the streams"))?;
        }
        r
    }

    /// The SUMMA steps; with `streams`, transfers on each device's side
    /// stream, ordered against the products by events.
    #[allow(clippy::too_many_arguments)]
    fn steps<I: GemmElement, O: GemmElement>(
        &self,
        group: &DeviceGroup,
        plan: &GemmPlan,
        a: &ShardedMatrix<I>,
        b: &ShardedMatrix<I>,
        c: &mut ShardedMatrix<O>,
        a_scr: &[[Option<Buffer<I>>; 2]],
        b_scr: &[[Option<Buffer<I>>; 2]],
        streams: Option<&[(Arc<CudaStream>, Arc<CudaStream>)]>,
    ) -> Result<()> {
        let (grid, q, p) = (plan.grid, plan.k_panels.len(), group.len());
        let el = size_of::<I>();
        // Per device and slot: the event after the last product that read
        // the slot's scratch.
        let mut read_done: Vec<[Option<CudaEvent>; 2]> = (0..p).map(|_| [None, None]).collect();
        let no_timing = Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING);
        let first = plan.k_panels.iter().position(|s| !s.is_empty()).expect("k ≥ 1 has a non-empty panel");
        for (t, kt) in plan.k_panels.iter().enumerate() {
            if kt.is_empty() {
                continue;
            }
            let slot = t % 2;
            // The step's transfers, one group.
            let mut ops = Vec::new();
            for i in 0..grid.0 {
                let blk = i * q + t;
                let (owner, src) = (plan.a[blk].rank, a.bufs()[blk].device_ptr());
                let to: Vec<usize> = (0..grid.1).map(|j| i * grid.1 + j).filter(|&d| d != owner).collect();
                let dst = |d: usize| a_scr[d][slot].as_ref().expect("scratch for a received panel").device_ptr();
                push_moves(&mut ops, p, owner, src, &to, dst, a.bufs()[blk].len() * el);
            }
            for j in 0..grid.1 {
                let blk = t * grid.1 + j;
                let (owner, src) = (plan.b[blk].rank, b.bufs()[blk].device_ptr());
                let to: Vec<usize> = (0..grid.0).map(|i| i * grid.1 + j).filter(|&d| d != owner).collect();
                let dst = |d: usize| b_scr[d][slot].as_ref().expect("scratch for a received panel").device_ptr();
                push_moves(&mut ops, p, owner, src, &to, dst, b.bufs()[blk].len() * el);
            }
            // SAFETY: sources are the checked blocks, destinations scratch
            // buffers of at least the block's length on the receiving rank;
            // the destinations of one step are distinct buffers; on the side
            // streams a slot is written only after the product that read it.
            match streams {
                // SAFETY: as above.
                None => unsafe { group.run(&ops)? },
                Some(streams) => {
                    for (d, (_, side)) in streams.iter().enumerate() {
                        if let Some(ev) = read_done[d][slot].take() {
                            side.wait(&ev).map_err(driver("ordering the streams"))?;
                        }
                    }
                    // SAFETY: as above.
                    unsafe { group.run_on(&ops, Lane::Side)? };
                    for (main, side) in streams {
                        main.wait(&side.record_event(no_timing).map_err(driver("recording an event"))?)
                            .map_err(driver("ordering the streams"))?;
                    }
                }
            }
            // The step's products, issued to every device before any waits.
            for (d, cbuf) in c.bufs_mut().iter_mut().enumerate() {
                let spec = plan.c[d];
                if spec.rows.is_empty() || spec.cols.is_empty() {
                    continue;
                }
                let (i, j) = (d / grid.1, d % grid.1);
                let (ablk, bblk) = (i * q + t, t * grid.1 + j);
                let a_in = if plan.a[ablk].rank == d { &a.bufs()[ablk] } else { a_scr[d][slot].as_ref().expect("received") };
                let b_in = if plan.b[bblk].rank == d { &b.bufs()[bblk] } else { b_scr[d][slot].as_ref().expect("received") };
                Gemm::new(spec.rows.len, spec.cols.len, kt.len)
                    .alpha(self.alpha)
                    .beta(if t == first { 0.0 } else { 1.0 })
                    .tf32(self.tf32)
                    .run(group.context(d), a_in, b_in, cbuf)?;
            }
            if let Some(streams) = streams {
                for (d, (main, _)) in streams.iter().enumerate() {
                    read_done[d][slot] = Some(main.record_event(no_timing).map_err(driver("recording an event"))?);
                }
            }
        }
        Ok(())
    }
}

/// The moves of one panel from `owner` to the ranks `to`: an NCCL
/// broadcast when every other rank of the group receives it, else one
/// send/receive pair per receiver.
fn push_moves(ops: &mut Vec<Op>, p: usize, owner: usize, src: u64, to: &[usize], dst: impl Fn(usize) -> u64, bytes: usize) {
    if to.is_empty() || bytes == 0 {
        return;
    }
    if to.len() + 1 == p {
        let dst = (0..p).map(|d| if d == owner { src } else { dst(d) }).collect();
        ops.push(Op::Broadcast { root: owner, src, dst, bytes });
    } else {
        ops.extend(to.iter().map(|&d| Op::SendRecv { from: owner, to: d, src, dst: dst(d), bytes }));
    }
}

/// `m` must be on `group` in the layout `specs` of a `shape` matrix.
fn check_layout<T: crate::Element>(
    arg: &'static str,
    group: &DeviceGroup,
    m: &ShardedMatrix<T>,
    shape: (usize, usize),
    specs: &[BlockSpec],
) -> Result<()> {
    if (m.rows(), m.cols()) != shape {
        return Err(Error::BadArgument {
            arg,
            detail: format!("is {} × {}, the product needs {} × {}", m.rows(), m.cols(), shape.0, shape.1),
        });
    }
    if m.specs() != specs {
        return Err(Error::BadArgument { arg, detail: "is not in the plan's block layout (build it from ShardedGemm::plan)".into() });
    }
    match m.bufs().iter().zip(specs).position(|(b, s)| s.rank >= group.len() || !b.is_on(group.context(s.rank))) {
        Some(i) => Err(Error::BadArgument { arg, detail: format!("block {i} is not on this group's rank {}", specs[i].rank) }),
        None => Ok(()),
    }
}

const fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

const fn lcm(a: usize, b: usize) -> usize {
    a / gcd(a, b) * b
}
