//! From a program to events: each thread is run on its own, giving every *path* it can take
//! (loops unrolled up to a bound), with the values its loads return left symbolic.
//!
//! A load's value is [`Expr::Read`] of its own event; registers, stored values and barrier ids
//! are expressions over such reads. Where a branch or a CAS depends on a loaded value, the path
//! forks and each side records the condition it assumed. `values/` later chooses reads-from,
//! computes the values along it and keeps the choices that satisfy every condition: the
//! *traces* (paths with concrete values) that `enumerate.rs` turns into candidate executions.
//!
//! Each event remembers the reads it depends on (data dependencies through registers and control
//! dependencies through branches), which the No-Thin-Air axiom needs.

mod async_ops;
mod event;
mod expr;
mod limits;
mod memory;
mod path;
mod registers;
mod state;
mod unroll;

pub use event::{ClusterBarrier, Kind, ThreadEvent, Trace};
pub use expr::Expr;
pub use limits::{MAX_PATH_EVENTS, MAX_STEPS, MAX_THREAD_EVENTS};
pub use memory::split_rmw;
pub use path::{Assumption, Lasso, Path, Paths, TraceError};
pub use registers::registers;

use crate::litmus::Program;
use unroll::thread_paths;

/// Every path of every thread.
pub fn paths(p: &Program, unroll: u32) -> Result<Paths, TraceError> {
    let per_thread = (0..p.threads.len())
        .map(|t| thread_paths(p, t, unroll, false))
        .collect::<Result<_, _>>()?;
    Ok(Paths { per_thread })
}

/// Every path of every thread, each cut path with its last iteration ([`Path::lasso`]); a path
/// is also cut at every taking of a backward branch that was taken before (not only where the
/// bound cuts it), so that a repeated iteration may follow any shorter prefix.
pub fn paths_with_lassos(p: &Program, unroll: u32) -> Result<Paths, TraceError> {
    let per_thread = (0..p.threads.len())
        .map(|t| thread_paths(p, t, unroll, true))
        .collect::<Result<_, _>>()?;
    Ok(Paths { per_thread })
}
