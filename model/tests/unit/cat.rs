use scopecheck_model::axiomatic::events::paths;
use scopecheck_model::axiomatic::execution::Events;
use scopecheck_model::axiomatic::models::{Checker, Dynamic};
use scopecheck_model::axiomatic::rel::Rel;
use scopecheck_model::cat::*;
use scopecheck_model::litmus::parse;
use std::sync::Arc;

const SB: &str = "PTX SB
{ x = 0; y = 0; }
P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
st.relaxed.gpu x, 1 | st.relaxed.gpu y, 1 ;
ld.relaxed.gpu r0, y | ld.relaxed.gpu r1, x ;
exists (P0:r0 == 0 /\\ P1:r1 == 0)
";

/// The events of SB's only path: inits of x and y (0, 1), then P0's (2, 3), P1's (4, 5).
fn sb_events() -> Events {
    let p = parse(SB, "SB.litmus").unwrap();
    let Ok(paths) = paths(&p, 2) else {
        panic!("SB has paths")
    };
    let combo: Vec<_> = paths.per_thread.iter().map(|ps| &ps[0]).collect();
    let traces: Vec<_> = combo
        .iter()
        .map(|path| scopecheck_model::axiomatic::events::Trace {
            events: path
                .events
                .iter()
                .map(|e| scopecheck_model::axiomatic::events::ThreadEvent {
                    stmt: e.stmt,
                    copy_until: e.copy_until,
                    kind: match &e.kind {
                        scopecheck_model::axiomatic::events::Kind::Read {
                            loc,
                            access,
                            rmw,
                            ..
                        } => scopecheck_model::axiomatic::events::Kind::Read {
                            loc: *loc,
                            access: *access,
                            value: 0,
                            rmw: *rmw,
                        },
                        scopecheck_model::axiomatic::events::Kind::Write {
                            loc,
                            access,
                            rmw,
                            ..
                        } => scopecheck_model::axiomatic::events::Kind::Write {
                            loc: *loc,
                            access: *access,
                            value: 1,
                            rmw: *rmw,
                        },
                        _ => unreachable!("SB has accesses only"),
                    },
                    deps: e.deps.clone(),
                    copy: e.copy,
                    completed_at: e.completed_at,
                })
                .collect(),
            regs: Vec::new(),
        })
        .collect();
    let refs: Vec<_> = traces.iter().collect();
    Events::build(&p, &refs).unwrap()
}

fn model(text: &str) -> Arc<CatModel> {
    Arc::new(CatModel::parse("test.cat", text).unwrap())
}

fn with_choices<R>(rf: &Rel, co: &Rel, f: impl FnOnce(&Dynamic<'_>) -> R) -> R {
    let fr = rf.inv().seq(co);
    let none = Rel::empty(rf.len());
    f(&Dynamic {
        rf,
        co,
        fr: &fr,
        sync_fence: &none,
        sync_barrier: &none,
    })
}

#[test]
fn operators_evaluate_on_the_engines_relations() {
    let ev = sb_events();
    let n = ev.n;
    // Each check holds exactly when the claim in its name is true.
    let m = model(
        "let w-po-r = [W]; po; [R]
         empty w-po-r \\ (po & (W * R)) as seq-is-product
         empty (po \\ po^+) as po-transitive
         ~empty w-po-r as sb-has-w-po-r
         empty (domain(w-po-r) \\ (W \\ IW)) as domain
         empty (range(rf) \\ R) as range
         empty ~(id | ~id) as complement
         empty (po? \\ (po | id)) as opt
         empty (po* \\ (po^* | id)) as star
         irreflexive po as po-irreflexive
         ~irreflexive po? as opt-reflexive
         acyclic po | rf as po-rf-acyclic
         empty (0 | (IW * IW) \\ ((IW * IW) & loc)) \\ (IW * IW) as zero
         empty (ext & int) as ext
         let rec reach = rf | reach; po and unused = reach
         empty (reach \\ (rf; po?)) as least-fixed-point
         (* and a comment *) // and another
         empty _ \\ (M | F | BAR) as universe",
    );
    let mut rf = Rel::empty(n);
    rf.add(0, 5); // P1 reads the initial x
    rf.add(1, 3); // P0 reads the initial y
    let co = Rel::from_pairs(n, [(0, 2), (1, 4)]);
    let checker = m.prepare(&ev);
    with_choices(&rf, &co, |x| {
        assert_eq!(checker.consistent(&ev, x), Ok(()));
    });
    let names: Vec<_> = m.checks().into_iter().map(|(name, _)| name).collect();
    assert_eq!(names[0], "seq-is-product");
}

#[test]
fn checks_fail_with_their_names_and_flags_only_report() {
    let ev = sb_events();
    let m = model(
        "flag ~empty rf as has-rf
         acyclic po | rf | fr as sc",
    );
    let mut rf = Rel::empty(ev.n);
    rf.add(0, 5);
    rf.add(1, 3);
    let co = Rel::from_pairs(ev.n, [(0, 2), (1, 4)]);
    let checker = m.prepare(&ev);
    with_choices(&rf, &co, |x| {
        // SB's weak outcome: po ; fr ; po ; fr is a cycle.
        assert_eq!(checker.consistent(&ev, x), Err("sc"));
        assert_eq!(checker.flagged(x).len(), 1);
        assert_eq!(checker.races(&ev, x), rf);
    });
    assert_eq!(
        m.checks(),
        vec![("has-rf", CheckClass::Flag), ("sc", CheckClass::Global)]
    );
}

#[test]
fn checks_are_classified_from_their_text() {
    let m = model(
        "let ms = po | po^-1
         empty ((ms & fr); (ms & co)) & rmw as Atomicity
         acyclic (ms & (rf | co | fr)) | po-loc as SC-per-Location
         acyclic rf | dep as No-Thin-Air
         acyclic po | rf | co | fr as SC
         empty (po-loc \\ co) as not-monotone
         let cause = po | rf
         empty (([W]; cause; [W]) & loc) \\ co as Coherence
         irreflexive (rf | fr); cause as Causality",
    );
    let classes: Vec<_> = m.checks();
    assert_eq!(classes[0], ("Atomicity", CheckClass::PerLocation));
    assert_eq!(classes[1], ("SC-per-Location", CheckClass::PerLocation));
    assert_eq!(classes[2], ("No-Thin-Air", CheckClass::Global));
    assert_eq!(classes[3], ("SC", CheckClass::Global));
    assert_eq!(classes[4], ("not-monotone", CheckClass::Global));
    assert!(m.forbids_thin_air());
    assert!(m.has_causality());
    let without = model("irreflexive (rf | fr); (po | rf) as Causality");
    assert!(!without.has_causality() && !without.forbids_thin_air());
}

#[test]
fn the_shipped_models_compile_and_are_classified() {
    // Vulkan and OpenCL have neither a No-Thin-Air axiom nor `withoutthinair`.
    for name in ["vulkan", "opencl"] {
        assert!(CatModel::builtin(name).unwrap().thin_air_values(), "{name}");
    }
    for name in ["ptx-v7.5", "ptx-v6.0", "tile-ir"] {
        let m = CatModel::builtin(name).unwrap();
        assert!(m.has_causality(), "{name}");
        assert_eq!(m.forbids_thin_air(), name != "tile-ir", "{name}");
        // Tile IR has no dependency axiom but promises no value out of thin air.
        assert!(!m.thin_air_values(), "{name}");
        let local: Vec<_> = m
            .checks()
            .into_iter()
            .filter(|(_, c)| *c == CheckClass::PerLocation)
            .map(|(n, _)| n)
            .collect();
        assert_eq!(local, ["Atomicity", "SC-per-Location"], "{name}");
    }
}

#[test]
fn errors_name_the_file_line_and_column() {
    let err = |text: &str| CatModel::parse("m.cat", text).unwrap_err().to_string();
    assert_eq!(err("let x = po\nacyclic y"), "m.cat:2:9: unknown name `y`");
    assert_eq!(
        err("let x = po ; R"),
        "m.cat:1:14: expected a relation, found a set of events"
    );
    assert_eq!(
        err("acyclic [po]"),
        "m.cat:1:10: expected a set of events, found a relation"
    );
    assert_eq!(
        err("let f(a) = a ; a\nacyclic f(po, po)"),
        "m.cat:2:9: `f` takes 1 argument(s), given 2"
    );
    assert_eq!(
        err("include \"nowhere.cat\""),
        "m.cat:1:1: cannot include `nowhere.cat`: no such model or file"
    );
    assert_eq!(
        err("let ms = rf"),
        "m.cat:1:1: `ms` (the pairs the fence.sc order relates) must not read rf, co, fr or the synchronization"
    );
    let missing = CatModel::load(std::path::Path::new("/nonexistent/x.cat")).unwrap_err();
    assert!(missing
        .to_string()
        .starts_with("/nonexistent/x.cat:1:1: cannot read the model"));
}

#[test]
fn functions_and_includes() {
    let dir = std::env::temp_dir().join(format!("scopecheck-cat-unit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("lib.cat"), "let fencerel(S) = po; [S]; po").unwrap();
    let main = dir.join("main.cat");
    std::fs::write(
        &main,
        "include \"lib.cat\"\nlet f = fencerel(F)\nacyclic f | rf as ok",
    )
    .unwrap();
    let m = CatModel::load(&main).unwrap();
    assert_eq!(m.name(), "main");
    std::fs::write(&main, "include \"main.cat\"").unwrap();
    let e = CatModel::load(&main).unwrap_err();
    assert!(e.message.contains("includes itself"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
    // The built-in models include each other by name.
    assert!(CatModel::parse("x.cat", "include \"ptx-v7.5.cat\"\nlet y = cause").is_ok());
}

#[test]
fn an_evaluation_keeps_only_what_the_changed_choices_do_not_touch() {
    let ev = sb_events();
    // `po-loc ; [W]` reads no choice, `rf ; po` reads-from only, the cycle check all three.
    let m = model(
        "let a = rf ; po
         let b = po-loc ; [W]
         acyclic a | b | co | fr | po as sc
         let rec reach = rf | reach ; po
         empty reach \\ (rf ; po?) as reach",
    );
    let (weak, strong) = {
        let mut weak = Rel::empty(ev.n);
        weak.add(0, 5);
        weak.add(1, 3);
        let mut strong = Rel::empty(ev.n);
        strong.add(4, 3);
        strong.add(2, 5);
        (weak, strong)
    };
    let co = Rel::from_pairs(ev.n, [(0, 2), (1, 4)]);
    let reused = m.prepare(&ev);
    // One checker through alternating choices answers as a fresh one for each.
    for rf in [&weak, &strong, &strong, &weak, &strong] {
        with_choices(rf, &co, |x| {
            let fresh = m.prepare(&ev);
            let verdict = reused.consistent(&ev, x);
            assert_eq!(verdict, fresh.consistent(&ev, x));
            assert_eq!(verdict.is_ok(), rf == &strong);
        });
    }
}
