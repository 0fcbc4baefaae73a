//! The reads of one combination of paths and the writes each may read from ([`Valuations`]).

use crate::axiomatic::events::{Expr, Kind, Path, Trace};
use crate::axiomatic::wanted::ForRegisters;
use crate::litmus::{LocationKind, Program, Term, Value};
use std::rc::Rc;

/// A write a read may take its value from.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(super) enum Source {
    Initial(Value),
    /// Thread and index of the write in its path.
    Write(usize, usize),
}

/// The reads of one combination of paths and the writes each may read from.
pub struct Valuations<'a> {
    pub(super) paths: &'a [&'a Path],
    /// Where each thread's events start in the flat value vector.
    pub(super) offset: Vec<usize>,
    /// Thread and index of each read, with its possible sources.
    pub(super) reads: Vec<(usize, usize, Vec<Source>)>,
    /// Each read's index in the flat value vector.
    pub(super) flat: Vec<usize>,
    /// Only valuations giving the registers (in the paths' order) wanted values are wanted
    /// (`None`: every valuation).
    pub(super) wanted: Option<Rc<ForRegisters>>,
    /// How many registers the paths have in all.
    pub(super) register_count: usize,
    /// Per read (in `reads` order), what its value may decide.
    pub(super) mentioned_by: Vec<Mentions<'a>>,
    /// Deciding a condition: only valuations whose registers may still give the proposition
    /// this value (memory not known yet) are wanted.
    pub(super) goal: Option<(&'a Program, bool)>,
    /// Per read (in `reads` order), its event id and each source's, as `Events` numbers them
    /// (the initial writes of the locations first, then each thread's events in order).
    pub(super) events: Vec<(usize, Vec<usize>)>,
    /// A test of the reads-from pairs a partial valuation forces ([`Self::check_reads_from`]).
    pub(super) rf_check: Option<RfCheck<'a>>,
    /// How many initial writes come before the threads' events in `Events`.
    pub(super) inits: usize,
    /// Values a read on a data-flow cycle may also take beyond those in play
    /// ([`Self::allow_thin_air`]): the constants named, and the first value above them all
    /// (`None`: the model forbids thin air, no such values).
    pub(super) named: Vec<Value>,
    pub(super) unnamed: Option<Value>,
}

/// Whether some consistent execution may have every one of these reads-from pairs (write, read;
/// event ids as `Events` numbers them): false drops the valuation's branch.
pub type RfCheck<'a> = &'a dyn Fn(&[(usize, usize)]) -> bool;

/// The assumptions (thread, index) and registers (thread, index over every thread's registers,
/// expression) whose expressions mention one read.
pub(super) type Mentions<'a> = (Vec<(usize, usize)>, Vec<(usize, usize, &'a Expr)>);

/// The value of every read (by flat index; other events hold `None`).
pub(super) type Values = Vec<Option<Value>>;

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

    pub(super) fn flat(&self, k: usize) -> usize {
        self.flat[k]
    }
}
