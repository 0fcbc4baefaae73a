//! How far one thread's unrolling may go before the engine gives up with an error.

/// The most paths one thread may have before we give up.
pub(super) const MAX_PATHS: usize = 200_000;

/// The most events one path of a thread may have: far more than an execution the engine can
/// search, so a longer path only means a loop unrolled past any use (a huge `--unroll`, or a
/// loop that never exits); checked while unrolling, before the events are allocated.
pub const MAX_PATH_EVENTS: usize = 1024;

/// The most events all the paths of one thread may hold together (memory stays in the low
/// hundreds of megabytes).
pub const MAX_THREAD_EVENTS: usize = 1_000_000;

/// The most statements one thread's unrolling may step through, over all its paths: a loop
/// without events (`L: goto L`) under a huge `--unroll` ends here instead of spinning.
pub const MAX_STEPS: u64 = 2_000_000;
