//! Mutation test of the emulator's detectors (issue 16, part 7).
//!
//! Four small kernels written for this test (a block reverse, a 3-point
//! stencil with halo, a tree reduction, an 8 × 8 tile transpose), each
//! through shared memory with barriers. Every index expression is a
//! numbered *site* and every barrier a numbered *barrier site*; a mutant
//! adds +1 or −1 at one index site, or removes one barrier. Every mutant
//! of every kernel runs on the emulator and is classified:
//!
//! * **caught**: the launch reports a fault (out-of-bounds global or
//!   shared access, shared-memory race, uninitialised shared read,
//!   divergent barrier);
//! * **wrong output only**: no fault, but the output differs from the
//!   unmutated kernel's (a test comparing with a reference would catch
//!   it; the detectors did not);
//! * **equivalent**: same output, no fault (e.g. a barrier whose removal
//!   leaves every thread reading only what it wrote itself).
//!
//! The score (caught / all mutants, and caught / non-equivalent) is
//! printed; the test fails below a floor, and fails if any detector misses
//! a mutant that this file lists as one it must catch (every missing
//! barrier between a cross-thread write and read, every −1 at thread 0).

use super::test_util::global;
use std::format;
use std::string::String;
use std::vec::Vec;
use std::{eprintln, vec};

use super::{launch, Dim3, EmuError, LaunchSpec};
use crate::arch::*;
use crate::kernel;

/// A mutation: which site, and what is done there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mutation {
    /// `+delta` on index site `site` (1-based).
    Index { site: u32, delta: i32 },
    /// Barrier site `site` (1-based) removed.
    NoBarrier { site: u32 },
}

impl Mutation {
    /// The code passed to the kernel (0: the unmutated kernel): site · 4 + kind (0: +1,
    /// 1: −1, 2: no barrier).
    fn code(self) -> u32 {
        match self {
            Mutation::Index { site, delta } => site * 4 + if delta > 0 { 0 } else { 1 },
            Mutation::NoBarrier { site } => site * 4 + 2,
        }
    }
}

/// Index site `site` of a kernel running mutant `code`: `v`, or `v ± 1`
/// (wrapping, as unsigned index arithmetic does on the GPU).
#[inline(always)]
fn at(code: u32, site: u32, v: usize) -> usize {
    if code / 4 != site {
        return v;
    }
    match code % 4 {
        0 => v.wrapping_add(1),
        1 => v.wrapping_sub(1),
        _ => v,
    }
}

/// Barrier site `site`: a barrier unless mutant `code` removes it.
#[inline(always)]
fn barrier(code: u32, site: u32) {
    if !(code / 4 == site && code % 4 == 2) {
        sync_threads();
    }
}

kernel! {
    /// Reverses each block's slice through shared memory.
    pub fn mut_reverse(input: Global<f32>, out: Global<f32>, code: u32) {
        let t = thread_idx_x() as usize;
        let n = block_dim_x() as usize;
        let base = block_idx_x() as usize * n;
        let s = dynamic_shared::<f32>();
        s.store(at(code, 1, t), input.read(at(code, 2, base + t)));
        barrier(code, 1);
        out.write(at(code, 3, base + t), s.load(at(code, 4, n - 1 - t)));
    }
}

kernel! {
    /// 3-point sum with a halo: `out[i] = in[i-1] + in[i] + in[i+1]`
    /// (missing neighbours count 0), the block's slice plus one element on
    /// each side staged in shared memory.
    pub fn mut_stencil(input: Global<f32>, out: Global<f32>, code: u32) {
        let t = thread_idx_x() as usize;
        let n = block_dim_x() as usize;
        let g = block_idx_x() as usize * n + t;
        let len = input.len();
        let s = dynamic_shared::<f32>();
        s.store(at(code, 1, t + 1), input.read(at(code, 2, g)));
        if t == 0 {
            let v = if g > 0 { input.read(at(code, 3, g - 1)) } else { 0.0 };
            s.store(at(code, 4, 0), v);
        }
        if t == n - 1 {
            let v = if g + 1 < len { input.read(at(code, 5, g + 1)) } else { 0.0 };
            s.store(at(code, 6, n + 1), v);
        }
        barrier(code, 1);
        let sum = s.load(at(code, 7, t)) + s.load(at(code, 8, t + 1)) + s.load(at(code, 9, t + 2));
        out.write(at(code, 10, g), sum);
    }
}

kernel! {
    /// Sum of each block's slice by a tree in shared memory.
    pub fn mut_reduce(input: Global<f32>, out: Global<f32>, code: u32) {
        let t = thread_idx_x() as usize;
        let n = block_dim_x() as usize;
        let s = dynamic_shared::<f32>();
        s.store(at(code, 1, t), input.read(at(code, 2, block_idx_x() as usize * n + t)));
        barrier(code, 1);
        let mut stride = n / 2;
        while stride > 0 {
            if t < stride {
                let v = s.load(at(code, 3, t)) + s.load(at(code, 4, t + stride));
                s.store(at(code, 5, t), v);
            }
            barrier(code, 2);
            stride /= 2;
        }
        if t == 0 {
            out.write(at(code, 6, block_idx_x() as usize), s.load(at(code, 7, 0)));
        }
    }
}

/// Side of the transpose tile; its shared rows are padded by one.
const TILE: usize = 8;

kernel! {
    /// Transpose of a `ny × nx` matrix (both multiples of 8) by 8 × 8
    /// tiles through shared memory.
    pub fn mut_transpose(input: Global<f32>, out: Global<f32>, nx: u32, ny: u32, code: u32) {
        let (tx, ty) = (thread_idx_x() as usize, thread_idx_y() as usize);
        let (bx, by) = (block_idx_x() as usize, block_idx_y() as usize);
        let (nx, ny) = (nx as usize, ny as usize);
        let s = dynamic_shared::<f32>();
        let row = at(code, 1, by * TILE + ty);
        let col = at(code, 2, bx * TILE + tx);
        s.store(at(code, 3, ty * (TILE + 1) + tx), input.read(at(code, 4, row * nx + col)));
        barrier(code, 1);
        let orow = at(code, 5, bx * TILE + ty);
        let ocol = at(code, 6, by * TILE + tx);
        out.write(at(code, 7, orow * ny + ocol), s.load(at(code, 8, tx * (TILE + 1) + ty)));
    }
}

/// A kernel under mutation: its name, index and barrier sites, and how to
/// run one mutant (`Ok(output)` or the emulator's fault).
struct Subject {
    name: &'static str,
    index_sites: u32,
    barrier_sites: u32,
    run: fn(u32) -> Result<Vec<f32>, EmuError>,
}

fn spec(kernel: &'static str, grid: [u32; 2], block: [u32; 2], shared: usize) -> LaunchSpec {
    LaunchSpec {
        kernel,
        grid: Dim3 { x: grid[0], y: grid[1], z: 1 },
        block: Dim3 { x: block[0], y: block[1], z: 1 },
        shared_bytes: shared,
        dependent: false,
        cluster: 1,
    }
}


/// Inputs: distinct, non-zero, not symmetric (a mutant cannot hide).
fn inputs(n: usize) -> Vec<f32> {
    (0..n).map(|i| 1.0 + (i * 37 % 101) as f32).collect()
}

const BLOCKS: u32 = 3;
const THREADS: u32 = 32;

fn run_reverse(code: u32) -> Result<Vec<f32>, EmuError> {
    let n = (BLOCKS * THREADS) as usize;
    let (mut i, mut o) = (inputs(n), vec![0.0f32; n]);
    let (gi, go) = (global(&mut i, "input"), global(&mut o, "out"));
    launch(spec("mut_reverse", [BLOCKS, 1], [THREADS, 1], THREADS as usize * 4), &|| unsafe { mut_reverse(gi, go, code) })?;
    Ok(o)
}

fn run_stencil(code: u32) -> Result<Vec<f32>, EmuError> {
    let n = (BLOCKS * THREADS) as usize;
    let (mut i, mut o) = (inputs(n), vec![0.0f32; n]);
    let (gi, go) = (global(&mut i, "input"), global(&mut o, "out"));
    launch(spec("mut_stencil", [BLOCKS, 1], [THREADS, 1], (THREADS as usize + 2) * 4), &|| unsafe { mut_stencil(gi, go, code) })?;
    Ok(o)
}

fn run_reduce(code: u32) -> Result<Vec<f32>, EmuError> {
    let n = (BLOCKS * THREADS) as usize;
    let (mut i, mut o) = (inputs(n), vec![0.0f32; BLOCKS as usize]);
    let (gi, go) = (global(&mut i, "input"), global(&mut o, "out"));
    launch(spec("mut_reduce", [BLOCKS, 1], [THREADS, 1], THREADS as usize * 4), &|| unsafe { mut_reduce(gi, go, code) })?;
    Ok(o)
}

fn run_transpose(code: u32) -> Result<Vec<f32>, EmuError> {
    let (nx, ny) = (24usize, 16usize);
    let (mut i, mut o) = (inputs(nx * ny), vec![0.0f32; nx * ny]);
    let (gi, go) = (global(&mut i, "input"), global(&mut o, "out"));
    let shared = TILE * (TILE + 1) * 4;
    let s = spec("mut_transpose", [(nx / TILE) as u32, (ny / TILE) as u32], [TILE as u32, TILE as u32], shared);
    launch(s, &|| unsafe { mut_transpose(gi, go, nx as u32, ny as u32, code) })?;
    Ok(o)
}

const SUBJECTS: &[Subject] = &[
    Subject { name: "reverse", index_sites: 4, barrier_sites: 1, run: run_reverse },
    Subject { name: "stencil", index_sites: 10, barrier_sites: 1, run: run_stencil },
    Subject { name: "reduce", index_sites: 7, barrier_sites: 2, run: run_reduce },
    Subject { name: "transpose", index_sites: 8, barrier_sites: 1, run: run_transpose },
];

/// What happened to one mutant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Caught,
    WrongOutputOnly,
    Equivalent,
}

fn mutants(s: &Subject) -> Vec<Mutation> {
    let mut v = Vec::new();
    for site in 1..=s.index_sites {
        v.push(Mutation::Index { site, delta: 1 });
        v.push(Mutation::Index { site, delta: -1 });
    }
    for site in 1..=s.barrier_sites {
        v.push(Mutation::NoBarrier { site });
    }
    v
}

#[test]
fn unmutated_kernels_are_correct() {
    let rev = run_reverse(0).unwrap();
    let inp = inputs(96);
    for b in 0..3 {
        for t in 0..32 {
            assert_eq!(rev[b * 32 + t], inp[b * 32 + 31 - t]);
        }
    }
    let st = run_stencil(0).unwrap();
    for i in 0..96 {
        let l = if i > 0 { inp[i - 1] } else { 0.0 };
        let r = if i + 1 < 96 { inp[i + 1] } else { 0.0 };
        assert_eq!(st[i], l + inp[i] + r, "stencil {i}");
    }
    let red = run_reduce(0).unwrap();
    for b in 0..3 {
        assert_eq!(red[b], inp[b * 32..b * 32 + 32].iter().sum::<f32>(), "reduce {b}");
    }
    let tr = run_transpose(0).unwrap();
    let inp = inputs(24 * 16);
    for r in 0..16 {
        for c in 0..24 {
            assert_eq!(tr[c * 16 + r], inp[r * 24 + c]);
        }
    }
}

#[test]
fn detectors_catch_planted_index_errors_and_missing_barriers() {
    let (mut caught, mut wrong, mut equivalent) = (0u32, 0u32, 0u32);
    let mut report = String::new();
    let mut missed_required = Vec::new();
    // Which detector reported each caught mutant.
    let mut by_detector = [("out-of-bounds", 0u32), ("race", 0), ("uninitialised", 0), ("divergent barrier", 0), ("other", 0)];
    for s in SUBJECTS {
        let good = (s.run)(0).unwrap_or_else(|e| panic!("{}: the unmutated kernel faults: {e}", s.name));
        let (mut c, mut w, mut q) = (0, 0, 0);
        for m in mutants(s) {
            let outcome = match (s.run)(m.code()) {
                Err(EmuError::Fault(msg)) => {
                    let i = by_detector.iter().position(|(k, _)| msg.contains(k)).unwrap_or(by_detector.len() - 1);
                    by_detector[i].1 += 1;
                    Outcome::Caught
                }
                Err(EmuError::Config(e)) => panic!("{}: {m:?}: a configuration error: {e}", s.name),
                Ok(out) if out.iter().zip(&good).any(|(a, b)| a.to_bits() != b.to_bits()) => Outcome::WrongOutputOnly,
                Ok(_) => Outcome::Equivalent,
            };
            match outcome {
                Outcome::Caught => c += 1,
                Outcome::WrongOutputOnly => w += 1,
                Outcome::Equivalent => q += 1,
            }
            // Must be caught: a −1 at a site every thread 0 of block 0
            // evaluates at 0 wraps past any buffer; a missing barrier
            // between one thread's store and another's load is a race.
            let required = matches!(
                (s.name, m),
                ("reverse", Mutation::NoBarrier { .. })
                    | ("stencil", Mutation::NoBarrier { .. })
                    | ("transpose", Mutation::NoBarrier { .. })
                    | ("reduce", Mutation::NoBarrier { site: 1 })
                    | (_, Mutation::Index { site: 1, delta: -1 })
            );
            if required && outcome != Outcome::Caught {
                missed_required.push(format!("{}: {m:?} ({outcome:?})", s.name));
            }
            if outcome != Outcome::Caught {
                report += &format!("  {} {m:?}: {outcome:?}\n", s.name);
            }
        }
        eprintln!("mutation: {:<9} {c:>2} caught, {w:>2} wrong output only, {q:>2} equivalent, of {}", s.name, c + w + q);
        caught += c;
        wrong += w;
        equivalent += q;
    }
    let total = caught + wrong + equivalent;
    let score = caught as f64 / total as f64;
    let live = caught as f64 / (caught + wrong) as f64;
    eprintln!(
        "mutation score: {caught}/{total} mutants caught by the emulator's detectors ({:.0}%); {caught}/{} of the non-equivalent ones ({:.0}%)\nnot caught:\n{report}",
        100.0 * score,
        caught + wrong,
        100.0 * live
    );
    eprintln!("caught by: {by_detector:?}");
    assert!(missed_required.is_empty(), "detectors missed mutants they must catch: {missed_required:?}");
    assert!(score >= 0.8, "mutation score {score:.2} under the floor 0.8");
}
