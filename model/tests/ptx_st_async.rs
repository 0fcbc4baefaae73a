//! `st.async` and `red.async` in the PTX interpreter: every production of the PTX ISA's syntax
//! decodes (and round-trips through the printer), the forms outside it are refused with the
//! reason at their line, and small cluster kernels get the verdicts the ISA's sentences call
//! for ("The st.async operation is treated as a weak memory operation and the complete_tx
//! operation on the mbarrier has .release semantics at .cluster scope"). Timings are printed,
//! never asserted.

use scopecheck_model::kernel::{Checker, FailureKind, Verdict};
use scopecheck_model::ptx::launch::{check_ptx, Launch};
use scopecheck_model::ptx::program::Program;
use scopecheck_model::runtime::async_copy::RedAsyncOp;

const HEAD: &str = ".version 8.1\n.target sm_90\n.address_size 64\n";

fn module(instrs: &[String]) -> String {
    format!(
        "{HEAD}.visible .entry k()\n{{\n    .reg .b32 %r<9>;\n    .reg .b64 %rd<9>;\n    \
         .reg .f32 %f<3>;\n    .reg .f64 %fd<3>;\n    .shared .align 8 .b64 bar;\n    {}\n    \
         ret;\n}}\n",
        instrs.join("\n    ")
    )
}

/// Decode `instr` inside a kernel: `Ok` with the number of operations, or the error text.
fn decode(instr: &str) -> Result<usize, String> {
    let src = module(&[instr.to_string()]);
    let m = scopecheck_model::ptx::parse(&src, "test.ptx").map_err(|e| e.to_string())?;
    let p = Program::new(&m, "test.ptx").map_err(|e| e.to_string())?;
    Ok(p.funcs[0].code.len())
}

#[test]
fn every_st_async_production_decodes_and_round_trips() {
    let mut forms = Vec::new();
    for sem in ["", ".weak"] {
        for scope in ["", ".cluster"] {
            for ss in ["", ".shared::cluster"] {
                for (ty, reg) in [
                    ("b32", "%r1"),
                    ("u32", "%r1"),
                    ("s32", "%r1"),
                    ("f32", "%f1"),
                    ("b64", "%rd1"),
                    ("u64", "%rd1"),
                    ("s64", "%rd1"),
                    ("f64", "%fd1"),
                ] {
                    let head = format!("st.async{sem}{scope}{ss}.mbarrier::complete_tx::bytes");
                    forms.push(format!("{head}.{ty} [%r2], {reg}, [%r3];"));
                    forms.push(format!("{head}.v2.{ty} [%r2], {{{reg}, {reg}}}, [%r3];"));
                    forms.push(format!(
                        "{head}.v4.{ty} [%r2], {{{reg}, {reg}, {reg}, {reg}}}, [%r3];"
                    ));
                }
            }
        }
    }
    for f in &forms {
        assert_eq!(decode(f), Ok(2), "{f}");
    }
    round_trip(&forms);
}

#[test]
fn every_red_async_production_decodes_and_round_trips() {
    let pairs: &[(&str, &[&str])] = &[
        ("inc", &["u32"]),
        ("dec", &["u32"]),
        ("min", &["u32", "s32"]),
        ("max", &["u32", "s32"]),
        ("and", &["b32"]),
        ("or", &["b32"]),
        ("xor", &["b32"]),
        ("add", &["u32", "s32", "u64"]),
    ];
    assert_eq!(pairs.len(), RedAsyncOp::ALL.len());
    let mut forms = Vec::new();
    for (op, types) in pairs {
        for ty in *types {
            let reg = if *ty == "u64" { "%rd1" } else { "%r1" };
            for ss in ["", ".shared::cluster"] {
                forms.push(format!(
                    "red.async.relaxed.cluster{ss}.mbarrier::complete_tx::bytes.{op}.{ty} \
                     [%r2], {reg}, [%r3];"
                ));
            }
        }
    }
    for f in &forms {
        assert_eq!(decode(f), Ok(2), "{f}");
    }
    round_trip(&forms);
}

fn round_trip(forms: &[String]) {
    let src = module(forms);
    let first = scopecheck_model::ptx::parse(&src, "forms.ptx").unwrap();
    let printed = first.to_string();
    let second = scopecheck_model::ptx::parse(&printed, "forms.ptx")
        .unwrap_or_else(|e| panic!("printed text does not parse: {e}\n{printed}"));
    assert_eq!(printed, second.to_string());
    let ops = |m| -> Vec<_> {
        let p = Program::new(m, "forms.ptx").unwrap_or_else(|e| panic!("{e}"));
        p.funcs[0].code.iter().map(|s| s.op.clone()).collect()
    };
    assert_eq!(ops(&first), ops(&second));
}

#[test]
fn forms_outside_the_productions_are_refused_with_the_reason() {
    let c = ".mbarrier::complete_tx::bytes";
    let cases = [
        (
            format!("st.async.shared::cluster{c}.b16 [%r2], %r1, [%r3];"),
            ".type is one of",
        ),
        (
            format!("st.async.shared::cluster{c}.v2.u32 [%r2], %r1, [%r3];"),
            "needs 2 values",
        ),
        (
            format!("st.async.relaxed.shared::cluster{c}.u32 [%r2], %r1, [%r3];"),
            "`.relaxed`",
        ),
        (
            format!("st.async.shared::cta{c}.u32 [%r2], %r1, [%r3];"),
            "`.shared::cta`",
        ),
        (
            format!("st.async.shared::cluster{c}.u32 [%r2], %r1;"),
            "takes 3 operands",
        ),
        (
            "st.async.release.gpu.global.u32 [%rd1], %r1;".to_string(),
            "without .mbarrier",
        ),
        (
            format!("red.async.relaxed.cluster{c}.inc.s32 [%r2], %r1, [%r3];"),
            ".inc takes .u32",
        ),
        (
            format!("red.async.relaxed.cluster{c}.and.u32 [%r2], %r1, [%r3];"),
            ".and takes .b32",
        ),
        (
            format!("red.async.relaxed.cluster{c}.add.s64 [%r2], %rd1, [%r3];"),
            "not a PTX form",
        ),
        (
            format!("red.async.cluster{c}.add.u32 [%r2], %r1, [%r3];"),
            ".relaxed.cluster",
        ),
        (
            format!("red.async.relaxed.cluster{c}.u32 [%r2], %r1, [%r3];"),
            "needs an operation",
        ),
        (
            format!("red.async.relaxed.cluster{c}.v2.add.u32 [%r2], %r1, [%r3];"),
            "`.v2`",
        ),
    ];
    for (form, why) in cases {
        let e = decode(&form).expect_err(&form);
        assert!(e.contains("test.ptx:") && e.contains(why), "{form}: {e}");
    }
}

/// Rank 1 sends 7 into rank 0's `slot` with `@SEND@`, signalling rank 0's `bar`, which rank 0
/// armed for `@EXPECT@` bytes; rank 0 reads the slot around its `@WAIT@` (`@READ_FIRST@`: before
/// it), expecting `@VALUE@`, and traps on a wrong value; a trailing cluster barrier keeps rank 0 resident.
const PEER: &str = r#"
.visible .entry k()
{
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    .shared .align 8 .b64 bar;
    .shared .align 4 .u32 slot;
    mov.u32 %r1, %cluster_ctarank;
    mov.u32 %r2, bar;
    mov.u32 %r3, slot;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra $SYNC;
    st.shared.u32 [%r3], 5;
    mbarrier.init.shared::cta.b64 [%r2], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], @EXPECT@;
$SYNC:
    barrier.cluster.arrive.aligned;
    barrier.cluster.wait.aligned;
    @%p1 bra $SEND;
    @READ_FIRST@
$W:
    @WAIT@ %p2, [%r2], 0;
    @!%p2 bra $W;
    @READ_AFTER@
    setp.ne.s32 %p3, %r5, @VALUE@;
    @%p3 trap;
    bra $END;
$SEND:
    mapa.shared::cluster.u32 %r6, %r3, 0;
    mapa.shared::cluster.u32 %r7, %r2, 0;
    mov.u32 %r8, 7;
    @SEND@
$END:
    barrier.cluster.arrive.aligned;
    barrier.cluster.wait.aligned;
    ret;
}
"#;

const CLUSTER_WAIT: &str = "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64";
const CTA_WAIT: &str = "mbarrier.try_wait.parity.shared::cta.b64";
const ST: &str = "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r6], %r8, [%r7];";
const READ: &str = "ld.shared.u32 %r5, [%r3];";

fn peer(send: &str, expect: u32, wait: &str, read_first: bool, value: u32) -> Verdict {
    let (first, after) = if read_first { (READ, "") } else { ("", READ) };
    let body = PEER
        .replace("@SEND@", send)
        .replace("@EXPECT@", &expect.to_string())
        .replace("@WAIT@", wait)
        .replace("@READ_FIRST@", first)
        .replace("@READ_AFTER@", after)
        .replace("@VALUE@", &value.to_string());
    let src = format!("// scopecheck: --grid 2 --cluster 2\n{HEAD}{body}");
    let start = std::time::Instant::now();
    let r = check_ptx(&src, "test.ptx", &Launch::default(), &[], Checker::dfs())
        .unwrap_or_else(|e| panic!("{e}"));
    println!(
        "{}: {} executions in {:.3} s",
        r.kernel,
        r.executions,
        start.elapsed().as_secs_f64()
    );
    if r.passed() {
        assert!(r.complete, "{r}");
    }
    r.verdict()
}

#[test]
fn a_cluster_scope_wait_sees_the_st_async_store() {
    assert_eq!(peer(ST, 4, CLUSTER_WAIT, false, 7), Verdict::Pass);
}

#[test]
fn reading_before_the_wait_races_with_the_st_async_store() {
    let v = peer(ST, 4, CLUSTER_WAIT, true, 7);
    assert!(
        matches!(
            v,
            Verdict::Fail(FailureKind::DataRace | FailureKind::Assertion)
        ),
        "{v:?}"
    );
}

#[test]
fn a_cta_scope_wait_does_not_acquire_the_remote_complete_tx() {
    assert_eq!(
        peer(ST, 4, CTA_WAIT, false, 7),
        Verdict::Fail(FailureKind::DataRace)
    );
}

#[test]
fn expecting_more_bytes_than_stored_is_a_hang() {
    assert_eq!(
        peer(ST, 8, CLUSTER_WAIT, false, 7),
        Verdict::Fail(FailureKind::Hang)
    );
}

#[test]
fn red_async_reduces_the_peer_slot_and_completes_its_bytes() {
    let c = "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes";
    // The slot holds 5 before the reduction; the operand is 7.
    for (op, ty, want) in [
        ("add", "u32", 12),
        ("min", "u32", 5),
        ("max", "s32", 7),
        ("inc", "u32", 6),
        ("dec", "u32", 4),
        ("and", "b32", 5),
        ("or", "b32", 7),
        ("xor", "b32", 2),
    ] {
        let send = format!("{c}.{op}.{ty} [%r6], %r8, [%r7];");
        assert_eq!(
            peer(&send, 4, CLUSTER_WAIT, false, want),
            Verdict::Pass,
            "{op}.{ty}"
        );
    }
}

#[test]
fn a_vector_st_async_completes_the_bytes_of_all_its_elements() {
    // Two elements, 8 bytes: the phase armed for 8 completes with the one store.
    let send =
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.u32 [%r6], {%r8, %r8}, [%r7];";
    let body = PEER
        .replace("@SEND@", send)
        .replace("@EXPECT@", "8")
        .replace("@WAIT@", CLUSTER_WAIT)
        .replace("@READ_FIRST@", "")
        .replace("@READ_AFTER@", READ)
        .replace("@VALUE@", "7")
        .replace(
            ".shared .align 4 .u32 slot;",
            ".shared .align 8 .u32 slot[2];",
        );
    let src = format!("// scopecheck: --grid 2 --cluster 2\n{HEAD}{body}");
    let r = check_ptx(&src, "test.ptx", &Launch::default(), &[], Checker::dfs())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(r.passed() && r.complete, "{r}");
}
