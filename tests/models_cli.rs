//! The ecosystem's conventions, end to end: one model registry for `--model` and `MANIFEST.csv`
//! rows, `--help` listing the models and exit codes, herd7's `Flag` lines, shell completions
//! and the man page.

use scopecheck_model::cat::registry::MODELS;
use std::path::Path;
use std::process::Output;

use crate::runner;
use runner::{assert_underlined, scopecheck, scratch, stderr, stdout, write};

/// Weak data published through a `.cta` flag across two CTAs: racy under every PTX model.
const MP_CTA: &str = "PTX MP-cta
{ x=0; y=0; }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.weak x, 1        | ld.acquire.cta r0, y ;
 st.release.cta y, 1 | ld.weak r1, x        ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
";

const VULKAN_MP: &str = "Vulkan mp
{ x=0; y=0; }
 P0@sg 0, wg 0, qf 0                    | P1@sg 1,wg 0, qf 0                        ;
 st.av.dv.sc0 x, 1                      | ld.atom.acq.wg.sc1.semsc0.semsc1 r0, y    ;
 st.atom.rel.wg.sc1.semsc0.semsc1 y, 1  | ld.vis.dv.sc0 r1, x                       ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
";

/// A test each registered model reads: Vulkan's and OpenCL's dialects for theirs.
fn test_for(dir: &Path, model: &str) -> String {
    if model.starts_with("vulkan") {
        write(dir, "vulkan-mp.litmus", VULKAN_MP)
    } else if model == "opencl" {
        "corpus/litmus/opencl/MP-barrier-global.litmus".to_string()
    } else {
        write(dir, "MP-cta.litmus", MP_CTA)
    }
}

/// The `--json` line without its time.
fn json_without_time(out: &Output) -> serde_json::Value {
    let mut line: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(out), stderr(out)));
    line.as_object_mut().unwrap().remove("seconds");
    line.as_object_mut().unwrap().remove("file");
    line
}

#[test]
fn every_registered_model_answers_to_its_name_and_its_file_name() {
    let dir = scratch("models-registry");
    assert!(
        MODELS.len() >= 8,
        "ptx-v6.0/7.5/8, lenient, tile-ir, vulkan x2, opencl"
    );
    for m in MODELS {
        let test = test_for(&dir, m.name);
        let copy = write(&dir, &format!("copy-of-{}.cat", m.name), m.text);
        let file = format!("{}.cat", m.name);
        let mut lines = Vec::new();
        for spec in [m.name, file.as_str()]
            .into_iter()
            .chain(m.aliases.iter().copied())
        {
            let out = scopecheck(&["litmus", "--json", "--races", "--model", spec, &test]);
            assert_eq!(out.status.code(), Some(0), "{spec}: {}", stderr(&out));
            let line = json_without_time(&out);
            assert_eq!(line["model"], m.name, "{spec}");
            lines.push((spec.to_string(), line));
        }
        for (spec, line) in &lines[1..] {
            assert_eq!(line, &lines[0].1, "{spec} is {}", m.name);
        }
        // A copy of its file, loaded by path, is the user's own model (named after the copy)
        // with the same states and races.
        let out = scopecheck(&["litmus", "--json", "--races", "--model", &copy, &test]);
        assert_eq!(out.status.code(), Some(0), "{copy}: {}", stderr(&out));
        let mut line = json_without_time(&out);
        assert_eq!(line["model"], format!("copy-of-{}", m.name));
        line["model"] = lines[0].1["model"].clone();
        assert_eq!(line, lines[0].1, "{copy}");
    }
}

#[test]
fn a_users_model_is_named_after_its_file_and_an_unknown_name_lists_the_known_ones() {
    let dir = scratch("models-user");
    let test = test_for(&dir, "ptx-v7.5");
    let text = MODELS[0]
        .text
        .replace("irreflexive (rf | fr); cause as Causality", "");
    let mine = write(&dir, "no-causality.cat", &text);
    let out = scopecheck(&["litmus", "--json", "--model", &mine, &test]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json_without_time(&out)["model"], "no-causality");

    for unknown in ["ptx-v9", "ptx-v8-order", "vulkan-sync.cat/", "", ".cat"] {
        let out = scopecheck(&["litmus", "--model", unknown, &test]);
        assert_eq!(out.status.code(), Some(2), "{unknown}");
        let err = stderr(&out);
        let first = err.lines().next().unwrap_or_default();
        for m in MODELS {
            assert!(first.contains(m.name), "{unknown}: {first}");
        }
        assert!(!err.contains("panicked"), "{err}");
    }
    // A missing user file: its name and the reason, exit 2.
    let out = scopecheck(&["litmus", "--model", "/nonexistent/mine.cat", &test]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("/nonexistent/mine.cat"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn manifest_rows_take_the_same_names_and_cat_paths_beside_the_manifest() {
    let dir = scratch("models-manifest");
    std::fs::copy(
        "corpus/litmus/opencl/MP-barrier-global.litmus",
        dir.join("MP-barrier-global.litmus"),
    )
    .unwrap();
    test_for(&dir, "vulkan");
    test_for(&dir, "ptx-v7.5");
    std::fs::create_dir_all(dir.join("models")).unwrap();
    let text = MODELS[0]
        .text
        .replace("irreflexive (rf | fr); cause as Causality", "");
    write(&dir, "models/no-causality.cat", &text);
    write(
        &dir,
        "MANIFEST.csv",
        "file,model,expected\n\
         MP-cta.litmus,ptx-v7.5,allowed\n\
         MP-cta.litmus,ptx-v7.5.cat,allowed\n\
         MP-cta.litmus,ptx-v8,allowed\n\
         MP-cta.litmus,models/no-causality.cat,allowed\n\
         vulkan-mp.litmus,vulkan,forbidden\n\
         vulkan-mp.litmus,vulkan-nochains.cat,forbidden\n\
         MP-barrier-global.litmus,opencl,forbidden\n",
    );
    let out = scopecheck(&["check", "--verbose", dir.to_str().unwrap()]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert_eq!(text.matches("MP-cta.litmus").count(), 4, "{text}");
    assert!(text.contains("no-causality allowed"), "{text}");

    write(
        &dir,
        "MANIFEST.csv",
        "file,model,expected\nMP-cta.litmus,ptx-v9,allowed\n",
    );
    let out = scopecheck(&["check", dir.to_str().unwrap()]);
    let text = stdout(&out);
    assert_ne!(out.status.code(), Some(0), "{text}");
    for m in MODELS {
        assert!(text.contains(m.name), "{text}");
    }
}

#[test]
fn help_lists_every_model_and_the_exit_codes() {
    let subcommands: &[&[&str]] = &[&["--help"], &["litmus", "--help"], &["check", "--help"]];
    for args in subcommands {
        let out = scopecheck(args);
        assert_eq!(out.status.code(), Some(0));
        let help = stdout(&out);
        for code in ["0 ", "1 ", "2 ", "3 ", "130 "] {
            assert!(
                help.lines().any(|l| l.trim_start().starts_with(code)),
                "{args:?}: exit status {code}\n{help}"
            );
        }
    }
    let help = stdout(&scopecheck(&["litmus", "--help"]));
    for m in MODELS {
        assert!(
            help.lines().any(|l| l.trim_start().starts_with(m.name)),
            "{}\n{help}",
            m.name
        );
    }
}

#[cfg(feature = "gpu")]
#[test]
fn gpu_help_lists_every_model() {
    let help = stdout(&scopecheck(&["gpu", "--help"]));
    for m in MODELS.iter().map(|m| m.name).chain(["none"]) {
        assert!(
            help.lines().any(|l| l.trim_start().starts_with(m)),
            "{m}\n{help}"
        );
    }
    let out = scopecheck(&["gpu", "--model", "ptx-v9", "corpus/gpu-shapes"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn herd_logs_print_a_flag_line_per_raised_flag() {
    let dir = scratch("models-herd-flags");
    let test = test_for(&dir, "ptx-v7.5");
    let herd = |args: &[&str]| {
        let mut all = vec!["litmus", "--format", "herd"];
        all.extend_from_slice(args);
        let out = scopecheck(&all);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
    };
    let flags = |log: &str| -> Vec<String> {
        log.lines()
            .filter_map(|l| l.strip_prefix("Flag "))
            .map(str::to_string)
            .collect()
    };
    // PTX: a racy weak read is no undefined behaviour; races are reported when asked for.
    assert!(flags(&herd(&[&test])).is_empty());
    let log = herd(&["--races", &test]);
    assert_eq!(flags(&log), ["data-race"], "{log}");
    // herd's place for them: after the witnesses, before the condition.
    let lines: Vec<&str> = log.lines().collect();
    let at = lines.iter().position(|l| *l == "Flag data-race").unwrap();
    assert!(lines[at - 1].starts_with("Positive: "), "{log}");
    assert!(lines[at + 1].starts_with("Condition "), "{log}");
    // Tile IR: a data race is undefined behaviour, always reported.
    let tile = write(
        &dir,
        "tile-racy.litmus",
        "PTX tile-racy\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | ld.weak r0, x ;\nexists (P1:r0 == 1)\n",
    );
    assert_eq!(flags(&herd(&["--model", "tile-ir", &tile])), ["data-race"]);
    // A model's own flags: each raised one once, in name order; one never raised is not shown.
    let text = format!(
        "{}\nflag ~empty (([W \\ IW]; rf) & ext) as reads-another-thread\nflag ~empty 0 as never-raised\n",
        MODELS[0].text
    );
    let mine = write(&dir, "two-flags.cat", &text);
    let log = herd(&["--model", &mine, &test]);
    assert_eq!(flags(&log), ["data-race", "reads-another-thread"], "{log}");
    // An execution `filter` leaves out raises nothing: with only the reads of the initial
    // values left, no read reads another thread's write (the initial writes are no thread's).
    let filtered = write(
        &dir,
        "MP-filtered.litmus",
        &MP_CTA.replace("exists (", "filter (P1:r0 == 0 /\\ P1:r1 == 0)\nexists ("),
    );
    let log = herd(&["--model", &mine, &filtered]);
    assert_eq!(flags(&log), ["data-race"], "{log}");
}

#[test]
fn completions_are_generated_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = scopecheck(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = stdout(&out);
        for sub in [
            "litmus",
            "check",
            "gpu",
            "fuzz",
            "kernel",
            "completions",
            "man",
        ] {
            assert!(script.contains(sub), "{shell}: {sub}");
        }
        assert!(script.contains("model"), "{shell}: the --model option");
    }
    let out = scopecheck(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_man_page_is_roff_naming_every_subcommand_and_the_exit_codes() {
    let out = scopecheck(&["man"]);
    assert_eq!(out.status.code(), Some(0));
    let page = stdout(&out);
    assert!(
        page.starts_with(".ie") || page.contains(".TH scopecheck"),
        "{page}"
    );
    assert!(page.contains(".TH scopecheck 1"), "{page}");
    for sub in ["litmus", "check", "gpu", "fuzz", "kernel"] {
        assert!(page.contains(sub), "{sub}");
    }
    assert!(page.contains("130"), "exit codes");
}

#[test]
fn cat_errors_show_the_source_line_underlined() {
    let dir = scratch("models-cat-errors");
    let test = test_for(&dir, "ptx-v7.5");
    // A syntax error (the parser) and a name error (the compiler), each at its token.
    for (text, line, col, width, source) in [
        (
            "\"bad\"\nlet a = po\nlet b = a | | rf\n",
            3,
            13,
            1,
            "let b = a | | rf",
        ),
        (
            "\"bad\"\nlet a = po\n\nacyclic a | undefined-name as X\n",
            4,
            13,
            14,
            "acyclic a | undefined-name as X",
        ),
    ] {
        let model = write(&dir, "bad.cat", text);
        let out = scopecheck(&["litmus", "--model", &model, &test]);
        assert_eq!(out.status.code(), Some(2));
        let err = stderr(&out);
        assert!(err.contains(&format!("{model}:{line}:{col}: ")), "{err}");
        assert!(
            err.contains(&format!("{line} │")),
            "numbered as in the file:\n{err}"
        );
        assert_underlined(&err, source, col, width);
        assert!(!err.contains("panicked"), "{err}");
    }
    // An error in an included file shows that file's line.
    write(&dir, "part.cat", "let ok = po\nlet broken = ok ;; rf\n");
    let main = write(
        &dir,
        "main.cat",
        "\"main\"\ninclude \"part.cat\"\nacyclic ok as A\n",
    );
    let out = scopecheck(&["litmus", "--model", &main, &test]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("part.cat:2:"), "{err}");
    assert!(err.contains("let broken = ok ;; rf"), "{err}");
    // In a manifest row, the error stays on the row's one line.
    write(
        &dir,
        "MANIFEST.csv",
        "file,model,expected\nMP-cta.litmus,main.cat,allowed\n",
    );
    let out = scopecheck(&["check", dir.to_str().unwrap()]);
    assert_ne!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("part.cat:2:"), "{}", stdout(&out));
}
