//! Writing the report: standard output that cannot be written (a full disk, `> /dev/full`, a
//! closed pipe when SIGPIPE is ignored) ends the program with a one-line message and exit
//! status 2, never a panic. The crate root's `print!`, `println!` and `eprintln!` (which shadow
//! std's for every module of this binary) write through here.

use std::fmt;
use std::io::Write;

/// Exit status when the output cannot be written (as for bad input: the run produced nothing
/// usable).
const WRITE_FAILED: i32 = 2;

/// Writes to standard output, or ends the program if it cannot.
pub fn out(args: fmt::Arguments<'_>) {
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_fmt(args) {
        failed(e);
    }
}

/// Writes a line to standard output, or ends the program if it cannot.
pub fn out_line(args: fmt::Arguments<'_>) {
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_fmt(args)
        .and_then(|()| stdout.write_all(b"\n"))
    {
        failed(e);
    }
}

/// Writes to standard error; if even that fails, there is nowhere left to say so.
pub fn err(args: fmt::Arguments<'_>) {
    let _ = std::io::stderr().lock().write_fmt(args);
}

/// Writes a line to standard error; if even that fails, there is nowhere left to say so, and
/// the line is dropped.
pub fn err_line(args: fmt::Arguments<'_>) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr
        .write_fmt(args)
        .and_then(|()| stderr.write_all(b"\n"));
}

/// Flushes standard output at the end of the run, or ends the program if it cannot.
pub fn flush() {
    if let Err(e) = std::io::stdout().lock().flush() {
        failed(e);
    }
}

fn failed(e: std::io::Error) -> ! {
    err_line(format_args!("scopecheck: cannot write the output: {e}"));
    std::process::exit(WRITE_FAILED)
}
