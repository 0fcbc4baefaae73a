//! What an instance records: the condition's observables, the registers saved for them, and
//! the loads a spinning reader retries.

use super::harness::{Observable, Spin, Unsupported};
use super::layout::MAX_OBSERVABLES;
use super::unsupported::unsupported;
use scopecheck_model::litmus::{Cmp, Instr, Program, Prop, Quantifier, Reg, Term, ThreadId};
use std::collections::BTreeSet;

/// The registers and locations the condition mentions, in first-mention order, then those only
/// the `filter` mentions (the diff needs them to leave out the states the filter rejects).
pub fn observables(p: &Program) -> Result<Vec<Observable>, Unsupported> {
    fn walk(p: &Program, prop: &Prop, out: &mut Vec<Observable>) {
        match prop {
            Prop::True => {}
            Prop::Cmp(_, a, b) => {
                for t in [a, b] {
                    let o = match t {
                        Term::Reg(th, r) => Observable::Reg(*th, r.clone()),
                        Term::Loc(l) => Observable::Loc(p.physical(*l)),
                        Term::Const(_) => continue,
                    };
                    if !out.contains(&o) {
                        out.push(o);
                    }
                }
            }
            Prop::Not(a) => walk(p, a, out),
            Prop::And(a, b) | Prop::Or(a, b) => {
                walk(p, a, out);
                walk(p, b, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(p, &p.condition.prop, &mut out);
    if let Some(filter) = &p.filter {
        walk(p, filter, &mut out);
    }
    for o in &out {
        if let Observable::Reg(t, r) = o {
            if *t >= p.threads.len() {
                return unsupported(format!(
                    "the condition names P{t}:{r} but there is no thread P{t}"
                ));
            }
        }
    }
    if out.len() > MAX_OBSERVABLES {
        return unsupported(format!(
            "the condition observes {} values; the device classifier packs at most {MAX_OBSERVABLES}",
            out.len()
        ));
    }
    Ok(out)
}

/// Registers each thread defines, plus the condition's registers: all are stored, so that no load
/// is dead code (ptxas deletes loads whose result is never used).
pub(super) fn saved_registers(p: &Program, observables: &[Observable]) -> Vec<(ThreadId, Reg)> {
    let mut set: BTreeSet<(ThreadId, Reg)> = BTreeSet::new();
    for (tid, t) in p.threads.iter().enumerate() {
        for s in &t.body {
            if let Some(r) = s.instr.written_reg() {
                set.insert((tid, r.clone()));
            }
        }
    }
    for o in observables {
        if let Observable::Reg(t, r) = o {
            set.insert((*t, r.clone()));
        }
    }
    set.into_iter().collect()
}

/// The spinning-reader candidates of `p` (see [`Spin`]).
pub fn spins(p: &Program) -> Vec<Spin> {
    fn pinned(prop: &Prop, out: &mut Vec<(ThreadId, Reg, i64)>) {
        match prop {
            Prop::And(a, b) => {
                pinned(a, out);
                pinned(b, out);
            }
            Prop::Cmp(Cmp::Eq, Term::Reg(t, r), Term::Const(c))
            | Prop::Cmp(Cmp::Eq, Term::Const(c), Term::Reg(t, r)) => out.push((*t, r.clone(), *c)),
            _ => {}
        }
    }
    if p.condition.quantifier == Quantifier::Forall {
        return vec![];
    }
    let mut pins = Vec::new();
    pinned(&p.condition.prop, &mut pins);
    let mut out = Vec::new();
    for (t, r, value) in pins {
        let Some(thread) = p.threads.get(t) else {
            continue;
        };
        if thread
            .body
            .iter()
            .any(|s| matches!(s.instr, Instr::Branch { .. } | Instr::Label(_)))
        {
            continue;
        }
        let defs: Vec<usize> = thread
            .body
            .iter()
            .enumerate()
            .filter(|(_, s)| s.instr.written_reg() == Some(&r))
            .map(|(i, _)| i)
            .collect();
        if let [i] = defs[..] {
            if let (Instr::Load { loc, .. }, None) = (&thread.body[i].instr, &thread.body[i].warp) {
                if p.initial_value(*loc) != value && i32::try_from(value).is_ok() {
                    out.push(Spin {
                        thread: t,
                        stmt: i,
                        value,
                    });
                }
            }
        }
    }
    out.sort_by_key(|s| (s.thread, s.stmt));
    out.dedup();
    out
}
