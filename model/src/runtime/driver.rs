//! Running executions: spawn one engine thread per GPU thread, collect what each execution left
//! behind, and render failures with their trace and replay token.

use super::ctx::Ctx;
use super::describe::describe_event;
use super::features::FEATURES;
use super::machine::{Machine, Setup};
use super::panics::{take_last, HaltSignal, ModelGuard};
use super::report::{CycleStep, Decision, Failure, FailureKind, Token};
use super::sched::{Engine, Exploration, Flow, Sched, Shape};
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

/// The code every GPU thread runs.
pub type Body = Arc<dyn Fn(&Ctx) + Send + Sync>;

/// Run one execution to the end on the engine's current main thread.
pub fn run_execution(
    setup: &Arc<Setup>,
    body: &Body,
    sched: &Arc<dyn Sched>,
    prune_spins: bool,
) -> Arc<Mutex<Machine>> {
    let mut machine = Machine::new(Arc::clone(setup), &FEATURES);
    machine.prune_spins = prune_spins;
    let machine = Arc::new(Mutex::new(machine));
    for (t, info) in setup.threads.iter().enumerate() {
        let ctx = Ctx {
            thread: t,
            info: info.clone(),
            machine: Arc::clone(&machine),
            sched: Arc::clone(sched),
        };
        if info.agent {
            sched.spawn(t, Box::new(move || super::async_copy::agent_main(ctx)));
            continue;
        }
        let body = Arc::clone(body);
        sched.spawn(t, Box::new(move || thread_main(ctx, body)));
    }
    sched.join_all();
    machine
}

fn exits_are_visible(ctx: &Ctx) -> bool {
    let m = ctx.machine.lock().unwrap_or_else(|e| e.into_inner());
    !m.halted && m.setup.exits_are_visible()
}

fn thread_main(ctx: Ctx, body: Body) {
    let result = catch_unwind(AssertUnwindSafe(|| {
        // A block the GPU has not made resident starts when a resident one finishes.
        ctx.wait();
        body(&ctx)
    }));
    // In a cluster kernel with shared memory a thread's exit may end its block, after which a
    // peer's access to that block's shared memory is a use after exit: the engines try the exit
    // against every other operation (see `runtime::cluster`).
    if result.is_ok() && !ctx.info.agent && exits_are_visible(&ctx) {
        ctx.sched.point(ctx.thread, super::sched::Point::Other);
    }
    let wake = {
        let mut m = ctx.machine.lock().unwrap_or_else(|e| e.into_inner());
        let was_halted = m.halted;
        if let Err(payload) = result {
            if !payload.is::<HaltSignal>() {
                let message = take_last(&*payload);
                let headline = format!("{} failed: {message}", ctx.info.name);
                m.fail(FailureKind::Assertion, headline, vec![]);
            }
        }
        m.exit(ctx.thread);
        if m.halted && !was_halted {
            ctx.sched.halted(ctx.thread);
        }
        std::mem::take(&mut m.wake)
    };
    for t in wake {
        ctx.sched.unpark(t);
    }
}

/// Explore `body` on `setup` with `engine`, letting `visit` fold every feasible execution into
/// `state`. Returns the state, how much the engine explored, and how many executions were
/// discarded as infeasible.
pub fn explore<S: Send + 'static>(
    engine: &dyn Engine,
    setup: Arc<Setup>,
    body: Body,
    state: S,
    visit: impl Fn(&mut S, &mut Machine) -> Flow + Send + Sync + 'static,
) -> (S, Exploration, u64) {
    let _guard = ModelGuard::enter();
    let shared = Arc::new(Mutex::new((state, 0u64)));
    let shape = Shape {
        threads: setup.threads.len(),
        locations: setup.locs.len(),
        blocks: setup.blocks.len(),
        mbarriers: setup.mbarriers.len(),
    };
    let inner = Arc::clone(&shared);
    let prune_spins = engine.prunes_spins();
    let run_setup = Arc::clone(&setup);
    let exploration = engine.explore(
        shape,
        Arc::new(move |sched: &Arc<dyn Sched>| {
            let machine = run_execution(&run_setup, &body, sched, prune_spins);
            let mut m = machine.lock().unwrap_or_else(|e| e.into_inner());
            let mut acc = inner.lock().unwrap_or_else(|e| e.into_inner());
            if m.infeasible {
                acc.1 += 1;
                return Flow::Discarded;
            }
            visit(&mut acc.0, &mut m)
        }),
    );
    let (state, infeasible) = match Arc::try_unwrap(shared) {
        Ok(m) => m.into_inner().unwrap_or_else(|e| e.into_inner()),
        Err(_) => panic!("the engine kept a reference to the exploration state"),
    };
    (state, exploration, infeasible)
}

/// A failure, ready to print.
#[derive(Clone, Debug)]
pub struct FailureReport {
    /// What kind of failure.
    pub kind: FailureKind,
    /// The report's first line: what went wrong.
    pub headline: String,
    /// Extra lines (the racing accesses, the diverging threads, …).
    pub details: Vec<String>,
    /// The execution's operations, numbered from 1.
    pub trace: Vec<String>,
    /// The replay token that re-runs exactly this execution (`--replay`).
    pub token: Token,
    /// Print at most this many trace lines, folding the middle of a longer trace (`None`: the
    /// whole trace).
    pub trace_limit: Option<usize>,
    /// A hang's lasso, in words.
    pub lasso: Option<LassoReport>,
}

/// A proven hang's lasso as a report prints it: the first `prefix` operations of the trace,
/// then `cycle` forever.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LassoReport {
    /// How many operations of the trace come before the cycle (the stem).
    pub prefix: usize,
    /// One round of the repeating iteration, one line per step.
    pub cycle: Vec<String>,
}

impl FailureReport {
    /// The report of `failure`, which ended `m`'s execution: its trace described line by line
    /// and its decisions as a replay token.
    pub fn new(failure: &Failure, m: &Machine) -> FailureReport {
        FailureReport {
            kind: failure.kind,
            headline: failure.headline.clone(),
            details: failure.details.clone(),
            trace: m
                .events
                .iter()
                .map(|e| describe_event(&m.setup, e))
                .collect(),
            token: Token {
                fingerprint: m.setup.fingerprint(),
                decisions: m.decisions.clone(),
            },
            trace_limit: None,
            lasso: failure.lasso.as_ref().map(|l| LassoReport {
                prefix: l.prefix,
                cycle: l
                    .cycle
                    .iter()
                    .map(|step| match step {
                        CycleStep::Again { event } => format!(
                            "{} (as #{})",
                            describe_event(&m.setup, &m.events[*event]),
                            event + 1
                        ),
                        CycleStep::Waits(text) => text.clone(),
                    })
                    .collect(),
            }),
        }
    }
}

impl fmt::Display for FailureReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "FAILURE: {}", self.kind)?;
        writeln!(f, "  {}", self.headline)?;
        for d in &self.details {
            writeln!(f, "    {d}")?;
        }
        writeln!(f, "  interleaving ({} operations):", self.trace.len())?;
        let n = self.trace.len();
        // The head and the tail of a trace past the limit, the middle folded.
        let (head, tail) = match self.trace_limit {
            Some(limit) if n > limit => (limit / 2, limit - limit / 2),
            _ => (n, 0),
        };
        for (i, line) in self.trace.iter().enumerate() {
            if i == head && head < n - tail {
                writeln!(f, "    … {} operations folded", n - tail - head)?;
            }
            if i < head || i >= n - tail {
                writeln!(f, "    #{:<3} {line}", i + 1)?;
            }
        }
        if let Some(lasso) = &self.lasso {
            writeln!(
                f,
                "  lasso: operations #1-#{} above, then this iteration forever (it writes \
                 nothing and changes nothing the next one reads):",
                lasso.prefix
            )?;
            for line in &lasso.cycle {
                writeln!(f, "    {line}")?;
            }
        }
        write!(f, "  replay token: {}", self.token)
    }
}

/// The token's decisions as `Run`s only (for tests and debugging).
pub fn schedule_of(token: &Token) -> Vec<u32> {
    token
        .decisions
        .iter()
        .filter_map(|d| match d {
            Decision::Run(t) => Some(*t),
            Decision::Pick(_) => None,
        })
        .collect()
}
