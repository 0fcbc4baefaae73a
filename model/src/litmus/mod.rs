//! Litmus programs: the IR, and (in sibling modules) their parser and printer.

pub mod ir;

pub use ir::*;
