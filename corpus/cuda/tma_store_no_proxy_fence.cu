// scopecheck: --block 4 --arg dst=u32[4]
// A block stages a 16-byte tile in shared memory and thread 0 stores it to global memory with
// the TMA's bulk copy (cp.async.bulk.global.shared::cta), waiting for the bulk group.
// BUG: the tile is written by ordinary stores (the generic proxy) and read by the bulk copy
// (the async proxy) with no proxy fence between them. __syncthreads() orders the generic
// proxy only; "fence.proxy.async is ... a bidirectional proxy fence ... between the generic
// proxy and the async proxy" (PTX ISA, "membar / fence"), and the CUDA C++ Programming Guide's
// TMA store example issues fence.proxy.async.shared::cta after writing shared memory and
// before the barrier. Without it the copy's reads race with the threads' writes.

extern "C" __global__ void store_tile(unsigned *dst) {
    __shared__ alignas(16) unsigned tile[4];
    unsigned t = threadIdx.x;
    tile[t] = t + 1;
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
