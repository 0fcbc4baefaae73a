// scopecheck: --block 4 --arg dst=u32[4]
// A block stages a 16-byte tile in shared memory and thread 0 stores it to global memory with
// the TMA's bulk copy (cp.async.bulk.global.shared::cta), waiting for the bulk group. FIXED:
// each thread issues fence.proxy.async.shared::cta after its shared-memory write and before
// __syncthreads(), the order of the CUDA C++ Programming Guide's TMA store example: the proxy
// fence orders the generic-proxy write before the async-proxy read (PTX ISA, "membar /
// fence": "fence.proxy.async is ... a bidirectional proxy fence ... between the generic proxy
// and the async proxy"), and the barrier orders it before thread 0's copy.

extern "C" __global__ void store_tile(unsigned *dst) {
    __shared__ alignas(16) unsigned tile[4];
    unsigned t = threadIdx.x;
    tile[t] = t + 1;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (t == 0) {
        unsigned src = static_cast<unsigned>(__cvta_generic_to_shared(tile));
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 16;" ::"l"(dst),
                     "r"(src)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}
