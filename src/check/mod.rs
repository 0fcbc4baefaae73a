//! `scopecheck check`'s library: find the corpus under the given paths ([`manifest`]), check each
//! litmus row ([`litmus`]), bug model ([`bugs`]) and CUDA kernel ([`cuda`]) against its expected
//! verdict on a worker pool ([`run`]), as [`Outcome`]s the CLI prints ([`outcome`]).

pub mod bugs;
pub mod cuda;
pub mod litmus;
pub mod manifest;
pub mod outcome;
pub mod run;

pub use manifest::{collect, Corpus};
pub use outcome::{Outcome, Status};
pub use run::{bug_cases, row_count, run_jobs, Settings};
