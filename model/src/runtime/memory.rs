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
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
    Bool,
}

impl ElemKind {
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
    pub block: u32,
    /// Byte address within the block's shared memory.
    pub byte: u64,
}

/// Static description of one location.
#[derive(Clone, Debug)]
pub struct LocInfo {
    pub name: String,
    pub init: Bits,
    pub kind: ElemKind,
    pub shared: Option<SharedAddr>,
}

/// One store in modification order. Index 0 of every location is its initial value.
#[derive(Clone, Debug)]
pub struct StoreRec {
    pub value: Bits,
    /// `None` for the initial value, which happens before everything.
    pub writer: Option<usize>,
    pub epoch: u32,
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
    pub actor: Actor,
    pub epoch: u32,
    pub write: bool,
    pub event: usize,
    /// A read-modify-write (its read and its write, or a failed CAS's read).
    pub rmw: bool,
    /// Performed by a bulk copy, in the async proxy (every other access is generic).
    pub async_proxy: bool,
}

#[derive(Debug)]
pub struct LocState {
    pub stores: Vec<StoreRec>,
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

    pub fn latest(&self) -> usize {
        self.stores.len() - 1
    }
}
