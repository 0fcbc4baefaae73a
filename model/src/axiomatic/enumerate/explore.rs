//! Exploring one combination of thread traces: events, static relations and fence.sc /
//! barrier options built once ([`Explorer::prepared`]), then every valuation's candidate
//! executions searched ([`Search`]) and collected ([`Collector`]).

use super::collector::{Collector, NeverShare};
use super::order::common;
use super::search::{last_values, registers, Place, Search, Tally};
use super::sync::{barrier_syncs, cluster_exits, fence_orders};
use crate::axiomatic::budget::Budget;
use crate::axiomatic::events::{Kind, Trace};
use crate::axiomatic::execution::Events;
use crate::axiomatic::models::{prepare, Checker};
use crate::axiomatic::rel::{bit, members, Rel, Set};
use crate::axiomatic::targets::{Memories, Targets};
use crate::axiomatic::wanted::ForRegisters;
use crate::axiomatic::{FinalState, Model};
use crate::litmus::*;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Explores the candidate executions of the valuations of one combination of thread paths.
/// The valuations differ only in values, so the events, their static relations, the model
/// prepared on them and the fence.sc orders are built once, by the first valuation that needs
/// them, and only the values change for the next.
pub struct Explorer<'p> {
    pub(super) p: &'p Program,
    pub(super) model: Model,
    pub(super) search: SearchFn,
    pub(super) shared: Option<Shared>,
    /// States only: the final memories found, per register values.
    pub(super) memories: Memories,
    /// States only: the wanted final states these paths can have (`None`: every one).
    pub(super) wanted: Option<Rc<ForRegisters>>,
    /// Per location, whether the final state reports its value.
    pub(super) observed: &'p [bool],
    pub(super) budget: &'p Budget,
    /// Deciding the condition: the value of the proposition on the states worth finding.
    pub(super) goal: Option<bool>,
}

/// How to go through the candidate executions of one combination of traces.
pub type SearchFn = fn(&Search<'_>, &mut Tally);

pub(super) struct Shared {
    pub(super) ev: Events,
    pub(super) checker: Box<dyn Checker>,
    /// Per physical location, in order.
    pub(super) places: Vec<Place>,
    /// Per thread, the final state's name of each of its registers (`P0:r1`), in the order of
    /// its traces' registers.
    pub(super) reg_keys: Vec<Vec<String>>,
    /// Every read with the writes it may read from, for the current valuation.
    pub(super) candidates: Vec<(usize, Vec<usize>)>,
    /// The fence.sc orders and what they all have in common, once computed.
    pub(super) fences: Option<(Vec<Rel>, Rel)>,
    /// Which read-modify-writes can never read from the same write, as found so far.
    pub(super) never_share: NeverShare,
}

impl<'p> Explorer<'p> {
    /// `wanted`: states only, the wanted states for these paths' registers (`None`: every
    /// state); `observed`: per location, whether the final state reports its value (see
    /// [`crate::axiomatic::observed_locations`]).
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
    pub(super) fn goal_memories(
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
            if crate::axiomatic::condition_holds_on(p, &state) == sat
                && crate::axiomatic::filter_admits(p, &state)
            {
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

/// Cheap test before building events: every value a read returns is written by some store of
/// this combination (or is the initial value).
pub(super) fn values_available(p: &Program, combo: &[&Trace]) -> bool {
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
