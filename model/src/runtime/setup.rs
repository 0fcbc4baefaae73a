//! What a launch is: its threads, their places in the grid, its memory locations, blocks and
//! mbarriers — static facts every execution shares. Plain data: it imports no part of the
//! machine.

use super::mbarrier::state::MBarInfo;
use super::memory::LocInfo;
use super::report::{fnv1a, FNV_SEED};
use crate::scope::Placement;
use std::sync::Arc;

/// Static facts about a kernel launch, shared by every execution.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The kernel's name, as reports print it (and the replay fingerprint hashes it).
    pub name: String,
    /// Every GPU thread (the async agents included), by grid-wide index.
    pub threads: Vec<ThreadInfo>,
    /// Every memory location, by index.
    pub locs: Vec<LocInfo>,
    /// The threads of each block, by global thread id.
    pub blocks: Vec<Vec<usize>>,
    /// Operations one thread may perform before the execution is cut off as a possible hang.
    pub max_steps: usize,
    /// Stop an execution at its first race (checking) or keep going (litmus outcomes).
    pub stop_on_race: bool,
    /// The mbarriers in shared memory (one per declared barrier per block).
    pub mbarriers: Vec<MBarInfo>,
    /// Per block, the thread id of its asynchronous copy agent (TMA unit), if the kernel has any.
    pub agents: Vec<usize>,
    /// How many blocks run at once (`None`: all): the others wait, in id order, for a resident
    /// block to finish (their threads are `NotResident` until then).
    pub resident_blocks: Option<usize>,
    /// Symmetry (see `Grid::symmetric_blocks`): per block, the block that must have started
    /// before it may start (its threads are `NotStarted` until then); empty when no block waits.
    pub starts_after: Vec<Option<usize>>,
    /// The slots of litmus warp exchanges (`litmus::warp`), which hold register data rather
    /// than the program's memory: their barriers order them alone (`Machine::exchange_barrier`)
    /// and their stores carry no release. Empty for kernels.
    pub exchange_slots: Arc<[usize]>,
}

/// Who a GPU thread is: where it runs and how reports name it.
#[derive(Clone, Debug)]
pub struct ThreadInfo {
    /// Its place in the hierarchy (thread, CTA, cluster, GPU) that scopes are decided on.
    pub placement: Placement,
    /// Its block (CTA), by grid-wide index (`blockIdx` flattened).
    pub block: u32,
    /// Its index within the block (`threadIdx` flattened).
    pub tid: u32,
    /// How reports name the thread (`block 1 thread 0`, `P1`).
    pub name: String,
    /// An asynchronous agent (the block's TMA unit), not a thread of the kernel body.
    pub agent: bool,
}

impl Setup {
    /// Identifies the kernel shape a replay token belongs to.
    pub fn fingerprint(&self) -> u32 {
        let mut h = fnv1a(self.name.as_bytes(), FNV_SEED);
        h = fnv1a(&(self.threads.len() as u64).to_le_bytes(), h);
        for loc in &self.locs {
            h = fnv1a(loc.name.as_bytes(), h);
        }
        h
    }
}
