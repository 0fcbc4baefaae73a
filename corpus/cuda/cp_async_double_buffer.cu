// scopecheck: --block 2 --arg src=u32[6]=1,2,3,4,5,6 --arg out=u32[2]
// Double-buffered tile loop with Ampere's cp.async, FIXED: after committing the group that
// copies tile k + 1, each thread waits with cp.async.wait_group 1 ("wait until ... at most N
// of the most recent cp.async-groups are pending and all the prior cp.async-groups committed by
// the executing thread are complete", PTX ISA, "cp.async.wait_group"), so its copy of tile k has
// landed; __syncthreads() then makes every thread's landed copy visible to its neighbour. The
// second __syncthreads() keeps a buffer from being refilled while it is still read.

__device__ void copy_async(unsigned *smem, const unsigned *gmem) {
    unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(gmem) : "memory");
}

__device__ void commit_group() { asm volatile("cp.async.commit_group;" ::: "memory"); }

__device__ void wait_all_but_newest() { asm volatile("cp.async.wait_group 1;" ::: "memory"); }

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
        wait_all_but_newest();
        __syncthreads();
        acc += buf[k % 2][kWidth - 1 - t];
        __syncthreads();
    }
    if (acc != (t == 0 ? 2 + 4 + 6 : 1 + 3 + 5))
        __trap();
    out[t] = acc;
}
