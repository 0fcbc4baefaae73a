//! The harness's forms for shared memory, clusters, mbarriers, bulk copies, `cp.async` and CTA
//! barriers, and its refusals, one case per production. No GPU needed.

use scopecheck_gpu::codegen::generate;
use scopecheck_model::litmus::parse;

fn program(body: &str) -> scopecheck_model::litmus::Program {
    let src = format!("PTX t\n{body}");
    parse(&src, "t.litmus").unwrap_or_else(|e| panic!("{e}"))
}

fn source(body: &str) -> String {
    generate(&program(body))
        .unwrap_or_else(|e| panic!("{e}"))
        .source
}

fn has(source: &str, line: &str) {
    assert!(
        source.contains(line),
        "generated source lacks `{line}`:\n{source}"
    );
}

fn refused(body: &str, why: &str) {
    match generate(&program(body)) {
        Err(u) => assert!(u.to_string().contains(why), "{u}"),
        Ok(h) => panic!("expected a refusal ({why}), got a harness:\n{}", h.source),
    }
}

const DSMEM: &str = "{
d @ shared cta 1 = 0;
f @ shared cta 1 = 7;
}
 P0@cta 0,cluster 0,gpu 0                | P1@cta 1,cluster 0,gpu 0 ;
 st.shared::cluster d, 1                 | ld.acquire.cluster r0, f ;
 st.release.cluster.shared::cluster f, 1 | ld r1, d                 ;
exists (P1:r0 == 1 /\\ P1:r1 == 0 /\\ d == 1)";

#[test]
fn shared_locations_are_per_instance_slots_reached_through_their_window() {
    let h = generate(&program(DSMEM)).unwrap();
    let s = &h.source;
    // Both locations belong to role 1 (CTA 1), 16 bytes per instance slot.
    assert_eq!(h.shared.slot[0], Some((1, 0)));
    assert_eq!(h.shared.slot[1], Some((1, 1)));
    assert_eq!(h.shared.bytes(8), 2 * 16 * 8);
    // The owner initialises its slots (f = 7) before any litmus thread starts.
    has(s, r#""l"((u64)(u32)7)"#);
    // P0 reaches them through mapa at rank 1 and `.shared::cluster`; P1 through `.shared::cta`.
    has(
        s,
        r#"mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(A0) : "r"(sh_base + (0u * ipb + jl) * 16u), "r"(1u));"#,
    );
    has(
        s,
        r#"st.weak.shared::cluster.u32 [%0], %1;" :: "r"(A0), "r"((1))"#,
    );
    has(
        s,
        r#"st.release.cluster.shared::cluster.u32 [%0], %1;" :: "r"(A1), "r"((1))"#,
    );
    has(
        s,
        r#"ld.acquire.cluster.shared::cta.u32 %0, [%1];" : "=r"(r_r0) : "r"(A1)"#,
    );
    has(
        s,
        r#"ld.weak.shared::cta.u32 %0, [%1];" : "=r"(r_r1) : "r"(A0)"#,
    );
    // The condition's `d` is read out of shared memory into its global slot at the end.
    has(s, r#"*L0 = v_; } // d"#);
}

#[test]
fn clusters_map_litmus_ctas_to_ranks_and_meet_at_start_and_end() {
    let h = generate(&program(DSMEM)).unwrap();
    let c = h.cluster.as_ref().expect("a cluster launch");
    assert_eq!((c.size, c.count, c.position.clone()), (2, 1, vec![0, 1]));
    let s = &h.source;
    has(
        s,
        "const u32 role = pos == 0u ? 0u : pos == 1u ? 1u : 0xffffffffu;",
    );
    // Every CTA of the cluster runs (and its shared memory is initialised) before any access.
    has(
        s,
        r#"barrier.cluster.arrive.release; barrier.cluster.wait.acquire;"#,
    );
    // The end stands for the threads' exit: a relaxed arrive releases nothing.
    has(
        s,
        r#"barrier.cluster.arrive.relaxed; barrier.cluster.wait.acquire;"#,
    );
    // Partners number their instances alike within a cluster.
    has(
        s,
        "mix(seed ^ (0x100u + (role == 0u ? 0u : role == 1u ? 0u : 0u)))",
    );
}

#[test]
fn two_litmus_clusters_are_two_hardware_clusters_of_the_larger_size() {
    let h = generate(&program(
        "{ x = 0; }
 P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 | P2@cta 2,cluster 1,gpu 0 ;
 st.relaxed.gpu x, 1      | ld.relaxed.gpu r0, x     | ld.relaxed.gpu r1, x     ;
exists (P1:r0 == 1 /\\ P2:r1 == 0)",
    ))
    .unwrap();
    let c = h.cluster.unwrap();
    assert_eq!((c.size, c.count, c.position), (2, 2, vec![0, 1, 2]));
    assert!(h.source.contains("pos == 2u ? 2u"), "{}", h.source);
}

#[test]
fn cluster_barriers_keep_their_semantics_and_the_pending_arrive_is_waited_for() {
    let s = source(
        "{ d = 0; }
 P0@cta 0,cluster 0,gpu 0       | P1@cta 1,cluster 0,gpu 0       ;
 st d, 1                        | barrier.cluster.arrive.release ;
 barrier.cluster.arrive.relaxed | ld r1, d                       ;
 barrier.cluster.wait.acquire   |                                ;
exists (P1:r1 == 0)",
    );
    has(
        s.as_str(),
        r#"asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory"); cl_pending = 1u;"#,
    );
    has(
        &s,
        r#"asm volatile("barrier.cluster.arrive.release;" ::: "memory"); cl_pending = 1u;"#,
    );
    has(
        &s,
        r#"asm volatile("barrier.cluster.wait.acquire;" ::: "memory"); cl_pending = 0u;"#,
    );
    has(
        &s,
        r#"if (cl_pending) asm volatile("barrier.cluster.wait.acquire;" ::: "memory");"#,
    );
}

#[test]
fn mbarrier_instructions_keep_every_qualifier() {
    let s = source(
        "{
bar @ shared cta 0 = mbarrier 2;
b2 @ shared cta 0 = 0;
}
 P0@cta 0,gpu 0                  | P1@cta 0,gpu 0                                  ;
 mbarrier.init b2, 3             | mbarrier.try_wait.parity.relaxed.cta r0, bar, 1 ;
 mbarrier.arrive.relaxed.cta bar | mbarrier.try_wait.parity r1, bar, 0             ;
 mbarrier.arrive bar, 1          | mbarrier.expect_tx bar, 32                      ;
 mbarrier.arrive.expect_tx bar, 16 | mbarrier.complete_tx bar, 16                  ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)",
    );
    // `= mbarrier 2` is an mbarrier.init with count 2 in the prologue; `= 0` a zeroed object.
    has(
        &s,
        r#"mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(sh_base + (0u * ipb + jl) * 16u), "r"(2u)"#,
    );
    has(
        &s,
        r#"mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(A1), "r"((3))"#,
    );
    has(
        &s,
        r#"mbarrier.arrive.relaxed.cta.shared::cta.b64 %0, [%1], %2;" : "=l"(state_) : "r"(A0), "r"((1))"#,
    );
    has(
        &s,
        r#"mbarrier.arrive.release.cta.shared::cta.b64 %0, [%1], %2;"#,
    );
    has(
        &s,
        r#"mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %0, [%1], %2;" : "=l"(state_) : "r"(A0), "r"((16))"#,
    );
    has(
        &s,
        r#"mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" :: "r"(A0), "r"((32))"#,
    );
    has(
        &s,
        r#"mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;" :: "r"(A0), "r"((16))"#,
    );
    // try_wait: a bounded retry of PTX's potentially blocking test, 1 or 0 in the register.
    has(
        &s,
        r#"for (u32 t_ = 0; t_ < TRY_WAIT_TRIES && !w_; ++t_) asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.relaxed.cta.shared::cta.b64 p, [%1], %2, %3; selp.u32 %0, 1, 0, p; }" : "=r"(w_) : "r"(A0), "r"((1)), "r"(TRY_WAIT_HINT_NS)"#,
    );
    has(
        &s,
        r#"mbarrier.try_wait.parity.acquire.cta.shared::cta.b64"#,
    );
}

#[test]
fn a_remote_arrive_returns_no_state() {
    let s = source(
        "{
d @ shared cta 1 = 0;
bar @ shared cta 1 = mbarrier 1;
}
 P0@cta 0,cluster 0,gpu 0                            | P1@cta 1,cluster 0,gpu 0                            ;
 st.shared::cluster d, 1                             | mbarrier.try_wait.parity.acquire.cluster r0, bar, 0 ;
 mbarrier.arrive.release.cluster.shared::cluster bar | ld r1, d                                            ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)",
    );
    has(
        &s,
        r#"mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0], %1;" :: "r"(A1), "r"((1))"#,
    );
    has(
        &s,
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64",
    );
    has(&s, r#"fence.mbarrier_init.release.cluster;"#);
}

#[test]
fn bulk_copies_take_their_spaces_from_the_locations() {
    let h = generate(&program(
        "{
x = 5; g = 0;
d @ shared cta 0 = 0;
s @ shared cta 0 = 0;
bar @ shared cta 0 = mbarrier 1;
}
 P0@cta 0,gpu 0                                                                  ;
 mbarrier.arrive.expect_tx bar, 16                                               ;
 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes d, x, 16, bar ;
 st s, 1                                                                         ;
 fence.proxy.async.shared::cta                                                   ;
 cp.async.bulk.global.shared::cta.bulk_group g, s, 16                            ;
 cp.async.bulk.commit_group                                                      ;
 cp.async.bulk.wait_group.read 0                                                 ;
 cp.async.bulk.wait_group 1                                                      ;
 fence.proxy.async                                                               ;
 fence.proxy.async.global                                                        ;
 mbarrier.try_wait.parity r0, bar, 0                                             ;
exists (P0:r0 == 1 /\\ g == 0)",
    ))
    .unwrap();
    let s = &h.source;
    assert_eq!(h.shared.bulk_bytes, 16);
    has(
        s,
        r#"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" :: "r"(A2), "l"(L0), "r"(16u), "r"(A4)"#,
    );
    has(
        s,
        r#"cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" :: "l"(L1), "r"(A3), "r"(16u)"#,
    );
    has(
        s,
        r#"asm volatile("cp.async.bulk.commit_group;" ::: "memory");"#,
    );
    has(
        s,
        r#"asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");"#,
    );
    has(
        s,
        r#"asm volatile("cp.async.bulk.wait_group 1;" ::: "memory");"#,
    );
    has(
        s,
        r#"asm volatile("fence.proxy.async.shared::cta;" ::: "memory");"#,
    );
    has(s, r#"asm volatile("fence.proxy.async;" ::: "memory");"#);
    has(
        s,
        r#"asm volatile("fence.proxy.async.global;" ::: "memory");"#,
    );
    // The thread's bulk groups complete before the block ends; the copy's phase 0 is waited for.
    has(
        s,
        r#"cp.async.bulk.commit_group; cp.async.bulk.wait_group 0;"#,
    );
    has(
        s,
        r#"mbarrier.test_wait.parity.relaxed.cta.shared::cta.b64 p, [%1], 0;"#,
    );
}

#[test]
fn a_copy_between_cluster_ctas_reads_its_own_shared_memory() {
    let s = source(
        "{
s @ shared cta 0 = 3;
d @ shared cta 1 = 0;
bar @ shared cta 1 = mbarrier 1;
}
 P0@cta 0,cluster 0,gpu 0                                                           | P1@cta 1,cluster 0,gpu 0 ;
 cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes d, s, 16, bar | mbarrier.arrive.expect_tx bar, 16 ;
                                                                                    | mbarrier.try_wait.parity r0, bar, 0 ;
                                                                                    | ld r1, d ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)",
    );
    has(
        &s,
        r#"cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" :: "r"(A1), "r"(A0), "r"(16u), "r"(A2)"#,
    );
    has(&s, r#"u32 A1; asm volatile("mapa.shared::cluster.u32"#);
}

#[test]
fn cp_async_destinations_move_to_the_threads_shared_memory() {
    let h = generate(&program(
        "{ x=1; y=0; w=0; z=2; }
 P0@cta 0,gpu 0                    ;
 cp.async.ca.shared.global y, x, 4 ;
 cp.async.commit_group             ;
 cp.async.ca.shared.global w, z, 4 ;
 cp.async.wait_group 1             ;
 cp.async.wait_all                 ;
 ld.weak r0, y                     ;
exists (P0:r0 == 0 /\\ w == 2)",
    ))
    .unwrap();
    assert_eq!(
        h.shared.slot[1],
        Some((0, 0)),
        "y is in CTA 0's shared memory"
    );
    assert_eq!(h.shared.slot[0], None, "x stays global");
    let s = &h.source;
    has(
        s,
        r#"cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(A1), "l"(L0)"#,
    );
    has(s, r#"asm volatile("cp.async.commit_group;" ::: "memory");"#);
    has(s, r#"asm volatile("cp.async.wait_group 1;" ::: "memory");"#);
    has(s, r#"asm volatile("cp.async.wait_all;" ::: "memory");"#);
    has(
        s,
        r#"ld.weak.shared::cta.u32 %0, [%1];" : "=r"(r_r0) : "r"(A1)"#,
    );
}

#[test]
fn cta_barriers_get_a_warp_per_thread_and_a_hardware_barrier_per_instance() {
    let h = generate(&program(
        "{ x=0; y=0; }
 P0@cta 0,gpu 0  | P1@cta 0,gpu 0 | P2@cta 0,gpu 0 ;
 st.weak x, 1    | bar.cta.sync 0 | bar.cta.sync 0 ;
 bar.cta.sync 0  | ld.weak r0, x  | bar.cta.sync 1, 1, 2 ;
 bar.cta.sync 1, 1, 2 |          | ld.weak r1, y ;
exists (P1:r0 == 0)",
    ))
    .unwrap();
    assert_eq!(h.cta_barriers.ids, vec![vec![0], vec![1, 1]]);
    assert_eq!(
        h.cta_barriers.ipb_log2, 2,
        "15 / 2 barriers: 4 instances per block"
    );
    let s = &h.source;
    has(
        s,
        "const u32 slot = (threadIdx.x >> 5) % SLOTS, j = (threadIdx.x >> 5) / SLOTS;",
    );
    has(s, "(threadIdx.x & 31u) == 0u");
    // All three threads: 96 = 3 warps; the quorum of 2: 64.
    has(
        s,
        r#"asm volatile("bar.cta.sync %0, %1;" :: "r"(1u + jl * 2u + 0u), "r"(96u) : "memory");"#,
    );
    has(
        s,
        r#"asm volatile("bar.cta.sync %0, %1;" :: "r"(1u + jl * 2u + 1u), "r"(64u) : "memory");"#,
    );
}

#[test]
fn bar_arrive_counts_without_waiting() {
    let s = source(
        "{ x=0; }
 P0@cta 0,gpu 0   | P1@cta 0,gpu 0 ;
 st.weak x, 1     | bar.cta.sync 0 ;
 bar.cta.arrive 0 | ld.weak r0, x  ;
exists (P1:r0 == 0)",
    );
    has(
        &s,
        r#"bar.cta.arrive %0, %1;" :: "r"(1u + jl * 1u + 0u), "r"(64u)"#,
    );
}

#[test]
fn a_barrier_that_never_completes_is_refused() {
    refused(
        "{ x=0; y=0; }
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;
 bar.cta.sync 1 | bar.cta.sync 2 ;
 bar.cta.sync 2 | bar.cta.sync 1 ;
exists (x == 0)",
        "never completes (the GPU would hang",
    );
    refused(
        "{ x=0; }
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;
 bar.cta.sync 0 | ld.weak r0, x  ;
exists (P1:r0 == 0)",
        "never completes",
    );
}

#[test]
fn an_mbarrier_is_opaque_to_plain_accesses_and_conditions() {
    refused(
        "{ bar @ shared cta 0 = mbarrier 1; }
 P0@cta 0,gpu 0      | P1@cta 0,gpu 0 ;
 mbarrier.arrive bar | ld r0, bar     ;
exists (P1:r0 == 0)",
        "a plain access to `bar` is an mbarrier (PTX ISA, mbarrier",
    );
    refused(
        "{ bar @ shared cta 0 = mbarrier 1; }
 P0@cta 0,gpu 0      ;
 mbarrier.arrive bar ;
exists (bar == 0)",
        "the condition observes `bar` is an mbarrier",
    );
}

#[test]
fn a_cp_async_destination_read_by_another_cta_is_refused() {
    refused(
        "{ x=1; y=0; }
 P0@cta 0,gpu 0                    | P1@cta 1,gpu 0 ;
 cp.async.ca.shared.global y, x, 4 | ld.weak r0, y  ;
exists (P1:r0 == 1)",
        "cp.async destination",
    );
}

#[test]
fn clusters_beyond_the_portable_size_are_refused() {
    let threads: Vec<String> = (0..9)
        .map(|c| format!("P{c}@cta {c},cluster 0,gpu 0"))
        .collect();
    let body: Vec<String> = (0..9).map(|c| format!("ld.relaxed.gpu r{c}, x")).collect();
    refused(
        &format!(
            "{{ x = 0; }}\n {} ;\n {} ;\nexists (P0:r0 == 1)",
            threads.join(" | "),
            body.join(" | ")
        ),
        "a maximum of 8 thread blocks in a cluster",
    );
}

#[test]
fn classic_programs_keep_their_harness() {
    // No shared memory, cluster or barrier: the launch layout of earlier rounds, unchanged.
    let s = source(
        "{ x=0; y=0; }
 P0@cta 0,gpu 0         | P1@cta 1,gpu 0         ;
 st.relaxed.gpu x, 1    | ld.relaxed.gpu r0, y   ;
 st.relaxed.gpu y, 1    | ld.relaxed.gpu r1, x   ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)",
    );
    has(&s, "if (slot >= SLOTS || j >= ipb) return;");
    has(
        &s,
        "const u32 inst = perm(group * ipb + j, mix(seed ^ (0x100u + role)), mask, k);",
    );
    assert!(!s.contains("sh_base"), "{s}");
    assert!(!s.contains("__syncthreads"), "{s}");
}

#[test]
fn a_repeated_weak_load_gets_an_address_ptxas_cannot_merge() {
    let s = source(
        "{ x=0; f=0; }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.weak x, 1        | ld.weak r1, x        ;
 st.release.gpu f, 1 | ld.acquire.gpu r0, f ;
                     | ld.weak r2, x        ;
                     | ld.relaxed.gpu r3, x ;
exists (P1:r0 == 1 /\\ P1:r1 == 1 /\\ P1:r2 == 0)",
    );
    // The first weak load as written; the second's address carries an offset that is 0 at run
    // time (k ≤ 26) but unknown to ptxas; strong loads stay as they are.
    has(
        &s,
        r#"ld.weak.global.u32 %0, [%1];" : "=r"(r_r1) : "l"(L0) : "memory");"#,
    );
    has(
        &s,
        r#"ld.weak.global.u32 %0, [%1];" : "=r"(r_r2) : "l"(L0 + (k >> 5u) * 1u) : "memory");"#,
    );
    has(
        &s,
        r#"ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(r_r3) : "l"(L0) : "memory");"#,
    );
}
