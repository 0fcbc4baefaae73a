// scopecheck: --grid 2 --block 1 --cluster 2 --arg out=u32[2]
// Two CTAs of a cluster each send a value into the other's shared memory with st.async, which
// completes on the receiver's mbarrier (see st_async_peer.cu, the fixed version).
// BUG: the receiver arms its mbarrier for 8 bytes (expect_tx), but its peer stores 4. PTX ISA,
// mbarrier: the phase completes when "the pending arrival count reaches zero" and the
// "tx-count reaches zero"; st.async's complete-tx counts "the amount of data stored in bytes",
// so the tx-count stays at 4 and the wait never returns: a hang.

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
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 8;" ::"r"(smem_addr(&bar))
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
