// scopecheck: --grid 2 --block 2 --arg in=u32[4]=1,2,3,4 --arg partial=u32[2] --arg count=u32[1] --arg total=u32[1]
// Last-block reduction (the "threadFenceReduction" pattern), FIXED: thread 0 makes its block's
// partial sum visible device-wide with __threadfence() before it takes a ticket, and the block
// that draws the last ticket fences again before it reads the other blocks' partial sums.
// __threadfence() is fence.sc.gpu; a fence followed by the ticket's atomic is a release pattern,
// the ticket's atomic followed by a fence an acquire pattern (PTX ISA, memory consistency model,
// "Release and acquire patterns"), so each partial[] store happens before the last block's load.

extern "C" __global__ void last_block_reduce(const unsigned *in, unsigned *partial,
                                             unsigned *count, unsigned *total) {
    __shared__ unsigned sum[2];
    unsigned t = threadIdx.x;
    sum[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    if (t == 0) {
        unsigned block_sum = sum[0] + sum[1];
        partial[blockIdx.x] = block_sum;
        __threadfence();
        unsigned ticket = atomicInc(count, gridDim.x);
        if (ticket == gridDim.x - 1) {
            __threadfence();
            unsigned all = 0;
            for (unsigned b = 0; b < gridDim.x; ++b)
                all += partial[b];
            if (all != 10)
                __trap();
            *total = all;
        }
    }
}
