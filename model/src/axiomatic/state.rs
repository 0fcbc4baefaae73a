//! A final state and the locations it reports ([`FinalState`], [`FinalMemory`]), with how many
//! executions reach it ([`StateCount`]).

use super::execution::Execution;
use crate::litmus::{Program, Term, Value};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// Which locations a final state reports the value of. A reported location's final value is
/// that of a write every other write to it precedes in coherence, in a consistent execution;
/// coherence being partial (two writes in a data race may stay unordered), requiring such a
/// write of a location nobody looks at would drop executions for nothing.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum FinalMemory {
    /// The locations the final condition reads (as herd7 reports them).
    #[default]
    Condition,
    /// Every physical location (to compare with engines that report every location: the
    /// operational runtime, the SC reference).
    All,
}

/// Per location (indexed by `LocId`, meaningful for physical ones), whether final states report
/// its value: a location the condition or the filter reads through any of its names, or every
/// one.
pub fn observed_locations(p: &Program, memory: FinalMemory) -> Vec<bool> {
    let mut observed = vec![memory == FinalMemory::All; p.locations.len()];
    for t in p.condition_terms() {
        if let Term::Loc(l) = t {
            observed[p.physical(*l)] = true;
        }
    }
    observed
}

/// Registers (`"P1:r0"`, every register of every thread) and memory (the physical locations
/// `Options::memory` asks for, their coherence-last value) at the end of an execution.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct FinalState {
    /// Every register's final value, by `"P<thread>:<register>"`.
    pub regs: BTreeMap<String, Value>,
    /// The reported locations' final values (coherence-last write), by location name.
    pub mem: BTreeMap<String, Value>,
}

impl FinalState {
    /// The same state with only the locations `memory` reports (to compare a state of an engine
    /// that reports every location with this engine's).
    pub fn reported(mut self, p: &Program, memory: FinalMemory) -> FinalState {
        let observed = observed_locations(p, memory);
        self.mem.retain(|name, _| {
            p.locations
                .iter()
                .position(|l| &l.name == name)
                .is_none_or(|l| observed[p.physical(l)])
        });
        self
    }
}

impl fmt::Display for FinalState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .regs
            .iter()
            .chain(self.mem.iter())
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        f.write_str(&parts.join("; "))
    }
}

/// One allowed final state, how many consistent executions reach it (at least one, not exact,
/// from `analyze_states`), and (on request) one.
#[derive(Clone, Debug)]
pub struct StateCount {
    /// The final state.
    pub state: FinalState,
    /// Consistent executions that reach it (at least 1; a lower bound from
    /// `analyze_states`).
    pub witnesses: u64,
    /// How many of those executions have a data race (as the model defines one; 0 for models
    /// that define none). Not exact, as `witnesses`, from `analyze_states`.
    pub racy: u64,
    /// The model's flags (`flag ... as NAME`) some of those executions raise, in the order of
    /// the model text.
    pub flags: Vec<&'static str>,
    /// With `Options::witnesses`: one consistent execution that reaches the state.
    pub example: Option<Execution>,
}
