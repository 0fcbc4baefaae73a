// scopecheck: --block 4 --arg in=u32[4]=1,2,3,4 --arg out=u32[1]
// Register (shuffle) reduction over one partial warp of 4 lanes. BUG: the shuffle sits inside
// `if (lane < offset)`, so the lanes at or above offset, although named in the mask, never
// execute it. "All non-exited threads named in mask must execute the same intrinsic with the
// same mask, or the result is undefined" (CUDA C++ Programming Guide, "Warp Shuffle Functions").

extern "C" __global__ void shuffle_reduce(const unsigned *in, unsigned *out) {
    constexpr unsigned kLanes = 4, kMask = (1u << kLanes) - 1;
    unsigned lane = threadIdx.x;
    unsigned v = in[lane];
    for (unsigned offset = kLanes / 2; offset > 0; offset /= 2) {
        if (lane < offset)
            v += __shfl_down_sync(kMask, v, offset, kLanes);
    }
    if (lane == 0)
        *out = v;
}
