//! Where shared-memory locations live on the GPU, and how litmus clusters map onto a cluster
//! launch.
//!
//! PTX ISA, *State spaces*, `.shared`: "The shared (.shared) state space is a memory that is
//! owned by an executing CTA and is accessible to the threads of all the CTAs within a
//! cluster." Each block of the harness holds `ipb` instances, so a location in CTA `c`'s shared
//! memory becomes one 16-byte slot per instance in the dynamic shared memory of every block
//! that plays role `c`: slot `s` of block-local instance `jl` sits at byte
//! `(s * ipb + jl) * SHARED_SLOT_BYTES`. Every block lays its shared memory out alike, so the
//! same offset names the same location of the same instance in a peer CTA of the cluster
//! (reached through `mapa`).
//!
//! Slots are 16 bytes (or the largest bulk copy's size): PTX ISA, *cp.async.bulk*: "The
//! operands dstMem and srcMem must be aligned to 16 bytes" and the size "must be a multiple of
//! 16"; mbarrier objects are 8 bytes and "must be 8-byte aligned" (*mbarrier*: size and
//! alignment).

use super::unsupported::{unsupported, Unsupported};
use scopecheck_model::litmus::async_ops::{AsyncOp, BulkCompletion, MbarrierState};
use scopecheck_model::litmus::{Instr, LocId, LocationKind, Program, ThreadId};
use serde::{Deserialize, Serialize};

/// Largest portable cluster: CUDA Programming Guide, *Thread Block Clusters*: "a maximum of 8
/// thread blocks in a cluster is supported as a portable cluster size in CUDA".
pub const MAX_CLUSTER: usize = 8;

/// Where each location of the program lives and which role owns the shared ones.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedMap {
    /// Per physical location: the role whose shared memory holds it and its slot there.
    pub slot: Vec<Option<(usize, usize)>>,
    /// Per physical location: whether it is an mbarrier object (named by an mbarrier
    /// instruction or a bulk copy's completion, or declared `= mbarrier N`).
    pub mbarrier: Vec<bool>,
    /// Slots per instance in the largest role's shared memory.
    pub slots: usize,
    /// Bytes per slot (a multiple of 16).
    pub slot_bytes: usize,
    /// Bytes the largest bulk copy moves (0 without bulk copies): a global location it reads
    /// or writes needs that many bytes of its own.
    pub bulk_bytes: usize,
}

impl SharedMap {
    /// Whether any location lives in shared memory.
    pub fn any(&self) -> bool {
        self.slots > 0
    }

    /// Dynamic shared memory one block needs for `ipb` instances.
    pub fn bytes(&self, ipb: usize) -> usize {
        self.slots * self.slot_bytes * ipb
    }
}

/// How litmus clusters become hardware clusters: each instance's group of blocks is `count`
/// clusters of `size` blocks; role `r` runs at block `position[r]` of its group (cluster
/// `position / size`, rank `position % size`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterShape {
    pub size: usize,
    pub count: usize,
    pub position: Vec<usize>,
}

impl ClusterShape {
    /// The cluster rank role `r` runs at (`%cluster_ctarank`).
    pub fn rank(&self, r: usize) -> usize {
        self.position[r] % self.size
    }

    /// Blocks of one group, idle positions included.
    pub fn blocks(&self) -> usize {
        self.size * self.count
    }
}

/// The mbarrier locations: PTX ISA, *mbarrier*: "An mbarrier object is an opaque object in
/// shared memory", so a location counts as one when an mbarrier instruction or a bulk copy's
/// completion names it, or when it is declared `= mbarrier N`.
pub(super) fn mbarriers(p: &Program) -> Vec<bool> {
    let mut out = vec![false; p.locations.len()];
    for t in &p.threads {
        for s in &t.body {
            if let Instr::Async(op) = &s.instr {
                if let Some(b) = op.mbarrier() {
                    out[p.physical(b)] = true;
                }
            }
        }
    }
    out
}

/// Which role owns each shared location. A location declared in CTA `c`'s shared memory
/// belongs to the role of CTA `c`. A `cp.async` destination declared in global memory is placed
/// in the executing thread's CTA: PTX ISA, *cp.async*: "cp.async ... from the location specified
/// by source operand src in the global state space to the location specified by destination
/// operand dst in the shared state space".
pub(super) fn shared_map(p: &Program, roles: &[Vec<ThreadId>]) -> Result<SharedMap, Unsupported> {
    let n = p.locations.len();
    let role_of = |gpu: u32, cta: u32| {
        roles.iter().position(|r| {
            let at = p.threads[r[0]].placement;
            at.gpu == gpu && at.cta == cta
        })
    };
    let mut owner: Vec<Option<usize>> = vec![None; n];
    for (l, loc) in p.locations.iter().enumerate() {
        if let Some(of) = loc.shared {
            match role_of(of.gpu, of.cta) {
                Some(r) => owner[l] = Some(r),
                None => {
                    return unsupported(format!(
                        "`{}` is shared memory of cta {},gpu {}, where no thread runs: PTX ISA, \
                         State spaces: shared memory \"is owned by an executing CTA\", and the \
                         harness launches blocks only for CTAs with threads",
                        loc.name, of.cta, of.gpu
                    ))
                }
            }
        }
    }
    let mut bulk_bytes = 0usize;
    for (tid, t) in p.threads.iter().enumerate() {
        for s in &t.body {
            match &s.instr {
                Instr::CpAsync { dst, .. } => {
                    let d = p.physical(*dst);
                    let at = p.threads[tid].placement;
                    let mine = role_of(at.gpu, at.cta);
                    match owner[d] {
                        None => owner[d] = mine,
                        Some(r) if Some(r) != mine => {
                            return unsupported(format!(
                                "P{tid} at {}: cp.async into `{}`, which is another CTA's shared \
                                 memory (PTX ISA, cp.async: dst is in the .shared::cta state space \
                                 of the executing CTA)",
                                s.span, p.locations[d].name
                            ))
                        }
                        Some(_) => {}
                    }
                }
                Instr::Async(AsyncOp::BulkCopy { size, .. }) => {
                    let bytes = usize::try_from(*size).unwrap_or(0);
                    if bytes == 0 || bytes % 16 != 0 || bytes > 4096 {
                        return unsupported(format!(
                            "P{tid} at {}: a bulk copy of {size} bytes (PTX ISA, cp.async.bulk: \
                             the size \"must be a multiple of 16\"; the harness gives each \
                             location at most 4096 bytes)",
                            s.span
                        ));
                    }
                    bulk_bytes = bulk_bytes.max(bytes);
                }
                _ => {}
            }
        }
    }
    let mbarrier = {
        let mut m = mbarriers(p);
        for (l, loc) in p.locations.iter().enumerate() {
            if let LocationKind::Plain { init } = loc.kind {
                if loc.shared.is_some() && init != 0 && init > i64::from(i32::MAX) {
                    m[l] = true;
                }
            }
        }
        m
    };
    // Every thread touching a cp.async destination must be in its CTA (a peer's cp.async
    // destination would be reached through `.shared::cluster`, which the parser leaves to
    // declared shared locations).
    for (tid, t) in p.threads.iter().enumerate() {
        for s in &t.body {
            for l in names(&s.instr) {
                let l = p.physical(l);
                if p.locations[l].shared.is_none() {
                    if let Some(r) = owner[l] {
                        let at = p.threads[tid].placement;
                        if role_of(at.gpu, at.cta) != Some(r) || at.is_host() {
                            return unsupported(format!(
                                "P{tid} at {}: `{}` is a cp.async destination, so it lives in \
                                 another CTA's shared memory (PTX ISA, cp.async: dst is in the \
                                 shared state space)",
                                s.span, p.locations[l].name
                            ));
                        }
                    }
                }
            }
        }
    }
    let mut next = vec![0usize; roles.len()];
    let mut slot = vec![None; n];
    for l in 0..n {
        if let Some(r) = owner[l] {
            if matches!(p.locations[l].kind, LocationKind::Alias { .. }) {
                continue;
            }
            slot[l] = Some((r, next[r]));
            next[r] += 1;
        }
    }
    for (l, is) in mbarrier.iter().enumerate() {
        if *is && slot[l].is_none() {
            return unsupported(format!(
                "mbarrier `{}` in global memory (PTX ISA, mbarrier: \"An mbarrier object is an \
                 opaque object in shared memory\")",
                p.locations[l].name
            ));
        }
        if *is {
            if let LocationKind::Plain { init } = p.locations[l].kind {
                let st = MbarrierState::unpack(init);
                let fresh =
                    init == 0 || (st.phase == 0 && st.tx == 0 && st.pending == st.expected as i16);
                if !fresh {
                    return unsupported(format!(
                        "mbarrier `{}` starts in a state no `mbarrier.init` produces (PTX ISA, \
                         mbarrier.init: the only way to set an mbarrier's state is to initialise it)",
                        p.locations[l].name
                    ));
                }
            }
        }
    }
    Ok(SharedMap {
        slot,
        mbarrier,
        slots: next.iter().copied().max().unwrap_or(0),
        slot_bytes: bulk_bytes.max(16),
        bulk_bytes,
    })
}

/// The cluster launch for a program with cluster placements: each litmus cluster (threads
/// with `cluster N` on one GPU; a CTA without one is a cluster of its own) is one hardware
/// cluster of the largest litmus cluster's size, its CTAs at ranks in order of first
/// appearance. `None` without cluster placements.
pub(super) fn cluster_shape(
    p: &Program,
    roles: &[Vec<ThreadId>],
) -> Result<Option<ClusterShape>, Unsupported> {
    if !p.threads.iter().any(|t| t.placement.cluster.is_some()) {
        return Ok(None);
    }
    let gpus: std::collections::BTreeSet<u32> = roles
        .iter()
        .map(|r| p.threads[r[0]].placement.gpu)
        .collect();
    if gpus.len() > 1 || p.threads.iter().any(|t| t.placement.is_host()) {
        return unsupported(
            "cluster placements in a program that spans several GPUs or the host (the harness \
             launches clusters on one GPU only; a multi-GPU cluster launch is not built)",
        );
    }
    let mut keys: Vec<(Option<u32>, u32)> = Vec::new();
    let mut members: Vec<Vec<usize>> = Vec::new();
    for (r, threads) in roles.iter().enumerate() {
        let at = p.threads[threads[0]].placement;
        let key = match at.cluster {
            Some(c) => (Some(c), 0),
            None => (None, at.cta),
        };
        match keys.iter().position(|k| *k == key) {
            Some(i) => members[i].push(r),
            None => {
                keys.push(key);
                members.push(vec![r]);
            }
        }
    }
    let size = members.iter().map(Vec::len).max().unwrap_or(1);
    if size > MAX_CLUSTER {
        return unsupported(format!(
            "a cluster of {size} CTAs (CUDA Programming Guide, Thread Block Clusters: \"a maximum \
             of 8 thread blocks in a cluster is supported as a portable cluster size\")"
        ));
    }
    let mut position = vec![0; roles.len()];
    for (c, m) in members.iter().enumerate() {
        for (rank, &r) in m.iter().enumerate() {
            position[r] = c * size + rank;
        }
    }
    Ok(Some(ClusterShape {
        size,
        count: members.len(),
        position,
    }))
}

/// The litmus cluster a role belongs to (its hardware cluster within the instance's group).
pub(super) fn cluster_index(shape: &ClusterShape, role: usize) -> usize {
    shape.position[role] / shape.size
}

/// Whether a location is in shared memory under this map.
pub(super) fn is_shared(map: &SharedMap, loc: LocId) -> bool {
    map.slot.get(loc).is_some_and(Option::is_some)
}

/// Every location an instruction names (for a bulk copy or `cp.async`: both ends, and the
/// mbarrier of its completion).
pub(super) fn names(i: &Instr) -> Vec<LocId> {
    match i {
        Instr::Load { loc, .. }
        | Instr::Store { loc, .. }
        | Instr::Atom { loc, .. }
        | Instr::Red { loc, .. } => vec![*loc],
        Instr::CpAsync { dst, src } => vec![*dst, *src],
        Instr::Async(op) => match op {
            AsyncOp::BulkCopy {
                dst,
                src,
                completion,
                ..
            } => {
                let mut v = vec![*dst, *src];
                if let BulkCompletion::Mbarrier(b) = completion {
                    v.push(*b);
                }
                v
            }
            other => other.mbarrier().into_iter().collect(),
        },
        _ => vec![],
    }
}
