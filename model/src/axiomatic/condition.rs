//! The final condition and the filter, evaluated on one final state.

use super::state::FinalState;
use crate::litmus::{Program, Prop, Term, Value};

/// Evaluates the final condition's proposition on one state.
pub fn condition_holds_on(p: &Program, s: &FinalState) -> bool {
    eval(p, &p.condition.prop, s)
}

/// Whether a final state passes the program's `filter` (herd's: executions whose final state
/// fails it are left out before the condition is checked); true without a filter.
pub fn filter_admits(p: &Program, s: &FinalState) -> bool {
    p.filter.as_ref().is_none_or(|f| eval(p, f, s))
}

fn eval(p: &Program, prop: &Prop, s: &FinalState) -> bool {
    match prop {
        Prop::True => true,
        Prop::Cmp(cmp, a, b) => {
            let (a, b) = (term(p, a, s), term(p, b, s));
            cmp.holds(a, b)
        }
        Prop::Not(q) => !eval(p, q, s),
        Prop::And(a, b) => eval(p, a, s) && eval(p, b, s),
        Prop::Or(a, b) => eval(p, a, s) || eval(p, b, s),
    }
}

fn term(p: &Program, t: &Term, s: &FinalState) -> Value {
    match t {
        Term::Const(v) => *v,
        Term::Reg(th, r) => s
            .regs
            .get(&format!("P{th}:{r}"))
            .copied()
            .unwrap_or_else(|| p.initial_reg(*th, r)),
        Term::Loc(l) => {
            let phys = p.physical(*l);
            s.mem
                .get(&p.locations[phys].name)
                .copied()
                .unwrap_or_else(|| p.initial_value(phys))
        }
    }
}
