//! Test support: launches the probe kernels of
//! [`ferrotile_kernels::warp_probe`] (one sm_80 warp instruction each, on
//! known inputs) and returns what every lane got. The kernel tests compare
//! the results, on the emulator and on a GPU, with the fragment maps of
//! `ferrotile_kernels::layout::fragment` and the roundings of
//! `ferrotile_kernels::numeric`. Not part of the library's API.

#![doc(hidden)]

use ferrotile_kernels::warp_probe as k;

use crate::{Context, Error, Result};

/// Which `mma` [`mma`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaKind {
    /// `mma.m16n8k16` with bf16 A and B.
    Bf16,
    /// `mma.m16n8k16` with f16 A and B.
    F16,
    /// `mma.m16n8k8` with tf32 A and B.
    Tf32,
}

impl MmaKind {
    /// Registers per lane of the A and B fragments.
    pub const A_REGS: usize = 4;
    /// Registers per lane of the B fragment.
    pub const B_REGS: usize = 2;
    /// Registers per lane of the C and D fragments.
    pub const C_REGS: usize = 4;

    fn code(self) -> u32 {
        match self {
            MmaKind::Bf16 => k::MMA_PROBE_BF16,
            MmaKind::F16 => k::MMA_PROBE_F16,
            MmaKind::Tf32 => k::MMA_PROBE_TF32,
        }
    }
}

/// What `ldmatrix` x4, x4.trans, x2, x2.trans, x1, x1.trans deliver from
/// the probe's iota tile: [`k::LDMATRIX_PROBE_WORDS`] words per lane, lane
/// after lane.
pub fn ldmatrix(ctx: &Context) -> Result<Vec<u32>> {
    let mut buf = ctx.alloc::<u32>(32 * k::LDMATRIX_PROBE_WORDS)?;
    buf.fill(0xDEAD_BEEF)?;
    {
        let _op = ctx.op(&[], &[buf.tracker()])?;
        let out = &mut buf;
        launch!(ctx, k::warp_probe_ldmatrix, k::ldmatrix_probe_config(), out)?;
    }
    buf.download()
}

/// One `mma` of `kind` on the lanes' fragments: `a` and `c` hold 4
/// registers per lane, `b` 2, lane after lane (32 lanes); returns D, 4
/// values per lane.
///
/// Errors: a slice of another length ([`Error::LengthMismatch`]).
pub fn mma(ctx: &Context, kind: MmaKind, a: &[u32], b: &[u32], c: &[f32]) -> Result<Vec<f32>> {
    for (arg, len, want) in [("a", a.len(), 32 * MmaKind::A_REGS), ("b", b.len(), 32 * MmaKind::B_REGS), ("c", c.len(), 32 * MmaKind::C_REGS)] {
        if len != want {
            return Err(Error::LengthMismatch { arg, expected: want, actual: len });
        }
    }
    let (a, b, c) = (&ctx.upload(a)?, &ctx.upload(b)?, &ctx.upload(c)?);
    let mut buf = ctx.alloc::<f32>(32 * MmaKind::C_REGS)?;
    buf.fill(f32::NAN)?;
    {
        let _op = ctx.op(&[a.tracker(), b.tracker(), c.tracker()], &[buf.tracker()])?;
        let d = &mut buf;
        launch!(ctx, k::warp_probe_mma, k::warp_probe_config(), kind.code(), a, b, c, d)?;
    }
    buf.download()
}

/// The shuffles of the probe: [`k::SHFL_PROBE_WORDS`] words per lane.
pub fn shfl(ctx: &Context) -> Result<Vec<u32>> {
    let mut buf = ctx.alloc::<u32>(32 * k::SHFL_PROBE_WORDS)?;
    buf.fill(0xDEAD_BEEF)?;
    {
        let _op = ctx.op(&[], &[buf.tracker()])?;
        let out = &mut buf;
        launch!(ctx, k::warp_probe_shfl, k::warp_probe_config(), out)?;
    }
    buf.download()
}

/// The conversions of the probe on the pairs `(x[2i], x[2i + 1])`:
/// [`k::CVT_PROBE_WORDS`] words per pair.
///
/// Errors: `x` empty, of odd length, or with more pairs than `u32` holds.
pub fn cvt(ctx: &Context, x: &[f32]) -> Result<Vec<u32>> {
    if x.is_empty() || !x.len().is_multiple_of(2) {
        return Err(Error::BadArgument { arg: "x", detail: format!("{} values: needs a positive, even number", x.len()) });
    }
    let pairs = crate::check::dim("x", x.len() / 2)?;
    let x = &ctx.upload(x)?;
    let mut buf = ctx.alloc::<u32>(x.len() / 2 * k::CVT_PROBE_WORDS)?;
    buf.fill(0xDEAD_BEEF)?;
    {
        let _op = ctx.op(&[x.tracker()], &[buf.tracker()])?;
        let out = &mut buf;
        launch!(ctx, k::warp_probe_cvt, k::cvt_probe_config(pairs), x, out, pairs)?;
    }
    buf.download()
}

/// Launches [`k::warp_probe_trap`] and downloads what the lanes wrote
/// (their indices). With `trap` lane 0 panics: on a GPU a device fault
/// (the download returns [`Error::DeviceFault`] and the context is unusable
/// from then on), on the emulator [`Error::Emulator`] (the context stays
/// usable).
pub fn trap(ctx: &Context, trap: bool) -> Result<Vec<u32>> {
    let mut buf = ctx.alloc::<u32>(32)?;
    buf.fill(0xDEAD_BEEF)?;
    {
        let _op = ctx.op(&[], &[buf.tracker()])?;
        let out = &mut buf;
        launch!(ctx, k::warp_probe_trap, k::trap_probe_config(), out, trap as u32)?;
    }
    buf.download()
}

#[cfg(test)]
mod tests {
    /// The body of entry `name` in the embedded PTX.
    fn entry(ptx: &str, name: &str) -> String {
        let start = ptx.find(&format!(".entry {name}(")).unwrap_or_else(|| panic!("no entry {name}"));
        let len = ptx[start..].find("\n}\n").expect("entry without an end");
        ptx[start..start + len].to_string()
    }

    /// Each probe reaches the GPU as the instructions it is named after.
    #[test]
    fn probe_entries_hold_their_instructions() {
        let ptx = crate::backend::ptx_text(crate::backend::PTX_MODULES.iter().find(|m| m.name == "experiments/sm_80").expect("the experiments module").deflated).unwrap();
        let want: [(&str, &[&str]); 4] = [
            (
                "warp_probe_ldmatrix",
                &[
                    "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
                    "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
                    "ldmatrix.sync.aligned.m8n8.x2.shared.b16",
                    "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16",
                    "ldmatrix.sync.aligned.m8n8.x1.shared.b16",
                    "ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16",
                ],
            ),
            (
                "warp_probe_mma",
                &[
                    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
                    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
                    "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
                ],
            ),
            ("warp_probe_shfl", &["shfl.sync.idx.b32", "shfl.sync.bfly.b32"]),
            (
                "warp_probe_cvt",
                &["cvt.rn.bf16x2.f32", "cvt.rn.f16x2.f32", "cvt.rna.tf32.f32", "cvt.rn.bf16.f32", "cvt.rn.f16.f32", "cvt.f32.f16"],
            ),
        ];
        for (name, instrs) in want {
            let body = entry(&ptx, name);
            for i in instrs {
                assert!(body.contains(i), "{name} has no `{i}`");
            }
        }
    }
}
