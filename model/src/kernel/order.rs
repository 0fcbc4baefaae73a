//! cuTile's memory orders and scopes, and the PTX orders and scopes they stand for.

use crate::scope::{Order, Scope};

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
    pub(super) fn for_load(self) -> Order {
        match self {
            MemoryOrder::Release | MemoryOrder::Relaxed => Order::Relaxed,
            MemoryOrder::Acquire | MemoryOrder::AcqRel => Order::Acquire,
        }
    }

    /// A store cannot acquire: `Acquire` stores are relaxed, `AcqRel` stores release.
    pub(super) fn for_store(self) -> Order {
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
