//! The question a liveness search answers and its answer: the progress model and the search's
//! options ([`Progress`], [`Options`]), how a thread is stuck ([`Fate`], [`Stuck`]), a hang and
//! the verdict ([`Hang`], [`Verdict`], [`Liveness`]).

use super::bound::Cut;
use crate::axiomatic::execution::Execution;
use crate::litmus::{Span, ThreadId};
use serde::Serialize;
use std::fmt;

/// GPU forward-progress models (Sorensen et al., "Specifying and testing GPU workgroup progress
/// models", OOPSLA 2021), applied to the threads of a litmus test in id order. Each says which
/// threads the scheduler guarantees to keep running; a hang needs every guaranteed thread to
/// have finished, spun or blocked, while the others may stop anywhere.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default, Serialize)]
pub enum Progress {
    /// Every thread progresses: each one finishes, spins or blocks.
    #[default]
    Fair,
    /// Occupancy-bound execution: "once a thread has started it keeps being scheduled", but a
    /// thread that has not started may never start. Each thread has not started, or finishes,
    /// spins or blocks.
    Obe,
    /// HSA: only the lowest-id thread that has not finished is guaranteed to run. That thread
    /// spins or blocks (all lower ones finished); every other thread may stop anywhere.
    Hsa,
    /// Both OBE's and HSA's guarantees: started threads progress, and so does the lowest-id
    /// unfinished one (started or not).
    HsaObe,
    /// Linear OBE: once a thread has started, every thread with a lower or equal id is
    /// guaranteed to progress. Threads up to the highest started id finish, spin or block;
    /// the ones above it have not started.
    Lobe,
}

impl Progress {
    /// Every progress model: fair, OBE, HSA, HSA+OBE, LOBE (`--progress` accepts each
    /// [`Progress::name`]).
    pub const ALL: [Progress; 5] = [
        Progress::Fair,
        Progress::Obe,
        Progress::Hsa,
        Progress::HsaObe,
        Progress::Lobe,
    ];

    /// The model's name on the command line and in reports (`fair`, `obe`, `hsa`, `hsa_obe`,
    /// `lobe`).
    pub fn name(self) -> &'static str {
        match self {
            Progress::Fair => "fair",
            Progress::Obe => "obe",
            Progress::Hsa => "hsa",
            Progress::HsaObe => "hsa_obe",
            Progress::Lobe => "lobe",
        }
    }

    /// The model [`Progress::name`] names; `None` for any other name.
    pub fn from_name(name: &str) -> Option<Progress> {
        Progress::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Threads may stop after any prefix of their run (HSA), not only before they start.
    pub(super) fn stops_anywhere(self) -> bool {
        self == Progress::Hsa
    }

    /// Threads may be left unstarted at all.
    pub(super) fn may_stop(self) -> bool {
        self != Progress::Fair
    }

    /// Whether the threads' fates agree with the model's guarantees (and some thread hangs).
    pub(super) fn allows(self, fates: &[Fate]) -> bool {
        let stuck = |f: &Fate| matches!(f, Fate::Spins | Fate::Blocked);
        let runs_on = |f: &Fate| f != &Fate::Stopped;
        if !fates.iter().any(stuck) {
            return false;
        }
        // The lowest-id thread that has not finished.
        let lowest = fates.iter().position(|f| f != &Fate::Done);
        match self {
            Progress::Fair => fates.iter().all(runs_on),
            // A stopped thread is, under these models, one that never started (its run is
            // empty: see `runs`).
            Progress::Obe => true,
            Progress::Hsa => lowest.is_some_and(|t| stuck(&fates[t])),
            Progress::HsaObe => lowest.is_some_and(|t| stuck(&fates[t])),
            Progress::Lobe => match fates.iter().rposition(runs_on) {
                Some(m) => fates[..=m].iter().all(runs_on),
                None => false,
            },
        }
    }
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What the liveness check is asked.
#[derive(Clone, Debug)]
pub struct Options {
    /// How many times each backward branch may be taken (at least 1: the repeated iteration is
    /// the one between the last two takings).
    pub unroll: u32,
    /// Which threads the scheduler guarantees to progress (fair: every one).
    pub progress: Progress,
    /// The budget: when no hang is found but the bound cut a run after an iteration that
    /// changes the state ([`bound`](super::bound)), the search is repeated with the bound raised
    /// by one, up to this bound (the answer is then [`Verdict::Bounded`]); `None`:
    /// [`DEFAULT_RAISE`] above `unroll`. vsyncer's "bound increase" loop asks the same of
    /// Dartagnan: an unroll bound that some execution reaches proves nothing.
    pub max_unroll: Option<u32>,
}

/// How far above `--unroll` the search raises the bound by default.
pub const DEFAULT_RAISE: u32 = 2;

impl Options {
    /// The highest bound the search may raise `unroll` to.
    pub fn budget(&self) -> u32 {
        self.max_unroll
            .unwrap_or(self.unroll.saturating_add(DEFAULT_RAISE))
            .max(self.unroll)
    }
}

impl Default for Options {
    fn default() -> Options {
        Options {
            unroll: crate::axiomatic::Options::default().unroll,
            progress: Progress::Fair,
            max_unroll: None,
        }
    }
}

/// How a thread's run ends in a hanging execution.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fate {
    /// It ran to its end.
    Done,
    /// It repeats one iteration of a loop forever (one that writes nothing, or one whose
    /// writes the next round writes again).
    Spins,
    /// It waits forever at a barrier.
    Blocked,
    /// The progress model let it stop (or never start) here.
    Stopped,
}

impl Fate {
    /// The fate as reports print it (`done`, `spins`, `blocked`, `stopped`).
    pub fn name(self) -> &'static str {
        match self {
            Fate::Done => "done",
            Fate::Spins => "spins",
            Fate::Blocked => "blocked",
            Fate::Stopped => "stopped",
        }
    }
}

/// A thread that never finishes, and why.
#[derive(Clone, Debug, Serialize)]
pub struct Stuck {
    /// The thread.
    pub thread: ThreadId,
    /// How its run ends: [`Fate::Spins`] or [`Fate::Blocked`].
    pub fate: Fate,
    /// Spinning: the backward branch of the loop; blocked: the barrier.
    pub span: Span,
    /// Spinning: the statements of the repeating iteration, in order.
    pub iteration_stmts: Vec<usize>,
    /// Event ids (in [`Hang::execution`]) of the thread before the repeated iteration (all of
    /// its events when it blocks).
    pub prefix: Vec<usize>,
    /// Event ids of the repeated iteration (empty when it blocks).
    pub iteration: Vec<usize>,
}

/// A witness that the program can hang.
#[derive(Clone, Debug, Serialize)]
pub struct Hang {
    /// Each thread's fate, by thread id.
    pub fates: Vec<Fate>,
    /// The threads that never finish.
    pub stuck: Vec<Stuck>,
    /// The consistent execution of the threads' runs.
    pub execution: Execution,
}

/// What the search proved.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// No consistent execution hangs: every run the bound cut was covered
    /// ([`bound`](super::bound)).
    Terminates,
    /// Some consistent execution hangs ([`Liveness::hang`]).
    CanHang,
    /// No hang within the bound, but a run the bound cut may go on to one
    /// ([`Liveness::cut`]), also at the budget's highest bound.
    Bounded,
}

impl Verdict {
    /// The verdict as the reports print it.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Terminates => "terminates",
            Verdict::CanHang => "can hang",
            Verdict::Bounded => "bounded",
        }
    }
}

/// The verdict.
#[derive(Clone, Debug)]
pub struct Liveness {
    /// No consistent execution hangs, proven: `verdict == Verdict::Terminates`.
    pub terminates: bool,
    /// What the search proved.
    pub verdict: Verdict,
    /// [`Verdict::CanHang`]: the hanging execution found.
    pub hang: Option<Hang>,
    /// Bounded: the run the highest bound cut after an iteration that changes the state.
    pub cut: Option<Cut>,
    /// The unroll bound the verdict was reached at (between [`Options::unroll`] and
    /// [`Options::budget`]).
    pub unroll: u32,
}

impl Liveness {
    pub(super) fn new(
        verdict: Verdict,
        hang: Option<Hang>,
        cut: Option<Cut>,
        unroll: u32,
    ) -> Liveness {
        Liveness {
            terminates: verdict == Verdict::Terminates,
            verdict,
            hang,
            cut,
            unroll,
        }
    }
}
