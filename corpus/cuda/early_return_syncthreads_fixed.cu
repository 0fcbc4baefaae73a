// scopecheck: --block 4 --arg n=3 --arg in=u32[4]=1,2,3,4 --arg out=u32[4]
// Neighbour sum over n elements staged in shared memory, with a block of 4 threads for n = 3,
// FIXED: every thread of the block reaches the same __syncthreads(); only the work is guarded
// by t < n ("__syncthreads() is allowed in conditional code but only if the conditional
// evaluates identically across the entire thread block", CUDA C++ Programming Guide,
// "Synchronization Functions"). The barrier orders each s[] store before its loads.

extern "C" __global__ void neighbour_sum(unsigned n, const unsigned *in, unsigned *out) {
    __shared__ unsigned s[4];
    unsigned t = threadIdx.x;
    if (t < n)
        s[t] = in[t];
    __syncthreads();
    if (t < n)
        out[t] = s[t] + s[(t + 1) % n];
}
