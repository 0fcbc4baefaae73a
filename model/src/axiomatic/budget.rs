//! Budgets of one analysis: a deadline and a number of consistent executions, after either of
//! which the search stops and answers with the states found so far (a *bounded* answer), and a
//! progress report for searches that run past their first second.
//!
//! The search asks [`Budget::go_on`] at every step (each location, reads-from choice and
//! coherence pair); the clock is read once every [`CLOCK_EVERY`] steps, so asking costs a
//! counter increment.

use std::cell::Cell;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Why a search stopped before it went through every candidate execution.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stop {
    /// [`super::Options::timeout`] passed.
    Timeout,
    /// [`super::Options::max_executions`] consistent executions were found.
    MaxExecutions,
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stop::Timeout => "timeout",
            Stop::MaxExecutions => "max-executions",
        })
    }
}

/// Where a running search stands, as [`Progress`] receives it.
#[derive(Copy, Clone, Debug)]
pub struct Report {
    pub elapsed: Duration,
    /// Consistent executions found so far.
    pub executions: u64,
    /// Distinct final states found so far.
    pub states: usize,
}

/// Receives a [`Report`] about once a second while a search runs past its first second.
#[derive(Clone)]
pub struct Progress(pub Arc<dyn Fn(&Report) + Send + Sync>);

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Progress(..)")
    }
}

/// The clock is read at the first step, then once every this many steps.
const CLOCK_EVERY: u32 = 1 << 10;

/// The budget of one analysis, shared by every part of its search.
pub struct Budget {
    deadline: Option<Instant>,
    max_executions: Option<u64>,
    progress: Option<Progress>,
    start: Instant,
    next_report: Cell<Instant>,
    steps: Cell<u32>,
    executions: Cell<u64>,
    states: Cell<usize>,
    stopped: Cell<Option<Stop>>,
}

impl Budget {
    pub fn new(
        timeout: Option<Duration>,
        max_executions: Option<u64>,
        progress: Option<Progress>,
    ) -> Budget {
        let start = Instant::now();
        Budget {
            deadline: timeout.map(|t| start + t),
            max_executions,
            progress,
            start,
            next_report: Cell::new(start + Duration::from_secs(1)),
            steps: Cell::new(0),
            executions: Cell::new(0),
            states: Cell::new(0),
            stopped: Cell::new(None),
        }
    }

    /// Whether the search may take another step.
    pub fn go_on(&self) -> bool {
        if self.stopped.get().is_some() {
            return false;
        }
        let steps = self.steps.get().wrapping_add(1);
        self.steps.set(steps);
        if steps % CLOCK_EVERY != 1 {
            return true;
        }
        let now = Instant::now();
        if self.deadline.is_some_and(|d| now >= d) {
            self.stopped.set(Some(Stop::Timeout));
            return false;
        }
        if let Some(progress) = &self.progress {
            if now >= self.next_report.get() {
                self.next_report.set(now + Duration::from_secs(1));
                (progress.0)(&Report {
                    elapsed: now - self.start,
                    executions: self.executions.get(),
                    states: self.states.get(),
                });
            }
        }
        true
    }

    /// One more consistent execution found.
    pub fn execution(&self) {
        let n = self.executions.get() + 1;
        self.executions.set(n);
        if self.max_executions.is_some_and(|max| n >= max) {
            self.stopped.set(Some(Stop::MaxExecutions));
        }
    }

    /// How many distinct final states are found (for progress reports).
    pub fn set_states(&self, states: usize) {
        self.states.set(states);
    }

    /// Why the search stopped early, if it did.
    pub fn stopped(&self) -> Option<Stop> {
        self.stopped.get()
    }
}
