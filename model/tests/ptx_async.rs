//! The PTX interpreter's asynchronous instructions end to end, one small kernel per form with a
//! passing and a failing variant: `mbarrier.*`, `cp.async*`, `cp.async.bulk*`, the async
//! proxy's fences, cluster addressing (`mapa`, `getctarank`, `isspacep`, remote arrives), and
//! the forms the interpreter refuses. Timings are printed, never asserted.

use crate::ptx_support::{check, verdict, verified, HEAD};
use scopecheck_model::kernel::{Checker, FailureKind, Verdict};
use scopecheck_model::ptx::launch::{check_ptx, Launch};

fn refused(flags: &str, body: &str, why: &str) {
    let e = check(flags, body).expect_err("refused");
    assert!(e.contains("test.ptx:") && e.contains(why), "{e}");
}

/// Thread 0 writes `data` and arrives with `arrive`; thread 1 arrives and spins on `wait` for
/// phase 0, then reads `data` (trapping on a wrong value). The barrier expects `count`.
fn mbarrier_mp(count: u32, arrive: &str, wait: &str) -> String {
    format!(
        r#"
.visible .entry k()
{{
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .shared .align 8 .b64 bar;
    .shared .align 4 .u32 data;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, bar;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra $SYNC;
    mbarrier.init.shared::cta.b64 [%r2], {count};
$SYNC:
    bar.sync 0;
    @%p1 bra $CONSUMER;
    st.shared.u32 [data], 7;
    {arrive} _, [%r2];
    ret;
$CONSUMER:
    mbarrier.arrive.shared::cta.b64 _, [%r2];
$WAIT:
    {wait} %p2, [%r2], 0;
    @!%p2 bra $WAIT;
    ld.shared.u32 %r3, [data];
    setp.ne.s32 %p3, %r3, 7;
    @%p3 trap;
    ret;
}}
"#
    )
}

const ARRIVE: &str = "mbarrier.arrive.shared::cta.b64";
const TRY_WAIT: &str = "mbarrier.try_wait.parity.shared::cta.b64";

#[test]
fn mbarrier_arrive_release_and_try_wait_acquire_synchronize() {
    verified("--block 2", &mbarrier_mp(2, ARRIVE, TRY_WAIT));
    let explicit = "mbarrier.arrive.release.cta.shared::cta.b64";
    let wait = "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64";
    verified("--block 2", &mbarrier_mp(2, explicit, wait));
    // test_wait is the non-suspending test: the same answers in the same spin.
    let test_wait = "mbarrier.test_wait.parity.shared::cta.b64";
    verified("--block 2", &mbarrier_mp(2, ARRIVE, test_wait));
    // A generic address of the barrier (no state space) names the same object.
    let generic = mbarrier_mp(2, "mbarrier.arrive.b64", "mbarrier.try_wait.parity.b64")
        .replace(
            "mov.u32 %r2, bar;",
            "mov.u64 %rd3, bar;\n    cvta.shared.u64 %rd3, %rd3;",
        )
        .replace("mbarrier.init.shared::cta.b64", "mbarrier.init.b64")
        .replace("[%r2]", "[%rd3]");
    verified("--block 2", &generic);
}

#[test]
fn relaxed_arrive_or_relaxed_wait_orders_nothing() {
    let relaxed_arrive = "mbarrier.arrive.relaxed.cta.shared::cta.b64";
    let v = verdict("--block 2", &mbarrier_mp(2, relaxed_arrive, TRY_WAIT));
    assert_eq!(v, Verdict::Fail(FailureKind::DataRace));
    let relaxed_wait = "mbarrier.try_wait.parity.relaxed.cta.shared::cta.b64";
    let v = verdict("--block 2", &mbarrier_mp(2, ARRIVE, relaxed_wait));
    assert_eq!(v, Verdict::Fail(FailureKind::DataRace));
}

#[test]
fn a_try_wait_spin_on_a_phase_that_never_completes_is_a_hang() {
    // Three arrivals expected, two come: the spin blocks on the phase, a proven hang (not a
    // bounded possible one: the spin got the await treatment).
    let v = verdict("--block 2", &mbarrier_mp(3, ARRIVE, TRY_WAIT));
    assert_eq!(v, Verdict::Fail(FailureKind::Hang));
}

#[test]
fn a_use_before_the_init_is_visible_is_misuse() {
    let body = mbarrier_mp(2, ARRIVE, TRY_WAIT).replace("bar.sync 0;", "");
    let v = verdict("--block 2", &body);
    assert_eq!(v, Verdict::Fail(FailureKind::MBarrierMisuse));
}

/// One thread: init(3), arrive (state: 2 pending), `noComplete` with `n` arrivals, tests, then
/// the last arrive.
fn no_complete(n: u32) -> String {
    format!(
        r#"
.visible .entry k()
{{
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .shared .align 8 .b64 bar;
    mov.u32 %r2, bar;
    mbarrier.init.shared::cta.b64 [%r2], 3;
    mbarrier.arrive.shared::cta.b64 %rd1, [%r2];
    mbarrier.pending_count.b64 %r3, %rd1;
    setp.ne.s32 %p1, %r3, 2;
    @%p1 trap;
    mbarrier.arrive.noComplete.shared::cta.b64 %rd2, [%r2], {n};
    mbarrier.test_wait.shared::cta.b64 %p2, [%r2], %rd1;
    @%p2 trap;
    mbarrier.arrive.shared::cta.b64 %rd3, [%r2];
    mbarrier.test_wait.shared::cta.b64 %p2, [%r2], %rd1;
    @!%p2 trap;
    mbarrier.try_wait.shared::cta.b64 %p2, [%r2], %rd3;
    @!%p2 trap;
    ret;
}}
"#
    )
}

#[test]
fn pending_count_no_complete_and_token_waits() {
    verified("", &no_complete(1));
    // Two arrivals of noComplete complete the phase: undefined behaviour, reported.
    let v = verdict("", &no_complete(2));
    assert_eq!(v, Verdict::Fail(FailureKind::MBarrierMisuse));
}

#[test]
fn inval_then_arrive_is_misuse() {
    let body = r#"
.visible .entry k()
{
    .reg .b32 %r<4>;
    .shared .align 8 .b64 bar;
    mov.u32 %r2, bar;
    mbarrier.init.shared::cta.b64 [%r2], 1;
    mbarrier.inval.shared::cta.b64 [%r2];
    mbarrier.arrive.shared::cta.b64 _, [%r2];
    ret;
}
"#;
    assert_eq!(
        verdict("", body),
        Verdict::Fail(FailureKind::MBarrierMisuse)
    );
    let ok = body.replace(
        "mbarrier.arrive.shared::cta.b64 _, [%r2];",
        "mbarrier.init.shared::cta.b64 [%r2], 1;\n    mbarrier.arrive.shared::cta.b64 _, [%r2];",
    );
    verified("", &ok);
}

#[test]
fn an_mbarrier_outside_shared_memory_or_misaligned_is_misuse() {
    let body = |addr: &str| {
        format!(
            r#"
.visible .entry k(.param .u64 g)
{{
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;
    .shared .align 8 .b8 bars[16];
    ld.param.u64 %rd1, [g];
    mov.u32 %r2, bars;
    {addr}
}}
"#
        )
    };
    let global = body("mbarrier.init.b64 [%rd1], 1;\n    ret;");
    let v = verdict("--arg g=u64[1]", &global);
    assert_eq!(v, Verdict::Fail(FailureKind::MBarrierMisuse));
    let misaligned = body("mbarrier.init.shared::cta.b64 [%r2+4], 1;\n    ret;");
    let v = verdict("--arg g=u64[1]", &misaligned);
    assert_eq!(v, Verdict::Fail(FailureKind::MBarrierMisuse));
    let second = body("mbarrier.init.shared::cta.b64 [%r2+8], 1;\n    ret;");
    verified("--arg g=u64[1]", &second);
}

/// Thread 0 expects 16 bytes on the barrier and starts a bulk copy of `src` into `tile`
/// completing on it; both threads then `wait` and read `tile[1]`.
fn bulk_load(expect: &str, wait: &str) -> String {
    format!(
        r#"
.visible .entry k(.param .u64 src)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .shared .align 8 .b64 bar;
    .shared .align 16 .b8 tile[16];
    ld.param.u64 %rd1, [src];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, bar;
    mov.u32 %r5, tile;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra $SYNC;
    mbarrier.init.shared::cta.b64 [%r2], 1;
$SYNC:
    bar.sync 0;
    @%p1 bra $WAIT;
    {expect}
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r5], [%rd1], 16, [%r2];
$WAIT:
    {wait}
    ld.shared.u32 %r3, [tile+4];
    setp.ne.s32 %p3, %r3, 2;
    @%p3 trap;
    ret;
}}
"#
    )
}

const EXPECT: &str = "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 16;";
const SPIN: &str =
    "$W:\n    mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;\n    @!%p2 bra $W;";
const BULK_FLAGS: &str = "--block 2 --arg src=u32[4]=1,2,3,4";

#[test]
fn bulk_copy_completes_on_the_mbarrier() {
    verified(BULK_FLAGS, &bulk_load(EXPECT, SPIN));
    let separate = "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r2], 16;\n    \
                    mbarrier.arrive.shared::cta.b64 _, [%r2];";
    verified(BULK_FLAGS, &bulk_load(separate, SPIN));
}

#[test]
fn reading_the_tile_without_waiting_races_with_the_copy() {
    let v = verdict(BULK_FLAGS, &bulk_load(EXPECT, ""));
    assert!(
        matches!(
            v,
            Verdict::Fail(FailureKind::DataRace | FailureKind::UninitializedRead)
        ),
        "{v:?}"
    );
    // Without expect_tx the phase completes at the arrive, before the bytes land.
    let no_tx = "mbarrier.arrive.shared::cta.b64 _, [%r2];";
    let v = verdict(BULK_FLAGS, &bulk_load(no_tx, SPIN));
    assert!(
        matches!(
            v,
            Verdict::Fail(
                FailureKind::DataRace | FailureKind::UninitializedRead | FailureKind::Assertion
            )
        ),
        "{v:?}"
    );
}

/// One thread copies `src[0..4]` into `buf` with `copy`, commits, runs `wait`, reads `buf[0]`.
fn cp_async(copy: &str, wait: &str) -> String {
    format!(
        r#"
.visible .entry k(.param .u64 src)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .shared .align 16 .b8 buf[16];
    .shared .align 8 .b64 bar;
    ld.param.u64 %rd1, [src];
    mov.u32 %r5, buf;
    mov.u32 %r2, bar;
    {copy}
    cp.async.commit_group;
    {wait}
    ld.shared.u32 %r3, [buf];
    setp.ne.s32 %p3, %r3, 1;
    @%p3 trap;
    ret;
}}
"#
    )
}

const CP4: &str = "cp.async.ca.shared.global [%r5], [%rd1], 4;";
const CP_FLAGS: &str = "--arg src=u32[4]=1,2,3,4";

#[test]
fn cp_async_wait_group_orders_the_copy() {
    verified(CP_FLAGS, &cp_async(CP4, "cp.async.wait_group 0;"));
    verified(CP_FLAGS, &cp_async(CP4, "cp.async.wait_all;"));
    let cg = "cp.async.cg.shared.global.L2::128B [%r5], [%rd1], 16;";
    verified(CP_FLAGS, &cp_async(cg, "cp.async.wait_group 0;"));
    // Two groups, waiting for all but the newest: the first (this copy) is complete.
    let two = format!(
        "{CP4}\n    cp.async.commit_group;\n    cp.async.ca.shared.global [%r5+4], [%rd1+4], 4;"
    );
    verified(CP_FLAGS, &cp_async(&two, "cp.async.wait_group 1;"));
}

#[test]
fn cp_async_without_a_wait_races() {
    for wait in ["", "cp.async.wait_group 1;"] {
        let v = verdict(CP_FLAGS, &cp_async(CP4, wait));
        assert!(
            matches!(
                v,
                Verdict::Fail(FailureKind::DataRace | FailureKind::UninitializedRead)
            ),
            "{wait}: {v:?}"
        );
    }
}

#[test]
fn cp_async_mbarrier_arrive_completes_the_phase_after_the_copies() {
    let wait = |arrive: &str| {
        format!(
            "mbarrier.init.shared::cta.b64 [%r2], 1;\n    {CP4}\n    {arrive}\n    \
             $W:\n    mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;\n    @!%p2 bra $W;"
        )
    };
    let noinc = wait("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%r2];");
    verified(CP_FLAGS, &cp_async(&noinc, ""));
    // Without .noinc the pending count is raised first: the arrival is net zero, and the
    // barrier's one expected arrival never comes.
    let inc = wait("cp.async.mbarrier.arrive.shared::cta.b64 [%r2];");
    assert_eq!(
        verdict(CP_FLAGS, &cp_async(&inc, "")),
        Verdict::Fail(FailureKind::Hang)
    );
}

/// Four threads write `tile`, run `fence`, sync; thread 0 stores the tile to `dst` with a
/// bulk copy.
fn tma_store(fence: &str) -> String {
    format!(
        r#"
.visible .entry k(.param .u64 dst)
{{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<3>;
    .shared .align 16 .b8 tile[16];
    ld.param.u64 %rd1, [dst];
    mov.u32 %r1, %tid.x;
    mov.u32 %r4, tile;
    shl.b32 %r3, %r1, 2;
    add.s32 %r5, %r4, %r3;
    st.shared.u32 [%r5], %r1;
    {fence}
    bar.sync 0;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra $END;
    cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r4], 16;
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group.read 0;
$END:
    ret;
}}
"#
    )
}

#[test]
fn bulk_store_needs_a_proxy_fence_of_shared_memory() {
    let flags = "--block 4 --arg dst=u32[4]";
    verified(flags, &tma_store("fence.proxy.async.shared::cta;"));
    verified(flags, &tma_store("fence.proxy.async;"));
    for fence in ["", "fence.proxy.async.global;", "fence.proxy.alias;"] {
        let v = verdict(flags, &tma_store(fence));
        assert_eq!(v, Verdict::Fail(FailureKind::DataRace), "{fence}");
    }
    let waited = tma_store("fence.proxy.async.shared::cta;").replace(
        "cp.async.bulk.wait_group.read 0;",
        "cp.async.bulk.wait_group 0;",
    );
    verified(flags, &waited);
}

/// Each CTA of a 2-CTA cluster writes `rank + 1` to its `mine`, syncs the cluster, reads its
/// peer's through `peer` (the address making code), checks it, then runs `tail`.
fn dsmem(peer: &str, tail: &str) -> String {
    format!(
        r#"
.visible .entry k(.param .u64 out)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<4>;
    .shared .align 4 .u32 mine;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %cluster_ctarank;
    add.s32 %r2, %r1, 1;
    st.shared.u32 [mine], %r2;
    barrier.cluster.arrive.release.aligned;
    barrier.cluster.wait.acquire.aligned;
    xor.b32 %r3, %r1, 1;
    {peer}
    add.s32 %r8, %r3, 1;
    setp.ne.s32 %p1, %r6, %r8;
    @%p1 trap;
    {tail}
    ret;
}}
"#
    )
}

const MAPA: &str = "mov.u32 %r4, mine;
    mapa.shared::cluster.u32 %r5, %r4, %r3;
    ld.shared::cluster.u32 %r6, [%r5];
    getctarank.shared::cluster.u32 %r7, %r5;
    setp.ne.s32 %p1, %r7, %r3;
    @%p1 trap;";
const CLUSTER_SYNC: &str = "barrier.cluster.arrive.aligned;\n    barrier.cluster.wait.aligned;";
const CLUSTER_FLAGS: &str = "--grid 2 --cluster 2 --arg out=u32[2]";

#[test]
fn mapa_reaches_the_peer_and_the_trailing_barrier_keeps_it_alive() {
    verified(CLUSTER_FLAGS, &dsmem(MAPA, CLUSTER_SYNC));
    let v = verdict(CLUSTER_FLAGS, &dsmem(MAPA, ""));
    assert_eq!(v, Verdict::Fail(FailureKind::UseAfterExit));
}

#[test]
fn generic_mapa_isspacep_and_getctarank() {
    let generic = "mov.u64 %rd2, mine;
    cvta.shared.u64 %rd2, %rd2;
    isspacep.shared::cta %p2, %rd2;
    @!%p2 trap;
    mapa.u64 %rd3, %rd2, %r3;
    isspacep.shared::cluster %p2, %rd3;
    @!%p2 trap;
    isspacep.shared::cta %p2, %rd3;
    @%p2 trap;
    isspacep.global %p2, %rd3;
    @%p2 trap;
    getctarank.u64 %r7, %rd3;
    setp.ne.s32 %p1, %r7, %r3;
    @%p1 trap;
    getctarank.u64 %r7, %rd2;
    setp.ne.s32 %p1, %r7, %r1;
    @%p1 trap;
    ld.u32 %r6, [%rd3];";
    verified(CLUSTER_FLAGS, &dsmem(generic, CLUSTER_SYNC));
}

#[test]
fn a_peer_address_is_not_a_shared_cta_address_and_ranks_stay_in_the_cluster() {
    let cta = MAPA.replace("ld.shared::cluster.u32", "ld.shared.u32");
    let v = verdict(CLUSTER_FLAGS, &dsmem(&cta, CLUSTER_SYNC));
    assert_eq!(v, Verdict::Fail(FailureKind::OutOfBounds));
    let outside = MAPA.replace(
        "mapa.shared::cluster.u32 %r5, %r4, %r3;",
        "mapa.shared::cluster.u32 %r5, %r4, 2;",
    );
    let v = verdict(CLUSTER_FLAGS, &dsmem(&outside, CLUSTER_SYNC));
    assert_eq!(v, Verdict::Fail(FailureKind::OutOfBounds));
}

/// CTA 0 initialises its barrier (`fence` after it) and, after a relaxed cluster barrier,
/// spins on it with `wait`; CTA 1 writes `out` then arrives remotely (release, cluster).
fn remote_arrive(fence: &str, wait: &str) -> String {
    format!(
        r#"
.visible .entry k(.param .u64 out)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<4>;
    .shared .align 8 .b64 bar;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %cluster_ctarank;
    mov.u32 %r2, bar;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra $SYNC;
    mbarrier.init.shared::cta.b64 [%r2], 1;
    {fence}
$SYNC:
    barrier.cluster.arrive.relaxed.aligned;
    barrier.cluster.wait.aligned;
    @%p1 bra $REMOTE;
$W:
    {wait} %p2, [%r2], 0;
    @!%p2 bra $W;
    ld.global.u32 %r3, [%rd1];
    setp.ne.s32 %p3, %r3, 9;
    @%p3 trap;
    ret;
$REMOTE:
    st.global.u32 [%rd1], 9;
    mapa.shared::cluster.u32 %r4, %r2, 0;
    mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r4];
    ret;
}}
"#
    )
}

#[test]
fn remote_arrive_synchronizes_with_a_cluster_wait() {
    let flags = "--grid 2 --cluster 2 --arg out=u32[1]";
    let fence = "fence.mbarrier_init.release.cluster;";
    let cluster_wait = "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64";
    verified(flags, &remote_arrive(fence, cluster_wait));
    // A .cta wait's scope leaves the remote CTA out: it acquires nothing from its arrive.
    let v = verdict(flags, &remote_arrive(fence, TRY_WAIT));
    assert!(
        matches!(
            v,
            Verdict::Fail(FailureKind::DataRace | FailureKind::ScopedRace { .. })
        ),
        "{v:?}"
    );
    // Without fence.mbarrier_init the relaxed cluster barrier does not publish the init.
    let v = verdict(flags, &remote_arrive("", cluster_wait));
    assert_eq!(v, Verdict::Fail(FailureKind::MBarrierMisuse));
}

#[test]
fn multicast_bulk_copy_lands_in_every_cta_of_the_mask() {
    let body = r#"
.visible .entry k(.param .u64 src)
{
    .reg .pred %p<4>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<4>;
    .shared .align 8 .b64 bar;
    .shared .align 16 .u64 tile[2];
    ld.param.u64 %rd1, [src];
    mov.u32 %r1, %cluster_ctarank;
    mov.u32 %r2, bar;
    mov.u32 %r5, tile;
    mbarrier.init.shared::cta.b64 [%r2], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 16;
    fence.mbarrier_init.release.cluster;
    barrier.cluster.arrive.relaxed.aligned;
    barrier.cluster.wait.aligned;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra $W;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r5], [%rd1], 16, [%r2], MASK;
$W:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
    @!%p2 bra $W;
    ld.shared.u64 %rd2, [tile+8];
    setp.ne.s64 %p3, %rd2, 2;
    @%p3 trap;
    ret;
}
"#;
    let flags = "--grid 2 --cluster 2 --arg src=u64[2]=1,2";
    // Each CTA reads only its own tile, after the copy into it landed: no trailing cluster
    // barrier is needed. Since mbarrier waits commute with each other (`Point::MBarrierWait`),
    // the whole exploration fits the budget (2,656 executions; 143,412 before).
    let src = format!(
        "// scopecheck: {flags}\n{HEAD}{}",
        body.replace("MASK", "3")
    );
    let r = check_ptx(
        &src,
        "test.ptx",
        &Launch::default(),
        &[],
        Checker::dfs_budget(3000),
    );
    let r = r.unwrap_or_else(|e| panic!("{e}"));
    assert!(r.passed() && r.complete, "{r}");
    // Rank 1 is left out of the mask: its phase never gets its bytes.
    let v = verdict(flags, &body.replace("MASK", "1"));
    assert_eq!(v, Verdict::Fail(FailureKind::Hang));
}

#[test]
fn forms_without_a_runtime_object_are_refused_with_the_reason() {
    let with = |instr: &str| {
        format!(
            ".visible .entry k(.param .u64 g)\n{{\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<4>;\n    \
             .shared .align 8 .b64 bar;\n    {instr}\n    ret;\n}}\n"
        )
    };
    let flags = "--arg g=u32[4]";
    // A tensor copy whose map is no kernel parameter bound with --tensor-map (`ptx_tensor`
    // has the bound ones).
    refused(
        flags,
        &with("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [bar], [%rd1, {%r1}], [bar];"),
        "--tensor-map",
    );
    // The sm_100 forms to `.global` memory complete without an mbarrier (`ptx_st_async.rs`
    // holds the supported ones).
    refused(
        flags,
        &with("st.async.release.gpu.global.u32 [%rd1], %r1;"),
        "st.async without .mbarrier::complete_tx::bytes",
    );
    refused(
        flags,
        &with("mbarrier.complete_tx.shared::cta.b64 [bar], 16;"),
        "complete_tx",
    );
    refused(
        flags,
        &with("cp.async.ca.shared.global [bar], [%rd1], 4, %r1;"),
        "src-size",
    );
    refused(
        flags,
        &with("cp.async.cg.shared.global [bar], [%rd1], 8;"),
        "cp-size 8",
    );
    refused(
        flags,
        &with("mbarrier.arrive.shared::cluster.b64 %rd1, [bar];"),
        "`_`",
    );
    refused(
        flags,
        &with("mbarrier.arrive.noComplete.relaxed.shared::cta.b64 %rd1, [bar], 1;"),
        "noComplete",
    );
    refused(flags, &with("mbarrier.frob.b64 [bar];"), "frob");
    refused(flags, &with("fence.proxy.frob;"), "proxy fence");
    refused(flags, &with("mapa.shared::cta.u32 %r1, %r2, 0;"), "mapa");
}

#[test]
fn no_op_hints_run() {
    let body = r#"
.visible .entry k(.param .u64 g)
{
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [g];
    nanosleep.u32 100;
    prefetch.global.L2 [%rd1];
    cp.async.bulk.prefetch.L2.global [%rd1], 16;
    fence.proxy.tensormap::generic.release.gpu;
    ret;
}
"#;
    verified("--arg g=u32[4]", body);
}

#[test]
fn timeout_in_the_first_line_bounds_the_exploration() {
    // The mbarrier kernel has several executions; a zero timeout stops after the first.
    let r = check("--block 2 --timeout 0", &mbarrier_mp(2, ARRIVE, TRY_WAIT)).unwrap();
    assert!(r.passed() && !r.complete && r.executions == 1, "{r}");
    let e = check("--timeout soon", &mbarrier_mp(2, ARRIVE, TRY_WAIT)).unwrap_err();
    assert!(e.contains("--timeout `soon`"), "{e}");
}

/// Every asynchronous form the decoder accepts prints back and re-parses to a module that
/// prints the same and decodes to the same operations (the corpus's PTX is covered by
/// `ptx_parse`'s round trip over every `.ptx` file; this covers the forms no corpus kernel uses).
#[test]
fn every_async_form_round_trips() {
    use scopecheck_model::ptx::program::Program;
    let forms = [
        "mbarrier.init.shared::cta.b64 [%r2], 2;",
        "mbarrier.init.b64 [%rd3], 2;",
        "mbarrier.arrive.shared::cta.b64 %rd1, [%r2];",
        "mbarrier.arrive.release.cluster.shared::cta.b64 %rd1, [%r2], 2;",
        "mbarrier.arrive.relaxed.cta.shared::cluster.b64 _, [%r2];",
        "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd1, [%r2], 16;",
        "mbarrier.arrive.expect_tx.relaxed.cluster.shared::cluster.b64 _, [%r2], 16;",
        "mbarrier.arrive.noComplete.release.cta.shared::cta.b64 %rd1, [%r2], 1;",
        "mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [%r2], 32;",
        "mbarrier.test_wait.shared::cta.b64 %p1, [%r2], %rd1;",
        "mbarrier.test_wait.parity.acquire.cluster.shared::cta.b64 %p1, [%r2], %r1;",
        "mbarrier.try_wait.relaxed.cta.shared::cta.b64 %p1, [%r2], %rd1, 1000;",
        "mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r2], 1;",
        "mbarrier.inval.shared::cta.b64 [%r2];",
        "mbarrier.pending_count.b64 %r1, %rd1;",
        "cp.async.ca.shared.global [%r2], [%rd1], 8;",
        "cp.async.cg.shared.global.L2::cache_hint [%r2], [%rd1], 16, %rd2;",
        "cp.async.commit_group;",
        "cp.async.wait_group 3;",
        "cp.async.wait_all;",
        "cp.async.mbarrier.arrive.shared::cta.b64 [%r2];",
        "cp.async.mbarrier.arrive.noinc.shared.b64 [%r2];",
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1], 16, [%r3];",
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r2], [%rd1], 16, [%r3], %rs1;",
        "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r2], [%r4], 16, [%r3];",
        "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r2], 32;",
        "cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%rd1], [%r2], 32, %rd2;",
        "cp.async.bulk.commit_group;",
        "cp.async.bulk.wait_group 1;",
        "cp.async.bulk.wait_group.read 0;",
        "fence.proxy.async;",
        "fence.proxy.async.global;",
        "fence.proxy.async.shared::cta;",
        "fence.proxy.async.shared::cluster;",
        "fence.mbarrier_init.release.cluster;",
        "mapa.shared::cluster.u32 %r1, %r2, 1;",
        "mapa.u64 %rd1, %rd2, %r1;",
        "getctarank.shared::cluster.u32 %r1, %r2;",
        "getctarank.u64 %r1, %rd2;",
        "isspacep.shared::cluster %p1, %rd1;",
        "ld.shared::cluster.u32 %r1, [%r2+4];",
        "st.shared::cluster.u32 [%r2], %r1;",
        "barrier.cluster.arrive.relaxed.aligned;",
        "barrier.cluster.wait.acquire;",
    ];
    let src = format!(
        "{HEAD}.visible .entry k()\n{{\n    .reg .pred %p<2>;\n    .reg .b16 %rs<2>;\n    \
         .reg .b32 %r<5>;\n    .reg .b64 %rd<4>;\n    {}\n    ret;\n}}\n",
        forms.join("\n    ")
    );
    let first = scopecheck_model::ptx::parse(&src, "forms.ptx").unwrap();
    let printed = first.to_string();
    let second = scopecheck_model::ptx::parse(&printed, "forms.ptx")
        .unwrap_or_else(|e| panic!("printed text does not parse: {e}\n{printed}"));
    assert_eq!(printed, second.to_string());
    let ops = |m| -> Vec<_> {
        let p = Program::new(m, "forms.ptx").unwrap_or_else(|e| panic!("{e}"));
        p.funcs[0].code.iter().map(|s| s.op.clone()).collect()
    };
    let (a, b) = (ops(&first), ops(&second));
    assert_eq!(a.len(), forms.len() + 1);
    assert_eq!(a, b);
}
