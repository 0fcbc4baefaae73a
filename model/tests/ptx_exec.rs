//! The PTX interpreter end to end: hand-written PTX kernels parsed, launched and checked on the
//! runtime (`scopecheck_model::ptx::launch`). Timings are printed, never asserted.

use crate::ptx_support::{check, verdict};
use scopecheck_model::kernel::{FailureKind, Verdict};
use std::time::Instant;

/// Message passing between two blocks: block 0 writes data then the flag, block 1 reads the
/// flag then the data. `FLAG_ST`/`FLAG_LD` are the flag's store and load.
fn mp(flag_st: &str, flag_ld: &str) -> String {
    format!(
        r#"
.visible .entry mp(.param .u64 data, .param .u64 flag)
{{
    .reg .pred %p<3>;
    .reg .b32 %r<5>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [data];
    ld.param.u64 %rd2, [flag];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %ctaid.x;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra $READER;
    mov.u32 %r2, 42;
    st.global.u32 [%rd1], %r2;
    mov.u32 %r2, 1;
    {flag_st} [%rd2], %r2;
    ret;
$READER:
    {flag_ld} %r3, [%rd2];
    setp.ne.s32 %p2, %r3, 1;
    @%p2 bra $DONE;
    ld.global.u32 %r4, [%rd1];
    setp.ne.s32 %p2, %r4, 42;
    @%p2 trap;
$DONE:
    ret;
}}
"#
    )
}

const MP_FLAGS: &str = "--grid 2 --block 1 --arg data=u32[1] --arg flag=u32[1]";

#[test]
fn message_passing_release_acquire_is_verified() {
    let r = check(
        MP_FLAGS,
        &mp("st.release.gpu.global.u32", "ld.acquire.gpu.global.u32"),
    )
    .unwrap();
    assert!(r.passed() && r.complete, "{r}");
}

#[test]
fn message_passing_with_weak_flag_races() {
    let v = verdict(MP_FLAGS, &mp("st.global.u32", "ld.global.u32"));
    assert_eq!(v, Verdict::Fail(FailureKind::DataRace));
}

#[test]
fn message_passing_at_cta_scope_is_a_scoped_race() {
    let v = verdict(
        MP_FLAGS,
        &mp("st.release.cta.global.u32", "ld.acquire.cta.global.u32"),
    );
    assert!(
        matches!(v, Verdict::Fail(FailureKind::ScopedRace { .. })),
        "{v:?}"
    );
}

#[test]
fn message_passing_with_relaxed_flag_and_fences_is_verified() {
    // fence.acq_rel.gpu before the relaxed store and after the relaxed load: the fences
    // synchronize through the morally strong flag accesses.
    let body = mp(
        "fence.acq_rel.gpu;\n    st.relaxed.gpu.global.u32",
        "ld.relaxed.gpu.global.u32",
    )
    .replace(
        "setp.ne.s32 %p2, %r3, 1;",
        "fence.acq_rel.gpu;\n    setp.ne.s32 %p2, %r3, 1;",
    );
    let r = check(MP_FLAGS, &body).unwrap();
    assert!(r.passed() && r.complete, "{r}");
}

/// Every thread writes `tid + 1` to shared memory; thread 0 sums after the barrier and writes
/// the sum out, trapping if it is not `n(n+1)/2`.
fn reduction(barrier: &str) -> String {
    format!(
        r#"
.visible .entry reduce(.param .u64 out)
{{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<6>;
    .shared .align 4 .b8 buf[16];
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    add.s32 %r2, %r1, 1;
    mov.u32 %r3, buf;
    shl.b32 %r4, %r1, 2;
    add.s32 %r5, %r3, %r4;
    st.shared.u32 [%r5], %r2;
    {barrier}
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra $END;
    mov.u32 %r6, 0;
    mov.u32 %r7, 0;
$LOOP:
    shl.b32 %r8, %r7, 2;
    add.s32 %r8, %r3, %r8;
    ld.shared.u32 %r9, [%r8];
    add.s32 %r6, %r6, %r9;
    add.s32 %r7, %r7, 1;
    setp.lt.u32 %p2, %r7, 4;
    @%p2 bra $LOOP;
    setp.ne.s32 %p2, %r6, 10;
    @%p2 trap;
    st.global.u32 [%rd1], %r6;
$END:
    ret;
}}
"#
    )
}

#[test]
fn syncthreads_reduction_is_verified() {
    let r = check("--block 4 --arg out=u32[1]", &reduction("bar.sync 0;")).unwrap();
    assert!(r.passed() && r.complete, "{r}");
}

#[test]
fn reduction_without_barrier_races_or_reads_uninitialised() {
    let v = verdict("--block 4 --arg out=u32[1]", &reduction(""));
    assert!(
        matches!(
            v,
            Verdict::Fail(FailureKind::DataRace | FailureKind::UninitializedRead)
        ),
        "{v:?}"
    );
}

#[test]
fn barrier_in_divergent_code_is_divergence() {
    let body = reduction("setp.eq.s32 %p2, %r1, 3;\n    @%p2 bra $SKIP;\n    bar.sync 0;\n$SKIP:");
    let v = verdict("--block 4 --arg out=u32[1]", &body);
    assert!(
        matches!(
            v,
            Verdict::Fail(FailureKind::BarrierDivergence | FailureKind::Hang)
        ),
        "{v:?}"
    );
}

#[test]
fn warp_shuffle_vote_and_redux() {
    // Two lanes (a mask of 0b11), few warp operations: each is a meeting of both lanes.
    let body = r#"
.visible .entry warpsum()
{
    .reg .pred %p<3>;
    .reg .b32 %r<10>;
    mov.u32 %r1, %laneid;
    add.s32 %r2, %r1, 1;
    shfl.sync.bfly.b32 %r3|%p1, %r2, 1, 31, 3;
    add.s32 %r2, %r2, %r3;
    setp.ne.s32 %p2, %r2, 3;
    @%p2 trap;
    @!%p1 trap;
    shfl.sync.up.b32 %r5|%p1, %r1, 1, 0, 3;
    setp.eq.s32 %p2, %r1, 0;
    xor.pred %p2, %p2, %p1;
    @!%p2 trap;
    setp.lt.u32 %p1, %r1, 1;
    vote.sync.ballot.b32 %r7, %p1, 3;
    setp.ne.s32 %p2, %r7, 1;
    @%p2 trap;
    redux.sync.add.u32 %r8, %r2, 3;
    setp.ne.s32 %p2, %r8, 6;
    @%p2 trap;
    ret;
}
"#;
    let r = check("--block 2", body).unwrap();
    assert!(r.passed() && r.complete, "{r}");
    // A lane reading a lane outside the mask is warp misuse.
    let bad = body.replace("%r3|%p1, %r2, 1, 31, 3", "%r3|%p1, %r2, 1, 31, 1");
    let v = check("--block 2", &bad).unwrap().verdict();
    assert_eq!(v, Verdict::Fail(FailureKind::WarpMisuse));
}

fn spin_lock(acquire: &str, release: &str) -> String {
    format!(
        r#"
.visible .entry lock(.param .u64 lock, .param .u64 count)
{{
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [lock];
    ld.param.u64 %rd2, [count];
$SPIN:
    atom.{acquire}.gpu.global.cas.b32 %r1, [%rd1], 0, 1;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra $SPIN;
    ld.global.u32 %r2, [%rd2];
    add.s32 %r2, %r2, 1;
    st.global.u32 [%rd2], %r2;
    st.{release}.gpu.global.u32 [%rd1], 0;
    ret;
}}
"#
    )
}

#[test]
fn spin_lock_is_verified_and_relaxed_lock_races() {
    let flags = "--grid 2 --arg lock=u32[1] --arg count=u32[1]";
    let r = check(flags, &spin_lock("acquire", "release")).unwrap();
    assert!(r.passed() && r.complete, "{r}");
    let v = verdict(flags, &spin_lock("relaxed", "relaxed"));
    assert_eq!(v, Verdict::Fail(FailureKind::DataRace));
}

#[test]
fn spinning_on_a_flag_nobody_sets_is_a_hang() {
    let body = r#"
.visible .entry wait(.param .u64 flag)
{
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [flag];
$SPIN:
    ld.acquire.gpu.global.u32 %r1, [%rd1];
    setp.eq.s32 %p1, %r1, 0;
    @%p1 bra $SPIN;
    ret;
}
"#;
    let v = verdict("--arg flag=u32[1]", body);
    assert_eq!(v, Verdict::Fail(FailureKind::Hang));
}

#[test]
fn out_of_bounds_is_its_own_failure() {
    let body = r#"
.visible .entry oob(.param .u64 buf)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [buf];
    mov.u32 %r1, 7;
    st.global.u32 [%rd1+16], %r1;
    ret;
}
"#;
    let r = check("--arg buf=u32[4]", body).unwrap();
    assert_eq!(r.verdict(), Verdict::Fail(FailureKind::OutOfBounds), "{r}");
    let text = r.to_string();
    assert!(text.contains("buf"), "{text}");
}

#[test]
fn uninitialised_shared_read_is_its_own_failure() {
    let body = r#"
.visible .entry uninit(.param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    .shared .align 4 .u32 s;
    ld.param.u64 %rd1, [out];
    ld.shared.u32 %r1, [s];
    st.global.u32 [%rd1], %r1;
    ret;
}
"#;
    let v = verdict("--arg out=u32[1]", body);
    assert_eq!(v, Verdict::Fail(FailureKind::UninitializedRead));
}

#[test]
fn partial_element_access_is_an_error_not_a_verdict() {
    let body = r#"
.visible .entry part(.param .u64 buf)
{
    .reg .b16 %h<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [buf];
    mov.b16 %h1, 1;
    st.global.u16 [%rd1+2], %h1;
    ret;
}
"#;
    let e = check("--arg buf=u32[1]", body).unwrap_err();
    assert!(e.contains("whole elements"), "{e}");
}

#[test]
fn unknown_instruction_names_it_and_its_line() {
    let body = ".visible .entry k()\n{\n    frobnicate.b32 %r1;\n    ret;\n}\n";
    let e = check("", body).unwrap_err();
    // Line 1 is the flags comment, 2-4 the header, so `frobnicate` is on line 7.
    assert!(
        e.contains("test.ptx:7:5") && e.contains("frobnicate"),
        "{e}"
    );
}

#[test]
fn cuda_lines_name_the_reported_events() {
    let body = r#"
.file 1 "mp.cu"
.visible .entry k(.param .u64 x)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [x];
    .loc 1 12 5
    st.global.u32 [%rd1], %r1;
    ret;
}
"#;
    let r = check("--grid 2 --arg x=u32[1]", body).unwrap();
    assert_eq!(r.verdict(), Verdict::Fail(FailureKind::DataRace));
    let text = r.to_string();
    assert!(text.contains("mp.cu:12 (test.ptx:"), "{text}");
}

#[test]
fn missing_pointer_argument_is_an_error() {
    let e = check("--grid 2", &mp("st.global.u32", "ld.global.u32")).unwrap_err();
    assert!(e.contains("has no --arg"), "{e}");
}

#[test]
fn func_calls_pass_params_and_returns() {
    let body = r#"
.func (.param .b32 ret) twice(.param .b32 x)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [x];
    add.s32 %r2, %r1, %r1;
    st.param.b32 [ret], %r2;
    ret;
}
.visible .entry k()
{
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    mov.u32 %r1, 21;
    {
    .param .b32 param0;
    st.param.b32 [param0], %r1;
    .param .b32 retval0;
    call.uni (retval0), twice, (param0);
    ld.param.b32 %r2, [retval0];
    }
    setp.ne.s32 %p1, %r2, 42;
    @%p1 trap;
    ret;
}
"#;
    let r = check("", body).unwrap();
    assert!(r.passed(), "{r}");
}

/// Per-instruction semantics: each line computes a value and traps when it is not the one the
/// PTX ISA gives.
#[test]
fn arithmetic_semantics() {
    let cases: &[(&str, &str, u64)] = &[
        ("add.s32 %r1, 5, -7;", "%r1", (-2i32) as u32 as u64),
        ("sub.u32 %r1, 3, 5;", "%r1", 0xffff_fffe),
        ("add.sat.s32 %r1, 2147483647, 1;", "%r1", 0x7fff_ffff),
        ("mul.lo.s32 %r1, 100000, 100000;", "%r1", 1_410_065_408),
        ("mul.hi.u32 %r1, -1, 2;", "%r1", 1),
        ("mul.wide.s32 %rd1, -2, 3;", "%rd1", (-6i64) as u64),
        ("mul.wide.u32 %rd1, -1, 2;", "%rd1", 0x1_ffff_fffe),
        ("mad.lo.s32 %r1, 3, 4, 5;", "%r1", 17),
        ("mad.wide.u32 %rd1, 65536, 65536, 1;", "%rd1", 0x1_0000_0001),
        ("div.s32 %r1, -7, 2;", "%r1", (-3i32) as u32 as u64),
        ("div.u32 %r1, 7, 2;", "%r1", 3),
        ("rem.s32 %r1, -7, 2;", "%r1", (-1i32) as u32 as u64),
        ("rem.u32 %r1, 7, 4;", "%r1", 3),
        ("shl.b32 %r1, 1, 4;", "%r1", 16),
        ("shr.s32 %r1, -16, 2;", "%r1", (-4i32) as u32 as u64),
        ("shr.u32 %r1, -16, 28;", "%r1", 15),
        ("and.b32 %r1, 12, 10;", "%r1", 8),
        ("or.b32 %r1, 12, 10;", "%r1", 14),
        ("xor.b32 %r1, 12, 10;", "%r1", 6),
        ("not.b32 %r1, 0;", "%r1", 0xffff_ffff),
        ("cnot.b32 %r1, 5;", "%r1", 0),
        ("neg.s32 %r1, 5;", "%r1", (-5i32) as u32 as u64),
        ("abs.s32 %r1, -5;", "%r1", 5),
        ("min.s32 %r1, -1, 1;", "%r1", (-1i32) as u32 as u64),
        ("max.u32 %r1, -1, 1;", "%r1", 0xffff_ffff),
        ("popc.b32 %r1, 255;", "%r1", 8),
        ("clz.b32 %r1, 1;", "%r1", 31),
        ("brev.b32 %r1, 1;", "%r1", 0x8000_0000),
        ("bfe.u32 %r1, 0xabcd, 4, 8;", "%r1", 0xbc),
        ("bfe.s32 %r1, 0x80, 4, 4;", "%r1", 0xffff_fff8),
        ("bfi.b32 %r1, 15, 0, 4, 4;", "%r1", 0xf0),
        (
            "prmt.b32 %r1, 0x44332211, 0x88776655, 0x7654;",
            "%r1",
            0x8877_6655,
        ),
        ("cvt.s64.s32 %rd1, -1;", "%rd1", u64::MAX),
        ("cvt.u8.u32 %r1, 0x1ff;", "%r1", 0xff),
        ("cvt.sat.s8.s32 %r1, 300;", "%r1", 127),
        ("cvt.rn.f32.s32 %f1, -3;", "%f1", (-3.0f32).to_bits() as u64),
        (
            "cvt.rzi.s32.f32 %r1, 0fC0200000;",
            "%r1",
            (-2i32) as u32 as u64,
        ),
        (
            "cvt.rmi.s32.f32 %r1, 0fC0200000;",
            "%r1",
            (-3i32) as u32 as u64,
        ),
        (
            "add.f32 %f1, 0f3FC00000, 0f40000000;",
            "%f1",
            3.5f32.to_bits() as u64,
        ),
        (
            "mul.rn.f32 %f1, 0f3FC00000, 0f40000000;",
            "%f1",
            3.0f32.to_bits() as u64,
        ),
        (
            "fma.rn.f32 %f1, 0f3FC00000, 0f40000000, 0f3F800000;",
            "%f1",
            4.0f32.to_bits() as u64,
        ),
        (
            "div.rn.f32 %f1, 0f3F800000, 0f40800000;",
            "%f1",
            0.25f32.to_bits() as u64,
        ),
        ("selp.b32 %r1, 7, 9, %p3;", "%r1", 9),
        ("slct.s32.s32 %r1, 7, 9, -1;", "%r1", 9),
        ("mov.b64 %rd1, {%r8, %r9};", "%rd1", 0x0000_0002_0000_0001),
        (
            "mov.b64 {%r1, %r2}, 0x0000000500000004; add.s32 %r1, %r1, %r2;",
            "%r1",
            9,
        ),
        ("setp.lt.s32 %p1, -1, 0; selp.u32 %r1, 1, 0, %p1;", "%r1", 1),
        ("setp.lt.u32 %p1, -1, 0; selp.u32 %r1, 1, 0, %p1;", "%r1", 0),
        (
            "setp.eq.and.s32 %p1|%p2, 1, 1, %p3; selp.u32 %r1, 1, 0, %p2;",
            "%r1",
            0,
        ),
        (
            "setp.eq.or.s32 %p1|%p2, 1, 2, %p4; selp.u32 %r1, 1, 0, %p1;",
            "%r1",
            1,
        ),
        ("and.pred %p1, %p3, %p4; selp.u32 %r1, 1, 0, %p1;", "%r1", 0),
        ("xor.pred %p1, %p3, %p4; selp.u32 %r1, 1, 0, %p1;", "%r1", 1),
        ("mov.u32 %r1, %lanemask_lt;", "%r1", 0),
        ("mov.u32 %r1, %ntid.x;", "%r1", 1),
        ("mov.u32 %r1, WARP_SZ;", "%r1", 32),
    ];
    for (code, reg, want) in cases {
        let (ty, cmp) = if reg.starts_with("%rd") {
            ("u64", "setp.ne.u64")
        } else if reg.starts_with("%f") {
            ("b32", "setp.ne.b32")
        } else {
            ("u32", "setp.ne.u32")
        };
        let _ = ty;
        let body = format!(
            r#"
.visible .entry arith()
{{
    .reg .pred %p<6>;
    .reg .b32 %r<10>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<3>;
    setp.eq.u32 %p3, 0, 1;
    setp.eq.u32 %p4, 1, 1;
    mov.u32 %r8, 1;
    mov.u32 %r9, 2;
    {code}
    {cmp} %p5, {reg}, {want};
    @%p5 trap;
    ret;
}}
"#
        );
        match check("", &body) {
            Ok(r) => assert!(r.passed(), "`{code}` should give {want:#x}: {r}"),
            Err(e) => panic!("`{code}`: {e}"),
        }
    }
}

#[test]
fn a_hundred_thousand_line_kernel_does_not_hang() {
    let mut body = String::from(
        ".visible .entry big(.param .u64 out)\n{\n    .reg .b32 %r<3>;\n    .reg .b64 %rd<2>;\n    mov.u32 %r1, 0;\n",
    );
    for _ in 0..100_000 {
        body.push_str("    add.s32 %r1, %r1, 1;\n");
    }
    body.push_str("    ld.param.u64 %rd1, [out];\n    st.global.u32 [%rd1], %r1;\n    ret;\n}\n");
    let start = Instant::now();
    let r = check("--arg out=u32[1]", &body);
    println!(
        "100,000-line kernel: {:.3} s",
        start.elapsed().as_secs_f64()
    );
    // One thread runs 100,000 instructions: only memory operations are steps of the machine.
    let r = r.unwrap();
    assert!(r.passed() && r.complete, "{r}");
}

#[test]
fn fixed_reduction_at_two_blocks_of_32_threads() {
    // Each block: 32 threads write shared slots, bar.sync, thread 0 sums and adds the block's
    // sum to a global counter atomically.
    let body = r#"
.visible .entry sum(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<3>;
    .shared .align 4 .b8 buf[128];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r3, buf;
    shl.b32 %r4, %r1, 2;
    add.s32 %r5, %r3, %r4;
    st.shared.u32 [%r5], %r1;
    bar.sync 0;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra $END;
    mov.u32 %r6, 0;
    mov.u32 %r7, 0;
$LOOP:
    shl.b32 %r8, %r7, 2;
    add.s32 %r8, %r3, %r8;
    ld.shared.u32 %r9, [%r8];
    add.s32 %r6, %r6, %r9;
    add.s32 %r7, %r7, 1;
    setp.lt.u32 %p2, %r7, 32;
    @%p2 bra $LOOP;
    red.relaxed.gpu.global.add.u32 [%rd1], %r6;
$END:
    ret;
}
"#;
    let start = Instant::now();
    let r = check("--grid 2 --block 32 --arg out=u32[1]", body).unwrap();
    println!(
        "2 blocks x 32 threads: {} executions, complete = {}, {:.3} s",
        r.executions,
        r.complete,
        start.elapsed().as_secs_f64()
    );
    assert!(r.passed(), "{r}");
}

/// Real NVRTC output (the parser's fixtures, `compute_90 -lineinfo`): every kernel decodes, or
/// the decoder names the instruction it refuses with its `file:line:col`.
#[test]
fn nvrtc_fixtures_decode_or_name_what_they_refuse() {
    use scopecheck_model::ptx::program::Program;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ptx");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty());
    let mut decoded = 0;
    for p in &paths {
        let src = std::fs::read_to_string(p).unwrap();
        let path = p.display().to_string();
        let module = scopecheck_model::ptx::parse(&src, &path).unwrap();
        match Program::new(&module, &path) {
            Ok(prog) => {
                decoded += 1;
                println!("{path}: {} functions decoded", prog.funcs.len());
            }
            Err(e) => {
                println!("{e}");
                assert!(e.starts_with(&format!("{path}:")), "{e}");
                assert!(e.contains("`"), "{e}");
            }
        }
    }
    println!("{decoded} of {} NVRTC fixtures decode", paths.len());
}

#[test]
fn cluster_barrier_orders_blocks_of_a_cluster() {
    let body = |arrive: &str| {
        format!(
            r#"
.visible .entry k(.param .u64 x)
{{
    .reg .pred %p<3>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [x];
    mov.u32 %r1, %cluster_ctarank;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra $SKIP;
    st.global.u32 [%rd1], 7;
$SKIP:
    {arrive}
    barrier.cluster.wait.aligned;
    @!%p1 bra $END;
    ld.global.u32 %r2, [%rd1];
    setp.ne.s32 %p2, %r2, 7;
    @%p2 trap;
$END:
    ret;
}}
"#
        )
    };
    let flags = "--grid 2 --cluster 2 --arg x=u32[1]";
    let r = check(flags, &body("barrier.cluster.arrive.aligned;")).unwrap();
    assert!(r.passed() && r.complete, "{r}");
    let v = verdict(flags, &body("barrier.cluster.arrive.relaxed.aligned;"));
    assert_eq!(v, Verdict::Fail(FailureKind::DataRace));
}

#[test]
fn a_loop_without_memory_operations_is_a_bounded_possible_hang() {
    let body = ".visible .entry k()\n{\n$L:\n    bra.uni $L;\n}\n";
    let v = verdict("", body);
    assert_eq!(v, Verdict::Fail(FailureKind::PossibleHang));
}

/// `--cluster 2,2` on a 4x2 grid: each CTA checks `%cluster_ctaid`, `%cluster_nctaid`,
/// `%clusterid`, `%nclusterid` and `%cluster_ctarank` against its `%ctaid` (PTX ISA, *Special
/// Registers*; the cluster of `%ctaid` is `%ctaid / %cluster_nctaid`, the rank x-major).
#[test]
fn two_dimensional_cluster_special_registers() {
    let body = r#"
.visible .entry k()
{
    .reg .pred %p<2>;
    .reg .b32 %r<24>;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ctaid.y;
    mov.u32 %r3, %cluster_ctaid.x;
    mov.u32 %r4, %cluster_ctaid.y;
    mov.u32 %r5, %cluster_nctaid.x;
    mov.u32 %r6, %cluster_nctaid.y;
    mov.u32 %r7, %clusterid.x;
    mov.u32 %r8, %clusterid.y;
    mov.u32 %r9, %nclusterid.x;
    mov.u32 %r10, %nclusterid.y;
    mov.u32 %r11, %cluster_ctarank;
    mov.u32 %r12, %cluster_nctarank;
    rem.u32 %r13, %r1, 2;
    setp.ne.u32 %p1, %r3, %r13;
    @%p1 trap;
    rem.u32 %r13, %r2, 2;
    setp.ne.u32 %p1, %r4, %r13;
    @%p1 trap;
    div.u32 %r13, %r1, 2;
    setp.ne.u32 %p1, %r7, %r13;
    @%p1 trap;
    div.u32 %r13, %r2, 2;
    setp.ne.u32 %p1, %r8, %r13;
    @%p1 trap;
    mad.lo.u32 %r13, %r4, %r5, %r3;
    setp.ne.u32 %p1, %r11, %r13;
    @%p1 trap;
    mul.lo.u32 %r14, %r5, %r6;
    setp.ne.u32 %p1, %r12, %r14;
    @%p1 trap;
    setp.ne.u32 %p1, %r9, 2;
    @%p1 trap;
    setp.ne.u32 %p1, %r10, 1;
    @%p1 trap;
    ret;
}
"#;
    let r = check("--grid 4,2 --cluster 2,2", body).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.passed() && r.complete, "{r}");
    // A grid that is not a multiple of the cluster's shape is a launch error.
    let e = check("--grid 3,2 --cluster 2,2", body).expect_err("3x2 into 2x2");
    assert!(e.contains("--cluster") && e.contains("multiple"), "{e}");
}
