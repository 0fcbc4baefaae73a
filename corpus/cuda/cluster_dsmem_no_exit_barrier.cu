// scopecheck: --grid 2 --block 1 --cluster 2 --arg out=u32[2]
// Two CTAs of a cluster exchange a value through distributed shared memory: each writes its own
// shared variable, the cluster barrier makes the writes visible, then each reads its peer's
// variable through mapa + ld.shared::cluster. BUG: no cluster barrier after the remote read, so
// a CTA may finish and exit while its peer still reads its shared memory. "It is necessary to
// ensure that all the distributed shared memory operations happen before a thread block exits"
// (CUDA C++ Programming Guide, "Distributed Shared Memory"): a use after exit.

__device__ unsigned cluster_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

__device__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
                 "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

__device__ unsigned load_peer(unsigned *mine, unsigned peer) {
    unsigned local = static_cast<unsigned>(__cvta_generic_to_shared(mine)), remote, v;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(peer));
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(remote) : "memory");
    return v;
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) exchange(unsigned *out) {
    __shared__ unsigned mine;
    unsigned rank = cluster_rank();
    mine = rank + 1;
    cluster_sync();
    unsigned v = load_peer(&mine, rank ^ 1);
    out[rank] = v;
}
