//! The engine differential: SC ⊆ runtime ⊆ axioms, on the final states of one program.
//!
//! The reference is the axiomatic PTX v7.5 model, and for programs with Hopper's asynchronous
//! instructions or shared-memory locations ([`Reference::for_program`]) the built-in `ptx-v8.cat`,
//! which is ptx-v7.5 plus the async proxy, mbarriers, bulk copies and clusters.
//!
//! - The operational runtime must never reach a final state the reference model
//!   forbids. Its modification order is execution order, so it reaches a subset of what the
//!   axioms allow (load buffering, for one, is allowed but unreachable); the converse would fail
//!   on correct engines. The runtime explores exhaustively by state caching
//!   ([`explore_states`], which agrees with the DFS engine: `tests/litmus_states.rs`). The check
//!   stays sound when that search is cut short by its budget: every state it did reach must
//!   still be allowed.
//! - Every sequentially consistent outcome ([`sc`]) must be allowed by the axioms and, when the
//!   runtime explored everything, reached by it. This catches engines that are too strong, which
//!   the first check cannot see.
//!
//! - Race verdicts (PTX ISA "Data races": the reference model's `races`), compared when both engines went
//!   through everything (the runtime complete, the axioms within their unroll bound and
//!   budget): some run of the runtime has a data race exactly when some consistent execution
//!   has one; and a final state the runtime reaches through a racy run is one some racy
//!   consistent execution ends in (the runtime's runs are consistent executions, so a race only
//!   it sees is a false one). The converse per state does not hold: a racy execution the
//!   runtime cannot run (load buffering, or two racing writes left unordered by PTX's partial
//!   coherence order, whose final value is then either) may end in a state the runtime reaches
//!   without a race.
//!
//! Both state checks ask the axioms about given states only (the runtime's and the SC ones), so the
//! axiomatic engine looks for those and not for every allowed state
//! ([`axiomatic::allowed_among`]); a disagreement is reported with every allowed state.

pub mod campaign;
pub mod reached;
pub mod sc;

use crate::axiomatic::{self, FinalState, Model};
use crate::litmus::{print, Fence, Instr, LocationKind, Program, Proxy};
use crate::runtime::litmus::{explore_states, Options as RuntimeOptions};
use std::collections::BTreeSet;
use std::fmt;

/// Bounds for one check.
#[derive(Clone, Debug)]
pub struct Options {
    /// The most distinct configurations the runtime's state-caching search visits per program;
    /// past it the check covers the states reached so far (and says so in
    /// [`Agreement::runtime_complete`]).
    pub runtime_configurations: u64,
    /// The most consistent executions the axiomatic engine goes through to decide whether one
    /// has a data race; past it race verdicts are not compared ([`Agreement::races_compared`]).
    pub race_executions: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            runtime_configurations: 200_000,
            race_executions: 100_000,
        }
    }
}

/// The engines agree on a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Agreement {
    /// The final states the runtime reached (all allowed).
    pub reached: usize,
    /// The sequentially consistent final states (all allowed, and reached when the runtime
    /// explored everything).
    pub sequentially_consistent: usize,
    /// The runtime explored every execution it can reach (not cut by the budget).
    pub runtime_complete: bool,
    /// Both engines decided whether some execution has a data race, and agree: `Some(racy)`;
    /// `None` when one of them could not go through everything.
    pub races_compared: Option<bool>,
}

/// Why the engines do not agree on a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// The runtime reached states the axioms forbid.
    Disagreement {
        /// The program, as printed in the litmus dialect.
        program: String,
        /// The reference model's name.
        model: &'static str,
        /// The final states the model allows.
        allowed: BTreeSet<FinalState>,
        /// The final states the runtime reached that the model forbids.
        reached: BTreeSet<FinalState>,
    },
    /// Sequentially consistent outcomes the axioms forbid.
    ScForbidden {
        /// The program, as printed in the litmus dialect.
        program: String,
        /// The reference model's name.
        model: &'static str,
        /// The sequentially consistent final states the model forbids.
        states: BTreeSet<FinalState>,
    },
    /// Sequentially consistent outcomes the runtime never reached in a complete exploration.
    ScNotReached {
        /// The program, as printed in the litmus dialect.
        program: String,
        /// The sequentially consistent final states the runtime never reached.
        states: BTreeSet<FinalState>,
    },
    /// The engines disagree on whether some execution has a data race (`state: None`), or the
    /// runtime reports a race on the way to a final state no racy consistent execution ends in.
    RaceVerdict {
        /// The program, as printed in the litmus dialect.
        program: String,
        /// The final state the verdicts differ on, or `None` for the program as a whole.
        state: Option<FinalState>,
        /// The reference model's name.
        model: &'static str,
        /// Some consistent execution (ending in `state`) has a data race under the reference
        /// model.
        axioms_racy: bool,
        /// Some run of the runtime (ending in `state`) reported a data race.
        runtime_racy: bool,
    },
    /// The axiomatic engine refused a program it should analyse.
    AxiomaticError {
        /// The program, as printed in the litmus dialect.
        program: String,
        /// The engine's error.
        message: String,
    },
    /// The runtime could not run the program at all.
    RuntimeError {
        /// The program, as printed in the litmus dialect.
        program: String,
        /// The runtime's error.
        message: String,
    },
}

impl Finding {
    /// The reached states the axioms forbid (empty unless this is a disagreement).
    pub fn forbidden(&self) -> Vec<&FinalState> {
        match self {
            Finding::Disagreement {
                allowed, reached, ..
            } => reached.difference(allowed).collect(),
            _ => Vec::new(),
        }
    }

    /// One line naming the kind of finding.
    pub fn summary(&self) -> String {
        match self {
            Finding::Disagreement { model, .. } => format!(
                "the runtime reached {} state(s) {model} forbids",
                self.forbidden().len()
            ),
            Finding::ScForbidden { model, states, .. } => format!(
                "{model} forbids {} sequentially consistent state(s)",
                states.len()
            ),
            Finding::ScNotReached { states, .. } => format!(
                "the runtime never reached {} sequentially consistent state(s)",
                states.len()
            ),
            Finding::RaceVerdict {
                model,
                axioms_racy,
                state,
                ..
            } => {
                let (racy, free) = if *axioms_racy {
                    (*model, "the runtime")
                } else {
                    ("the runtime", *model)
                };
                match state {
                    Some(state) => {
                        format!("{racy} finds a data race on the way to {state}, {free} none")
                    }
                    None => format!("{racy} finds a data race, {free} none"),
                }
            }
            Finding::AxiomaticError { message, .. } => {
                format!("the axiomatic engine refused the program: {message}")
            }
            Finding::RuntimeError { message, .. } => {
                format!("the runtime could not run the program: {message}")
            }
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.summary())?;
        if let Finding::Disagreement {
            model,
            allowed,
            reached,
            ..
        } = self
        {
            writeln!(f, "--- reached by the runtime but forbidden:")?;
            for s in self.forbidden() {
                writeln!(f, "  {s}")?;
            }
            writeln!(f, "--- allowed by {model} ({}):", allowed.len())?;
            for s in allowed {
                writeln!(f, "  {s}")?;
            }
            writeln!(f, "--- reached by the runtime ({}):", reached.len())?;
            for s in reached {
                writeln!(f, "  {s}")?;
            }
        }
        if let Finding::ScForbidden { states, .. } | Finding::ScNotReached { states, .. } = self {
            for s in states {
                writeln!(f, "  {s}")?;
            }
        }
        let (Finding::Disagreement { program, .. }
        | Finding::ScForbidden { program, .. }
        | Finding::ScNotReached { program, .. }
        | Finding::RaceVerdict { program, .. }
        | Finding::AxiomaticError { program, .. }
        | Finding::RuntimeError { program, .. }) = self;
        write!(f, "--- program:\n{program}")
    }
}

/// The most instructions a hand-written seed may have to be checked (exhaustive engines pay
/// exponentially for each one).
pub const MAX_SEED_INSTRUCTIONS: usize = 6;

/// Whether a parsed program (a seed from `corpus/litmus/`, say) suits the differential: small,
/// and within what both engines model ([`runtime_models`]).
pub fn suitable(p: &Program) -> bool {
    let instructions: usize = p.threads.iter().map(|t| t.body.len()).sum();
    instructions <= MAX_SEED_INSTRUCTIONS && runtime_models(p)
}

/// Whether the operational runtime gives `p` the meaning PTX does ([`runtime_unmodelled`] says
/// why not).
pub fn runtime_models(p: &Program) -> bool {
    runtime_unmodelled(p).is_none()
}

/// Why the operational runtime does not give `p` the meaning PTX does, if it does not. It models
/// the async proxy of bulk copies and `fence.proxy.async`, not the other proxies, so aliases and
/// other non-generic accesses would be compared against semantics it does not claim to have.
/// (`cp.async` is generic-proxy and runs on the CTAs' copy agents.)
pub fn runtime_unmodelled(p: &Program) -> Option<&'static str> {
    if !generic_only(p) {
        return Some("the runtime does not model proxies or aliases; not compared");
    }
    None
}

/// Whether every location is plain and every access generic (or `ld.global.nc`), but for bulk
/// copies (async proxy) and their proxy fences.
fn generic_only(p: &Program) -> bool {
    let generic = |i: &Instr| match i {
        // With every location plain, a texture-path load is `ld.global.nc`, which the runtime
        // runs through its non-coherent read rule.
        Instr::Load { access, .. } => matches!(access.proxy, Proxy::Generic | Proxy::Texture),
        Instr::Store { access, .. } | Instr::Atom { access, .. } | Instr::Red { access, .. } => {
            access.proxy == Proxy::Generic
        }
        Instr::Fence(Fence::Proxy(kind)) => kind.is_async(),
        // The asynchronous instructions run (mbarriers, bulk copies and their groups,
        // `fence.mbarrier_init`, cluster barriers).
        _ => true,
    };
    p.dialect() != crate::litmus::vulkan::DIALECT
        && p.locations
            .iter()
            .all(|l| matches!(l.kind, LocationKind::Plain { .. }))
        && p.threads
            .iter()
            .all(|t| t.body.iter().all(|s| generic(&s.instr)))
}

/// The program a fuzz input stands for: the litmus file it is, when it parses to a [`suitable`]
/// program (so litmus files seed a campaign), else what the generator builds from its bytes.
/// `None` when the generator cannot build a program from them. (The `arbitrary` feature.)
#[cfg(feature = "arbitrary")]
pub fn decode_input(data: &[u8]) -> Option<Program> {
    let seed = std::str::from_utf8(data)
        .ok()
        .and_then(|src| crate::litmus::parse(src, "input.litmus").ok())
        .filter(suitable);
    seed.or_else(|| {
        crate::litmus::arbitrary::program(
            &mut arbitrary::Unstructured::new(data),
            &crate::litmus::arbitrary::Limits::differential(),
        )
        .ok()
    })
}

/// The axiomatic model a program is checked against.
#[derive(Clone, Debug)]
pub struct Reference {
    /// The model.
    pub model: Model,
    /// Its name, as findings print it.
    pub name: &'static str,
}

impl Reference {
    /// `ptx-v8` (the built-in `ptx-v8.cat`) for a program with Hopper's asynchronous
    /// instructions ([`Instr::Async`]), a proxy fence or a location in a CTA's shared memory:
    /// ptx-v7.5 gives those no meaning (it refuses the instructions). `ptx-v7.5` for every other
    /// program: ptx-v8.cat is ptx-v7.5 plus what Hopper adds, and the Rust ptx-v7.5 answers
    /// faster than the cat interpreter.
    pub fn for_program(p: &Program) -> Reference {
        let hopper = uses_hopper(p);
        // Compiled once per process: the fuzzer checks thousands of programs a second.
        static PTX_V8: std::sync::OnceLock<Model> = std::sync::OnceLock::new();
        match hopper {
            true => Reference {
                model: PTX_V8
                    .get_or_init(|| Model::from_name("ptx-v8").expect("ptx-v8.cat is built in"))
                    .clone(),
                name: "ptx-v8",
            },
            false => Reference {
                model: Model::PtxV75,
                name: "ptx-v7.5",
            },
        }
    }
}

/// Whether `p` uses what Hopper adds: an asynchronous instruction ([`Instr::Async`]), a proxy
/// fence or a location in a CTA's shared memory.
pub fn uses_hopper(p: &Program) -> bool {
    p.locations.iter().any(|l| l.shared.is_some())
        || p.threads
            .iter()
            .flat_map(|t| &t.body)
            .any(|s| matches!(s.instr, Instr::Async(_) | Instr::Fence(Fence::Proxy(_))))
}

/// Whether some thread of `p` issues a bulk copy.
pub fn uses_bulk_copies(p: &Program) -> bool {
    p.threads.iter().flat_map(|t| &t.body).any(|s| {
        matches!(
            s.instr,
            Instr::Async(crate::litmus::AsyncOp::BulkCopy { .. })
        )
    })
}

/// Whether some thread of `p` uses the cluster barrier (`barrier.cluster.arrive` or `.wait`).
pub fn uses_cluster_barriers(p: &Program) -> bool {
    use crate::litmus::AsyncOp;
    p.threads.iter().flat_map(|t| &t.body).any(|s| {
        matches!(
            s.instr,
            Instr::Async(AsyncOp::ClusterArrive { .. } | AsyncOp::ClusterWait)
        )
    })
}

/// Runs both engines on `p` and compares their final states.
pub fn check(p: &Program, opts: &Options) -> Result<Agreement, Finding> {
    let outcomes = explore_states(
        p,
        &RuntimeOptions {
            max_configurations: opts.runtime_configurations,
            ..RuntimeOptions::default()
        },
    );
    if let Some(message) = outcomes.error {
        return Err(Finding::RuntimeError {
            program: print(p),
            message,
        });
    }
    let sc = sc::final_states(p).unwrap_or_default();
    let asked: BTreeSet<FinalState> = outcomes.states.union(&sc).cloned().collect();
    if asked.is_empty() {
        // No run of the runtime finished (a thread that spins forever) and the straight-line
        // reference has nothing to say (branches): there is no final state to compare, and
        // the axiomatic engine finds none either when no run finishes within its unroll
        // bound. Nothing to disagree about.
        return Ok(Agreement {
            reached: 0,
            sequentially_consistent: 0,
            runtime_complete: outcomes.complete,
            races_compared: None,
        });
    }
    let axiomatic_error = |e: axiomatic::AnalysisError| Finding::AxiomaticError {
        program: print(p),
        message: e.to_string(),
    };
    // Both other engines report every location's final value.
    let options = axiomatic::Options {
        memory: axiomatic::FinalMemory::All,
        ..axiomatic::Options::default()
    };
    let reference = Reference::for_program(p);
    let allowed = axiomatic::allowed_among(p, reference.model.clone(), &options, &asked)
        .map_err(axiomatic_error)?;
    if !outcomes.states.is_subset(&allowed) {
        let every = axiomatic::analyze_states(p, reference.model.clone(), &options)
            .map_err(axiomatic_error)?;
        return Err(Finding::Disagreement {
            program: print(p),
            model: reference.name,
            allowed: every.states.into_iter().map(|s| s.state).collect(),
            reached: outcomes.states,
        });
    }
    let forbidden: BTreeSet<FinalState> = sc.difference(&allowed).cloned().collect();
    if !forbidden.is_empty() {
        return Err(Finding::ScForbidden {
            program: print(p),
            model: reference.name,
            states: forbidden,
        });
    }
    let missed: BTreeSet<FinalState> = sc.difference(&outcomes.states).cloned().collect();
    if outcomes.complete && !missed.is_empty() {
        return Err(Finding::ScNotReached {
            program: print(p),
            states: missed,
        });
    }
    let races_compared = compare_races(p, &reference, &outcomes, &options, opts)?;
    Ok(Agreement {
        reached: outcomes.states.len(),
        sequentially_consistent: sc.len(),
        runtime_complete: outcomes.complete,
        races_compared,
    })
}

/// Whether the runtime and the reference model agree that some execution has a data race, and every final
/// state the runtime reaches through a racy run is one a racy consistent execution ends in (see
/// the module documentation); `Ok(None)` when one of them did not go through everything.
fn compare_races(
    p: &Program,
    reference: &Reference,
    outcomes: &crate::runtime::litmus::Outcomes,
    options: &axiomatic::Options,
    opts: &Options,
) -> Result<Option<bool>, Finding> {
    if !outcomes.complete {
        return Ok(None);
    }
    let options = axiomatic::Options {
        max_executions: Some(opts.race_executions),
        ..options.clone()
    };
    let analysis = axiomatic::analyze(p, reference.model.clone(), &options).map_err(|e| {
        Finding::AxiomaticError {
            program: print(p),
            message: e.to_string(),
        }
    })?;
    if analysis.bounded {
        return Ok(None);
    }
    let axioms: BTreeSet<&FinalState> = analysis
        .states
        .iter()
        .filter(|s| s.racy > 0)
        .map(|s| &s.state)
        .collect();
    if let Some(state) = outcomes.racy_states.iter().find(|s| !axioms.contains(s)) {
        return Err(Finding::RaceVerdict {
            program: print(p),
            state: Some(state.clone()),
            model: reference.name,
            axioms_racy: false,
            runtime_racy: true,
        });
    }
    let (axioms_racy, runtime_racy) = (!axioms.is_empty(), !outcomes.racy_states.is_empty());
    if axioms_racy != runtime_racy {
        return Err(Finding::RaceVerdict {
            program: print(p),
            state: None,
            model: reference.name,
            axioms_racy,
            runtime_racy,
        });
    }
    Ok(Some(runtime_racy))
}

/// What decides [`check`] on `p`, as text: the program without its final condition, which
/// plays no part in the differential except that the registers it names belong to every final
/// state (so they are listed). Programs with equal keys get equal verdicts, so a fuzzer need
/// check only one of them.
pub fn check_key(p: &Program) -> String {
    let mut plain = p.clone();
    plain.condition.quantifier = crate::litmus::Quantifier::Exists;
    plain.condition.prop = crate::litmus::Prop::True;
    let mut key = print(&plain);
    for t in 0..p.threads.len() {
        let names: Vec<String> = crate::axiomatic::events::registers(p, t)
            .into_keys()
            .map(|r| r.to_string())
            .collect();
        key.push_str(&format!("P{t} registers: {}\n", names.join(" ")));
    }
    key
}

/// A smaller program on which `fails` still holds: statements and then whole threads are dropped
/// one at a time while the program stays valid (it prints and parses back) and keeps failing.
/// The final condition plays no part in the differential, so it becomes `exists (true)` first
/// if that keeps the failure.
pub fn shrink(p: &Program, fails: impl Fn(&Program) -> bool) -> Program {
    let valid =
        |c: &Program| crate::litmus::parse(&print(c), "shrink").is_ok_and(|back| &back == c);
    let keeps = |c: &Program| valid(c) && fails(c);
    let mut best = p.clone();
    let mut plain = best.clone();
    plain.condition.prop = crate::litmus::Prop::True;
    if keeps(&plain) {
        best = plain;
    }
    loop {
        let mut smaller = None;
        'search: for t in 0..best.threads.len() {
            for i in 0..best.threads[t].body.len() {
                let mut c = best.clone();
                c.threads[t].body.remove(i);
                if keeps(&c) {
                    smaller = Some(c);
                    break 'search;
                }
            }
            if best.threads.len() > 1 && best.condition.prop == crate::litmus::Prop::True {
                let mut c = best.clone();
                c.threads.remove(t);
                c.reg_init.retain(|r| r.thread != t);
                for r in &mut c.reg_init {
                    if r.thread > t {
                        r.thread -= 1;
                    }
                }
                if keeps(&c) {
                    smaller = Some(c);
                    break 'search;
                }
            }
        }
        match smaller {
            Some(c) => best = c,
            None => return best,
        }
    }
}

/// A finding as a litmus file for `corpus/fuzz-findings/`: the program, named `name`, with
/// comments saying what was found and the verdict a correct pair of engines gives.
pub fn finding_file(p: &Program, name: &str, finding: &Finding, origin: &str) -> String {
    let clean = |s: String| s.replace(['"', '\n'], " ");
    let mut p = p.clone();
    p.name = name.to_string();
    p.comments = vec![
        clean(format!("found: ({origin}) {}", finding.summary())),
        "expect: engines agree".to_string(),
    ];
    print(&p)
}
