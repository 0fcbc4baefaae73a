//! States-only search ([`super::analyze_states`]): the final states, not every consistent
//! execution reaching them.
//!
//! A final state is the registers, fixed by the valuation (the values computed along
//! reads-from), and each physical location's coherence-last value. The search chooses
//! locations one at a time, so once a location's coherence order is complete, its last value is
//! known. [`Targets`] keeps, for one valuation, the final memories already collected with its
//! registers: a branch whose last values so far, with every value the remaining locations may
//! end with, only lead to collected memories is dropped, and so is a valuation all of whose
//! possible memories are collected. A branch that can still reach a new memory is searched
//! until its first consistent execution. The states found are exactly the counting search's
//! (only executions of states already found are skipped); the execution counts are not.
//!
//! Asked about given final states only ([`super::allowed_among`]), a branch stays open only
//! while one of the wanted memories not found yet can still be reached.

use crate::hash::Mix;
use crate::litmus::Value;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// Per register values (of one combination of thread paths, in its traces' order), the final
/// memories found with them, each listing the physical locations' last values in location
/// order.
pub type Memories = HashMap<Vec<Value>, Vec<Vec<Value>>, BuildHasherDefault<Mix>>;

/// What is left to find for one valuation.
pub struct Targets {
    /// Per physical location in order, the distinct values its coherence-last write may have.
    lasts: Vec<Vec<Value>>,
    /// Memories already collected with this valuation's registers (only those it could reach),
    /// then those found since.
    known: Vec<Vec<Value>>,
    /// How many of `known` were collected before this valuation.
    old: usize,
    /// The last values of the locations whose coherence order is chosen.
    prefix: Vec<Value>,
    /// Asked about given states: the memories wanted with this valuation's registers.
    wanted: Option<Vec<Vec<Value>>>,
}

impl Targets {
    /// `lasts`: per physical location, the values its last write may have; `collected`: the
    /// memories collected with the same registers; `wanted`: the only memories worth finding
    /// (`None`: every one).
    pub fn new(
        mut lasts: Vec<Vec<Value>>,
        collected: &[Vec<Value>],
        wanted: Option<&[Vec<Value>]>,
    ) -> Targets {
        for values in &mut lasts {
            values.sort_unstable();
            values.dedup();
        }
        let reachable = |m: &Vec<Value>| m.iter().zip(&lasts).all(|(v, vs)| vs.contains(v));
        let known: Vec<Vec<Value>> = collected.iter().filter(|m| reachable(m)).cloned().collect();
        let wanted = wanted.map(|ms| ms.iter().filter(|m| reachable(m)).cloned().collect());
        Targets {
            old: known.len(),
            lasts,
            known,
            prefix: Vec::new(),
            wanted,
        }
    }

    /// Whether some memory not yet known starts with the chosen prefix, has one of `next` as the
    /// next location's last value (every value it may have when `None`), and any value the
    /// later locations may end with. Known memories are distinct and inside that space, so
    /// counting those that match is enough.
    pub fn open(&self, next: Option<&[Value]>) -> bool {
        let at = self.prefix.len();
        if let Some(wanted) = &self.wanted {
            return wanted.iter().any(|m| {
                m[..at] == self.prefix[..]
                    && (at == m.len() || next.is_none_or(|n| n.contains(&m[at])))
                    && !self.known.contains(m)
            });
        }
        let Some(here) = self.lasts.get(at) else {
            return !self.known.contains(&self.prefix);
        };
        let next = next.unwrap_or(here);
        let distinct = (0..next.len())
            .filter(|&i| !next[..i].contains(&next[i]))
            .count();
        let space = self.lasts[at + 1..]
            .iter()
            .fold(distinct as u64, |n, vs| n.saturating_mul(vs.len() as u64));
        let matching = self
            .known
            .iter()
            .filter(|m| m[..at] == self.prefix[..] && next.contains(&m[at]))
            .count() as u64;
        matching < space
    }

    /// The next location's coherence order is chosen, leaving `last` last.
    pub fn push(&mut self, last: Value) {
        self.prefix.push(last);
    }

    /// Undoes the latest [`Self::push`]: the last location's choice is taken back.
    pub fn pop(&mut self) {
        self.prefix.pop();
    }

    /// A consistent execution reaches the memory chosen (every location's order is).
    pub fn found(&mut self) {
        debug_assert_eq!(self.prefix.len(), self.lasts.len());
        self.known.push(self.prefix.clone());
    }

    /// The memories this valuation found.
    pub fn fresh(self) -> impl Iterator<Item = Vec<Value>> {
        self.known.into_iter().skip(self.old)
    }
}
