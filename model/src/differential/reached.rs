//! What the operational runtime reaches on a litmus test, against what a model allows
//! (`scopecheck litmus --runtime`): a reached state the model forbids is an engine disagreement.

use crate::axiomatic::{
    allowed_among, filter_admits, Analysis, FinalMemory, FinalState, Model, Options,
};
use crate::differential::runtime_unmodelled;
use crate::litmus::Program;
use crate::runtime::litmus::{explore_states, Options as RuntimeOptions};
use serde::Serialize;
use std::collections::BTreeSet;
use std::time::Instant;

/// What the operational runtime reaches on a test (`--runtime`).
#[derive(Serialize)]
pub struct RuntimeStates {
    /// The final states reached (the locations the condition reports).
    pub reached: BTreeSet<FinalState>,
    /// Reached, but forbidden by the model: an engine disagreement.
    pub forbidden: Vec<FinalState>,
    /// Every execution explored (not cut by the search budget, a deadlock or the unroll bound).
    pub complete: bool,
    /// Allowed states the runtime does not reach: the runtime never lets a load read a store
    /// that is not yet executed (load buffering), so these are outside what it can verify.
    pub unreached: usize,
    /// Configurations the state-caching search visited.
    pub configurations: u64,
    /// Seconds the runtime's exploration took (part of the test's `Time`).
    pub seconds: f64,
    /// Why the runtime was not compared, if it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

impl RuntimeStates {
    /// `allowed` is the model's analysis; when it lists only some allowed states (stopped by
    /// its budget, or `--condition-only`), the reached states it does not list are decided by
    /// the model one by one ([`allowed_among`], without the budget): a state is called
    /// forbidden only when the model has been asked about it.
    pub fn explore(
        p: &Program,
        model: &Model,
        opts: &Options,
        allowed: &Analysis,
    ) -> RuntimeStates {
        let mut out = RuntimeStates {
            reached: BTreeSet::new(),
            forbidden: Vec::new(),
            complete: false,
            unreached: 0,
            configurations: 0,
            seconds: 0.0,
            skipped: None,
        };
        let partial = allowed_listed_partially(opts, allowed);
        let start = Instant::now();
        if let Some(why) = runtime_unmodelled(p) {
            out.skipped = Some(why.to_string());
            return out;
        }
        let mut o = explore_states(p, &RuntimeOptions::default());
        out.seconds = start.elapsed().as_secs_f64();
        // The runtime reports every location; compare the ones the analysis reports.
        o.states = std::mem::take(&mut o.states)
            .into_iter()
            .map(|s| s.reported(p, FinalMemory::Condition))
            .collect();
        if let Some(e) = o.error {
            out.skipped = Some(e);
            return out;
        }
        let allowed: BTreeSet<&FinalState> = allowed.states.iter().map(|s| &s.state).collect();
        // States the test's `filter` leaves out are not compared, as the model's are not.
        let o_states: BTreeSet<FinalState> = o
            .states
            .into_iter()
            .filter(|s| filter_admits(p, s))
            .collect();
        let mut unlisted: BTreeSet<FinalState> = o_states
            .iter()
            .filter(|s| !allowed.contains(s))
            .cloned()
            .collect();
        if partial && !unlisted.is_empty() {
            let exact = Options {
                condition_only: false,
                timeout: None,
                max_executions: None,
                progress: None,
                ..opts.clone()
            };
            match allowed_among(p, model.clone(), &exact, &unlisted) {
                Ok(also) => unlisted.retain(|s| !also.contains(s)),
                Err(e) => {
                    out.skipped = Some(format!(
                        "the model cannot decide the runtime's states: {}",
                        e.message
                    ));
                    return out;
                }
            }
        }
        out.forbidden = unlisted.into_iter().collect();
        out.unreached = allowed.iter().filter(|s| !o_states.contains(s)).count();
        out.reached = o_states;
        out.complete = o.complete;
        out.configurations = o.configurations;
        out
    }
}

/// Whether the analysis lists only some of the allowed states: its search stopped at a budget,
/// or it was asked to decide the condition only.
pub fn allowed_listed_partially(opts: &Options, a: &Analysis) -> bool {
    opts.condition_only || a.stopped.is_some()
}
