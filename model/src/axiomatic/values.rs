//! Values along reads-from: which values the reads of a combination of paths (one per thread)
//! can return, found by choosing for each read a write to its location and computing values
//! along that choice (as herd does for loop-free code), instead of guessing them.
//!
//! Reads are given sources one at a time; after each choice every value that can be computed
//! is, and a choice that contradicts an assumption of a path (a branch or CAS side) is dropped
//! at once. A read whose source's value depends on the read itself (a cycle of data flow
//! through reads-from) cannot be computed: it takes each value already in play at its location
//! (the initial value, or one an evaluated write stores there) and keeps those that its source
//! then confirms. Such executions are thin air, which the PTX models' No-Thin-Air axiom rejects;
//! under a model without such an axiom (Tile IR, Vulkan, OpenCL) a cycle may justify any value,
//! and such a read also takes one value of each class the program's comparisons tell apart
//! ([`Valuations::allow_thin_air`]).
//!
//! Under the PTX models, whose No-Thin-Air axiom rejects every execution with such a cycle,
//! only valuations without one can have consistent executions; [`Valuations::for_each_grounded`]
//! finds exactly those, by values rather than by sources, and much faster on chains of
//! read-modify-writes (where almost every write's value depends on a read).
//!
//! Each distinct valuation gives one trace per thread; `enumerate.rs` then chooses reads-from
//! again, among the writes of the value each read returned, with coherence and the rest.

use super::events::{Expr, Kind, Path, ThreadEvent, Trace};
use super::wanted::ForRegisters;
use crate::hash::Mix;
use crate::litmus::{Cmp, LocationKind, Program, Prop, Term, Value};
use std::collections::HashSet;
use std::hash::BuildHasherDefault;
use std::ops::ControlFlow;
use std::rc::Rc;

/// A write a read may take its value from.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Source {
    Initial(Value),
    /// Thread and index of the write in its path.
    Write(usize, usize),
}

/// The reads of one combination of paths and the writes each may read from.
pub struct Valuations<'a> {
    paths: &'a [&'a Path],
    /// Where each thread's events start in the flat value vector.
    offset: Vec<usize>,
    /// Thread and index of each read, with its possible sources.
    reads: Vec<(usize, usize, Vec<Source>)>,
    /// Each read's index in the flat value vector.
    flat: Vec<usize>,
    /// Only valuations giving the registers (in the paths' order) wanted values are wanted
    /// (`None`: every valuation).
    wanted: Option<Rc<ForRegisters>>,
    /// How many registers the paths have in all.
    register_count: usize,
    /// Per read (in `reads` order), what its value may decide.
    mentioned_by: Vec<Mentions<'a>>,
    /// Deciding a condition: only valuations whose registers may still give the proposition
    /// this value (memory not known yet) are wanted.
    goal: Option<(&'a Program, bool)>,
    /// Per read (in `reads` order), its event id and each source's, as `Events` numbers them
    /// (the initial writes of the locations first, then each thread's events in order).
    events: Vec<(usize, Vec<usize>)>,
    /// A test of the reads-from pairs a partial valuation forces ([`Self::check_reads_from`]).
    rf_check: Option<RfCheck<'a>>,
    /// How many initial writes come before the threads' events in `Events`.
    inits: usize,
    /// Values a read on a data-flow cycle may also take beyond those in play
    /// ([`Self::allow_thin_air`]): the constants named, and the first value above them all
    /// (`None`: the model forbids thin air, no such values).
    named: Vec<Value>,
    unnamed: Option<Value>,
}

/// Whether some consistent execution may have every one of these reads-from pairs (write, read;
/// event ids as `Events` numbers them): false drops the valuation's branch.
pub type RfCheck<'a> = &'a dyn Fn(&[(usize, usize)]) -> bool;

/// The assumptions (thread, index) and registers (thread, index over every thread's registers,
/// expression) whose expressions mention one read.
type Mentions<'a> = (Vec<(usize, usize)>, Vec<(usize, usize, &'a Expr)>);

/// The value of every read (by flat index; other events hold `None`).
type Values = Vec<Option<Value>>;

/// The state of [`Valuations::for_each_grounded`]'s search.
struct Rounds {
    values: Values,
    /// For each read that waited for a later round, the values it could have taken then.
    waited: Vec<Vec<Value>>,
    /// The reads waiting for the next round.
    deferred: Vec<usize>,
    /// Buffers for the values a read may take, kept for reuse.
    spare: Vec<Vec<Value>>,
}

impl<'a> Valuations<'a> {
    /// The reads of `paths` (one path per thread of `p`, in thread order) and, for each, the
    /// writes it may read from: the initial write of its physical location and every write of
    /// that location in any of the paths, but its own RMW's write.
    pub fn new(p: &Program, paths: &'a [&'a Path]) -> Valuations<'a> {
        let mut offset = Vec::with_capacity(paths.len());
        let mut at = 0;
        for path in paths {
            offset.push(at);
            at += path.events.len();
        }
        let location = |k: &Kind<_>| match k {
            Kind::Read { loc, .. } | Kind::Write { loc, .. } => Some(p.physical(*loc)),
            _ => None,
        };
        let mut reads = Vec::new();
        for (t, path) in paths.iter().enumerate() {
            for (i, e) in path.events.iter().enumerate() {
                let Kind::Read { loc, rmw, .. } = e.kind else {
                    continue;
                };
                let l = p.physical(loc);
                let mut sources = vec![Source::Initial(p.initial_value(l))];
                for (u, other) in paths.iter().enumerate() {
                    for (j, w) in other.events.iter().enumerate() {
                        // Never the read's own RMW write.
                        let own = rmw && u == t && j == i + 1;
                        if matches!(w.kind, Kind::Write { .. })
                            && location(&w.kind) == Some(l)
                            && !own
                        {
                            sources.push(Source::Write(u, j));
                        }
                    }
                }
                reads.push((t, i, sources));
            }
        }
        let flat: Vec<usize> = reads.iter().map(|(t, i, _)| offset[*t] + i).collect();
        // Event ids: one initial write per plain location, in order, then the threads' events.
        let initial_event = |l: usize| {
            (0..l)
                .filter(|&m| matches!(p.locations[m].kind, LocationKind::Plain { .. }))
                .count()
        };
        let inits = initial_event(p.locations.len());
        let events = reads
            .iter()
            .zip(&flat)
            .map(|((t, i, sources), &f)| {
                let Kind::Read { loc, .. } = paths[*t].events[*i].kind else {
                    unreachable!("reads are reads")
                };
                let ids = sources
                    .iter()
                    .map(|s| match *s {
                        Source::Initial(_) => initial_event(p.physical(loc)),
                        Source::Write(u, j) => inits + offset[u] + j,
                    })
                    .collect();
                (inits + f, ids)
            })
            .collect();
        let mut mentioned_by: Vec<Mentions<'a>> = vec![(Vec::new(), Vec::new()); reads.len()];
        let read_of = |t: usize, i: usize| flat.iter().position(|&f| f == offset[t] + i);
        let mut g = 0;
        for (t, path) in paths.iter().enumerate() {
            for (a, assumption) in path.assumes.iter().enumerate() {
                let mut mentioned = Vec::new();
                assumption.a.reads(&mut mentioned);
                assumption.b.reads(&mut mentioned);
                mentioned.sort_unstable();
                mentioned.dedup();
                for k in mentioned.into_iter().filter_map(|i| read_of(t, i)) {
                    mentioned_by[k].0.push((t, a));
                }
            }
            for e in path.regs.values() {
                let mut mentioned = Vec::new();
                e.reads(&mut mentioned);
                mentioned.sort_unstable();
                mentioned.dedup();
                for k in mentioned.into_iter().filter_map(|i| read_of(t, i)) {
                    mentioned_by[k].1.push((t, g, e));
                }
                g += 1;
            }
        }
        Valuations {
            paths,
            offset,
            reads,
            flat,
            wanted: None,
            register_count: g,
            mentioned_by,
            goal: None,
            events,
            rf_check: None,
            inits,
            named: Vec::new(),
            unnamed: None,
        }
    }

    /// Under a model without a No-Thin-Air axiom: a read on a data-flow cycle may return any
    /// value its cycle confirms, not only the values in play. Values are only ever compared for
    /// equality (`==`/`!=` in the final condition, the filter, branches and CAS), so the
    /// unboundedly many self-justified values fall into classes: each constant those
    /// comparisons name, and the values equal to none of them. A read on a cycle therefore also
    /// tries each named constant and a value named nowhere, which stands for the rest: one
    /// above every named constant, or, where earlier cycles took such values, one of theirs or
    /// the next (so that two cycles compared with each other may be equal or not). The model,
    /// not the valuation, then judges each execution.
    pub fn allow_thin_air(&mut self, p: &Program) {
        let mut named: Vec<Value> = p
            .condition_terms()
            .into_iter()
            .filter_map(|t| match t {
                Term::Const(v) => Some(*v),
                _ => None,
            })
            .collect();
        for assumption in self.paths.iter().flat_map(|path| &path.assumes) {
            for e in [&assumption.a, &assumption.b] {
                if let Expr::Const(v) = e {
                    named.push(*v);
                }
            }
        }
        named.sort_unstable();
        named.dedup();
        self.unnamed = Some(named.last().map_or(1, |v| v.saturating_add(1)));
        self.named = named;
    }

    /// Deciding the condition (`sat`: the proposition's value wanted): per reported location
    /// (`observed`, by physical location), the write that must end coherence where the
    /// condition and the filter allow one final value only among the values its writes
    /// store — as event ids (see [`Self::check_reads_from`]), with every other write to the
    /// location. `None` when no write's value allows it: these paths decide nothing.
    ///
    /// Only locations whose writes all store constants are looked at (others are left free).
    pub fn forced_last_writes(
        &self,
        p: &Program,
        sat: bool,
        observed: &[bool],
    ) -> Option<Vec<(usize, Vec<usize>)>> {
        let prop_depth = depth(&p.condition.prop).max(p.filter.as_ref().map_or(0, depth));
        if prop_depth > GOAL_DEPTH {
            return Some(Vec::new());
        }
        let mut out = Vec::new();
        for l in (0..p.locations.len()).filter(|&l| p.physical(l) == l && observed[l]) {
            // (event id, stored value) of every write to l.
            let mut writes = Vec::new();
            let mut constant = true;
            for (t, path) in self.paths.iter().enumerate() {
                for (j, e) in path.events.iter().enumerate() {
                    if let Kind::Write { loc, value, .. } = &e.kind {
                        if p.physical(*loc) == l {
                            match value {
                                Expr::Const(v) => {
                                    writes.push((self.inits + self.offset[t] + j, *v))
                                }
                                _ => constant = false,
                            }
                        }
                    }
                }
            }
            if !constant || writes.is_empty() {
                continue;
            }
            let open: Vec<usize> = writes
                .iter()
                .filter(|&&(_, v)| final_value_open(p, sat, l, v))
                .map(|&(w, _)| w)
                .collect();
            match open[..] {
                [] => return None,
                [last] => out.push((
                    last,
                    writes
                        .iter()
                        .map(|&(w, _)| w)
                        .filter(|&w| w != last)
                        .collect(),
                )),
                _ => {}
            }
        }
        Some(out)
    }

    /// The paths' events as traces (every read returning 0): what `enumerate.rs`'s `Prefix`
    /// needs, which does not look at values.
    pub fn skeleton(&self) -> Vec<Trace> {
        let n = self.paths.iter().map(|path| path.events.len()).sum();
        self.traces(&vec![Some(0); n])
    }

    /// How many ways the reads may choose a source, saturating (a measure of the valuations'
    /// number before values narrow it).
    pub fn breadth(&self) -> u64 {
        self.reads.iter().fold(1u64, |a, (_, _, sources)| {
            a.saturating_mul(sources.len() as u64)
        })
    }

    /// Drops a branch as soon as the reads-from pairs its values force (a valued read that
    /// only one of its sources can have supplied: the others write other values) fail `check`.
    pub fn check_reads_from(&mut self, check: RfCheck<'a>) {
        self.rf_check = Some(check);
    }

    /// The reads-from pairs forced by the values so far pass the check; `k`: the read just
    /// valued (nothing new is forced unless it is).
    fn reads_from_possible(&self, values: &Values, k: usize) -> bool {
        let Some(check) = self.rf_check else {
            return true;
        };
        if self.forced(values, k).is_none() {
            return true;
        }
        check(&self.forced_pairs(values))
    }

    /// The reads-from pairs [`Self::choose`] has fixed: those the values force and each
    /// source chosen.
    fn fixed_pairs(&self, rf: &[Option<Source>], values: &Values) -> Vec<(usize, usize)> {
        let mut pairs = self.forced_pairs(values);
        for (k, source) in rf.iter().enumerate() {
            let Some(source) = source else { continue };
            let (read, ids) = &self.events[k];
            if let Some(i) = self.reads[k].2.iter().position(|s| s == source) {
                if !pairs.contains(&(ids[i], *read)) {
                    pairs.push((ids[i], *read));
                }
            }
        }
        pairs
    }

    /// After [`Self::choose`] gave read `k` a value or a source (and propagated): whether the
    /// pairs fixed now pass the check (`before`: those fixed before, which passed), and when
    /// `k` got a value that more than one source may have written, whether one of those
    /// sources passes it with them (every execution reads `k` from one of them). `Some(s)`:
    /// `s` is the only such source, so every execution with these pairs reads `k` from it (the
    /// check is monotone: the others stay ruled out as pairs are added).
    fn choice_possible(
        &self,
        rf: &[Option<Source>],
        values: &Values,
        k: usize,
        before: &[(usize, usize)],
    ) -> Option<Option<Source>> {
        let Some(check) = self.rf_check else {
            return Some(None);
        };
        let mut pairs = self.fixed_pairs(rf, values);
        if pairs.len() != before.len() && !check(&pairs) {
            return None;
        }
        let Some(v) = values[self.flat(k)] else {
            return Some(None);
        };
        if rf[k].is_some() || self.forced(values, k).is_some() {
            return Some(None);
        }
        let (read, ids) = &self.events[k];
        let mut viable = self.reads[k]
            .2
            .iter()
            .zip(ids)
            .filter(|&(&s, _)| self.source_value(Some(s), values).is_none_or(|w| w == v))
            .filter(|&(_, &id)| {
                pairs.push((id, *read));
                let ok = check(&pairs);
                pairs.pop();
                ok
            })
            .map(|(&s, _)| s);
        let first = viable.next()?;
        Some(match viable.next() {
            None => Some(first),
            Some(_) => None,
        })
    }

    /// The reads-from pair (write, read) that read `k`'s value forces: the only source that
    /// can have written it (the others write other values).
    fn forced(&self, values: &Values, k: usize) -> Option<(usize, usize)> {
        let v = values[self.flat(k)]?;
        let (read, ids) = &self.events[k];
        let mut only = None;
        for (&s, &id) in self.reads[k].2.iter().zip(ids) {
            if self.source_value(Some(s), values).is_none_or(|w| w == v) {
                if only.is_some() {
                    return None;
                }
                only = Some((id, *read));
            }
        }
        only
    }

    /// Every reads-from pair the values so far force.
    fn forced_pairs(&self, values: &Values) -> Vec<(usize, usize)> {
        (0..self.reads.len())
            .filter_map(|k| self.forced(values, k))
            .collect()
    }

    /// Keeps only the valuations whose registers leave the final condition's proposition able
    /// to evaluate to `sat` and the filter able to pass (locations still unknown): a branch
    /// is dropped as soon as the
    /// registers it has computed decide the proposition the other way. Conditions nested
    /// deeper than [`GOAL_DEPTH`] are not looked at here.
    pub fn want_condition(&mut self, p: &'a Program, sat: bool) {
        let filter_depth = p.filter.as_ref().map_or(0, depth);
        if depth(&p.condition.prop).max(filter_depth) <= GOAL_DEPTH {
            self.goal = Some((p, sat));
        }
    }

    /// Whether the proposition may still take the goal's value.
    fn goal_open(&self, values: &Values) -> bool {
        let Some((p, sat)) = self.goal else {
            return true;
        };
        let term = |t: &Term| -> Option<Value> {
            match t {
                Term::Const(v) => Some(*v),
                Term::Loc(_) => None,
                Term::Reg(th, r) => match self.paths.get(*th).and_then(|path| path.regs.get(r)) {
                    Some(e) => e.eval(&|i: usize| values[self.offset[*th] + i]),
                    None => Some(p.initial_reg(*th, r)),
                },
            }
        };
        three_valued(&p.condition.prop, &term) != Some(!sat)
            && p.filter
                .as_ref()
                .is_none_or(|f| three_valued(f, &term) != Some(false))
    }

    /// Makes [`Self::for_each_grounded`] keep only the valuations whose registers (every
    /// thread's, in the paths' order) take wanted values; it drops a branch as soon as a
    /// register it has computed has a value no wanted state gives it.
    pub fn want_registers(&mut self, wanted: Rc<ForRegisters>) {
        self.wanted = Some(wanted);
    }

    /// Calls `f` with the traces of every distinct valuation that satisfies every assumption,
    /// until `f` breaks.
    pub fn for_each(&self, f: &mut dyn FnMut(Vec<Trace>) -> ControlFlow<()>) {
        let n = self.paths.iter().map(|path| path.events.len()).sum();
        let mut seen: HashSet<Values, BuildHasherDefault<Mix>> = HashSet::default();
        let mut emit = |values: &Values| {
            if seen.insert(values.clone()) {
                f(self.traces(values))
            } else {
                ControlFlow::Continue(())
            }
        };
        let _ = self.choose(&mut vec![None; self.reads.len()], &vec![None; n], &mut emit);
    }

    /// Like [`Self::for_each`], but only valuations without a data-flow cycle through
    /// reads-from: every read's value is written by a source whose own value follows from
    /// reads valued before it. Under a model with No-Thin-Air these are the only valuations
    /// with consistent executions (an execution's reads-from, acyclic with the dependencies,
    /// orders its reads so), and they are found without choosing a source per read.
    ///
    /// The reads are visited in rounds. At its turn a read takes one of the values its sources
    /// are known to write by then, or waits for the next round if some source's value is not
    /// known yet; a read that waited may later only take a value it could not take before
    /// (had it taken that value earlier, every later choice would still be open). So each
    /// valuation is found once, at the earliest turn of each read. A round that values no
    /// read ends the search: the reads left can only justify each other.
    pub fn for_each_grounded(&self, f: &mut dyn FnMut(Vec<Trace>) -> ControlFlow<()>) {
        let n = self.paths.iter().map(|path| path.events.len()).sum();
        let mut rounds = Rounds {
            values: vec![None; n],
            waited: vec![Vec::new(); self.reads.len()],
            deferred: Vec::new(),
            spare: Vec::new(),
        };
        let first: Vec<usize> = (0..self.reads.len()).collect();
        let mut emit = |values: &Values| f(self.traces(values));
        let _ = self.ground(&mut rounds, &first, false, &mut emit);
    }

    /// Gives the reads of `round` their turns; `progressed` says whether this round has
    /// valued some read yet.
    fn ground(
        &self,
        r: &mut Rounds,
        round: &[usize],
        progressed: bool,
        emit: &mut dyn FnMut(&Values) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let Some((&k, rest)) = round.split_first() else {
            if r.deferred.is_empty() {
                let registers = |w: &Rc<ForRegisters>| self.registers_wanted(w, &r.values);
                if self.satisfied(&r.values) && self.wanted.as_ref().is_none_or(registers) {
                    return emit(&r.values);
                }
                return ControlFlow::Continue(());
            }
            if !progressed {
                return ControlFlow::Continue(());
            }
            let next = std::mem::take(&mut r.deferred);
            let flow = self.ground(r, &next, false, emit);
            r.deferred = next;
            return flow;
        };
        let mut known = r.spare.pop().unwrap_or_default();
        known.clear();
        let mut waits = false;
        for &s in &self.reads[k].2 {
            match self.source_value(Some(s), &r.values) {
                Some(v) => known.push(v),
                None => waits = true,
            }
        }
        known.sort_unstable();
        known.dedup();
        let at = self.flat(k);
        for &v in &known {
            if r.waited[k].contains(&v) {
                continue;
            }
            r.values[at] = Some(v);
            if self.still_possible(&r.values, k) && self.reads_from_possible(&r.values, k) {
                self.ground(r, rest, true, emit)?;
            }
        }
        r.values[at] = None;
        if waits {
            let before = std::mem::replace(&mut r.waited[k], known);
            r.deferred.push(k);
            let flow = self.ground(r, rest, progressed, emit);
            r.deferred.pop();
            known = std::mem::replace(&mut r.waited[k], before);
            flow?;
        }
        r.spare.push(known);
        ControlFlow::Continue(())
    }

    /// Whether some valuation satisfies every assumption.
    pub fn any(&self) -> bool {
        let mut found = false;
        self.for_each(&mut |_| {
            found = true;
            ControlFlow::Break(())
        });
        found
    }

    /// Chooses a source for one more read, and for the rest. The read with the fewest options
    /// goes first, and sources whose values are already known count once per distinct value:
    /// what follows depends on the value read, not on which write supplied it.
    fn choose(
        &self,
        rf: &mut Vec<Option<Source>>,
        values: &Values,
        emit: &mut dyn FnMut(&Values) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        // Reads that branches test first: a path's assumptions then fail (or its reads-from
        // pairs do) before the reads that only fill registers multiply the branches.
        let open = (0..self.reads.len())
            .filter(|&k| rf[k].is_none() && values[self.flat(k)].is_none())
            .min_by_key(|&k| {
                (
                    self.mentioned_by[k].0.is_empty(),
                    self.count_options(k, values),
                )
            });
        let Some(k) = open else {
            return self.settle(rf, values.clone(), emit);
        };
        let before = match self.rf_check {
            Some(_) => self.fixed_pairs(rf, values),
            None => Vec::new(),
        };
        for option in self.options(k, values) {
            let mut next = values.clone();
            match option {
                Ok(v) => next[self.flat(k)] = Some(v),
                Err(source) => rf[k] = Some(source),
            }
            self.propagate(rf, &mut next);
            if !self.possible(&next) {
                rf[k] = None;
                continue;
            }
            if let Some(only) = self.choice_possible(rf, &next, k, &before) {
                if only.is_some() {
                    rf[k] = only;
                }
                self.choose(rf, &next, emit)?;
            }
            rf[k] = None;
        }
        ControlFlow::Continue(())
    }

    /// How many options [`Self::options`] gives, without allocating (it ranks every open
    /// read at every step); beyond 16 known values each counts as distinct.
    fn count_options(&self, k: usize, values: &Values) -> usize {
        let mut known = [0 as Value; 16];
        let (mut distinct, mut count) = (0, 0);
        for &s in &self.reads[k].2 {
            match self.source_value(Some(s), values) {
                Some(v) if known[..distinct].contains(&v) => {}
                Some(v) if distinct < known.len() => {
                    known[distinct] = v;
                    distinct += 1;
                    count += 1;
                }
                _ => count += 1,
            }
        }
        count
    }

    /// What read `k` may return: each value its sources are known to write (`Ok`), and each
    /// source whose value is not known yet (`Err`).
    fn options(&self, k: usize, values: &Values) -> Vec<Result<Value, Source>> {
        let mut known = Vec::new();
        let mut pending = Vec::new();
        for &s in &self.reads[k].2 {
            match self.source_value(Some(s), values) {
                Some(v) => known.push(v),
                None => pending.push(Err(s)),
            }
        }
        known.sort();
        known.dedup();
        known.into_iter().map(Ok).chain(pending).collect()
    }

    /// With every source chosen: values left open lie on a data-flow cycle; take each value in
    /// play (and each value [`Self::allow_thin_air`] names) for the first of them, and keep
    /// the valuations that every source confirms.
    fn settle(
        &self,
        rf: &[Option<Source>],
        mut values: Values,
        emit: &mut dyn FnMut(&Values) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        self.propagate(rf, &mut values);
        // Values only grow: a guess its source already contradicts, or a broken assumption,
        // stays so whatever is guessed next.
        if !self.possible(&values) || !self.confirmed(rf, &values) {
            return ControlFlow::Continue(());
        }
        let open = (0..self.reads.len()).find(|&k| values[self.flat(k)].is_none());
        let Some(k) = open else {
            // Reads given a value directly chose it among their sources' values.
            if self.satisfied(&values) {
                return emit(&values);
            }
            return ControlFlow::Continue(());
        };
        let mut in_play: Vec<Value> = self.reads[k]
            .2
            .iter()
            .filter_map(|&s| self.source_value(Some(s), &values))
            .chain(self.named.iter().copied())
            .collect();
        if let Some(base) = self.unnamed {
            let mut taken: Vec<Value> = values
                .iter()
                .flatten()
                .filter(|&&v| v >= base)
                .copied()
                .collect();
            taken.sort_unstable();
            taken.dedup();
            let next = taken.last().map_or(base, |v| v.saturating_add(1));
            in_play.extend(taken);
            in_play.push(next);
        }
        in_play.sort();
        in_play.dedup();
        for v in in_play {
            let mut guessed = values.clone();
            guessed[self.flat(k)] = Some(v);
            self.settle(rf, guessed, emit)?;
        }
        ControlFlow::Continue(())
    }

    /// Every read with a chosen source holds that source's value, where both are known.
    fn confirmed(&self, rf: &[Option<Source>], values: &Values) -> bool {
        (0..self.reads.len()).all(|k| match (values[self.flat(k)], rf[k]) {
            (Some(v), Some(_)) => self.source_value(rf[k], values).is_none_or(|w| w == v),
            _ => true,
        })
    }

    fn flat(&self, k: usize) -> usize {
        self.flat[k]
    }

    /// The value a source writes, once it can be computed.
    fn source_value(&self, source: Option<Source>, values: &Values) -> Option<Value> {
        match source? {
            Source::Initial(v) => Some(v),
            Source::Write(t, j) => match &self.paths[t].events[j].kind {
                Kind::Write { value, .. } => value.eval(&|i| values[self.offset[t] + i]),
                _ => None,
            },
        }
    }

    /// Computes every read value its chosen source determines, to a fixpoint.
    fn propagate(&self, rf: &[Option<Source>], values: &mut Values) {
        loop {
            let mut changed = false;
            for (k, &source) in rf.iter().enumerate() {
                let at = self.flat(k);
                if values[at].is_none() {
                    if let Some(v) = self.source_value(source, values) {
                        values[at] = Some(v);
                        changed = true;
                    }
                }
            }
            if !changed {
                return;
            }
        }
    }

    /// No assumption is contradicted by the values known so far.
    fn possible(&self, values: &Values) -> bool {
        self.paths.iter().enumerate().all(|(t, path)| {
            let read = |i: usize| values[self.offset[t] + i];
            path.assumes.iter().all(|a| a.holds(&read) != Some(false))
        }) && self.goal_open(values)
    }

    /// Every register known so far has a value some wanted state gives it, and once all are
    /// known, some wanted state gives them all theirs.
    fn registers_wanted(&self, wanted: &ForRegisters, values: &Values) -> bool {
        let registers = self.paths.iter().enumerate().flat_map(|(t, path)| {
            let read = move |i: usize| values[self.offset[t] + i];
            path.regs.values().map(move |e| e.eval(&read))
        });
        let mut all = [0 as Value; 32];
        let mut complete = self.register_count <= all.len();
        for (i, (v, column)) in registers.zip(&wanted.columns).enumerate() {
            match v {
                Some(v) if !column.contains(&v) => return false,
                Some(v) if i < all.len() => all[i] = v,
                Some(_) => {}
                None => complete = false,
            }
        }
        !complete || wanted.registers.contains(&all[..self.register_count])
    }

    /// [`Self::possible`], knowing it held before read `k` got its value: only what mentions
    /// `k` can have changed. (Every register is checked again at the end: one that mentions no
    /// read is never checked here.)
    fn still_possible(&self, values: &Values, k: usize) -> bool {
        let (assumptions, registers) = &self.mentioned_by[k];
        let read = |t: usize| move |i: usize| values[self.offset[t] + i];
        assumptions
            .iter()
            .all(|&(t, a)| self.paths[t].assumes[a].holds(&read(t)) != Some(false))
            && self.wanted.as_ref().is_none_or(|wanted| {
                registers.iter().all(|&(t, g, e)| {
                    e.eval(&read(t))
                        .is_none_or(|v| wanted.columns[g].contains(&v))
                })
            })
            && (registers.is_empty() || self.goal_open(values))
    }

    /// Every assumption holds (all values known).
    fn satisfied(&self, values: &Values) -> bool {
        self.paths.iter().enumerate().all(|(t, path)| {
            let read = |i: usize| values[self.offset[t] + i];
            path.assumes.iter().all(|a| a.holds(&read) == Some(true))
        })
    }

    /// The paths with their values filled in.
    fn traces(&self, values: &Values) -> Vec<Trace> {
        self.paths
            .iter()
            .enumerate()
            .map(|(t, path)| {
                let read = |i: usize| values[self.offset[t] + i];
                let value = |e: &crate::axiomatic::events::Expr| {
                    e.eval(&read).expect("every read has a value")
                };
                let events = path
                    .events
                    .iter()
                    .map(|e| ThreadEvent {
                        stmt: e.stmt,
                        deps: e.deps.clone(),
                        copy_until: e.copy_until,
                        copy: e.copy,
                        completed_at: e.completed_at,
                        kind: match &e.kind {
                            Kind::Read {
                                loc,
                                access,
                                value: v,
                                rmw,
                            } => Kind::Read {
                                loc: *loc,
                                access: *access,
                                value: value(v),
                                rmw: *rmw,
                            },
                            Kind::Write {
                                loc,
                                access,
                                value: v,
                                rmw,
                            } => Kind::Write {
                                loc: *loc,
                                access: *access,
                                value: value(v),
                                rmw: *rmw,
                            },
                            Kind::Fence(f) => Kind::Fence(*f),
                            Kind::ClusterBarrier(b) => Kind::ClusterBarrier(*b),
                            Kind::MbarrierInitFence => Kind::MbarrierInitFence,
                            Kind::Barrier { op, id, quorum } => Kind::Barrier {
                                op: *op,
                                id: id.iter().map(value).collect(),
                                quorum: quorum.as_ref().map(value),
                            },
                        },
                    })
                    .collect();
                let regs = path
                    .regs
                    .iter()
                    .map(|(r, e)| (r.clone(), value(e)))
                    .collect();
                Trace { events, regs }
            })
            .collect()
    }
}

/// Conditions nested deeper than this are not evaluated on partial valuations (the recursion
/// stays shallow; such conditions are only decided on final states).
pub const GOAL_DEPTH: usize = 64;

/// How deeply a proposition nests (an explicit stack: it may nest very deeply).
fn depth(prop: &Prop) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(prop, 1)];
    while let Some((q, d)) = stack.pop() {
        deepest = deepest.max(d);
        match q {
            Prop::True | Prop::Cmp(..) => {}
            Prop::Not(a) => stack.push((a, d + 1)),
            Prop::And(a, b) | Prop::Or(a, b) => {
                stack.push((a, d + 1));
                stack.push((b, d + 1));
            }
        }
    }
    deepest
}

/// Whether the proposition may still evaluate to `sat`, and the filter pass, when physical
/// location `l` ends with `v` (registers and other locations unknown).
fn final_value_open(p: &Program, sat: bool, l: usize, v: Value) -> bool {
    let term = |t: &Term| match t {
        Term::Const(c) => Some(*c),
        Term::Loc(m) if p.physical(*m) == l => Some(v),
        _ => None,
    };
    three_valued(&p.condition.prop, &term) != Some(!sat)
        && p.filter
            .as_ref()
            .is_none_or(|f| three_valued(f, &term) != Some(false))
}

/// A proposition's value when some terms are unknown (`None`): `None` when they decide it.
fn three_valued(prop: &Prop, term: &dyn Fn(&Term) -> Option<Value>) -> Option<bool> {
    match prop {
        Prop::True => Some(true),
        Prop::Cmp(cmp, a, b) => {
            let (a, b) = (term(a)?, term(b)?);
            Some(match cmp {
                Cmp::Eq => a == b,
                Cmp::Ne => a != b,
            })
        }
        Prop::Not(q) => three_valued(q, term).map(|v| !v),
        Prop::And(a, b) => match (three_valued(a, term), three_valued(b, term)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        Prop::Or(a, b) => match (three_valued(a, term), three_valued(b, term)) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
    }
}
