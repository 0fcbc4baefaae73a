//! Candidate executions: for every combination of thread traces, choose reads-from (only among
//! writes of the value the read returned), a coherence order per location, an order of the
//! morally strong fence.sc pairs, and a matching of barriers — then ask the model.
//!
//! Pruning, location by location (each only drops candidates the axioms reject, so the
//! consistent executions, their number and their order are those of trying every candidate —
//! a test checks this against an exhaustive search):
//! - the per-location axioms (SC-per-Location, Atomicity) are checked as soon as a location's
//!   reads-from (and, with many completions left, part of it) and then its coherence order are
//!   chosen, so inconsistent choices for early locations never multiply with later ones;
//! - the Coherence and Causality axioms fix coherence pairs as soon as reads-from is known (the
//!   causality order does not depend on coherence), so coherence orders are built only in
//!   agreement with them, one write at a time (a location nothing reads reuses the last
//!   location's causality: reads-from has not grown);
//! - Atomicity is also applied while a coherence order is built: once an RMW's source is
//!   placed and its write is not, no morally strong write may come between them;
//! - events, the model's static relations and the fence.sc orders are built once per
//!   combination of thread paths, not per valuation;
//! - with many valuations, [`Prefix`] lets `values.rs` drop a valuation while its reads are
//!   being given values, once the reads-from pairs they force fail these same axioms.
//!
//! A reported location's coherence-last write is chosen before its morally strong pairs are
//! oriented (`Search::choose_last`), so the final value is known before the orientations.
//!
//! Searching for the final states only ([`super::analyze_states`]), branches that can only
//! reach states already found are dropped as well ([`super::targets`]).

use super::budget::Budget;
use super::events::{ClusterBarrier, Kind, Trace};
use super::execution::{immediate, EventInfo, Events, ExecEvent, Execution};
use super::models::{coherence_forbidden, coherence_required, prepare, Checker, Dynamic};
use super::rel::{bit, members, Rel, Set};
use super::targets::{Memories, Targets};
use super::wanted::ForRegisters;
use super::{FinalState, Model};
use crate::hash::Mix;
use crate::litmus::*;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::BuildHasherDefault;
use std::rc::Rc;

/// What every consistent execution contributes to.
pub struct Collector {
    pub witnesses: bool,
    /// Hashed while the search runs; [`super::analyze`] sorts them.
    pub states: HashMap<FinalState, (u64, Option<Execution>), BuildHasherDefault<Mix>>,
    pub executions: u64,
    /// Consistent executions with a data race (models that define races only).
    pub racy: u64,
    /// Those racy executions by final state (herd's `filter` drops some states), each with the
    /// flags they raise ([`super::models::Checker::raised`]).
    pub racy_states: HashMap<FinalState, (u64, u64), BuildHasherDefault<Mix>>,
    /// States only (see [`super::targets`]): executions (and their races) are counted only
    /// until each final state has one.
    pub states_only: bool,
    /// Only consistent executions this accepts count (`None`: all of them).
    pub accept: Option<Accept>,
    /// A necessary condition for `accept` that partial choices can already fail, and never
    /// pass again once failed (monotone: more reads-from and coherence pairs cannot mend it);
    /// branches failing it are dropped before their coherence is oriented further.
    pub viable: Option<Accept>,
    /// Coherence pairs every execution `accept` takes has (`None`: none): the search starts
    /// from those of them that coherence orders one way or the other anyway (morally strong
    /// pairs), so it never lists the other orientation, and prunes with them from the first
    /// choice. Pairs that are not morally strong are left to `accept`.
    pub co_floor: Option<CoFloor>,
    /// Stop at the first execution counted (a witness is all that is asked).
    pub first_only: bool,
    /// Check the global axioms that partial choices can break ([`Checker::partial_ok`]) on
    /// reads-from prefixes too, as the per-location ones are, not only once a location's
    /// reads all have sources. It pays where a cycle through reads-from and the choices made
    /// at other locations rejects most branches (the liveness search of read-modify-write
    /// chains, whose coherence floor already orders most writes: 2_threads_4/145 of the
    /// vulkan-liveness suite 1.5 s -> 0.25 s); on the safety searches of the shared Vulkan
    /// suite it was measured no faster (`examples/cat_speed`), so it is asked for.
    pub prefix_global: bool,
}

/// Coherence pairs wanted in every accepted execution, given the events.
pub type CoFloor = Rc<dyn Fn(&Events) -> Rel>;

/// A further condition on consistent executions, given the events, reads-from and coherence
/// order (`liveness.rs`: the reads of a repeating iteration read coherence-last writes).
pub type Accept = Rc<dyn Fn(&Events, &Rel, &Rel) -> bool>;

/// Explores the candidate executions of the valuations of one combination of thread paths.
/// The valuations differ only in values, so the events, their static relations, the model
/// prepared on them and the fence.sc orders are built once, by the first valuation that needs
/// them, and only the values change for the next.
pub struct Explorer<'p> {
    p: &'p Program,
    model: Model,
    search: SearchFn,
    shared: Option<Shared>,
    /// States only: the final memories found, per register values.
    memories: Memories,
    /// States only: the wanted final states these paths can have (`None`: every one).
    wanted: Option<Rc<ForRegisters>>,
    /// Per location, whether the final state reports its value.
    observed: &'p [bool],
    budget: &'p Budget,
    /// Deciding the condition: the value of the proposition on the states worth finding.
    goal: Option<bool>,
}

/// How to go through the candidate executions of one combination of traces.
pub type SearchFn = fn(&Search<'_>, &mut Tally);

struct Shared {
    ev: Events,
    checker: Box<dyn Checker>,
    /// Per physical location, in order.
    places: Vec<Place>,
    /// Per thread, the final state's name of each of its registers (`P0:r1`), in the order of
    /// its traces' registers.
    reg_keys: Vec<Vec<String>>,
    /// Every read with the writes it may read from, for the current valuation.
    candidates: Vec<(usize, Vec<usize>)>,
    /// The fence.sc orders and what they all have in common, once computed.
    fences: Option<(Vec<Rel>, Rel)>,
    /// Which read-modify-writes can never read from the same write, as found so far.
    never_share: NeverShare,
}

/// Per write and pair of read-modify-write reads (the lower first): whether the two can never
/// both read from the write. It depends only on the events' static relations, the same for
/// every valuation of one combination of paths, so it is worked out once per triple.
type NeverShare = RefCell<HashMap<(usize, usize, usize), bool, BuildHasherDefault<Mix>>>;

impl<'p> Explorer<'p> {
    /// `wanted`: states only, the wanted states for these paths' registers (`None`: every
    /// state); `observed`: per location, whether the final state reports its value (see
    /// [`super::observed_locations`]).
    pub fn new(
        p: &'p Program,
        model: Model,
        search: SearchFn,
        wanted: Option<Rc<ForRegisters>>,
        observed: &'p [bool],
        budget: &'p Budget,
    ) -> Explorer<'p> {
        Explorer {
            p,
            model,
            search,
            shared: None,
            memories: Memories::default(),
            wanted,
            observed,
            budget,
            goal: None,
        }
    }

    /// States only: look only for final states on which the proposition is `sat` (those that
    /// decide the condition), valuation by valuation (registers known, each reported
    /// location's possible last values combined).
    pub fn decide(&mut self, sat: bool) {
        self.goal = Some(sat);
    }

    /// The memories (reported locations' values, in order) that, with this valuation's
    /// registers, make final states the goal asks for; `None` when there are too many
    /// combinations to list (then every memory is looked for).
    fn goal_memories(
        p: &Program,
        observed: &[bool],
        sat: bool,
        regs: &BTreeMap<String, Value>,
        lasts: &[Vec<Value>],
    ) -> Option<Vec<Vec<Value>>> {
        const LIMIT: usize = 1 << 12;
        let lasts: Vec<Vec<Value>> = lasts
            .iter()
            .map(|vs| {
                let mut vs = vs.clone();
                vs.sort_unstable();
                vs.dedup();
                vs
            })
            .collect();
        let names: Vec<&String> = (0..p.locations.len())
            .filter(|&l| p.physical(l) == l && observed[l])
            .map(|l| &p.locations[l].name)
            .collect();
        let combinations = lasts
            .iter()
            .try_fold(1usize, |a, vs| a.checked_mul(vs.len()))
            .filter(|&c| c <= LIMIT)?;
        let mut out = Vec::new();
        let mut state = FinalState {
            regs: regs.clone(),
            mem: BTreeMap::new(),
        };
        for mut k in 0..combinations {
            let mut memory = Vec::with_capacity(lasts.len());
            for (name, values) in names.iter().zip(&lasts) {
                let v = values[k % values.len()];
                k /= values.len();
                state.mem.insert((*name).clone(), v);
                memory.push(v);
            }
            if super::condition_holds_on(p, &state) == sat && super::filter_admits(p, &state) {
                out.push(memory);
            }
        }
        Some(out)
    }

    /// The events of one combination of traces (their values set to these traces') and the
    /// model prepared on them: built by the first valuation of the combination, shared by the
    /// next ones and by [`Self::explore`].
    pub fn prepared(&mut self, combo: &[&Trace]) -> Result<(&Events, &dyn Checker), String> {
        let p = self.p;
        match &mut self.shared {
            Some(shared) => shared.ev.set_values(combo),
            None => {
                let ev = Events::build(p, combo)?;
                let checker = prepare(&self.model, &ev);
                let ms = checker.morally_strong();
                let places = (0..p.locations.len())
                    .filter(|&l| p.physical(l) == l)
                    .map(|l| Place::of(&ev, p, l, ms, self.observed[l]))
                    .collect();
                let reg_keys = combo
                    .iter()
                    .enumerate()
                    .map(|(t, tr)| tr.regs.iter().map(|(r, _)| format!("P{t}:{r}")).collect())
                    .collect();
                self.shared = Some(Shared {
                    ev,
                    checker,
                    places,
                    reg_keys,
                    candidates: Vec::new(),
                    fences: None,
                    never_share: NeverShare::default(),
                });
            }
        }
        let Some(shared) = &self.shared else {
            unreachable!("built above")
        };
        Ok((&shared.ev, shared.checker.as_ref()))
    }

    /// Explores every candidate execution of one combination of traces (one per thread, all
    /// valuations of the same paths).
    pub fn explore(&mut self, combo: &[&Trace], out: &mut Collector) -> Result<(), String> {
        let p = self.p;
        if !values_available(p, combo) {
            return Ok(());
        }
        self.prepared(combo)?;
        let Some(shared) = &mut self.shared else {
            unreachable!("prepared above")
        };
        let ev = &shared.ev;
        // States only: a valuation all of whose final memories are found has nothing new.
        // (The registers, in the traces' order, are the same for every valuation of these
        // paths: their values are enough to tell the valuations' registers apart.)
        let regs: Vec<Value> = match out.states_only {
            true => combo
                .iter()
                .flat_map(|tr| tr.regs.iter().map(|r| r.1))
                .collect(),
            false => Vec::new(),
        };
        let targets = match out.states_only {
            true => {
                let found = self.memories.get(&regs).map_or(&[][..], Vec::as_slice);
                let wanted = match &self.wanted {
                    Some(wanted) => match wanted.memories.get(&regs) {
                        Some(memories) => Some(memories.as_slice()),
                        None => return Ok(()),
                    },
                    None => None,
                };
                let lasts = last_values(ev, &shared.places);
                let goal = match (self.goal, wanted) {
                    (Some(sat), None) => {
                        let regs = registers(combo, &shared.reg_keys);
                        Self::goal_memories(p, self.observed, sat, &regs, &lasts)
                    }
                    _ => None,
                };
                if goal.as_ref().is_some_and(Vec::is_empty) {
                    return Ok(());
                }
                let wanted = wanted.or(goal.as_deref());
                let targets = Targets::new(lasts, found, wanted);
                if !targets.open(None) {
                    return Ok(());
                }
                Some(targets)
            }
            false => None,
        };
        // Reads-from candidates: same physical location, same value; never the read's own write,
        // nor a write a cluster barrier's wait keeps after the read's thread exits
        // ([`cluster_exits`]). (Refilled in place: the reads are the same for every valuation.)
        let exits = cluster_exits(ev);
        let candidates = &mut shared.candidates;
        candidates.resize_with(ev.r.count_ones() as usize, Default::default);
        for ((read, ws), r) in candidates.iter_mut().zip(members(ev.r)) {
            *read = r;
            ws.clear();
            ws.extend(members(ev.w & ev.loc.row(r)).filter(|&w| {
                ev.value(w) == ev.value(r)
                    && !ev.rmw.has(r, w)
                    && !exits.as_ref().is_some_and(|x| x.has(w, r))
            }));
            if ws.is_empty() {
                return Ok(());
            }
        }
        let barrier_options = barrier_syncs(ev);
        if barrier_options.is_empty() {
            return Ok(());
        }
        if shared.fences.is_none() {
            let orders = fence_orders(ev, shared.checker.morally_strong())?;
            let floor = common(&orders);
            shared.fences = Some((orders, floor));
        }
        let Some((fence_orders, fence_floor)) = &shared.fences else {
            unreachable!("computed above")
        };
        let barrier_floor = common(&barrier_options);
        // The wanted coherence pairs that are morally strong: the search orients those pairs
        // one way or the other, and only this way can be accepted. Starting from them loses no
        // accepted execution: its coherence is the closure of its orientations (and of the
        // pairs the axioms require), which contains these pairs, so the same orientations
        // from this start close to the same order (a pair already ordered is not chosen
        // again). Kept transitive (the orientations grow it with `add_transitive`).
        let co_floor = match &out.co_floor {
            Some(f) => {
                let ms = shared.checker.morally_strong();
                (&f(ev) & &(ms | &ms.inv())).plus()
            }
            None => Rel::empty(ev.n),
        };
        let search = Search {
            p,
            co_floor,
            places: &shared.places,
            reg_keys: &shared.reg_keys,
            ev,
            checker: shared.checker.as_ref(),
            combo,
            witnesses: out.witnesses,
            candidates: &shared.candidates,
            fence_orders,
            barrier_options,
            fence_floor,
            barrier_floor,
            never_share: &shared.never_share,
            budget: self.budget,
            observed_writes: shared
                .places
                .iter()
                .filter(|place| place.observed)
                .flat_map(|place| place.init.iter().chain(&place.writes))
                .fold(Set::EMPTY, |s, &w| s | bit(w)),
        };
        let mut tally = Tally {
            targets,
            accept: out.accept.clone(),
            viable: out.viable.clone(),
            first_only: out.first_only,
            prefix_global: out.prefix_global,
            ..Tally::default()
        };
        (self.search)(&search, &mut tally);
        if let Some(targets) = tally.targets.take() {
            let fresh = targets.fresh();
            self.memories.entry(regs).or_default().extend(fresh);
        }
        search.merge(tally, out);
        Ok(())
    }
}

/// A necessary test for reads-from pairs that a partial valuation already forces (a read whose
/// value only one write can supply): whether some consistent execution may have them all.
/// Built once per combination of thread paths, from the paths' events (values play no part in
/// it), so that [`super::values::Valuations`] drops a valuation's branch as soon as the reads
/// valued so far cannot be read from those writes in any consistent execution — instead of
/// listing every valuation and letting [`Explorer`] reject each in turn.
///
/// It asks what `Search::coherence_floor`, the per-location axioms and
/// [`Checker::partial_ok`] ask of a prefix,
/// with the least of everything the later choices can only add to: the forced reads-from
/// pairs, the synchronization common to every fence.sc order and barrier matching,
/// coherence with the initial writes first and the pairs causality requires. Each of those
/// axioms is monotone (more pairs never repair a violation), so every execution with these
/// pairs fails whenever this fails.
pub struct Prefix {
    ev: Events,
    checker: Box<dyn Checker>,
    fence_floor: Rel,
    /// The barrier synchronization every matching has (none when barrier ids depend on
    /// values).
    barrier_floor: Rel,
    /// The initial writes before every other write to their location.
    init_first: Rel,
}

impl Prefix {
    /// For the events of `combo` (one trace per thread; their values are not used).
    /// `lasts`: writes that end coherence at their location, each with the other writes there
    /// (deciding a condition that only such a final value can decide: every execution looked
    /// for has those pairs, which `Search::choose_last` adds). `barriers_fixed`: every
    /// barrier's id and count are constants, so `combo`'s barriers match as every
    /// valuation's do.
    pub fn new(
        p: &Program,
        model: &Model,
        combo: &[&Trace],
        lasts: &[(usize, Vec<usize>)],
        barriers_fixed: bool,
    ) -> Result<Prefix, String> {
        let ev = Events::build(p, combo)?;
        let checker = prepare(model, &ev);
        let fence_floor = fence_orders(&ev, checker.morally_strong())
            .map_or_else(|_| Rel::empty(ev.n), |orders| common(&orders));
        let mut init_first = Rel::empty(ev.n);
        for i in members(ev.init) {
            init_first.set_row(i, ev.loc.row(i) & ev.w & !ev.init);
        }
        for (last, others) in lasts {
            for &w in others {
                init_first.add(w, *last);
            }
        }
        let options = match barriers_fixed {
            true => barrier_syncs(&ev),
            false => Vec::new(),
        };
        let barrier_floor = match options.is_empty() {
            true => Rel::empty(ev.n),
            false => common(&options),
        };
        Ok(Prefix {
            barrier_floor,
            ev,
            checker,
            fence_floor,
            init_first,
        })
    }

    /// Whether some consistent execution may read from these (write, read) pairs (event ids:
    /// the initial writes first, then each thread's events in order).
    pub fn possible(&self, pairs: &[(usize, usize)]) -> bool {
        let ev = &self.ev;
        let rf = Rel::from_pairs(ev.n, pairs.iter().copied());
        let none = Rel::empty(ev.n);
        let x = Dynamic {
            rf: &rf,
            co: &none,
            fr: &none,
            sync_fence: &self.fence_floor,
            sync_barrier: &self.barrier_floor,
        };
        let cause = self.checker.causality(ev, &x);
        if !rf.seq(&cause).irreflexive() {
            return false;
        }
        let Some(co) = grown(&self.init_first, &coherence_required(ev, &cause)) else {
            return false;
        };
        if !(&co & &coherence_forbidden(ev, &rf, &cause)).is_empty() {
            return false;
        }
        let fr = rf.inv().seq(&co);
        let x = Dynamic {
            co: &co,
            fr: &fr,
            ..x
        };
        self.checker.location_ok(ev, &rf, &co, &fr) && self.checker.partial_ok(ev, &x)
    }
}

/// Reads-from choices are checked before every read has its source only when at least this many
/// completions hang on them.
const PREFIX_CHECK: usize = 4;

/// Reads-from pairs, and the same inverted (for `fr = rf^-1 ; co`).
#[derive(Clone)]
struct Rf {
    rel: Rel,
    inv: Rel,
}

/// The causality of the reads-from pairs chosen so far, under the synchronization common to
/// every option (what the coherence order grew by is in the coherence passed along with it).
struct Floor {
    cause: Rel,
    /// Coherence pairs the Causality axiom rules out ([`coherence_forbidden`]).
    forbidden: Rel,
}

/// Adds `a → b` to the transitive relation `co`, keeping it transitive.
fn add_transitive(co: &mut Rel, a: usize, b: usize) {
    let after = co.row(b) | bit(b);
    for x in 0..co.len() {
        if x == a || co.has(x, a) {
            co.set_row(x, co.row(x) | after);
        }
    }
}

/// The transitive `co` grown by `required`, still transitive; `None` when that makes a cycle
/// (a required pair against one chosen).
fn grown(co: &Rel, required: &Rel) -> Option<Rel> {
    if required.subset_of(co) {
        return Some(co.clone());
    }
    let co = (co | required).plus();
    co.irreflexive().then_some(co)
}

/// What every option has in common (options are never empty: at least the empty order, or no
/// barrier synchronization).
fn common(options: &[Rel]) -> Rel {
    options
        .iter()
        .skip(1)
        .fold(options[0].clone(), |a, b| &a & b)
}

/// The final state's registers: the traces' (every valuation of a combination has the same
/// registers, with its own values).
fn registers(combo: &[&Trace], reg_keys: &[Vec<String>]) -> BTreeMap<String, Value> {
    let mut regs = BTreeMap::new();
    for (tr, keys) in combo.iter().zip(reg_keys) {
        for (key, (_, v)) in keys.iter().zip(&tr.regs) {
            regs.insert(key.clone(), *v);
        }
    }
    regs
}

/// Per observed physical location, the values its coherence-last write may have: any of its
/// writes', the initial value when it has none.
fn last_values(ev: &Events, places: &[Place]) -> Vec<Vec<Value>> {
    let value = |w: &usize| ev.value(*w).expect("writes have values");
    places
        .iter()
        .filter(|place| place.observed)
        .map(|place| match place.writes.is_empty() {
            true => place.init.iter().map(value).collect(),
            false => place.writes.iter().map(value).collect(),
        })
        .collect()
}

/// Cheap test before building events: every value a read returns is written by some store of
/// this combination (or is the initial value).
fn values_available(p: &Program, combo: &[&Trace]) -> bool {
    // A handful of (location, value) pairs: a vector beats hashing here.
    let mut written: Vec<(LocId, Value)> = (0..p.locations.len())
        .filter(|&l| p.physical(l) == l)
        .map(|l| (l, p.initial_value(l)))
        .collect();
    for tr in combo {
        for e in &tr.events {
            if let Kind::Write { loc, value, .. } = e.kind {
                written.push((p.physical(loc), value));
            }
        }
    }
    combo.iter().all(|tr| {
        tr.events.iter().all(|e| match e.kind {
            Kind::Read { loc, value, .. } => written.contains(&(p.physical(loc), value)),
            _ => true,
        })
    })
}

/// The candidate executions of one combination of traces.
pub struct Search<'a> {
    p: &'a Program,
    /// Coherence pairs the search starts from ([`Collector::co_floor`]).
    co_floor: Rel,
    ev: &'a Events,
    checker: &'a dyn Checker,
    combo: &'a [&'a Trace],
    /// Keep the first execution reaching each final state.
    witnesses: bool,
    /// Every read with the writes it may read from.
    candidates: &'a [(usize, Vec<usize>)],
    /// Per physical location, in order.
    places: &'a [Place],
    reg_keys: &'a [Vec<String>],
    fence_orders: &'a [Rel],
    barrier_options: Vec<Rel>,
    /// What every fence order, and every barrier matching, has in common.
    fence_floor: &'a Rel,
    barrier_floor: Rel,
    never_share: &'a NeverShare,
    /// The writes of the locations whose final value is reported.
    observed_writes: Set,
    budget: &'a Budget,
}

/// The choices to make at one physical location: its reads (with their candidate writes) and
/// its non-initial writes, whose coherence order is chosen.
struct Place {
    /// Indices into [`Search::candidates`] (which lists every read, in order).
    reads: Vec<usize>,
    init: Vec<usize>,
    writes: Vec<usize>,
    /// The pairs of `writes` that are morally strong (lower index first): coherence orders
    /// them one way or the other.
    ms_pairs: Vec<(usize, usize)>,
    /// Whether the final state reports this location's value (then its coherence order has a
    /// last write).
    observed: bool,
}

impl Place {
    fn of(ev: &Events, p: &Program, l: LocId, ms: &Rel, observed: bool) -> Place {
        let here = |e: usize| ev.location(e).map(|x| p.physical(x)) == Some(l);
        let reads = members(ev.r)
            .enumerate()
            .filter(|&(_, r)| here(r))
            .map(|(k, _)| k)
            .collect();
        let (init, writes) = members(ev.w)
            .filter(|&w| here(w))
            .partition(|&w| ev.init & bit(w) != Set::EMPTY);
        let writes: Vec<usize> = writes;
        let mut ms_pairs = Vec::new();
        for (i, &a) in writes.iter().enumerate() {
            for &b in &writes[i + 1..] {
                if ms.has(a, b) || ms.has(b, a) {
                    ms_pairs.push((a, b));
                }
            }
        }
        // Nearest pairs first (events are laid out in trace order): a thread's consecutive
        // writes are oriented before the pairs their order implies by transitivity, so the
        // search goes about as deep as there are writes, not as there are pairs.
        ms_pairs.sort_by_key(|&(a, b)| (b - a, a));
        Place {
            reads,
            init,
            writes,
            ms_pairs,
            observed,
        }
    }
}

/// The consistent executions of one combination of traces, grouped by the writes they leave
/// coherence-last (with the traces' registers, these make the final state), in the order first
/// found; `Search::merge` adds them to the [`Collector`].
#[derive(Default)]
pub struct Tally {
    executions: u64,
    racy: u64,
    /// Last writes, executions, racy executions, the flags they raise, the first execution (on
    /// request).
    by_last_writes: Vec<(Set, u64, u64, u64, Option<Execution>)>,
    /// States only: the final memories still to find.
    targets: Option<Targets>,
    /// The collector's further condition on executions.
    accept: Option<Accept>,
    /// Its monotone necessary condition on partial choices.
    viable: Option<Accept>,
    /// Stop once an execution is counted.
    first_only: bool,
    /// [`Collector::prefix_global`].
    prefix_global: bool,
}

impl Tally {
    /// Whether the branch can still reach a final state worth finding (always, when counting):
    /// `next`, the values the location being ordered may end with (`None`: any).
    fn open(&self, next: Option<&[Value]>) -> bool {
        !self.done() && self.targets.as_ref().is_none_or(|t| t.open(next))
    }

    /// Whether the one execution asked for is found ([`Collector::first_only`]).
    fn done(&self) -> bool {
        self.first_only && self.executions > 0
    }

    /// Whether the partial choices may still be accepted.
    fn viable(&self, ev: &Events, rf: &Rel, co: &Rel) -> bool {
        self.viable.as_ref().is_none_or(|f| f(ev, rf, co))
    }
}

impl Search<'_> {
    /// Every candidate, pruned as early as the axioms allow.
    pub fn pruned(&self, tally: &mut Tally) {
        let empty = Rel::empty(self.ev.n);
        let rf = Rf {
            rel: empty.clone(),
            inv: empty,
        };
        self.location(0, &rf, &self.co_floor, None, tally);
    }

    /// Every candidate, each judged in full by [`Checker::consistent`]: the reference that
    /// [`Self::pruned`] must agree with. Candidates are every reads-from and, per location,
    /// every transitive coherence relation with the initial write first (and a last write
    /// where the final value is reported). Consistent ones are counted when their coherence
    /// is the least one for its choices (the initial write first, the orientation of the
    /// morally strong pairs, the last write, the pairs causality requires): the executions the
    /// pruned search lists. The final states of all consistent candidates must be those of
    /// the counted ones (checked here).
    #[cfg(test)]
    pub fn exhaustive(&self, tally: &mut Tally) {
        let ev = self.ev;
        let mut choice = vec![0usize; self.candidates.len()];
        loop {
            let mut rf = Rel::empty(ev.n);
            for (k, (r, ws)) in self.candidates.iter().enumerate() {
                rf.add(ws[choice[k]], *r);
            }
            let empty = Rel::empty(ev.n);
            let mut every_last = Vec::new();
            self.every_coherence(self.places, &rf, &empty, &empty, tally, &mut every_last);
            let mut counted: Vec<Set> = tally.by_last_writes[..].iter().map(|e| e.0).collect();
            counted.sort_unstable();
            every_last.sort_unstable();
            every_last.dedup();
            for last in every_last {
                assert!(
                    counted.binary_search(&last).is_ok(),
                    "a consistent coherence order reaches a final memory no least one does"
                );
            }
            let mut k = 0;
            loop {
                if k == choice.len() {
                    return;
                }
                choice[k] += 1;
                if choice[k] < self.candidates[k].1.len() {
                    break;
                }
                choice[k] = 0;
                k += 1;
            }
        }
    }

    /// `base`: the pairs every coherence chosen so far must have (initial write first, last
    /// write last); `every_last`: the final memories (as last writes) of every consistent
    /// candidate.
    #[cfg(test)]
    fn every_coherence(
        &self,
        places: &[Place],
        rf: &Rel,
        co: &Rel,
        base: &Rel,
        tally: &mut Tally,
        every_last: &mut Vec<Set>,
    ) {
        let ev = self.ev;
        let Some((here, rest)) = places.split_first() else {
            let fr = rf.inv().seq(co);
            let ms = self.checker.morally_strong();
            let ms_writes = &(ms | &ms.inv()).restrict(ev.w, ev.w) & &ev.loc;
            for sync_fence in self.fence_orders {
                for sync_barrier in &self.barrier_options {
                    let x = Dynamic {
                        rf,
                        co,
                        fr: &fr,
                        sync_fence,
                        sync_barrier,
                    };
                    if self.checker.consistent(ev, &x).is_err() {
                        continue;
                    }
                    every_last.push(
                        members(self.observed_writes)
                            .filter(|&w| co.row(w) == Set::EMPTY)
                            .fold(Set::EMPTY, |s, w| s | bit(w)),
                    );
                    let cause = self.checker.causality(ev, &x);
                    let required = coherence_required(ev, &cause);
                    let least = (&(base | &(co & &ms_writes)) | &required).plus();
                    if least == *co {
                        self.record(&x, tally);
                    }
                }
            }
            return;
        };
        let others = &here.writes;
        let mut pairs = Vec::new();
        for (i, &a) in others.iter().enumerate() {
            for &b in &others[i + 1..] {
                pairs.push((a, b));
            }
        }
        // Each pair unordered, one way or the other.
        let mut code = vec![0u8; pairs.len()];
        loop {
            let mut co_l = co.clone();
            let mut base_l = base.clone();
            for &i in &here.init {
                for &w in others {
                    co_l.add(i, w);
                    base_l.add(i, w);
                }
            }
            for (&(a, b), &c) in pairs.iter().zip(&code) {
                match c {
                    1 => co_l.add(a, b),
                    2 => co_l.add(b, a),
                    _ => {}
                }
            }
            if co_l.plus() == co_l && co_l.irreflexive() {
                let all = others.iter().fold(Set::EMPTY, |s, &w| s | bit(w));
                let last: Vec<usize> = others
                    .iter()
                    .copied()
                    .filter(|&t| co_l.row(t) & all == Set::EMPTY)
                    .collect();
                if !here.observed || others.is_empty() {
                    self.every_coherence(rest, rf, &co_l, &base_l, tally, every_last);
                } else if let [t] = last[..] {
                    for &w in others.iter().filter(|&&w| w != t) {
                        base_l.add(w, t);
                    }
                    self.every_coherence(rest, rf, &co_l, &base_l, tally, every_last);
                }
            }
            let Some(k) = code.iter().position(|&c| c < 2) else {
                break;
            };
            code[k] += 1;
            for c in &mut code[..k] {
                *c = 0;
            }
        }
    }

    /// The per-location axioms on the choices made so far. Sound for pruning: those axioms are
    /// monotone (more rf, co or fr pairs never repair a violation), and every pair chosen so far
    /// is one of the final execution's.
    fn locations_ok(&self, rf: &Rf, co: &Rel) -> bool {
        let fr = rf.inv.seq(co);
        self.checker.location_ok(self.ev, &rf.rel, co, &fr)
    }

    /// Chooses rf and co for the physical location `at` (an index into [`Self::places`]),
    /// prunes, and recurses on the rest. `floor`: the last location's, once every location is
    /// chosen (its causality order is then that of the complete reads-from under the common
    /// synchronization).
    fn location(&self, at: usize, rf: &Rf, co: &Rel, floor: Option<&Floor>, tally: &mut Tally) {
        if !tally.open(None) || !self.budget.go_on() {
            return;
        }
        let Some(here) = self.places.get(at) else {
            self.finish(rf, co, floor, tally);
            return;
        };
        // The initial write comes first in coherence: the initial values are in memory before
        // any thread runs.
        let mut co_l = co.clone();
        for (i, &a) in here.init.iter().enumerate() {
            for &b in here.init[i + 1..].iter().chain(&here.writes) {
                co_l.add(a, b);
            }
        }
        if here.reads.is_empty() {
            // Nothing read here: reads-from, so causality, is the last location's.
            self.choose_coherence(at, rf, &co_l, floor, tally);
        } else {
            self.reads_from(at, here.reads.len(), rf, &co_l, tally);
        }
    }

    /// With every read of location `at` given its source: its coherence order. `prior`: the
    /// last location's floor, when reads-from is still what it was computed with.
    fn choose_coherence(
        &self,
        at: usize,
        rf: &Rf,
        co: &Rel,
        prior: Option<&Floor>,
        tally: &mut Tally,
    ) {
        if !tally.viable(self.ev, &rf.rel, co) || !self.partial_ok(rf, co) {
            return;
        }
        if let Some((floor, co)) = self.coherence_floor(rf, co, prior) {
            self.choose_last(at, &floor, rf, &co, tally);
        }
    }

    /// When the final state reports location `at`'s value: each write that can be
    /// coherence-last (the final value comes from a write that every other write to the
    /// location precedes in coherence), ordered after the others before the rest of the
    /// coherence order is oriented — so a branch whose final value is not worth finding (a
    /// state already found, or one that cannot decide the condition) is dropped before its
    /// orientations are listed. Then the morally strong pairs left ([`Self::orient`]).
    ///
    /// Every (orientation, last write) pair of choices is met once: the last write's pairs are
    /// all oriented towards it, and the others are oriented after.
    fn choose_last(&self, at: usize, floor: &Floor, rf: &Rf, co: &Rel, tally: &mut Tally) {
        let here = &self.places[at];
        if !here.observed {
            self.orient(at, floor, 0, rf, co, tally);
            return;
        }
        let value = |w: usize| self.ev.value(w).expect("writes have values");
        let all = here.writes.iter().fold(Set::EMPTY, |s, &w| s | bit(w));
        let lasts: Vec<usize> = match here.writes.is_empty() {
            true => here.init.last().copied().into_iter().collect(),
            false => here
                .writes
                .iter()
                .copied()
                .filter(|&t| co.row(t) & all == Set::EMPTY)
                .collect(),
        };
        for t in lasts {
            if !tally.open(Some(&[value(t)])) {
                continue;
            }
            let mut co_t = co.clone();
            for &w in here.writes.iter().filter(|&&w| w != t) {
                add_transitive(&mut co_t, w, t);
            }
            if !(&co_t & &floor.forbidden).is_empty() || !self.locations_ok(rf, &co_t) {
                continue;
            }
            if let Some(targets) = &mut tally.targets {
                targets.push(value(t));
            }
            self.orient(at, floor, 0, rf, &co_t, tally);
            if let Some(targets) = &mut tally.targets {
                targets.pop();
            }
        }
    }

    /// Chooses the writes the first `k` reads of location `at` read from, the last read first
    /// (so choices come in odometer order, the first read turning fastest), dropping a choice
    /// that violates a per-location axiom (or, where asked, a global one partial choices can
    /// break: [`Collector::prefix_global`]); then the coherence order.
    fn reads_from(&self, at: usize, k: usize, rf: &Rf, co: &Rel, tally: &mut Tally) {
        let here = &self.places[at];
        if !self.budget.go_on() {
            return;
        }
        let Some(k) = k.checked_sub(1) else {
            self.choose_coherence(at, rf, co, None, tally);
            return;
        };
        let (r, ws) = &self.candidates[here.reads[k]];
        // How many ways the reads still open can go: checking a prefix pays only when that
        // many completions could be dropped at once.
        let completions: usize = here.reads[..k]
            .iter()
            .map(|&j| self.candidates[j].1.len())
            .product();
        // One copy for all the choices, each added and taken back.
        let mut rf_r = rf.clone();
        for &w in ws {
            if self.ev.rmw.row(*r) != Set::EMPTY
                && members(rf.rel.row(w)).any(|other| self.never_share(here, w, *r, other))
            {
                continue;
            }
            if tally.done() {
                return;
            }
            rf_r.rel.set_row(w, rf.rel.row(w) | bit(*r));
            rf_r.inv.set_row(*r, bit(w));
            // The collector's condition on partial choices first: it is cheap next to the
            // model's axioms, and monotone, so a read it rejects is rejected with every
            // completion. Then the per-location axioms, and where asked the global ones that
            // partial choices can break (both monotone; [`Collector::prefix_global`]).
            if tally.viable(self.ev, &rf_r.rel, co)
                && ((k > 0 && completions < PREFIX_CHECK)
                    || (self.locations_ok(&rf_r, co)
                        && (!tally.prefix_global || self.partial_ok(&rf_r, co))))
            {
                self.reads_from(at, k, &rf_r, co, tally);
            }
            rf_r.rel.set_row(w, rf.rel.row(w));
        }
    }

    /// Whether the reads of two read-modify-writes at `here` can never both read from `w`:
    /// with only those two reads-from pairs and the least coherence between `w` and the two RMW
    /// writes that any execution has (the initial write first, each morally strong pair in one
    /// direction or the other), the per-location axioms fail. They are monotone, so every
    /// execution with both pairs fails them too, and the choice is dropped before any coherence
    /// order is built (Atomicity: whichever RMW writes first comes between the other one's
    /// source and its write).
    fn never_share(&self, here: &Place, w: usize, r1: usize, r2: usize) -> bool {
        let ev = self.ev;
        let key = (w, r1.min(r2), r1.max(r2));
        if let Some(&known) = self.never_share.borrow().get(&key) {
            return known;
        }
        let write_of = |r: usize| members(ev.rmw.row(r)).next();
        let (Some(w1), Some(w2)) = (write_of(r1), write_of(r2)) else {
            return false;
        };
        let mut rf = Rel::empty(ev.n);
        rf.add(w, r1);
        rf.add(w, r2);
        let inv = rf.inv();
        let mut base = Rel::empty(ev.n);
        for &init in &here.init {
            for x in [w, w1, w2].into_iter().filter(|&x| x != init) {
                base.add(init, x);
            }
        }
        let ms = self.checker.morally_strong();
        let pairs: Vec<(usize, usize)> = [(w, w1), (w, w2), (w1, w2)]
            .into_iter()
            .filter(|&(a, b)| ms.has(a, b) || ms.has(b, a))
            .collect();
        let mut some_order_passes = false;
        for mask in 0..1u32 << pairs.len() {
            let mut co = base.clone();
            for (k, &(a, b)) in pairs.iter().enumerate() {
                match mask & (1 << k) == 0 {
                    true => co.add(a, b),
                    false => co.add(b, a),
                }
            }
            let co = co.plus();
            if co.irreflexive() {
                let fr = inv.seq(&co);
                if self.checker.location_ok(ev, &rf, &co, &fr) {
                    some_order_passes = true;
                    break;
                }
            }
        }
        self.never_share
            .borrow_mut()
            .insert(key, !some_order_passes);
        !some_order_passes
    }

    /// With reads-from chosen up to this location: the causality these reads-from pairs and
    /// the synchronization common to every choice already imply (all later choices only add to
    /// it), and the coherence chosen so far grown by every pair the Coherence and Causality
    /// axioms then require ([`coherence_required`]: for this location's writes, and for earlier
    /// locations' whose reads-from causality has grown since). `None` when that already breaks
    /// those axioms: a read causally before the write it reads from, or a required pair
    /// against the coherence chosen so far (a cycle).
    ///
    /// `prior`: a floor computed with the same reads-from, whose causality (which passed) holds.
    fn coherence_floor(&self, rf: &Rf, co: &Rel, prior: Option<&Floor>) -> Option<(Floor, Rel)> {
        let ev = self.ev;
        let cause = match prior {
            Some(prior) => prior.cause.clone(),
            None => {
                let none = Rel::empty(ev.n);
                let x = Dynamic {
                    rf: &rf.rel,
                    co: &none,
                    fr: &none,
                    sync_fence: self.fence_floor,
                    sync_barrier: &self.barrier_floor,
                };
                let cause = self.checker.causality(ev, &x);
                if !rf.rel.seq(&cause).irreflexive() {
                    return None;
                }
                cause
            }
        };
        let co = grown(co, &coherence_required(ev, &cause))?;
        let forbidden = coherence_forbidden(ev, &rf.rel, &cause);
        if !(&co & &forbidden).is_empty() {
            return None;
        }
        Some((Floor { cause, forbidden }, co))
    }

    /// Orients the morally strong pairs of location `at`'s writes from the `k`-th on (PTX ISA
    /// "Coherence order": morally strong overlapping writes are related in coherence order;
    /// others only when causality relates them), keeping coherence transitive: a pair that
    /// the pairs so far already order is not chosen again, so every coherence order comes
    /// once. Each choice only adds pairs, so a prefix failing a per-location axiom (monotone)
    /// is dropped with every completion.
    fn orient(&self, at: usize, floor: &Floor, k: usize, rf: &Rf, co: &Rel, tally: &mut Tally) {
        let here = &self.places[at];
        // States only: once a branch has found every memory it can reach, its other
        // orientations have nothing new.
        if !self.budget.go_on() || !tally.open(None) || !tally.viable(self.ev, &rf.rel, co) {
            return;
        }
        // Pairs already ordered (by program order, by the floor or by an earlier orientation)
        // are passed over in a loop: a location may have thousands of them, one stack frame
        // each would overflow the stack.
        let next = here.ms_pairs[k..]
            .iter()
            .position(|&(a, b)| !co.has(a, b) && !co.has(b, a));
        let Some(skip) = next else {
            self.close_location(at, floor, rf, co, tally);
            return;
        };
        let k = k + skip;
        let (a, b) = here.ms_pairs[k];
        for (x, y) in [(a, b), (b, a)] {
            let mut co_k = co.clone();
            add_transitive(&mut co_k, x, y);
            if (&co_k & &floor.forbidden).is_empty() && self.locations_ok(rf, &co_k) {
                self.orient(at, floor, k + 1, rf, &co_k, tally);
            }
        }
    }

    /// With location `at`'s coherence chosen (its last write, where reported, and every morally
    /// strong pair oriented): the next location.
    fn close_location(&self, at: usize, floor: &Floor, rf: &Rf, co: &Rel, tally: &mut Tally) {
        // A reported location's last write and each orientation after it passed the
        // per-location axioms when chosen; another may have only the floor's pairs.
        if (self.places[at].observed || self.locations_ok(rf, co)) && self.partial_ok(rf, co) {
            self.location(at + 1, rf, co, Some(floor), tally);
        }
    }

    /// The global axioms that partial choices can already break ([`Checker::partial_ok`]), on
    /// the reads-from and coherence chosen so far under the synchronization every fence.sc
    /// order and barrier matching has.
    fn partial_ok(&self, rf: &Rf, co: &Rel) -> bool {
        let fr = rf.inv.seq(co);
        let x = Dynamic {
            rf: &rf.rel,
            co,
            fr: &fr,
            sync_fence: self.fence_floor,
            sync_barrier: &self.barrier_floor,
        };
        self.checker.partial_ok(self.ev, &x)
    }

    /// Every fence.sc order and barrier matching, then the axioms beyond single locations
    /// (every location already passed its own). Coherence grows by the pairs a synchronization
    /// beyond the common one requires.
    fn finish(&self, rf: &Rf, co: &Rel, floor: Option<&Floor>, tally: &mut Tally) {
        let fr = rf.inv.seq(co);
        for sync_fence in self.fence_orders {
            for sync_barrier in &self.barrier_options {
                if tally.done() {
                    return;
                }
                let x = Dynamic {
                    rf: &rf.rel,
                    co,
                    fr: &fr,
                    sync_fence,
                    sync_barrier,
                };
                // Causality reads rf and the synchronization only: under the common
                // synchronization it was computed with the last location's floor, and the
                // coherence pairs it requires are in `co` already.
                let common = sync_fence == self.fence_floor && *sync_barrier == self.barrier_floor;
                let computed;
                let mut co_x = None;
                let cause = match floor {
                    Some(floor) if common => &floor.cause,
                    _ => {
                        computed = self.checker.causality(self.ev, &x);
                        let required = coherence_required(self.ev, &computed);
                        if !required.subset_of(co) {
                            match grown(co, &required) {
                                Some(c) if self.locations_ok(rf, &c) => co_x = Some(c),
                                _ => continue,
                            }
                        }
                        &computed
                    }
                };
                let fr_x = co_x.as_ref().map(|c| rf.inv.seq(c));
                let x = Dynamic {
                    co: co_x.as_ref().unwrap_or(co),
                    fr: fr_x.as_ref().unwrap_or(&fr),
                    ..x
                };
                let accepted = || {
                    tally
                        .accept
                        .as_ref()
                        .is_none_or(|f| f(self.ev, &rf.rel, x.co))
                };
                if self.checker.global_ok(self.ev, &x, cause).is_ok() && accepted() {
                    self.record(&x, tally);
                    // States only: this branch's final state is found.
                    if let Some(targets) = &mut tally.targets {
                        targets.found();
                        return;
                    }
                }
            }
        }
    }

    fn record(&self, x: &Dynamic<'_>, tally: &mut Tally) {
        // The coherence-last write of each location whose final value is read.
        let last = members(self.observed_writes)
            .filter(|&w| x.co.row(w) == Set::EMPTY)
            .fold(Set::EMPTY, |s, w| s | bit(w));
        tally.executions += 1;
        self.budget.execution();
        let raised = self.checker.raised(self.ev, x);
        let racy = u64::from(raised != 0);
        tally.racy += racy;
        match tally.by_last_writes.iter_mut().find(|(l, ..)| *l == last) {
            Some(entry) => {
                entry.1 += 1;
                entry.2 += racy;
                entry.3 |= raised;
            }
            None => {
                let example = self.witnesses.then(|| self.witness(x));
                tally.by_last_writes.push((last, 1, racy, raised, example));
            }
        }
    }

    /// Adds what one combination of traces found to the collector: final states are the
    /// traces' registers (the same for all) and the values of the writes left last.
    fn merge(&self, tally: Tally, out: &mut Collector) {
        out.executions += tally.executions;
        out.racy += tally.racy;
        if tally.by_last_writes.is_empty() {
            return;
        }
        let p = self.p;
        let regs = registers(self.combo, self.reg_keys);
        for (last, count, racy, raised, example) in tally.by_last_writes {
            let mut state = FinalState {
                regs: regs.clone(),
                mem: BTreeMap::new(),
            };
            for w in members(last) {
                let l = p.physical(self.ev.location(w).expect("writes have locations"));
                state.mem.insert(
                    p.locations[l].name.clone(),
                    self.ev.value(w).expect("writes have values"),
                );
            }
            if racy > 0 {
                let entry = out.racy_states.entry(state.clone()).or_insert((0, 0));
                entry.0 += racy;
                entry.1 |= raised;
            }
            let entry = out.states.entry(state).or_insert((0, None));
            entry.0 += count;
            if entry.1.is_none() {
                entry.1 = example;
            }
        }
    }

    fn witness(&self, x: &Dynamic<'_>) -> Execution {
        let ev = self.ev;
        let events = (0..ev.n)
            .map(|e| {
                let EventInfo { thread, stmt, .. } = ev.info[e];
                let span = thread
                    .zip(stmt)
                    .map(|(t, s)| self.p.threads[t].body[s].span);
                ExecEvent {
                    id: e,
                    thread,
                    span,
                    label: ev.label(self.p, e),
                }
            })
            .collect();
        Execution {
            events,
            po: immediate(&ev.po),
            rmw: ev.rmw.pairs().collect(),
            rf: x.rf.pairs().collect(),
            co: immediate(x.co),
            fr: x.fr.pairs().collect(),
            sync: self.checker.synchronizes(ev, x).pairs().collect(),
            sc: x.sync_fence.pairs().collect(),
            barrier: x.sync_barrier.pairs().collect(),
        }
    }
}

/// Calls `f` with every ordering of `items`.
fn for_each_permutation(items: &[usize], f: &mut dyn FnMut(&[usize])) {
    fn go(v: &mut Vec<usize>, k: usize, f: &mut dyn FnMut(&[usize])) {
        if k == v.len() {
            f(v);
            return;
        }
        for i in k..v.len() {
            v.swap(k, i);
            go(v, k + 1, f);
            v.swap(k, i);
        }
    }
    go(&mut items.to_vec(), 0, f);
}

/// The distinct orders fence.sc pairs can take: all fence.sc operations form one total order,
/// of which synchronization only keeps the morally strong pairs. An acyclic orientation of the
/// morally strong pairs always extends to a total order, so orienting those pairs is enough.
///
/// Either orientations of the pairs or permutations of the fences are enumerated, whichever
/// are fewer.
fn fence_orders(ev: &Events, ms: &Rel) -> Result<Vec<Rel>, String> {
    const LIMIT: u64 = 1 << 22;
    let fences: Vec<usize> = members(ev.f_sc).collect();
    let mut pairs = Vec::new();
    for (i, &a) in fences.iter().enumerate() {
        for &b in &fences[i + 1..] {
            if ms.has(a, b) || ms.has(b, a) {
                pairs.push((a, b));
            }
        }
    }
    let orientations = 1u64
        .checked_shl(pairs.len() as u32)
        .filter(|_| pairs.len() < 64)
        .unwrap_or(u64::MAX);
    let permutations = (1..=fences.len() as u64)
        .try_fold(1u64, |a, b| a.checked_mul(b))
        .unwrap_or(u64::MAX);
    if orientations.min(permutations) > LIMIT {
        return Err(format!(
            "{} fence.sc operations have too many orders to enumerate",
            fences.len()
        ));
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut keep = |order: &Rel| {
        let sync_fence = ms & order;
        if seen.insert(sync_fence.clone()) {
            out.push(sync_fence);
        }
    };
    if orientations <= permutations {
        for mask in 0..orientations {
            let mut order = Rel::empty(ev.n);
            for (k, &(a, b)) in pairs.iter().enumerate() {
                if mask & (1 << k) == 0 {
                    order.add(a, b);
                } else {
                    order.add(b, a);
                }
            }
            if order.acyclic() {
                keep(&order);
            }
        }
    } else {
        for_each_permutation(&fences, &mut |sequence| {
            let mut order = Rel::empty(ev.n);
            for (i, &a) in sequence.iter().enumerate() {
                for &b in &sequence[i + 1..] {
                    order.add(a, b);
                }
            }
            keep(&order);
        });
    }
    Ok(out)
}

/// The ways barriers can match, each as a barrier synchronization relation.
///
/// Barriers of one CTA meet when their ids (all id operands, by value) agree. Without a quorum
/// the `k`-th such barrier of each thread takes part in the `k`-th instance (PTX ISA, `bar`: a
/// barrier completes when its expected threads arrive, and is then reset for its next use).
/// With a quorum `q`, instances have exactly `q` barriers of different threads; a barrier left
/// out of every instance never completes, so its thread blocks there — allowed only if the
/// barrier is the thread's last event (otherwise the execution does not run to its end, and
/// final states only come from complete runs).
///
/// Within an instance every barrier synchronizes with every `bar.sync` of another thread (an
/// `arrive` publishes its thread's earlier operations but does not wait).
///
/// A matching whose instances cannot complete in any order is a deadlock, not an execution
/// (see [`completes`]); this depends on program order and the matching only, so it is the
/// same under every model.
fn barrier_syncs(ev: &Events) -> Vec<Rel> {
    type Key = ((u32, u32, u32), Vec<Value>, Option<Value>);
    let mut groups: BTreeMap<Key, Vec<usize>> = BTreeMap::new();
    for b in members(ev.barriers) {
        let Kind::Barrier { id, quorum, .. } = &ev.info[b].kind else {
            continue;
        };
        groups
            .entry((ev.barrier_scope_key(b), id.clone(), *quorum))
            .or_default()
            .push(b);
    }
    let mut options = vec![(Rel::empty(ev.n), Vec::new())];
    for ((_, _, quorum), members) in groups {
        let instances: Vec<Vec<Vec<usize>>> = match quorum {
            None => {
                // The k-th barrier of each thread (members are in event order, so in program
                // order within a thread) joins the k-th instance.
                let mut by_use: Vec<Vec<usize>> = Vec::new();
                let mut uses: BTreeMap<Option<ThreadId>, usize> = BTreeMap::new();
                for &b in &members {
                    let k = uses.entry(ev.info[b].thread).or_insert(0);
                    if by_use.len() <= *k {
                        by_use.push(Vec::new());
                    }
                    by_use[*k].push(b);
                    *k += 1;
                }
                vec![by_use]
            }
            Some(q) => {
                let mut out = Vec::new();
                partitions(
                    ev,
                    &members,
                    q.max(1) as usize,
                    &mut Vec::new(),
                    &mut vec![false; members.len()],
                    &mut out,
                );
                out
            }
        };
        let mut next = Vec::new();
        for partition in &instances {
            let mut rel = Rel::empty(ev.n);
            for instance in partition {
                for &a in instance {
                    for &b in instance {
                        let waits = matches!(
                            ev.info[b].kind,
                            Kind::Barrier {
                                op: BarrierOp::Sync,
                                ..
                            }
                        );
                        if ev.info[a].thread != ev.info[b].thread && waits {
                            rel.add(a, b);
                        }
                    }
                }
            }
            for (o, placed) in &options {
                let mut placed: Vec<Vec<usize>> = placed.clone();
                placed.extend(partition.iter().cloned());
                next.push((o | &rel, placed));
            }
        }
        options = next;
    }
    let cluster = cluster_barrier_syncs(ev);
    options
        .into_iter()
        .filter(|(_, instances)| completes(ev, instances))
        .map(|(rel, _)| &rel | &cluster)
        .collect()
}

/// The synchronization of cluster barriers: the arrive "has .release semantics by default", the
/// wait ".acquire semantics by default" (PTX ISA, *barrier.cluster*), so a `.release` arrive
/// synchronizes with the waits of the other threads of its instance ([`Events::cluster_barrier`])
/// and a `.relaxed` one orders nothing. The matching is fixed by program order, so it is one
/// relation shared by every barrier matching.
fn cluster_barrier_syncs(ev: &Events) -> Rel {
    let release = members(ev.barriers).filter(|&a| {
        matches!(
            ev.info[a].kind,
            Kind::ClusterBarrier(ClusterBarrier::Arrive { release: true })
        )
    });
    let mut rel = Rel::empty(ev.n);
    for a in release {
        rel.set_row(a, ev.cluster_barrier.row(a));
    }
    rel
}

/// The reads-from pairs (write, read) a cluster barrier rules out, `None` without cluster
/// barriers. PTX ISA, *barrier.cluster*: `barrier.cluster.wait` "causes the executing thread to
/// wait for all non-exited threads of the cluster to perform barrier.cluster.arrive". A thread
/// of the cluster with no arrive in a wait's instance (fewer arrives than the wait's thread
/// before it) is waited for until it exits, and it exits once its reads have returned their
/// values; a write after the wait in program order is performed only once the wait completed,
/// so none of that thread's reads reads from it. (A thread that arrives gives no such order: a
/// `.relaxed` arrive leaves its earlier reads unperformed, and a `.release` one synchronizes
/// with the wait, which orders them already.) The memory model chapter does not speak of
/// exits; without this rule the axioms would let such a read see the write, a race the hardware
/// cannot run.
fn cluster_exits(ev: &Events) -> Option<Rel> {
    let cluster_op = |e: usize| match ev.info[e].kind {
        Kind::ClusterBarrier(op) => Some(op),
        _ => None,
    };
    let waits: Vec<usize> = members(ev.barriers)
        .filter(|&b| cluster_op(b) == Some(ClusterBarrier::Wait))
        .collect();
    if waits.is_empty() {
        return None;
    }
    let arrive = |e: usize| matches!(cluster_op(e), Some(ClusterBarrier::Arrive { .. }));
    // A thread's cluster (as in `cluster_barrier_syncs`) and how many times it arrives.
    let key =
        |e: usize| ev.placement[e].map(|pl| (pl.gpu, pl.cluster, pl.cluster.map_or(pl.cta, |_| 0)));
    let thread = |e: usize| ev.info[e].thread;
    // A copy's accesses are the copy unit's, which a thread's exit does not stop (the
    // runtime's copy agents outlive their issuers likewise).
    let in_po = |e: usize| thread(e).is_some() && !ev.bulk.contains(e) && !ev.cp_async.contains(e);
    let mut rel = Rel::empty(ev.n);
    for w in waits {
        let before = members(ev.barriers)
            .filter(|&a| arrive(a) && ev.po.has(a, w))
            .count();
        // A wait before any arrive waits for nothing.
        let Some(k) = before.checked_sub(1) else {
            continue;
        };
        let later_writes: Vec<usize> = members(ev.w).filter(|&x| ev.po.has(w, x)).collect();
        let gone = |u: Option<ThreadId>| {
            let arrives = members(ev.barriers)
                .filter(|&a| arrive(a) && thread(a) == u)
                .count();
            u != thread(w) && arrives <= k
        };
        for r in members(ev.r).filter(|&r| in_po(r) && key(r) == key(w) && gone(thread(r))) {
            for &x in &later_writes {
                rel.add(x, r);
            }
        }
    }
    Some(rel)
}

/// Whether barrier instances can complete one after another: an instance completes once all
/// its barriers are reached, and a thread waiting at a `bar.sync` reaches nothing after it
/// until that barrier's instance completes. So an instance with a barrier that comes in
/// program order after a waiting barrier of another (or the same) instance must complete after
/// it; a cycle of such orders is a deadlock (threads crossing two named barriers, `bar.sync 0;
/// bar.sync 1` against `bar.sync 1; bar.sync 0`, wait for each other forever).
fn completes(ev: &Events, instances: &[Vec<usize>]) -> bool {
    let n = instances.len();
    let mut after = vec![Vec::new(); n];
    for (i, a_instance) in instances.iter().enumerate() {
        for &a in a_instance {
            let waits = matches!(
                ev.info[a].kind,
                Kind::Barrier {
                    op: BarrierOp::Sync,
                    ..
                }
            );
            if !waits {
                continue;
            }
            for (j, b_instance) in instances.iter().enumerate() {
                if b_instance.iter().any(|&b| ev.po.has(a, b)) {
                    after[i].push(j);
                }
            }
        }
    }
    // Kahn's algorithm: every instance completes iff the order is acyclic.
    let mut waiting_on = vec![0usize; n];
    for js in &after {
        for &j in js {
            waiting_on[j] += 1;
        }
    }
    let mut ready: Vec<usize> = (0..n).filter(|&j| waiting_on[j] == 0).collect();
    let mut done = 0;
    while let Some(i) = ready.pop() {
        done += 1;
        for &j in &after[i] {
            waiting_on[j] -= 1;
            if waiting_on[j] == 0 {
                ready.push(j);
            }
        }
    }
    done == n
}

/// Splits `members` into instances of exactly `q` barriers of distinct threads, leaving out
/// only barriers that end their thread.
fn partitions(
    ev: &Events,
    members: &[usize],
    q: usize,
    current: &mut Vec<Vec<usize>>,
    used: &mut Vec<bool>,
    out: &mut Vec<Vec<Vec<usize>>>,
) {
    let Some(first) = (0..members.len()).find(|&i| !used[i]) else {
        out.push(current.clone());
        return;
    };
    used[first] = true;
    // Left out: it blocks forever, which only a thread's last event may do.
    if ev.last_of_thread(members[first]) {
        partitions(ev, members, q, current, used, out);
    }
    // Or completes an instance with q-1 later barriers of other threads.
    let rest: Vec<usize> = (first + 1..members.len()).filter(|&i| !used[i]).collect();
    let mut pick = Vec::new();
    choose(&rest, q - 1, 0, &mut pick, &mut |picked| {
        let mut threads: Set = Set::EMPTY;
        let mut instance = vec![members[first]];
        instance.extend(picked.iter().map(|&i| members[i]));
        for &e in &instance {
            let t = ev.info[e].thread.unwrap_or(0);
            if threads & bit(t) != Set::EMPTY {
                return;
            }
            threads |= bit(t);
        }
        for &i in picked {
            used[i] = true;
        }
        current.push(instance);
        partitions(ev, members, q, current, used, out);
        current.pop();
        for &i in picked {
            used[i] = false;
        }
    });
    used[first] = false;
}

fn choose(
    from: &[usize],
    k: usize,
    start: usize,
    pick: &mut Vec<usize>,
    f: &mut dyn FnMut(&[usize]),
) {
    if pick.len() == k {
        f(pick);
        return;
    }
    for i in start..from.len() {
        pick.push(from[i]);
        choose(from, k, i + 1, pick, f);
        pick.pop();
    }
}
