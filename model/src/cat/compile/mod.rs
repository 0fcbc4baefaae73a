//! From syntax to a graph of operations over the engine's sets and relations: names resolved,
//! functions inlined, `include`s read, types checked (a set or a relation), and each node
//! classified for the enumeration:
//! - which of the execution's choices it reads (reads-from, coherence, from-reads, the fence.sc
//!   order, the barrier matching) — nodes that read none are computed once per set of events;
//! - whether it is monotone in those choices (built without `\` or `~` over them), so that a
//!   check on part of the choices may reject every completion;
//! - whether it relates only events of one location (or an event to itself), so that a check on
//!   it can be made location by location.

mod base;
mod compiler;
mod expr;
mod graph;
mod source;
mod stmt;

pub use super::syntax::CheckKind;
pub use base::{Base, Choice, Ty, BASE_NAMES, CHOICE_NAMES};
pub use graph::{Check, Compiled, Group, Node, Op, MAX_HEIGHT, MAX_INLINED};
pub use source::{Files, Source};

use super::env::{Binding, Names};
use super::CatError;
use compiler::Compiler;
use std::collections::HashMap;

/// Compiles the model `text` (reported as `file`), reading includes through `source`.
pub fn compile(file: &str, text: &str, source: &dyn Source) -> Result<Compiled, CatError> {
    let mut c = Compiler {
        source,
        nodes: Vec::new(),
        interned: HashMap::new(),
        groups: Vec::new(),
        checks: Vec::new(),
        reading: vec![file.to_string()],
        depth: 0,
        visited: 0,
    };
    let mut env = Names::default();
    for &(name, base, ty) in BASE_NAMES {
        let i = c.node(Op::Base(base), ty);
        env.bind(name, Binding::Value(i));
    }
    for &(name, choice) in CHOICE_NAMES {
        let i = c.node(Op::Choice(choice), Ty::Rel);
        env.bind(name, Binding::Value(i));
    }
    let (title, options) = c.file(file, text, &mut env)?;
    let bindings = env.values();
    Ok(Compiled {
        title,
        options,
        nodes: c.nodes,
        groups: c.groups,
        checks: c.checks,
        bindings,
    })
}
