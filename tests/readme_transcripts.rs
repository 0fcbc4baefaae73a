//! Every code block of `README.md` and of the book in `docs/` (`docs/*.md`) is checked, one
//! libtest-mimic trial per block, named `FILE:LINE` after the block's opening fence. The block's
//! info string says what it is (`docs/doc-tests.md` is the reader's version of this list):
//!
//! - ` ```text ` with lines starting `$ `: a transcript. Each command is replayed from the
//!   repository root with this build's `scopecheck` first on `PATH`, and every output line the
//!   block shows must appear in the real output (stdout, then stderr), in order; lines the block
//!   leaves out may be there. `(...)` in a shown line stands for any text, decimal figures
//!   (timings, rates) are not compared, and `$ echo $?` compares the previous command's exit
//!   status. `cargo run --release [-p PKG] --example NAME -- ARGS` runs the example's binary from
//!   this build's target directory (`cargo build --release --example NAME` first, a no-op when
//!   fresh). A transcript that compiles a `.cu` file is skipped without NVRTC.
//! - ` ```LANG file=PATH `: the block is the whole of `PATH` (from the repository root): what the
//!   reader sees is what the transcripts run.
//! - ` ```rust `: a doctest of the model crate; the page must be one `model/src/docs.rs` includes,
//!   so that `cargo test --doc -p scopecheck-model` runs it.
//! - ` ```toml `: dependency lines; each key must name a package of this workspace.
//! - ` ```LANG skip: REASON `: not run here (a GPU run, an installation, CI itself): reported as
//!   ignored, with the reason, never as passed.
//!
//! Any other block fails, so that no block goes unchecked. One more trial per page, `FILE links`,
//! checks that every relative link names a file of the repository and, into a Markdown page, one
//! of its headings (GitHub's and mdBook's anchors); one more, that `docs/SUMMARY.md` lists every
//! page.

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One fenced code block of a page.
struct Block {
    /// The page, relative to the repository root (`README.md`, `docs/litmus.md`).
    page: String,
    /// Line of the opening fence (1-based).
    line: usize,
    /// The info string after the opening backticks.
    info: String,
    /// The lines between the fences, each with its line number.
    body: Vec<(usize, String)>,
}

impl Block {
    /// `FILE:LINE`, the trial's name and the prefix of its messages.
    fn at(&self) -> String {
        format!("{}:{}", self.page, self.line)
    }

    /// The language: the info string's first word.
    fn language(&self) -> &str {
        self.info.split_whitespace().next().unwrap_or("")
    }

    /// `skip: REASON` in the info string.
    fn skip_reason(&self) -> Option<&str> {
        self.info.split_once("skip:").map(|(_, r)| r.trim())
    }

    /// `file=PATH` in the info string.
    fn file(&self) -> Option<&str> {
        self.info
            .split_whitespace()
            .find_map(|w| w.strip_prefix("file="))
    }
}

/// The fenced blocks of `text` (CommonMark fences of three or more backticks, at the margin).
fn blocks(page: &str, text: &str) -> Result<Vec<Block>, String> {
    let mut out = Vec::new();
    let mut open: Option<(usize, usize, String)> = None; // (line, fence length, info)
    let mut body = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let ticks = line.len() - line.trim_start_matches('`').len();
        match &open {
            None if ticks >= 3 => {
                open = Some((i + 1, ticks, line[ticks..].trim().to_string()));
                body = Vec::new();
            }
            None => {}
            Some((start, fence, info)) if ticks >= *fence && line[ticks..].trim().is_empty() => {
                out.push(Block {
                    page: page.to_string(),
                    line: *start,
                    info: info.clone(),
                    body: std::mem::take(&mut body),
                });
                open = None;
            }
            Some(_) => body.push((i + 1, line.to_string())),
        }
    }
    match open {
        Some((line, _, _)) => Err(format!("{page}:{line}: code block never closed")),
        None => Ok(out),
    }
}

/// One `$ command` of a transcript with the output lines the block shows after it.
struct Step {
    /// Line of the command (1-based).
    line: usize,
    command: String,
    shown: Vec<String>,
}

/// The steps of a transcript block (empty when no line starts with `$ `).
fn steps(block: &Block) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    for (line, text) in &block.body {
        if let Some(command) = text.strip_prefix("$ ") {
            steps.push(Step {
                line: *line,
                command: command.to_string(),
                shown: Vec::new(),
            });
        } else if let Some(step) = steps.last_mut() {
            step.shown.push(text.clone());
        }
    }
    steps
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

/// Does the real line `line` show what the block's line `shown` says? `(...)` matches any text.
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

/// The first shown line (index into `shown`) missing from `output` when walked in order. A line
/// that is `(...)` alone stands for any number of lines.
fn first_missing(shown: &[String], output: &str) -> Option<usize> {
    let mut lines = output.lines();
    for (k, want) in shown.iter().enumerate() {
        if want.trim().is_empty() || want.trim() == "(...)" {
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
    Some(Ok(format!("{} {args}", binary.display())))
}

/// Why a transcript cannot run here, if it cannot: a `.cu` file needs NVRTC.
fn cannot_run(steps: &[Step]) -> Option<String> {
    let compiles_cuda = steps
        .iter()
        .any(|s| s.command.split_whitespace().any(|w| w.ends_with(".cu")));
    if !compiles_cuda {
        return None;
    }
    nvrtc_missing()
}

#[cfg(feature = "gpu")]
fn nvrtc_missing() -> Option<String> {
    use scopecheck_gpu::nvrtc::{Search, Toolkit};
    Toolkit::find(&Search::from_env())
        .err()
        .map(|e| format!("compiles a .cu file, and NVRTC is not found: {e}"))
}

#[cfg(not(feature = "gpu"))]
fn nvrtc_missing() -> Option<String> {
    Some("compiles a .cu file, and this build has no `gpu` feature (no NVRTC)".to_string())
}

/// Replays a transcript's steps; `Err` names the step and what differs.
fn replay(steps: &[Step], page: &str) -> Result<(), String> {
    let path = format!(
        "{}:{}",
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut last_status: Option<i32> = None;
    for step in steps {
        let at = format!("{page}:{}", step.line);
        let output = if step.command == "echo $?" {
            match last_status {
                Some(code) => format!("{code}\n"),
                None => return Err(format!("{at}: `echo $?` before any command")),
            }
        } else {
            let command = match example_command(&step.command) {
                Some(Ok(c)) => c,
                Some(Err(e)) => return Err(format!("{at}: {e}")),
                None => step.command.clone(),
            };
            let out = Command::new("bash")
                .arg("-c")
                .arg(&command)
                .current_dir(repo_root())
                .env("PATH", &path)
                .env_remove("NO_COLOR")
                .output()
                .map_err(|e| format!("{at}: cannot run bash: {e}"))?;
            last_status = out.status.code();
            let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&out.stderr));
            text
        };
        if let Some(k) = first_missing(&step.shown, &output) {
            return Err(format!(
                "{at}: `{}`: the line shown\n    {}\nis not in the output (in order):\n{}",
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

/// A `file=PATH` block must be the whole file.
fn same_as_file(block: &Block, path: &str) -> Result<(), String> {
    let file = std::fs::read_to_string(repo_root().join(path))
        .map_err(|e| format!("{}: file={path}: {e}", block.at()))?;
    let file_lines: Vec<&str> = file.lines().collect();
    let shown: Vec<&str> = block.body.iter().map(|(_, l)| l.as_str()).collect();
    if file_lines == shown {
        return Ok(());
    }
    let k = file_lines
        .iter()
        .zip(&shown)
        .position(|(a, b)| a != b)
        .unwrap_or(file_lines.len().min(shown.len()));
    let at = block.body.get(k).map_or(block.line, |(line, _)| *line);
    Err(format!(
        "{}:{at}: the block differs from {path} at its line {}:\n    block: {:?}\n    file:  {:?}",
        block.page,
        k + 1,
        shown.get(k),
        file_lines.get(k)
    ))
}

/// A ` ```rust ` block runs as a doctest only if `model/src/docs.rs` includes its page.
fn page_is_a_doctest(block: &Block) -> Result<(), String> {
    let docs = std::fs::read_to_string(repo_root().join("model/src/docs.rs"))
        .map_err(|e| format!("model/src/docs.rs: {e}"))?;
    let include = format!("include_str!(\"../../{}\")", block.page);
    if docs.contains(&include) {
        Ok(())
    } else {
        Err(format!(
            "{}: a rust block on a page model/src/docs.rs does not include (`{include}`): \
             `cargo test --doc` would not run it",
            block.at()
        ))
    }
}

/// The packages of this workspace, by the `name = "..."` of each member's manifest.
fn workspace_packages() -> Vec<String> {
    ["Cargo.toml", "model/Cargo.toml", "gpu-validate/Cargo.toml"]
        .iter()
        .filter_map(|m| std::fs::read_to_string(repo_root().join(m)).ok())
        .filter_map(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("name = \""))
                .and_then(|rest| rest.split('"').next())
                .map(str::to_string)
        })
        .collect()
}

/// Each key of a ` ```toml ` dependency block names a workspace package; a `path` names its
/// directory (`.../model` for `scopecheck-model`).
fn dependency_lines(block: &Block) -> Result<(), String> {
    let packages = workspace_packages();
    let mut keys = 0;
    for (line, text) in &block.body {
        let Some((key, value)) = text.split_once('=') else {
            continue;
        };
        let key = key.trim();
        keys += 1;
        if !packages.iter().any(|p| p == key) {
            return Err(format!(
                "{}:{line}: `{key}` is no package of this workspace ({packages:?})",
                block.page
            ));
        }
        if let Some(path) = value
            .split("path = \"")
            .nth(1)
            .and_then(|r| r.split('"').next())
        {
            let dir = Path::new(path).file_name().and_then(|d| d.to_str());
            let manifest = dir.map(|d| repo_root().join(d).join("Cargo.toml"));
            let named = manifest
                .and_then(|m| std::fs::read_to_string(m).ok())
                .is_some_and(|m| m.contains(&format!("name = \"{key}\"")));
            if !named {
                return Err(format!(
                    "{}:{line}: `{path}` does not end in the directory of `{key}`",
                    block.page
                ));
            }
        }
    }
    if keys == 0 {
        return Err(format!("{}: a toml block with no dependency", block.at()));
    }
    Ok(())
}

/// GitHub's and mdBook's anchor of a heading: lower case, spaces to `-`, punctuation dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a page's headings (outside code blocks).
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

/// Every relative link `](PATH#ANCHOR)` of `page` names a file of the repository and, with an
/// anchor into a Markdown page, one of its headings.
fn links_resolve(page: &str, text: &str) -> Result<(), String> {
    let dir = Path::new(page).parent().unwrap_or(Path::new(""));
    let mut broken = Vec::new();
    for (i, line) in text.lines().enumerate() {
        for piece in line.split("](").skip(1) {
            let Some(target) = piece.split(')').next() else {
                continue;
            };
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, fragment) = target.split_once('#').unwrap_or((target, ""));
            let file = if path.is_empty() {
                repo_root().join(page)
            } else {
                repo_root().join(dir).join(path)
            };
            if !file.exists() {
                broken.push(format!("{page}:{}: `{target}`: no such file", i + 1));
                continue;
            }
            if !fragment.is_empty() && (path.is_empty() || path.ends_with(".md")) {
                let linked = std::fs::read_to_string(&file).unwrap_or_default();
                if !anchors(&linked).iter().any(|a| a == fragment) {
                    broken.push(format!("{page}:{}: `{target}`: no such heading", i + 1));
                }
            }
        }
    }
    if broken.is_empty() {
        Ok(())
    } else {
        Err(broken.join("\n"))
    }
}

/// The book's table of contents, `docs/SUMMARY.md`, links every page of `docs/` (mdBook leaves
/// out a page it does not list).
fn summary_lists_every_page(pages: &[String]) -> Result<(), String> {
    let summary = std::fs::read_to_string(repo_root().join("docs/SUMMARY.md"))
        .map_err(|e| format!("docs/SUMMARY.md: {e}"))?;
    let missing: Vec<&str> = pages
        .iter()
        .filter_map(|p| p.strip_prefix("docs/"))
        .filter(|p| *p != "SUMMARY.md" && !summary.contains(&format!("]({p})")))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!("docs/SUMMARY.md: no entry for {missing:?}"))
    }
}

/// The trial that checks `block`.
fn trial(block: Block) -> Trial {
    let name = block.at();
    if let Some(reason) = block.skip_reason() {
        let reason = reason.to_string();
        return Trial::ignorable_test(name, move || Ok(Completion::ignored_with(reason)));
    }
    if let Some(path) = block.file() {
        let path = path.to_string();
        return Trial::test(name, move || {
            same_as_file(&block, &path).map_err(Failed::from)
        });
    }
    match block.language() {
        "text" => {
            let steps = steps(&block);
            if steps.is_empty() {
                let at = block.at();
                return Trial::test(name, move || {
                    Err(
                        format!("{at}: a text block with no `$ ` command: mark it `skip: REASON`")
                            .into(),
                    )
                });
            }
            Trial::ignorable_test(name, move || {
                if let Some(why) = cannot_run(&steps) {
                    return Ok(Completion::ignored_with(why));
                }
                replay(&steps, &block.page)
                    .map(|()| Completion::Completed)
                    .map_err(Failed::from)
            })
        }
        "rust" => Trial::test(name, move || {
            page_is_a_doctest(&block).map_err(Failed::from)
        }),
        "toml" => Trial::test(name, move || dependency_lines(&block).map_err(Failed::from)),
        other => {
            let message = format!(
                "{}: a `{other}` block that nothing runs: give it `file=PATH` or `skip: REASON`",
                block.at()
            );
            Trial::test(name, move || Err(message.into()))
        }
    }
}

/// `README.md`, then the book's pages in name order.
fn pages() -> Vec<String> {
    let mut pages: Vec<String> = std::fs::read_dir(repo_root().join("docs"))
        .expect("docs/")
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    pages.sort();
    pages.insert(0, "README.md".to_string());
    pages
}

fn main() {
    let args = Arguments::from_args();
    let pages = pages();
    let listed = pages.clone();
    let mut trials = vec![Trial::test("docs/SUMMARY.md lists every page", move || {
        summary_lists_every_page(&listed).map_err(Failed::from)
    })];
    for page in pages {
        let text = std::fs::read_to_string(repo_root().join(&page))
            .unwrap_or_else(|e| panic!("{page}: {e}"));
        let (name, links_page, links_text) = (format!("{page} links"), page.clone(), text.clone());
        trials.push(Trial::test(name, move || {
            links_resolve(&links_page, &links_text).map_err(Failed::from)
        }));
        match blocks(&page, &text) {
            Ok(found) => trials.extend(found.into_iter().map(trial)),
            Err(e) => trials.push(Trial::test(page, move || Err(e.into()))),
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
