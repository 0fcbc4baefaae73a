//! How a hang reads: one line per stuck thread, and the hang's execution as a Graphviz graph.

use super::verdict::{Fate, Hang, Stuck};
use crate::litmus::{Instr, Program};

/// A one-line description of how a thread is stuck: `P1 spins forever in the loop closed at
/// 9:2: ld.weak r2, f; bne r2, 1, LC11; goto LC10`.
pub fn describe(p: &Program, s: &Stuck) -> String {
    let body = &p.threads[s.thread].body;
    match s.fate {
        Fate::Spins => {
            let iteration: Vec<String> = s
                .iteration_stmts
                .iter()
                .filter(|&&i| !matches!(body[i].instr, Instr::Label(_)))
                .map(|&i| crate::litmus::print::instr(p, &body[i].instr))
                .collect();
            format!(
                "P{} spins forever in the loop closed at {}: {}",
                s.thread,
                s.span,
                iteration.join("; ")
            )
        }
        _ => format!("P{} waits forever at the barrier at {}", s.thread, s.span),
    }
}

/// Graphviz of the hanging execution ([`crate::axiomatic::dot::render`]), with each stuck thread's
/// repeated iteration (or barrier wait) marked in red and a note naming it.
pub fn dot(p: &Program, hang: &Hang) -> String {
    let mut out = crate::axiomatic::dot::render(p, &hang.execution);
    let closing = out.rfind('}').unwrap_or(out.len());
    let mut marks = String::new();
    for s in &hang.stuck {
        for e in &s.iteration {
            marks.push_str(&format!("  e{e} [color=red, penwidth=2];\n"));
        }
        let note = describe(p, s).replace('\\', "\\\\").replace('"', "\\\"");
        marks.push_str(&format!(
            "  hang_p{} [shape=note, color=red, label=\"{note}\"];\n",
            s.thread
        ));
        if let Some(e) = s.iteration.first().or(s.prefix.last()) {
            marks.push_str(&format!(
                "  hang_p{} -> e{e} [color=red, style=dashed, constraint=false];\n",
                s.thread
            ));
        }
    }
    out.insert_str(closing, &marks);
    out
}
