//! The examples take `--help` and clap options, with a seed for shuttle's random and PCT engines.
//! (`cargo test` builds the examples next to the test binaries, in `target/<profile>/examples`.)

use std::path::PathBuf;
use std::process::Command;

fn example(name: &str, args: &[&str]) -> (i32, String, String) {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(|deps| deps.parent()).unwrap();
    let path: PathBuf = dir.join("examples").join(name);
    let out = Command::new(&path)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn both_examples_answer_help() {
    for name in ["producer_consumer", "mbarrier_pipeline"] {
        let (code, stdout, stderr) = example(name, &["--help"]);
        assert_eq!(code, 0, "{name}: {stdout}{stderr}");
        for option in ["--engine", "--seed", "--iterations", "--replay"] {
            assert!(
                stdout.contains(option),
                "{name} --help lacks {option}: {stdout}"
            );
        }
    }
}

#[test]
fn the_seed_reaches_shuttles_schedulers() {
    for engine in ["random", "pct"] {
        let (code, stdout, stderr) = example(
            "producer_consumer",
            &[
                "--scope",
                "block",
                "--engine",
                engine,
                "--seed",
                "7",
                "--iterations",
                "20",
            ],
        );
        assert_eq!(
            code, 1,
            "the block-scoped flag is a scoped race: {stdout}{stderr}"
        );
        assert!(stdout.contains("seed=7"), "{stdout}");
        assert!(stdout.contains("scoped race"), "{stdout}");
    }
    let (code, stdout, stderr) = example(
        "mbarrier_pipeline",
        &[
            "--stages",
            "1",
            "--engine",
            "pct",
            "--seed",
            "3",
            "--iterations",
            "20",
        ],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("seed=3"), "{stdout}");
}

#[test]
fn bad_options_are_refused_with_a_message() {
    let (code, _, stderr) = example("mbarrier_pipeline", &["--stages", "0"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--stages"), "{stderr}");
    let (code, _, stderr) = example("producer_consumer", &["--engine", "tso"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--engine"), "{stderr}");
}
