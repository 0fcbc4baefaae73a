//! Which reads-from choices a partial valuation still allows, and the pairs it forces.

use super::valuations::{RfCheck, Source, Valuations, Values};

impl<'a> Valuations<'a> {
    /// Drops a branch as soon as the reads-from pairs its values force (a valued read that
    /// only one of its sources can have supplied: the others write other values) fail `check`.
    pub fn check_reads_from(&mut self, check: RfCheck<'a>) {
        self.rf_check = Some(check);
    }

    /// The reads-from pairs forced by the values so far pass the check; `k`: the read just
    /// valued (nothing new is forced unless it is).
    pub(super) fn reads_from_possible(&self, values: &Values, k: usize) -> bool {
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
    pub(super) fn fixed_pairs(
        &self,
        rf: &[Option<Source>],
        values: &Values,
    ) -> Vec<(usize, usize)> {
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
    pub(super) fn choice_possible(
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
    pub(super) fn forced(&self, values: &Values, k: usize) -> Option<(usize, usize)> {
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
    pub(super) fn forced_pairs(&self, values: &Values) -> Vec<(usize, usize)> {
        (0..self.reads.len())
            .filter_map(|k| self.forced(values, k))
            .collect()
    }
}
