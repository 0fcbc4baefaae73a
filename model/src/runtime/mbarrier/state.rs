//! An mbarrier's own state: its static description, its phase, counts and what its phases
//! released, and the plain values its operations take (arrives, waits). Plain data: the
//! operations live in the parent module.

use crate::runtime::view::View;
use crate::scope::Scope;
use std::sync::Arc;

/// Static description of one mbarrier.
#[derive(Clone, Debug)]
pub struct MBarInfo {
    /// How reports name it (`full[0]@block0`).
    pub name: String,
    /// The block whose shared memory holds it (its waiters' block).
    pub block: u32,
    /// Initialised at launch with this count (a cluster's hardware barrier,
    /// see the cluster module); `None` for a barrier the kernel initialises.
    pub launch_count: Option<u32>,
}

/// Who initialised the barrier, so that uses unordered with the init are caught.
#[derive(Copy, Clone, Debug)]
pub struct InitRec {
    /// The thread that executed the `mbarrier.init`.
    pub thread: usize,
    /// That thread's clock counter at the init: a use is ordered after the init when its
    /// thread's view knows this epoch.
    pub epoch: u32,
}

/// The dynamic state of one mbarrier (see the module documentation).
#[derive(Clone, Debug, Default)]
pub struct MBarState {
    /// The latest `mbarrier.init`; `None` while the barrier is uninitialised.
    pub init: Option<InitRec>,
    /// The expected arrival count `init` set: what `pending` resets to at each phase.
    pub count: u32,
    /// Arrivals still pending in the current phase.
    pub pending: u32,
    /// The transaction count: bytes expected (`expect_tx`) minus bytes received
    /// (`complete_tx`); signed, since a `complete_tx` may come first.
    pub tx: i64,
    /// The current phase's number (0 after `init`); its parity is what `try_wait.parity` tests.
    pub phase: u32,
    /// What the arrivals and completions of the current phase released so far to every
    /// acquiring wait (release arrives of the barrier's CTA, `complete_tx`).
    pub(crate) releasing: Option<View>,
    /// What each completed phase released, by phase number.
    pub(crate) completed: Vec<Arc<View>>,
    /// What remote release arrives at `.cluster` scope (or wider) of the current phase released
    /// so far: only `.cluster` waits acquire it.
    pub(crate) releasing_remote: Option<View>,
    /// The same for each completed phase, by phase number.
    pub(crate) completed_remote: Vec<Option<Arc<View>>>,
    /// `mbarrier.inval` ran since the latest init.
    pub invalidated: bool,
    /// Bulk copies in flight that will `complete_tx` on this barrier.
    pub in_flight: u32,
    /// Per thread, the epoch of its latest operation on the barrier (0: none), so that an init
    /// unordered with a use is caught from either side.
    pub(crate) uses: Vec<u32>,
    /// How many times the barrier was initialised.
    pub inits: u32,
    /// `fence.mbarrier_init`s the arrivals of the current phase published: (thread, the
    /// thread's epoch at its latest such fence).
    pub(crate) releasing_inits: Vec<(usize, u32)>,
    /// The same for each completed phase, by phase number.
    pub(crate) completed_inits: Vec<Arc<Vec<(usize, u32)>>>,
    /// Threads blocked on the barrier at the end of a failed iteration of a spin on a wait,
    /// where the same execution without that iteration covers this one (a search that prunes
    /// spins only: `Machine::mbar_spin`); the phase's completion discards the execution.
    pub(crate) covered: Vec<usize>,
}

impl MBarState {
    /// The state a barrier starts a launch in: initialised with `launch_count` (by nobody: the
    /// hardware), or uninitialised.
    pub fn at_launch(info: &MBarInfo) -> MBarState {
        match info.launch_count {
            Some(count) => MBarState {
                init: Some(InitRec {
                    thread: usize::MAX,
                    epoch: 0,
                }),
                count,
                pending: count,
                inits: 1,
                ..MBarState::default()
            },
            None => MBarState::default(),
        }
    }
}

/// How a thread waits.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WaitOn {
    /// `try_wait.parity` / `test_wait.parity`.
    Parity(u32),
    /// `try_wait` with the token (phase number) an `arrive` returned.
    Token(u32),
}

/// The outcome of one wait test.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WaitResult {
    /// The phase waited on has completed.
    Complete,
    /// Not yet completed (a test that does not block: `test_wait`, a `try_wait` that gave up).
    Incomplete,
    /// Incomplete, and the thread now blocks until the barrier's phase changes.
    Blocked,
}

/// One arrive: how many arrivals, extra expected bytes first, whether it releases and at which
/// scope (`.cta` by default; a remote arrive from a peer CTA needs `.cluster` to release), and
/// whether it is `.noComplete` (it must not complete the phase).
#[derive(Copy, Clone, Debug)]
pub struct Arrive {
    /// Arrivals it counts (1, or `count` of `mbarrier.arrive ..., count`).
    pub count: u32,
    /// Bytes it adds to the transaction count before arriving (`.expect_tx`; 0 otherwise).
    pub expect_tx: u64,
    /// Whether it has `.release` semantics (PTX's default for `mbarrier.arrive`); `false` for
    /// `.relaxed`.
    pub release: bool,
    /// Its scope: `.cta` by default, `.cluster` for an arrive that must release to a peer CTA.
    pub scope: Scope,
    /// `mbarrier.arrive.noComplete`: PTX ISA, *mbarrier.arrive*: the arrive-on operation "must
    /// not cause the mbarrier to complete its current phase, otherwise the behavior is
    /// undefined" (reported as misuse).
    pub no_complete: bool,
}

impl Arrive {
    /// `mbarrier.arrive` as PTX defaults it: one arrival, `.release`, `.cta`.
    pub const RELEASE_CTA: Arrive = Arrive {
        count: 1,
        expect_tx: 0,
        release: true,
        scope: Scope::Cta,
        no_complete: false,
    };
}

/// How a wait orders memory: `mbarrier.test_wait/try_wait{.acquire|.relaxed}{.cta|.cluster}`
/// (PTX ISA: ".acquire" and ".cta" by default).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct WaitSem {
    /// `.acquire` (else `.relaxed`).
    pub acquire: bool,
    /// `.cta` or `.cluster`.
    pub scope: Scope,
}

impl WaitSem {
    /// `.acquire.cta`, the default.
    pub const ACQUIRE_CTA: WaitSem = WaitSem {
        acquire: true,
        scope: Scope::Cta,
    };
    /// `.acquire.cluster`: also synchronizes with remote release arrives at `.cluster` scope
    /// (and `barrier.cluster.wait`, which "has .acquire semantics" at cluster scope).
    pub const ACQUIRE_CLUSTER: WaitSem = WaitSem {
        acquire: true,
        scope: Scope::Cluster,
    };
}
