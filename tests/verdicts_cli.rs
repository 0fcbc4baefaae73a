//! Verdicts that must not be silently wrong (issue 29): a liveness answer cut by the unroll
//! bound says `bounded` (exit status 3), `--liveness` refuses the options it has no use for,
//! a built-in model's `.cat` file is that model (it refuses a Vulkan test and prints races only
//! with `--races`), and `--runtime` compares the runtime's states with the model's also when
//! the model's list of states is partial (`--condition-only`, a budget).

use crate::runner;
use runner::{scopecheck, scratch, stderr, stdout, write};

/// Bumps a counter while f is 0; nobody sets f: it never ends, and never repeats a state.
const COUNTER: &str = "PTX counter-loop
{ c=0; f=0; }
 P0@cta 0,gpu 0 ;
 LC00: ;
 atom.relaxed.gpu.add r1, c, 1 ;
 ld.relaxed.gpu r0, f ;
 beq r0, 0, LC00 ;
exists (P0:r0 == 0)
";

#[test]
fn liveness_cut_by_the_bound_says_bounded_in_text_json_and_exit_status() {
    let dir = scratch("verdicts-bounded");
    let file = write(&dir, "counter.litmus", COUNTER);
    let out = scopecheck(&["litmus", "--liveness", &file]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("Liveness: bounded"), "{text}");
    assert!(!text.contains("terminates"), "{text}");
    assert!(text.contains("loop closed at 7:2"), "{text}");
    assert!(text.contains("unroll 2 (raised to 4)"), "{text}");
    let out = scopecheck(&["litmus", "--liveness", "--json", &file]);
    assert_eq!(out.status.code(), Some(3));
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(v["verdict"], "bounded");
    assert_eq!(v["bounded"], true);
    assert_eq!(v["terminates"], false);
    assert_eq!(v["unroll_reached"], 4);
    assert_eq!(v["cut"]["thread"], 0);
}

#[test]
fn liveness_refuses_the_options_it_would_ignore() {
    let dir = scratch("verdicts-liveness-options");
    let file = write(&dir, "counter.litmus", COUNTER);
    for extra in [
        &["--races"][..],
        &["--condition-only"],
        &["--format", "herd"],
        &["--timeout", "5"],
        &["--max-executions", "10"],
    ] {
        let mut args = vec!["litmus", "--liveness"];
        args.extend_from_slice(extra);
        args.push(&file);
        let out = scopecheck(&args);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", stdout(&out));
        assert!(stdout(&out).is_empty(), "{extra:?}");
        let err = stderr(&out);
        let first = err.lines().next().unwrap_or_default();
        assert!(first.contains("--liveness"), "{extra:?}: {err}");
    }
}

const VULKAN: &str = "VULKAN store-load
{
Mem0=0;
P1:r0=0;
}
P0@sg 0,wg 0, qf 0           | P1@sg 0,wg 1, qf 0           ;
st.atom.dv.sc0 Mem0, 1       | ld.atom.dv.sc0 r0, Mem0      ;
exists (P1:r0 == 1)
";

#[test]
fn a_builtin_models_cat_file_is_that_model() {
    let dir = scratch("verdicts-cat-file");
    let vulkan = write(&dir, "store-load.litmus", VULKAN);
    for model in [
        "ptx-v7.5",
        "ptx-v7.5.cat",
        "ptx-v8",
        "ptx-v8.cat",
        "tile-ir.cat",
    ] {
        let out = scopecheck(&["litmus", "--model", model, &vulkan]);
        assert_eq!(out.status.code(), Some(2), "{model}: {}", stdout(&out));
        assert!(
            stderr(&out).contains("a Vulkan test needs a Vulkan model"),
            "{model}: {}",
            stderr(&out)
        );
        let out = scopecheck(&["litmus", "--liveness", "--model", model, &vulkan]);
        assert_eq!(out.status.code(), Some(2), "{model} --liveness");
    }
    let out = scopecheck(&["litmus", "--model", "vulkan.cat", &vulkan]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // A racy PTX test: race lines only with --races, whichever name the model goes by.
    let racy = write(
        &dir,
        "racy.litmus",
        "PTX racy\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | ld.weak r0, x ;\nexists (P1:r0 == 1)\n",
    );
    for model in ["ptx-v7.5", "ptx-v7.5.cat", "ptx-v8.cat"] {
        let text = stdout(&scopecheck(&["litmus", "--model", model, &racy]));
        assert!(!text.contains("Data races"), "{model}: {text}");
        assert!(!text.contains("Racy"), "{model}: {text}");
        let text = stdout(&scopecheck(&["litmus", "--races", "--model", model, &racy]));
        assert!(
            text.contains("Racy: some consistent execution"),
            "{model}: {text}"
        );
    }
}

const MP: &str = "PTX MP
{ x=0; y=0; }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.weak x, 1        | ld.acquire.gpu r0, y ;
 st.release.gpu y, 1 | ld.weak r1, x        ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
";

#[test]
fn runtime_states_are_judged_by_the_model_also_when_its_list_is_partial() {
    let dir = scratch("verdicts-runtime-partial");
    let mp = write(&dir, "MP.litmus", MP);
    for extra in [
        &["--condition-only"][..],
        &["--max-executions", "1"],
        &["--condition-only", "--max-executions", "1"],
    ] {
        let mut args = vec!["litmus", "--runtime"];
        args.extend_from_slice(extra);
        args.push(&mp);
        let out = scopecheck(&args);
        let text = stdout(&out);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{extra:?}: {text}{}",
            stderr(&out)
        );
        assert!(!text.contains("forbids"), "{extra:?}: {text}");
    }
    // A state the model forbids is still one: the same MP with the weak flag store, whose stale
    // read the runtime reaches and ptx-v7.5 allows; judged against a model that forbids it
    // (every read of the forbidden pair) the disagreement must still be reported.
    let sc = write(
        &dir,
        "sc.cat",
        "\"sequential consistency\"\nacyclic po | rf | co | fr as sc\n",
    );
    let weak = write(
        &dir,
        "MP-weak.litmus",
        &MP.replace("st.release.gpu y, 1", "st.weak y, 1    ")
            .replace("ld.acquire.gpu r0, y", "ld.weak r0, y       "),
    );
    for extra in [&[][..], &["--condition-only"], &["--max-executions", "1"]] {
        let mut args = vec!["litmus", "--runtime", "--model", &sc];
        args.extend_from_slice(extra);
        args.push(&weak);
        let out = scopecheck(&args);
        let text = stdout(&out);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {text}");
        assert!(text.contains("an engine disagreement"), "{extra:?}: {text}");
    }
}
