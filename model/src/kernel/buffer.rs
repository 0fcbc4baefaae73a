//! Global and per-block shared buffers, and how an element resolves to a runtime location.

use super::elem::Elem;
use std::marker::PhantomData;

/// A buffer in global memory: one location per element.
#[derive(Debug)]
pub struct Global<T> {
    pub(super) base: usize,
    pub(super) len: usize,
    pub(super) _t: PhantomData<fn() -> T>,
}

/// A per-block buffer in shared memory: every block has its own copy.
#[derive(Debug)]
pub struct Shared<T> {
    pub(super) base: usize,
    pub(super) len: usize,
    pub(super) _t: PhantomData<fn() -> T>,
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
