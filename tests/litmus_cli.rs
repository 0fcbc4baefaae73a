//! `scopecheck litmus` end to end: output forms, exit codes and error positions.

use crate::runner;
use runner::{assert_underlined, scopecheck, scratch, write};

const MP: &str = "PTX MP
{ x=0; y=0; }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.weak x, 1        | ld.acquire.gpu r0, y ;
 st.release.gpu y, 1 | ld.weak r1, x        ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
";

const SB: &str = "PTX SB
{ x=0; y=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.weak x, 1   | st.weak y, 1   ;
 ld.weak r0, y  | ld.weak r1, x  ;
exists (P0:r0 == 0 /\\ P1:r1 == 0)
";

/// Nobody ever writes x, so the spin loop can never be left.
const SPIN: &str = "PTX spin
{ x=0; }
 P0@cta 0,gpu 0   ;
 LC00:            ;
 ld.weak r0, x    ;
 beq r0, 0, LC00  ;
exists (P0:r0 == 0)
";

#[test]
fn human_output_names_the_verdict_and_states() {
    let dir = scratch("human");
    let mp = write(&dir, "MP.litmus", MP);
    let out = scopecheck(&["litmus", &mp]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Test MP"), "{text}");
    assert!(text.contains("States 3"), "{text}");
    assert!(
        text.lines().any(|l| l == "No"),
        "herd7's verdict word: {text}"
    );
    assert!(text.contains("does not hold"), "{text}");
}

#[test]
fn json_lines_carry_every_field() {
    let dir = scratch("json");
    write(&dir, "MP.litmus", MP);
    write(&dir, "SB.litmus", SB);
    let out = scopecheck(&[
        "litmus",
        "--json",
        "--model",
        "ptx-v6.0",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    let (mp, sb) = (&lines[0], &lines[1]);
    assert_eq!(mp["test"], "MP");
    assert_eq!(mp["model"], "ptx-v6.0");
    assert_eq!(mp["condition"], "exists");
    assert_eq!(mp["holds"], false);
    assert_eq!(mp["bounded"], false);
    assert!(mp["seconds"].as_f64().unwrap() >= 0.0);
    assert!(mp["file"].as_str().unwrap().ends_with("MP.litmus"));
    assert_eq!(sb["holds"], true);
    let states = sb["states"].as_array().unwrap();
    assert_eq!(states.len(), 4);
    // Memory is reported for the locations the condition reads (none here), as herd7 does.
    assert!(states.iter().any(|s| s["regs"]["P0:r0"] == 0
        && s["regs"]["P1:r1"] == 0
        && s["mem"].as_object().unwrap().is_empty()));
}

#[test]
fn loop_beyond_the_unroll_bound_warns_at_the_branch() {
    let dir = scratch("spin");
    let spin = write(&dir, "spin.litmus", SPIN);
    let out = scopecheck(&["litmus", "--unroll", "3", &spin]);
    // herd7's semantics: the condition is judged on the runs that finish (none here).
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("States 0"), "{stdout}");
    assert!(stdout.contains("bounded"), "{stdout}");
    let err = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = err.lines().collect();
    assert!(lines[0].starts_with(&format!("{spin}:6:2: ")), "{err}");
    assert!(lines[0].contains("unroll bound of 3"), "{err}");
    assert_underlined(&err, " beq r0, 0, LC00  ;", 2, 3);
}

#[test]
fn bad_input_exits_2_and_the_other_files_are_still_reported() {
    let dir = scratch("bad");
    write(&dir, "a-good.litmus", MP);
    let bad = write(
        &dir,
        "b-bad.litmus",
        &MP.replace("st.weak x, 1", "st.bogus x, 1"),
    );
    let out = scopecheck(&["litmus", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stdout).unwrap().contains("Test MP"));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with(&format!("{bad}:4:5: ")), "{err}");
    assert_underlined(&err, " st.bogus x, 1        | ld.acquire.gpu r0, y ;", 5, 5);
    let unknown = scopecheck(&["litmus", "--model", "tso", dir.to_str().unwrap()]);
    assert_eq!(
        unknown.status.code(),
        Some(2),
        "clap rejects unknown models"
    );
}

#[test]
fn dot_witnesses_render_with_graphviz() {
    let dir = scratch("dot");
    let mp = write(&dir, "MP.litmus", MP);
    let sb = write(&dir, "SB.litmus", SB);
    let out_dir = dir.join("dot");
    let out = scopecheck(&["litmus", "--dot", out_dir.to_str().unwrap(), &mp, &sb]);
    assert_eq!(out.status.code(), Some(0));
    for name in ["MP", "SB"] {
        let dot = out_dir.join(format!("{name}.dot"));
        let text = std::fs::read_to_string(&dot).unwrap();
        assert!(
            text.starts_with("digraph") && text.contains("label=\"rf\""),
            "{text}"
        );
        match std::process::Command::new("dot")
            .arg("-Tsvg")
            .arg(&dot)
            .output()
        {
            Ok(svg) => {
                assert!(
                    svg.status.success(),
                    "{}",
                    String::from_utf8_lossy(&svg.stderr)
                );
                assert!(String::from_utf8_lossy(&svg.stdout).contains("<svg"));
            }
            Err(_) => println!("SKIP rendering {name}.dot: graphviz `dot` is not installed"),
        }
    }
}

#[test]
fn tile_ir_model_reports_races_and_reads_tokens() {
    let dir = scratch("tile");
    let own = "PTX tile-own
{ x=0; }
 P0@cta 0,gpu 0   ;
 st.weak x, 1 A   ;
 ld.weak r0, x B  ;
exists (P0:r0 == 0)
";
    let racy = write(
        &dir,
        "racy.litmus",
        &own.replace(" A", "").replace(" B", ""),
    );
    let ordered = write(
        &dir,
        "ordered.litmus",
        &own.replace(" A", " [-> t]").replace(" B", " [t ->]"),
    );
    let out = scopecheck(&["litmus", "--json", "--model", "tile-ir", &racy, &ordered]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["model"], "tile-ir");
    assert_eq!(
        lines[0]["holds"], true,
        "without tokens the load may run first"
    );
    assert!(lines[0]["racy_executions"].as_u64().unwrap() > 0);
    assert_eq!(lines[1]["holds"], false);
    assert_eq!(lines[1]["racy_executions"], 0);
}

#[test]
fn races_flag_reports_race_freedom_by_the_models_own_flag() {
    let dir = scratch("races");
    let own = "PTX tile-own
{ x=0; }
 P0@cta 0,gpu 0   ;
 st.weak x, 1 A   ;
 ld.weak r0, x B  ;
exists (P0:r0 == 0)
";
    let racy = write(
        &dir,
        "racy.litmus",
        &own.replace(" A", "").replace(" B", ""),
    );
    let ordered = write(
        &dir,
        "ordered.litmus",
        &own.replace(" A", " [-> t]").replace(" B", " [t ->]"),
    );
    // The built-in Tile IR model and its cat text, loaded by path, decide alike.
    let cat = write(
        &dir,
        "my-tile.cat",
        scopecheck_model::cat::builtin_text("tile-ir").unwrap(),
    );
    for model in ["tile-ir", cat.as_str()] {
        let out = scopecheck(&[
            "litmus", "--json", "--races", "--model", model, &racy, &ordered,
        ]);
        assert_eq!(out.status.code(), Some(0), "{model}");
        let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0]["race_free"], false, "{model}");
        assert_eq!(lines[1]["race_free"], true, "{model}");
    }
    let human = scopecheck(&["litmus", "--races", "--model", &cat, &racy]);
    let text = String::from_utf8(human.stdout).unwrap();
    assert!(text.contains("under my-tile"), "{text}");
    assert!(
        text.contains("Racy: some consistent execution has a data race"),
        "{text}"
    );
    // Under PTX, program order makes one thread's accesses to one location morally strong: no
    // race (the built-in models and their cat texts alike).
    for model in ["ptx-v7.5", "ptx-v6.0", "ptx-v7.5.cat", "ptx-v6.0.cat"] {
        let out = scopecheck(&["litmus", "--json", "--races", "--model", model, &racy]);
        assert_eq!(out.status.code(), Some(0), "{model}");
        let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(line["race_free"], true, "{model}");
    }
    // Two threads: a weak store and a weak load of one location, unordered when the acquire
    // reads the initial flag: a data race (PTX ISA "Data races"), not when it reads the release.
    let mp = write(
        &dir,
        "mp.litmus",
        "PTX mp-weak
{ x=0; y=0; }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.weak x, 1        | ld.acquire.gpu r0, y ;
 st.release.gpu y, 1 | ld.weak r1, x        ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
",
    );
    for model in ["ptx-v7.5", "ptx-v6.0", "ptx-v7.5.cat", "ptx-v6.0.cat"] {
        let out = scopecheck(&["litmus", "--json", "--races", "--model", model, &mp]);
        let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(line["race_free"], false, "{model}");
        assert_eq!(
            line["racy_executions"], 2,
            "{model}: the two runs reading y == 0"
        );
    }
    // Without --races the PTX models say nothing about races (a racy weak read is not
    // undefined behaviour there).
    let out = scopecheck(&["litmus", "--json", "--model", "ptx-v7.5", &mp]);
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(line.get("race_free").is_none() && line.get("racy_executions").is_none());
    // A model without a race definition: asking is an error, not a silent "race-free".
    let flagless = write(
        &dir,
        "flagless.cat",
        &scopecheck_model::cat::builtin_text("ptx-v7.5")
            .unwrap()
            .replace("flag ~empty race as data-race", ""),
    );
    let out = scopecheck(&["litmus", "--races", "--model", &flagless, &racy]);
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("defines no data race"));
}

#[test]
fn model_files_load_by_path_with_errors_at_their_place() {
    let dir = scratch("catmodel");
    let mp = write(&dir, "MP.litmus", MP);
    let shipped = scopecheck_model::cat::builtin_text("ptx-v7.5").unwrap();
    let no_causality = write(
        &dir,
        "no-causality.cat",
        &shipped.replace("irreflexive (rf | fr); cause as Causality", ""),
    );
    let out = scopecheck(&["litmus", "--json", "--model", &no_causality, &mp]);
    assert_eq!(out.status.code(), Some(0));
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["model"], "no-causality");
    assert_eq!(
        line["holds"], true,
        "without Causality MP's stale read is allowed"
    );
    let bad = write(&dir, "bad.cat", "let a = po |\nacyclic a");
    let out = scopecheck(&["litmus", "--model", &bad, &mp]);
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.cat:2:1: expected an expression, found `acyclic`"),
        "{err}"
    );
}

const LB: &str = "PTX LB
{ x=0; y=0; }
 P0@cta 0,gpu 0          | P1@cta 1,gpu 0          ;
 ld.relaxed.gpu r0, x    | ld.relaxed.gpu r0, y    ;
 st.relaxed.gpu y, 1     | st.relaxed.gpu x, 1     ;
exists (P0:r0 == 1 /\\ P1:r0 == 1)
";

#[test]
fn runtime_flag_marks_the_states_the_operational_runtime_reaches() {
    let dir = scratch("runtime-flag");
    let lb = write(&dir, "lb.litmus", LB);
    let out = scopecheck(&["litmus", "--runtime", &lb]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    // Load buffering is allowed but never reached: modification order is execution order.
    assert!(
        text.contains("P0:r0=1; P1:r0=1 *\n"),
        "the LB outcome is not marked as reached:\n{text}"
    );
    assert!(text.contains("P0:r0=0; P1:r0=0  [runtime]"), "{text}");
    assert!(
        text.contains("Runtime reaches 3 of 4 allowed states (exhaustive"),
        "{text}"
    );
    assert!(
        text.contains("Runtime cannot reach 1 allowed state(s): its verdicts cover executions without load buffering"),
        "{text}"
    );
    let json = scopecheck(&["litmus", "--runtime", "--json", &lb]);
    let line = String::from_utf8_lossy(&json.stdout);
    let v: serde_json::Value = serde_json::from_str(line.trim()).expect("one JSON line");
    assert_eq!(v["runtime"]["reached"].as_array().map(Vec::len), Some(3));
    assert_eq!(v["runtime"]["forbidden"].as_array().map(Vec::len), Some(0));
    assert_eq!(v["runtime"]["complete"], true);
    assert_eq!(v["runtime"]["unreached"], 1);
}

/// `Time` covers what was asked for: with `--runtime`, the runtime's exploration is part of it
/// (JSON `seconds` is at least `runtime.seconds`; the text names the runtime's share).
#[test]
fn time_includes_the_runtime_exploration() {
    let dir = scratch("runtime-time");
    let lb = write(&dir, "lb.litmus", LB);
    let json = scopecheck(&["litmus", "--runtime", "--json", &lb]);
    let v: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&json.stdout).trim()).expect("JSON");
    let total = v["seconds"].as_f64().expect("seconds");
    let runtime = v["runtime"]["seconds"].as_f64().expect("runtime.seconds");
    assert!(
        total >= runtime,
        "Time {total} s leaves out the runtime's {runtime} s"
    );
    let text = scopecheck(&["litmus", "--runtime", &lb]);
    let text = String::from_utf8_lossy(&text.stdout);
    let time = text
        .lines()
        .find(|l| l.contains("Time "))
        .expect("a Time line");
    assert!(time.contains("(runtime "), "{time}");
}
