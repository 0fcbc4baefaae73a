//! Memory: per location, the stores in modification order (= the order they executed) and every
//! access so far (for race checks).

use super::sync::{Actor, Heads};
use super::view::Observed;
use std::sync::Arc;

/// Raw value bits; the kernel facade converts typed values to and from them.
pub type Bits = u64;

/// How to print a location's values.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ElemKind {
    /// A signed 32-bit integer (`.s32`), in the low 32 bits.
    I32,
    /// An unsigned 32-bit integer (`.u32`, `.b32`), in the low 32 bits.
    U32,
    /// A signed 64-bit integer (`.s64`).
    I64,
    /// An unsigned 64-bit integer (`.u64`, `.b64`).
    U64,
    /// An IEEE 754 binary32 (`.f32`), its bits in the low 32 bits.
    F32,
    /// An IEEE 754 binary64 (`.f64`).
    F64,
    /// A boolean: 0 is `false`, anything else `true`.
    Bool,
}

impl ElemKind {
    /// `bits` as a value of this kind, in Rust's notation (`-1`, `1.5`, `true`).
    pub fn format(self, bits: Bits) -> String {
        match self {
            ElemKind::I32 => (bits as u32 as i32).to_string(),
            ElemKind::U32 => (bits as u32).to_string(),
            ElemKind::I64 => (bits as i64).to_string(),
            ElemKind::U64 => bits.to_string(),
            ElemKind::F32 => format!("{:?}", f32::from_bits(bits as u32)),
            ElemKind::F64 => format!("{:?}", f64::from_bits(bits)),
            ElemKind::Bool => (bits != 0).to_string(),
        }
    }
}

/// Where a shared-memory element lives (for bank-conflict accounting).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SharedAddr {
    /// The block (CTA) whose shared memory holds it, by grid-wide index.
    pub block: u32,
    /// Byte address within the block's shared memory.
    pub byte: u64,
}

/// Static description of one location.
#[derive(Clone, Debug)]
pub struct LocInfo {
    /// The name reports print (`flag[0]`, a PTX variable and its byte offset).
    pub name: String,
    /// The initial value: store 0 of the location.
    pub init: Bits,
    /// How to print its values.
    pub kind: ElemKind,
    /// Where it lives in shared memory; `None` for global memory.
    pub shared: Option<SharedAddr>,
}

/// One store in modification order. Index 0 of every location is its initial value.
#[derive(Clone, Debug)]
pub struct StoreRec {
    /// The value stored.
    pub value: Bits,
    /// `None` for the initial value, which happens before everything.
    pub writer: Option<usize>,
    /// The writer's own clock counter at the store (its position in the writer's program
    /// order, as the views count it).
    pub epoch: u32,
    /// The writer's placement and scope, for moral strength; `None` for the initial value.
    pub actor: Option<Actor>,
    /// Release heads an acquire reading this store may join.
    pub heads: Heads,
    /// Trace event number of the store (0 for the initial value).
    pub event: usize,
    /// An RMW's store: the writes its read observed (observation order chains through RMWs), so
    /// that whoever observes this store observes them too.
    pub chain: Vec<Observed>,
}

/// One access, kept for race checks against later conflicting accesses.
#[derive(Clone, Debug)]
pub struct AccessRec {
    /// Who accessed, with its placement and scope (for moral strength).
    pub actor: Actor,
    /// The accessor's clock counter at the access: a later access is ordered after it when
    /// its view's clock for the accessor reaches this epoch.
    pub epoch: u32,
    /// Whether it wrote (two accesses conflict when at least one writes).
    pub write: bool,
    /// Trace event number of the access (from 1).
    pub event: usize,
    /// A read-modify-write (its read and its write, or a failed CAS's read).
    pub rmw: bool,
    /// Performed by a bulk copy, in the async proxy (every other access is generic).
    pub async_proxy: bool,
}

/// The dynamic state of one location in one execution.
#[derive(Debug)]
pub struct LocState {
    /// Its stores in modification order, the initial value first.
    pub stores: Vec<StoreRec>,
    /// Every access so far, in execution order (for race checks).
    pub accesses: Vec<AccessRec>,
    /// Loom only: store index behind each version of the location's loom mirror.
    pub mirror: Vec<u32>,
}

/// A copy with room for one more store and access: a forked execution (the state-caching
/// search) usually appends one next, and an exact-capacity copy would reallocate at once.
impl Clone for LocState {
    fn clone(&self) -> LocState {
        LocState {
            stores: with_room(&self.stores),
            accesses: with_room(&self.accesses),
            mirror: self.mirror.clone(),
        }
    }
}

fn with_room<T: Clone>(v: &[T]) -> Vec<T> {
    let mut copy = Vec::with_capacity(v.len() + 1);
    copy.extend_from_slice(v);
    copy
}

impl LocState {
    /// A location holding only its initial value `init` (with no release heads) and no
    /// accesses yet.
    pub fn new(init: Bits, empty_heads: &Heads) -> LocState {
        LocState {
            stores: vec![StoreRec {
                value: init,
                writer: None,
                epoch: 0,
                actor: None,
                heads: Arc::clone(empty_heads),
                event: 0,
                chain: Vec::new(),
            }],
            accesses: Vec::new(),
            mirror: vec![0],
        }
    }

    /// The index of the newest store in modification order.
    pub fn latest(&self) -> usize {
        self.stores.len() - 1
    }
}
