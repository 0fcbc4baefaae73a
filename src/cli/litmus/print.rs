//! How `scopecheck litmus` prints one test: scopecheck's own report, the `--json` line, and
//! the `--dot` witness.

use scopecheck_model::axiomatic::{condition_holds_on, dot, Analysis, FinalState, Model, Stop};
use scopecheck_model::differential::reached::RuntimeStates;
use scopecheck_model::litmus::print::{prop, Level};
use scopecheck_model::litmus::Program;
use serde::Serialize;
use std::path::Path;

/// The `--json` line of one test.
#[derive(Serialize)]
pub struct Report<'a> {
    pub test: &'a str,
    pub file: String,
    pub model: &'a str,
    pub condition: &'static str,
    pub holds: bool,
    pub states: Vec<&'a FinalState>,
    pub bounded: bool,
    /// Why the search stopped early (`timeout`, `max-executions`), if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stop>,
    pub seconds: f64,
    /// Executions with a data race (undefined behaviour); Tile IR only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub racy_executions: Option<u64>,
    /// With `--races`: no consistent execution has a data race.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub race_free: Option<bool>,
    /// With `--runtime`: the final states the operational runtime reaches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<&'a RuntimeStates>,
}

fn condition_text(p: &Program) -> String {
    format!(
        "{} ({})",
        p.condition.quantifier.keyword(),
        prop(p, &p.condition.prop, Level::Or)
    )
}

/// scopecheck's own report of one test.
pub fn print_human(
    p: &Program,
    file: &str,
    model: &Model,
    a: &Analysis,
    runtime: Option<&RuntimeStates>,
    seconds: f64,
    show_races: bool,
) {
    println!("Test {} ({file}) under {model}", p.name);
    println!("States {}", a.states.len());
    if a.states.is_empty() {
        println!("  (no execution runs to its end: every candidate is forbidden or deadlocks)");
    }
    for s in &a.states {
        let mark = if condition_holds_on(p, &s.state) {
            " *"
        } else {
            ""
        };
        let reached = match runtime {
            Some(r) if r.reached.contains(&s.state) => "  [runtime]",
            _ => "",
        };
        println!("  {:>6} x  {}{mark}{reached}", s.witnesses, s.state);
    }
    // herd7's verdict: `Ok` when the condition validates (exists: some state satisfies the
    // proposition; ~exists: none does; forall: all do), `No` otherwise.
    println!("{}", if a.holds { "Ok" } else { "No" });
    let why = match a.stopped {
        Some(Stop::Interrupted) => {
            " (interrupted: bounded, the states found before the signal)".to_string()
        }
        Some(stop) => {
            format!(" (bounded: the search stopped at its {stop} budget; states found so far)")
        }
        None if a.bounded => " (bounded: loops cut at the unroll bound)".to_string(),
        None => String::new(),
    };
    let verdict = if a.holds { "holds" } else { "does not hold" };
    println!("Condition {} {verdict}{why}", condition_text(p));
    if show_races {
        println!(
            "Data races in {} of {} executions{}",
            a.racy_executions,
            a.executions,
            if a.racy_executions > 0 && *model == Model::TileIr {
                " (undefined behaviour)"
            } else {
                ""
            }
        );
        println!(
            "{}",
            if a.racy_executions == 0 {
                "Race-free: no consistent execution has a data race"
            } else {
                "Racy: some consistent execution has a data race"
            }
        );
    }
    if let Some(r) = runtime {
        print_runtime(model, a, r);
    }
    // With `--runtime`, `Time` includes the runtime's exploration, shown in parentheses.
    let of_runtime = runtime.map_or(String::new(), |r| format!(" (runtime {:.4} s)", r.seconds));
    println!(
        "Executions {}  Time {seconds:.4} s{of_runtime}",
        a.executions
    );
    println!();
}

fn print_runtime(model: &Model, a: &Analysis, r: &RuntimeStates) {
    if let Some(why) = &r.skipped {
        println!("Runtime: {why}");
        return;
    }
    let extent = if r.complete {
        "exhaustive"
    } else {
        "bounded: the search was cut short"
    };
    println!(
        "Runtime reaches {} of {} allowed states ({extent}, {} configurations)",
        r.reached.len() - r.forbidden.len(),
        a.states.len(),
        r.configurations
    );
    if r.unreached > 0 {
        println!(
            "Runtime cannot reach {} allowed state(s): its verdicts cover executions without \
             load buffering (a load never reads a store not yet executed)",
            r.unreached
        );
    }
    if !r.forbidden.is_empty() {
        println!(
            "Runtime reaches {} state(s) {model} forbids (an engine disagreement):",
            r.forbidden.len()
        );
        for s in &r.forbidden {
            println!("  {s}");
        }
    }
}

/// `DIR/<file stem>.dot`: a witness of a state satisfying the proposition when there is one
/// (the interesting execution), else of the first allowed state.
pub fn write_dot(path: &Path, p: &Program, model: &Model, a: &Analysis) -> Result<(), String> {
    let Some(text) = dot::render_analysis(p, model, a) else {
        return Ok(());
    };
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
