//! Bug reproductions: every bug the seed documents show, as a kernel model with its expected
//! verdict, each next to its fixed version. `scopecheck check corpus/` runs them (compiled into
//! the CLI through `#[path]`), and `cargo test` runs them under every engine (tests/corpus.rs).
//!
//! A case builds its kernel and body afresh for each engine, so nothing is shared between runs.

use scopecheck_model::kernel::{Checker, FailureKind, Kernel, Report, ThreadCtx, TileCtx, Verdict};
use std::sync::Arc;

mod async_proxy;
mod cuda_shared_memory;
mod cutile_guide;
mod hopper;
mod kernel_api;
mod liveness;
pub mod mbarrier;
mod st_async;
mod tile_ir;
mod warp_intrinsics;
mod warp_semantics;

/// A kernel body: one closure per thread, or per tile block.
pub enum Body {
    Threads(Arc<dyn Fn(&ThreadCtx) + Send + Sync>),
    Tiles(Arc<dyn Fn(&TileCtx) + Send + Sync>),
}

/// What a case must show.
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    Verdict(Verdict),
    /// Passes, and the worst shared-memory bank conflict has exactly this degree.
    BankConflict(usize),
    /// Fails with one of these kinds: a bug with several symptoms, each reached by some
    /// interleaving (which one an engine meets first depends on its search order).
    FailsWith(&'static [FailureKind]),
}

pub struct BugCase {
    /// `file/name`, unique across the corpus.
    pub name: &'static str,
    /// The seed document (under `shared/seeds/`) or the specification section the case comes
    /// from.
    pub source: &'static str,
    /// One or two sentences: what the kernel does and why it deserves its verdict.
    pub about: &'static str,
    pub expect: Expect,
    pub explore: Explore,
    pub build: fn() -> (Kernel, Body),
}

/// How `scopecheck check` explores a case.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Explore {
    /// Every execution, with our DFS engine.
    Exhaustive,
    /// Every execution with our DFS engine, like `Exhaustive`, but checked under the shuttle
    /// engines only besides it, not loom: loom is sound on these kernels (its scheduling points
    /// touch one atomic per mbarrier and per block, so its partial order reduction treats
    /// operations on different ones as independent, as the DFS does) and finishes, but its
    /// reduction is coarser than the DFS's: on the passing Hopper kernels with cluster barriers
    /// and mbarrier waits it runs 23,000 to 380,000 executions (12 s to 225 s) where the DFS
    /// needs milliseconds, too slow for every test run.
    Dfs,
    /// Too many threads to enumerate: this many PCT-scheduled executions (a bounded result).
    Sampled { iterations: usize },
}

impl BugCase {
    /// Explore the case with one checker.
    pub fn run(&self, checker: &Checker) -> Report {
        let (kernel, body) = (self.build)();
        match body {
            Body::Threads(b) => checker.check(&kernel, move |t| b(t)),
            Body::Tiles(b) => checker.check_tiles(&kernel, move |t| b(t)),
        }
    }

    /// The checker that explores the case the way it asks to be explored.
    pub fn default_checker(&self) -> Checker {
        match self.explore {
            Explore::Exhaustive | Explore::Dfs => Checker::dfs(),
            Explore::Sampled { iterations } => Checker::pct(iterations, 3, 1),
        }
    }

    /// Explore the case under every engine that fits it (loom only up to 4 threads; the DFS
    /// only for cases small enough to enumerate).
    #[allow(dead_code)] // the tests use it; `scopecheck check` times each engine on its own
    pub fn run_every_engine(&self) -> Vec<Report> {
        self.every_engine().iter().map(|c| self.run(c)).collect()
    }

    /// The checkers [`BugCase::run_every_engine`] runs, in its order.
    pub fn every_engine(&self) -> Vec<Checker> {
        match self.explore {
            Explore::Exhaustive => Checker::every_engine(&(self.build)().0),
            Explore::Dfs => vec![
                Checker::random(300, 1),
                Checker::pct(300, 3, 2),
                Checker::dfs(),
            ],
            Explore::Sampled { iterations } => vec![
                Checker::random(iterations, 1),
                Checker::pct(iterations, 3, 2),
            ],
        }
    }

    /// Does a report show what the case expects?
    pub fn agrees(&self, report: &Report) -> bool {
        match &self.expect {
            Expect::Verdict(v) => report.verdict() == *v,
            Expect::BankConflict(degree) => {
                report.passed() && report.worst_bank_conflict() == *degree
            }
            Expect::FailsWith(kinds) => {
                matches!(report.verdict(), Verdict::Fail(k) if kinds.contains(&k))
            }
        }
    }

    /// The expectation in words, for tables.
    pub fn expected_words(&self) -> String {
        match &self.expect {
            Expect::Verdict(v) => verdict_words(v),
            Expect::BankConflict(d) => bank_conflict_words(*d),
            Expect::FailsWith(kinds) => {
                let words: Vec<String> = kinds.iter().map(|k| k.to_string()).collect();
                format!("fail: {}", words.join(" or "))
            }
        }
    }

    /// What a report shows, in the words of [`BugCase::expected_words`].
    pub fn got_words(&self, report: &Report) -> String {
        match (&self.expect, report.verdict()) {
            (Expect::BankConflict(_), Verdict::Pass) => {
                bank_conflict_words(report.worst_bank_conflict())
            }
            (_, v) => verdict_words(&v),
        }
    }
}

fn bank_conflict_words(degree: usize) -> String {
    if degree <= 1 {
        "pass, no bank conflict".into()
    } else {
        format!("pass, {degree}-way bank conflict")
    }
}

/// A verdict in words, for tables.
pub fn verdict_words(v: &Verdict) -> String {
    match v {
        Verdict::Pass => "pass".into(),
        Verdict::Fail(kind) => format!("fail: {kind}"),
        Verdict::Error(e) => format!("error: {e}"),
    }
}

/// Every case of the corpus.
pub fn all() -> Vec<BugCase> {
    [
        cutile_guide::cases(),
        cuda_shared_memory::cases(),
        mbarrier::cases(),
        tile_ir::cases(),
        kernel_api::cases(),
        liveness::cases(),
        hopper::cases(),
        warp_semantics::cases(),
        warp_intrinsics::cases(),
        async_proxy::cases(),
        st_async::cases(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Shorthand for thread-level bodies.
fn threads(body: impl Fn(&ThreadCtx) + Send + Sync + 'static) -> Body {
    Body::Threads(Arc::new(body))
}

/// Shorthand for tile-level bodies.
fn tiles(body: impl Fn(&TileCtx) + Send + Sync + 'static) -> Body {
    Body::Tiles(Arc::new(body))
}
