//! Budgets of one analysis: a deadline, a number of consistent executions, a memory size and an
//! interrupt flag (set by a signal handler), after any of which the search stops and answers
//! with the states found so far (a *bounded* answer), and a progress report for searches that
//! run past their first second.
//!
//! The search asks [`Budget::go_on`] at every step (each location, reads-from choice and
//! coherence pair); the clock is read once every `CLOCK_EVERY` steps, so asking costs a
//! counter increment.

use std::cell::Cell;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
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
    /// The process's resident memory passed [`super::Options::max_memory`].
    Memory,
    /// [`super::Options::interrupt`] was set (SIGINT, SIGTERM).
    Interrupted,
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stop::Timeout => "timeout",
            Stop::MaxExecutions => "max-executions",
            Stop::Memory => "memory",
            Stop::Interrupted => "interrupted",
        })
    }
}

/// Where a running search stands, as [`Progress`] receives it.
#[derive(Copy, Clone, Debug)]
pub struct Report {
    /// Wall-clock time since the search started.
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

/// The resident memory is read at most this often.
const MEMORY_EVERY: Duration = Duration::from_millis(100);

/// The limits of one analysis (see [`super::Options`]).
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Wall-clock time the analysis may take (`None`: no deadline).
    pub timeout: Option<Duration>,
    /// Consistent executions the analysis may find before it stops.
    pub max_executions: Option<u64>,
    /// Bytes of resident memory (the whole process's).
    pub max_memory: Option<u64>,
    /// Raised from outside (Ctrl-C, a caller giving up) to stop the search at its next step.
    pub interrupt: Option<Arc<AtomicBool>>,
}

/// The process's resident memory in bytes, where the system tells it (Linux:
/// `/proc/self/statm`, its second field in pages; pages taken as 4 KiB).
pub fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// The budget of one analysis, shared by every part of its search.
pub struct Budget {
    deadline: Option<Instant>,
    max_executions: Option<u64>,
    max_memory: Option<u64>,
    next_memory: Cell<Instant>,
    interrupt: Option<Arc<AtomicBool>>,
    progress: Option<Progress>,
    start: Instant,
    next_report: Cell<Instant>,
    steps: Cell<u32>,
    executions: Cell<u64>,
    states: Cell<usize>,
    stopped: Cell<Option<Stop>>,
}

impl Budget {
    /// A budget that starts now with these limits, reporting to `progress` (if any) about once
    /// a second after the first.
    pub fn new(limits: &Limits, progress: Option<Progress>) -> Budget {
        let start = Instant::now();
        Budget {
            // A timeout past the clock's range is no deadline.
            deadline: limits.timeout.and_then(|t| start.checked_add(t)),
            max_executions: limits.max_executions,
            max_memory: limits.max_memory,
            next_memory: Cell::new(start),
            interrupt: limits.interrupt.clone(),
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
        if self
            .interrupt
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
        {
            self.stopped.set(Some(Stop::Interrupted));
            return false;
        }
        let now = Instant::now();
        if self.deadline.is_some_and(|d| now >= d) {
            self.stopped.set(Some(Stop::Timeout));
            return false;
        }
        if let Some(max) = self.max_memory {
            if now >= self.next_memory.get() {
                self.next_memory.set(now + MEMORY_EVERY);
                if resident_bytes().is_some_and(|r| r > max) {
                    self.stopped.set(Some(Stop::Memory));
                    return false;
                }
            }
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
