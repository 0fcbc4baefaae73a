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
//! # Layering: imports flow one way
//! From the bottom up; a module imports only modules on its own floor or below, and never one
//! that imports it (`tests/layering.rs` checks the whole crate):
//! 1. *Plain data*: [`view`] (vector clocks per scope-widening level, coherence floors),
//!    [`memory`] (stores and accesses per location), [`sync`] (moral strength, release heads,
//!    fences), [`report`] (events, failure kinds, traces, replay tokens), [`setup`] (a launch's
//!    threads, locations, blocks and mbarriers), [`sched`] (the scheduling API: points,
//!    footprints, the `Sched` and `Engine` traits the engines implement), [`describe`] (how
//!    reports word events), [`async_groups`] (a thread's groups of asynchronous copies), and
//!    each feature's own state, in its `state` child module
//!    ([`mbarrier::state`], [`async_copy::state`], …). None of them names the machine.
//! 2. *The core*: [`machine`] (one execution's state: threads, memory, views, the trace; a
//!    thread's start, exit and failure), [`access`] (loads, stores, read-modify-writes,
//!    fences), [`race`] (data and scoped races among the accesses the core recorded), [`hang`]
//!    (every live thread blocked for good), [`ctx`] (a GPU thread's handle: a scheduling point,
//!    then the operation on the locked machine), [`advice`] (what a report suggests, read from
//!    what the core recorded), [`hooks`] (the notifications a feature may register for: an
//!    access, a read, a store, a thread's exit, barrier settling, a hang report's wording). The
//!    core holds each feature's state but imports only its `state` module, and calls no feature:
//!    at each notification point it runs the registered hooks, in the table's order.
//! 3. *Features*: [`barriers`] (CTA barrier instances, named and voting barriers),
//!    [`mbarrier`] (PTX mbarrier phases), [`cluster`] (cluster barriers, `fence.mbarrier_init`,
//!    distributed shared memory), [`async_copy`] (bulk copies as an asynchronous agent per block,
//!    the async proxy), [`cp_async`] (Ampere's non-bulk copies), [`warp`] (`syncwarp`, shuffles
//!    and votes among the lanes of a mask), [`tokens`] (Tile IR token order inside a tile block),
//!    [`noncoherent`] (`ld.global.nc`), [`mixed_size`], [`spin`] (spin loops with await
//!    semantics), [`bank`] (bank conflicts), [`footprint`] (what an asynchronous step touches).
//!    Each is the operations on its own state (`impl Machine` blocks that call into the core)
//!    and the thread API for them (`impl Ctx`); a feature may use a lower feature's state or
//!    operations, never the reverse.
//! 4. *Running*: [`features`] (the one table where every feature registers its hooks, handed
//!    to every machine built), [`driver`] (running executions, rendering failures), [`litmus`]
//!    (litmus programs as kernels), the state-caching search's key of a machine state.
//!    ([`panics`], the hook that turns a kernel thread's panic into a failure, imports nothing.)
//!
//! The rule for a new feature: put its state in `FEATURE/state.rs` (plain data, importing only
//! floor 1), add one field of that type to `Machine`, and write its operations in
//! `FEATURE/mod.rs` as methods that call the core (`begin`, `event`, `fail`, `append_store`, the
//! views), with its thread API (`impl Ctx`) beside them; link to it from the core's
//! documentation in plain text, since a doc link is an import. Where it must act on something
//! the core does (check an access, hear of a store or an exit, word a hang), register a
//! function in the matching list of `features::FEATURES`, at the place its order among the
//! others requires (the first failing hook is the failure reported); never add a call to the
//! core. `tests/layering.rs` fails when a core file imports a feature or calls a method written
//! in a feature file or on the running floor.
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

pub mod access;
pub mod advice;
pub mod async_copy;
pub mod async_groups;
pub mod bank;
pub mod barriers;
pub mod cluster;
pub mod cp_async;
pub mod ctx;
pub mod describe;
pub mod driver;
pub mod exchange;
pub mod features;
pub mod footprint;
pub mod hang;
pub mod hooks;
pub mod litmus;
pub mod machine;
pub mod mbarrier;
pub mod memory;
pub mod mixed_size;
pub mod noncoherent;
pub mod panics;
pub mod race;
pub mod report;
pub mod sched;
pub mod setup;
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
