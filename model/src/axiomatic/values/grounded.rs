//! The valuations without a data-flow cycle through reads-from, found by values rather than by
//! sources ([`Valuations::for_each_grounded`]).

use super::valuations::{Valuations, Values};
use crate::axiomatic::events::Trace;
use crate::axiomatic::wanted::ForRegisters;
use crate::litmus::Value;
use std::ops::ControlFlow;
use std::rc::Rc;

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
}
