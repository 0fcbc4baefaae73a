//! Engines: they decide *who runs next* and *which store a load reads* — nothing else. All
//! memory-model semantics live in [`crate::runtime`]; loom's and shuttle's own atomics are used
//! only as scheduling points and as a source of choices, never for their semantics.
//!
//! One execution runs like this: the driver (on the engine's main thread) spawns one engine
//! thread per GPU thread through [`Sched::spawn`]; before every visible operation a GPU thread
//! calls [`Sched::point`] (the engine may switch threads there); a load that may read several
//! stores asks [`Sched::choose`] (or, under loom, takes the store loom's mirror load returned);
//! a thread that must wait (barrier, spin loop) parks until another unparks it.
//!
//! Extension points for asynchronous agents (TMA copies, mbarrier completions): an agent is just
//! one more thread spawned through `spawn`, which the engine schedules like any other; blocking
//! and waking go through `park`/`unpark`.

mod clock;
pub mod dependence;
pub mod dfs;
mod explore;
#[cfg(feature = "loom")]
pub mod loom;
pub mod parallel;
mod pct;
pub mod shuttle;
mod trace;
pub mod tree;
mod urw;
mod walk;

pub use self::dependence::dependent;
pub use self::dfs::Dfs;
#[cfg(feature = "loom")]
pub use self::loom::Loom;
pub use self::shuttle::{Pct, Random, Replay, Urw};
pub use crate::runtime::sched::{
    Engine, Exploration, Flow, Footprint, GroupKey, Point, RunOne, Sched, Shape,
};
