//! `scopecheck kernel FILE.ptx`: exit codes (0 verified or bounded pass, 1 failure, 2 bad
//! input), flags from the file's first line, JSON.

use std::path::PathBuf;
use std::process::{Command, Output};

fn write(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("scopecheck-kernel-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scopecheck"))
        .arg("kernel")
        .args(args)
        .output()
        .unwrap()
}

const MP: &str = r#"// scopecheck: --grid 2 --arg data=u32[1] --arg flag=u32[1]
.version 8.0
.target sm_90
.address_size 64
.visible .entry mp(.param .u64 data, .param .u64 flag)
{
    .reg .pred %p<3>;
    .reg .b32 %r<5>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [data];
    ld.param.u64 %rd2, [flag];
    mov.u32 %r1, %ctaid.x;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra $READER;
    st.global.u32 [%rd1], 42;
    st.release.gpu.global.u32 [%rd2], 1;
    ret;
$READER:
    ld.acquire.gpu.global.u32 %r3, [%rd2];
    setp.ne.s32 %p2, %r3, 1;
    @%p2 bra $DONE;
    ld.global.u32 %r4, [%rd1];
$DONE:
    ret;
}
"#;

#[test]
fn verified_kernel_exits_0_and_racy_one_exits_1() {
    let ok = write("mp.ptx", MP);
    let out = run(&[ok.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("PASS: verified"), "{text}");
    let racy = write("mp-racy.ptx", &MP.replace("st.release.gpu", "st"));
    let out = run(&[racy.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("data race"), "{text}");
}

#[test]
fn json_says_bounded_or_complete() {
    let ok = write("mp-json.ptx", MP);
    let out = run(&[ok.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "pass");
    assert_eq!(v["complete"], true);
    let out = run(&[
        ok.to_str().unwrap(),
        "--json",
        "--engine",
        "random",
        "--budget",
        "20",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(v["bounded"], true);
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let unknown = write(
        "unknown.ptx",
        &MP.replace("ret;\n$READER", "frob.b32 %r1;\n$READER"),
    );
    let out = run(&[unknown.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("unknown.ptx:17:") && err.contains("frob"),
        "{err}"
    );
    let no_arg = write("noarg.ptx", &MP.replace("// scopecheck:", "// nothing:"));
    let out = run(&[no_arg.to_str().unwrap(), "--grid", "2"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("has no --arg"), "{err}");
    let out = run(&["/nonexistent/k.ptx"]);
    assert_eq!(out.status.code(), Some(2));
    // A `.cu` that does not compile: NVRTC's error, or, without NVRTC, how to get it.
    let out = run(&[write("k.cu", "__global__ void k() { this is not CUDA }")
        .to_str()
        .unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn command_line_overrides_the_first_line() {
    let ok = write("mp-override.ptx", MP);
    // One block: the reader's branch never runs, still verified; a bad grid is bad input.
    let out = run(&[ok.to_str().unwrap(), "--grid", "1"]);
    assert_eq!(out.status.code(), Some(0));
    let out = run(&[ok.to_str().unwrap(), "--grid", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

/// The issue's bad-input list at the command line, one case each: a malformed `.loc` (exit 2,
/// one line with `file:line:col`), an out-of-bounds access (a failure of its own: exit 1), a
/// 100,000-line PTX (runs: no hang, no stack overflow).
#[test]
fn malformed_loc_out_of_bounds_and_a_huge_kernel() {
    let loc = write(
        "badloc.ptx",
        &MP.replace("ret;\n$READER", ".loc 1 twelve 5\n    ret;\n$READER"),
    );
    let out = run(&[loc.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("badloc.ptx:17:"), "{err}");
    let oob = write(
        "oob.ptx",
        &MP.replace(
            "ld.global.u32 %r4, [%rd1];",
            "ld.global.u32 %r4, [%rd1+64];",
        ),
    );
    let out = run(&[oob.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("out-of-bounds access") && text.contains("data"),
        "{text}"
    );
    let mut big = String::from(
        "// scopecheck: --arg out=u32[1]\n.version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry big(.param .u64 out)\n{\n    .reg .b32 %r<3>;\n    .reg .b64 %rd<2>;\n",
    );
    for _ in 0..100_000 {
        big.push_str("    add.s32 %r1, %r1, 1;\n");
    }
    big.push_str("    ld.param.u64 %rd1, [out];\n    st.global.u32 [%rd1], %r1;\n    ret;\n}\n");
    let out = run(&[write("big.ptx", &big).to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("PASS: verified"), "{text}");
}

#[test]
fn timeout_ends_in_a_bounded_verdict() {
    let ok = write("mp-timeout.ptx", MP);
    let out = run(&[ok.to_str().unwrap(), "--timeout", "0", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        (v["verdict"].as_str(), v["bounded"].as_bool()),
        (Some("pass"), Some(true))
    );
    // In the first line, and overridden by the command line.
    let first = write(
        "mp-timeout-line.ptx",
        &MP.replace("// scopecheck:", "// scopecheck: --timeout 0"),
    );
    let out = run(&[first.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("bounded"), "{text}");
    let out = run(&[first.to_str().unwrap(), "--timeout", "600"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("PASS: verified"), "{text}");
    for bad in ["-1", "soon", "nan"] {
        let out = run(&[ok.to_str().unwrap(), &format!("--timeout={bad}")]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(err.contains("--timeout"), "{err}");
    }
}
