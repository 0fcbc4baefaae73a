//! The registers a thread starts with.

use crate::litmus::*;
use std::collections::BTreeMap;

/// Every register a thread mentions, with its initial value.
pub fn registers(p: &Program, t: ThreadId) -> BTreeMap<Reg, Value> {
    let mut regs = BTreeMap::new();
    let mut note = |r: &Reg| {
        regs.entry(r.clone()).or_insert_with(|| p.initial_reg(t, r));
    };
    for i in p.reg_init.iter().filter(|i| i.thread == t) {
        note(&i.reg);
    }
    for stmt in &p.threads[t].body {
        for r in stmt.instr.regs() {
            note(r);
        }
    }
    collect_condition_regs(&p.condition.prop, t, &mut note);
    regs
}

fn collect_condition_regs(prop: &Prop, t: ThreadId, note: &mut impl FnMut(&Reg)) {
    match prop {
        Prop::True => {}
        Prop::Cmp(_, a, b) => {
            for term in [a, b] {
                if let Term::Reg(th, r) = term {
                    if *th == t {
                        note(r);
                    }
                }
            }
        }
        Prop::Not(p) => collect_condition_regs(p, t, note),
        Prop::And(a, b) | Prop::Or(a, b) => {
            collect_condition_regs(a, t, note);
            collect_condition_regs(b, t, note);
        }
    }
}
