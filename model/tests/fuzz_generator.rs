//! The fuzzer's program generator: every program it makes is valid litmus that prints and parses
//! back to itself, and the generator covers the shapes issue 6 asks for.

use scopecheck_model::litmus::arbitrary::{from_seed, from_seed_with, program, Limits};
use scopecheck_model::litmus::warp;
use scopecheck_model::litmus::{
    async_ops::{Arrival, BulkCompletion},
    parse, print, AsyncOp, Fence, Instr, Operand, Program, Prop, Proxy, RmwOp, Term,
};
use scopecheck_model::scope::Scope;
use std::collections::BTreeSet;

/// Locations other than the mbarrier `b` and a bulk copy's new destination `d`.
fn data_locations(p: &Program) -> usize {
    p.locations
        .iter()
        .filter(|l| l.name != "b" && l.name != "d" && l.name != "s")
        .count()
}

const SEEDS: u64 = 2_000;

fn roundtrip(p: &Program, what: &str) {
    let text = print(p);
    match parse(&text, what) {
        Ok(back) => assert_eq!(&back, p, "{what} does not round-trip:\n{text}"),
        Err(e) => panic!("{what} prints text the parser rejects:\n{e}\n{text}"),
    }
}

#[test]
fn every_generated_program_round_trips() {
    for seed in 0..SEEDS {
        roundtrip(&from_seed(seed), &format!("seed {seed}"));
    }
}

#[test]
fn short_and_empty_inputs_still_give_valid_programs() {
    for len in 0..64usize {
        let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + len) as u8).collect();
        let p = program(
            &mut arbitrary::Unstructured::new(&bytes),
            &Limits::default(),
        )
        .unwrap();
        roundtrip(&p, &format!("{len} bytes"));
    }
}

/// The statements as the test writes them: an exchange once, not what it lowers to.
fn as_written(
    body: &[scopecheck_model::litmus::Stmt],
) -> impl Iterator<Item = &scopecheck_model::litmus::Stmt> {
    body.iter()
        .filter(|s| !matches!(s.warp, Some(warp::WarpPart::Rest)))
}

#[test]
fn programs_stay_within_limits() {
    for seed in 0..SEEDS {
        let p = from_seed(seed);
        assert!((2..=4).contains(&p.threads.len()), "seed {seed}");
        // Up to three data locations (global, or now and then one in a CTA's shared memory), and
        // now and then the mbarrier `b` in shared memory, and with it a bulk copy's destination
        // `d` in the same CTA's shared memory, and a TMA store's source `s` in its issuer's.
        // An exchange's slots are no locations of the test.
        let slots = p.locations.iter().filter(|l| warp::is_slot(l)).count();
        let data = data_locations(&p) - slots;
        assert!((1..=3).contains(&data), "seed {seed}");
        assert!(p.locations.len() - slots - data <= 3, "seed {seed}");
        if let Some(s) = p.location_named("s") {
            let of = p.shared_of(s).expect("a TMA store's source is shared");
            let stores = p.threads.iter().filter(|t| {
                t.body.iter().any(|st| {
                    matches!(st.instr, Instr::Async(AsyncOp::BulkCopy { src, .. }) if src == s)
                }) && of.is_own(&t.placement)
            });
            assert!(
                stores.count() >= 1,
                "seed {seed}: s is a TMA store's source"
            );
        }
        if let Some(d) = p.location_named("d") {
            let b = p
                .location_named("b")
                .expect("a copy completes on the mbarrier");
            assert_eq!(p.shared_of(d), p.shared_of(b), "seed {seed}");
        }
        for (l, loc) in p.locations.iter().enumerate() {
            let Some(of) = loc.shared else { continue };
            let owner = p
                .cta_placement(of)
                .expect("a thread runs in the owning CTA");
            for (t, th) in p.threads.iter().enumerate() {
                let uses = th.body.iter().any(|s| s.instr.location() == Some(l));
                assert!(
                    !uses || Scope::Cluster.includes(&th.placement, &owner),
                    "seed {seed}: P{t} reaches {} outside its cluster",
                    loc.name
                );
            }
        }
        assert!(
            p.threads
                .iter()
                .all(|t| (1..=4).contains(&as_written(&t.body).count())),
            "seed {seed}"
        );
    }
}

#[test]
fn differential_programs_are_small_with_one_constant_add_or_sub() {
    for seed in 0..SEEDS {
        let p = from_seed_with(seed, &Limits::differential());
        let written = p.threads.iter().flat_map(|t| as_written(&t.body)).count();
        assert!(written <= 6, "seed {seed}");
        let instrs: Vec<&Instr> = p
            .threads
            .iter()
            .flat_map(|t| &t.body)
            .filter(|s| s.warp.is_none())
            .map(|s| &s.instr)
            .collect();
        let arith: Vec<&Operand> = instrs
            .iter()
            .filter_map(|i| match i {
                Instr::Red {
                    op: RmwOp::Add | RmwOp::Sub,
                    operand,
                    ..
                }
                | Instr::Atom {
                    op: RmwOp::Add | RmwOp::Sub,
                    operand,
                    ..
                } => Some(operand),
                _ => None,
            })
            .collect();
        assert!(arith.len() <= 1, "seed {seed}");
        assert!(
            arith.iter().all(|o| matches!(o, Operand::Imm(_))),
            "seed {seed}"
        );
    }
}

/// The generator must reach every feature the differential check is meant to exercise.
#[test]
fn generator_covers_the_feature_space() {
    let mut seen = BTreeSet::new();
    for seed in 0..SEEDS {
        let p = from_seed(seed);
        seen.insert(format!("threads {}", p.threads.len()));
        seen.insert(format!("locations {}", data_locations(&p)));
        let ctas: BTreeSet<_> = p.threads.iter().map(|t| t.placement.cta).collect();
        seen.insert(
            if ctas.len() == 1 {
                "same cta"
            } else {
                "different ctas"
            }
            .into(),
        );
        if p.threads.iter().any(|t| t.placement.cluster.is_some()) {
            seen.insert("clusters".into());
        }
        if p.threads.iter().any(|t| t.placement.gpu != 0) {
            seen.insert("other gpu".into());
        }
        for (th, stmt) in p
            .threads
            .iter()
            .flat_map(|t| t.body.iter().map(move |s| (t, s)))
        {
            use scopecheck_model::litmus::warp::{WarpOp, WarpPart};
            // An exchange counts once, as written, not as what it lowers to.
            match &stmt.warp {
                Some(WarpPart::Start(WarpOp::Shfl { mode, .. })) => {
                    seen.insert(format!("shfl.sync.{}", mode.name()));
                    continue;
                }
                Some(WarpPart::Start(WarpOp::Vote { mode, .. })) => {
                    seen.insert(format!("vote.sync.{}", mode.name()));
                    continue;
                }
                Some(WarpPart::Start(WarpOp::Match { all, .. })) => {
                    seen.insert(format!("match.{}.sync", if *all { "all" } else { "any" }));
                    continue;
                }
                Some(WarpPart::Start(WarpOp::Redux { op, ty, .. })) => {
                    seen.insert(format!("redux.sync.{}", op.name()));
                    seen.insert(format!("redux.sync .{}", ty.name()));
                    continue;
                }
                Some(WarpPart::Start(WarpOp::Elect { .. })) => {
                    seen.insert("elect.sync".into());
                    continue;
                }
                Some(WarpPart::Rest) => continue,
                None => {}
            }
            let feature = match &stmt.instr {
                Instr::Load { access, .. } if access.proxy == Proxy::Texture => {
                    "ld.global.nc".to_string()
                }
                Instr::Load { access, .. } => format!("ld.{}", access.order),
                Instr::Store { access, .. } => format!("st.{}", access.order),
                Instr::Atom { access, op, .. } => {
                    seen.insert(format!("atom.{}", op.name()));
                    format!("atom.{}.{}", access.order, op.name())
                }
                Instr::Red { access, op, .. } => {
                    seen.insert(format!("red.{}", op.name()));
                    format!("red.{}", access.order)
                }
                Instr::Fence(Fence::Sc(s)) => format!("fence.sc.{s}"),
                Instr::Fence(Fence::AcqRel(s)) => format!("fence.acq_rel.{s}"),
                Instr::Barrier { .. } => "bar.cta.sync".to_string(),
                Instr::WarpSync { mask } if mask.count_ones() > 1 => "bar.warp.sync".to_string(),
                Instr::WarpSync { .. } => "bar.warp.sync of one lane".to_string(),
                Instr::CpAsync { .. } => "cp.async".to_string(),
                Instr::CpAsyncCommit => "cp.async.commit_group".to_string(),
                Instr::CpAsyncWait { all: true, .. } => "cp.async.wait_all".to_string(),
                Instr::CpAsyncWait { n, .. } => format!("cp.async.wait_group {n}"),
                Instr::Async(AsyncOp::MbarrierArrive {
                    arrival: Arrival::ExpectTx(_),
                    ..
                }) => "mbarrier.arrive.expect_tx".to_string(),
                Instr::Async(AsyncOp::MbarrierArrive { order, window, .. }) => {
                    format!("mbarrier.arrive.{order}.{}", window.name())
                }
                Instr::Async(AsyncOp::MbarrierExpectTx { .. }) => "mbarrier.expect_tx".to_string(),
                Instr::Async(AsyncOp::MbarrierCompleteTx { window, .. }) => {
                    format!("mbarrier.complete_tx.{}", window.name())
                }
                Instr::Async(AsyncOp::MbarrierTryWait { order, .. }) => {
                    format!("mbarrier.try_wait.{order}")
                }
                Instr::Async(AsyncOp::BulkCopy {
                    completion: BulkCompletion::BulkGroup,
                    ..
                }) => "cp.async.bulk.global.shared::cta.bulk_group".to_string(),
                Instr::Async(AsyncOp::BulkCommitGroup) => "cp.async.bulk.commit_group".to_string(),
                Instr::Async(AsyncOp::BulkWaitGroup { read: true, .. }) => {
                    "cp.async.bulk.wait_group.read".to_string()
                }
                Instr::Async(AsyncOp::BulkWaitGroup { pending, .. }) => {
                    format!("cp.async.bulk.wait_group {pending}")
                }
                Instr::Async(AsyncOp::MbarrierInit { .. }) => "mbarrier.init".to_string(),
                Instr::Async(AsyncOp::FenceMbarrierInit) => {
                    "fence.mbarrier_init.release.cluster".to_string()
                }
                Instr::Async(AsyncOp::BulkCopy { dst, .. }) => {
                    let peer = p
                        .shared_of(*dst)
                        .is_some_and(|of| !of.is_own(&th.placement));
                    let d = p.locations[*dst].name == "d";
                    seen.insert(format!(
                        "cp.async.bulk into {}",
                        if d { "d" } else { "an accessed location" }
                    ));
                    match peer {
                        true => "cp.async.bulk into a peer CTA".to_string(),
                        false => "cp.async.bulk".to_string(),
                    }
                }
                Instr::Fence(Fence::Proxy(kind)) => format!("fence.proxy.{}", kind.name()),
                Instr::Async(AsyncOp::ClusterArrive { order }) => {
                    format!("barrier.cluster.arrive.{order}")
                }
                Instr::Async(AsyncOp::ClusterWait) => "barrier.cluster.wait".to_string(),
                Instr::Branch { .. } => "branch".to_string(),
                Instr::Label(_) => "label".to_string(),
                other => panic!("seed {seed}: unexpected instruction {other:?}"),
            };
            seen.insert(feature);
            let shared = stmt.instr.location().and_then(|l| p.shared_of(l));
            if let (Some(of), false) = (shared, matches!(stmt.instr, Instr::Async(_))) {
                let own = of.is_own(&th.placement);
                seen.insert(
                    if own {
                        "shared::cta access"
                    } else {
                        "shared::cluster access"
                    }
                    .into(),
                );
            }
            if let Some(scope) = match &stmt.instr {
                Instr::Load { access, .. } | Instr::Store { access, .. } => access.scope,
                _ => None,
            } {
                seen.insert(format!("scope {scope}"));
            }
        }
        for th in &p.threads {
            let count = |f: fn(&Instr) -> bool| th.body.iter().filter(|s| f(&s.instr)).count();
            let arrives = count(|i| matches!(i, Instr::Async(AsyncOp::ClusterArrive { .. })));
            let waits = count(|i| matches!(i, Instr::Async(AsyncOp::ClusterWait)));
            let branches = count(|i| matches!(i, Instr::Branch { .. }));
            match (arrives, waits) {
                (1, _) if branches > 0 => seen.insert("cluster barrier on one branch".into()),
                (1, 0) => seen.insert("cluster arrive without wait".into()),
                (2, _) => seen.insert("two cluster barrier phases".into()),
                _ => false,
            };
            // A thread arrives again only after a wait.
            let mut arrived = false;
            for s in &th.body {
                match s.instr {
                    Instr::Async(AsyncOp::ClusterArrive { .. }) => {
                        assert!(!arrived, "seed {seed}: two arrives without a wait");
                        arrived = true;
                    }
                    Instr::Async(AsyncOp::ClusterWait) => arrived = false,
                    _ => {}
                }
            }
        }
        let cluster_members = |t: &scopecheck_model::litmus::Thread| {
            t.body
                .iter()
                .any(|s| matches!(s.instr, Instr::Async(AsyncOp::ClusterArrive { .. })))
        };
        if p.threads.iter().filter(|t| cluster_members(t)).count() >= 2 {
            seen.insert("cluster barrier in two threads".into());
        }
        seen.insert(format!("quantifier {}", p.condition.quantifier.keyword()));
        if matches!(p.condition.prop, Prop::Or(..)) {
            seen.insert("or".into());
        }
        if let Prop::Cmp(_, Term::Reg(..), _) | Prop::And(..) = p.condition.prop {
            seen.insert("register condition".into());
        }
    }
    let wanted = [
        "threads 2",
        "threads 4",
        "locations 1",
        "locations 3",
        "same cta",
        "different ctas",
        "other gpu",
        "clusters",
        "bar.cta.sync",
        "bar.warp.sync",
        "shfl.sync.idx",
        "shfl.sync.bfly",
        "shfl.sync.down",
        "shfl.sync.up",
        "vote.sync.all",
        "vote.sync.any",
        "vote.sync.ballot",
        "vote.sync.uni",
        "match.any.sync",
        "match.all.sync",
        "redux.sync.add",
        "redux.sync.min",
        "redux.sync.max",
        "redux.sync.and",
        "redux.sync.or",
        "redux.sync.xor",
        "redux.sync .u32",
        "redux.sync .s32",
        "redux.sync .b32",
        "elect.sync",
        "mbarrier.arrive.release.shared::cta",
        "mbarrier.arrive.relaxed.shared::cluster",
        "mbarrier.try_wait.acquire",
        "mbarrier.try_wait.relaxed",
        "mbarrier.arrive.expect_tx",
        "mbarrier.expect_tx",
        "mbarrier.complete_tx.shared::cta",
        "mbarrier.complete_tx.shared::cluster",
        "cp.async.bulk",
        "cp.async.bulk into a peer CTA",
        "cp.async.bulk into d",
        "cp.async.bulk into an accessed location",
        "fence.proxy.async",
        "fence.proxy.async.global",
        "cp.async.bulk.global.shared::cta.bulk_group",
        "cp.async.bulk.commit_group",
        "cp.async.bulk.wait_group 0",
        "cp.async.bulk.wait_group 1",
        "cp.async.bulk.wait_group.read",
        "mbarrier.init",
        "fence.mbarrier_init.release.cluster",
        "barrier.cluster.arrive.release",
        "barrier.cluster.arrive.relaxed",
        "barrier.cluster.wait",
        "cluster arrive without wait",
        "two cluster barrier phases",
        "cluster barrier on one branch",
        "cluster barrier in two threads",
        "fence.proxy.async.shared::cta",
        "fence.proxy.async.shared::cluster",
        "shared::cta access",
        "shared::cluster access",
        "ld.weak",
        "ld.relaxed",
        "ld.acquire",
        "ld.global.nc",
        "st.weak",
        "st.relaxed",
        "st.release",
        "atom.acq_rel.cas",
        "atom.relaxed.exch",
        "atom.acquire.add",
        "red.release",
        "atom.inc",
        "atom.dec",
        "atom.min",
        "atom.max",
        "atom.and",
        "atom.or",
        "atom.xor",
        "red.inc",
        "red.dec",
        "red.min",
        "red.max",
        "red.and",
        "red.or",
        "red.xor",
        "cp.async",
        "cp.async.commit_group",
        "cp.async.wait_group 0",
        "cp.async.wait_group 1",
        "cp.async.wait_all",
        "fence.sc.cta",
        "fence.sc.sys",
        "fence.acq_rel.gpu",
        "fence.acq_rel.cluster",
        "scope cta",
        "scope cluster",
        "scope gpu",
        "scope sys",
        "quantifier exists",
        "quantifier ~exists",
        "quantifier forall",
        "or",
        "register condition",
    ];
    let missing: Vec<_> = wanted.iter().filter(|w| !seen.contains(**w)).collect();
    assert!(missing.is_empty(), "generator never produced {missing:?}");
}
