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
