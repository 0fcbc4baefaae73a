//! Running the built binary on one hostile case, under a 1 GiB address-space limit and a 10 s
//! kill, and judging how it ended ([`Expect`]).

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub(super) const MEMORY: u64 = 1 << 30;

pub(super) const KILL_AFTER: Duration = Duration::from_secs(10);

/// What a case must end with.
#[derive(Clone, Debug)]
pub(crate) enum Expect {
    /// Exit 2; the first line of standard error starts with this (a place `file:line:col:` or
    /// the error's words).
    Error(String),
    /// Exit 0 or 1 with a report on standard output containing this.
    Answer(&'static str),
}

pub(super) struct Outcome {
    pub(super) code: Option<i32>,
    pub(super) stdout: String,
    pub(super) stderr: String,
}

pub(super) fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_scopecheck")
}

pub(super) fn limited(cmd: &mut Command) -> &mut Command {
    // SAFETY: setrlimit is async-signal-safe and touches only the child's limits.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: MEMORY,
                rlim_max: MEMORY,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    }
}

/// Runs the binary with `args` (standard output into `stdout_to` when given), killing it after
/// [`KILL_AFTER`]; `signal` is sent after the delay given.
pub(super) fn run(
    args: &[&str],
    stdout_to: Option<&str>,
    signal: Option<(i32, Duration)>,
) -> Result<Outcome, String> {
    let mut cmd = Command::new(bin());
    cmd.args(args).stdin(Stdio::null()).stderr(Stdio::piped());
    match stdout_to {
        Some(path) => {
            let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
            cmd.stdout(f);
        }
        None => {
            cmd.stdout(Stdio::piped());
        }
    }
    let mut child = limited(&mut cmd).spawn().expect("spawn scopecheck");
    let (mut out, mut err) = (child.stdout.take(), child.stderr.take().unwrap());
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(o) = out.as_mut() {
            let _ = o.read_to_end(&mut s);
        }
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let start = Instant::now();
    let mut signalled = false;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if let Some((sig, after)) = signal {
            if !signalled && start.elapsed() >= after {
                // SAFETY: kill sends a signal to the child we spawned.
                unsafe { libc::kill(child.id() as i32, sig) };
                signalled = true;
            }
        }
        if start.elapsed() > KILL_AFTER {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("scopecheck {args:?} ran past {KILL_AFTER:?}"));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    use std::os::unix::process::ExitStatusExt;
    if let Some(sig) = status.signal() {
        let stderr = String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned();
        return Err(format!(
            "scopecheck {args:?} died of signal {sig}: {}",
            stderr.lines().take(3).collect::<Vec<_>>().join(" / ")
        ));
    }
    Ok(Outcome {
        code: status.code(),
        stdout: String::from_utf8_lossy(&reader.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned(),
    })
}

pub(super) fn check(name: &str, args: &[&str], expect: &Expect) -> Result<(), String> {
    let o = run(args, None, None).map_err(|e| format!("{name}: {e}"))?;
    judge(name, args, &o, expect)
}

pub(super) fn judge(name: &str, args: &[&str], o: &Outcome, expect: &Expect) -> Result<(), String> {
    let first = o.stderr.lines().next().unwrap_or("");
    let bad = |why: &str| {
        Err(format!(
            "{name}: {why}\n  args {args:?}\n  exit {:?}\n  stderr {}\n  stdout {}",
            o.code,
            o.stderr.chars().take(600).collect::<String>(),
            o.stdout.chars().take(300).collect::<String>()
        ))
    };
    if o.stderr.contains("panicked") || o.stderr.contains("overflowed its stack") {
        return bad("panicked");
    }
    if first.len() > 1200 {
        return bad("the error is not one line of reasonable length");
    }
    match expect {
        Expect::Error(start) => {
            if o.code != Some(2) {
                return bad("expected exit status 2");
            }
            if !first.contains(start.as_str()) {
                return bad(&format!(
                    "expected the first error line to contain `{start}`"
                ));
            }
        }
        Expect::Answer(text) => {
            if !matches!(o.code, Some(0 | 1)) {
                return bad("expected an answer (exit 0 or 1)");
            }
            if !o.stdout.contains(text) {
                return bad(&format!("expected `{text}` in the report"));
            }
        }
    }
    Ok(())
}

pub(super) fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("scopecheck-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub(super) fn write(d: &Path, name: &str, text: impl AsRef<[u8]>) -> String {
    let p = d.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// In place of an error's place: the input is sound, and a report is expected.
pub(super) const ANSWER: &str = "(answer)";

pub(super) const MP: &str = "PTX MP\n{\nx=0;\ny=0;\n}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | ld.acquire.gpu r0, y ;\n st.release.gpu y, 1 | ld.relaxed.gpu r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n";
