//! Special files and odd paths as input.

use super::harness::*;
use std::path::Path;

pub(super) fn special_cases(d: &Path, cases: &mut Vec<(String, Vec<String>, Expect)>) {
    let mp = write(d, "mp2.litmus", MP);
    let fifo = d.join("fifo.litmus");
    let c = std::ffi::CString::new(fifo.display().to_string()).unwrap();
    // SAFETY: mkfifo reads the path it is given.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let fifo = fifo.display().to_string();
    let fifo_cat = d.join("fifo.cat");
    let c = std::ffi::CString::new(fifo_cat.display().to_string()).unwrap();
    // SAFETY: as above.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let fifo_cat = fifo_cat.display().to_string();
    let huge = d.join("huge.litmus");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let huge = huge.display().to_string();
    let huge_cat = d.join("huge.cat");
    std::fs::File::create(&huge_cat)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let huge_cat = huge_cat.display().to_string();
    let dir_litmus = d.join("dir.litmus");
    std::fs::create_dir_all(&dir_litmus).unwrap();
    let loop_dir = d.join("loop");
    std::fs::create_dir_all(&loop_dir).unwrap();
    let _ = std::os::unix::fs::symlink(&loop_dir, loop_dir.join("again"));
    std::fs::write(loop_dir.join("a.litmus"), MP).unwrap();
    let empty_dir = d.join("empty-dir");
    std::fs::create_dir_all(&empty_dir).unwrap();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let e = |x: &str| Expect::Error(x.to_string());
    cases.push((
        "litmus /dev/zero".into(),
        s(&["litmus", "/dev/zero"]),
        e("/dev/zero:1:1: not a regular file"),
    ));
    cases.push((
        "litmus /dev/null".into(),
        s(&["litmus", "/dev/null"]),
        e("/dev/null:1:1: not a regular file"),
    ));
    cases.push((
        "litmus /dev/urandom".into(),
        s(&["litmus", "/dev/urandom"]),
        e("/dev/urandom:1:1: not a regular file"),
    ));
    cases.push((
        "litmus FIFO".into(),
        s(&["litmus", &fifo]),
        e(&format!("{fifo}:1:1: not a regular file (a FIFO)")),
    ));
    cases.push((
        "litmus 1 GiB file".into(),
        s(&["litmus", &huge]),
        e(&format!("{huge}:1:1: file too large")),
    ));
    cases.push((
        "model FIFO".into(),
        s(&["litmus", "--model", &fifo_cat, &mp]),
        e("not a regular file (a FIFO)"),
    ));
    cases.push((
        "model 1 GiB file".into(),
        s(&["litmus", "--model", &huge_cat, &mp]),
        e("file too large"),
    ));
    cases.push((
        "model /dev/zero".into(),
        s(&["litmus", "--model", "/dev/zero", &mp]),
        e("unknown model"),
    ));
    cases.push((
        "model directory".into(),
        s(&["litmus", "--model", &format!("{}/", d.display()), &mp]),
        e("unknown model"),
    ));
    cases.push((
        "model dir named .cat".into(),
        s(&[
            "litmus",
            "--model",
            &dir_litmus
                .display()
                .to_string()
                .replace(".litmus", ".litmus/x.cat"),
            &mp,
        ]),
        e("cannot read the model"),
    ));
    cases.push((
        "litmus directory named .litmus".into(),
        s(&["litmus", &dir_litmus.display().to_string()]),
        e("no .litmus files"),
    ));
    cases.push((
        "litmus symlink loop".into(),
        s(&["litmus", &loop_dir.display().to_string()]),
        Expect::Answer("Test MP"),
    ));
    cases.push((
        "litmus empty directory".into(),
        s(&["litmus", &empty_dir.display().to_string()]),
        e("no .litmus files"),
    ));
    cases.push((
        "litmus missing file".into(),
        s(&["litmus", "/no/such/file.litmus"]),
        e("/no/such/file.litmus:1:1: cannot read file"),
    ));
    cases.push((
        "check missing path".into(),
        s(&["check", "/no/such/dir"]),
        e("no such file or directory"),
    ));
    cases.push((
        "check empty directory".into(),
        s(&["check", &empty_dir.display().to_string()]),
        e("nothing to check"),
    ));
}
