//! Inputs a user will produce that must never crash or exhaust `scopecheck`: each is written
//! here, run through the built binary under a 1 GiB address-space limit, and must end with exit
//! status 2 and a one-line `file:line:col: message` error (or be accepted with herd's meaning),
//! with no panic, while the other files of the same run are still reported.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// The memory a run may use: an allocation past it fails and aborts the process, which fails
/// the test.
const MEMORY_LIMIT: u64 = 1 << 30;

/// A guard against a hang (not a timing assertion): a run still going after this is killed and
/// the test fails.
const HANG_GUARD: Duration = Duration::from_secs(120);

fn command(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_scopecheck"));
    cmd.args(args);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: setrlimit is async-signal-safe and touches only the child's limits.
        unsafe {
            cmd.pre_exec(|| {
                let limit = libc::rlimit {
                    rlim_cur: MEMORY_LIMIT,
                    rlim_max: MEMORY_LIMIT,
                };
                if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    cmd
}

/// Waits for `child`, killing it (and failing) if it runs past the hang guard.
fn finish(mut child: Child) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait works") {
            return status;
        }
        if start.elapsed() > HANG_GUARD {
            child.kill().ok();
            panic!("scopecheck still running after {HANG_GUARD:?}: a hang");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn scopecheck(args: &[&str]) -> Output {
    // Output goes to files, so that a run that hangs can be killed by the guard.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bad-input-output");
    std::fs::create_dir_all(&dir).unwrap();
    let id = format!("{:?}", std::thread::current().id())
        .replace(|c: char| !c.is_ascii_alphanumeric(), "");
    let (out_path, err_path) = (dir.join(format!("{id}.out")), dir.join(format!("{id}.err")));
    let child = command(args)
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("the binary runs");
    let status = finish(child);
    Output {
        status,
        stdout: std::fs::read(&out_path).unwrap(),
        stderr: std::fs::read(&err_path).unwrap(),
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("bad-input")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, file: &str, text: impl AsRef<[u8]>) -> String {
    let path = dir.join(file);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

const GOOD: &str = "PTX Good
{ x=0; }
 P0@cta 0,gpu 0 ;
 st.weak x, 1   ;
exists (x == 1)
";

/// A test whose threads are those of `GOOD`, with this condition.
fn with_condition(condition: &str) -> String {
    format!("PTX Bad\n{{ x=0; }}\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\n{condition}\n")
}

/// Exit status 2, no panic, one error line for `file` (with `line:col` when given), and the
/// good file of the run reported on stdout.
fn assert_rejected(out: &Output, file: &str, at: Option<&str>, words: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.contains(file))
        .unwrap_or_else(|| panic!("no error line names {file}:\n{stderr}"));
    if let Some(at) = at {
        assert!(line.starts_with(&format!("{file}:{at}:")), "{line}");
    }
    assert!(line.contains(words), "{line}");
    assert!(
        stdout.contains("Test Good"),
        "the good file is reported:\n{stdout}"
    );
}

#[test]
fn ten_thousand_nested_parentheses_are_an_error_not_a_stack_overflow() {
    let dir = scratch("parens");
    let cond = format!(
        "exists {}P0:r0 == 0{}",
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    let bad = write(&dir, "a-deep.litmus", with_condition(&cond));
    write(&dir, "b-good.litmus", GOOD);
    let out = scopecheck(&["litmus", dir.to_str().unwrap()]);
    // The 101st parenthesis is at column 8 + 100.
    assert_rejected(&out, &bad, Some("5:108"), "nested too deep");
}

#[test]
fn fifty_thousand_term_conjunction_is_an_error_not_a_stack_overflow() {
    let dir = scratch("chain");
    let terms = vec!["P0:r0 == 0"; 50_000].join(" /\\ ");
    let bad = write(
        &dir,
        "a-chain.litmus",
        with_condition(&format!("exists ({terms})")),
    );
    write(&dir, "b-good.litmus", GOOD);
    let out = scopecheck(&["litmus", dir.to_str().unwrap()]);
    assert_rejected(&out, &bad, Some("5"), "condition too large");
}

#[test]
fn ten_thousand_negations_are_an_error_not_a_stack_overflow() {
    let dir = scratch("nots");
    let cond = format!("exists {}(P0:r0 == 0)", "~".repeat(10_000));
    let bad = write(&dir, "a-nots.litmus", with_condition(&cond));
    write(&dir, "b-good.litmus", GOOD);
    let out = scopecheck(&["litmus", dir.to_str().unwrap()]);
    assert_rejected(&out, &bad, Some("5"), "condition too large");
}

#[test]
fn a_huge_unroll_bound_stops_at_the_event_budget() {
    let dir = scratch("unroll");
    // A loop that never exits, one whose exit depends on a loaded value, one without events.
    let stores = write(
        &dir,
        "a-stores.litmus",
        "PTX Stores\n{ x=0; }\n P0@cta 0,gpu 0 ;\n L:             ;\n st.weak x, 1   ;\n goto L         ;\nexists (x == 1)\n",
    );
    let spin = write(
        &dir,
        "a-spin.litmus",
        "PTX Spin\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n L:             | st.weak x, 1   ;\n ld.weak r0, x  |                ;\n beq r0, 0, L   |                ;\nexists (P0:r0 == 1)\n",
    );
    let empty = write(
        &dir,
        "a-empty.litmus",
        "PTX Empty\n{ x=0; }\n P0@cta 0,gpu 0 ;\n L:             ;\n goto L         ;\nexists (x == 0)\n",
    );
    write(&dir, "b-good.litmus", GOOD);
    let out = scopecheck(&["litmus", "--unroll", "1000000000", dir.to_str().unwrap()]);
    for file in [&stores, &spin, &empty] {
        assert_rejected(&out, file, Some("3:2"), "lower --unroll");
    }
}

#[cfg(unix)]
#[test]
fn symlink_cycles_are_walked_once() {
    let dir = scratch("cycles");
    let (a, b) = (dir.join("a"), dir.join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    write(&a, "one.litmus", GOOD.replace("Good", "One"));
    write(&b, "two.litmus", GOOD.replace("Good", "Two"));
    // A link to its own directory, and two links leading into each other's directory.
    std::os::unix::fs::symlink(".", a.join("self")).unwrap();
    std::os::unix::fs::symlink("../b", a.join("to-b")).unwrap();
    std::os::unix::fs::symlink("../a", b.join("to-a")).unwrap();
    let out = scopecheck(&["litmus", dir.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(stdout.matches("Test One").count(), 1, "{stdout}");
    assert_eq!(stdout.matches("Test Two").count(), 1, "{stdout}");
}

#[cfg(unix)]
#[test]
fn an_unreadable_entry_names_its_path_and_the_rest_is_reported() {
    let dir = scratch("unreadable");
    write(&dir, "b-good.litmus", GOOD);
    // A link to nothing cannot be read, even by root (unlike a directory with mode 000).
    std::os::unix::fs::symlink("nowhere", dir.join("a-dangling")).unwrap();
    let out = scopecheck(&["litmus", dir.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("{}", dir.join("a-dangling").display())),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("Test Good"));
}

#[test]
fn invalid_utf8_names_the_file_and_the_byte() {
    let dir = scratch("utf8");
    let mut text = b"PTX Bad\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ; \xff\n".to_vec();
    text.extend_from_slice(b"exists (x == 1)\n");
    let bad = write(&dir, "a-bad.litmus", text);
    write(&dir, "b-good.litmus", GOOD);
    let out = scopecheck(&["litmus", dir.to_str().unwrap()]);
    assert_rejected(&out, &bad, Some("4:17"), "invalid UTF-8 (byte 0xFF)");
}

#[test]
fn an_unterminated_comment_points_at_its_opening() {
    let dir = scratch("comment");
    let bad = write(
        &dir,
        "a-bad.litmus",
        with_condition("exists (P0:r0 == 0) (* (* *)"),
    );
    write(&dir, "b-good.litmus", GOOD);
    let out = scopecheck(&["litmus", dir.to_str().unwrap()]);
    assert_rejected(&out, &bad, Some("5:21"), "unterminated comment");
}

/// Reads one line of a run's output, closes the pipe and waits: the run must end quietly (exit
/// 0, or killed by SIGPIPE as other Unix tools are), never with a panic.
fn assert_quiet_on_broken_pipe(args: &[&str]) {
    let mut child = command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(!first.is_empty(), "{args:?} printed nothing");
    // The reader is dropped here: the pipe is closed.
    let mut stderr = child.stderr.take().unwrap();
    let status = finish(child);
    let mut text = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut text).unwrap();
    assert!(!text.contains("panicked"), "{args:?}: {text}");
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert!(
            status.success() || status.signal() == Some(libc::SIGPIPE),
            "{args:?}: {status:?} {text}"
        );
    }
    #[cfg(not(unix))]
    assert!(status.success(), "{args:?}: {status:?} {text}");
}

#[test]
fn a_closed_pipe_ends_every_printing_subcommand_quietly() {
    let dir = scratch("pipe");
    // Well past a pipe's buffer of output, so that writes meet the closed pipe.
    let mut manifest = String::from("file,model,expected\n");
    for i in 0..1200 {
        let name = format!("t{i:04}.litmus");
        write(&dir, &name, GOOD.replace("Good", &format!("Good{i}")));
        manifest += &format!("{name},ptx-v7.5,allowed\n");
    }
    write(&dir, "MANIFEST.csv", manifest);
    let d = dir.to_str().unwrap();
    assert_quiet_on_broken_pipe(&["litmus", d]);
    assert_quiet_on_broken_pipe(&["litmus", "--json", d]);
    assert_quiet_on_broken_pipe(&["check", "--verbose", d]);
}

const SB: &str = "PTX SB
{ x=0; y=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.weak x, 1   | st.weak y, 1   ;
 ld.weak r0, y  | ld.weak r1, x  ;
";

/// herd7 prints `Ok` when the condition validates: exists, some state satisfies the
/// proposition; ~exists, none does; forall, all do.
#[test]
fn herd_ok_follows_the_quantifier() {
    let dir = scratch("ok");
    let cases = [
        ("exists (P0:r0 == 0 /\\ P1:r1 == 0)", "Ok"),
        ("~exists (P0:r0 == 0 /\\ P1:r1 == 0)", "No"),
        ("~exists (P0:r0 == 2)", "Ok"),
        ("forall (x == 1 /\\ y == 1)", "Ok"),
        ("forall (P0:r0 == 1)", "No"),
        ("exists (P0:r0 == 2)", "No"),
    ];
    for (i, (cond, word)) in cases.iter().enumerate() {
        let file = write(&dir, &format!("c{i}.litmus"), format!("{SB}{cond}\n"));
        let out = scopecheck(&["litmus", &file]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{stdout}");
        assert!(
            stdout.lines().any(|l| l == *word),
            "{cond}: expected {word}:\n{stdout}"
        );
    }
}

/// A byte order mark, herd's nested `(* *)` comments in every section, `locations` and
/// `filter`: accepted with herd's meaning.
#[test]
fn herd_syntax_is_accepted_with_herds_meaning() {
    let dir = scratch("herd-syntax");
    let text = "\u{feff}PTX MP (* a (* nested *) comment *)
{ x=0; y=0; (* initial state *) }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.weak x, 1        | ld.acquire.gpu r0, y ; (* spans
                                                 two lines *)
 st.release.gpu y, 1 | ld.weak r1, x        ;
locations [x; 1:r0;]
filter (1:r0 == 1)
forall (1:r1 == 1 (* inside the condition *))
";
    let file = write(&dir, "mp.litmus", text);
    let out = scopecheck(&["litmus", "--json", &file]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    // The filter keeps the executions where the flag was seen: there the data is seen too.
    let states = report["states"].as_array().unwrap();
    assert_eq!(states.len(), 1, "{stdout}");
    assert_eq!(states[0]["regs"]["P1:r0"], 1);
    assert_eq!(report["holds"], true, "{stdout}");
}
