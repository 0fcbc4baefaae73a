//! What the generated-kernel proofs share (`async_reduction`, `async_group_reduction`,
//! `spin_polling`, `barrier_reduction`): a deterministic generator, and the outcome of one search with the final
//! states its kernel recorded.

use scopecheck_model::engine::Dfs;
use scopecheck_model::kernel::{Checker, Kernel, Report, ThreadCtx};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

/// A deterministic generator (SplitMix64).
pub struct Gen(pub u64);

impl Gen {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub fn flip(&mut self) -> bool {
        self.below(2) == 1
    }
}

/// Where a kernel records its final state, once per execution.
pub type Sink = Arc<Mutex<BTreeSet<Vec<i32>>>>;

/// One search's outcome: the final states recorded, the failure kinds, how many executions it
/// took (the infeasible ones included) and whether it finished.
pub struct Found {
    pub states: BTreeSet<Vec<i32>>,
    pub failures: BTreeSet<String>,
    pub executions: u64,
    pub complete: bool,
}

impl Found {
    /// The outcome of a search that reported `report`, with the states `sink` collected (taken
    /// out of it). The search must have run without an error.
    pub fn of(report: &Report, sink: &Sink) -> Found {
        assert!(report.error.is_none(), "{report}");
        Found {
            states: std::mem::take(&mut *sink.lock().unwrap()),
            failures: report
                .failures
                .iter()
                .map(|f| format!("{:?}", f.kind))
                .collect(),
            executions: report.executions + report.infeasible,
            complete: report.complete,
        }
    }
}

/// A generated kernel's thread body.
pub type BodyFn = Arc<dyn Fn(&ThreadCtx) + Send + Sync>;

/// The DFS (`reduction` on or off, at most `budget` executions, every failure) on kernel `k`
/// running `body`, whose postcondition records final states into `sink`.
pub fn dfs_found(k: &Kernel, body: BodyFn, sink: &Sink, reduction: bool, budget: u64) -> Found {
    let report = Checker::new(Dfs {
        max_executions: budget,
        reduction,
    })
    .all_failures()
    .check(k, move |t| body(t));
    Found::of(&report, sink)
}

/// The reduced search `por` found what the finished unreduced one did: it finished too, with
/// the same final states and failures, in no more executions. `what` names the program.
pub fn assert_same_outcomes(what: &str, por: &Found, unreduced: &Found) {
    assert!(por.complete, "{what}");
    assert_eq!(por.states, unreduced.states, "{what}: final states differ");
    assert_eq!(por.failures, unreduced.failures, "{what}: failures differ");
    assert!(
        por.executions <= unreduced.executions,
        "{what}: the reduction explored more ({} > {})",
        por.executions,
        unreduced.executions
    );
}
