//! The book's Rust examples as doctests: `cargo test --doc -p scopecheck-model` compiles and
//! runs every ` ```rust ` block of the pages included here (`tests/readme_transcripts.rs` fails
//! on a page with such a block that is not). Compiled only for doctests.

/// `docs/kernel-api.md`: the kernel API's examples.
#[doc = include_str!("../../docs/kernel-api.md")]
pub struct KernelApi;
