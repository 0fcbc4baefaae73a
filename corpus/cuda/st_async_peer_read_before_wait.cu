// scopecheck: --grid 2 --block 1 --cluster 2 --arg out=u32[2]
// Two CTAs of a cluster each send a value into the other's shared memory with st.async, which
// completes on the receiver's mbarrier (see st_async_peer.cu, the fixed version).
// BUG: the receiver reads its slot before waiting on its mbarrier. PTX ISA, st.async: "The
// st.async operation is treated as a weak memory operation": the asynchronous store is ordered
// before the receiver's read only through a wait that observes its complete_tx, so the read
// races with the store (or, when it comes first, reads the stale value and the kernel traps).

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
    unsigned v = slot; // BUG: read before the wait
    wait_cluster(&bar, 0);
    if (v != peer + 1)
        __trap();
    out[rank] = v;
}
