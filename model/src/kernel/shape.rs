//! 2-D and 3-D launch shapes, and the scaled-down warps a model may use.
//!
//! CUDA Programming Guide, *Thread Hierarchy*: "For a two-dimensional block of size
//! `(Dx, Dy)`, the thread ID of a thread of index `(x, y)` is `(x + y Dx)`; for a
//! three-dimensional block of size `(Dx, Dy, Dz)`, the thread ID of a thread of index
//! `(x, y, z)` is `(x + y Dx + z Dx Dy)`." Blocks are numbered the same way in the grid. And
//! *SIMT Architecture*: "The way a block is partitioned into warps is always the same; each warp
//! contains threads of consecutive, increasing thread IDs with the first warp containing thread
//! 0." So [`ThreadCtx::tid`] is the linear thread id, and warps are cut from it.

use super::dim3::Dim3;
use super::grid::Grid;
use super::thread::ThreadCtx;

impl Grid {
    /// A grid of `grid` blocks of `block` threads each, in up to three dimensions
    /// (`kernel<<<grid, block>>>`).
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("2-D", Grid::shaped((2, 1), (2, 2)));
    /// let out = k.global::<u32>("out", 8);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let (x, y) = (t.tid_x(), t.tid_y());
    ///     t.store(&out, (t.bid_x() * 4 + y * 2 + x) as usize, t.tid());
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    pub fn shaped(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> Grid {
        let (grid, block) = (grid.into(), block.into());
        Grid {
            grid_shape: grid,
            block_shape: block,
            ..Grid::new(grid.volume(), block.volume())
        }
    }

    /// Lanes per warp. Every NVIDIA GPU has 32; a model may scale its warps down (with its
    /// blocks) to keep exhaustive exploration small. Warp masks, named-barrier thread counts
    /// and [`ThreadCtx::lane`] follow this size.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let grid = Grid::new(1, 8).with_warp_size(4);
    /// assert_eq!(grid.warps_per_block(), 2);
    /// ```
    pub fn with_warp_size(self, lanes: u32) -> Grid {
        assert!(
            (1..=32).contains(&lanes),
            "a warp has between 1 and 32 lanes, not {lanes}"
        );
        Grid {
            warp_size: lanes,
            ..self
        }
    }

    /// Warps in each block (the last one may be partial).
    pub fn warps_per_block(&self) -> u32 {
        self.threads_per_block.div_ceil(self.warp_size)
    }
}

impl ThreadCtx<'_> {
    /// `blockIdx` (see [`Grid::shaped`]).
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("blockIdx", Grid::shaped((2, 3), 1));
    /// let report = Checker::dfs().check(&k, |t| {
    ///     let b = t.block_idx();
    ///     scopecheck_model::check!(b.x + 2 * b.y == t.bid() && b.z == 0);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    pub fn block_idx(&self) -> Dim3 {
        self.grid.grid_shape.index_of(self.bid())
    }

    /// `threadIdx` (see [`Grid::shaped`]).
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("threadIdx", Grid::shaped(1, (2, 2)));
    /// let report = Checker::dfs().check(&k, |t| {
    ///     let i = t.thread_idx();
    ///     scopecheck_model::check!(i.x + 2 * i.y == t.tid());
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    pub fn thread_idx(&self) -> Dim3 {
        self.grid.block_shape.index_of(self.tid())
    }

    /// `blockIdx.x`.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("bid_x", Grid::shaped((2, 1, 2), 1));
    /// let report = Checker::dfs().check(&k, |t| scopecheck_model::check!(t.bid_x() == t.bid() % 2));
    /// assert!(report.passed(), "{report}");
    /// ```
    pub fn bid_x(&self) -> u32 {
        self.block_idx().x
    }

    /// `blockIdx.y`.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("bid_y", Grid::shaped((1, 3), 1));
    /// let report = Checker::dfs().check(&k, |t| scopecheck_model::check!(t.bid_y() == t.bid()));
    /// assert!(report.passed(), "{report}");
    /// ```
    pub fn bid_y(&self) -> u32 {
        self.block_idx().y
    }

    /// `blockIdx.z`.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("bid_z", Grid::shaped((2, 1, 2), 1));
    /// let report = Checker::dfs().check(&k, |t| scopecheck_model::check!(t.bid_z() == t.bid() / 2));
    /// assert!(report.passed(), "{report}");
    /// ```
    pub fn bid_z(&self) -> u32 {
        self.block_idx().z
    }

    /// `threadIdx.x`.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("tid_x", Grid::shaped(1, (2, 2)));
    /// let report = Checker::dfs().check(&k, |t| scopecheck_model::check!(t.tid_x() == t.tid() % 2));
    /// assert!(report.passed(), "{report}");
    /// ```
    pub fn tid_x(&self) -> u32 {
        self.thread_idx().x
    }

    /// `threadIdx.y`.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("tid_y", Grid::shaped(1, (1, 3)));
    /// let report = Checker::dfs().check(&k, |t| scopecheck_model::check!(t.tid_y() == t.tid()));
    /// assert!(report.passed(), "{report}");
    /// ```
    pub fn tid_y(&self) -> u32 {
        self.thread_idx().y
    }

    /// `threadIdx.z`.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("tid_z", Grid::shaped(1, (2, 1, 2)));
    /// let report = Checker::dfs().check(&k, |t| scopecheck_model::check!(t.tid_z() == t.tid() / 2));
    /// assert!(report.passed(), "{report}");
    /// ```
    pub fn tid_z(&self) -> u32 {
        self.thread_idx().z
    }

    /// `gridDim`.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("gridDim", Grid::shaped((2, 1, 2), 1));
    /// let report = Checker::dfs().check(&k, |t| scopecheck_model::check!(t.grid_dim() == Dim3::new(2, 1, 2)));
    /// assert!(report.passed(), "{report}");
    /// ```
    pub fn grid_dim(&self) -> Dim3 {
        self.grid.grid_shape
    }

    /// `blockDim` in three dimensions ([`ThreadCtx::block_dim`] is its volume).
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("blockDim", Grid::shaped(1, (2, 1, 2)));
    /// let report = Checker::dfs().check(&k, |t| {
    ///     scopecheck_model::check!(t.block_shape() == Dim3::new(2, 1, 2) && t.block_dim() == 4);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    pub fn block_shape(&self) -> Dim3 {
        self.grid.block_shape
    }

    /// Lanes per warp (`warpSize`).
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let k = Kernel::new("warpSize", Grid::new(1, 4).with_warp_size(2));
    /// let report = Checker::dfs().check(&k, |t| scopecheck_model::check!(t.warp_size() == 2));
    /// assert!(report.passed(), "{report}");
    /// ```
    pub fn warp_size(&self) -> u32 {
        self.grid.warp_size
    }
}
