//! `scopecheck gpu` in a build without the `gpu` feature: it takes any arguments and says, in
//! one line, that this build cannot run on a GPU (exit status 2).

use std::ffi::OsString;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Whatever `scopecheck gpu` would take; this build ignores it.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub rest: Vec<OsString>,
}

/// Says that this build has no GPU support.
pub fn run(_args: Args) -> ExitCode {
    eprintln!("{}", super::NO_GPU.replace("{what}", "gpu"));
    ExitCode::from(2)
}
