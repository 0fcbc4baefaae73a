//! Exploring a kernel with an engine and reporting what was found.

use super::model::{Final, Kernel};
use super::setup::setup_of;
use super::thread::ThreadCtx;
use super::tile::TileCtx;
use crate::engine::{self, Engine, Flow};
use crate::runtime::bank::{self, BankConflict};
use crate::runtime::report::{FailureKind, Token};
use crate::runtime::{explore, Body, Ctx, FailureReport, Machine};
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Explores kernels with one engine.
///
/// By default a check stops at the first failure it finds, as loom and shuttle do (both stop at
/// the first failing execution): its report gives that failure, says the search stopped there
/// ([`Report::stopped_at_failure`]) and that other failures may exist, and its result is not
/// *complete*. A harness that wants every distinct failure asks for it with
/// [`Checker::all_failures`] (`--all-failures` on the command line). The one exception is a
/// *possible hang* (a thread past the step bound, a bounded finding): the search goes on past it
/// for `AFTER_POSSIBLE_HANG` executions, so that it does not hide a definite failure.
///
/// ```
/// use scopecheck_model::kernel::*;
/// // Two threads of one block store to one shared word without ordering: a data race, found by
/// // the exhaustive DFS and by shuttle's random scheduler (50 executions from seed 7).
/// let mut k = Kernel::new("race", Grid::new(1, 2));
/// let x = k.shared::<u32>("x", 1);
/// for checker in [Checker::dfs(), Checker::random(50, 7)] {
///     let report = checker.check(&k, move |t| t.store(&x, 0, t.tid()));
///     assert_eq!(report.verdict(), Verdict::Fail(FailureKind::DataRace), "{report}");
/// }
/// ```
pub struct Checker {
    engine: Box<dyn Engine>,
    options: Options,
}

/// How a [`Checker`] explores and reports (set with its builder methods).
#[derive(Copy, Clone, Debug, Default)]
struct Options {
    all_failures: bool,
    trace_limit: Option<usize>,
    bank_report: bool,
    timeout: Option<Duration>,
}

/// The outcome of a check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No failure in any explored execution (see [`Report::complete`] for whether that is all).
    Pass,
    /// Some execution failed this way (the first failure found).
    Fail(FailureKind),
    /// The exploration itself could not run (too many threads for loom, bad token, …).
    Error(String),
}

/// What a check found.
#[derive(Clone, Debug)]
pub struct Report {
    /// The kernel's name.
    pub kernel: String,
    /// The engine and its settings (`dfs`, `shuttle-random(seed=…, iterations=…)`, …).
    pub engine: String,
    /// Feasible executions explored.
    pub executions: u64,
    /// Executions discarded: loom chose a store our model forbids, or a failed spin-loop
    /// iteration that another execution covers (a repeat, or, under the DFS, any iteration the
    /// spinner did not stay blocked in).
    pub infeasible: u64,
    /// Every execution the engine can reach was explored (exhaustive engines, no bound hit).
    pub complete: bool,
    /// The first failure found, with its trace and replay token.
    pub failure: Option<FailureReport>,
    /// Every distinct failure found (kind and headline), one trace each, in the order found:
    /// only the first unless the checker was built with [`Checker::all_failures`] (or the
    /// first was a possible hang, after which the search goes on: `AFTER_POSSIBLE_HANG`).
    pub failures: Vec<FailureReport>,
    /// Worst bank conflict per shared-memory access site.
    pub bank_conflicts: Vec<BankConflict>,
    /// Print the bank report ([`Checker::bank_report`]).
    pub show_bank_report: bool,
    /// The search stopped at its first failure ([`Report::failure`]) without
    /// [`Checker::all_failures`]: executions were left unexplored, and they may hold other
    /// failures. The report says so when printed.
    pub stopped_at_failure: bool,
    /// Why the exploration could not run, if it could not.
    pub error: Option<String>,
    /// Wall-clock time of the exploration.
    pub wall: Duration,
}

impl Report {
    /// Pass, the failure's kind, or the error.
    pub fn verdict(&self) -> Verdict {
        match (&self.error, &self.failure) {
            (_, Some(f)) => Verdict::Fail(f.kind),
            (Some(e), None) => Verdict::Error(e.clone()),
            (None, None) => Verdict::Pass,
        }
    }

    /// No failure and no error (see [`Report::complete`] for whether that covers everything).
    pub fn passed(&self) -> bool {
        self.verdict() == Verdict::Pass
    }

    /// The worst bank-conflict degree at any site (1 = conflict-free, 0 = no shared accesses).
    pub fn worst_bank_conflict(&self) -> usize {
        self.bank_conflicts
            .iter()
            .map(|c| c.degree)
            .max()
            .unwrap_or(0)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let extent = if self.complete { "all" } else { "bounded:" };
        write!(
            f,
            "kernel `{}` under {}: {extent} {} executions",
            self.kernel, self.engine, self.executions
        )?;
        if self.infeasible > 0 {
            write!(
                f,
                " (+{} discarded: infeasible, or covered failed spin iterations)",
                self.infeasible
            )?;
        }
        let secs = self.wall.as_secs_f64();
        write!(f, " in {secs:.3} s")?;
        if secs > 0.0 {
            write!(f, " ({:.0} executions/s)", self.executions as f64 / secs)?;
        }
        writeln!(f)?;
        if let Some(e) = &self.error {
            writeln!(f, "ERROR: {e}")?;
        }
        if self.failures.len() > 1 {
            writeln!(f, "{} distinct failures:", self.failures.len())?;
            for failure in &self.failures {
                writeln!(f, "{failure}")?;
            }
        }
        match &self.failure {
            Some(_) if self.failures.len() > 1 => {}
            Some(failure) => writeln!(f, "{failure}")?,
            None if self.error.is_none() => {
                let how = if self.complete {
                    // The runtime's modification order is execution order: a load never
                    // reads a store its thread's program order has not reached elsewhere
                    // (load buffering), which PTX allows. Say what the verdict covers.
                    "verified for every execution without load buffering"
                } else {
                    "no failure found (bounded)"
                };
                writeln!(f, "PASS: {how}")?;
            }
            None => {}
        }
        if self.stopped_at_failure {
            writeln!(
                f,
                "the search stopped at its first failure: other failures may exist (explore \
                 past it with `Checker::all_failures()`, `--all-failures` on the command line)"
            )?;
        }
        if self.show_bank_report && !self.bank_conflicts.is_empty() {
            writeln!(f, "shared-memory bank report:")?;
            for c in &self.bank_conflicts {
                writeln!(f, "  {c}")?;
            }
        }
        Ok(())
    }
}

/// The verdict every report agrees on, or a description of the disagreement.
pub fn common_verdict(reports: &[Report]) -> Result<Verdict, String> {
    let first = reports.first().ok_or("no reports")?.verdict();
    for r in reports {
        if r.verdict() != first {
            let all: Vec<String> = reports
                .iter()
                .map(|r| format!("{}: {:?}", r.engine, r.verdict()))
                .collect();
            return Err(format!("engines disagree: {}", all.join("; ")));
        }
    }
    Ok(first)
}

#[derive(Default)]
struct Acc {
    executions: u64,
    /// The exploration stopped at the checker's timeout.
    timed_out: bool,
    /// The execution count at the first possible hang (see `AFTER_POSSIBLE_HANG`).
    possible_hang_at: Option<u64>,
    /// The search stopped because of a failure (not a budget or the timeout).
    stopped_at_failure: bool,
    failures: Vec<FailureReport>,
    bank: Vec<BankConflict>,
}

impl Checker {
    /// A checker on any [`Engine`].
    pub fn new(engine: impl Engine + 'static) -> Checker {
        Checker {
            engine: Box::new(engine),
            options: Options::default(),
        }
    }

    /// Our exhaustive DFS over schedules and store choices (at most 1,000,000 executions; see
    /// [`Checker::dfs_budget`]).
    pub fn dfs() -> Checker {
        Checker::new(engine::Dfs::default())
    }

    /// Our DFS, stopping after `max_executions` executions: a report that hit the budget says
    /// "bounded" ([`Report::complete`] is false).
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("counter", Grid::new(1, 3));
    /// let n = k.global::<u32>("n", 1);
    /// let report = Checker::dfs_budget(2).check(&k, move |t| {
    ///     t.atomic_add(&n, 0, 1, MemoryOrder::Relaxed, MemoryScope::Block);
    /// });
    /// assert!(report.passed() && !report.complete, "{report}");
    /// ```
    pub fn dfs_budget(max_executions: u64) -> Checker {
        Checker::new(engine::Dfs {
            max_executions,
            ..engine::Dfs::default()
        })
    }

    /// Keep exploring after a failure and report every distinct failure (by kind and headline),
    /// one trace each, instead of stopping at the first.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("two bugs", Grid::new(1, 2));
    /// let x = k.global::<i32>("x", 1);
    /// let report = Checker::dfs().all_failures().check(&k, move |t| {
    ///     if t.tid() == 0 {
    ///         t.atomic_store(&x, 0, 1, MemoryOrder::Relaxed, MemoryScope::Block);
    ///     } else {
    ///         let v = t.atomic_load(&x, 0, MemoryOrder::Relaxed, MemoryScope::Block);
    ///         scopecheck_model::check!(v == 0 || v == 2, "saw {v}");
    ///         scopecheck_model::check!(v == 1 || v == 2, "missed the store");
    ///     }
    /// });
    /// assert_eq!(report.failures.len(), 2, "{report}");
    /// assert!(!report.stopped_at_failure, "{report}");
    /// ```
    ///
    /// A default run finds one of the two, and its report says it stopped there:
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("two bugs", Grid::new(1, 2));
    /// let x = k.global::<i32>("x", 1);
    /// let report = Checker::dfs().check(&k, move |t| {
    ///     if t.tid() == 0 {
    ///         t.atomic_store(&x, 0, 1, MemoryOrder::Relaxed, MemoryScope::Block);
    ///     } else {
    ///         let v = t.atomic_load(&x, 0, MemoryOrder::Relaxed, MemoryScope::Block);
    ///         scopecheck_model::check!(v == 0 || v == 2, "saw {v}");
    ///         scopecheck_model::check!(v == 1 || v == 2, "missed the store");
    ///     }
    /// });
    /// assert_eq!(report.failures.len(), 1);
    /// assert!(report.stopped_at_failure && !report.complete);
    /// assert!(report.to_string().contains("other failures may exist"), "{report}");
    /// ```
    pub fn all_failures(mut self) -> Checker {
        self.options.all_failures = true;
        self
    }

    /// Print at most `lines` lines of each failure's trace, folding the middle (by default
    /// the whole trace is printed).
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("race", Grid::new(1, 2));
    /// let x = k.global::<i32>("x", 1);
    /// let report = Checker::dfs().trace_limit(0).check(&k, move |t| t.store(&x, 0, 1));
    /// assert!(report.to_string().contains("operations folded"), "{report}");
    /// ```
    pub fn trace_limit(mut self, lines: usize) -> Checker {
        self.options.trace_limit = Some(lines);
        self
    }

    /// Print the shared-memory bank report (worst conflict per access site). The conflicts are
    /// always in [`Report::bank_conflicts`]; this only makes the report print them.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// let mut k = Kernel::new("banks", Grid::new(1, 2));
    /// let s = k.shared::<i32>("s", 64);
    /// let report = Checker::dfs().bank_report().check(&k, move |t| {
    ///     let _ = t.load(&s, t.tid() as usize * 32);
    /// });
    /// assert!(report.to_string().contains("bank report"), "{report}");
    /// ```
    pub fn bank_report(mut self) -> Checker {
        self.options.bank_report = true;
        self
    }

    /// Stop exploring once `limit` of wall-clock time has passed (checked after each
    /// execution): a report cut short by it is *bounded* ([`Report::complete`] is false), like
    /// one that hit an execution budget.
    ///
    /// ```
    /// use scopecheck_model::kernel::*;
    /// use std::time::Duration;
    /// let mut k = Kernel::new("counter", Grid::new(1, 3));
    /// let n = k.global::<u32>("n", 1);
    /// let report = Checker::dfs().timeout(Duration::ZERO).check(&k, move |t| {
    ///     t.atomic_add(&n, 0, 1, MemoryOrder::Relaxed, MemoryScope::Block);
    /// });
    /// assert!(report.passed() && !report.complete && report.executions == 1, "{report}");
    /// ```
    pub fn timeout(mut self, limit: Duration) -> Checker {
        self.options.timeout = Some(limit);
        self
    }

    /// Loom's exhaustive exploration (at most 4 GPU threads; the `loom` feature, on by default).
    #[cfg(feature = "loom")]
    pub fn loom() -> Checker {
        Checker::new(engine::Loom::default())
    }

    /// Shuttle's random scheduler.
    pub fn random(iterations: usize, seed: u64) -> Checker {
        Checker::new(engine::Random { iterations, seed })
    }

    /// Shuttle's PCT scheduler.
    pub fn pct(iterations: usize, depth: usize, seed: u64) -> Checker {
        Checker::new(engine::Pct {
            iterations,
            depth,
            seed,
        })
    }

    /// The uniform random walk over our decisions ([`engine::Urw`]).
    pub fn urw(iterations: usize, seed: u64) -> Checker {
        Checker::new(engine::Urw { iterations, seed })
    }

    /// The engine a command line names: `dfs`, `loom`, `random`, `pct` or `urw` (the sampling
    /// engines run `iterations` executions; PCT with depth 3). `None` for any other name.
    pub fn by_name(name: &str, iterations: usize) -> Option<Checker> {
        Some(match name {
            "dfs" => Checker::dfs(),
            #[cfg(feature = "loom")]
            "loom" => Checker::loom(),
            "random" => Checker::random(iterations, 1),
            "pct" => Checker::pct(iterations, 3, 1),
            "urw" => Checker::urw(iterations, 1),
            _ => return None,
        })
    }

    /// Every engine that fits the kernel: loom (if it has at most 4 threads), shuttle random and
    /// PCT, and our DFS.
    #[cfg_attr(not(feature = "loom"), allow(unused_variables))]
    pub fn every_engine(kernel: &Kernel) -> Vec<Checker> {
        let mut all = Vec::new();
        #[cfg(feature = "loom")]
        if kernel.model_threads() < loom::MAX_THREADS {
            all.push(Checker::loom());
        }
        all.push(Checker::random(300, 1));
        all.push(Checker::pct(300, 3, 2));
        all.push(Checker::dfs());
        all
    }

    /// Check `body` under [`Checker::every_engine`]; one report per engine.
    pub fn check_all(
        kernel: &Kernel,
        body: impl Fn(&ThreadCtx) + Send + Sync + 'static,
    ) -> Vec<Report> {
        let body = Arc::new(body);
        Checker::every_engine(kernel)
            .iter()
            .map(|c| {
                let b = Arc::clone(&body);
                c.check(kernel, move |t| b(t))
            })
            .collect()
    }

    /// [`Checker::check_all`] for tile kernels.
    pub fn check_all_tiles(
        kernel: &Kernel,
        body: impl Fn(&TileCtx) + Send + Sync + 'static,
    ) -> Vec<Report> {
        let body = Arc::new(body);
        Checker::every_engine(kernel)
            .iter()
            .map(|c| {
                let b = Arc::clone(&body);
                c.check_tiles(kernel, move |t| b(t))
            })
            .collect()
    }

    /// The engine it explores with.
    pub fn engine(&self) -> &dyn Engine {
        &*self.engine
    }

    /// Explore a thread-level kernel.
    pub fn check(
        &self,
        kernel: &Kernel,
        body: impl Fn(&ThreadCtx) + Send + Sync + 'static,
    ) -> Report {
        let grid = kernel.grid;
        let body: Body = Arc::new(move |rt: &Ctx| body(&ThreadCtx { rt, grid }));
        self.run(kernel, false, body)
    }

    /// Explore a tile kernel (one logical thread per block).
    pub fn check_tiles(
        &self,
        kernel: &Kernel,
        body: impl Fn(&TileCtx) + Send + Sync + 'static,
    ) -> Report {
        let grid = kernel.grid;
        let body: Body = Arc::new(move |rt: &Ctx| {
            body(&TileCtx {
                t: ThreadCtx { rt, grid },
            })
        });
        self.run(kernel, true, body)
    }

    /// Re-run exactly the execution `token` describes (from any engine's failure report).
    pub fn replay(
        token: &str,
        kernel: &Kernel,
        body: impl Fn(&ThreadCtx) + Send + Sync + 'static,
    ) -> Report {
        match Checker::replayer(token, kernel, false) {
            Ok(c) => c.check(kernel, body),
            Err(r) => *r,
        }
    }

    /// [`Checker::replay`] for tile kernels.
    pub fn replay_tiles(
        token: &str,
        kernel: &Kernel,
        body: impl Fn(&TileCtx) + Send + Sync + 'static,
    ) -> Report {
        match Checker::replayer(token, kernel, true) {
            Ok(c) => c.check_tiles(kernel, body),
            Err(r) => *r,
        }
    }

    fn replayer(token: &str, kernel: &Kernel, tiles: bool) -> Result<Checker, Box<Report>> {
        let error = |e: String| {
            Box::new(Report {
                kernel: kernel.name.clone(),
                engine: "replay".into(),
                executions: 0,
                infeasible: 0,
                complete: false,
                failure: None,
                failures: vec![],
                bank_conflicts: vec![],
                show_bank_report: false,
                stopped_at_failure: false,
                error: Some(e),
                wall: Duration::ZERO,
            })
        };
        let token: Token = token.parse().map_err(error)?;
        let fingerprint = setup_of(kernel, tiles).fingerprint();
        if token.fingerprint != fingerprint {
            return Err(error(format!(
                "replay token belongs to another kernel (fingerprint {:08x}, this kernel is {fingerprint:08x})",
                token.fingerprint
            )));
        }
        Ok(Checker::new(engine::Replay { token }))
    }

    fn run(&self, kernel: &Kernel, tiles: bool, body: Body) -> Report {
        let start = Instant::now();
        let options = self.options;
        let setup = Arc::new(setup_of(kernel, tiles));
        let posts: Vec<_> = kernel
            .posts
            .iter()
            .map(|p| (p.what.clone(), p.site, Arc::clone(&p.check)))
            .collect();
        let (acc, exploration, infeasible) = explore(
            &*self.engine,
            setup,
            body,
            Acc::default(),
            move |acc: &mut Acc, m: &mut Machine| {
                acc.executions += 1;
                bank::merge(&mut acc.bank, bank::conflicts(&m.bank));
                if m.failure.is_none() {
                    for (what, site, check) in &posts {
                        if !check(&Final { machine: m }) {
                            let headline = format!("postcondition `{what}` (declared at {site}) does not hold at the end");
                            let mut details = final_values(m);
                            details.extend(crate::runtime::advice::fence_sc_advice(m));
                            m.fail(FailureKind::Assertion, headline, details);
                            break;
                        }
                    }
                }
                let out_of_time = options.timeout.is_some_and(|t| start.elapsed() >= t);
                let Some(f) = &m.failure else {
                    if out_of_time {
                        acc.timed_out = true;
                        return Flow::Stop;
                    }
                    let flow = past_possible_hang(acc);
                    acc.stopped_at_failure = matches!(flow, Flow::Stop);
                    return flow;
                };
                let seen = acc
                    .failures
                    .iter()
                    .any(|g| g.kind == f.kind && g.headline == f.headline);
                if !seen {
                    let mut report = FailureReport::new(f, m);
                    report.trace_limit = options.trace_limit;
                    acc.failures.push(report);
                }
                if out_of_time {
                    acc.timed_out = true;
                    Flow::Stop
                } else if options.all_failures {
                    Flow::Continue
                } else if f.kind == FailureKind::PossibleHang {
                    acc.possible_hang_at.get_or_insert(acc.executions);
                    let flow = past_possible_hang(acc);
                    acc.stopped_at_failure = matches!(flow, Flow::Stop);
                    flow
                } else {
                    acc.stopped_at_failure = true;
                    Flow::Stop
                }
            },
        );
        let complete = exploration.complete
            && !acc.timed_out
            && (options.all_failures || acc.failures.is_empty());
        Report {
            kernel: kernel.name.clone(),
            engine: self.engine.name(),
            executions: acc.executions,
            infeasible,
            complete,
            // A definite failure before a bounded possible hang found earlier.
            failure: acc
                .failures
                .iter()
                .find(|f| f.kind != FailureKind::PossibleHang)
                .or(acc.failures.first())
                .cloned(),
            failures: acc.failures,
            bank_conflicts: acc.bank,
            show_bank_report: options.bank_report,
            // A search that stopped at a failure on the very last execution left nothing out.
            stopped_at_failure: acc.stopped_at_failure && !exploration.complete,
            error: exploration.error,
            wall: start.elapsed(),
        }
    }
}

/// How many more executions the search explores after its first possible hang (a thread past
/// the step bound: a *bounded* finding, not a proof), looking for a definite failure (an
/// assertion, a race, a proven hang) that a bounded one must not hide; the first definite
/// failure then ends the search and is the report's failure.
/// (2,000: each such execution runs to the step bound, and the bug corpus runs every case under
/// every engine; 20,000 made `check --every-engine corpus/bugs` run for more than 7 minutes.)
pub const AFTER_POSSIBLE_HANG: u64 = 2_000;

/// After a possible hang: go on until `AFTER_POSSIBLE_HANG` more executions were explored.
fn past_possible_hang(acc: &Acc) -> Flow {
    match acc.possible_hang_at {
        Some(at) if acc.executions - at >= AFTER_POSSIBLE_HANG => Flow::Stop,
        _ => Flow::Continue,
    }
}

/// Every location's final value (the last store in modification order), for postcondition
/// failures.
fn final_values(m: &Machine) -> Vec<String> {
    let mut lines = vec!["final values:".to_string()];
    for (loc, info) in m.setup.locs.iter().enumerate() {
        let value = info.kind.format(m.final_value(loc));
        lines.push(format!("  {} = {value}", info.name));
    }
    lines
}
