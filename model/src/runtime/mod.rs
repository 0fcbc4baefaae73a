//! The scoped operational memory model both engines share.
//!
//! Each store records its value, writer, order and scope, and the release heads an acquire may
//! join. A load checks races against every access it is not ordered after, then reads a store the
//! engine picks among those not older than the thread's coherence floor; it joins the store's
//! release heads only if the pair is morally strong and the load (or a later acquire fence)
//! acquires. RMWs read the newest store. `fence.sc` synchronizes with every earlier morally strong
//! `fence.sc`. `syncthreads` joins the views of every thread of the block. Modification order is
//! execution order, so load buffering is not reachable: runtime outcomes ⊆ axiomatic outcomes.
//!
//! Modules: [`view`] (vector clocks per scope-widening level, coherence floors), [`memory`]
//! (stores and accesses per location), [`sync`] (moral strength, release heads, fences),
//! [`race`] (data and scoped races), [`spin`] (spin loops with await semantics), [`bank`] (bank
//! conflicts), [`machine`] (one execution's
//! state and the semantics of each operation), [`ctx`] (a GPU thread's handle), [`driver`]
//! (running executions), [`report`] (failure kinds, traces, replay tokens), [`litmus`] (litmus
//! programs as kernels), [`mbarrier`] (PTX mbarrier phases), [`async_copy`] (bulk copies as an
//! asynchronous agent per block, the async proxy), [`tokens`] (Tile IR token order inside a
//! tile block), [`barriers`] (named barriers with thread counts, voting barriers), [`warp`]
//! (`syncwarp`, shuffles and votes among the lanes of a mask), [`noncoherent`]
//! (`ld.global.nc`).
//!
//! # Limits
//! - Load buffering (reading a po-later store of another thread) is never reached.
//! - Proxies are modelled for bulk copies only: a copy's accesses are in the async proxy, and
//!   generic-proxy writes reach it only through `fence.proxy.async` (see [`async_copy`]); every
//!   other access uses its physical location generically.
//! - A spin loop should call `spin_loop()` once per failed iteration (see [`spin`]: a failed
//!   iteration that stores nothing must leave the thread's own state as it was); otherwise an
//!   unfair schedule may spin until the step bound, which is reported as a *bounded* possible
//!   hang.
//! - One copy agent per block performs that block's bulk copies in issue order (a litmus
//!   program has one per bulk-copy statement); the agent's clock orders its copies one after
//!   another.
//! - Tile IR token order is checked within a tile block; across blocks a block's operations
//!   synchronize in program order (stronger than Tile IR; the axiomatic `tile-ir` model is exact).
//!
//! # How the asynchronous parts hang together
//! - *Blocking and waking*: mbarrier waits and `bulk_wait` are [`machine::Status`] variants. The
//!   operation sets one and returns "blocked"; [`Ctx`] parks through the engine until the
//!   operation that satisfies the wait (a phase completion, a copy completion) marks the thread
//!   running and pushes it on `Machine::wake`. Hang diagnosis (every live thread blocked, no
//!   copy agent at work: a proven hang, reported with its lasso) covers them.
//! - *Asynchronous agents*: each block's copy agent is one more [`ThreadInfo`] (`agent: true`)
//!   in the [`Setup`], run by [`async_copy::agent_main`]. Engines schedule it like any GPU
//!   thread, so every interleaving of a copy's element stores with the kernel's accesses is
//!   explored; it sleeps while it has nothing to copy and completes copies through the
//!   mbarrier's tx-count.

pub mod advice;
pub mod async_copy;
pub mod async_groups;
pub mod bank;
pub mod barriers;
pub mod cluster;
pub mod cp_async;
pub mod ctx;
pub mod driver;
pub mod exchange;
pub mod footprint;
pub mod litmus;
pub mod machine;
pub mod mbarrier;
pub mod memory;
pub mod mixed_size;
pub mod noncoherent;
pub mod panics;
pub mod race;
pub mod report;
pub mod spin;
mod state_key;
pub mod sync;
pub mod tokens;
pub mod view;
pub mod warp;

pub use ctx::Ctx;
pub use driver::{explore, Body, FailureReport, LassoReport};
pub use machine::{Machine, Setup, ThreadInfo};
pub use report::{Decision, FailureKind, Token};
