//! Observed final states against the states the model allows.
//!
//! Both sides are projected onto the harness's observables (the condition's registers and
//! locations). An observed state outside the allowed set is a *violation*: the hardware did
//! something the model forbids. Allowed states never observed are listed as *not seen*: weak
//! behaviours this run did not provoke (no evidence either way).
//!
//! A test's `filter` (herd's: executions whose final state fails it are left out before the
//! condition is looked at) applies to observations as it does to the model's states: an observed
//! state the filter rejects is neither judged nor counted for the condition, only counted as
//! *filtered*.

use crate::codegen::{Harness, Observable};
use crate::outcome::{self, Outcome};
use crate::runner::RunResult;
use scopecheck_model::litmus::{Program, Quantifier, Value};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// What the model allows, projected onto the observables.
#[derive(Clone, Debug)]
pub struct Allowed {
    pub model: String,
    /// `None` when no model was asked for (`--model none`): observations are listed unjudged.
    pub states: Option<BTreeSet<Vec<Value>>>,
    /// The model's enumeration was cut short by a bound (loops unrolled only so far).
    pub bounded: bool,
}

/// One row of the comparison.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    pub state: BTreeMap<String, Value>,
    pub count: u64,
    /// `None` when no model judged the run, or the model's enumeration was bounded and does
    /// not contain the state.
    pub allowed: Option<bool>,
    /// Does the condition's proposition hold in this state?
    pub condition: bool,
}

/// One test's comparison.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TestDiff {
    pub model: String,
    pub bounded: bool,
    /// Observed states, most frequent first.
    pub observed: Vec<Row>,
    /// Allowed states that never showed up.
    pub not_seen: Vec<Row>,
    /// Instances whose state the model forbids.
    pub violations: u64,
    /// Instances cut short by the step limit, with a value too wide to classify, or lost for
    /// want of table room.
    pub timeouts: u64,
    pub wide: u64,
    pub lost: u64,
    /// Instances whose spinning reader never saw the value it waited for (no final state).
    #[serde(default)]
    pub spin_misses: u64,
    /// Instances whose final state the test's `filter` rejects (left out, as herd does).
    #[serde(default)]
    pub filtered: u64,
    pub unknown_keys: Vec<u64>,
}

impl TestDiff {
    /// Instances in a target state of the condition ([`is_target`]): the weak outcome a test
    /// asks about.
    pub fn target_count(&self, program: &Program, observables: &[Observable]) -> u64 {
        self.observed
            .iter()
            .filter(|r| {
                let values: Vec<Value> = observables
                    .iter()
                    .map(|o| r.state[&o.name(program)])
                    .collect();
                is_target(program, observables, &values)
            })
            .map(|r| r.count)
            .sum()
    }

    /// Instances whose state satisfies the condition.
    pub fn condition_count(&self) -> u64 {
        self.observed
            .iter()
            .filter(|r| r.condition)
            .map(|r| r.count)
            .sum()
    }
}

/// Is `values` the condition's *interesting* outcome: the states `exists`/`~exists` ask about, or
/// those that break a `forall`?
pub fn is_target(program: &Program, observables: &[Observable], values: &[Value]) -> bool {
    let holds = outcome::satisfies(program, observables, values, &program.condition.prop);
    match program.condition.quantifier {
        Quantifier::Exists | Quantifier::NotExists => holds,
        Quantifier::Forall => !holds,
    }
}

pub fn diff(program: &Program, harness: &Harness, allowed: &Allowed, run: &RunResult) -> TestDiff {
    let obs = &harness.observables;
    let row = |values: &[Value], count: u64| Row {
        state: outcome::named(program, obs, values),
        count,
        // A bounded enumeration may miss states that need more loop iterations than it unrolled:
        // a state outside it is unjudged, never a violation.
        allowed: match &allowed.states {
            Some(s) if s.contains(values) => Some(true),
            Some(_) if !allowed.bounded => Some(false),
            _ => None,
        },
        condition: outcome::satisfies(program, obs, values, &program.condition.prop),
    };
    let mut d = TestDiff {
        model: allowed.model.clone(),
        bounded: allowed.bounded,
        observed: vec![],
        not_seen: vec![],
        violations: 0,
        timeouts: 0,
        wide: 0,
        lost: run.counts.lost,
        spin_misses: 0,
        filtered: 0,
        unknown_keys: vec![],
    };
    let mut seen: BTreeSet<Vec<Value>> = BTreeSet::new();
    for (&key, &count) in &run.counts.keys {
        match outcome::decode(key, obs.len()) {
            Outcome::State(values)
                if program
                    .filter
                    .as_ref()
                    .is_some_and(|f| !outcome::satisfies(program, obs, &values, f)) =>
            {
                d.filtered += count;
            }
            Outcome::State(values) => {
                let r = row(&values, count);
                if r.allowed == Some(false) {
                    d.violations += count;
                }
                d.observed.push(r);
                seen.insert(values);
            }
            Outcome::Timeout => d.timeouts += count,
            Outcome::Wide => d.wide += count,
            Outcome::SpinMiss => d.spin_misses += count,
            Outcome::Unknown(k) => d.unknown_keys.push(k),
        }
    }
    d.observed
        .sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.state.cmp(&b.state)));
    d.not_seen = allowed
        .states
        .iter()
        .flatten()
        .filter(|s| !seen.contains(*s))
        .map(|s| row(s, 0))
        .collect();
    d
}
