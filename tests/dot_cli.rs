//! `scopecheck litmus --dot DIR`: one witness file per test, even for tests of the same name.

use std::path::PathBuf;
use std::process::Command;

const MP: &str = "PTX MP
{ x=0; y=0; }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.weak x, 1        | ld.acquire.gpu r0, y ;
 st.release.gpu y, 1 | ld.weak r1, x        ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
";

#[test]
fn tests_of_the_same_name_get_their_own_witness_file() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("dot-same-name");
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["a", "b"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    std::fs::write(dir.join("a/MP.litmus"), MP).unwrap();
    // Same file name, another condition: its witness must not replace the first one's.
    std::fs::write(
        dir.join("b/MP.litmus"),
        MP.replace("P1:r1 == 0", "P1:r1 == 1"),
    )
    .unwrap();
    let out_dir = dir.join("dot");
    let out = Command::new(env!("CARGO_BIN_EXE_scopecheck"))
        .args(["litmus", "--dot"])
        .arg(&out_dir)
        .arg(dir.join("a"))
        .arg(dir.join("b"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let a = std::fs::read_to_string(out_dir.join("a-MP.dot")).unwrap();
    let b = std::fs::read_to_string(out_dir.join("b-MP.dot")).unwrap();
    assert!(a.contains("the condition does not hold"), "{a}");
    assert!(b.contains("so the condition holds"), "{b}");
    assert!(a.contains("MP under ptx-v7.5"), "{a}");
}
