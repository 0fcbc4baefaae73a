//! One `scopecheck gpu` run: litmus files read, each run on one or several devices, diffed
//! against the model, with `--tune`, `--bench` and `--mutants` variants, and the records `--json`
//! writes.
//!
//! The command-line tool parses its arguments into [`Options`], calls [`run_devices`] (or
//! [`emit()`] for `--emit`) and prints: every line a run has to say goes through the [`Log`] the
//! caller gives, so this module prints nothing itself.
//!
//! Files: [`options`] (what a run is asked to do, and the tests), [`core`] (one device's session
//! and the step every mode shares: generate, compile, run, diff), [`check`], [`bench`](mod@bench) and
//! [`mutants`] (the three modes), [`devices`] (one worker per device), [`text`] (a record as
//! text), [`emit`](mod@emit) (harness files without a GPU), [`output`] (what `--json` writes). Imports flow
//! from the modes to `core`, never back.

pub mod bench;
pub mod check;
pub mod core;
pub mod devices;
pub mod emit;
pub mod mutants;
pub mod options;
pub mod output;
pub mod text;

pub use devices::run_devices;
pub use emit::{emit, EmitSummary};
pub use options::{load, Log, Mode, Options, Test};
pub use output::{MultiOutput, NoGpu, Output};
pub use text::format_record;
