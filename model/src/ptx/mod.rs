//! PTX kernels in: the syntax tree of a PTX module ([`ast`]). The parser, the printer and the
//! interpreter that runs each CUDA thread's PTX on the scoped runtime build on it.

pub mod ast;
