//! PTX kernels in: the syntax tree of a PTX module ([`ast`]), its parser ([`parse()`]) and
//! printer (`Display` on the tree, [`mod@print`]), and the interpreter that runs each CUDA thread's
//! PTX on the scoped runtime: [`decode`] lowers instructions to typed operations, [`program`]
//! flattens functions and resolves labels and sites, [`layout`] maps byte addresses onto the
//! runtime's locations, [`exec`] interprets one thread, [`launch`] builds the model kernel from
//! a launch configuration and checks it.

pub mod ast;
mod error;
pub mod lex;
mod parse;
pub mod print;

pub use error::PtxError;
pub use parse::{parse, parse_errors, MAX_DEPTH, MAX_ERRORS};

#[cfg(feature = "shuttle")]
pub mod alu;
#[cfg(feature = "shuttle")]
pub mod decode;
#[cfg(feature = "shuttle")]
pub mod exec;
#[cfg(feature = "shuttle")]
pub mod half;
#[cfg(feature = "shuttle")]
pub mod launch;
#[cfg(feature = "shuttle")]
pub mod layout;
#[cfg(feature = "shuttle")]
pub mod program;
#[cfg(feature = "shuttle")]
pub mod tensor_arg;
#[cfg(feature = "shuttle")]
pub mod value;
