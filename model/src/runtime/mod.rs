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
//! [`race`] (data and scoped races), [`bank`] (bank conflicts), [`machine`] (one execution's
//! state and the semantics of each operation), [`ctx`] (a GPU thread's handle), [`driver`]
//! (running executions), [`report`] (failure kinds, traces, replay tokens), [`litmus`] (litmus
//! programs as kernels).
//!
//! # Limits
//! - Load buffering (reading a po-later store of another thread) is never reached.
//! - Proxies are not modelled yet: every access uses its physical location generically.
//! - A spin loop should call `spin_loop()` once per failed iteration (see
//!   [`Machine::spin_wait`]); otherwise an unfair schedule may spin until the step bound, which is
//!   reported as a *bounded* possible hang.
//!
//! # Extension points (mbarrier, TMA bulk copies, Tile IR tokens)
//! - *Blocking and waking*: a new waiting primitive (an mbarrier `try_wait` on a phase) is one
//!   more [`machine::Status`] variant. The operation sets it and returns "blocked"; [`Ctx`] then
//!   parks through the engine until the machine, in the operation that satisfies the wait, marks
//!   the thread running and pushes it on `Machine::wake`. Deadlock diagnosis (every live thread
//!   blocked) covers the new state for free.
//! - *Asynchronous agents*: a bulk copy is a thread of its own: add a [`ThreadInfo`] for it to
//!   the [`Setup`] (named e.g. `TMA agent of block 0`) and let the body dispatch on the thread
//!   id. Engines schedule agents like any GPU thread, so every interleaving of the copy's element
//!   stores with the kernel's accesses is explored; the agent blocks until it is issued and
//!   signals completion through the mbarrier's state.
//! - *Proxies*: [`sync::Actor`] is where an access's proxy belongs (moral strength needs the
//!   same proxy), with a per-thread view per proxy joined only at proxy fences.
//! - *Tile IR tokens*: each operation already has its own epoch; token order instead of program
//!   order means joining only the views of the operations a token names instead of the whole
//!   thread's view.

pub mod bank;
pub mod ctx;
pub mod driver;
pub mod litmus;
pub mod machine;
pub mod memory;
pub mod panics;
pub mod race;
pub mod report;
pub mod sync;
pub mod view;

pub use ctx::Ctx;
pub use driver::{explore, Body, FailureReport};
pub use machine::{Machine, Setup, ThreadInfo};
pub use report::{Decision, FailureKind, Token};
