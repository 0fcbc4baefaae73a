//! Every libtest integration test of `scopecheck-gpu`, in one binary: one compile and one link
//! instead of one per file (issue 33). Each file keeps its content and becomes a module here. The
//! NVRTC checks, which are skipped at run time without NVRTC, are libtest-mimic trials in
//! `tests/nvrtc_trials.rs`.
//!
//! ADDING A TEST FILE: put `tests/NAME.rs` beside this file and add `mod NAME;` below (in
//! alphabetical order); Cargo no longer discovers test files on its own (`autotests = false`).
//! Run one file's tests with `cargo test --release -p scopecheck-gpu --test gpu -- NAME::`.

mod async_codegen;
mod campaign_shapes;
mod codegen_golden;
mod host_thread;
mod shapes_model;

/// With `autotests = false`, a test file nobody declares is never compiled and never runs: every
/// `.rs` file beside this one must be a module of this binary or of the `harness = false` one
/// (`mod NAME;`), or a `[[test]]` target of its own in `Cargo.toml`.
#[test]
fn every_test_file_is_declared() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let tests = root.join("tests");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let mut undeclared = Vec::new();
    for entry in std::fs::read_dir(&tests).unwrap() {
        let path = entry.unwrap().path();
        let (Some(stem), Some("rs")) = (
            path.file_stem().and_then(|s| s.to_str()),
            path.extension().and_then(|s| s.to_str()),
        ) else {
            continue;
        };
        let target = format!("path = \"tests/{stem}.rs\"");
        let own = format!("name = \"{stem}\"");
        let declared = std::fs::read_dir(&tests).unwrap().any(|root_file| {
            let root_file = root_file.unwrap().path();
            let text = std::fs::read_to_string(&root_file).unwrap_or_default();
            manifest.contains(&format!(
                "path = \"tests/{}\"",
                root_file.file_name().unwrap().to_string_lossy()
            )) && text.lines().any(|l| l.trim() == format!("mod {stem};"))
        });
        if !(declared || manifest.contains(&target) || manifest.contains(&own)) {
            undeclared.push(path.display().to_string());
        }
    }
    assert!(
        undeclared.is_empty(),
        "test files no binary declares (add `mod NAME;` to tests/main.rs): {undeclared:?}"
    );
}
