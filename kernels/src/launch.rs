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
}

impl LaunchConfig {
    /// A 1D launch of `blocks` blocks of `threads` threads.
    pub const fn linear(blocks: u32, threads: u32) -> Self {
        LaunchConfig { grid: [blocks, 1, 1], block: [threads, 1, 1], shared_bytes: 0 }
    }

    /// A 2D launch covering `(width, height)` points with `block` threads,
    /// one point per thread: `ceil(width / bx) × ceil(height / by)` blocks.
    pub const fn cover_2d(width: u32, height: u32, block: [u32; 2]) -> Self {
        LaunchConfig {
            grid: [width.div_ceil(block[0]), height.div_ceil(block[1]), 1],
            block: [block[0], block[1], 1],
            shared_bytes: 0,
        }
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
