//! The PTX interpreter's tensor-map forms end to end: `cp.async.bulk.tensor` loads and stores of
//! 1-D and 2-D boxes through a `--tensor-map` bound to a `CUtensorMap` parameter (zero fill and
//! skipped stores outside the tensor, the mbarrier and bulk-group completions, multicast, the
//! proxy fence a store needs), `cp.async.bulk.prefetch{.tensor}`, `fence.proxy.tensormap`, and
//! every refusal with its reason. Timings are printed, never asserted.

use crate::ptx_support::{check, fails, verified, HEAD};
use scopecheck_model::kernel::FailureKind;

fn refused(flags: &str, body: &str, why: &str) {
    let e = check(flags, body).expect_err("refused");
    assert!(e.contains(why), "{e}");
    assert!(!e.contains('\n'), "one line: {e}");
}

/// `ld.shared.u32` of `tile[i]` for each `i`, trapping unless it is `want[i]`.
fn expect_tile(want: &[u32]) -> String {
    want.iter()
        .enumerate()
        .map(|(i, w)| {
            format!(
                "    ld.shared.u32 %r9, [tile+{}];\n    setp.ne.u32 %p3, %r9, {w};\n    @%p3 trap;\n",
                4 * i
            )
        })
        .collect()
}

/// One thread loads the box at `(c0, c1)` of the 2-D map `tmap` into `tile` (8 u32) through
/// `copy` (the instruction, with `TMAP` for the tensor operand's map) and checks `want`.
fn load_kernel(copy: &str, tmap: &str, c0: i32, c1: i32, want: &[u32]) -> String {
    let copy = copy.replace("TMAP", tmap);
    format!(
        r#"
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 a)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<4>;
    .shared .align 128 .b8 tile[32];
    .shared .align 8 .b64 bar;
    mov.u64 %rd1, tmap;
    cvta.param.u64 %rd2, %rd1;
    mov.u32 %r2, bar;
    mov.u32 %r3, tile;
    mov.u32 %r4, {c0};
    mov.u32 %r5, {c1};
    mbarrier.init.shared::cta.b64 [%r2], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 32;
    {copy}
$WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r2], 0;
    @!%p1 bra $WAIT;
{check}    ret;
}}
"#,
        check = expect_tile(want)
    )
}

const LOAD_2D: &str = "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [TMAP, {%r4, %r5}], [%r2];";
const A12: &str = "--arg a=u32[12]=1,2,3,4,5,6,7,8,9,10,11,12";

#[test]
fn load_2d_in_bounds_through_a_generic_address() {
    let flags = format!("{A12} --tensor-map tmap=a:u32:4x3:4x2");
    verified(
        &flags,
        &load_kernel(LOAD_2D, "%rd2", 0, 1, &[5, 6, 7, 8, 9, 10, 11, 12]),
    );
}

#[test]
fn load_2d_zero_fills_past_the_tensor_named_by_its_parameter() {
    // The map names the parameter directly (`[tmap, {…}]`); the box at (2, 2) covers
    // columns 2..6 of rows 2 and 3 of a 4 × 3 tensor.
    let flags = format!("{A12} --tensor-map tmap=a:u32:4x3:4x2");
    verified(
        &flags,
        &load_kernel(LOAD_2D, "tmap", 2, 2, &[11, 12, 0, 0, 0, 0, 0, 0]),
    );
    // Negative coordinates: before the tensor's start.
    verified(
        &flags,
        &load_kernel(LOAD_2D, "tmap", -1, -1, &[0, 0, 0, 0, 0, 1, 2, 3]),
    );
    // A wrong expectation traps: the check can fail.
    fails(
        &flags,
        &load_kernel(LOAD_2D, "tmap", 2, 2, &[11, 12, 1, 0, 0, 0, 0, 0]),
        FailureKind::Assertion,
    );
}

#[test]
fn load_1d_and_strided_rows() {
    let one = "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [TMAP, {%r4}], [%r2];";
    // 1-D: 10 elements, a box of 8 at 6 (no `.tile`: it is the default load mode).
    let flags = format!("{A12} --tensor-map tmap=a:u32:10:8");
    verified(
        &flags,
        &load_kernel(one, "tmap", 6, 0, &[7, 8, 9, 10, 0, 0, 0, 0]),
    );
    // Rows of 3 elements every 8: STRIDES picks the row start, the column past 3 is zeros.
    let flags =
        "--arg a=u32[16]=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 --tensor-map tmap=a:u32:3x2:4x2:8";
    verified(
        flags,
        &load_kernel(LOAD_2D, "tmap", 0, 0, &[1, 2, 3, 0, 9, 10, 11, 0]),
    );
}

#[test]
fn load_counts_the_whole_box() {
    // The box is 32 bytes; an expect_tx of 16 leaves the phase incomplete: a hang.
    let flags = format!("{A12} --tensor-map tmap=a:u32:4x3:4x2");
    let body = load_kernel(LOAD_2D, "tmap", 0, 0, &[1, 2, 3, 4, 5, 6, 7, 8])
        .replace("[%r2], 32;", "[%r2], 16;");
    fails(&flags, &body, FailureKind::Hang);
}

/// Thread 0 of two writes the tile (thread 1 its other half) and stores the box at (0, 0) of a
/// 3 × 2 tensor in rows of 4; after the bulk group completes, `a` must read `want`.
fn store_kernel(fence: &str, want: &[u32]) -> String {
    let check: String = want
        .iter()
        .enumerate()
        .map(|(i, w)| {
            format!(
                "    ld.global.u32 %r9, [%rd3+{}];\n    setp.ne.u32 %p3, %r9, {w};\n    @%p3 trap;\n",
                4 * i
            )
        })
        .collect();
    format!(
        r#"
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 a)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<4>;
    .shared .align 128 .b8 tile[32];
    ld.param.u64 %rd3, [a];
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 4;
    mov.u32 %r3, tile;
    add.u32 %r4, %r3, %r2;
    mad.lo.u32 %r5, %r1, 4, 1;
    st.shared.v4.u32 [%r4], {{%r5, %r5, %r5, %r5}};
    {fence}
    bar.sync 0;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra $END;
    cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [tmap, {{0, 0}}], [%r3];
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
{check}$END:
    ret;
}}
"#
    )
}

#[test]
fn store_skips_the_elements_past_the_tensor() {
    let flags = "--block 2 --arg a=u32[8]=9,9,9,9,9,9,9,9 --tensor-map tmap=a:u32:3x2:4x2:4";
    // Row 0 from thread 0 (1s), row 1 from thread 1 (5s); column 3 keeps its 9.
    verified(
        flags,
        &store_kernel("fence.proxy.async.shared::cta;", &[1, 1, 1, 9, 5, 5, 5, 9]),
    );
}

#[test]
fn store_without_the_proxy_fence_races() {
    let flags = "--block 2 --arg a=u32[8] --tensor-map tmap=a:u32:3x2:4x2:4";
    fails(
        flags,
        &store_kernel("", &[1, 1, 1, 0, 5, 5, 5, 0]),
        FailureKind::DataRace,
    );
}

#[test]
fn multicast_load_lands_in_every_masked_cta() {
    let body = r#"
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 a)
{
    .reg .pred %p<4>;
    .reg .b32 %r<10>;
    .reg .b16 %rs<2>;
    .shared .align 128 .b8 tile[32];
    .shared .align 8 .b64 bar;
    mov.u32 %r2, bar;
    mov.u32 %r3, tile;
    mbarrier.init.shared::cta.b64 [%r2], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 32;
    barrier.cluster.arrive.release;
    barrier.cluster.wait.acquire;
    mov.u32 %r1, %cluster_ctarank;
    setp.ne.u32 %p2, %r1, 0;
    mov.u16 %rs1, MASK;
    @!%p2 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r3], [tmap, {0, 1}], [%r2], %rs1;
$WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r2], 0;
    @!%p1 bra $WAIT;
    ld.shared.u32 %r9, [tile+28];
    setp.ne.u32 %p3, %r9, 12;
    @%p3 trap;
    barrier.cluster.arrive.release;
    barrier.cluster.wait.acquire;
    ret;
}
"#;
    let flags = format!("--grid 2 --cluster 2 {A12} --tensor-map tmap=a:u32:4x3:4x2");
    verified(&flags, &body.replace("MASK", "3"));
    // Rank 1 left out of the mask: its phase never gets its bytes.
    fails(&flags, &body.replace("MASK", "1"), FailureKind::Hang);
}

#[test]
fn prefetches_and_tensormap_fences_run_as_no_ops() {
    let body = r#"
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 a)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [a];
    mov.u64 %rd2, tmap;
    cp.async.bulk.prefetch.L2.global [%rd1], 16;
    cp.async.bulk.prefetch.L2.global.L2::cache_hint [%rd1], 16, %rd3;
    cp.async.bulk.prefetch.tensor.2d.L2.global [tmap, {0, 1}];
    cp.async.bulk.prefetch.tensor.1d.L2.global.tile.L2::cache_hint [tmap, {%r1}], %rd3;
    fence.proxy.tensormap::generic.release.cta;
    fence.proxy.tensormap::generic.release.sys;
    fence.proxy.tensormap::generic.acquire.gpu [%rd2], 128;
    fence.proxy.tensormap::generic.acquire.cluster [tmap], 128;
    ret;
}
"#;
    verified(&format!("{A12} --tensor-map tmap=a:u32:4x3:4x2"), body);
}

/// A kernel of one instruction with a tensor-map parameter.
fn with(instr: &str) -> String {
    format!(
        ".visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 a)\n{{\n    .reg .b32 \
         %r<4>;\n    .reg .b64 %rd<4>;\n    .shared .align 128 .b8 tile[32];\n    .shared .align \
         8 .b64 bar;\n    {instr}\n    ret;\n}}\n"
    )
}

#[test]
fn malformed_tensor_instructions_are_refused_with_the_reason() {
    let flags = format!("{A12} --tensor-map tmap=a:u32:4x3:4x2");
    let load = |m: &str, ops: &str| format!("cp.async.bulk.tensor.{m} {ops};");
    let cases = [
        (
            load(
                "3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
                "[tile], [tmap, {0, 0, 0}], [bar]",
            ),
            "1-D and 2-D",
        ),
        (
            load(
                "6d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
                "[tile], [tmap, {0}], [bar]",
            ),
            "not a tensor dimension",
        ),
        (
            load(
                "2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes",
                "[tile], [tmap, {0, 0}], [bar]",
            ),
            "tile mode only",
        ),
        (
            load(
                "2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
                "[tile], [tmap, {0}], [bar]",
            ),
            "takes 2 coordinates",
        ),
        (
            load(
                "2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
                "[tile], [tmap], [bar]",
            ),
            "expected the tensor operand",
        ),
        (
            load(
                "2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
                "[tile], [tmap, {0, 0}]",
            ),
            "expected 3 operands",
        ),
        (
            load(
                "2d.shared::cluster.global.tile.bulk_group",
                "[tile], [tmap, {0, 0}], [bar]",
            ),
            "complete_tx",
        ),
        (
            load(
                "2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.frob",
                "[tile], [tmap, {0, 0}], [bar]",
            ),
            "`.frob`",
        ),
        (
            load(
                "2d.global.shared::cta.tile.mbarrier::complete_tx::bytes",
                "[tmap, {0, 0}], [tile]",
            ),
            "bulk_group",
        ),
        (
            load("2d.global.shared::cta.tile.bulk_group", "[tmap, {0, 0}]"),
            "expected 2 operands",
        ),
        (
            load(
                "2d.shared::cta.shared::cta.tile.bulk_group",
                "[tmap, {0, 0}], [tile]",
            ),
            "copies .global to",
        ),
        (load("2d", "[tile], [tmap, {0, 0}], [bar]"), "dim.dst.src"),
        (
            "cp.async.bulk.prefetch.L1.global [tile], 16;".into(),
            "prefetch",
        ),
        (
            "cp.async.bulk.prefetch.L2.global tile, 16;".into(),
            "[srcMem], size",
        ),
        (
            "cp.async.bulk.prefetch.tensor.2d.L2.global [tmap, {0}];".into(),
            "takes 2 coordinates",
        ),
        (
            "fence.proxy.tensormap::generic.release.warp;".into(),
            "fence.proxy.tensormap",
        ),
        (
            "fence.proxy.tensormap::generic.acquire.gpu [tmap], 64;".into(),
            "[addr], 128",
        ),
        (
            "fence.proxy.tensormap::generic.acquire.gpu;".into(),
            "[addr], 128",
        ),
        (
            "fence.proxy.tensormap::generic;".into(),
            "fence.proxy.tensormap",
        ),
        (
            "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [tile], 16;".into(),
            "cp.reduce.async.bulk is not supported",
        ),
    ];
    for (instr, why) in cases {
        refused(&flags, &with(&instr), why);
        // Decoding errors name the instruction's line.
        let e = check(&flags, &with(&instr)).unwrap_err();
        assert!(e.contains("test.ptx:1"), "{e}");
    }
    // The coordinate list must close: a parse error at its line and column.
    let e = check(
        &flags,
        &with("cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [tmap, {0], [tile];"),
    )
    .unwrap_err();
    assert!(e.contains("test.ptx:11:"), "{e}");
    let e = check(
        &flags,
        &with("cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [tmap, 0], [tile];"),
    )
    .unwrap_err();
    assert!(e.contains("test.ptx:11:") && e.contains('{'), "{e}");
}

#[test]
fn tensor_map_flags_and_bindings_are_checked() {
    let copy =
        with("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [tmap, {0, 0}], [tile];");
    let cases = [
        (A12.to_string(), "has no --arg"),
        (
            format!("{A12} --tensor-map tmap=b:u32:4x3:4x2"),
            "no --arg buffer `b`",
        ),
        (
            format!("{A12} --tensor-map tmap=a:u64:4x3:2x2"),
            "8-byte elements over buffer `a` of 4-byte",
        ),
        (
            format!("{A12} --tensor-map tmap=a:u32:4x4:4x2"),
            "spans 16 elements",
        ),
        (
            format!("{A12} --tensor-map a=a:u32:4x3:4x2 --tensor-map tmap=a:u32:4x3:4x2"),
            "not a 128-byte CUtensorMap",
        ),
        (
            format!("{A12} --tensor-map x=a:u32:4x3:4x2 --tensor-map y=a:u32:4x3:4x2"),
            "no other 128-byte",
        ),
        (
            format!("{A12} --tensor-map tmap=a:u32:4x3"),
            "--tensor-map `tmap=a:u32:4x3`",
        ),
        (format!("{A12} --tensor-map"), "needs a value"),
    ];
    for (flags, why) in cases {
        refused(&flags, &copy, why);
    }
    // Bound by position when its name is not the parameter's (CUDA names are not in the PTX):
    // the first 128-byte parameter.
    let r = check(&format!("{A12} --tensor-map m=a:u32:4x3:4x2"), &copy);
    assert!(r.is_ok(), "{r:?}");
}

/// Every tensor form the decoder accepts prints back and re-parses to the same operations.
#[test]
fn every_tensor_form_round_trips() {
    use scopecheck_model::ptx::program::Program;
    let forms = [
        "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd1, {%r1}], [%r3];",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1+0, {%r1, -1}], [%r3];",
        "cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint [%r2], [tmap, {%r1, 4}], [%r3], %rd2;",
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r2], [tmap, {0, 0}], [%r3], %rs1;",
        "cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [tmap, {%r1}], [%r2];",
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint [%rd1, {%r1, %r2}], [%r2], %rd2;",
        "cp.async.bulk.prefetch.tensor.2d.L2.global [tmap, {1, 2}];",
        "cp.async.bulk.prefetch.L2.global [%rd1], 32;",
        "fence.proxy.tensormap::generic.release.gpu;",
        "fence.proxy.tensormap::generic.acquire.sys [%rd1], 128;",
    ];
    let src = format!(
        "{HEAD}.visible .entry k(.param .align 64 .b8 tmap[128])\n{{\n    .reg .b16 %rs<2>;\n    \
         .reg .b32 %r<5>;\n    .reg .b64 %rd<4>;\n    {}\n    ret;\n}}\n",
        forms.join("\n    ")
    );
    let first = scopecheck_model::ptx::parse(&src, "forms.ptx").unwrap();
    let printed = first.to_string();
    assert!(printed.contains("[%rd1, {%r1, -1}]"), "{printed}");
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
