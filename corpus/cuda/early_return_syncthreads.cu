// scopecheck: --block 4 --arg n=3 --arg in=u32[4]=1,2,3,4 --arg out=u32[4]
// Neighbour sum over n elements staged in shared memory, with a block of 4 threads for n = 3.
// BUG: the threads past the end return before __syncthreads(), so the barrier is reached by
// some threads of the block and not by others. "__syncthreads() is allowed in conditional code
// but only if the conditional evaluates identically across the entire thread block, otherwise
// the code execution is likely to hang or produce unintended side effects" (CUDA C++
// Programming Guide, "Synchronization Functions"): barrier divergence.

extern "C" __global__ void neighbour_sum(unsigned n, const unsigned *in, unsigned *out) {
    __shared__ unsigned s[4];
    unsigned t = threadIdx.x;
    if (t >= n)
        return;
    s[t] = in[t];
    __syncthreads();
    out[t] = s[t] + s[(t + 1) % n];
}
