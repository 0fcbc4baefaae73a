//! The tile flavour: a block is one logical thread of tile operations (cuTile has no thread ids
//! in tile code). A tile load or store performs one memory operation per element, each its own
//! step, so other blocks may interleave between elements — per-element synchronization, as the
//! cuTile memory model says.

use super::buffer::Buffer;
use super::elem::Elem;
use super::order::{MemoryOrder, MemoryScope};
use super::thread::ThreadCtx;

/// One tile block's view of a tile kernel ([`Grid::tiles`](super::grid::Grid::tiles),
/// `Checker::check_tiles`): its block id and tile-shaped memory
/// operations, each element its own step.
pub struct TileCtx<'a> {
    pub(crate) t: ThreadCtx<'a>,
}

impl TileCtx<'_> {
    /// `ct.bid(0)`.
    pub fn bid(&self) -> u32 {
        self.t.bid()
    }

    /// `ct.num_blocks(0)`.
    pub fn num_blocks(&self) -> u32 {
        self.t.num_blocks()
    }

    /// `ct.load(array, index=(index,), shape=(shape,))`: elements `index*shape ..
    /// (index+1)*shape`, one weak load each.
    #[track_caller]
    pub fn load<T: Elem, B: Buffer<T>>(&self, buf: &B, index: usize, shape: usize) -> Vec<T> {
        // A plain loop, not a closure: `#[track_caller]` locations pass through loops only.
        let mut tile = Vec::with_capacity(shape);
        for i in index * shape..(index + 1) * shape {
            tile.push(self.t.load(buf, i));
        }
        tile
    }

    /// `ct.store(array, index=(index,), tile=tile)`: one weak store per element.
    #[track_caller]
    pub fn store<T: Elem, B: Buffer<T>>(&self, buf: &B, index: usize, tile: &[T]) {
        let shape = tile.len();
        for (k, v) in tile.iter().enumerate() {
            self.t.store(buf, index * shape + k, *v);
        }
    }

    /// `ct.atomic_load` of one element: see [`ThreadCtx::atomic_load`](ThreadCtx::atomic_load).
    #[track_caller]
    pub fn atomic_load<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> T {
        self.t.atomic_load(buf, index, order, scope)
    }

    /// `ct.atomic_store` of one element: see [`ThreadCtx::atomic_store`](ThreadCtx::atomic_store).
    #[track_caller]
    pub fn atomic_store<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) {
        self.t.atomic_store(buf, index, value, order, scope)
    }

    /// `ct.atomic_add` on one element; returns the old value.
    #[track_caller]
    pub fn atomic_add<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> T {
        self.t.atomic_add(buf, index, value, order, scope)
    }

    /// `ct.atomic_xchg` on one element; returns the old value.
    #[track_caller]
    pub fn atomic_exchange<T: Elem, B: Buffer<T>>(
        &self,
        buf: &B,
        index: usize,
        value: T,
        order: MemoryOrder,
        scope: MemoryScope,
    ) -> T {
        self.t.atomic_exchange(buf, index, value, order, scope)
    }

    /// `ct.atomic_cas` on one element; returns the old value.
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
        self.t
            .atomic_cas(buf, index, expected, desired, order, scope)
    }

    /// [`ThreadCtx::spin_loop`](ThreadCtx::spin_loop) for tile code.
    #[track_caller]
    pub fn spin_loop(&self) {
        self.t.spin_loop()
    }
}
