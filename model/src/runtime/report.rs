//! What an execution leaves behind: its numbered trace, its decisions (the replay token), and the
//! failure it hit, if any.

use super::memory::Bits;
use crate::scope::{Order, Scope};
use std::fmt;

/// What makes threads meet at a barrier.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BarrierKey {
    /// `syncthreads` at this call site.
    Site(Site),
    /// PTX `bar` with this barrier id.
    Id(i64),
}

/// A source location of an operation: where a Rust kernel model calls the kernel API (captured
/// with `#[track_caller]`), or the PTX instruction an interpreted CUDA thread executes, with the
/// CUDA `file:line` its last `.loc` names (see [`Site::ptx`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Site {
    file: &'static str,
    line: u32,
    column: u32,
    /// For a PTX instruction: the CUDA source file and line of the `.loc` before it.
    source: Option<(&'static str, u32)>,
}

impl Site {
    /// The location of the caller (through `#[track_caller]` functions).
    #[track_caller]
    pub fn caller() -> Site {
        std::panic::Location::caller().into()
    }

    /// A PTX instruction at `ptx_file:line:column`, whose CUDA source is `source` (`file`,
    /// `line`) when a `.loc` precedes it. The names are interned: sites are `Copy` and compared
    /// by value, and a kernel has few distinct files.
    pub fn ptx(ptx_file: &str, line: u32, column: u32, source: Option<(&str, u32)>) -> Site {
        Site {
            file: intern(ptx_file),
            line,
            column,
            source: source.map(|(f, l)| (intern(f), l)),
        }
    }

    /// The file: the Rust source file, or the PTX file.
    pub fn file(&self) -> &'static str {
        self.file
    }

    /// The line in [`Site::file`].
    pub fn line(&self) -> u32 {
        self.line
    }

    /// The column in [`Site::file`].
    pub fn column(&self) -> u32 {
        self.column
    }

    /// The CUDA source file and line of a PTX instruction, if its module has `.loc` lines.
    pub fn source(&self) -> Option<(&'static str, u32)> {
        self.source
    }
}

impl From<&'static std::panic::Location<'static>> for Site {
    fn from(l: &'static std::panic::Location<'static>) -> Site {
        Site {
            file: l.file(),
            line: l.line(),
            column: l.column(),
            source: None,
        }
    }
}

impl fmt::Display for Site {
    /// `file:line:col`; a PTX instruction with a CUDA line: `kernel.cu:12 (kernel.ptx:40:5)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.source {
            Some((file, line)) => write!(
                f,
                "{file}:{line} ({}:{}:{})",
                self.file, self.line, self.column
            ),
            None => write!(f, "{}:{}:{}", self.file, self.line, self.column),
        }
    }
}

/// One `&'static str` per distinct name (sites of PTX kernels name their files at run time).
fn intern(name: &str) -> &'static str {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock};
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    match names.get(name) {
        Some(&interned) => interned,
        None => {
            let interned: &'static str = Box::leak(name.to_string().into_boxed_str());
            names.insert(interned);
            interned
        }
    }
}

/// Read-modify-write operations.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RmwKind {
    /// `atom.add`/`red.add`: `old + b`.
    Add,
    /// `atomicSub` (PTX has none: `atom.add` of `-b`): `old - b`.
    Sub,
    /// `atom.exch`: `b`, whatever `old` was.
    Exchange,
    /// `atom.cas`: `(old == b) ? c : old`; a failed compare writes nothing.
    Cas,
    /// `atom.and`/`red.and` (bitwise).
    And,
    /// `atom.or`/`red.or` (bitwise).
    Or,
    /// `atom.xor`/`red.xor` (bitwise).
    Xor,
    /// `atom.min`/`red.min`: the smaller of `old` and `b` (signed or unsigned by the type).
    Min,
    /// `atom.max`/`red.max`: the larger of `old` and `b` (signed or unsigned by the type).
    Max,
    /// `atom.inc`: `(old >= b) ? 0 : old + 1`.
    Inc,
    /// `atom.dec`: `(old == 0 || old > b) ? b : old - 1`.
    Dec,
    /// An arrive-on, expect-tx or complete-tx of an mbarrier kept in a location as its packed
    /// state (`litmus::async_ops::MbarrierState`).
    Mbarrier,
}

impl RmwKind {
    /// The CUDA name of the operation (`atomic_add`, …).
    pub fn name(self) -> &'static str {
        match self {
            RmwKind::Add => "atomic_add",
            RmwKind::Sub => "atomic_sub",
            RmwKind::Exchange => "atomic_exchange",
            RmwKind::Cas => "atomic_cas",
            RmwKind::And => "atomic_and",
            RmwKind::Or => "atomic_or",
            RmwKind::Xor => "atomic_xor",
            RmwKind::Min => "atomic_min",
            RmwKind::Max => "atomic_max",
            RmwKind::Inc => "atomic_inc",
            RmwKind::Dec => "atomic_dec",
            RmwKind::Mbarrier => "mbarrier_update",
        }
    }
}

/// One visible step of one thread.
#[derive(Clone, Debug)]
pub struct Event {
    /// The GPU thread that performed it (grid-wide index).
    pub thread: usize,
    /// Where in the kernel's source it was performed.
    pub site: Site,
    /// What it did.
    pub what: EventKind,
}

/// What one visible step did, with the values it read and wrote.
#[derive(Clone, Debug)]
pub enum EventKind {
    /// A load (`ld`): weak when `scope` is `None`, else a strong `ld.relaxed`/`ld.acquire`.
    Load {
        /// The location read (index into the machine's locations).
        loc: usize,
        /// Its memory order (`weak`, `relaxed`, `acquire`).
        order: Order,
        /// Its scope; `None` for a weak load, which has none.
        scope: Option<Scope>,
        /// The value read.
        value: Bits,
        /// The store it read from: index into the location's stores, 0 = its initial value.
        store: usize,
    },
    /// A store (`st`): weak when `scope` is `None`, else a strong `st.relaxed`/`st.release`.
    Store {
        /// The location written.
        loc: usize,
        /// Its memory order (`weak`, `relaxed`, `release`).
        order: Order,
        /// Its scope; `None` for a weak store.
        scope: Option<Scope>,
        /// The value written.
        value: Bits,
    },
    /// A read-modify-write (`atom`, `red`): always strong, so always scoped.
    Rmw {
        /// The location.
        loc: usize,
        /// The operation.
        kind: RmwKind,
        /// Its memory order (`relaxed`, `acquire`, `release`, `acq_rel`).
        order: Order,
        /// Its scope.
        scope: Scope,
        /// The value read.
        old: Bits,
        /// The value written; `None` for a CAS whose compare failed (no write).
        new: Option<Bits>,
    },
    /// A `fence`/`membar` of this order and scope.
    Fence {
        /// `sc`, `acq_rel`, `acquire` or `release` (`fence.sc`, `fence.acq_rel`, ...).
        order: Order,
        /// The scope.
        scope: Scope,
    },
    /// An arrival at a CTA barrier: `syncthreads` or PTX `bar`.
    Barrier {
        /// The barrier arrived at.
        key: BarrierKey,
        /// Whether the thread waits for the instance to complete (`bar.sync`, `syncthreads`)
        /// rather than only arriving (`bar.arrive`).
        wait: bool,
    },
    /// A spin loop's failed iteration: the thread waits for a store newer than those it read.
    SpinWait,
    /// An mbarrier operation, a bulk copy step, a proxy fence or a token-ordered tile
    /// operation, described when it happened.
    Note(String),
}

/// The failure kinds scopecheck reports.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FailureKind {
    /// Conflicting accesses, neither ordered by happens-before nor morally strong.
    DataRace,
    /// A data race that the given (wider) scope on the strong operations would have prevented.
    ScopedRace {
        /// The narrowest scope that, given to both strong operations, makes them morally strong.
        fix: Scope,
    },
    /// A `check!`/`assert!` in the kernel (or a postcondition) failed.
    Assertion,
    /// Threads of one block reached different `syncthreads`, or some exited without one.
    BarrierDivergence,
    /// A proven hang: every live thread is blocked for good (at a barrier whose count is never
    /// reached, on an mbarrier phase that never completes, in a spin loop no remaining store can
    /// change, or in a block the GPU never makes resident), so the execution cycles forever.
    /// The report shows the lasso: the schedule so far, then the iteration that repeats.
    Hang,
    /// A thread exceeded the step bound: possibly a hang (a *bounded* result).
    PossibleHang,
    /// An mbarrier used against its PTX rules: arriving past the expected count, waiting on a
    /// phase outside the valid window, re-initialising it while in use, using it uninitialised.
    MBarrierMisuse,
    /// A CTA barrier used against its PTX rules: a named barrier id outside 0..15, a thread
    /// count that is not a multiple of the warp size or exceeds the block, or threads of one
    /// barrier instance expecting different counts.
    BarrierMisuse,
    /// A warp-synchronous operation (`syncwarp`, shuffles, votes) used against the CUDA rules:
    /// the caller outside its own mask, a mask naming a missing lane, a shuffle reading a lane
    /// not taking part, or lanes of one mask calling different operations or masks.
    WarpMisuse,
    /// An `ld.global.nc` read of a location that some thread writes during the kernel.
    NonCoherentRead,
    /// An access to a peer CTA's shared memory (distributed shared memory) after that CTA has
    /// exited: its shared memory is gone.
    UseAfterExit,
    /// An access outside every buffer of its state space (an interpreted PTX kernel's address
    /// past the end of a `--arg` buffer or a variable, or into no buffer at all).
    OutOfBounds,
    /// A read of shared memory that no thread has written yet: CUDA leaves shared memory
    /// uninitialised at launch, so the value read is undefined.
    UninitializedRead,
    /// The kernel did something the model cannot represent exactly (an access of part of an
    /// element, a strong access of several): not a verdict about the kernel, an error.
    Unsupported,
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailureKind::DataRace => f.write_str("data race"),
            FailureKind::ScopedRace { fix } => {
                write!(f, "scoped race (fixed by scope {})", scope_label(*fix))
            }
            FailureKind::Assertion => f.write_str("assertion failure"),
            FailureKind::BarrierDivergence => f.write_str("barrier divergence"),
            FailureKind::Hang => f.write_str("hang"),
            FailureKind::PossibleHang => f.write_str("possible hang (step bound exceeded)"),
            FailureKind::MBarrierMisuse => f.write_str("mbarrier misuse"),
            FailureKind::BarrierMisuse => f.write_str("barrier misuse"),
            FailureKind::WarpMisuse => f.write_str("warp misuse"),
            FailureKind::NonCoherentRead => f.write_str("non-coherent read"),
            FailureKind::UseAfterExit => f.write_str("use after exit"),
            FailureKind::OutOfBounds => f.write_str("out-of-bounds access"),
            FailureKind::UninitializedRead => f.write_str("read of uninitialised shared memory"),
            FailureKind::Unsupported => f.write_str("unsupported by the model"),
        }
    }
}

/// `device (gpu)`: the cuTile name and the PTX name of a scope.
pub fn scope_label(scope: Scope) -> String {
    let cutile = match scope {
        Scope::Cta => "block",
        Scope::Cluster => "cluster",
        Scope::Gpu => "device",
        Scope::Sys => "system",
    };
    format!("{cutile} ({})", scope.ptx_name())
}

/// A failure as the machine first sees it; the driver renders it with names and the trace.
#[derive(Clone, Debug)]
pub struct Failure {
    /// What kind of failure.
    pub kind: FailureKind,
    /// One line saying what went wrong, as the report's first line prints it.
    pub headline: String,
    /// Extra lines (the racing accesses, the diverging threads, …).
    pub details: Vec<String>,
    /// For a [`FailureKind::Hang`]: how the execution cycles.
    pub lasso: Option<Lasso>,
}

/// The lasso of a proven hang: the execution's operations so far are the prefix (the stem),
/// and from the state they reach, `cycle` repeats forever. Each spinner's iteration reads the
/// same values again (every store it may still read holds the value it read, so it writes
/// nothing and changes nothing the next iteration reads) and each blocked thread waits again:
/// the state after one round is the state before it.
#[derive(Clone, Debug)]
pub struct Lasso {
    /// Operations in the prefix (the whole trace up to the hang).
    pub prefix: usize,
    /// One round of the cycle, thread by thread.
    pub cycle: Vec<CycleStep>,
}

/// One step of a hang's repeating iteration.
#[derive(Clone, Debug)]
pub enum CycleStep {
    /// A spinner's operation performed again with the same result: the operation numbered
    /// `event` in the prefix (from 0).
    Again {
        /// The operation's number in the prefix's trace, from 0.
        event: usize,
    },
    /// A thread that waits again, in words (`block 1 thread 0 waits at bar_sync(1, 4) …`).
    Waits(String),
}

/// One decision of an execution: which thread performs the next operation, or which of the
/// offered stores (0 = newest) a load reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// This GPU thread (grid-wide index) performs the next operation.
    Run(u32),
    /// The load reads the `k`-th offered store, 0 = newest.
    Pick(u32),
}

/// A replay token: the kernel's fingerprint and every decision of one execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// [`fnv1a`] of the kernel's name, thread count and location names
    /// (`Setup::fingerprint`): a token replays only on a kernel of the same shape.
    pub fingerprint: u32,
    /// Every decision of the execution, in order.
    pub decisions: Vec<Decision>,
}

const TOKEN_PREFIX: &str = "sc1-";

impl fmt::Display for Token {
    /// `sc1-<fingerprint>-<decisions>`: threads as letters (`a` = thread 0), picks as digits,
    /// larger numbers in `(…)` and `[…]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{TOKEN_PREFIX}{:08x}-", self.fingerprint)?;
        for d in &self.decisions {
            match *d {
                Decision::Run(t) if t < 26 => write!(f, "{}", (b'a' + t as u8) as char)?,
                Decision::Run(t) => write!(f, "({t})")?,
                Decision::Pick(k) if k < 10 => write!(f, "{k}")?,
                Decision::Pick(k) => write!(f, "[{k}]")?,
            }
        }
        Ok(())
    }
}

impl std::str::FromStr for Token {
    type Err = String;

    fn from_str(s: &str) -> Result<Token, String> {
        let bad = |why: &str| format!("invalid replay token `{s}`: {why}");
        let rest = s
            .trim()
            .strip_prefix(TOKEN_PREFIX)
            .ok_or_else(|| bad("expected prefix sc1-"))?;
        let (fp, body) = rest
            .split_once('-')
            .ok_or_else(|| bad("missing fingerprint"))?;
        let fingerprint = u32::from_str_radix(fp, 16).map_err(|_| bad("fingerprint is not hex"))?;
        let mut decisions = Vec::new();
        let mut chars = body.chars();
        while let Some(c) = chars.next() {
            let number = |close: char, chars: &mut std::str::Chars| -> Result<u32, String> {
                let digits: String = chars.by_ref().take_while(|&d| d != close).collect();
                digits.parse().map_err(|_| bad("bad number"))
            };
            decisions.push(match c {
                'a'..='z' => Decision::Run(c as u32 - 'a' as u32),
                '0'..='9' => Decision::Pick(c as u32 - '0' as u32),
                '(' => Decision::Run(number(')', &mut chars)?),
                '[' => Decision::Pick(number(']', &mut chars)?),
                _ => return Err(bad(&format!("unexpected character `{c}`"))),
            });
        }
        Ok(Token {
            fingerprint,
            decisions,
        })
    }
}

/// FNV-1a, for kernel fingerprints.
pub fn fnv1a(bytes: &[u8], mut hash: u32) -> u32 {
    for &b in bytes {
        hash ^= b as u32;
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

/// FNV-1a's 32-bit offset basis: the `hash` to start [`fnv1a`] from.
pub const FNV_SEED: u32 = 0x811c_9dc5;
