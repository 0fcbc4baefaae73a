// scopecheck: --grid 2 --block 1 --cluster 2 --arg out=u32[2]
// Two CTAs of a cluster each send a value into the other's shared memory with st.async, which
// completes on the receiver's mbarrier; each receiver waits on its own mbarrier, then reads.
// FIXED: the receiver arms its mbarrier for the 4 bytes it will receive (expect_tx) before the
// cluster barrier that lets its peer send, and waits with try_wait.parity.acquire.cluster.
// PTX ISA, st.async: "The st.async operation is treated as a weak memory operation and the
// complete_tx operation on the mbarrier has .release semantics at .cluster scope": a wait that
// observes the phase the complete-tx ends, at .cluster scope (the sender is another CTA), makes
// the store visible. Each CTA exits only after its own data arrived, so no trailing cluster
// barrier is needed for its shared memory.

__device__ unsigned cluster_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

__device__ unsigned smem_addr(const void *p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ unsigned peer_addr(const void *p, unsigned peer) {
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_addr(p)), "r"(peer));
    return remote;
}

__device__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
                 "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

__device__ void wait_cluster(unsigned long long *bar, unsigned parity) {
    unsigned done = 0;
    while (!done) {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(smem_addr(bar)), "r"(parity)
                     : "memory");
    }
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) send(unsigned *out) {
    __shared__ unsigned slot;
    __shared__ alignas(8) unsigned long long bar;
    unsigned rank = cluster_rank(), peer = rank ^ 1;
    slot = 0;
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar)) : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 4;" ::"r"(smem_addr(&bar))
                 : "memory");
    cluster_sync(); // the peer's mbarrier is initialised and armed before we signal it
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];"
                 ::"r"(peer_addr(&slot, peer)), "r"(rank + 1), "r"(peer_addr(&bar, peer))
                 : "memory");
    wait_cluster(&bar, 0);
    unsigned v = slot;
    if (v != peer + 1)
        __trap();
    out[rank] = v;
}
