//! Half-precision arithmetic in the PTX interpreter, one kernel per instruction form: `add`,
//! `sub`, `mul`, `fma.rn`, `neg`, `abs`, `min`, `max` on `.f16` and `.f16x2`, `setp` on `.f16`,
//! `cvt` to and from `.f16`, `mov.b32 {h0, h1}` packing; NaN, infinity, signed zero, subnormal
//! and overflow cases. Expected bits come from Python's `struct` module (`'e'`, IEEE binary16
//! round-half-even: `struct.pack('<e', x)`) applied to the exact result, which a double holds
//! for every sum and product of two halves; the special values follow the PTX ISA's rules as
//! quoted in `model/src/ptx/half.rs`. Each kernel traps on a wrong result; a wrong expectation
//! makes it fail (the tests can fail).

use scopecheck_model::kernel::{Checker, FailureKind, Verdict};
use scopecheck_model::ptx::launch::{check_ptx, Launch};

const HEAD: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

// Half values (bits).
const ONE: u16 = 0x3C00;
const THIRD: u16 = 0x3555; // 0.333251953125
const TENTH: u16 = 0x2E66; // 0.0999755859375
const THREE: u16 = 0x4200;
const NEG2: u16 = 0xC000;
const MAX: u16 = 0x7BFF; // 65504
const SUB: u16 = 0x0001; // 2^-24, the smallest subnormal
const MINNORM: u16 = 0x0400; // 2^-14
const HALF: u16 = 0x3800;
const INF: u16 = 0x7C00;
const NINF: u16 = 0xFC00;
const NAN: u16 = 0x7E00;
const CNAN: u16 = 0x7FFF; // canonical NaN
const NZERO: u16 = 0x8000;

/// A one-thread kernel: `%h1..%h3` hold `a, b, c`, `%r1` packs `{%h1, %h2}`, `%r2` packs
/// `{%h3, %h3}`; `body` computes, then `check` compares and traps.
fn run(body: &str, check: &str, (a, b, c): (u16, u16, u16)) -> Verdict {
    let src = format!(
        "// scopecheck: --block 1\n{HEAD}.visible .entry k()\n{{\n    .reg .pred %p<4>;\n    \
         .reg .b16 %h<10>;\n    .reg .b32 %r<10>;\n    .reg .f32 %f<4>;\n    \
         mov.b16 %h1, {a};\n    mov.b16 %h2, {b};\n    mov.b16 %h3, {c};\n    \
         mov.b32 %r1, {{%h1, %h2}};\n    mov.b32 %r2, {{%h3, %h3}};\n    {body}\n{check}    \
         ret;\n}}\n"
    );
    let r = check_ptx(&src, "half.ptx", &Launch::default(), &[], Checker::dfs())
        .unwrap_or_else(|e| panic!("{e}\n{src}"));
    r.verdict()
}

/// `instr` (writing `%h4`) on `a, b, c` gives `want`; and does not give `want ^ 1`.
fn half(instr: &str, abc: (u16, u16, u16), want: u16) {
    let check = |w: u16| format!("    setp.ne.b16 %p1, %h4, {w};\n    @%p1 trap;\n");
    assert_eq!(
        run(instr, &check(want), abc),
        Verdict::Pass,
        "{instr} {abc:x?}"
    );
    assert_eq!(
        run(instr, &check(want ^ 1), abc),
        Verdict::Fail(FailureKind::Assertion),
        "{instr} {abc:x?} must not give {:#x}",
        want ^ 1
    );
}

/// `instr` (writing `%r3` from `%r1 = {a, b}`, `%r2 = {c, c}`) gives the halves `lo, hi`.
fn half2(instr: &str, abc: (u16, u16, u16), (lo, hi): (u16, u16)) {
    let check = |lo: u16, hi: u16| {
        format!(
            "    mov.b32 {{%h5, %h6}}, %r3;\n    setp.ne.b16 %p1, %h5, {lo};\n    @%p1 trap;\n    \
             setp.ne.b16 %p2, %h6, {hi};\n    @%p2 trap;\n"
        )
    };
    assert_eq!(run(instr, &check(lo, hi), abc), Verdict::Pass, "{instr}");
    assert_eq!(
        run(instr, &check(lo, hi ^ 1), abc),
        Verdict::Fail(FailureKind::Assertion),
        "{instr}"
    );
}

#[test]
fn add_and_sub() {
    half("add.f16 %h4, %h1, %h2;", (THIRD, TENTH, 0), 0x36EE);
    half("add.rn.f16 %h4, %h1, %h2;", (MAX, MAX, 0), INF);
    half("add.f16 %h4, %h1, %h2;", (INF, NINF, 0), CNAN);
    half("add.f16 %h4, %h1, %h2;", (NAN, ONE, 0), CNAN);
    half("add.f16 %h4, %h1, %h2;", (NZERO, NZERO, 0), NZERO);
    half("add.f16 %h4, %h1, %h2;", (NZERO, 0, 0), 0);
    half("add.f16 %h4, %h1, %h2;", (SUB, SUB, 0), 0x0002);
    half("sub.f16 %h4, %h1, %h2;", (TENTH, THIRD, 0), 0xB377);
    half("sub.rn.f16 %h4, %h1, %h2;", (MINNORM, SUB, 0), 0x03FF);
    half("sub.f16 %h4, %h1, %h2;", (INF, INF, 0), CNAN);
    half("sub.f16 %h4, %h1, %h2;", (ONE, ONE, 0), 0);
}

#[test]
fn mul_and_fma() {
    half("mul.f16 %h4, %h1, %h2;", (THIRD, THIRD, 0), 0x2F1C);
    // 2^-25: a tie between 0 and 2^-24, to the even one, +0.
    half("mul.rn.f16 %h4, %h1, %h2;", (SUB, HALF, 0), 0);
    half("mul.f16 %h4, %h1, %h2;", (NEG2, SUB, 0), 0x8002);
    half("mul.f16 %h4, %h1, %h2;", (INF, 0, 0), CNAN);
    half("mul.f16 %h4, %h1, %h2;", (NZERO, ONE, 0), NZERO);
    half("mul.f16 %h4, %h1, %h2;", (MAX, NEG2, 0), NINF);
    half(
        "fma.rn.f16 %h4, %h1, %h2, %h3;",
        (THIRD, THREE, TENTH),
        0x3C66,
    );
    half("fma.rn.f16 %h4, %h1, %h2, %h3;", (INF, 0, ONE), CNAN);
    half("fma.rn.f16 %h4, %h1, %h2, %h3;", (ONE, NZERO, NZERO), NZERO);
    // Fused: 2^-25 + 2^-24 = 1.5 × 2^-24 rounds once, to the even 2 × 2^-24 (a `mul` then
    // an `add` would give 2^-24: the product alone rounds to 0).
    half("fma.rn.f16 %h4, %h1, %h2, %h3;", (SUB, HALF, SUB), 0x0002);
}

#[test]
fn neg_abs_min_max() {
    half("neg.f16 %h4, %h1;", (ONE, 0, 0), 0xBC00);
    half("neg.f16 %h4, %h1;", (NAN, 0, 0), 0xFE00);
    half("abs.f16 %h4, %h1;", (NEG2, 0, 0), 0x4000);
    half("abs.f16 %h4, %h1;", (NINF, 0, 0), INF);
    half("min.f16 %h4, %h1, %h2;", (ONE, NAN, 0), ONE);
    half("min.f16 %h4, %h1, %h2;", (NZERO, 0, 0), NZERO);
    half("max.f16 %h4, %h1, %h2;", (NZERO, 0, 0), 0);
    half("max.f16 %h4, %h1, %h2;", (NEG2, ONE, 0), ONE);
    half("max.f16 %h4, %h1, %h2;", (NAN, NAN, 0), CNAN);
    half("min.NaN.f16 %h4, %h1, %h2;", (ONE, NAN, 0), CNAN);
    half("max.NaN.f16 %h4, %h1, %h2;", (NEG2, ONE, 0), ONE);
}

#[test]
fn packed_halves() {
    // %r1 = {a, b}: each instruction works on {a op c, b op c} (`%r2 = {c, c}`).
    half2(
        "add.rn.f16x2 %r3, %r1, %r2;",
        (THIRD, MAX, TENTH),
        (0x36EE, MAX),
    );
    half2("add.f16x2 %r3, %r1, %r1;", (MAX, SUB, 0), (INF, 0x0002));
    half2(
        "sub.f16x2 %r3, %r1, %r2;",
        (TENTH, MINNORM, THIRD),
        (0xB377, 0xB555),
    );
    half2(
        "mul.rn.f16x2 %r3, %r1, %r2;",
        (THIRD, NEG2, THIRD),
        (0x2F1C, 0xB955),
    );
    half2(
        "fma.rn.f16x2 %r3, %r1, %r2, %r2;",
        (THREE, NAN, ONE),
        (0x4400, CNAN),
    );
    half2("neg.f16x2 %r3, %r1;", (ONE, NZERO, 0), (0xBC00, 0));
    half2("abs.f16x2 %r3, %r1;", (NEG2, NINF, 0), (0x4000, INF));
    half2("min.f16x2 %r3, %r1, %r2;", (ONE, NAN, NEG2), (NEG2, NEG2));
    half2(
        "max.NaN.f16x2 %r3, %r1, %r2;",
        (ONE, NAN, NEG2),
        (ONE, CNAN),
    );
}

#[test]
fn comparisons() {
    let setp = |cmp: &str, abc: (u16, u16, u16), want: bool| {
        let instr = format!("setp.{cmp}.f16 %p3, %h1, %h2;\n    selp.b16 %h4, 1, 0, %p3;");
        half(&instr, abc, want as u16);
    };
    setp("lt", (THIRD, TENTH, 0), false);
    setp("gt", (THIRD, TENTH, 0), true);
    setp("eq", (NZERO, 0, 0), true);
    setp("lt", (NAN, ONE, 0), false);
    setp("gtu", (NAN, ONE, 0), true);
    setp("nan", (ONE, NAN, 0), true);
    setp("num", (ONE, INF, 0), true);
    setp("le", (NINF, MAX, 0), true);
}

#[test]
fn conversions() {
    // cvt.f32.f16 is exact.
    let widen = |h: u16, f32_bits: u32| {
        let instr = format!(
            "cvt.f32.f16 %f1, %h1;\n    mov.b32 %r4, %f1;\n    setp.ne.b32 %p2, %r4, {f32_bits};\n    \
             selp.b16 %h4, 1, 0, %p2;"
        );
        half(&instr, (h, 0, 0), 0);
    };
    widen(THIRD, 0x3EAA_A000);
    widen(SUB, 0x3380_0000);
    widen(NINF, 0xFF80_0000);
    widen(NZERO, 0x8000_0000);
    // cvt.rn.f16.f32: one rounding to nearest even.
    let narrow = |f32_bits: u32, want: u16| {
        let instr = format!("mov.b32 %f2, {f32_bits};\n    cvt.rn.f16.f32 %h4, %f2;");
        half(&instr, (0, 0, 0), want);
    };
    narrow(0x3DCC_CCCD, TENTH); // 0.1f
    narrow(0x3EAA_AAAB, THIRD); // 1/3f
    narrow(0x477F_EF00, MAX); // 65519
    narrow(0x477F_F000, INF); // 65520: past the last midpoint
    narrow(0xC7C3_5000, NINF); // -1e5
    narrow(0x3300_D959, SUB); // 3e-8: the nearest subnormal
    narrow(0x3300_0000, 0); // 2^-25: tie, to the even zero
    narrow(0x7FC0_0000, CNAN);
    // Integers and back.
    half("cvt.rn.f16.s32 %h4, -3;", (0, 0, 0), 0xC200);
    half("cvt.rn.f16.u32 %h4, 65535;", (0, 0, 0), INF);
    half(
        "cvt.rzi.s32.f16 %r4, %h1;\n    cvt.u16.u32 %h4, %r4;",
        (0x4500, 0, 0),
        5,
    );
}

#[test]
fn forms_the_model_does_not_compute_are_refused() {
    let refused = |instr: &str, why: &str| {
        let src = format!(
            "{HEAD}.visible .entry k()\n{{\n    .reg .pred %p<2>;\n    .reg .b16 %h<4>;\n    \
             .reg .b32 %r<4>;\n    .reg .f32 %f<2>;\n    {instr}\n    ret;\n}}\n"
        );
        let e =
            check_ptx(&src, "half.ptx", &Launch::default(), &[], Checker::dfs()).expect_err(instr);
        assert!(
            e.contains(why) && e.contains("half.ptx:10:"),
            "{instr}: {e}"
        );
    };
    refused("add.ftz.f16 %h1, %h2, %h3;", "not modelled");
    refused("mul.sat.f16x2 %r1, %r2, %r3;", "not modelled");
    refused("add.rz.f16 %h1, %h2, %h3;", "`.rz`");
    refused("fma.f16 %h1, %h2, %h3, %h1;", "`.rn`");
    refused("div.rn.f16 %h1, %h2, %h3;", "not defined on .f16");
    refused(
        "setp.eq.f16x2 %p1|%p0, %r1, %r2;",
        "setp.f16x2 is not supported",
    );
    refused("cvt.rz.f16.f32 %h1, %f1;", "only `.rn`");
    refused("add.f16 %h1, %h2;", "takes 3 operands");
}
