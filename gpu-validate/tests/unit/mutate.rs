//! Tests of `mutate`.

use scopecheck_gpu::mutate::*;

#[test]
fn message_passing_release_acquire_has_two_weakenings_per_access() {
    let src = "PTX MP\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | ld.acquire.gpu r0, y ;\n st.release.gpu y, 1 | ld.relaxed.gpu r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n";
    let p = scopecheck_model::litmus::parse(src, "mp.litmus").expect("parses");
    let names: Vec<String> = mutants(&p).into_iter().map(|m| m.what).collect();
    // Each relaxed access: ->weak and gpu->cta; release/acquire: ->relaxed and gpu->cta.
    assert_eq!(names.len(), 8, "{names:?}");
    assert!(names.contains(&"P0#1 release->relaxed".to_string()));
    assert!(names.contains(&"P1#0 gpu->cta".to_string()));
    let ms = mutants(&p);
    let release = ms
        .iter()
        .find(|m| m.what == "P0#1 release->relaxed")
        .unwrap();
    assert_eq!(
        (release.operator, release.side),
        (Operator::RelaxReleaseAcquire, Side::Write)
    );
    let acquire = ms.iter().find(|m| m.what == "P1#0 gpu->cta").unwrap();
    assert_eq!(
        (acquire.operator, acquire.side),
        (Operator::NarrowScope, Side::Read)
    );
}

#[test]
fn fences_are_weakened_narrowed_or_removed() {
    let src = "PTX SB\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | st.relaxed.gpu y, 1 ;\n fence.sc.gpu | fence.acq_rel.sys ;\n ld.relaxed.gpu r0, y | ld.relaxed.gpu r1, x ;\nexists (P0:r0 == 0 /\\ P1:r1 == 0)\n";
    let p = scopecheck_model::litmus::parse(src, "sb.litmus").expect("parses");
    let ms = mutants(&p);
    let names: Vec<&str> = ms.iter().map(|m| m.what.as_str()).collect();
    assert!(
        names.contains(&"P0#1 fence.sc.gpu->fence.acq_rel.gpu"),
        "{names:?}"
    );
    assert!(
        names.contains(&"P0#1 fence.sc.gpu->fence.sc.cta"),
        "{names:?}"
    );
    assert!(
        names.contains(&"P1#1 fence.acq_rel.sys->fence.acq_rel.gpu"),
        "{names:?}"
    );
    let removed = ms
        .iter()
        .find(|m| m.what == "P1#1 fence.acq_rel.sys removed")
        .expect("removal");
    assert_eq!(removed.program.threads[1].body.len(), 2);
    assert_eq!(removed.operator, Operator::DropFence);
    let sc_removed = ms
        .iter()
        .find(|m| m.what == "P0#1 fence.sc.gpu removed")
        .expect("fence.sc removal");
    assert_eq!(sc_removed.side, Side::Both, "P0 stores and loads");
    let narrowed = ms
        .iter()
        .find(|m| m.what == "P0#1 fence.sc.gpu->fence.sc.cta")
        .unwrap();
    assert_eq!(narrowed.operator, Operator::NarrowScope);
    assert_eq!(
        removed.program.threads[0], p.threads[0],
        "other threads untouched"
    );
}

/// The corpus test `corpus/litmus/async/NAME.litmus`.
fn async_test(name: &str) -> scopecheck_model::litmus::Program {
    let path = format!(
        "{}/../corpus/litmus/async/{name}.litmus",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    scopecheck_model::litmus::parse(&text, &path).expect("parses")
}

/// Whether ptx-v8 allows the program's weak outcome (its `exists` condition).
fn weak_allowed(p: &scopecheck_model::litmus::Program) -> bool {
    let model = scopecheck_model::axiomatic::Model::from_name("ptx-v8").expect("registered");
    scopecheck_model::axiomatic::analyze(p, model, &Default::default())
        .expect("analyses")
        .holds
}

#[test]
fn the_async_surface_has_the_issues_five_mutations_and_each_is_live() {
    // (test, mutation, operator): the issue's list — drop a fence.proxy.async, narrow .cluster
    // to .cta on a remote arrive / wait, a stale parity, wait_group 1 for 0, drop a
    // fence.mbarrier_init — on forbidden corpus tests; ptx-v8 allows each mutant's outcome.
    let cases = [
        (
            "TMA-generic-write-fence-async",
            "P0#1 fence.proxy.async removed",
            Operator::DropFence,
        ),
        (
            "MP-mbarrier-remote-arrive-cluster",
            "P0#1 mbarrier.arrive.cluster->cta",
            Operator::NarrowScope,
        ),
        (
            "MP-mbarrier-remote-arrive-cluster",
            "P1#0 mbarrier.try_wait.cluster->cta",
            Operator::NarrowScope,
        ),
        (
            "MP-mbarrier-remote-arrive-cluster",
            "P0#1 mbarrier.arrive.release->relaxed",
            Operator::RelaxReleaseAcquire,
        ),
        (
            "MP-mbarrier-cta",
            "P1#0 try_wait.parity 0->1",
            Operator::StaleParity,
        ),
        (
            "TMA-store-wait",
            "P0#4 bulk wait_group 0->1",
            Operator::LooserAsyncWait,
        ),
        (
            "mbarrier-init-fence-cluster",
            "P0#1 fence.mbarrier_init removed",
            Operator::DropFence,
        ),
    ];
    for (test, what, operator) in cases {
        let p = async_test(test);
        assert!(!weak_allowed(&p), "{test}: the corpus says forbidden");
        let ms = mutants(&p);
        let m = ms.iter().find(|m| m.what == what).unwrap_or_else(|| {
            panic!(
                "{test}: no `{what}` among {:?}",
                ms.iter().map(|m| &m.what).collect::<Vec<_>>()
            )
        });
        assert_eq!(m.operator, operator, "{test}: {what}");
        assert!(weak_allowed(&m.program), "{test}: `{what}` is not live");
    }
}
