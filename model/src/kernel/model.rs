//! A kernel model: its grid, its buffers, and postconditions on the final memory.

use super::buffer::{Buffer, Global, Shared};
use super::elem::Elem;
use super::grid::Grid;
use crate::runtime::memory::{Bits, ElemKind, LocInfo, SharedAddr};
use crate::runtime::report::Site;
use std::marker::PhantomData;
use std::sync::Arc;

type Loc = Site;

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
