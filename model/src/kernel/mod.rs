//! A cuTile/CUDA-shaped facade over the runtime: launch a [`Grid`] of blocks × threads with one
//! closure per thread, touch [`Global`] and per-block [`Shared`] buffers with weak loads/stores
//! and scoped atomics, fence, `syncthreads`, and let a [`Checker`] explore every execution.
//!
//! ```
//! use scopecheck_model::kernel::*;
//! let mut k = Kernel::new("message passing", Grid::new(2, 1));
//! let data = k.global::<i32>("data", 1);
//! let flag = k.global::<i32>("flag", 1);
//! let report = Checker::dfs().check(&k, move |t| {
//!     if t.bid() == 0 {
//!         t.store(&data, 0, 42);
//!         t.atomic_store(&flag, 0, 1, MemoryOrder::Release, MemoryScope::Device);
//!     } else if t.atomic_load(&flag, 0, MemoryOrder::Acquire, MemoryScope::Device) == 1 {
//!         scopecheck_model::check!(t.load(&data, 0) == 42);
//!     }
//! });
//! assert!(report.passed(), "{report}");
//! ```
//!
//! Semantics live in [`crate::runtime`]; this module only names things.

#![warn(missing_docs)]

pub mod atomics;
mod buffer;
mod checker;
mod cluster;
mod cp_async;
mod dim3;
mod elem;
mod grid;
mod mbarrier;
mod mixed_size;
mod model;
mod order;
mod setup;
mod shape;
mod sync;
mod tensor_map;
mod thread;
mod tile;
mod tokens;
mod warp;

pub use self::atomics::Integer;
pub use self::buffer::{Buffer, Global, Shared};
pub use self::checker::{common_verdict, Checker, Report, Verdict};
pub use self::cluster::PeerShared;
pub use self::dim3::Dim3;
pub use self::elem::Elem;
pub use self::grid::Grid;
pub use self::mbarrier::{
    MBarrier, MBarriers, MbarrierArrive, MbarrierState, PeerMBarrier, PhaseToken,
};
pub use self::model::{Final, Kernel};
pub use self::order::{MemoryOrder, MemoryScope};
pub use self::tensor_map::{TensorMap, TensorMapLayout, MAX_TENSOR_RANK};
pub use self::thread::ThreadCtx;
pub use self::tile::TileCtx;
pub use self::tokens::Token;
pub use self::warp::{ReduxInt, FULL_MASK};
pub use crate::runtime::async_copy::RedAsyncOp;
pub use crate::runtime::bank::BankConflict;
pub use crate::runtime::cluster::ClusterArrival;
pub use crate::runtime::report::FailureKind;
