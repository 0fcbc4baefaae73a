//! What `cargo publish` and a library user see of the three crates, read from
//! `cargo metadata` (and `cargo package --list` for what the CLI package ships): every path
//! dependency also names a version (crates.io resolves only versions), every crate declares its
//! licence (whose text ships in `LICENSE`), its minimum Rust, a description, docs and readme; loom, shuttle
//! and arbitrary are optional, on by default; no dependency is declared that no code uses
//! (`criterion`); the CLI package leaves out the GPU observation logs.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn cargo(args: &[&str]) -> String {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(args)
        .current_dir(ROOT)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("cargo prints UTF-8")
}

fn packages() -> Vec<Value> {
    let text = cargo(&[
        "metadata",
        "--format-version",
        "1",
        "--no-deps",
        "--offline",
    ]);
    let meta: Value = serde_json::from_str(&text).expect("cargo metadata prints JSON");
    let packages = meta["packages"].as_array().expect("packages").clone();
    let mut names: Vec<&str> = packages
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["scopecheck", "scopecheck-gpu", "scopecheck-model"]);
    packages
}

fn package<'p>(packages: &'p [Value], name: &str) -> &'p Value {
    packages.iter().find(|p| p["name"] == name).unwrap()
}

#[test]
fn path_dependencies_name_a_version() {
    for p in packages() {
        for d in p["dependencies"].as_array().unwrap() {
            if d["path"].is_string() && d["kind"].is_null() {
                assert_ne!(
                    d["req"], "*",
                    "{} depends on {} by path only: crates.io cannot resolve it",
                    p["name"], d["name"]
                );
            }
        }
    }
}

#[test]
fn every_crate_declares_licence_msrv_and_description() {
    let licence = std::fs::read_to_string(Path::new(ROOT).join("LICENSE")).expect("a LICENSE");
    assert!(licence.contains("MIT License"), "{licence}");
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    for p in packages() {
        assert_eq!(p["license"], "MIT", "{}", p["name"]);
        let msrv = p["rust_version"]
            .as_str()
            .unwrap_or_else(|| panic!("{}", p["name"]));
        assert!(
            readme.contains(&format!("Rust {msrv} or newer")),
            "README states the MSRV {msrv}"
        );
        for field in ["description", "documentation", "readme"] {
            assert!(
                p[field].as_str().is_some_and(|s| !s.is_empty()),
                "{} has no {field}",
                p["name"]
            );
        }
        assert!(
            !p["keywords"].as_array().unwrap().is_empty(),
            "{}",
            p["name"]
        );
    }
}

#[test]
fn loom_shuttle_and_arbitrary_are_default_features_of_the_model() {
    let packages = packages();
    let model = package(&packages, "scopecheck-model");
    for dep in ["loom", "shuttle", "arbitrary"] {
        let d = model["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["name"] == dep && d["kind"].is_null())
            .unwrap_or_else(|| panic!("{dep} is a dependency"));
        assert_eq!(d["optional"], true, "{dep} is compiled by every user");
        let default = model["features"]["default"].as_array().unwrap();
        assert!(
            default.contains(&Value::from(dep)),
            "{dep} is on by default"
        );
    }
}

#[test]
fn no_unused_benchmark_harness_is_declared() {
    for p in packages() {
        for d in p["dependencies"].as_array().unwrap() {
            assert_ne!(
                d["name"], "criterion",
                "{}: no benchmark uses criterion",
                p["name"]
            );
        }
    }
}

#[test]
fn the_cli_package_ships_no_gpu_observations() {
    let files = cargo(&[
        "package",
        "-p",
        "scopecheck",
        "--list",
        "--allow-dirty",
        "--offline",
    ]);
    assert!(files.lines().any(|f| f == "src/main.rs"), "{files}");
    assert!(files.lines().any(|f| f == "LICENSE"), "{files}");
    let shipped: Vec<&str> = files
        .lines()
        .filter(|f| {
            f.starts_with("corpus/gpu-observations") || f.starts_with("corpus/gpu-campaign")
        })
        .collect();
    assert!(shipped.is_empty(), "{shipped:?}");
}

#[test]
fn readme_says_how_to_install_and_where_shared_data_lives() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    for needle in ["cargo install --path .", "../shared", "SCOPECHECK_SHARED"] {
        assert!(readme.contains(needle), "README lacks `{needle}`");
    }
}

/// Source, scripts and configuration name no path of one machine (`/work/...`, `/home/...`):
/// shared data is found through `$SCOPECHECK_SHARED` or `../shared`. (Recorded logs under
/// `corpus/gpu-observations` and `fuzz/campaigns` quote the paths of the runs they record.)
#[test]
fn no_source_names_an_absolute_machine_path() {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if ![
                    "target",
                    ".git",
                    "gpu-observations",
                    "artifacts",
                    "campaigns",
                ]
                .contains(&name.as_str())
                {
                    walk(&path, out);
                }
            } else if [".rs", ".toml", ".sh", ".yaml", ".yml", "Dockerfile", "run"]
                .iter()
                .any(|ext| name.ends_with(ext))
            {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(Path::new(ROOT), &mut files);
    assert!(files.len() > 50, "{} files", files.len());
    let this = file!().replace('\\', "/");
    let mut found = Vec::new();
    for f in &files {
        if f.to_string_lossy().replace('\\', "/").ends_with(&this) {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for (i, line) in text.lines().enumerate() {
            if ["\"/work/", "\"/home/", "\"/root/", " /work/", " /home/"]
                .iter()
                .any(|p| line.contains(p))
            {
                found.push(format!("{}:{}: {line}", f.display(), i + 1));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
