//! The model crate's tests of its own modules, one file per module (`ptx_lex` tests `ptx::lex`).
//! They were `#[cfg(test)]` modules inside the library; here they compile into the one test binary
//! instead of a second, test-configured build of the whole library (issue 33: CI time).

mod axiomatic;
mod axiomatic_dot;
mod axiomatic_rel;
mod axiomatic_targets;
mod cat;
mod cat_env;
mod cat_syntax;
mod expected;
mod input;
#[cfg(feature = "shuttle")]
mod kernel_atomics;
#[cfg(feature = "shuttle")]
mod kernel_shape;
#[cfg(feature = "arbitrary")]
mod litmus_arbitrary;
mod litmus_dialect;
mod litmus_ir_alu;
mod litmus_ir_front;
mod litmus_lines;
mod litmus_opencl;
mod litmus_vulkan;
#[cfg(feature = "shuttle")]
mod ptx_alu;
#[cfg(feature = "shuttle")]
mod ptx_decode_operand;
#[cfg(feature = "shuttle")]
mod ptx_half;
#[cfg(feature = "shuttle")]
mod ptx_layout;
mod ptx_lex;
#[cfg(feature = "shuttle")]
mod ptx_tensor_arg;
#[cfg(feature = "shuttle")]
mod ptx_value;
#[cfg(feature = "shuttle")]
mod runtime_hooks;
#[cfg(feature = "shuttle")]
mod runtime_report;
mod scope;
