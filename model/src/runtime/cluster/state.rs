//! Clusters' own state: what `fence.mbarrier_init` published, and each thread's latest cluster
//! barrier arrival. Plain data: the operations live in the parent module.

use std::sync::Arc;

/// Per thread: the epoch of its latest `fence.mbarrier_init`, and, per initialising thread,
/// the latest such fence whose inits it learnt of through a completed mbarrier phase.
#[derive(Clone, Debug, Default)]
pub struct InitFences {
    pub(super) fenced: Vec<u32>,
    pub(super) known: Vec<Arc<Vec<u32>>>,
}

impl InitFences {
    /// The epoch of `t`'s latest `fence.mbarrier_init`, if any.
    pub(crate) fn init_fence(&self, t: usize) -> Option<u32> {
        self.fenced.get(t).copied().filter(|&e| e > 0)
    }

    /// Whether `t` learnt of an init `initer` performed at `epoch` through a fence after it.
    pub(crate) fn init_known(&self, t: usize, initer: usize, epoch: u32) -> bool {
        self.known
            .get(t)
            .and_then(|k| k.get(initer))
            .is_some_and(|&e| e >= epoch)
    }

    /// `t` completed a wait on a phase whose arrivals published these fences.
    pub(crate) fn learn_inits(&mut self, t: usize, fences: &[(usize, u32)]) {
        if fences.is_empty() {
            return;
        }
        if self.known.len() <= t {
            self.known.resize(t + 1, Arc::new(Vec::new()));
        }
        let known = Arc::make_mut(&mut self.known[t]);
        for &(u, e) in fences {
            if known.len() <= u {
                known.resize(u + 1, 0);
            }
            known[u] = known[u].max(e);
        }
    }
}

/// Per thread, the phase of its cluster's barrier its latest `barrier.cluster.arrive` arrived
/// on (what its exit and its next arrive are checked against).
#[derive(Clone, Debug, Default)]
pub struct ClusterArrivals(Vec<Option<u32>>);

impl ClusterArrivals {
    /// The phase `t` last arrived on.
    pub(crate) fn last(&self, t: usize) -> Option<u32> {
        self.0.get(t).copied().flatten()
    }

    pub(super) fn set(&mut self, t: usize, phase: u32) {
        if self.0.len() <= t {
            self.0.resize(t + 1, None);
        }
        self.0[t] = Some(phase);
    }
}
