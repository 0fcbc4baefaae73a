// Warp-level exchanges: __shfl_xor_sync butterfly sum, __ballot_sync, __activemask, __syncwarp.
extern "C" __global__ void warp_ops(int *out) {
    int v = threadIdx.x;
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
    unsigned b = __ballot_sync(0xffffffff, threadIdx.x & 1);
    unsigned m = __activemask();
    int any = __any_sync(0xffffffff, v > 100);
    int up = __shfl_up_sync(0xffffffff, v, 1);
    __syncwarp();
    out[threadIdx.x] = v + b + m + any + up;
}
