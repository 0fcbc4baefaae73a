//! The launch shape of a kernel: blocks, threads, clusters, residency and symmetry.

use super::dim3::Dim3;
use crate::scope::Placement;

/// The launch shape: `blocks` × `threads_per_block`, optionally grouped into clusters.
///
/// ```
/// use scopecheck_model::kernel::Grid;
/// let g = Grid::new(4, 2).with_clusters(2); // 4 blocks of 2 threads, clusters of 2 blocks
/// assert_eq!(g.threads(), 8);
/// assert_eq!(g.cluster_size, Some(2));
/// assert_eq!(Grid::tiles(3), Grid::new(3, 1)); // tile kernels: one logical thread per block
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    /// Blocks (CTAs) in the grid (`gridDim.x`).
    pub blocks: u32,
    /// Threads in each block (`blockDim.x`).
    pub threads_per_block: u32,
    /// Blocks per cluster (`None`: every block is its own cluster).
    pub cluster_size: Option<u32>,
    /// How many blocks the GPU keeps resident at once (`None`: all of them). The others start
    /// in id order, each once a resident block has finished: occupancy-bound execution, under
    /// which a block that waits for one not yet started waits forever.
    pub resident_blocks: Option<u32>,
    /// The grid's shape in blocks (`gridDim`); `x * y * z == blocks`.
    pub grid_shape: Dim3,
    /// The block's shape in threads (`blockDim`); `x * y * z == threads_per_block`.
    pub block_shape: Dim3,
    /// Lanes per warp: 32 on every NVIDIA GPU (see [`Grid::with_warp_size`]).
    pub warp_size: u32,
    /// The blocks are interchangeable ([`Grid::symmetric_blocks`]).
    pub symmetric_blocks: bool,
}

impl Grid {
    /// `blocks` blocks of `threads_per_block` threads, each block its own cluster.
    pub fn new(blocks: u32, threads_per_block: u32) -> Grid {
        Grid {
            blocks,
            threads_per_block,
            cluster_size: None,
            resident_blocks: None,
            grid_shape: Dim3::x(blocks),
            block_shape: Dim3::x(threads_per_block),
            warp_size: 32,
            symmetric_blocks: false,
        }
    }

    /// A tile kernel: each block is one logical thread of tile operations.
    pub fn tiles(blocks: u32) -> Grid {
        Grid::new(blocks, 1)
    }

    /// The same grid with consecutive blocks grouped into clusters of `blocks_per_cluster`
    /// (at least 1), for [`MemoryScope::Cluster`](super::order::MemoryScope::Cluster).
    pub fn with_clusters(self, blocks_per_cluster: u32) -> Grid {
        Grid {
            cluster_size: Some(blocks_per_cluster.max(1)),
            ..self
        }
    }

    /// At most `n` blocks resident at once (at least one): the field [`Grid::resident_blocks`]
    /// says how the others start.
    pub fn resident_blocks(self, n: u32) -> Grid {
        Grid {
            resident_blocks: Some(n.max(1)),
            ..self
        }
    }

    /// Declares the blocks interchangeable: every block runs the same code on the same data —
    /// what a thread does, and every check, depends on neither its block id nor the memory other
    /// blocks own (lock and ticket-lock clients, say; not a kernel that indexes its data by
    /// block). The checker then explores the blocks up to permutation: among the blocks of one
    /// cluster (of the grid, when each block is its own cluster) that have not started, only the
    /// lowest may start (the runtime's `Machine::block_started` argues why that keeps every
    /// verdict). Only the user knows the declaration holds; a wrong one may hide executions.
    /// Ignored with [`Grid::resident_blocks`], under which blocks start in id order anyway.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("counter", Grid::new(3, 1).symmetric_blocks());
    /// let c = k.global::<i32>("c", 1);
    /// k.postcondition("c == 3", move |m| m.get(&c, 0) == 3);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     t.atomic_add(&c, 0, 1, MemoryOrder::Relaxed, MemoryScope::Device);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    pub fn symmetric_blocks(self) -> Grid {
        Grid {
            symmetric_blocks: true,
            ..self
        }
    }

    /// Threads in the whole grid.
    pub fn threads(&self) -> usize {
        (self.blocks * self.threads_per_block) as usize
    }

    pub(super) fn placement(&self, block: u32) -> Placement {
        Placement {
            gpu: 0,
            cluster: self.cluster_size.map(|c| block / c),
            cta: block,
        }
    }
}
