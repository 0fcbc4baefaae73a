//! Distributed shared memory: which CTA a shared address names (see [`crate::ptx::layout`] for
//! the encoding), `mapa` and `getctarank`.

use super::Thread;
use crate::ptx::decode::{AsyncOp, Space};
use crate::ptx::layout::{from_generic, shared_cluster, shared_cta, to_generic};
use crate::runtime::report::{FailureKind, Site};

impl Thread<'_> {
    /// The block of the CTA of rank `rank` in the executing CTA's cluster; a rank outside the
    /// cluster is an out-of-bounds failure (PTX ISA, *mapa*: the target "CTA … in the
    /// cluster"; anything else has no shared memory to address).
    fn rank_block(&self, rank: u32, site: Site) -> u32 {
        let size = self.t.cluster_nctarank();
        let block = self.t.cluster_id() * size + rank;
        if rank >= size || block >= self.t.grid.blocks {
            self.fail(
                FailureKind::OutOfBounds,
                site,
                format!("CTA rank {rank} is outside the cluster (ranks 0..{size})"),
            );
        }
        block
    }

    /// The block whose shared memory the shared address `addr` is in, and the offset there.
    /// `cta_only`: a `.shared::cta` access, which may name only the executing CTA.
    pub(super) fn shared_block(&self, addr: u64, cta_only: bool, site: Site) -> (u32, u64) {
        match shared_cta(addr) {
            (None, offset) => (self.t.bid(), offset),
            (Some(rank), offset) => {
                let block = self.rank_block(rank, site);
                if cta_only && block != self.t.bid() {
                    self.fail(
                        FailureKind::OutOfBounds,
                        site,
                        format!(
                            ".shared::cta access at {addr:#x}, an address in the shared memory \
                             of the cluster's CTA of rank {rank}: only .shared::cluster and \
                             generic accesses reach another CTA"
                        ),
                    );
                }
                (block, offset)
            }
        }
    }

    /// Whether the shared address `addr` is in the executing CTA's shared memory.
    pub(super) fn own_shared(&self, addr: u64) -> bool {
        match shared_cta(addr) {
            (None, _) => true,
            (Some(rank), _) => rank == self.t.cluster_ctarank(),
        }
    }

    /// `mapa` and `getctarank`.
    pub(super) fn exec_cluster(&mut self, op: &AsyncOp, site: Site) {
        match op {
            // PTX ISA, *mapa*: "Map the address of the shared variable in the target CTA …
            // `a` is a shared memory variable or a generic address of one, `b` the target
            // CTA's rank; `d` the corresponding address in the target CTA" (generic for the
            // generic form, `.shared::cluster` otherwise).
            AsyncOp::Mapa {
                d,
                a,
                rank,
                generic,
            } => {
                let (a, rank) = (self.src(a), self.src(rank) as u32);
                let shared = self.shared_operand(a, *generic, "mapa", site);
                let (_, offset) = self.shared_block(shared, false, site);
                self.rank_block(rank, site);
                let mapped = shared_cluster(rank, offset);
                let v = match generic {
                    true => to_generic(Space::SharedCluster, mapped),
                    false => mapped,
                };
                self.set(d, v);
            }
            // PTX ISA, *getctarank*: "Write the CTA rank of the shared memory variable at
            // address `a` in the cluster into `d`".
            AsyncOp::Getctarank { d, a, generic } => {
                let a = self.src(a);
                let shared = self.shared_operand(a, *generic, "getctarank", site);
                let rank = match shared_cta(shared) {
                    (None, _) => self.t.cluster_ctarank(),
                    (Some(r), _) => {
                        self.rank_block(r, site);
                        r
                    }
                };
                self.set(d, rank as u64);
            }
            _ => unreachable!("exec_cluster takes mapa and getctarank"),
        }
    }

    /// The shared address an operand of `mapa`/`getctarank` gives: itself, or for the generic
    /// forms the shared address of a generic one (another space is out of bounds).
    fn shared_operand(&self, a: u64, generic: bool, what: &str, site: Site) -> u64 {
        if !generic {
            return a;
        }
        match from_generic(a) {
            (Space::Shared, at) => at,
            _ => self.fail(
                FailureKind::OutOfBounds,
                site,
                format!("{what} of generic address {a:#x}, which is not in shared memory"),
            ),
        }
    }
}
