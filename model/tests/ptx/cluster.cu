// Thread block clusters: __cluster_dims__, distributed shared memory via mapa, cluster barriers.
extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128)
cluster_kernel(int *out) {
    __shared__ int slot;
    unsigned rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    if (threadIdx.x == 0) slot = rank;
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    unsigned local = (unsigned)__cvta_generic_to_shared(&slot);
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank ^ 1));
    int v;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(remote) : "memory");
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
