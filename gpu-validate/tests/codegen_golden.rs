//! Golden checks on the generated harness: the exact PTX forms, the observables and the
//! classifier, with no GPU needed.

use scopecheck_gpu::codegen::{generate, Observable};
use scopecheck_model::litmus::parse;

fn shape(name: &str) -> scopecheck_model::litmus::Program {
    let path = format!(
        "{}/../corpus/gpu-shapes/{name}.litmus",
        env!("CARGO_MANIFEST_DIR")
    );
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    parse(&src, &path).unwrap_or_else(|e| panic!("{e}"))
}

fn has(source: &str, line: &str) {
    assert!(
        source.contains(line),
        "generated source lacks `{line}`:\n{source}"
    );
}

#[test]
fn message_passing_relaxed_gpu_keeps_the_exact_instruction_forms() {
    let h = generate(&shape("MP-relaxed-gpu")).expect("MP runs on the GPU");
    assert_eq!(
        h.roles,
        vec![vec![0], vec![1]],
        "P0 and P1 sit in different CTAs"
    );
    assert_eq!(h.slots, 1);
    let s = &h.source;
    // P0 stores x (L0) then y (L1); P1 loads y then x, each an `asm volatile` of the litmus form.
    has(
        s,
        r#"asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" :: "l"(L0), "r"((1)) : "memory");"#,
    );
    has(
        s,
        r#"asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" :: "l"(L1), "r"((1)) : "memory");"#,
    );
    has(
        s,
        r#"asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(r_r0) : "l"(L1) : "memory");"#,
    );
    has(
        s,
        r#"asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(r_r1) : "l"(L0) : "memory");"#,
    );
    // Every loaded register is stored, so ptxas cannot delete the loads.
    has(s, "out[0] = r_r0;");
    has(s, "out[1] = r_r1;");
    // One counter per final state of (P1:r0, P1:r1): two key bytes.
    assert_eq!(
        h.observables,
        vec![
            Observable::Reg(1, "r0".parse_reg()),
            Observable::Reg(1, "r1".parse_reg())
        ]
    );
    has(s, "key |= (u64)(v & 0xff) << 0; }");
    has(s, "key |= (u64)(v & 0xff) << 8; }");
    has(s, "count_outcome(keys, counts, lost, key);");
    // Locations sit at permuted (unless turned off), strided slots and are reset to their
    // initial values.
    has(
        s,
        "u32* L1 = mem + ((u64)1u * n + (loc_perm ? perm(inst, mix(seed ^ 0x201u), mask, k) : inst)) * stride;",
    );
    // P1 may spin on y until it reads 1 (the condition pins P1:r0 to 1); a reader that gives up
    // is flagged, not classified.
    has(s, "while (r_r0 != (1) && ++spins_ < spin_bound);");
    has(s, "if (r_r0 != (1)) out[SPIN_WORD] = 1;");
    // With spinning off the load stands alone: no branch on its value delays P1's second load.
    has(
        s,
        r#"} else { asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(r_r0) : "l"(L1) : "memory"); }"#,
    );
    has(s, "if (out[SPIN_WORD]) key = 4ull << 56;");
    has(s, "*L0 = 0u; // x");
    has(s, "*L1 = 0u; // y");
}

#[test]
fn release_acquire_and_fences_keep_their_scopes() {
    let s = generate(&shape("MP-rel-acq-gpu")).unwrap().source;
    has(s.as_str(), "st.release.gpu.global.u32 [%0], %1;");
    has(s.as_str(), "ld.acquire.gpu.global.u32 %0, [%1];");
    let s = generate(&shape("MP-rel-acq-cta")).unwrap();
    assert_eq!(s.roles, vec![vec![0, 1]], "same CTA: one role, two slots");
    has(&s.source, "st.release.cta.global.u32");
    let s = generate(&shape("SB-fence-sc-gpu")).unwrap().source;
    has(&s, r#"asm volatile("fence.sc.gpu;" ::: "memory");"#);
    let s = generate(&shape("MP-weak")).unwrap().source;
    has(&s, "ld.weak.global.u32");
    has(&s, "st.weak.global.u32");
}

#[test]
fn final_locations_are_observed_from_memory() {
    let h = generate(&shape("2+2W-relaxed-gpu")).unwrap();
    assert_eq!(h.observables, vec![Observable::Loc(0), Observable::Loc(1)]);
    has(&h.source, "{ int v = (int)*L0; // x");
}

#[test]
fn rmw_branches_and_unsupported_features() {
    let src = "PTX T\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n atom.acq_rel.gpu.sub r0, x, 1 | LC: ;\n red.relaxed.gpu.add y, 2 | ld.relaxed.gpu r1, y ;\n atom.relaxed.gpu.cas r2, x, 0, 1 | beq r1, 0, LC ;\nexists (P1:r1 == 2)\n";
    let p = parse(src, "t.litmus").unwrap_or_else(|e| panic!("{e}"));
    let s = generate(&p).unwrap().source;
    has(&s, "atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;");
    has(&s, "(int)(0u - (u32)(1))");
    has(&s, "red.relaxed.gpu.global.add.u32 [%0], %1;");
    has(&s, "atom.relaxed.gpu.global.cas.b32 %0, [%1], %2, %3;");
    has(
        &s,
        "if (((int)r_r1 == (int)(0))) { if (++steps > STEP_LIMIT) goto P1_done; goto P1_LC; }",
    );

    // A CTA barrier both threads reach runs (see `ctabar`); one that one thread never reaches
    // would hang the GPU and is refused.
    let bar = "PTX B\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n bar.cta.sync 0 | bar.cta.sync 0 ;\nexists (x == 0)\n";
    let s = generate(&parse(bar, "b.litmus").unwrap()).unwrap().source;
    has(&s, "bar.cta.sync %0, %1;");
    let hang = bar.replace("| bar.cta.sync 0 ;", "| ld.weak r0, x ;");
    let err = generate(&parse(&hang, "h.litmus").unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("unsupported on GPU: ") && err.contains("never completes"),
        "{err}"
    );
}

#[test]
fn roles_are_per_gpu_and_cta_and_each_gpu_runs_its_own_roles() {
    let one = generate(&shape("MP-relaxed-gpu")).unwrap();
    assert_eq!((one.devices(), one.device_roles(0)), (1, (0, 2)));
    has(
        &one.source,
        "const u32 role = role_base + blockIdx.x % role_count, group = blockIdx.x / role_count;",
    );
    let gpus = "PTX G\n{ x=0; }\n P0@cta 0,gpu 1 | P1@cta 0,gpu 0 ;\n st.relaxed.sys x, 1 | ld.relaxed.sys r0, x ;\nexists (P1:r0 == 1)\n";
    let two = generate(&parse(gpus, "g.litmus").unwrap()).unwrap();
    // P1 (gpu 0) is device 0's role, P0 (gpu 1) device 1's; the start barrier is system-wide.
    assert_eq!(
        (two.devices(), two.device_roles(0), two.device_roles(1)),
        (2, (0, 1), (1, 1))
    );
    assert_eq!(two.roles, vec![vec![1], vec![0]]);
    has(&two.source, "#define SYS_BARRIER 1");
    has(&one.source, "#define SYS_BARRIER 0");
}

#[test]
fn weak_rmws_run_as_relaxed_gpu_and_wide_conditions_pack_smaller_values() {
    use scopecheck_model::litmus::Instr;
    use scopecheck_model::scope::Order;
    // PTX's own default for an unqualified `atom` is `.relaxed.gpu`.
    let mut p = parse(
        "PTX W\n{ x=0; }\n P0@cta 0,gpu 0 ;\n atom.relaxed.gpu.add r0, x, 1 ;\nexists (P0:r0 == 0)\n",
        "w.litmus",
    )
    .unwrap();
    if let Instr::Atom { access, .. } = &mut p.threads[0].body[0].instr {
        access.order = Order::Weak;
        access.scope = None;
    }
    has(
        &generate(&p).unwrap().source,
        "atom.relaxed.gpu.global.add.u32",
    );
    // Twelve observed registers: four bits each.
    let mut src = String::from("PTX R\n{ x=0; }\n P0@cta 0,gpu 0 ;\n");
    for i in 0..12 {
        src.push_str(&format!(" ld.relaxed.gpu r{i}, x ;\n"));
    }
    let cond: Vec<String> = (0..12).map(|i| format!("P0:r{i} == 0")).collect();
    src.push_str(&format!("exists ({})\n", cond.join(" /\\ ")));
    let h = generate(&parse(&src, "r.litmus").unwrap_or_else(|e| panic!("{e}"))).unwrap();
    assert_eq!(h.observables.len(), 12);
    has(&h.source, "wide |= v < (-8) || v > 7;");
    has(&h.source, "key |= (u64)(v & 0xf) << 44; }");
}

trait ParseReg {
    fn parse_reg(self) -> scopecheck_model::litmus::Reg;
}
impl ParseReg for &str {
    fn parse_reg(self) -> scopecheck_model::litmus::Reg {
        scopecheck_model::litmus::Reg(self.to_string())
    }
}

#[test]
fn non_coherent_loads_run_as_ld_global_nc_and_other_texture_accesses_are_refused() {
    let nc = "PTX NC\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\n ld.global.nc r0, x ;\nexists (P0:r0 == 0)\n";
    let s = generate(&parse(nc, "nc.litmus").unwrap_or_else(|e| panic!("{e}")))
        .expect("ld.global.nc runs on the GPU")
        .source;
    has(&s, "asm volatile(\"ld.global.nc.u32 %0, [%1];\"");
    has(&s, "asm volatile(\"st.weak.global.u32 [%0], %1;\"");

    let cp = "PTX CP\n{ x=0; y=0; }\n P0@cta 0,gpu 0 ;\n cp.async.ca.shared.global y, x, 4 ;\n cp.async.wait_all ;\nexists (y == 0)\n";
    // cp.async runs: its destination moves to the thread's shared memory.
    let s = generate(&parse(cp, "cp.litmus").unwrap_or_else(|e| panic!("{e}")))
        .expect("cp.async runs on the GPU")
        .source;
    assert!(
        s.contains("cp.async.ca.shared.global [%0], [%1], 4;"),
        "{s}"
    );
}

#[test]
fn warp_barriers_run_on_adjacent_lanes_and_unmatched_masks_are_refused() {
    let mp = "PTX W\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 0,gpu 0 ;\n st.weak x, 1 | bar.warp.sync 0x3 | st.weak x, 2 ;\n bar.warp.sync 0x3 | ld.weak r0, x | ;\nexists (P1:r0 == 0)\n";
    let h = generate(&parse(mp, "w.litmus").unwrap_or_else(|e| panic!("{e}")))
        .expect("a matched bar.warp.sync runs on the GPU");
    assert!(h.warp_lanes);
    assert_eq!(h.slots, 4, "three lanes padded to a power of two");
    has(
        &h.source,
        "const u32 lane_base = (threadIdx.x & 31u) - slot;",
    );
    has(
        &h.source,
        "asm volatile(\"bar.warp.sync %0;\" :: \"r\"(0x3u << lane_base) : \"memory\");",
    );

    for (body, why) in [
        (
            " bar.warp.sync 0x3 | st.weak x, 1 ;\n",
            "does not execute the same warp-level instructions",
        ),
        (
            " bar.warp.sync 0x3 | LC: ;\n | bar.warp.sync 0x3 ;\n | ld.weak r0, x ;\n | beq r0, 1, LC ;\n",
            "branches",
        ),
        // Matched per mask, yet lanes 0 and 1 wait for each other at different instructions.
        (
            " bar.warp.sync 0x7 | shfl.sync.idx.b32 r1, 1, 0, 0x1f, 0x3 | bar.warp.sync 0x7 ;\n shfl.sync.idx.b32 r1, 1, 0, 0x1f, 0x3 | bar.warp.sync 0x7 | ;\n",
            "waits forever",
        ),
    ] {
        let threads = if body.matches('|').count() > body.lines().count() {
            " P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 0,gpu 0 ;\n"
        } else {
            " P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n"
        };
        let src = format!("PTX U\n{{ x=0; }}\n{threads}{body}exists (x == 0)\n");
        let err = generate(&parse(&src, "u.litmus").unwrap_or_else(|e| panic!("{e}")))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("unsupported on GPU: ") && err.contains(why),
            "{body}: {err}"
        );
    }
}

/// Warp exchanges run as the instruction written (not their lowering), on the lanes
/// `lane_base ..` of one warp: masks shifted there, a shuffle as `.idx` of the source lane its
/// litmus form picks, returned lane masks shifted back; lanes whose exchanges differ (PTX waits
/// for "the same qualifiers and same membermask value") are refused.
#[test]
fn warp_exchanges_run_as_written_on_adjacent_lanes() {
    let src = "PTX X\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n \
               ld.weak r0, x | ld.weak r0, x ;\n \
               shfl.sync.bfly.b32 r1, r0, 1, 0x1f, 0x3 | shfl.sync.bfly.b32 r1, 7, 1, 0x1f, 0x3 ;\n \
               vote.sync.ballot.b32 r2, r0, 0x3 | vote.sync.ballot.b32 r2, 1, 0x3 ;\n \
               vote.sync.uni.pred r3, r0, 0x3 | vote.sync.uni.pred r3, 1, 0x3 ;\n \
               match.any.sync.b32 r4, r0, 0x3 | match.any.sync.b32 r4, 7, 0x3 ;\n\
               exists (P0:r1 == 7 /\\ P1:r2 == 2)\n";
    let h = generate(&parse(src, "x.litmus").unwrap_or_else(|e| panic!("{e}")))
        .expect("matched exchanges run on the GPU");
    assert!(h.warp_lanes);
    // Lane 0 reads lane 0 ^ 1, lane 1 reads lane 1 ^ 1.
    has(
        &h.source,
        "asm volatile(\"shfl.sync.idx.b32 %0, %1, %2, 0x1f, %3;\" : \"=r\"(r_r1) : \"r\"(r_r0), \"r\"(lane_base + 1u), \"r\"(0x3u << lane_base) : \"memory\");",
    );
    has(
        &h.source,
        "asm volatile(\"shfl.sync.idx.b32 %0, %1, %2, 0x1f, %3;\" : \"=r\"(r_r1) : \"r\"((7)), \"r\"(lane_base + 0u), \"r\"(0x3u << lane_base) : \"memory\");",
    );
    has(&h.source, "vote.sync.ballot.b32 %0, p, %2; }\" : \"=r\"(ballot_) : \"r\"(r_r0), \"r\"(0x3u << lane_base) : \"memory\"); r_r2 = (int)(ballot_ >> lane_base); }");
    has(
        &h.source,
        "vote.sync.uni.pred q, p, %2; selp.s32 %0, 1, 0, q; }\" : \"=r\"(r_r3)",
    );
    has(&h.source, "match.any.sync.b32 %0, %1, %2;\" : \"=r\"(match_) : \"r\"((7)), \"r\"(0x3u << lane_base) : \"memory\"); r_r4 = (int)(match_ >> lane_base); }");
    // Nothing of the lowering (slots, exchange barriers) reaches the kernel's code.
    assert!(!h.source.contains("bar.sync"), "{}", h.source);
    assert!(!h.source.contains("red."), "{}", h.source);

    let mixed = src.replace(
        "vote.sync.uni.pred r3, 1, 0x3",
        "vote.sync.all.pred r3, 1, 0x3",
    );
    let err = generate(&parse(&mixed, "m.litmus").unwrap_or_else(|e| panic!("{e}")))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("does not execute the same warp-level instructions"),
        "{err}"
    );
}
