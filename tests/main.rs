//! Every libtest integration test of the `scopecheck` CLI, in one binary: one compile and one
//! link instead of one per file (issue 33). Each file keeps its content and becomes a module
//! here; files that need the `gpu` feature are compiled only with it, as their
//! `required-features` used to say. The `harness = false` checks (the shared oracle, the CUDA
//! corpus, the libFuzzer smoke run) are libtest-mimic trials in `tests/oracles.rs`;
//! `tests/readme_transcripts.rs` stays its own binary.
//!
//! ADDING A TEST FILE: put `tests/NAME.rs` beside this file and add `mod NAME;` below (in
//! alphabetical order, behind `#[cfg(feature = "gpu")]` when it needs the GPU feature); Cargo no
//! longer discovers test files on its own (`autotests = false`). The shared helpers are the
//! modules `runner` and `herd_shape`: write `use crate::runner;`, not `mod runner;`. Run one
//! file's tests with `cargo test --release --test cli -- NAME::`.

mod herd_shape;
mod runner;

mod check_cli;
mod corpus;
mod dot_cli;
mod examples_cli;
mod fuzz_cli;
#[cfg(feature = "gpu")]
mod fuzz_gpu;
mod fuzz_smoke_skip;
mod gpu_cli;
mod hostile;
mod kernel_cli;
mod layering;
mod litmus_bad_input;
mod litmus_cli;
mod litmus_herd;
mod liveness_cli;
mod manifests;
mod models_cli;
mod verdicts_cli;

/// With `autotests = false`, a test file nobody declares is never compiled and never runs: in
/// every crate of the workspace (this one, `model/`, `gpu-validate/`), every `.rs` file in
/// `tests/` must be a module of one of that crate's test binaries (`mod NAME;` in a file that
/// `Cargo.toml` names as a `[[test]]` path), or a `[[test]]` target of its own.
#[test]
fn every_test_file_is_declared() {
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut undeclared = Vec::new();
    for root in [
        workspace.to_path_buf(),
        workspace.join("model"),
        workspace.join("gpu-validate"),
    ] {
        let tests = root.join("tests");
        let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
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
    }
    assert!(
        undeclared.is_empty(),
        "test files no binary declares (add `mod NAME;` to that crate's tests/main.rs): {undeclared:?}"
    );
}

/// A folder of test modules (`model/tests/unit/`, a `mod.rs` beside its files) declares every
/// file in it: `autotests = false` means nothing else would notice a file left out.
#[test]
fn every_test_module_folder_declares_its_files() {
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut undeclared = Vec::new();
    let mut files = Vec::new();
    for root in ["tests", "model/tests", "gpu-validate/tests"] {
        files_under(&workspace.join(root), &mut files);
    }
    for entry in files.iter().filter(|p| p.ends_with("mod.rs")) {
        let dir = entry.parent().unwrap();
        let text = std::fs::read_to_string(entry).unwrap();
        for file in std::fs::read_dir(dir).unwrap() {
            let path = file.unwrap().path();
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            let folder = path.is_dir() && path.join("mod.rs").exists();
            let file = path.extension().and_then(|s| s.to_str()) == Some("rs") && stem != "mod";
            if !(folder || file) {
                continue;
            }
            if !text.lines().any(|l| l.trim() == format!("mod {stem};")) {
                undeclared.push(path.display().to_string());
            }
        }
    }
    assert!(
        undeclared.is_empty(),
        "test modules their folder's mod.rs does not declare: {undeclared:?}"
    );
}

/// The libraries have no `#[cfg(test)]` modules: their `[lib] test = false` (one compile of each
/// library in `cargo test`, issue 33) means such a module would never run. Module tests go in
/// `model/tests/unit/` or `gpu-validate/tests/unit/`, one file per module.
#[test]
fn the_libraries_hold_no_unit_tests() {
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for root in ["model/src", "gpu-validate/src"] {
        let mut files = Vec::new();
        files_under(&workspace.join(root), &mut files);
        for path in files
            .iter()
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        {
            let text = std::fs::read_to_string(path).unwrap();
            for (n, line) in text.lines().enumerate() {
                let line = line.trim();
                if line == "#[test]" || line.starts_with("#[cfg(test)]") {
                    found.push(format!("{}:{}", path.display(), n + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "unit tests in a library that runs none (move them to its tests/unit/): {found:?}"
    );
}

/// Every file under `dir`, recursively (the sources hold no symbolic links).
fn files_under(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}
