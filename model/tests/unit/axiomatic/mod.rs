//! Engine tests on programs built by hand (the parser has its own tests), by what they test.

mod build;
mod ptx;
// Every comparison runs generated programs (`litmus::arbitrary`).
#[cfg(feature = "arbitrary")]
mod search;
mod tile_ir;
mod values;
