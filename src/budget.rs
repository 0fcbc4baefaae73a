//! The default budget of a `scopecheck litmus` search: a time and a memory bound after which it
//! answers with the states found so far, marked *bounded*, rather than running until killed.

use std::time::Duration;

/// The default time bound of one test's search.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The default memory bound, when the address space is not limited lower.
pub const DEFAULT_MAX_MEMORY: u64 = 4 << 30;

/// The time bound: the one given (0 for none), else [`DEFAULT_TIMEOUT`].
pub fn timeout(given: Option<Duration>) -> Option<Duration> {
    match given {
        Some(t) if t.is_zero() => None,
        Some(t) => Some(t),
        None => Some(DEFAULT_TIMEOUT),
    }
}

/// The memory bound in bytes: the one given in MiB (0 for none), else [`DEFAULT_MAX_MEMORY`]
/// or half the address-space limit (`RLIMIT_AS`), whichever is lower, so that the
/// search stops with an answer before an allocation fails.
pub fn max_memory(given_mib: Option<u64>) -> Option<u64> {
    match given_mib {
        Some(0) => None,
        Some(mib) => Some(mib.saturating_mul(1 << 20)),
        None => Some(address_space_limit().map_or(DEFAULT_MAX_MEMORY, |limit| {
            DEFAULT_MAX_MEMORY.min(limit / 2)
        })),
    }
}

/// The soft address-space limit (`ulimit -v`), if there is one.
fn address_space_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the limit into the struct it is given, nothing else.
        let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } == 0;
        if ok && limit.rlim_cur != libc::RLIM_INFINITY {
            return Some(limit.rlim_cur);
        }
    }
    None
}
