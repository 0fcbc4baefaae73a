//! The generator's state: the program, what the harness records, and the text written so far.
//! `emit.rs` writes the kernels with it, calling the async and CTA-barrier emitters
//! (`asyncops.rs`, `ctabar.rs`), which write into it too.

use super::ctabar::CtaBarriers;
use super::harness::{Observable, Spin};
use super::shared::{ClusterShape, SharedMap};
use scopecheck_model::litmus::{LocId, Program, Reg, ThreadId};
use std::fmt::Write;

/// A C identifier for a litmus name: letters, digits and `_` kept, anything else hex-escaped.
pub(super) fn ident(name: &str) -> String {
    let mut s = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c);
        } else if c == '_' {
            s.push_str("__");
        } else {
            let _ = write!(s, "_{:x}", c as u32);
        }
    }
    s
}

/// The generator: the program, what the harness records, and the text written so far.
pub(super) struct Gen<'a> {
    pub(super) program: &'a Program,
    pub(super) out: String,
    pub(super) roles: &'a [Vec<ThreadId>],
    pub(super) slots: usize,
    pub(super) saved: &'a [(ThreadId, Reg)],
    pub(super) locations: &'a [LocId],
    pub(super) observables: &'a [Observable],
    pub(super) spins: &'a [Spin],
    pub(super) warp_lanes: bool,
    /// Which locations live in shared memory, and where.
    pub(super) shared: &'a SharedMap,
    /// The cluster launch, for a program with cluster placements.
    pub(super) cluster: Option<&'a ClusterShape>,
    /// The program's CTA barriers.
    pub(super) bars: &'a CtaBarriers,
    /// Each litmus thread is lane 0 of a warp of its own (see `Harness::warp_per_thread`).
    pub(super) warp_per_thread: bool,
}
