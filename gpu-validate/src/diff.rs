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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::generate;
    use crate::outcome::encode;
    use crate::runner::Counts;
    use scopecheck_model::litmus::parse;

    const MP: &str = "PTX MP\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | ld.acquire.gpu r0, y ;\n st.release.gpu y, 1 | ld.relaxed.gpu r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n";

    fn run(states: &[(&[Value], u64)]) -> RunResult {
        let keys = states.iter().map(|(v, c)| (encode(v), *c)).collect();
        RunResult {
            counts: Counts { keys, lost: 0 },
            instances: 0,
            seconds: 1.0,
            error: None,
        }
    }

    #[test]
    fn a_forbidden_observation_is_a_violation_and_unseen_allowed_states_are_listed() {
        let p = parse(MP, "mp.litmus").unwrap();
        let h = generate(&p).unwrap();
        let sc: BTreeSet<Vec<Value>> = [vec![0, 0], vec![0, 1], vec![1, 1]].into_iter().collect();
        let allowed = Allowed {
            model: "test".into(),
            states: Some(sc),
            bounded: false,
        };
        let d = diff(&p, &h, &allowed, &run(&[(&[0, 0], 10), (&[1, 0], 3)]));
        assert_eq!(d.violations, 3);
        let weak = d.observed.iter().find(|r| r.state["P1:r0"] == 1).unwrap();
        assert_eq!(
            (weak.allowed, weak.condition, weak.count),
            (Some(false), true, 3)
        );
        assert_eq!(
            d.not_seen.len(),
            2,
            "(0,1) and (1,1) were allowed but not seen"
        );
        assert_eq!(d.condition_count(), 3);
    }

    #[test]
    fn observations_the_filter_rejects_are_left_out() {
        // The filter keeps the runs where P1 saw the flag; the model's allowed states (here
        // only the message-passing outcome) are filtered the same way.
        let text = MP.replace(
            "exists (P1:r0 == 1 /\\ P1:r1 == 0)",
            "filter (P1:r0 == 1)\nexists (P1:r1 == 0)",
        );
        let p = parse(&text, "mp-filter.litmus").unwrap();
        let h = generate(&p).unwrap();
        assert_eq!(
            h.observables.len(),
            2,
            "the filter's register is observed too"
        );
        // Values in the observables' order: the condition's P1:r1, then the filter's P1:r0.
        assert_eq!(h.observables[0].name(&p), "P1:r1");
        let state = |r0: Value, r1: Value| vec![r1, r0];
        let allowed = Allowed {
            model: "test".into(),
            states: Some([state(1, 1)].into_iter().collect()),
            bounded: false,
        };
        // (r0, r1) = (0, 0) and (0, 1) fail the filter: not violations, not counted.
        let d = diff(
            &p,
            &h,
            &allowed,
            &run(&[(&state(0, 0), 7), (&state(0, 1), 5), (&state(1, 1), 2)]),
        );
        assert_eq!((d.violations, d.filtered), (0, 12));
        assert_eq!(d.observed.len(), 1);
        assert_eq!(d.condition_count(), 0);
        // An admitted observation the model forbids is still a violation.
        let d = diff(&p, &h, &allowed, &run(&[(&state(1, 0), 3)]));
        assert_eq!((d.violations, d.filtered), (3, 0));
        assert_eq!(d.condition_count(), 3);
    }

    #[test]
    fn a_bounded_enumeration_never_produces_violations() {
        let p = parse(MP, "mp.litmus").unwrap();
        let h = generate(&p).unwrap();
        let allowed = Allowed {
            model: "test".into(),
            states: Some(BTreeSet::new()),
            bounded: true,
        };
        let d = diff(&p, &h, &allowed, &run(&[(&[1, 0], 3)]));
        assert_eq!(d.violations, 0);
        assert_eq!(d.observed[0].allowed, None);
    }
}
