//! `st.async` and `red.async` (PTX ISA 8.1, sm_90): a CTA stores (or reduces) into a peer CTA's
//! shared memory asynchronously, and the store signals `complete_tx` on an mbarrier of the peer.
//! Each bug pattern is next to its fix. PTX ISA, *st.async*: "The st.async operation is treated
//! as a weak memory operation and the complete_tx operation on the mbarrier has .release
//! semantics at .cluster scope"; *red.async*: the reduction is "a relaxed memory operation" at
//! `.cluster` scope, with the same complete-tx. A consumer reads the data only after a wait on
//! its mbarrier that observes the phase, and a wait whose scope (`.cta`, the default) leaves the
//! producer's CTA out is not morally strong with the complete-tx.

use super::{threads, Body, BugCase, Expect, Explore};
use scopecheck_model::check;
use scopecheck_model::kernel::{
    FailureKind, Grid, Kernel, MemoryOrder, MemoryScope, RedAsyncOp, Verdict,
};

const PTX_ST_ASYNC: &str = "no public report located for this pattern in this corpus; PTX ISA \
                            8.1, st.async and red.async (complete_tx with .release at .cluster \
                            scope), mbarrier.try_wait .scope, Morally strong operations";

/// A read the store is not ordered before: a data race, or, where the read comes first, the stale
/// value the check rejects (which symptom a search meets first depends on its order).
const RACE_OR_STALE: &[FailureKind] = &[FailureKind::DataRace, FailureKind::Assertion];

/// How the consumer of an `st.async` waits before reading.
#[derive(Copy, Clone)]
enum Consumer {
    /// `mbarrier.try_wait.parity.acquire` at this scope.
    Waits(MemoryScope),
    /// Reads without waiting.
    ReadsFirst,
}

/// Block 1 stores 42 into block 0's `slot` with `st.async`, signalling block 0's `full`, which
/// block 0 armed for `expect` bytes with one arrival; block 0 then reads the slot.
fn store_to_peer(consumer: Consumer, expect: u64) -> (Kernel, Body) {
    let mut k = Kernel::new("st.async to a peer", Grid::new(2, 1).with_clusters(2));
    let slot = k.shared::<u32>("slot", 1);
    let full = k.mbarriers("full", 1);
    let body = threads(move |t| {
        let bar = full.at(0);
        if t.cluster_ctarank() == 0 {
            bar.init(t, 1);
            bar.arrive_expect_tx(t, expect);
        }
        t.cluster_sync();
        if t.cluster_ctarank() == 1 {
            t.st_async(
                &slot.map_shared_rank(t, 0),
                0,
                42,
                &bar.map_shared_rank(t, 0),
            );
            return;
        }
        if let Consumer::Waits(scope) = consumer {
            bar.wait_parity_scoped(t, 0, MemoryOrder::Acquire, scope);
        }
        check!(t.load(&slot, 0) == 42);
        if let Consumer::ReadsFirst = consumer {
            bar.wait_parity_scoped(t, 0, MemoryOrder::Acquire, MemoryScope::Cluster);
        }
    });
    (k, body)
}

/// Blocks 1 and 2 each `red.async.add` their rank into block 0's counter, signalling block 0's
/// barrier, armed for both; block 0 reads the sum after its wait.
fn reduce_into_peer(expect: u64) -> (Kernel, Body) {
    let mut k = Kernel::new("red.async into a peer", Grid::new(3, 1).with_clusters(3));
    let sum = k.shared::<u32>("sum", 1);
    let full = k.mbarriers("full", 1);
    let body = threads(move |t| {
        let bar = full.at(0);
        if t.cluster_ctarank() == 0 {
            bar.init(t, 1);
            bar.arrive_expect_tx(t, expect);
        }
        t.cluster_sync();
        let rank = t.cluster_ctarank();
        if rank != 0 {
            let (dst, peer) = (sum.map_shared_rank(t, 0), bar.map_shared_rank(t, 0));
            t.red_async(&dst, 0, RedAsyncOp::Add, rank, &peer);
            return;
        }
        bar.wait_parity_scoped(t, 0, MemoryOrder::Acquire, MemoryScope::Cluster);
        check!(t.load(&sum, 0) == 3);
    });
    (k, body)
}

pub fn cases() -> Vec<BugCase> {
    vec![
        BugCase {
            name: "st-async/read-before-wait",
            source: PTX_ST_ASYNC,
            about: "The consumer reads the slot a peer fills with st.async before waiting on \
                    the mbarrier the store completes on: the asynchronous weak store is \
                    unordered with the read, a data race.",
            expect: Expect::FailsWith(RACE_OR_STALE),
            explore: Explore::Dfs,
            build: || store_to_peer(Consumer::ReadsFirst, 4),
        },
        BugCase {
            name: "st-async/cta-scope-wait",
            source: PTX_ST_ASYNC,
            about: "The consumer waits with the default mbarrier.try_wait scope, .cta: the \
                    complete-tx is a .release.cluster of the producer CTA, which the wait's \
                    scope leaves out, so they are not morally strong and the read races with \
                    the store.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::DataRace)),
            explore: Explore::Dfs,
            build: || store_to_peer(Consumer::Waits(MemoryScope::Block), 4),
        },
        BugCase {
            name: "st-async/expect-tx-missing",
            source: PTX_ST_ASYNC,
            about: "The consumer arms its mbarrier with one arrival and no expected bytes: its \
                    own arrival completes the phase before the store lands, the wait returns, \
                    and the read races with the store.",
            expect: Expect::FailsWith(RACE_OR_STALE),
            explore: Explore::Dfs,
            build: || store_to_peer(Consumer::Waits(MemoryScope::Cluster), 0),
        },
        BugCase {
            name: "st-async/expect-tx-too-large",
            source: PTX_ST_ASYNC,
            about: "The consumer expects 8 bytes but the peer stores 4: the tx-count never \
                    reaches zero and the wait never returns.",
            expect: Expect::Verdict(Verdict::Fail(FailureKind::Hang)),
            explore: Explore::Dfs,
            build: || store_to_peer(Consumer::Waits(MemoryScope::Cluster), 8),
        },
        BugCase {
            name: "st-async/cluster-scope-wait",
            source: PTX_ST_ASYNC,
            about: "The fix: the consumer expects the 4 bytes and waits with \
                    mbarrier.try_wait.parity.acquire.cluster, which observes the complete-tx \
                    and acquires the store.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Dfs,
            build: || store_to_peer(Consumer::Waits(MemoryScope::Cluster), 4),
        },
        BugCase {
            name: "st-async/red-async-one-reduction-expected",
            source: PTX_ST_ASYNC,
            about: "Two peers red.async.add into one counter, but the consumer expects the bytes \
                    of one reduction: the phase may complete after the first, and the read \
                    races with the second.",
            expect: Expect::FailsWith(RACE_OR_STALE),
            explore: Explore::Dfs,
            build: || reduce_into_peer(4),
        },
        BugCase {
            name: "st-async/red-async-both-reductions-expected",
            source: PTX_ST_ASYNC,
            about: "The fix: the consumer expects the bytes of both reductions; the relaxed \
                    .cluster reductions do not race with each other, and the wait acquires both.",
            expect: Expect::Verdict(Verdict::Pass),
            explore: Explore::Dfs,
            build: || reduce_into_peer(8),
        },
    ]
}
