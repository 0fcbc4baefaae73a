//! `scopecheck completions SHELL` and `scopecheck man`: the shell completion script and the man
//! page, generated from the command-line definition itself (`clap_complete`, `clap_mangen`), so
//! they list exactly the subcommands and options this binary takes.

use clap_complete::Shell;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct CompletionsArgs {
    /// The shell to write the completion script for.
    #[arg(value_enum)]
    pub shell: Shell,
}

#[derive(clap::Args)]
pub struct ManArgs {}

/// Prints the completion script for `args.shell` on standard output.
pub fn completions(args: CompletionsArgs, mut cmd: clap::Command) -> ExitCode {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "scopecheck", &mut script);
    print!("{}", String::from_utf8_lossy(&script));
    ExitCode::SUCCESS
}

/// Prints the man page (roff, section 1) on standard output: `scopecheck man > scopecheck.1`.
pub fn man(_args: ManArgs, cmd: clap::Command) -> ExitCode {
    let mut page = Vec::new();
    // Rendering into a Vec<u8> cannot fail: the only errors are the writer's.
    if let Err(e) = clap_mangen::Man::new(cmd).render(&mut page) {
        eprintln!("scopecheck man: {e}");
        return ExitCode::from(2);
    }
    print!("{}", String::from_utf8_lossy(&page));
    ExitCode::SUCCESS
}
