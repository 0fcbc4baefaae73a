// scopecheck: --grid 2 --block 2 --arg in=u32[4]=1,2,3,4 --arg partial=u32[2] --arg count=u32[1] --arg total=u32[1]
// Last-block reduction (the "threadFenceReduction" pattern) WITHOUT __threadfence: each block
// sums its slice in shared memory, thread 0 publishes the block's sum to partial[] and takes a
// ticket; the block that draws the last ticket adds up every block's partial sum.
// BUG: nothing orders the store of partial[b] before the ticket, nor the ticket before the last
// block's loads of partial[]: those loads race with the other block's store.

extern "C" __global__ void last_block_reduce(const unsigned *in, unsigned *partial,
                                             unsigned *count, unsigned *total) {
    __shared__ unsigned sum[2];
    unsigned t = threadIdx.x;
    sum[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    if (t == 0) {
        unsigned block_sum = sum[0] + sum[1];
        partial[blockIdx.x] = block_sum;
        unsigned ticket = atomicInc(count, gridDim.x);
        if (ticket == gridDim.x - 1) {
            unsigned all = 0;
            for (unsigned b = 0; b < gridDim.x; ++b)
                all += partial[b];
            *total = all;
        }
    }
}
