//! The axiomatic engine: every final state a memory model allows for a litmus program.
//!
//! `events.rs` turns each thread into paths (loops unrolled to a bound, loaded values symbolic),
//! `values.rs` chooses reads-from and computes the values along it, giving concrete traces,
//! `enumerate.rs` builds
//! candidate executions from them (reads-from, coherence, fence.sc order, barrier matching) and
//! `models/` judges each one with the model's axioms (its cat text, [`crate::cat`], evaluated
//! in the relation algebra of `rel.rs`). `dot.rs` draws a witness execution. `targets.rs` lets the search skip executions
//! of final states it already has, when only the states are asked for ([`analyze_states`]).
//!
//! Choices where the sources leave room, each checked against Dartagnan's verdicts on the 169
//! shared PTX tests (all agree under both PTX models):
//! - Coherence order is partial, as the PTX ISA and the Tile IR specification define it: "a
//!   partial transitive order that relates overlapping write operations"; two writes are related
//!   if they are morally strong or related in causality order (happens-before in Tile IR), and
//!   writes in a data race stay unrelated. The initial write comes before every other write
//!   (the initial values are in memory before any thread runs). From-reads is `rf^-1 ; co` with
//!   `co` transitive. The Causality axiom, with a partial order, only forbids a read's source
//!   to be coherence-before a write causally before the read; it does not order them
//!   ([`models::coherence_forbidden`]).
//! - A final state reports the locations the condition reads ([`FinalMemory`]); the final value
//!   of one comes from a write every other write to it precedes in coherence, in a consistent
//!   execution (so the search orders the last write after the others where it reports the
//!   value, and nowhere else).
//! - Executions are counted once per reads-from, synchronization, orientation of the morally
//!   strong write pairs and last write of each reported location, with the least coherence
//!   these allow (every other consistent coherence order with the same choices only adds
//!   pairs no axiom asks for, and reaches the same final state).
//! - Observation chains through RMWs as the PTX ISA defines it (`(ms & rf) ; (rmw ; ms & rf)*`),
//!   not only one step: a release read by an RMW whose write an acquire reads synchronizes.
//! - Barriers: `bar.cta.sync a[, b[, q]]` meet when all id operands agree (by value, so register
//!   ids are dynamic) in one CTA; without a quorum the k-th barrier of each thread joins the
//!   k-th instance; with quorum `q`, instances have exactly `q` barriers, and one left out blocks
//!   its thread, so it must be the thread's last event (final states come from runs that end).
//!   `arrive` does not wait. A matching whose instances wait for each other in a cycle is a
//!   deadlock, with no final state, under every model.
//! - fence.sc: one total order of all fence.sc operations, of which only morally strong pairs
//!   synchronize; we enumerate the distinct restrictions.

pub mod budget;
pub mod dot;
pub mod enumerate;
pub mod events;
pub mod execution;
pub mod liveness;
pub mod models;
pub mod rel;
pub mod targets;
pub mod values;
pub mod wanted;

pub use budget::{Progress, Report, Stop};
pub use execution::{ExecEvent, Execution};

use crate::litmus::{Cmp, Program, Prop, Quantifier, Span, Term, Value};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::ops::ControlFlow;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use crate::cat::{registry, CatModel};

/// The memory models the engine knows, by their command-line names, and models loaded from cat
/// text. Every model's semantics is its cat text ([`crate::cat`]): the named ones are the
/// built-in `.cat` files ([`Model::cat`]).
#[derive(Clone, Debug, Default)]
pub enum Model {
    /// PTX ISA 6.0: scoped, no proxies (`ptx-v6.0.cat`).
    PtxV60,
    /// PTX ISA 7.5: scoped, with proxies and aliases (`ptx-v7.5.cat`).
    #[default]
    PtxV75,
    /// Tile IR: scopes tile_block/device/sys; only token order orders one tile block's
    /// accesses (`tile-ir.cat`).
    TileIr,
    /// A model written in cat ([`crate::cat`]): a built-in `.cat` file or the user's own.
    Cat(Arc<CatModel>),
}

impl PartialEq for Model {
    fn eq(&self, other: &Model) -> bool {
        match (self, other) {
            (Model::Cat(a), Model::Cat(b)) => Arc::ptr_eq(a, b),
            (a, b) => std::mem::discriminant(a) == std::mem::discriminant(b),
        }
    }
}

impl Eq for Model {}

impl std::hash::Hash for Model {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        std::mem::discriminant(self).hash(h);
        if let Model::Cat(m) = self {
            Arc::as_ptr(m).hash(h);
        }
    }
}

/// A registered model other than the three with variants of their own, compiled once per
/// process, so that every use of one name is one model (equal under `==`).
fn registered_cat(m: &'static registry::Registered) -> Arc<CatModel> {
    static COMPILED: Mutex<BTreeMap<&'static str, Arc<CatModel>>> = Mutex::new(BTreeMap::new());
    let mut compiled = COMPILED.lock().unwrap_or_else(|e| e.into_inner());
    Arc::clone(compiled.entry(m.name).or_insert_with(|| {
        Arc::new(CatModel::builtin(m.name).expect("a registered model compiles"))
    }))
}

/// A built-in model, compiled once per process.
fn builtin(cell: &'static OnceLock<Arc<CatModel>>, name: &str) -> &'static Arc<CatModel> {
    cell.get_or_init(|| Arc::new(CatModel::builtin(name).expect("a built-in model")))
}

/// Why a model name could not be turned into a model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelError {
    /// Neither a registered name nor a `.cat` path.
    Unknown(registry::UnknownModel),
    /// A `.cat` file that cannot be read or compiled.
    Cat(crate::cat::CatError),
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::Unknown(e) => e.fmt(f),
            ModelError::Cat(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ModelError {}

impl ModelError {
    /// The error as the command line prints it: one line, and for a cat error the source line
    /// with the place underlined ([`crate::cat::CatError::render`]).
    pub fn render(&self) -> String {
        match self {
            ModelError::Unknown(e) => e.to_string(),
            ModelError::Cat(e) => e.render(),
        }
    }
}

impl Model {
    /// The models with variants of their own (see [`crate::cat::registry::MODELS`] for every
    /// registered model).
    pub const ALL: [Model; 3] = [Model::PtxV75, Model::PtxV60, Model::TileIr];

    /// A registered model by name or alias, with or without `.cat`
    /// ([`crate::cat::registry`]): `ptx-v7.5`, `ptx-v6.0`, `ptx-v8`, `ptx-v8-lenient`,
    /// `tile-ir`, `vulkan`, `vulkan-nochains`, `opencl`.
    pub fn from_name(name: &str) -> Option<Model> {
        registry::find(name).map(Model::registered)
    }

    /// The model a registry entry stands for.
    pub fn registered(m: &'static registry::Registered) -> Model {
        match m.name {
            "ptx-v7.5" => Model::PtxV75,
            "ptx-v6.0" => Model::PtxV60,
            "tile-ir" => Model::TileIr,
            _ => Model::Cat(registered_cat(m)),
        }
    }

    /// A model by name or path, as `--model` takes it: the registry's rules
    /// ([`crate::cat::registry`]), a relative path read from the current directory.
    pub fn load(name_or_path: &str) -> Result<Model, ModelError> {
        Model::load_from(name_or_path, None)
    }

    /// A model by name or path, as a `MANIFEST.csv` row names it: a relative path is read from
    /// `base` (the manifest's directory; `None`: the current directory).
    pub fn load_from(
        name_or_path: &str,
        base: Option<&std::path::Path>,
    ) -> Result<Model, ModelError> {
        match registry::resolve(name_or_path, base).map_err(ModelError::Unknown)? {
            registry::ModelRef::Registered(m) => Ok(Model::registered(m)),
            registry::ModelRef::File(path) => CatModel::load(&path)
                .map(|m| Model::Cat(Arc::new(m)))
                .map_err(ModelError::Cat),
        }
    }

    /// The cat model that gives this model its semantics.
    pub fn cat(&self) -> &Arc<CatModel> {
        static PTX_V60: OnceLock<Arc<CatModel>> = OnceLock::new();
        static PTX_V75: OnceLock<Arc<CatModel>> = OnceLock::new();
        static TILE_IR: OnceLock<Arc<CatModel>> = OnceLock::new();
        match self {
            Model::PtxV60 => builtin(&PTX_V60, "ptx-v6.0"),
            Model::PtxV75 => builtin(&PTX_V75, "ptx-v7.5"),
            Model::TileIr => builtin(&TILE_IR, "tile-ir"),
            Model::Cat(m) => m,
        }
    }

    /// Whether the model has a No-Thin-Air axiom (reads-from with dependencies is acyclic).
    pub fn forbids_thin_air(&self) -> bool {
        self.cat().forbids_thin_air()
    }

    /// Whether a cycle of reads-from and data flow may justify any value
    /// ([`CatModel::thin_air_values`]).
    pub fn thin_air_values(&self) -> bool {
        self.cat().thin_air_values()
    }

    /// Whether the model was written for Vulkan tests ([`CatModel::reads_vulkan`]).
    pub fn reads_vulkan(&self) -> bool {
        self.cat().reads_vulkan()
    }

    /// Whether the model was written for OpenCL tests ([`CatModel::reads_opencl`]).
    pub fn reads_opencl(&self) -> bool {
        self.cat().reads_opencl()
    }

    /// One of the built-in PTX models (`ptx-v6.0`, `ptx-v7.5`, `ptx-v8`): under PTX a racy weak
    /// read still returns a value the axioms allow, so races are reported only when asked for.
    pub fn is_ptx(&self) -> bool {
        matches!(self, Model::PtxV60 | Model::PtxV75)
            || Model::from_name("ptx-v8").as_ref() == Some(self)
    }

    /// Whether the model defines data races (a cat model with a `flag`).
    pub fn defines_races(&self) -> bool {
        self.cat()
            .checks()
            .iter()
            .any(|(_, class)| *class == crate::cat::CheckClass::Flag)
    }

    /// The model's registered name (`ptx-v6.0`, `ptx-v7.5`, `tile-ir`, or the cat model's
    /// own), as `--model` takes it and reports print it.
    pub fn name(&self) -> &str {
        match self {
            Model::PtxV60 => "ptx-v6.0",
            Model::PtxV75 => "ptx-v7.5",
            Model::TileIr => "tile-ir",
            Model::Cat(m) => m.name(),
        }
    }
}

impl fmt::Display for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What an analysis is asked: its unroll bound, what it keeps and reports, and its budget.
#[derive(Clone, Debug)]
pub struct Options {
    /// How many times each backward branch may be taken in one run of a thread.
    pub unroll: u32,
    /// Keep one example execution per final state.
    pub witnesses: bool,
    /// Which locations' final values the final states report.
    pub memory: FinalMemory,
    /// Stop the search after this long: the answer is the states found so far, `bounded`.
    pub timeout: Option<Duration>,
    /// Stop the search after this many consistent executions (as `timeout`).
    pub max_executions: Option<u64>,
    /// Decide the condition only: look only for final states that decide it (for `exists` and
    /// `~exists` those satisfying the proposition, for `forall` those that do not) and stop at
    /// the first one. `holds` is then exact, `states` lists at most the deciding state
    /// found, and executions are not counted.
    pub condition_only: bool,
    /// Called about once a second while the search runs past its first second.
    pub progress: Option<Progress>,
    /// Stop the search once the process's resident memory passes this many bytes (as
    /// `timeout`; where the system does not tell the resident memory, never).
    pub max_memory: Option<u64>,
    /// Stop the search once this flag is set (a signal handler sets it): the answer is the
    /// states found so far, `bounded`, stopped by [`Stop::Interrupted`].
    pub interrupt: Option<Arc<AtomicBool>>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            unroll: 2,
            witnesses: false,
            memory: FinalMemory::Condition,
            timeout: None,
            max_executions: None,
            condition_only: false,
            progress: None,
            max_memory: None,
            interrupt: None,
        }
    }
}

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
/// [`Options::memory`] asks for, their coherence-last value) at the end of an execution.
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
/// from [`analyze_states`]), and (on request) one.
#[derive(Clone, Debug)]
pub struct StateCount {
    /// The final state.
    pub state: FinalState,
    /// Consistent executions that reach it (at least 1; a lower bound from
    /// [`analyze_states`]).
    pub witnesses: u64,
    /// How many of those executions have a data race (as the model defines one; 0 for models
    /// that define none). Not exact, as `witnesses`, from [`analyze_states`].
    pub racy: u64,
    /// The model's flags (`flag ... as NAME`) some of those executions raise, in the order of
    /// the model text.
    pub flags: Vec<&'static str>,
    /// With [`Options::witnesses`]: one consistent execution that reaches the state.
    pub example: Option<Execution>,
}

/// The result of an axiomatic analysis of one litmus program under one model: the allowed
/// final states, the condition's verdict, and whether (and why) the search was partial.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Every allowed final state, in order.
    pub states: Vec<StateCount>,
    /// Whether the final condition holds (exists: some state satisfies it; ~exists: none
    /// does; forall: all do).
    pub holds: bool,
    /// The result covers part of the runs only: some run was cut by the unroll bound, or the
    /// search stopped early ([`Analysis::stopped`]).
    pub bounded: bool,
    /// A run cut by the unroll bound, when some valuation makes one possible: its thread and
    /// the backward branch taken once too often. The condition is judged on the runs that
    /// finish (as herd7 does, warning "unrolling limit exceeded ... legal outcomes may be
    /// missing"); with no such run, on none.
    pub cut: Option<(usize, Span)>,
    /// Why the search stopped before going through every candidate: its timeout or its
    /// number of executions (then `states` are those found so far, and `holds` is decided on
    /// them).
    pub stopped: Option<Stop>,
    /// Consistent executions found (all of them except from [`analyze_states`]).
    pub executions: u64,
    /// How many of them have a data race, for models where a race is undefined behaviour
    /// (Tile IR) or report them (PTX). Not exact, as `executions`, from
    /// [`analyze_states`].
    pub racy_executions: u64,
}

impl Analysis {
    /// herd7's verdict word: `Ok` when some allowed state satisfies the proposition.
    pub fn satisfiable(&self, p: &Program) -> bool {
        self.states.iter().any(|s| condition_holds_on(p, &s.state))
    }
}

/// A program the engine cannot analyse, with the place to blame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysisError {
    /// Where in the litmus source the problem is.
    pub span: Span,
    /// What is wrong, one line.
    pub message: String,
}

impl fmt::Display for AnalysisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.span, self.message)
    }
}

impl std::error::Error for AnalysisError {}

/// Every final state `model` allows for `p`.
///
/// With [`Options::condition_only`], only the states that decide the condition are looked for
/// ([`analyze_states`] with that goal).
pub fn analyze(p: &Program, model: Model, opts: &Options) -> Result<Analysis, AnalysisError> {
    let how = How {
        count_executions: !opts.condition_only,
        ..How::counting(|search, tally| search.pruned(tally))
    };
    explore(p, model, opts, how)
}

/// Every final state `model` allows for `p`, as [`analyze`] finds them (with the same `holds` and
/// `bounded`), without counting executions: the search stops looking for executions of a final
/// state it already has ([`targets`]), so `executions`, `racy_executions` and each state's
/// `witnesses` only count the executions met on the way (at least one per state).
pub fn analyze_states(
    p: &Program,
    model: Model,
    opts: &Options,
) -> Result<Analysis, AnalysisError> {
    let how = How {
        count_executions: false,
        ..How::counting(|search, tally| search.pruned(tally))
    };
    explore(p, model, opts, how)
}

/// Which of the `wanted` final states `model` allows for `p`: the states [`analyze_states`]
/// finds, intersected with `wanted`, found without looking for the others (valuations whose
/// registers no wanted state has are not explored, and the search ends once every wanted state
/// is found). The engine differential asks this about the states the runtime reaches.
pub fn allowed_among(
    p: &Program,
    model: Model,
    opts: &Options,
    wanted: &BTreeSet<FinalState>,
) -> Result<BTreeSet<FinalState>, AnalysisError> {
    let how = How {
        count_executions: false,
        wanted: Some(wanted::Wanted::new(
            p,
            &observed_locations(p, opts.memory),
            wanted.iter().cloned().collect(),
        )),
        ..How::counting(|search, tally| search.pruned(tally))
    };
    let analysis = explore(p, model, opts, how)?;
    Ok(analysis.states.into_iter().map(|s| s.state).collect())
}

/// Valuations are checked while they are chosen ([`enumerate::Prefix`]) when the reads may
/// choose their sources in more than this many ways.
const PREFIX_BREADTH: u64 = 64;

/// The next combination of paths (or of `liveness.rs`'s runs), one per thread (an odometer
/// over `choice`); `false` after the last.
fn next_choice<T>(choice: &mut [usize], per_thread: &[Vec<T>]) -> bool {
    for (c, paths) in choice.iter_mut().zip(per_thread) {
        *c += 1;
        if *c < paths.len() {
            return true;
        }
        *c = 0;
    }
    false
}

/// How [`explore`] goes through the candidate executions.
struct How {
    /// Count every consistent execution, or only find the final states.
    count_executions: bool,
    /// The search of one combination of traces (the pruned one, or in tests the exhaustive
    /// reference).
    search: enumerate::SearchFn,
    /// Judge every valuation, also those whose values flow in a cycle through reads-from,
    /// under models that forbid them too (the reference for tests).
    every_valuation: bool,
    /// Finding final states only: the only ones asked about.
    wanted: Option<wanted::Wanted>,
    /// Valuations are checked while they are chosen ([`enumerate::Prefix`]) when their reads
    /// may choose sources in more than this many ways (tests compare with and without).
    prefix_breadth: u64,
}

impl How {
    fn counting(search: enumerate::SearchFn) -> How {
        How {
            count_executions: true,
            search,
            every_valuation: false,
            wanted: None,
            prefix_breadth: PREFIX_BREADTH,
        }
    }
}

fn explore(p: &Program, model: Model, opts: &Options, how: How) -> Result<Analysis, AnalysisError> {
    let How {
        count_executions,
        search,
        every_valuation,
        wanted,
        prefix_breadth,
    } = how;
    let wanted_count = wanted.as_ref().map(wanted::Wanted::count);
    let observed = observed_locations(p, opts.memory);
    let limits = budget::Limits {
        timeout: opts.timeout,
        max_executions: opts.max_executions,
        max_memory: opts.max_memory,
        interrupt: opts.interrupt.clone(),
    };
    let budget = budget::Budget::new(&limits, opts.progress.clone());
    // Deciding the condition: the states that decide it.
    let decide = (opts.condition_only && wanted.is_none())
        .then_some(p.condition.quantifier != Quantifier::Forall);
    let decisive = |s: &FinalState| {
        decide.is_some_and(|sat| condition_holds_on(p, s) == sat && filter_admits(p, s))
    };
    let paths = events::paths(p, opts.unroll).map_err(|e| AnalysisError {
        span: e.span,
        message: e.message,
    })?;
    let mut out = enumerate::Collector {
        witnesses: opts.witnesses,
        states: HashMap::default(),
        executions: 0,
        racy: 0,
        racy_states: HashMap::default(),
        states_only: !count_executions,
        accept: None,
        viable: None,
        co_floor: None,
        first_only: false,
        prefix_global: false,
    };
    // Guard against programs whose thread paths multiply beyond any reasonable search.
    const MAX_COMBINATIONS: u64 = 100_000_000;
    let combinations = paths
        .per_thread
        .iter()
        .try_fold(1u64, |acc, ps| acc.checked_mul(ps.len() as u64))
        .filter(|&c| c <= MAX_COMBINATIONS);
    if combinations.is_none() {
        return Err(AnalysisError {
            span: p.condition.span,
            message: format!(
                "the threads' paths combine into more than {MAX_COMBINATIONS} candidates; lower --unroll or split the test"
            ),
        });
    }
    // A path cut by the unroll bound that some valuation makes possible (its thread and
    // backward branch): such runs make the result bounded. The condition is decided on the runs that finish within
    // the bound, as herd7 does ("unrolling limit exceeded at L, legal outcomes may be
    // missing", its verdict then marked `Loop`): with none, `forall` and `~exists` hold over
    // no execution and `exists` does not.
    let mut cut: Option<(usize, Span)> = None;
    let mut choice = vec![0usize; paths.per_thread.len()];
    // Without cut paths, whose possibility decides boundedness and is judged on every
    // valuation, a model with No-Thin-Air needs only the valuations without data-flow cycles.
    let grounded = model.forbids_thin_air()
        && !every_valuation
        && paths
            .per_thread
            .iter()
            .flatten()
            .all(|path| path.cut.is_none());
    // Asked about given states: every one found ends the search.
    let all_found = |out: &enumerate::Collector| {
        budget.set_states(out.states.len());
        wanted_count == Some(out.states.len())
            || budget.stopped().is_some()
            || (decide.is_some() && out.states.keys().any(decisive))
    };
    if paths.per_thread.iter().all(|ps| !ps.is_empty()) {
        'combos: loop {
            let combo: Vec<&events::Path> = choice
                .iter()
                .enumerate()
                .map(|(t, &i)| &paths.per_thread[t][i])
                .collect();
            let mut valuations = values::Valuations::new(p, &combo);
            if model.thin_air_values() {
                valuations.allow_thin_air(p);
            }
            let wanted_here = wanted.as_ref().map(|w| {
                let names: Vec<String> = combo
                    .iter()
                    .enumerate()
                    .flat_map(|(t, path)| path.regs.keys().map(move |r| format!("P{t}:{r}")))
                    .collect();
                w.for_registers(&names)
            });
            // Valuations are narrowed to wanted registers only without cut paths: every
            // valuation of those counts for `cut`.
            if let (true, Some(here)) = (grounded, &wanted_here) {
                if here.registers.is_empty() {
                    if next_choice(&mut choice, &paths.per_thread) {
                        continue 'combos;
                    }
                    break;
                }
                valuations.want_registers(Rc::clone(here));
            }
            let cut_here = combo
                .iter()
                .enumerate()
                .find_map(|(t, path)| path.cut.map(|span| (t, span)));
            if let Some(c) = cut_here {
                if cut.is_none() && valuations.any() {
                    cut = Some(c);
                }
            } else {
                // Deciding the condition: valuations whose registers already decide it the
                // other way are not worth a search. (A cut combination's valuations all count
                // for `cut`: it is never narrowed.)
                if let (false, Some(sat)) = (every_valuation, decide) {
                    valuations.want_condition(p, sat);
                }
                // Many valuations: drop those whose forced reads-from pairs no consistent
                // execution has while they are being chosen (a few reads in, rather than one
                // by one once complete).
                let skeleton;
                let prefix;
                let check;
                if !every_valuation && valuations.breadth() > prefix_breadth {
                    // Deciding the condition: the final values it needs may fix the last
                    // write of a location (or rule out these paths).
                    let lasts = match decide {
                        Some(sat) => valuations.forced_last_writes(p, sat, &observed),
                        None => Some(Vec::new()),
                    };
                    let Some(lasts) = lasts else {
                        if next_choice(&mut choice, &paths.per_thread) {
                            continue 'combos;
                        }
                        break;
                    };
                    skeleton = valuations.skeleton();
                    let traces: Vec<&events::Trace> = skeleton.iter().collect();
                    prefix =
                        enumerate::Prefix::new(p, &model, &traces, &lasts, barriers_fixed(&combo))
                            .map_err(|message| AnalysisError {
                                span: p.condition.span,
                                message,
                            })?;
                    // Out of budget, every branch closes (the answer is then bounded).
                    check = |pairs: &[(usize, usize)]| budget.go_on() && prefix.possible(pairs);
                    valuations.check_reads_from(&check);
                }
                let mut result = Ok(());
                let mut explorer = enumerate::Explorer::new(
                    p,
                    model.clone(),
                    search,
                    wanted_here,
                    &observed,
                    &budget,
                );
                if let Some(sat) = decide {
                    explorer.decide(sat);
                }
                let for_each = if grounded {
                    values::Valuations::for_each_grounded
                } else {
                    values::Valuations::for_each
                };
                for_each(&valuations, &mut |traces| {
                    if !budget.go_on() {
                        return ControlFlow::Break(());
                    }
                    let combo: Vec<&events::Trace> = traces.iter().collect();
                    result = explorer.explore(&combo, &mut out);
                    if result.is_err() || all_found(&out) {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                });
                result.map_err(|message| AnalysisError {
                    span: p.condition.span,
                    message,
                })?;
                if all_found(&out) {
                    break;
                }
            }
            if all_found(&out) || !next_choice(&mut choice, &paths.per_thread) {
                break;
            }
        }
    }
    let stopped = budget.stopped();
    let flag_names = model.cat().flag_names();
    let mut states: Vec<StateCount> = out
        .states
        .into_iter()
        .map(|(state, (witnesses, example))| StateCount {
            racy: out.racy_states.get(&state).map_or(0, |r| r.0),
            flags: models::flag_names_in(
                &flag_names,
                out.racy_states.get(&state).map_or(0, |r| r.1),
            ),
            state,
            witnesses,
            example,
        })
        .collect();
    states.sort_unstable_by(|a, b| a.state.cmp(&b.state));
    // herd's `filter`: executions whose final state fails it are not considered at all.
    let mut executions = out.executions;
    states.retain(|s| {
        let admitted = filter_admits(p, &s.state);
        if !admitted {
            executions = executions.saturating_sub(s.witnesses);
        }
        admitted
    });
    let sat = |s: &StateCount| condition_holds_on(p, &s.state);
    let holds = match p.condition.quantifier {
        Quantifier::Exists => states.iter().any(sat),
        Quantifier::NotExists => !states.iter().any(sat),
        Quantifier::Forall => states.iter().all(sat),
    };
    Ok(Analysis {
        states,
        holds,
        bounded: cut.is_some() || stopped.is_some(),
        cut,
        stopped,
        executions,
        racy_executions: match p.filter {
            None => out.racy,
            // Races of executions the filter drops are not considered either.
            Some(_) => out
                .racy_states
                .iter()
                .filter(|(s, _)| filter_admits(p, s))
                .map(|(_, n)| n.0)
                .sum(),
        },
    })
}

/// Whether every barrier of these paths has a constant id and count (then every valuation's
/// barriers match alike).
fn barriers_fixed(paths: &[&events::Path]) -> bool {
    paths
        .iter()
        .flat_map(|path| &path.events)
        .all(|e| match &e.kind {
            events::Kind::Barrier { id, quorum, .. } => id
                .iter()
                .chain(quorum)
                .all(|x| matches!(x, events::Expr::Const(_))),
            _ => true,
        })
}

/// Evaluates the final condition's proposition on one state.
pub fn condition_holds_on(p: &Program, s: &FinalState) -> bool {
    eval(p, &p.condition.prop, s)
}

/// Whether a final state passes the program's `filter` (herd's: executions whose final state
/// fails it are left out before the condition is checked); true without a filter.
pub fn filter_admits(p: &Program, s: &FinalState) -> bool {
    p.filter.as_ref().is_none_or(|f| eval(p, f, s))
}

fn eval(p: &Program, prop: &Prop, s: &FinalState) -> bool {
    match prop {
        Prop::True => true,
        Prop::Cmp(cmp, a, b) => {
            let (a, b) = (term(p, a, s), term(p, b, s));
            match cmp {
                Cmp::Eq => a == b,
                Cmp::Ne => a != b,
            }
        }
        Prop::Not(q) => !eval(p, q, s),
        Prop::And(a, b) => eval(p, a, s) && eval(p, b, s),
        Prop::Or(a, b) => eval(p, a, s) || eval(p, b, s),
    }
}

fn term(p: &Program, t: &Term, s: &FinalState) -> Value {
    match t {
        Term::Const(v) => *v,
        Term::Reg(th, r) => s
            .regs
            .get(&format!("P{th}:{r}"))
            .copied()
            .unwrap_or_else(|| p.initial_reg(*th, r)),
        Term::Loc(l) => {
            let phys = p.physical(*l);
            s.mem
                .get(&p.locations[phys].name)
                .copied()
                .unwrap_or_else(|| p.initial_value(phys))
        }
    }
}

#[cfg(test)]
mod tests;
