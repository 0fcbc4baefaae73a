//! PTX kernels in: the syntax tree of a PTX module ([`ast`]), its parser ([`parse()`]) and
//! printer (`Display` on the tree, [`print`]). The interpreter that runs each CUDA thread's PTX
//! on the scoped runtime builds on the tree.

pub mod ast;
mod error;
mod lex;
mod parse;
pub mod print;

pub use error::PtxError;
pub use parse::{parse, parse_errors, MAX_DEPTH, MAX_ERRORS};
