//! Every transcript in the README runs as shown: each ` ```text ` block whose lines start with
//! `$ ` is replayed command by command from the repository root, and every output line the README
//! shows must appear in the real output, in order (lines the README leaves out may be there).
//! Timings differ from run to run, so the figure after `Time` is not compared, and `(...)` in a
//! README line stands for any text. `$ echo $?` compares the previous command's exit status;
//! `cargo run --release [-p PKG] --example NAME -- ARGS` runs the example's binary from this
//! build's target directory (`cargo build --release --example NAME` first, a no-op when fresh).
//!
//! A plain `main` (harness = false) so that a transcript that cannot be replayed (a GPU run: its
//! figures are measurements) is reported as skipped in the closing line, never as passed.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// One `$ command` of a transcript with the output lines the README shows after it.
struct Step {
    /// README line of the command (1-based).
    line: usize,
    command: String,
    shown: Vec<String>,
}

/// The transcripts: one list of steps per fenced block.
fn transcripts(readme: &str) -> Vec<Vec<Step>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<Step>> = None;
    for (i, line) in readme.lines().enumerate() {
        if line.starts_with("```") {
            match current.take() {
                Some(steps) if !steps.is_empty() => blocks.push(steps),
                Some(_) => {}
                None => current = Some(Vec::new()),
            }
            continue;
        }
        let Some(steps) = current.as_mut() else {
            continue;
        };
        if let Some(command) = line.strip_prefix("$ ") {
            steps.push(Step {
                line: i + 1,
                command: command.to_string(),
                shown: Vec::new(),
            });
        } else if let Some(step) = steps.last_mut() {
            step.shown.push(line.to_string());
        }
    }
    blocks
}

/// Blanks the figures that change from run to run: every decimal number (`Time 0.0001 s`,
/// herd's `Time NAME 0.00`, `in 0.008 s`) and a rate before `executions/s`.
fn without_timings(line: &str) -> String {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut out = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        let open = w.starts_with('(');
        let number = w.trim_start_matches('(');
        let is_number = number.parse::<f64>().is_ok();
        let rate = words
            .get(i + 1)
            .is_some_and(|n| n.starts_with("executions/s"));
        if is_number && (number.contains('.') || rate) {
            out.push(if open { "(#" } else { "#" }.to_string());
        } else {
            out.push(w.to_string());
        }
    }
    out.join(" ")
}

/// Does the real line `line` show what the README's line `shown` says? `(...)` matches any text.
fn matches(shown: &str, line: &str) -> bool {
    let shown = without_timings(shown);
    let line = without_timings(line);
    let mut parts = shown.split("(...)");
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = line.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (k, part) in parts.iter().enumerate() {
        if k + 1 == parts.len() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

/// The first README line (index into `shown`) missing from `output` when walked in order.
fn first_missing(shown: &[String], output: &str) -> Option<usize> {
    let mut lines = output.lines();
    for (k, want) in shown.iter().enumerate() {
        if want.trim().is_empty() {
            continue;
        }
        if !lines.by_ref().any(|got| matches(want, got)) {
            return Some(k);
        }
    }
    None
}

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The directory holding this build's `scopecheck` binary (`target/release`).
fn bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_scopecheck"))
        .parent()
        .expect("binary directory")
        .to_path_buf()
}

/// `cargo run --release [-p PKG] --example NAME [-- ARGS]` → the example's binary and its
/// arguments, built first (cargo leaves a fresh binary alone).
fn example_command(command: &str) -> Option<Result<String, String>> {
    let rest = command.strip_prefix("cargo run --release ")?;
    let (cargo_args, args) = match rest.split_once(" -- ") {
        Some((c, a)) => (c, a),
        None => (rest, ""),
    };
    let words: Vec<&str> = cargo_args.split_whitespace().collect();
    let name = words
        .iter()
        .position(|w| *w == "--example")
        .and_then(|i| words.get(i + 1))?;
    let package = words
        .iter()
        .position(|w| *w == "-p")
        .and_then(|i| words.get(i + 1))
        .copied();
    let binary = bin_dir().join("examples").join(name);
    // Always through cargo, which does nothing when the binary is fresh: a binary left by an
    // older build (this test run alone after a change) would replay the old program.
    {
        let mut build = Command::new(env!("CARGO"));
        build
            .current_dir(repo_root())
            .args(["build", "--release", "--example", name]);
        if let Some(p) = package {
            build.args(["-p", p]);
        }
        match build.status() {
            Ok(s) if s.success() => {}
            other => return Some(Err(format!("building example {name}: {other:?}"))),
        }
    }
    Some(Ok(format!("{} {args}", binary.display())))
}

/// Runs one block's steps; `Err` names the step and what differs.
fn replay(steps: &[Step]) -> Result<(), String> {
    let path = format!(
        "{}:{}",
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut last_status: Option<i32> = None;
    for step in steps {
        let output = if step.command == "echo $?" {
            match last_status {
                Some(code) => format!("{code}\n"),
                None => {
                    return Err(format!(
                        "README:{}: `echo $?` before any command",
                        step.line
                    ))
                }
            }
        } else {
            let command = match example_command(&step.command) {
                Some(Ok(c)) => c,
                Some(Err(e)) => return Err(format!("README:{}: {e}", step.line)),
                None => step.command.clone(),
            };
            let out = Command::new("bash")
                .arg("-c")
                .arg(&command)
                .current_dir(repo_root())
                .env("PATH", &path)
                .env_remove("NO_COLOR")
                .output()
                .map_err(|e| format!("README:{}: cannot run bash: {e}", step.line))?;
            last_status = out.status.code();
            let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&out.stderr));
            text
        };
        if let Some(k) = first_missing(&step.shown, &output) {
            return Err(format!(
                "README:{}: `{}`: the line the README shows\n    {}\nis not in the output (in order):\n{}",
                step.line,
                step.command,
                step.shown[k],
                output
                    .lines()
                    .map(|l| format!("    | {l}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            ));
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let blocks = transcripts(&readme);
    println!("running {} tests", blocks.len());
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for steps in &blocks {
        let name = format!("README:{} `{}`", steps[0].line, steps[0].command);
        if steps
            .iter()
            .any(|s| s.command.starts_with("scopecheck gpu"))
        {
            // Figures measured on a GPU (rates, counts) differ from run to run and need the GPU.
            println!("test {name} ... SKIPPED: a GPU run's measured figures");
            skipped += 1;
            continue;
        }
        match replay(steps) {
            Ok(()) => {
                println!("test {name} ... ok");
                passed += 1;
            }
            Err(why) => {
                println!("test {name} ... FAILED\n{why}");
                failed += 1;
            }
        }
    }
    println!();
    println!("readme_transcripts: {passed} passed, {failed} failed, {skipped} skipped");
    if failed > 0 || blocks.is_empty() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
