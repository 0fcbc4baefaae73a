//! The PTX parser and printer (`scopecheck_model::ptx`): one test per production of the PTX
//! ISA's grammar that the parser implements, the errors it reports (with their exact
//! `line:col`), and the round trip `parse(print(parse(x))) == parse(x)` over every `.ptx` file
//! under `model/tests/ptx/` and `corpus/cuda/`.

mod common;
mod decls;
mod errors;
mod fixtures;
mod functions;
mod guards;
mod module;
mod operands;
mod stmts;
