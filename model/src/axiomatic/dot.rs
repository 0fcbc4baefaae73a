//! Graphviz rendering of a witness execution: a title naming the test, the model, the final
//! state drawn and why that state; initial writes on top; one column per thread, left to right
//! in thread order, events top to bottom in program order; coloured edges for po, rf, co, fr and
//! synchronization, with a legend of the kinds that occur.

use super::execution::Execution;
use super::{condition_holds_on, Analysis, Model};
use crate::litmus::print::{prop, Level};
use crate::litmus::{Program, Quantifier};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Component, Path};

/// Edge kinds: name, colour, style, meaning (for the legend).
const EDGES: [(&str, &str, &str, &str); 8] = [
    ("po", "black", "solid", "program order"),
    (
        "rmw",
        "gray40",
        "dotted",
        "read and write of one atomic instruction",
    ),
    ("rf", "red", "solid", "reads-from: the write a read takes"),
    (
        "co",
        "blue",
        "solid",
        "coherence: order of writes to a location",
    ),
    (
        "fr",
        "orange",
        "dashed",
        "from-read: a read is before a later write",
    ),
    (
        "sync",
        "darkgreen",
        "bold",
        "release/acquire synchronization",
    ),
    ("sc", "purple", "bold", "order of fence.sc"),
    ("bar", "brown", "bold", "barrier synchronization"),
];

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The state a witness is drawn for, and why that one.
pub struct Choice<'a> {
    /// Index into [`Analysis::states`].
    pub state: usize,
    /// The witness execution drawn: one consistent execution that reaches the state.
    pub example: &'a Execution,
    /// One sentence for the title.
    pub why: String,
}

/// Which allowed state to draw: the one that decides the condition. `exists` and `~exists`: a
/// state satisfying the proposition (for `exists` it shows the condition holds, for `~exists`
/// that it fails); `forall`: a state violating it. When no state is that one (an `exists` that
/// does not hold, …), the first allowed state, and the title says so. `None` when the analysis
/// kept no witness executions (`Options::witnesses` off) or allows no state.
pub fn choose<'a>(p: &Program, a: &'a Analysis) -> Option<Choice<'a>> {
    let sat = |i: &usize| condition_holds_on(p, &a.states[*i].state);
    let all = 0..a.states.len();
    let (decisive, found, missing) = match p.condition.quantifier {
        Quantifier::Exists => (
            all.clone().find(sat),
            "it satisfies the condition, so the condition holds",
            "the condition does not hold: no allowed state satisfies it; drawn: the first allowed state",
        ),
        Quantifier::NotExists => (
            all.clone().find(sat),
            "it satisfies the proposition, so `~exists` does not hold",
            "the condition holds: no allowed state satisfies the proposition; drawn: the first allowed state",
        ),
        Quantifier::Forall => (
            all.clone().find(|i| !sat(i)),
            "it violates the proposition, so `forall` does not hold",
            "the condition holds: every allowed state satisfies it; drawn: the first allowed state",
        ),
    };
    let (state, why) = match decisive {
        Some(i) => (i, found),
        None => (0, missing),
    };
    let example = a.states.get(state)?.example.as_ref()?;
    Some(Choice {
        state,
        example,
        why: why.to_string(),
    })
}

/// A `digraph` that `dot -Tsvg` renders: the chosen witness of `a` (see [`choose`]).
pub fn render_analysis(p: &Program, model: &Model, a: &Analysis) -> Option<String> {
    let choice = choose(p, a)?;
    let condition = format!(
        "{} ({})",
        p.condition.quantifier.keyword(),
        prop(p, &p.condition.prop, Level::Or)
    );
    let title = format!(
        "{} under {}: {}\\lfinal state {}\\l{}\\l",
        escape(&p.name),
        model.name(),
        escape(&condition),
        escape(&a.states[choice.state].state.to_string()),
        escape(&choice.why)
    );
    Some(render_titled(p, choice.example, &title))
}

/// A `digraph` of one execution under the test's name.
pub fn render(p: &Program, x: &Execution) -> String {
    render_titled(p, x, &escape(&p.name))
}

/// `title` is already escaped (it may hold `\l` line breaks).
fn render_titled(p: &Program, x: &Execution, title: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", escape(&p.name));
    let _ = writeln!(
        out,
        "  label=\"{title}\"; labelloc=t; labeljust=l; rankdir=TB; newrank=true; splines=true; nodesep=0.6; ranksep=0.5;"
    );
    let _ = writeln!(
        out,
        "  node [shape=box, style=rounded, fontname=\"monospace\", fontsize=10];"
    );
    let _ = writeln!(out, "  edge [fontsize=9];");
    let init: Vec<_> = x.events.iter().filter(|e| e.thread.is_none()).collect();
    if !init.is_empty() {
        let _ = writeln!(
            out,
            "  subgraph cluster_init {{ label=\"initial writes\"; style=dashed;"
        );
        for e in &init {
            let _ = writeln!(out, "    e{} [label=\"{}\"];", e.id, escape(&e.label));
        }
        let _ = writeln!(out, "  }}");
    }
    // One column per thread: its events in program order, the source line of each below it.
    let mut firsts = Vec::new();
    for (t, thread) in p.threads.iter().enumerate() {
        let events: Vec<_> = x.events.iter().filter(|e| e.thread == Some(t)).collect();
        let _ = writeln!(
            out,
            "  subgraph cluster_p{t} {{ label=\"P{t} @ {}\";",
            escape(&thread.placement.to_string())
        );
        for e in &events {
            let at = e
                .span
                .map(|s| format!("\\nline {}, column {}", s.line, s.col))
                .unwrap_or_default();
            let _ = writeln!(out, "    e{} [label=\"{}{at}\"];", e.id, escape(&e.label));
        }
        let _ = writeln!(out, "  }}");
        if let Some(first) = events.first() {
            firsts.push(first.id);
        }
    }
    // Left to right in thread order: the first events share a rank, chained by invisible edges;
    // the initial writes sit above them.
    if firsts.len() > 1 {
        let ids: Vec<String> = firsts.iter().map(|id| format!("e{id}")).collect();
        let _ = writeln!(out, "  {{ rank=same; {} }}", ids.join("; "));
        let _ = writeln!(out, "  {} [style=invis];", ids.join(" -> "));
    }
    if let Some(last_init) = init.last() {
        for id in &firsts {
            let _ = writeln!(out, "  e{} -> e{id} [style=invis];", last_init.id);
        }
    }
    let lists: [&Vec<(usize, usize)>; 8] = [
        &x.po, &x.rmw, &x.rf, &x.co, &x.fr, &x.sync, &x.sc, &x.barrier,
    ];
    let mut used = Vec::new();
    for ((name, colour, style, meaning), pairs) in EDGES.iter().zip(lists) {
        if !pairs.is_empty() {
            used.push((name, colour, style, meaning));
        }
        for (a, b) in pairs {
            // Program order needs no label (it runs down a column). The others carry ordinary
            // edge labels, which dot lays out as part of the graph (unlike external labels, which
            // collide where edges cross), with spline edges routed around them.
            let (label, weight) = if *name == "po" {
                (String::new(), ", weight=10")
            } else {
                (format!("label=\"{name}\", "), ", constraint=false")
            };
            let _ = writeln!(
                out,
                "  e{a} -> e{b} [{label}color={colour}, fontcolor={colour}, style={style}{weight}];"
            );
        }
    }
    if !used.is_empty() {
        let _ = writeln!(
            out,
            "  subgraph cluster_legend {{ label=\"legend\"; style=dotted;"
        );
        let rows: String = used
            .iter()
            .map(|(name, colour, style, meaning)| {
                let styled = if **style == "bold" {
                    format!("<b>{name}</b>")
                } else {
                    name.to_string()
                };
                format!(
                    "<tr><td align=\"left\"><font color=\"{colour}\">{styled} ({style})</font></td><td align=\"left\">{meaning}</td></tr>"
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "    legend [shape=plaintext, label=<<table border=\"0\" cellspacing=\"2\">{rows}</table>>];"
        );
        let _ = writeln!(out, "  }}");
    }
    let _ = writeln!(out, "}}");
    out
}

/// The file name (`NAME.dot`) of each test's witness, in the order of `files`: the file's stem,
/// or, where two files share a stem, as many of their parent folders as tell them apart, joined
/// with `-` (`a/MP.litmus` and `b/MP.litmus` give `a-MP.dot` and `b-MP.dot`); the same file given
/// twice gets `-2`, `-3`, … So no witness overwrites another.
pub fn file_names(files: &[&Path]) -> Vec<String> {
    let parts = |f: &Path| -> Vec<String> {
        let mut parts: Vec<String> = f
            .with_extension("")
            .components()
            .filter_map(|c| match c {
                Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                Component::ParentDir => Some("up".to_string()),
                _ => None,
            })
            .collect();
        parts.reverse();
        parts
    };
    let all: Vec<Vec<String>> = files.iter().map(|f| parts(f)).collect();
    let name = |i: usize, depth: usize| -> String {
        let mut p: Vec<&str> = all[i].iter().take(depth).map(String::as_str).collect();
        p.reverse();
        p.join("-")
    };
    let mut names: Vec<String> = (0..all.len())
        .map(|i| {
            let mut depth = 1;
            while depth < all[i].len()
                && (0..all.len()).any(|j| all[j] != all[i] && name(j, depth) == name(i, depth))
            {
                depth += 1;
            }
            name(i, depth)
        })
        .collect();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for n in &mut names {
        let count = seen.entry(n.clone()).or_default();
        *count += 1;
        if *count > 1 {
            *n = format!("{n}-{count}");
        }
    }
    names.iter().map(|n| format!("{n}.dot")).collect()
}
