//! SIGINT (Ctrl-C) and SIGTERM: the first asks the running search to stop and report what it
//! found so far, marked *interrupted*; a second ends the program at once (exit status 130), and
//! so does the first, [`GRACE`] later, if the program is still running (a phase that does not
//! look at the flag, such as reading a huge input, cannot keep it alive).
//!
//! The handlers only set a flag (`signal_hook::flag`, async-signal-safe); the searches read it
//! through their budget (`scopecheck_model::axiomatic::Options::interrupt`) and the CLI loops
//! between tests.

use signal_hook::consts::{SIGINT, SIGTERM};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// Exit status of a run cut short by a signal (128 + SIGINT, as shells report Ctrl-C).
pub const EXIT_INTERRUPTED: u8 = 130;

/// How long the program may take to report after the first signal.
pub const GRACE: Duration = Duration::from_secs(5);

static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// Installs the handlers (once) and returns the flag they set.
pub fn flag() -> Arc<AtomicBool> {
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        for signal in [SIGINT, SIGTERM] {
            // A second signal, the flag already set, exits at once; registered first, so it
            // sees the flag before the first handler sets it. Registering can only fail for a
            // forbidden signal number, which these are not; without the handler, the signal
            // keeps its default action (ending the program), which is still safe.
            let _ = signal_hook::flag::register_conditional_shutdown(
                signal,
                i32::from(EXIT_INTERRUPTED),
                Arc::clone(&flag),
            );
            let _ = signal_hook::flag::register(signal, Arc::clone(&flag));
        }
        let watched = Arc::clone(&flag);
        std::thread::spawn(move || {
            while !watched.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50));
            }
            std::thread::sleep(GRACE);
            eprintln!("scopecheck: interrupted");
            std::process::exit(i32::from(EXIT_INTERRUPTED));
        });
        flag
    })
    .clone()
}

/// Whether a SIGINT or SIGTERM has arrived.
pub fn requested() -> bool {
    FLAG.get().is_some_and(|f| f.load(Ordering::Relaxed))
}
