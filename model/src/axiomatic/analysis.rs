//! What an analysis is asked ([`Options`]) and what it answers: the final states with their
//! counts and the verdict ([`Analysis`]), or an error ([`AnalysisError`]).

use super::budget::{Progress, Stop};
use super::condition::condition_holds_on;
use super::state::{FinalMemory, StateCount};
use crate::litmus::{Program, Span};
use std::fmt;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// What an analysis is asked: its unroll bound, what it keeps and reports, and its budget.
#[derive(Clone, Debug)]
pub struct Options {
    /// How many times each backward branch may be taken in one run of a thread.
    pub unroll: u32,
    /// Keep one example execution per final state.
    pub witnesses: bool,
    /// Which locations' final values the final states report.
    pub memory: FinalMemory,
    /// Stop the search after this long: the answer is the states found so far, `bounded`.
    pub timeout: Option<Duration>,
    /// Stop the search after this many consistent executions (as `timeout`).
    pub max_executions: Option<u64>,
    /// Decide the condition only: look only for final states that decide it (for `exists` and
    /// `~exists` those satisfying the proposition, for `forall` those that do not) and stop at
    /// the first one. `holds` is then exact, `states` lists at most the deciding state
    /// found, and executions are not counted.
    pub condition_only: bool,
    /// Called about once a second while the search runs past its first second.
    pub progress: Option<Progress>,
    /// Stop the search once the process's resident memory passes this many bytes (as
    /// `timeout`; where the system does not tell the resident memory, never).
    pub max_memory: Option<u64>,
    /// Stop the search once this flag is set (a signal handler sets it): the answer is the
    /// states found so far, `bounded`, stopped by [`Stop::Interrupted`].
    pub interrupt: Option<Arc<AtomicBool>>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            unroll: 2,
            witnesses: false,
            memory: FinalMemory::Condition,
            timeout: None,
            max_executions: None,
            condition_only: false,
            progress: None,
            max_memory: None,
            interrupt: None,
        }
    }
}

/// The result of an axiomatic analysis of one litmus program under one model: the allowed
/// final states, the condition's verdict, and whether (and why) the search was partial.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Every allowed final state, in order.
    pub states: Vec<StateCount>,
    /// Whether the final condition holds (exists: some state satisfies it; ~exists: none
    /// does; forall: all do).
    pub holds: bool,
    /// The result covers part of the runs only: some run was cut by the unroll bound, or the
    /// search stopped early ([`Analysis::stopped`]).
    pub bounded: bool,
    /// A run cut by the unroll bound, when some valuation makes one possible: its thread and
    /// the backward branch taken once too often. The condition is judged on the runs that
    /// finish (as herd7 does, warning "unrolling limit exceeded ... legal outcomes may be
    /// missing"); with no such run, on none.
    pub cut: Option<(usize, Span)>,
    /// Why the search stopped before going through every candidate: its timeout or its
    /// number of executions (then `states` are those found so far, and `holds` is decided on
    /// them).
    pub stopped: Option<Stop>,
    /// Consistent executions found (all of them except from `analyze_states`).
    pub executions: u64,
    /// How many of them have a data race, for models where a race is undefined behaviour
    /// (Tile IR) or report them (PTX). Not exact, as `executions`, from
    /// `analyze_states`.
    pub racy_executions: u64,
}

impl Analysis {
    /// herd7's verdict word: `Ok` when some allowed state satisfies the proposition.
    pub fn satisfiable(&self, p: &Program) -> bool {
        self.states.iter().any(|s| condition_holds_on(p, &s.state))
    }
}

/// A program the engine cannot analyse, with the place to blame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysisError {
    /// Where in the litmus source the problem is.
    pub span: Span,
    /// What is wrong, one line.
    pub message: String,
}

impl fmt::Display for AnalysisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.span, self.message)
    }
}

impl std::error::Error for AnalysisError {}
