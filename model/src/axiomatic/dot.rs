//! Graphviz rendering of a witness execution: one cluster per thread, initial writes on top,
//! and coloured, labelled edges for po, rf, co, fr and synchronization.

use super::execution::Execution;
use crate::litmus::Program;
use std::fmt::Write;

/// Edge kinds: name, colour, style.
const EDGES: [(&str, &str, &str); 8] = [
    ("po", "black", "solid"),
    ("rmw", "gray40", "dotted"),
    ("rf", "red", "solid"),
    ("co", "blue", "solid"),
    ("fr", "orange", "dashed"),
    ("sync", "darkgreen", "bold"),
    ("sc", "purple", "bold"),
    ("bar", "brown", "bold"),
];

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// A `digraph` that `dot -Tsvg` renders.
pub fn render(p: &Program, x: &Execution) -> String {
    let mut out = String::new();
    let title = escape(&p.name);
    let _ = writeln!(out, "digraph \"{title}\" {{");
    let _ = writeln!(
        out,
        "  label=\"{title}\"; labelloc=t; rankdir=TB; newrank=true;"
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
            "  subgraph cluster_init {{ label=\"init\"; style=dashed;"
        );
        for e in init {
            let _ = writeln!(out, "    e{} [label=\"{}\"];", e.id, escape(&e.label));
        }
        let _ = writeln!(out, "  }}");
    }
    for (t, thread) in p.threads.iter().enumerate() {
        let _ = writeln!(
            out,
            "  subgraph cluster_p{t} {{ label=\"P{t} @ {}\";",
            escape(&thread.placement.to_string())
        );
        for e in x.events.iter().filter(|e| e.thread == Some(t)) {
            let at = e.span.map(|s| format!(" ({s})")).unwrap_or_default();
            let _ = writeln!(out, "    e{} [label=\"{}{}\"];", e.id, escape(&e.label), at);
        }
        let _ = writeln!(out, "  }}");
    }
    let lists: [&Vec<(usize, usize)>; 8] = [
        &x.po, &x.rmw, &x.rf, &x.co, &x.fr, &x.sync, &x.sc, &x.barrier,
    ];
    for ((name, colour, style), pairs) in EDGES.iter().zip(lists) {
        for (a, b) in pairs {
            let weight = if *name == "po" {
                ", weight=10"
            } else {
                ", constraint=false"
            };
            let _ = writeln!(
                out,
                "  e{a} -> e{b} [label=\"{name}\", color={colour}, fontcolor={colour}, style={style}{weight}];"
            );
        }
    }
    let _ = writeln!(out, "}}");
    out
}
