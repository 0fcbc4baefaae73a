//! `scopecheck litmus`: the axiomatic oracle on litmus files.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Litmus files or directories (searched recursively for `*.litmus`).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
}

pub fn run(args: Args) -> ExitCode {
    eprintln!(
        "scopecheck litmus: not built yet ({} paths)",
        args.paths.len()
    );
    ExitCode::from(2)
}
