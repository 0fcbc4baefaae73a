//! `scopecheck litmus --liveness`: can some consistent execution hang under a progress model?
//!
//! Text: `terminates`, `can hang` (with each stuck thread, every thread's fate and the witness:
//! the stuck thread's prefix, then the repeating iteration) or `bounded` (no hang within the
//! raised unroll bound, and a loop that bound cut). `--json`: one object per test with
//! `"terminates": bool`, `"verdict"` and `"bounded": bool`; `--dot DIR`: the hanging execution
//! with the iteration marked.

use scopecheck_model::axiomatic::liveness::{self, Cut, Fate, Hang, Options, Progress, Verdict};
use scopecheck_model::axiomatic::Model;
use scopecheck_model::litmus::{LitmusError, Program};
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// The `--progress` value.
pub fn parse_progress(name: &str) -> Result<Progress, String> {
    Progress::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = Progress::ALL.iter().map(|p| p.name()).collect();
        format!(
            "unknown progress model `{name}` (known: {})",
            known.join(", ")
        )
    })
}

#[derive(Serialize)]
struct Report<'a> {
    test: &'a str,
    file: &'a str,
    model: &'a str,
    progress: &'static str,
    /// The bound asked for and the one the verdict was reached at.
    unroll: u32,
    unroll_reached: u32,
    terminates: bool,
    verdict: Verdict,
    bounded: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    hang: Option<&'a Hang>,
    /// Bounded: the loop the highest bound cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    cut: Option<&'a Cut>,
    seconds: f64,
}

/// What `litmus --liveness` asks of one test (from the `litmus` command's arguments).
pub struct Ask<'a> {
    /// The model.
    pub model: &'a Model,
    /// Loop unrolling bound.
    pub unroll: u32,
    /// The progress model.
    pub progress: Progress,
    /// `--dot DIR`: write a hang's graph there.
    pub dot: Option<&'a Path>,
    /// Print JSON instead of text.
    pub json: bool,
}

/// Decides and reports one parsed test; returns the verdict.
pub fn decide(file: &Path, src: &str, p: &Program, args: &Ask) -> Result<Verdict, String> {
    let name = file.display().to_string();
    let opts = Options {
        unroll: args.unroll,
        progress: args.progress,
        max_unroll: None,
    };
    let start = Instant::now();
    let verdict = liveness::liveness(p, args.model.clone(), &opts)
        .map_err(|e| LitmusError::at(&name, src, e.span, e.message).to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    if let (Some(dir), Some(hang)) = (args.dot, &verdict.hang) {
        let stem = file
            .file_stem()
            .map_or("test".into(), |s| s.to_string_lossy().into_owned());
        let path = dir.join(format!("{stem}.dot"));
        std::fs::write(&path, liveness::dot(p, hang))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if args.json {
        let report = Report {
            test: &p.name,
            file: &name,
            model: args.model.name(),
            progress: opts.progress.name(),
            unroll: opts.unroll,
            unroll_reached: verdict.unroll,
            terminates: verdict.terminates,
            verdict: verdict.verdict,
            bounded: verdict.verdict == Verdict::Bounded,
            hang: verdict.hang.as_ref(),
            cut: verdict.cut.as_ref(),
            seconds,
        };
        println!(
            "{}",
            serde_json::to_string(&report).expect("reports serialize")
        );
        return Ok(verdict.verdict);
    }
    let raised = if verdict.unroll > opts.unroll {
        format!(" (raised to {})", verdict.unroll)
    } else {
        String::new()
    };
    println!(
        "Test {} ({name}) under {}, progress {}, unroll {}{raised}",
        p.name, args.model, opts.progress, opts.unroll
    );
    match &verdict.hang {
        None if verdict.verdict == Verdict::Bounded => {
            println!("Liveness: bounded");
            if let Some(cut) = &verdict.cut {
                println!(
                    "  no hang within unroll {}, but P{} may take the loop closed at {}:{} once more after an iteration that changes the state (raise --unroll)",
                    verdict.unroll, cut.thread, cut.span.line, cut.span.col
                );
            }
        }
        None => println!("Liveness: terminates"),
        Some(hang) => {
            println!("Liveness: can hang");
            let fates: Vec<String> = hang
                .fates
                .iter()
                .enumerate()
                .map(|(t, f)| match f {
                    Fate::Stopped if hang.execution.events.iter().all(|e| e.thread != Some(t)) => {
                        format!("P{t} not started")
                    }
                    f => format!("P{t} {}", f.name()),
                })
                .collect();
            println!("  Threads: {}", fates.join(", "));
            let label = |e: &usize| {
                let ev = &hang.execution.events[*e];
                let at = ev.span.map(|s| format!(" ({s})")).unwrap_or_default();
                format!("e{e} {}{at}", ev.label)
            };
            for s in &hang.stuck {
                println!("  {}", liveness::describe(p, s));
                let prefix: Vec<String> = s.prefix.iter().map(label).collect();
                println!("    prefix: {}", or_none(&prefix));
                if s.fate == Fate::Spins {
                    let iteration: Vec<String> = s.iteration.iter().map(label).collect();
                    println!("    repeats forever: {}", or_none(&iteration));
                }
            }
            println!("  Reads-from: {}", pairs(&hang.execution.rf));
            println!("  Coherence: {}", pairs(&hang.execution.co));
        }
    }
    println!("Time {seconds:.4} s");
    println!();
    Ok(verdict.verdict)
}

fn or_none(items: &[String]) -> String {
    if items.is_empty() {
        "(nothing)".to_string()
    } else {
        items.join("; ")
    }
}

fn pairs(edges: &[(usize, usize)]) -> String {
    let text: Vec<String> = edges.iter().map(|(a, b)| format!("e{a}->e{b}")).collect();
    or_none(&text)
}
