// Warp reductions and matches (what cooperative groups' tiled partitions compile to; the
// cooperative_groups header is not in the NVRTC wheel): __reduce_add_sync, __match_any_sync,
// __shfl_down_sync, and the three fences.
extern "C" __global__ void warp_reduce(int *v) {
    int x = v[threadIdx.x];
    unsigned peers = __match_any_sync(0xffffffff, x & 3);
    int total = __reduce_add_sync(0xffffffff, x);
    for (int o = 16; o > 0; o /= 2) x += __shfl_down_sync(0xffffffff, x, o);
    __threadfence_block();
    v[threadIdx.x] = x + total + __popc(peers);
    __threadfence_system();
}
