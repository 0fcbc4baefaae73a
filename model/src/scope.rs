//! Scopes, memory orders and thread placement: the vocabulary both engines share.
//!
//! PTX calls the scopes `.cta`, `.cluster`, `.gpu`, `.sys`; Tile IR calls them `tile_block`,
//! `device`, `sys`; cuTile exposes them as `MemoryScope::{Block, Device, System}`. They are one
//! concept here, ordered from narrowest to widest.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The set of threads an operation promises to synchronize with.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Scope {
    /// One CTA (thread block; Tile IR `tile_block`).
    Cta,
    /// One thread-block cluster.
    Cluster,
    /// One GPU (Tile IR `device`).
    Gpu,
    /// Every thread of the system, host included.
    Sys,
}

impl Scope {
    /// Every scope, narrowest first.
    pub const ALL: [Scope; 4] = [Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys];

    /// The PTX spelling (`cta`, `cluster`, `gpu`, `sys`).
    pub fn ptx_name(self) -> &'static str {
        match self {
            Scope::Cta => "cta",
            Scope::Cluster => "cluster",
            Scope::Gpu => "gpu",
            Scope::Sys => "sys",
        }
    }

    /// The Tile IR spelling (`tile_block`, `device`, `sys`); clusters have no Tile IR name.
    pub fn tile_ir_name(self) -> &'static str {
        match self {
            Scope::Cta => "tile_block",
            Scope::Cluster => "cluster",
            Scope::Gpu => "device",
            Scope::Sys => "sys",
        }
    }

    /// The scope a PTX, Tile IR or cuTile name spells (`cta`/`tile_block`/`block`, `cluster`,
    /// `gpu`/`device`, `sys`/`system`); `None` for any other word.
    pub fn from_name(name: &str) -> Option<Scope> {
        Some(match name {
            "cta" | "tile_block" | "block" => Scope::Cta,
            "cluster" => Scope::Cluster,
            "gpu" | "device" => Scope::Gpu,
            "sys" | "system" => Scope::Sys,
            _ => return None,
        })
    }

    /// Does a scope-`self` operation issued by `by` cover thread `other`?
    pub fn includes(self, by: &Placement, other: &Placement) -> bool {
        match self {
            Scope::Cta => by.gpu == other.gpu && by.cta == other.cta,
            Scope::Cluster => by.gpu == other.gpu && by.cluster_id() == other.cluster_id(),
            Scope::Gpu => by.gpu == other.gpu,
            Scope::Sys => true,
        }
    }

    /// The narrowest scope that, issued by `a`, includes `b` (and vice versa).
    pub fn narrowest_common(a: &Placement, b: &Placement) -> Scope {
        Scope::ALL
            .into_iter()
            .find(|s| s.includes(a, b) && s.includes(b, a))
            .unwrap_or(Scope::Sys)
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.ptx_name())
    }
}

/// Memory-ordering semantics of an access or fence.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Order {
    /// Plain access: not strong, never synchronizes, races with conflicting accesses.
    Weak,
    /// `.relaxed`: strong, atomic, no ordering beyond coherence.
    Relaxed,
    /// `.acquire`: a strong read whose later operations stay after it.
    Acquire,
    /// `.release`: a strong write whose earlier operations stay before it.
    Release,
    /// `.acq_rel`: both (read-modify-writes and fences).
    AcqRel,
    /// `fence.sc` only.
    Sc,
}

impl Order {
    /// The PTX qualifier (`weak`, `relaxed`, `acquire`, `release`, `acq_rel`, `sc`).
    pub fn ptx_name(self) -> &'static str {
        match self {
            Order::Weak => "weak",
            Order::Relaxed => "relaxed",
            Order::Acquire => "acquire",
            Order::Release => "release",
            Order::AcqRel => "acq_rel",
            Order::Sc => "sc",
        }
    }

    /// The order a PTX qualifier names; `None` for any other word.
    pub fn from_name(name: &str) -> Option<Order> {
        Some(match name {
            "weak" => Order::Weak,
            "relaxed" => Order::Relaxed,
            "acquire" => Order::Acquire,
            "release" => Order::Release,
            "acq_rel" => Order::AcqRel,
            "sc" => Order::Sc,
            _ => return None,
        })
    }

    /// Strong operations may be morally strong; weak ones never are.
    pub fn is_strong(self) -> bool {
        self != Order::Weak
    }

    /// Acquire semantics: `.acquire`, `.acq_rel` and `.sc`.
    pub fn is_acquire(self) -> bool {
        matches!(self, Order::Acquire | Order::AcqRel | Order::Sc)
    }

    /// Release semantics: `.release`, `.acq_rel` and `.sc`.
    pub fn is_release(self) -> bool {
        matches!(self, Order::Release | Order::AcqRel | Order::Sc)
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.ptx_name())
    }
}

/// Where a thread runs: GPU, cluster and CTA. CTA ids are unique within a GPU.
///
/// A *host* thread (litmus `P1@host`) runs on the CPU: PTX puts it in the system scope only
/// ("the set of all threads in the program, including threads on the host CPU"), in no CTA,
/// cluster or GPU of any device thread. It is a placement on the pseudo-GPU [`Placement::HOST_GPU`],
/// each host thread in a CTA of its own, so every scope but `.sys` leaves it out.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub struct Placement {
    /// The GPU (device) index.
    pub gpu: u32,
    /// Cluster id; when absent every CTA is its own cluster.
    pub cluster: Option<u32>,
    /// The CTA (thread block) id.
    pub cta: u32,
}

impl Placement {
    /// The GPU id that stands for the host CPU; litmus GPU ids stay below it.
    pub const HOST_GPU: u32 = u32::MAX;

    /// CTA `cta` of GPU `gpu`, a cluster of its own.
    pub fn new(cta: u32, gpu: u32) -> Placement {
        Placement {
            gpu,
            cluster: None,
            cta,
        }
    }

    /// Host thread number `thread` (its CTA id on the host pseudo-GPU, unique per thread).
    pub fn host(thread: u32) -> Placement {
        Placement::new(thread, Placement::HOST_GPU)
    }

    /// Does this thread run on the host CPU?
    pub fn is_host(&self) -> bool {
        self.gpu == Placement::HOST_GPU
    }

    /// The cluster this CTA belongs to (its own id when no cluster is given).
    pub fn cluster_id(&self) -> u32 {
        self.cluster.unwrap_or(self.cta)
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_host() {
            return f.write_str("host");
        }
        match self.cluster {
            Some(c) => write!(f, "cta {},cluster {},gpu {}", self.cta, c, self.gpu),
            None => write!(f, "cta {},gpu {}", self.cta, self.gpu),
        }
    }
}
