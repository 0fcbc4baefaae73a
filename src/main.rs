//! `scopecheck`: the command-line front end.

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

// Every report line of this binary goes through `output`, so that an output that cannot be
// written (`> /dev/full`) ends the run with a one-line error and exit status 2, never a panic:
// these shadow std's `print!`, `println!`, `eprint!` and `eprintln!` in every module below.
macro_rules! print {
    ($($arg:tt)*) => { $crate::output::out(format_args!($($arg)*)) };
}
macro_rules! println {
    () => { $crate::output::out_line(format_args!("")) };
    ($($arg:tt)*) => { $crate::output::out_line(format_args!($($arg)*)) };
}
macro_rules! eprint {
    ($($arg:tt)*) => { $crate::output::err(format_args!($($arg)*)) };
}
macro_rules! eprintln {
    () => { $crate::output::err_line(format_args!("")) };
    ($($arg:tt)*) => { $crate::output::err_line(format_args!($($arg)*)) };
}

mod budget;
mod check;
mod cli;
mod cuda_corpus;
mod interrupt;
mod output;

#[derive(Parser)]
#[command(
    name = "scopecheck",
    version,
    about = "Model-checking fuzzer for scoped GPU memory models",
    after_help = cli::EXIT_CODES
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Every final state a memory model allows for litmus programs (PTX, Vulkan and OpenCL
    /// dialects).
    #[command(after_help = cli::EXIT_CODES)]
    Litmus(cli::litmus::Args),
    /// Run the corpus (litmus tests and bug models) against its expected verdicts.
    #[command(after_help = cli::EXIT_CODES)]
    Check(cli::check::Args),
    /// Run litmus programs on the GPU and diff the outcomes against the model.
    #[cfg(feature = "gpu")]
    #[command(after_help = cli::EXIT_CODES)]
    Gpu(cli::gpu::Args),
    /// Run litmus programs on the GPU (this build has no GPU support: exit status 2).
    #[cfg(not(feature = "gpu"))]
    #[command(after_help = cli::EXIT_CODES)]
    Gpu(cli::no_gpu::Args),
    /// Fuzz the engines against each other: generated programs, runtime states ⊆ axiomatic.
    #[command(after_help = cli::EXIT_CODES)]
    Fuzz(cli::fuzz::Args),
    /// Check a CUDA kernel's PTX: every thread's PTX interpreted on the scoped runtime.
    #[command(after_help = cli::EXIT_CODES)]
    Kernel(cli::kernel::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) on standard output.
    Completions(cli::shell::CompletionsArgs),
    /// Print the man page (roff) on standard output: `scopecheck man > scopecheck.1`.
    Man(cli::shell::ManArgs),
}

fn main() -> ExitCode {
    restore_sigpipe();
    let code = match Cli::parse().command {
        Command::Litmus(args) => cli::litmus::run(args),
        Command::Check(args) => cli::check::run(args),
        #[cfg(feature = "gpu")]
        Command::Gpu(args) => cli::gpu::run(args),
        #[cfg(not(feature = "gpu"))]
        Command::Gpu(args) => cli::no_gpu::run(args),
        Command::Fuzz(args) => cli::fuzz::run(args),
        Command::Kernel(args) => cli::kernel::run(args),
        Command::Completions(args) => cli::shell::completions(args, Cli::command()),
        Command::Man(args) => cli::shell::man(args, Cli::command()),
    };
    output::flush();
    code
}

/// Output piped into a reader that stops early (`scopecheck litmus ... | head -1`) ends the
/// process quietly, as for other Unix tools: Rust ignores SIGPIPE, so a write to the closed pipe
/// would fail and `println!` would panic; with the default action the process just ends.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any thread starts; setting the default
    // disposition of SIGPIPE touches no memory of this program.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
