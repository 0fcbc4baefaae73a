//! What the generator hands the runner: the harness and the facts about it, or why there is none.

use super::shared::{ClusterShape, SharedMap};
pub use super::unsupported::Unsupported;
use crate::host::HostThread;
use scopecheck_model::litmus::{LocId, Program, Reg, ThreadId};

impl std::error::Error for Unsupported {}

/// One value the device classifies an instance by: a register of the condition or a location's
/// final value.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Observable {
    Reg(ThreadId, Reg),
    /// A physical location.
    Loc(LocId),
}

impl Observable {
    /// The name the axiomatic engine uses: `P1:r0` for registers, the location name otherwise.
    pub fn name(&self, program: &Program) -> String {
        match self {
            Observable::Reg(t, r) => format!("P{t}:{r}"),
            Observable::Loc(l) => program.locations[*l].name.clone(),
        }
    }
}

/// The generated harness and the facts the runner and the classifier need about it.
#[derive(Clone, Debug)]
pub struct Harness {
    /// CUDA C++ source for NVRTC.
    pub source: String,
    /// Litmus threads grouped by CTA: `roles[c]` run in one block, in slot order.
    pub roles: Vec<Vec<ThreadId>>,
    /// The largest number of litmus threads in one role: GPU threads per instance in a block.
    pub slots: usize,
    /// The condition's registers and locations, in key byte order.
    pub observables: Vec<Observable>,
    /// Every register a litmus thread writes or the condition reads, in the order they are saved
    /// per instance (one `int` each, followed by the timeout flag).
    pub saved: Vec<(ThreadId, Reg)>,
    /// Physical locations; index `k` is the harness's location array `k`.
    pub locations: Vec<LocId>,
    /// Loads that may spin (see [`Spin`]); they spin only when the run's spin bound is non-zero.
    pub spins: Vec<Spin>,
    /// The device each role runs on (0 for every role of a one-GPU program): the rank of its
    /// thread's GPU id among the program's GPU ids. Each device's roles are contiguous.
    pub role_devices: Vec<usize>,
    /// Litmus threads placed on the host (`P1@host`): run by CPU threads of the runner on
    /// mapped host memory (see [`crate::host`]), never by the kernel.
    pub host: Vec<HostThread>,
    /// Does any thread run an RMW (`atom`/`red`)?
    pub has_rmw: bool,
    /// The program uses warp-level instructions (`bar.warp.sync`): an instance's threads of one
    /// CTA must be adjacent lanes of one warp, so the runner launches it with the warp layout
    /// whatever the settings, and `slots` is a power of two.
    pub warp_lanes: bool,
    /// The locations in shared memory: the runner gives each block
    /// [`SharedMap::bytes`]`(ipb)` bytes of dynamic shared memory, and a global location a bulk
    /// copy moves at least [`SharedMap::bulk_bytes`] bytes of its own.
    pub shared: SharedMap,
    /// The cluster launch a program with cluster placements needs.
    pub cluster: Option<ClusterShape>,
    /// The program's CTA barriers: with any, each litmus thread runs as lane 0 of a warp of its
    /// own (blocks of `32 × slots × ipb` threads) and a block holds at most
    /// `2^ipb_log2` instances.
    pub cta_barriers: super::ctabar::CtaBarriers,
    /// Each litmus thread runs as lane 0 of a warp of its own (blocks of `32 × slots × ipb`
    /// threads): for CTA barriers, which count warps, and for cluster barriers, whose
    /// arrivals by threads of one warp at different `barrier.cluster` instructions (a litmus
    /// thread that branches past one) hung the H100.
    pub warp_per_thread: bool,
}

/// A load that the harness can repeat until it returns `value`: a *spinning reader*.
///
/// Only loads whose destination register the condition pins to a constant (a top-level conjunct
/// `Pt:r == value` of an `exists`/`~exists` condition) in a thread without branches are chosen,
/// and never for the location's initial value. Why the diff stays sound: an instance whose
/// spinning load finally returns `value` is an execution of the original program in which that
/// load returned `value`, plus earlier reads of the same location by the same thread whose
/// results are dropped; removing those read events from a consistent execution leaves every
/// relation of the model (program order, reads-from, coherence and the orders built from them)
/// a restriction of what it was, so the acyclicity and irreflexivity axioms still hold and the
/// final state is one the model allows for the original program. Instances whose reader gave up
/// are counted apart ([`TAG_SPIN`](super::layout::TAG_SPIN)), never as a final state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spin {
    pub thread: ThreadId,
    /// Index of the load in the thread's body.
    pub stmt: usize,
    /// The value the load waits for.
    pub value: i64,
}

impl Harness {
    /// Ints saved per instance: every saved register plus the timeout and spin-miss flags.
    pub fn words_per_instance(&self) -> usize {
        self.saved.len() + 2
    }

    pub fn threads(&self) -> usize {
        self.roles.iter().map(Vec::len).sum()
    }

    /// GPUs the program spans.
    pub fn devices(&self) -> usize {
        self.role_devices.iter().max().map_or(1, |d| d + 1)
    }

    /// The contiguous run of roles device `d` launches: (first role, count).
    pub fn device_roles(&self, d: usize) -> (u32, u32) {
        let first = self.role_devices.iter().position(|&x| x == d).unwrap_or(0);
        let count = self.role_devices.iter().filter(|&&x| x == d).count();
        (first as u32, count as u32)
    }
}
