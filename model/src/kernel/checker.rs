//! Exploring a kernel with an engine and reporting what was found.

use super::{setup_of, Final, Kernel, ThreadCtx, TileCtx};
use crate::engine::{self, Engine, Flow};
use crate::runtime::bank::{self, BankConflict};
use crate::runtime::report::{FailureKind, Token};
use crate::runtime::{explore, Body, Ctx, FailureReport, Machine};
use std::fmt;
use std::sync::Arc;

/// Explores kernels with one engine.
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
    /// Executions discarded: loom chose a store our model forbids, or a spin-loop iteration
    /// repeated the previous one.
    pub infeasible: u64,
    /// Every execution the engine can reach was explored (exhaustive engines, no bound hit).
    pub complete: bool,
    /// The first failure found, with its trace and replay token.
    pub failure: Option<FailureReport>,
    /// Worst bank conflict per shared-memory access site.
    pub bank_conflicts: Vec<BankConflict>,
    /// Why the exploration could not run, if it could not.
    pub error: Option<String>,
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
                " (+{} discarded: infeasible or repeated spin iterations)",
                self.infeasible
            )?;
        }
        writeln!(f)?;
        if let Some(e) = &self.error {
            writeln!(f, "ERROR: {e}")?;
        }
        match &self.failure {
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
        if !self.bank_conflicts.is_empty() {
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
    failure: Option<FailureReport>,
    bank: Vec<BankConflict>,
}

impl Checker {
    /// A checker on any [`Engine`].
    pub fn new(engine: impl Engine + 'static) -> Checker {
        Checker {
            engine: Box::new(engine),
        }
    }

    /// Our exhaustive DFS over schedules and store choices.
    pub fn dfs() -> Checker {
        Checker::new(engine::Dfs::default())
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

    /// The engine a command line names: `dfs`, `loom`, `random` or `pct` (the sampling engines
    /// run `iterations` executions; PCT with depth 3). `None` for any other name.
    pub fn by_name(name: &str, iterations: usize) -> Option<Checker> {
        Some(match name {
            "dfs" => Checker::dfs(),
            #[cfg(feature = "loom")]
            "loom" => Checker::loom(),
            "random" => Checker::random(iterations, 1),
            "pct" => Checker::pct(iterations, 3, 1),
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
                bank_conflicts: vec![],
                error: Some(e),
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
                            m.fail(FailureKind::Assertion, headline, vec![]);
                            break;
                        }
                    }
                }
                match &m.failure {
                    Some(f) => {
                        acc.failure = Some(FailureReport::new(f, m));
                        Flow::Stop
                    }
                    None => Flow::Continue,
                }
            },
        );
        Report {
            kernel: kernel.name.clone(),
            engine: self.engine.name(),
            executions: acc.executions,
            infeasible,
            complete: exploration.complete && acc.failure.is_none(),
            failure: acc.failure,
            bank_conflicts: acc.bank,
            error: exploration.error,
        }
    }
}
