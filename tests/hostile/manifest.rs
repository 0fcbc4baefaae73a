//! Hostile corpus manifests.

use super::harness::*;
use std::path::Path;

pub(super) fn manifest_cases(d: &Path, cases: &mut Vec<(String, Vec<String>, Expect)>) {
    let mut corpus = |name: &str, manifest: &[u8], expect: Expect| {
        let dir = d.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("mp.litmus"), MP).unwrap();
        std::fs::write(dir.join("MANIFEST.csv"), manifest).unwrap();
        cases.push((
            format!("manifest {name}"),
            vec!["check".into(), dir.display().to_string()],
            expect,
        ));
    };
    // A manifest's bad rows are reported in check's table (exit 1), not as a usage error.
    let failed = || Expect::Answer("failed");
    corpus(
        "bad-header",
        b"a,b,c\nmp.litmus,ptx-v7.5,allowed\n",
        failed(),
    );
    corpus(
        "wrong-fields",
        b"file,model,expected\nmp.litmus,ptx-v7.5\n",
        failed(),
    );
    corpus(
        "unknown-model",
        b"file,model,expected\nmp.litmus,nonsense,allowed\n",
        failed(),
    );
    corpus(
        "unknown-verdict",
        b"file,model,expected\nmp.litmus,ptx-v7.5,maybe\n",
        failed(),
    );
    corpus(
        "missing-test",
        b"file,model,expected\nnope.litmus,ptx-v7.5,allowed\n",
        failed(),
    );
    corpus(
        "invalid-utf8",
        b"file,model,expected\nmp.litmus,ptx-v7.5,\xff\n",
        failed(),
    );
    corpus(
        "unterminated-quote",
        b"file,model,expected\n\"mp.litmus,ptx-v7.5,allowed\n",
        failed(),
    );
    corpus("binary", b"\0\0\0\xff\xfe", failed());
    corpus("empty", b"", failed());
    corpus(
        "rows-20000-missing",
        format!(
            "file,model,expected\n{}",
            "nope.litmus,ptx-v7.5,allowed\n".repeat(20_000)
        )
        .as_bytes(),
        failed(),
    );
    corpus(
        "fields-100000",
        format!(
            "file,model,expected\nmp.litmus,ptx-v7.5,allowed{}\n",
            ",x".repeat(100_000)
        )
        .as_bytes(),
        failed(),
    );
    corpus(
        "good",
        b"file,model,expected\nmp.litmus,ptx-v7.5,forbidden\n",
        Expect::Answer("1 entries, 1 as expected"),
    );
    // A symbolic link back to the corpus: each manifest is read once.
    let dir = d.join("linked");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("mp.litmus"), MP).unwrap();
    std::fs::write(
        dir.join("MANIFEST.csv"),
        "file,model,expected\nmp.litmus,ptx-v7.5,forbidden\n",
    )
    .unwrap();
    let _ = std::os::unix::fs::symlink(&dir, dir.join("loop"));
    let _ = std::os::unix::fs::symlink(&dir, dir.join("twice"));
    cases.push((
        "manifest behind link loops".into(),
        vec!["check".into(), dir.display().to_string()],
        Expect::Answer("1 entries, 1 as expected"),
    ));
}
