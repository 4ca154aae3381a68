//! Warp-level measures of an access pattern: shared-memory bank conflicts
//! and global-memory sectors. Tests feed them the addresses a kernel's own
//! layout functions produce for the 32 lanes of a warp.

/// Threads in a warp.
pub const WARP: usize = 32;
/// Shared-memory banks (4 bytes wide each).
pub const BANKS: usize = 32;
/// Global-memory transaction granule in bytes.
pub const SECTOR_BYTES: usize = 32;

/// Bank of a shared-memory byte address.
pub const fn bank(byte: usize) -> usize {
    (byte / 4) % BANKS
}

/// Conflict degree of one warp-wide shared-memory access in which lane `l`
/// accesses `width` bytes (1, 2, 4, 8 or 16) at byte address `addrs[l]`
/// (`None`: lane inactive).
///
/// Accesses wider than 4 bytes are served in phases (8 bytes: 2 phases of
/// 16 lanes; 16 bytes: 4 phases of 8 lanes). Within a phase, lanes that read
/// the same 4-byte word share it (broadcast); the degree is the largest
/// number of distinct words that fall into one bank. 1 is conflict-free.
pub fn bank_conflict_degree(addrs: &[Option<usize>; WARP], width: usize) -> usize {
    assert!(matches!(width, 1 | 2 | 4 | 8 | 16), "access width {width} is not 1, 2, 4, 8 or 16");
    let lanes_per_phase = if width <= 4 { WARP } else { WARP * 4 / width };
    let mut worst = 0;
    for phase in addrs.chunks(lanes_per_phase) {
        let mut words = [usize::MAX; WARP * 4];
        let mut n = 0;
        for a in phase.iter().flatten() {
            let first = a / 4;
            let last = (a + width - 1) / 4;
            for w in first..=last {
                words[n] = w;
                n += 1;
            }
        }
        let words = &mut words[..n];
        words.sort_unstable();
        let mut per_bank = [0usize; BANKS];
        let mut prev = usize::MAX;
        for &w in words.iter() {
            if w != prev {
                per_bank[w % BANKS] += 1;
                prev = w;
            }
        }
        worst = worst.max(per_bank.iter().copied().max().unwrap_or(0));
    }
    worst
}

/// Bank-conflict degree of each phase of one `ldmatrix .m8n8` of
/// `matrices` (1, 2 or 4) matrices, where lane `l` gives the shared-memory
/// byte address `row_addr(l)` of a 16-byte row: phase `j` reads the eight
/// rows whose addresses lanes `8j..8j + 8` give (lanes past the last
/// matrix are not read). Entry `j` is 1 when phase `j` is conflict-free, 0
/// for a matrix not loaded.
pub fn ldmatrix_phase_degrees(row_addr: impl Fn(usize) -> usize, matrices: usize) -> [usize; 4] {
    assert!(matches!(matrices, 1 | 2 | 4), "ldmatrix loads 1, 2 or 4 matrices, not {matrices}");
    let mut out = [0; 4];
    for (j, d) in out.iter_mut().enumerate().take(matrices) {
        let addrs: [Option<usize>; WARP] = core::array::from_fn(|l| (l / 8 == j).then(|| row_addr(l)));
        *d = bank_conflict_degree(&addrs, 16);
    }
    out
}

/// Number of distinct 32-byte sectors touched by one warp-wide global
/// access of `width` bytes per lane.
pub fn sectors(addrs: &[Option<usize>; WARP], width: usize) -> usize {
    let mut s = [usize::MAX; WARP * 2 + WARP];
    let mut n = 0;
    for a in addrs.iter().flatten() {
        let first = a / SECTOR_BYTES;
        let last = (a + width - 1) / SECTOR_BYTES;
        for x in first..=last {
            s[n] = x;
            n += 1;
        }
    }
    let s = &mut s[..n];
    s.sort_unstable();
    let mut count = 0;
    let mut prev = usize::MAX;
    for &x in s.iter() {
        if x != prev {
            count += 1;
            prev = x;
        }
    }
    count
}

/// The fewest sectors the active lanes' bytes could occupy.
pub fn ideal_sectors(addrs: &[Option<usize>; WARP], width: usize) -> usize {
    let active = addrs.iter().flatten().count();
    (active * width).div_ceil(SECTOR_BYTES)
}

/// Whether an access is coalesced: it touches no more sectors than its
/// bytes need (plus one when the run does not start on a sector boundary).
pub fn is_coalesced(addrs: &[Option<usize>; WARP], width: usize) -> bool {
    sectors(addrs, width) <= ideal_sectors(addrs, width) + 1
}
