//! A cat model as the enumeration's [`Checker`]: its checks split, by their text, into the
//! per-location ones (checked on partial choices) and the global ones; the causality order the
//! enumeration fixes coherence pairs with is the relation the model's own Causality and
//! Coherence checks are written over (see [`super::CatModel`]).

use super::compile::CheckKind;
use super::eval::{Eval, Memo, Prepared, Val};
use super::CatModel;
use crate::axiomatic::execution::Events;
use crate::axiomatic::models::{Checker, Dynamic};
use crate::axiomatic::rel::Rel;
use std::cell::RefCell;
use std::sync::Arc;

/// A cat model prepared for one set of events.
pub struct CatChecker {
    model: Arc<CatModel>,
    prep: Prepared,
    ms: Rel,
    /// The relation the enumeration may use as causality, when the model's checks imply the
    /// Coherence and Causality forms on these events.
    cause: Option<usize>,
    none: Rel,
    /// The values of the last evaluation: the next one recomputes only what reads a choice
    /// that changed (the races of an execution whose global checks just passed cost the
    /// flag's own relations only).
    memo: RefCell<Memo>,
}

impl CatChecker {
    /// The model prepared for the events `ev` (its static values computed once).
    pub fn new(model: Arc<CatModel>, ev: &Events) -> CatChecker {
        let (prep, memo) = Prepared::new(&model.compiled, &model.needed, ev);
        let ms = match model.ms {
            Some(i) => prep.get(&memo, i).expect("`ms` is static").to_rel(ev.n),
            None => Rel::cross(ev.n, ev.f, ev.f).minus_id(),
        };
        // The Coherence check covers every pair of writes only if its restrictions keep them.
        let cause = model.cause.as_ref().and_then(|c| {
            let keeps_writes = |s: Option<usize>| {
                s.is_none_or(|s| match prep.get(&memo, s) {
                    Some(Val::Set(set)) => (ev.w & !*set).is_empty(),
                    _ => false,
                })
            };
            (keeps_writes(c.before) && keeps_writes(c.after)).then_some(c.cause)
        });
        CatChecker {
            model,
            prep,
            ms,
            cause,
            none: Rel::empty(ev.n),
            memo: RefCell::new(memo),
        }
    }

    /// Runs `f` on an evaluation under `choices`, `seed` already known.
    fn with<R>(
        &self,
        choices: &Dynamic<'_>,
        seed: Option<(usize, &Rel)>,
        f: impl FnOnce(&mut Eval<'_>) -> R,
    ) -> R {
        let mut memo = self.memo.borrow_mut();
        let mut e = Eval::new(&self.prep, choices, &mut memo);
        if let Some((i, r)) = seed {
            e.seed(i, r);
        }
        f(&mut e)
    }

    /// Whether check `c` passes (a flag: whether it is raised).
    fn passes(&self, e: &mut Eval<'_>, c: usize) -> bool {
        let check = &self.model.compiled.checks[c];
        let v = e.get(check.node);
        let holds = match check.kind {
            CheckKind::Acyclic => v.rel().acyclic(),
            CheckKind::Irreflexive => v.rel().irreflexive(),
            CheckKind::Empty => v.is_empty(),
        };
        holds != check.negated
    }

    /// The flags raised by a consistent execution, each with its relation (a set as the
    /// identity on it).
    pub fn flagged(&self, x: &Dynamic<'_>) -> Vec<(&'static str, Rel)> {
        let n = self.prep.n;
        self.with(x, None, |e| {
            let mut raised = Vec::new();
            for &c in &self.model.flags {
                if self.passes(e, c) {
                    let check = &self.model.compiled.checks[c];
                    raised.push((check.name, e.get(check.node).to_rel(n)));
                }
            }
            raised
        })
    }
}

impl Checker for CatChecker {
    fn morally_strong(&self) -> &Rel {
        &self.ms
    }

    fn location_ok(&self, _ev: &Events, rf: &Rel, co: &Rel, fr: &Rel) -> bool {
        let choices = Dynamic {
            rf,
            co,
            fr,
            sync_fence: &self.none,
            sync_barrier: &self.none,
        };
        self.with(&choices, None, |e| {
            self.model.local.iter().all(|&c| self.passes(e, c))
        })
    }

    fn causality(&self, ev: &Events, x: &Dynamic<'_>) -> Rel {
        match self.cause {
            Some(cause) => self.with(x, None, |e| e.get(cause).rel().clone()),
            None => Rel::empty(ev.n),
        }
    }

    fn global_ok(&self, _ev: &Events, x: &Dynamic<'_>, cause: &Rel) -> Result<(), &'static str> {
        let seed = self.cause.map(|c| (c, cause));
        self.with(x, seed, |e| {
            for &c in &self.model.global {
                if !self.passes(e, c) {
                    return Err(self.model.compiled.checks[c].name);
                }
            }
            Ok(())
        })
    }

    /// Without a causality order to fix coherence pairs early, the monotone global checks on
    /// the choices so far: each pair chosen is one of every completion's, and more pairs never
    /// mend a monotone check. (With one, the enumeration's floor applies the axioms that order
    /// coherence already; checking the rest early costs more than it saves.)
    fn partial_ok(&self, _ev: &Events, x: &Dynamic<'_>) -> bool {
        if self.cause.is_some() || self.model.partial.is_empty() {
            return true;
        }
        self.with(x, None, |e| {
            self.model.partial.iter().all(|&c| self.passes(e, c))
        })
    }

    fn consistent(&self, _ev: &Events, x: &Dynamic<'_>) -> Result<(), &'static str> {
        self.with(x, None, |e| {
            for (c, check) in self.model.compiled.checks.iter().enumerate() {
                if !check.flag && !self.passes(e, c) {
                    return Err(check.name);
                }
            }
            Ok(())
        })
    }

    fn synchronizes(&self, ev: &Events, x: &Dynamic<'_>) -> Rel {
        match self.model.sync {
            Some(sync) => self.with(x, None, |e| e.get(sync).to_rel(ev.n)),
            None => Rel::empty(ev.n),
        }
    }

    fn raised(&self, _ev: &Events, x: &Dynamic<'_>) -> u64 {
        if self.model.flags.is_empty() {
            return 0;
        }
        self.with(x, None, |e| {
            self.model
                .flags
                .iter()
                .enumerate()
                .filter(|&(_, &c)| self.passes(e, c))
                .fold(0, |mask, (i, _)| mask | 1 << i.min(63))
        })
    }

    fn flag_names(&self) -> Vec<&'static str> {
        self.model
            .flags
            .iter()
            .map(|&c| self.model.compiled.checks[c].name)
            .collect()
    }

    fn races(&self, ev: &Events, x: &Dynamic<'_>) -> Rel {
        if self.model.flags.is_empty() {
            return Rel::empty(ev.n);
        }
        self.flagged(x)
            .into_iter()
            .fold(Rel::empty(ev.n), |acc, (_, r)| &acc | &r)
    }
}
