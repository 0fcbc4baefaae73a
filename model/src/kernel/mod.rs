//! A cuTile/CUDA-shaped facade over the runtime: launch a [`Grid`] of blocks × threads with one
//! closure per thread, touch [`Global`] and per-block [`Shared`] buffers with weak loads/stores
//! and scoped atomics, fence, `syncthreads`, and let a [`Checker`] explore every execution.
//!
//! ```
//! use scopecheck_model::kernel::*;
//! let mut k = Kernel::new("message passing", Grid::new(2, 1));
//! let data = k.global::<i32>("data", 1);
//! let flag = k.global::<i32>("flag", 1);
//! let report = Checker::dfs().check(&k, move |t| {
//!     if t.bid() == 0 {
//!         t.store(&data, 0, 42);
//!         t.atomic_store(&flag, 0, 1, MemoryOrder::Release, MemoryScope::Device);
//!     } else if t.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Device) == 1 {
//!         scopecheck_model::check!(t.load(&data, 0) == 42);
//!     }
//! });
//! assert!(report.passed(), "{report}");
//! ```
//!
//! Semantics live in [`crate::runtime`]; this module only names things.

#![warn(missing_docs)]

mod atomics;
mod checker;
mod cluster;
mod cp_async;
mod mbarrier;
mod mixed_size;
mod shape;
mod sync;
mod tile;
mod tokens;
mod warp;

pub use self::atomics::Integer;
pub use self::checker::{common_verdict, Checker, Report, Verdict};
pub use self::cluster::PeerShared;
pub use self::mbarrier::{
    MBarrier, MBarriers, MbarrierArrive, MbarrierState, PeerMBarrier, PhaseToken,
};
pub use self::shape::Dim3;
pub use self::tile::TileCtx;
pub use self::tokens::Token;
pub use self::warp::{ReduxInt, FULL_MASK};
pub use crate::runtime::bank::BankConflict;
pub use crate::runtime::cluster::ClusterArrival;
pub use crate::runtime::report::FailureKind;

use crate::runtime::memory::{Bits, ElemKind, LocInfo, SharedAddr};
use crate::runtime::report::{RmwKind, Site};
use crate::runtime::Ctx;
use crate::scope::{Order, Placement, Scope};
use std::marker::PhantomData;
use std::sync::Arc;

/// cuTile's `MemoryOrder` (`RELAXED`, `ACQUIRE`, `RELEASE`, `ACQ_REL`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MemoryOrder {
    /// `.relaxed`: atomic, but orders nothing else.
    Relaxed,
    /// `.acquire`: later operations of the thread stay after it (loads, read-modify-writes).
    Acquire,
    /// `.release`: earlier operations of the thread stay before it (stores, read-modify-writes).
    Release,
    /// `.acq_rel`: both (read-modify-writes and fences).
    AcqRel,
}

impl MemoryOrder {
    /// The PTX memory-model order it stands for.
    pub fn order(self) -> Order {
        match self {
            MemoryOrder::Relaxed => Order::Relaxed,
            MemoryOrder::Acquire => Order::Acquire,
            MemoryOrder::Release => Order::Release,
            MemoryOrder::AcqRel => Order::AcqRel,
        }
    }

    /// A load cannot release: `Release` reads are relaxed, `AcqRel` reads acquire.
    fn for_load(self) -> Order {
        match self {
            MemoryOrder::Release | MemoryOrder::Relaxed => Order::Relaxed,
            MemoryOrder::Acquire | MemoryOrder::AcqRel => Order::Acquire,
        }
    }

    /// A store cannot acquire: `Acquire` stores are relaxed, `AcqRel` stores release.
    fn for_store(self) -> Order {
        match self {
            MemoryOrder::Acquire | MemoryOrder::Relaxed => Order::Relaxed,
            MemoryOrder::Release | MemoryOrder::AcqRel => Order::Release,
        }
    }
}

/// cuTile's `MemoryScope` (`BLOCK`, `DEVICE`, `SYS`), plus thread-block clusters.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MemoryScope {
    /// `.cta`: the threads of one block.
    Block,
    /// `.cluster`: the blocks of one thread-block cluster.
    Cluster,
    /// `.gpu`: every thread of the device.
    Device,
    /// `.sys`: every thread of the system (other GPUs, the host).
    System,
}

impl MemoryScope {
    /// The PTX scope it stands for.
    pub fn scope(self) -> Scope {
        match self {
            MemoryScope::Block => Scope::Cta,
            MemoryScope::Cluster => Scope::Cluster,
            MemoryScope::Device => Scope::Gpu,
            MemoryScope::System => Scope::Sys,
        }
    }
}

/// Element types buffers may hold.
pub trait Elem: Copy + Send + Sync + PartialEq + std::fmt::Debug + 'static {
    /// How the runtime prints and compares values of this type.
    const KIND: ElemKind;
    /// Size in bytes (shared-memory banks and bulk-copy byte counts use it).
    const BYTES: u64;
    /// The value as the runtime stores it.
    fn to_bits(self) -> Bits;
    /// The value the runtime's bits stand for.
    fn from_bits(bits: Bits) -> Self;
    /// `atomic_add` (wrapping for integers).
    fn add(self, other: Self) -> Self;
}

macro_rules! int_elem {
    ($t:ty, $kind:ident, $bytes:expr, $unsigned:ty) => {
        impl Elem for $t {
            const KIND: ElemKind = ElemKind::$kind;
            const BYTES: u64 = $bytes;
            fn to_bits(self) -> Bits {
                self as $unsigned as Bits
            }
            fn from_bits(bits: Bits) -> Self {
                bits as $unsigned as $t
            }
            fn add(self, other: Self) -> Self {
                self.wrapping_add(other)
            }
        }
    };
}
int_elem!(i32, I32, 4, u32);
int_elem!(u32, U32, 4, u32);
int_elem!(i64, I64, 8, u64);
int_elem!(u64, U64, 8, u64);

impl Elem for f32 {
    const KIND: ElemKind = ElemKind::F32;
    const BYTES: u64 = 4;
    fn to_bits(self) -> Bits {
        f32::to_bits(self) as Bits
    }
    fn from_bits(bits: Bits) -> Self {
        f32::from_bits(bits as u32)
    }
    fn add(self, other: Self) -> Self {
        self + other
    }
}

impl Elem for f64 {
    const KIND: ElemKind = ElemKind::F64;
    const BYTES: u64 = 8;
    fn to_bits(self) -> Bits {
        f64::to_bits(self)
    }
    fn from_bits(bits: Bits) -> Self {
        f64::from_bits(bits)
    }
    fn add(self, other: Self) -> Self {
        self + other
    }
}

impl Elem for bool {
    const KIND: ElemKind = ElemKind::Bool;
    const BYTES: u64 = 1;
    fn to_bits(self) -> Bits {
        self as Bits
    }
    fn from_bits(bits: Bits) -> Self {
        bits != 0
    }
    fn add(self, other: Self) -> Self {
        self | other
    }
}

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
    /// (at least 1), for [`MemoryScope::Cluster`].
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

    fn placement(&self, block: u32) -> Placement {
        Placement {
            gpu: 0,
            cluster: self.cluster_size.map(|c| block / c),
            cta: block,
        }
    }
}

/// A buffer in global memory: one location per element.
#[derive(Debug)]
pub struct Global<T> {
    base: usize,
    len: usize,
    _t: PhantomData<fn() -> T>,
}

/// A per-block buffer in shared memory: every block has its own copy.
#[derive(Debug)]
pub struct Shared<T> {
    base: usize,
    len: usize,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for Global<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Global<T> {}
impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Shared<T> {}

/// Anything a kernel can index: resolves an element of the calling block to a location.
pub trait Buffer<T: Elem>: Copy {
    /// Elements in the buffer (per block, for shared memory).
    fn len(&self) -> usize;
    /// Whether the buffer has no element.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The location of element `index` as seen by `block`.
    fn location(&self, block: u32, index: usize) -> usize;
}

impl<T: Elem> Buffer<T> for Global<T> {
    fn len(&self) -> usize {
        self.len
    }
    fn location(&self, _block: u32, index: usize) -> usize {
        self.base + index
    }
}

impl<T: Elem> Buffer<T> for Shared<T> {
    fn len(&self) -> usize {
        self.len
    }
    fn location(&self, block: u32, index: usize) -> usize {
        self.base + block as usize * self.len + index
    }
}

/// A postcondition on the final memory state.
pub(crate) struct Post {
    pub what: String,
    pub site: Site,
    pub check: Arc<dyn Fn(&Final) -> bool + Send + Sync>,
}

/// A kernel model: its grid, its buffers, and postconditions on the final memory.
///
/// ```
/// use scopecheck_model::kernel::*;
/// // Two blocks add 1 to a counter with relaxed device-scope atomics: no update is lost.
/// let mut k = Kernel::new("counter", Grid::new(2, 1));
/// let counter = k.global::<u32>("counter", 1);
/// k.postcondition("counter == 2", move |m| m.get(&counter, 0) == 2);
/// let report = Checker::dfs().check(&k, move |t| {
///     t.atomic_add(&counter, 0, 1, MemoryOrder::Relaxed, MemoryScope::Device);
/// });
/// assert!(report.passed() && report.complete, "{report}");
/// ```
pub struct Kernel {
    /// The name reports use.
    pub name: String,
    /// The launch shape.
    pub grid: Grid,
    pub(crate) locs: Vec<LocInfo>,
    shared_bytes: u64,
    pub(crate) posts: Vec<Post>,
    pub(crate) max_steps: usize,
    /// Declared mbarriers (one instance per block each).
    pub(crate) mbarriers: Vec<String>,
    /// Whether blocks have a copy agent for bulk copies.
    pub(crate) bulk_copies: bool,
}

impl Kernel {
    /// A kernel with no buffers yet, launched as `grid`.
    pub fn new(name: &str, grid: Grid) -> Kernel {
        Kernel {
            name: name.to_string(),
            grid,
            locs: Vec::new(),
            shared_bytes: 0,
            posts: Vec::new(),
            max_steps: 2_000,
            mbarriers: Vec::new(),
            bulk_copies: false,
        }
    }

    /// Operations one thread may perform before an execution counts as a possible hang.
    pub fn max_steps(mut self, steps: usize) -> Kernel {
        self.max_steps = steps;
        self
    }

    /// Engine threads an execution runs: the grid's threads plus one copy agent per block when
    /// the kernel uses bulk copies.
    pub fn model_threads(&self) -> usize {
        let agents = if self.bulk_copies {
            self.grid.blocks
        } else {
            0
        };
        self.grid.threads() + agents as usize
    }

    /// A zero-initialised global buffer.
    pub fn global<T: Elem>(&mut self, name: &str, len: usize) -> Global<T> {
        let zero = T::from_bits(0);
        self.global_from(name, &vec![zero; len])
    }

    /// A global buffer with the given initial contents.
    pub fn global_from<T: Elem>(&mut self, name: &str, init: &[T]) -> Global<T> {
        let base = self.locs.len();
        for (i, v) in init.iter().enumerate() {
            self.locs.push(LocInfo {
                name: format!("{name}[{i}]"),
                init: v.to_bits(),
                kind: T::KIND,
                shared: None,
            });
        }
        Global {
            base,
            len: init.len(),
            _t: PhantomData,
        }
    }

    /// A zero-initialised shared buffer of `len` elements per block, laid out after the block's
    /// earlier shared buffers (this decides its banks).
    pub fn shared<T: Elem>(&mut self, name: &str, len: usize) -> Shared<T> {
        let zero = T::from_bits(0);
        self.shared_from(name, &vec![zero; len])
    }

    /// A shared buffer whose copy in every block starts with `init` (CUDA leaves shared memory
    /// uninitialised: this models contents an earlier phase of the kernel wrote, ordered before
    /// everything the model explores).
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("table", Grid::new(1, 2));
    /// let table = k.shared_from::<u32>("table", &[7, 9]);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let i = t.tid() as usize;
    ///     scopecheck_model::check!(t.load(&table, i) == [7, 9][i]);
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    pub fn shared_from<T: Elem>(&mut self, name: &str, init: &[T]) -> Shared<T> {
        let base = self.locs.len();
        let offset = self.shared_bytes;
        let len = init.len();
        for b in 0..self.grid.blocks {
            for (i, v) in init.iter().enumerate() {
                let byte = offset + i as u64 * T::BYTES;
                self.locs.push(LocInfo {
                    name: format!("{name}[{i}]@block{b}"),
                    init: v.to_bits(),
                    kind: T::KIND,
                    shared: Some(SharedAddr { block: b, byte }),
                });
            }
        }
        // Keep the next buffer word-aligned.
        self.shared_bytes = (offset + len as u64 * T::BYTES).div_ceil(4) * 4;
        Shared {
            base,
            len,
            _t: PhantomData,
        }
    }

    /// A buffer of raw element values of kind `kind` (for an interpreted PTX kernel, whose
    /// buffers are typed at run time): global, or one copy per block when `shared`. Returns the
    /// location of element 0 (of block 0) and the elements per block copy.
    pub(crate) fn buffer_of_bits(
        &mut self,
        name: &str,
        kind: ElemKind,
        values: &[Bits],
        shared: bool,
    ) -> (usize, usize) {
        let base = self.locs.len();
        let bytes: u64 = match kind {
            ElemKind::I64 | ElemKind::U64 | ElemKind::F64 => 8,
            _ => 4,
        };
        let copies = if shared { self.grid.blocks } else { 1 };
        let offset = self.shared_bytes;
        for b in 0..copies {
            for (i, v) in values.iter().enumerate() {
                let (name, shared) = match shared {
                    true => (
                        format!("{name}[{i}]@block{b}"),
                        Some(SharedAddr {
                            block: b,
                            byte: offset + i as u64 * bytes,
                        }),
                    ),
                    false => (format!("{name}[{i}]"), None),
                };
                self.locs.push(LocInfo {
                    name,
                    init: *v,
                    kind,
                    shared,
                });
            }
        }
        if shared {
            self.shared_bytes = (offset + values.len() as u64 * bytes).div_ceil(4) * 4;
        }
        (base, values.len())
    }

    /// Every execution must end with `check(final memory)` true; `what` names it in reports.
    #[track_caller]
    pub fn postcondition(
        &mut self,
        what: &str,
        check: impl Fn(&Final) -> bool + Send + Sync + 'static,
    ) {
        self.posts.push(Post {
            what: what.to_string(),
            site: Loc::caller(),
            check: Arc::new(check),
        });
    }
}

/// The memory at the end of an execution: each location's last store in modification order.
pub struct Final<'a> {
    pub(crate) machine: &'a crate::runtime::Machine,
}

impl Final<'_> {
    /// The final value of `buf[index]`.
    pub fn get<T: Elem>(&self, buf: &Global<T>, index: usize) -> T {
        T::from_bits(self.machine.final_value(buf.location(0, index)))
    }

    /// The final value of `buf[index]` in `block`'s copy of a shared buffer.
    pub fn get_shared<T: Elem>(&self, buf: &Shared<T>, block: u32, index: usize) -> T {
        T::from_bits(self.machine.final_value(buf.location(block, index)))
    }
}

/// One GPU thread's view of the kernel: its ids and every memory operation.
pub struct ThreadCtx<'a> {
    pub(crate) rt: &'a Ctx,
    pub(crate) grid: Grid,
}

type Loc = crate::runtime::report::Site;

impl ThreadCtx<'_> {
    /// Block index (`blockIdx.x`, cuTile `ct.bid(0)`).
    pub fn bid(&self) -> u32 {
        self.rt.info().block
    }

    /// Thread index within the block (`threadIdx.x`).
    pub fn tid(&self) -> u32 {
        self.rt.info().tid
    }

    /// Blocks in the grid (`gridDim.x`).
    pub fn num_blocks(&self) -> u32 {
        self.grid.blocks
    }

    /// Threads per block (`blockDim.x`).
    pub fn block_dim(&self) -> u32 {
        self.grid.threads_per_block
    }

    /// Warp index within the block (`Grid::warp_size` threads a warp, 32 unless set).
    pub fn warp(&self) -> u32 {
        self.tid() / self.grid.warp_size
    }

    /// Lane index within the warp.
    pub fn lane(&self) -> u32 {
        self.tid() % self.grid.warp_size
    }

    #[track_caller]
    fn loc<T: Elem, B: Buffer<T>>(&self, buf: &B, index: usize) -> usize {
        if index >= buf.len() {
            self.rt.fail(format!(
                "index {index} out of bounds (length {}) at {}",
                buf.len(),
                Loc::caller()
            ));
        }
        buf.location(self.bid(), index)
    }

    /// A weak (non-atomic) load: `x = buf[i]`.
    #[track_caller]
    pub fn load<T: Elem, B: Buffer<T>>(&self, buf: &B, index: usize) -> T {
        let loc = self.loc(buf, index);
        T::from_bits(self.rt.load(loc, Order::Weak, None, Loc::caller()))
    }

    /// A weak (non-atomic) store: `buf[i] = v`.
    #[track_caller]
    pub fn store<T: Elem, B: Buffer<T>>(&self, buf: &B, index: usize, value: T) {
        let loc = self.loc(buf, index);
        self.rt
            .store(loc, value.to_bits(), Order::Weak, None, Loc::caller())
    }

    /// An atomic load `ld.<order>.<scope>`: `Release` reads as relaxed, `AcqRel` as acquire.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// // Message passing between blocks: a device-scope release store of the flag, an acquire
    /// // load of it, and the data written before the store is seen after the load.
    /// let mut k = Kernel::new("mp", Grid::new(2, 1));
    /// let (data, flag) = (k.global::<i32>("data", 1), k.global::<i32>("flag", 1));
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     if t.bid() == 0 {
    ///         t.store(&data, 0, 42);
    ///         t.atomic_store(&flag, 0, 1, MemoryOrder::Release, MemoryScope::Device);
    ///     } else if t.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Device) == 1 {
    ///         scopecheck_model::check!(t.load(&data, 0) == 42);
    ///     }
    /// });
    /// assert!(report.passed(), "{report}");
    /// // With block scope the two blocks' operations are not morally strong: a scoped race.
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     if t.bid() == 0 {
    ///         t.store(&data, 0, 42);
    ///         t.atomic_store(&flag, 0, 1, MemoryOrder::Release, MemoryScope::Block);
    ///     } else if t.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Block) == 1 {
    ///         scopecheck_model::check!(t.load(&data, 0) == 42);
    ///     }
    /// });
    /// assert!(!report.passed());
    /// ```
    #[track_caller]
    pub fn atomic_load<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> T {
        let loc = self.loc(buf, index);
        T::from_bits(
            self.rt
                .load(loc, order.for_load(), Some(scope.scope()), Loc::caller()),
        )
    }

    /// An atomic store `st.<order>.<scope>`: `Acquire` writes as relaxed, `AcqRel` as release.
    /// See [`ThreadCtx::atomic_load`] for an example.
    #[track_caller]
    pub fn atomic_store<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) {
        let loc = self.loc(buf, index);
        self.rt.store(
            loc,
            value.to_bits(),
            order.for_store(),
            Some(scope.scope()),
            Loc::caller(),
        )
    }

    #[track_caller]
    fn rmw<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        kind: RmwKind,
        apply: impl Fn(T) -> Option<T>,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> T {
        let loc = self.loc(buf, index);
        let apply = |bits: Bits| apply(T::from_bits(bits)).map(Elem::to_bits);
        T::from_bits(self.rt.rmw(
            loc,
            kind,
            &apply,
            order.order(),
            scope.scope(),
            Loc::caller(),
        ))
    }

    /// Atomically add `value`; returns the old value.
    #[track_caller]
    pub fn atomic_add<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> T {
        self.rmw(
            buf,
            index,
            RmwKind::Add,
            |old: T| Some(old.add(value)),
            order,
            scope,
        )
    }

    /// Atomically replace with `value`; returns the old value.
    #[track_caller]
    pub fn atomic_exchange<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> T {
        self.rmw(buf, index, RmwKind::Exchange, |_| Some(value), order, scope)
    }

    /// Compare-and-swap: writes `desired` if the value is `expected`; returns the old value.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// // A one-shot lock: exactly one of three blocks wins the compare-and-swap.
    /// let mut k = Kernel::new("cas", Grid::new(3, 1));
    /// let (lock, winners) = (k.global::<u32>("lock", 1), k.global::<u32>("winners", 1));
    /// k.postcondition("one winner", move |m| m.get(&winners, 0) == 1);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     let (acq_rel, gpu) = (MemoryOrder::AcqRel, MemoryScope::Device);
    ///     if t.atomic_cas(&lock, 0, 0, t.bid() + 1, acq_rel, gpu) == 0 {
    ///         t.atomic_exchange(&winners, 0, 1, MemoryOrder::Relaxed, gpu);
    ///     }
    /// });
    /// assert!(report.passed(), "{report}");
    /// ```
    #[track_caller]
    #[allow(clippy::too_many_arguments)]
    pub fn atomic_cas<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        expected: T,
        desired: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> T {
        self.rmw(
            buf,
            index,
            RmwKind::Cas,
            |old: T| (old == expected).then_some(desired),
            order,
            scope,
        )
    }

    /// `fence.<order>.<scope>` (a relaxed fence does nothing).
    #[track_caller]
    pub fn fence(&self, order: MemoryOrder, scope: MemoryScope) {
        if order != MemoryOrder::Relaxed {
            self.rt.fence(order.order(), scope.scope(), Loc::caller())
        }
    }

    /// `fence.sc.<scope>`: an acq_rel fence that also takes part in the total order of SC fences.
    #[track_caller]
    pub fn fence_sc(&self, scope: MemoryScope) {
        self.rt.fence(Order::Sc, scope.scope(), Loc::caller())
    }

    /// `__syncthreads()`: every thread of the block must reach this same call.
    #[track_caller]
    pub fn syncthreads(&self) {
        self.rt.barrier(Loc::caller())
    }

    /// Call once per failed iteration of a spin loop (like `core::hint::spin_loop`): an
    /// iteration that stores nothing and reads what the previous one read is not explored again,
    /// and the thread sleeps until a store could change what it reads (see
    /// [`crate::runtime::spin`]). A failed iteration that stores nothing must leave the thread's
    /// own state unchanged. Without it a spin loop may spin until the step bound and be reported
    /// as a possible hang.
    #[track_caller]
    pub fn spin_loop(&self) {
        self.rt.spin_wait(Loc::caller())
    }
}

/// `check!(cond)` / `check!(cond, "fmt", args…)`: an assertion inside a kernel. A failure is
/// reported as an assertion failure with the kernel's source location.
#[macro_export]
macro_rules! check {
    ($cond:expr $(,)?) => {
        if !$cond {
            panic!("check failed: {}", stringify!($cond));
        }
    };
    ($cond:expr, $($arg:tt)+) => {
        if !$cond {
            panic!($($arg)+);
        }
    };
}

/// Build the runtime setup for a kernel.
pub(crate) fn setup_of(kernel: &Kernel, tiles: bool) -> crate::runtime::Setup {
    use crate::runtime::ThreadInfo;
    let g = kernel.grid;
    let mut threads = Vec::new();
    let mut blocks = Vec::new();
    for b in 0..g.blocks {
        let mut members = Vec::new();
        for t in 0..g.threads_per_block {
            members.push(threads.len());
            let name = if tiles {
                format!("block {b}")
            } else {
                format!("block {b} thread {t}")
            };
            threads.push(ThreadInfo {
                placement: g.placement(b),
                block: b,
                tid: t,
                name,
                agent: false,
            });
        }
        blocks.push(members);
    }
    // Each block's copy agent (TMA unit) comes after every kernel thread.
    let mut agents = Vec::new();
    if kernel.bulk_copies {
        for b in 0..g.blocks {
            agents.push(threads.len());
            threads.push(ThreadInfo {
                placement: g.placement(b),
                block: b,
                tid: u32::MAX,
                name: format!("block {b} bulk-copy agent"),
                agent: true,
            });
        }
    }
    let mbarriers = kernel
        .mbarriers
        .iter()
        .flat_map(|name| {
            (0..g.blocks).map(move |b| crate::runtime::mbarrier::MBarInfo {
                name: format!("{name}@block{b}"),
                block: b,
                launch_count: None,
            })
        })
        .chain(cluster::cluster_barriers(&g))
        .collect();
    crate::runtime::Setup {
        name: kernel.name.clone(),
        threads,
        locs: kernel.locs.clone(),
        blocks,
        max_steps: kernel.max_steps,
        stop_on_race: true,
        mbarriers,
        agents,
        resident_blocks: g.resident_blocks.map(|n| n as usize),
        starts_after: starts_after(&g),
        exchange_slots: Vec::new().into(),
    }
}

/// Symmetry ([`Grid::symmetric_blocks`]): each block but the first of its cluster (of the grid,
/// when each block is its own cluster) starts after the block before it.
fn starts_after(g: &Grid) -> Vec<Option<usize>> {
    if !g.symmetric_blocks || g.resident_blocks.is_some() {
        return Vec::new();
    }
    (0..g.blocks)
        .map(|b| {
            let first_of_cluster = g.cluster_size.is_some_and(|c| b % c == 0);
            (b > 0 && !first_of_cluster).then(|| b as usize - 1)
        })
        .collect()
}
