// scopecheck: --block 2 --arg src=u32[6]=1,2,3,4,5,6 --arg out=u32[2]
// Double-buffered tile loop with Ampere's cp.async (the code __pipeline_memcpy_async expands
// to): while tile k is consumed from one shared buffer, tile k + 1 is copied into the other.
// Each thread copies its own element and consumes its neighbour's.
// BUG: no cp.async.wait_group before the tile is consumed. "There is no ordering guarantee
// between two cp.async operations, or between a cp.async and other memory operations, unless
// cp.async.wait_all / cp.async.wait_group or an mbarrier is used" (PTX ISA, "cp.async"):
// __syncthreads() does not wait for the neighbour's copy, whose write to the buffer races with
// this thread's read.

__device__ void copy_async(unsigned *smem, const unsigned *gmem) {
    unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(gmem) : "memory");
}

__device__ void commit_group() { asm volatile("cp.async.commit_group;" ::: "memory"); }

extern "C" __global__ void double_buffer(const unsigned *src, unsigned *out) {
    constexpr unsigned kTiles = 3, kWidth = 2;
    __shared__ unsigned buf[2][kWidth];
    unsigned t = threadIdx.x;
    copy_async(&buf[0][t], &src[t]);
    commit_group();
    unsigned acc = 0;
    for (unsigned k = 0; k < kTiles; ++k) {
        if (k + 1 < kTiles)
            copy_async(&buf[(k + 1) % 2][t], &src[(k + 1) * kWidth + t]);
        commit_group();
        __syncthreads();
        acc += buf[k % 2][kWidth - 1 - t];
        __syncthreads();
    }
    out[t] = acc;
}
