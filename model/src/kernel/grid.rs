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
    /// The cluster's shape in blocks (`__cluster_dims__`, `%cluster_nctaid`); its volume is
    /// `cluster_size` (`x` = `cluster_size` for [`Grid::with_clusters`]).
    pub cluster_shape: Dim3,
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
            cluster_shape: Dim3::x(1),
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
        let size = blocks_per_cluster.max(1);
        Grid {
            cluster_size: Some(size),
            cluster_shape: Dim3::x(size),
            ..self
        }
    }

    /// The same grid cut into clusters of shape `dims` (CUDA `__cluster_dims__(x, y, z)`,
    /// `cudaLaunchAttributeClusterDimension`): CUDA Programming Guide, *Thread Block Clusters*:
    /// "the grid dimension must be a multiple of the cluster size" in each dimension, so the
    /// cluster of the block at `blockIdx` is `blockIdx / dims` and its rank in the cluster
    /// (`%cluster_ctarank`) the x-major linear index of `blockIdx % dims` (`%cluster_ctaid`).
    /// A grid that is not a multiple of `dims` in some dimension is a launch error
    /// ([`Grid::cluster_shape_error`]).
    ///
    /// ```
    /// use scopecheck_model::kernel::{Dim3, Grid};
    /// let g = Grid::shaped((4, 2), 1).with_cluster_dims((2, 2));
    /// assert_eq!(g.cluster_size, Some(4));
    /// // Block (2, 1), linear id 6, is rank 2 of cluster 1 (the right half of the grid).
    /// assert_eq!((g.cluster_of(6), g.cluster_rank(6)), (1, 2));
    /// assert_eq!(g.cluster_block(1, 2), 6);
    /// assert_eq!(g.cluster_ctaid(6), Dim3::new(0, 1, 0));
    /// ```
    pub fn with_cluster_dims(self, dims: impl Into<Dim3>) -> Grid {
        let d = dims.into();
        let d = Dim3::new(d.x.max(1), d.y.max(1), d.z.max(1));
        Grid {
            cluster_size: Some(d.volume()),
            cluster_shape: d,
            ..self
        }
    }

    /// Why the grid does not divide into clusters of its shape, if it does not.
    pub fn cluster_shape_error(&self) -> Option<String> {
        let (g, c) = (self.grid_shape, self.cluster_shape);
        let fits = g.x.is_multiple_of(c.x) && g.y.is_multiple_of(c.y) && g.z.is_multiple_of(c.z);
        (self.cluster_size.is_some() && !fits).then(|| {
            format!(
                "a grid of {}x{}x{} blocks does not divide into clusters of {}x{}x{} (CUDA: the \
                 grid dimension must be a multiple of the cluster size)",
                g.x, g.y, g.z, c.x, c.y, c.z
            )
        })
    }

    /// Whether clusters are runs of consecutive block ids: one-dimensional clusters (the last
    /// one may be partial, [`Grid::with_clusters`]; on a grid that is a multiple of them along x
    /// they are the clusters `blockIdx / dims` makes).
    fn linear_clusters(&self) -> bool {
        self.cluster_shape.y == 1 && self.cluster_shape.z == 1
    }

    /// Clusters per grid dimension (`%nclusterid`).
    pub fn cluster_grid(&self) -> Dim3 {
        let (g, c) = (self.grid_shape, self.cluster_shape);
        Dim3::new(g.x.div_ceil(c.x), g.y.div_ceil(c.y), g.z.div_ceil(c.z))
    }

    /// The cluster of block `block` (`%clusterid`, linear); every block is its own cluster
    /// without clusters.
    pub fn cluster_of(&self, block: u32) -> u32 {
        let Some(size) = self.cluster_size else {
            return block;
        };
        if self.linear_clusters() {
            return block / size;
        }
        let (b, c, n) = (
            self.grid_shape.index_of(block),
            self.cluster_shape,
            self.cluster_grid(),
        );
        b.x / c.x + b.y / c.y * n.x + b.z / c.z * n.x * n.y
    }

    /// The rank of block `block` in its cluster (`%cluster_ctarank`).
    pub fn cluster_rank(&self, block: u32) -> u32 {
        let Some(size) = self.cluster_size else {
            return 0;
        };
        if self.linear_clusters() {
            return block % size;
        }
        let id = self.cluster_ctaid(block);
        let c = self.cluster_shape;
        id.x + id.y * c.x + id.z * c.x * c.y
    }

    /// The position of block `block` in its cluster (`%cluster_ctaid`, CUDA
    /// `cluster.block_index()`).
    pub fn cluster_ctaid(&self, block: u32) -> Dim3 {
        let c = self.cluster_shape;
        if self.cluster_size.is_none() {
            return Dim3::new(0, 0, 0);
        }
        if self.linear_clusters() {
            return c.index_of(block % c.x);
        }
        let b = self.grid_shape.index_of(block);
        Dim3::new(b.x % c.x, b.y % c.y, b.z % c.z)
    }

    /// The block of rank `rank` in cluster `cluster` (it may lie past the grid's last block in
    /// a partial cluster).
    pub fn cluster_block(&self, cluster: u32, rank: u32) -> u32 {
        let Some(size) = self.cluster_size else {
            return cluster;
        };
        if self.linear_clusters() {
            return cluster * size + rank;
        }
        let (c, n, g) = (self.cluster_shape, self.cluster_grid(), self.grid_shape);
        let (cl, r) = (n.index_of(cluster), c.index_of(rank));
        let b = Dim3::new(cl.x * c.x + r.x, cl.y * c.y + r.y, cl.z * c.z + r.z);
        b.x + b.y * g.x + b.z * g.x * g.y
    }

    /// Blocks in cluster `cluster` (the last of [`Grid::with_clusters`] may be partial).
    pub fn cluster_blocks(&self, cluster: u32) -> u32 {
        let size = self.cluster_size.unwrap_or(1);
        (0..size)
            .filter(|&r| self.cluster_block(cluster, r) < self.blocks)
            .count() as u32
    }

    /// Clusters in the grid.
    pub fn clusters(&self) -> u32 {
        match self.cluster_size {
            Some(size) if self.linear_clusters() => self.blocks.div_ceil(size),
            Some(_) => self.cluster_grid().volume(),
            None => self.blocks,
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
            cluster: self.cluster_size.map(|_| self.cluster_of(block)),
            cta: block,
        }
    }
}
