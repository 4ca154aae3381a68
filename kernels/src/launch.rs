//! Launch geometry shared by the device code and the host launcher.

/// Grid, block and dynamic shared memory of one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in x, y, z.
    pub grid: [u32; 3],
    /// Threads per block in x, y, z.
    pub block: [u32; 3],
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
    /// Launched as a programmatic dependent of the stream's previous kernel
    /// (CUDA's programmatic dependent launch, sm_90): the launch may begin
    /// while that kernel's last blocks run, so its blocks start and set up
    /// meanwhile. Only for kernels whose every thread calls
    /// [`crate::arch::sm90::griddepcontrol_wait`] before touching global
    /// memory.
    pub early_launch: bool,
    /// Blocks per thread-block cluster along x (sm_90; 1: no clusters).
    /// The grid's x extent is a multiple of it; the blocks of a cluster
    /// run at once on one GPU processing cluster and may reach each
    /// other's shared memory ([`crate::arch::sm90::cluster_sync`]).
    pub cluster: u32,
}

impl LaunchConfig {
    /// A 1D launch of `blocks` blocks of `threads` threads.
    pub const fn linear(blocks: u32, threads: u32) -> Self {
        LaunchConfig { grid: [blocks, 1, 1], block: [threads, 1, 1], shared_bytes: 0, early_launch: false, cluster: 1 }
    }

    /// A 2D launch covering `(width, height)` points with `block` threads,
    /// one point per thread: `ceil(width / bx) × ceil(height / by)` blocks.
    pub const fn cover_2d(width: u32, height: u32, block: [u32; 2]) -> Self {
        LaunchConfig {
            grid: [width.div_ceil(block[0]), height.div_ceil(block[1]), 1],
            block: [block[0], block[1], 1],
            shared_bytes: 0,
            early_launch: false,
            cluster: 1,
        }
    }

    /// The same launch with the grid's rows folded: blocks beyond
    /// [`MAX_GRID_YZ`] in y continue in z (`y = z · grid_y + y'`), so a 2D
    /// grid of any height launches. A kernel launched this way reads its
    /// block row with [`crate::arch::block_row`] (and extra blocks of the
    /// last z slice, past the real rows, must be harmless: they fail every
    /// bounds check). Unchanged when the rows fit, apart from z = 1.
    pub const fn fold_rows(mut self) -> Self {
        let rows = self.grid[1] as u64 * self.grid[2] as u64;
        if rows > MAX_GRID_YZ as u64 {
            self.grid[1] = MAX_GRID_YZ;
            self.grid[2] = rows.div_ceil(MAX_GRID_YZ as u64) as u32;
        }
        self
    }

    /// The same launch with `bytes` of dynamic shared memory.
    pub const fn with_shared(mut self, bytes: u32) -> Self {
        self.shared_bytes = bytes;
        self
    }

    /// Threads per block.
    pub const fn threads_per_block(&self) -> u32 {
        self.block[0] * self.block[1] * self.block[2]
    }

    /// Total number of blocks.
    pub const fn blocks(&self) -> u64 {
        self.grid[0] as u64 * self.grid[1] as u64 * self.grid[2] as u64
    }
}

/// Largest grid extent in y and z.
pub const MAX_GRID_YZ: u32 = 65_535;
/// Largest grid extent in x.
pub const MAX_GRID_X: u32 = i32::MAX as u32;

/// PTX performance directives for one kernel: `.maxntid max_threads, 1, 1`
/// and `.minnctapersm min_blocks_per_sm`, what CUDA C++ writes as
/// `__launch_bounds__(max_threads, min_blocks_per_sm)`.
///
/// Rust has no attribute for this, so the PTX linker (`xtask`, which
/// depends on this crate) reads [`crate::LAUNCH_BOUNDS`] and writes the two
/// directives between each listed entry's parameter list and its body.
/// `ptxas` then caps the kernel's registers at
/// `65536 / (min_blocks_per_sm · max_threads)` (rounded down to its
/// allocation unit) so that `min_blocks_per_sm` blocks fit on one SM, and
/// the driver refuses launches with more than `max_threads` threads per
/// block. Take `max_threads` from the same constant the host launcher takes
/// its block size from (a tiling's `threads()`), and list a
/// kernel only if `cargo xtask ptxas-report` shows no spills under the cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchBounds {
    /// The kernel (PTX `.entry`) name.
    pub kernel: &'static str,
    /// Threads per block the kernel is launched with (`.maxntid`, 1D).
    pub max_threads: u32,
    /// Blocks that must fit on one SM at once (`.minnctapersm`).
    pub min_blocks_per_sm: u32,
}

impl LaunchBounds {
    /// The register cap these bounds imply on a GPU with 64 Ki registers
    /// per SM (every target since sm_50), before ptxas rounds it down to
    /// its allocation granularity (8 registers per thread).
    pub const fn register_cap(&self) -> u32 {
        let cap = 65_536 / (self.max_threads * self.min_blocks_per_sm);
        if cap >= 255 { 255 } else { cap / 8 * 8 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folded_rows_cover_every_row_once() {
        for rows in [1u32, 7, 65_535, 65_536, 200_000, 4_000_000] {
            let cfg = LaunchConfig::cover_2d(3, rows, [1, 1]).fold_rows();
            assert!(cfg.grid[1] <= MAX_GRID_YZ && cfg.grid[2] <= MAX_GRID_YZ, "{cfg:?}");
            // block_row = z · grid_y + y over the folded grid.
            let covered = cfg.grid[1] as u64 * cfg.grid[2] as u64;
            assert!(covered >= rows as u64 && covered - (rows as u64) < cfg.grid[1] as u64, "{rows}: {cfg:?}");
            if rows <= MAX_GRID_YZ {
                assert_eq!(cfg.grid, [3, rows, 1]);
            }
        }
    }

    #[test]
    fn register_cap_follows_the_bounds() {
        let b = |max_threads, min_blocks_per_sm| LaunchBounds { kernel: "k", max_threads, min_blocks_per_sm };
        assert_eq!(b(256, 2).register_cap(), 128);
        assert_eq!(b(128, 3).register_cap(), 168);
        assert_eq!(b(256, 1).register_cap(), 255);
    }
}
