// scopecheck: --block 8 --arg in=u32[8]=1,2,3,4,5,6,7,8 --arg out=u32[1]
// Register (shuffle) reduction over one partial warp of 8 lanes, FIXED: every lane named in the
// mask executes each __shfl_down_sync with the same mask (CUDA C++ Programming Guide, "Warp
// Shuffle Functions"); lane 0 ends with the sum, checked with assert.
#include <cuda/std/cassert>

extern "C" __global__ void shuffle_reduce(const unsigned *in, unsigned *out) {
    constexpr unsigned kLanes = 8, kMask = (1u << kLanes) - 1;
    unsigned lane = threadIdx.x;
    unsigned v = in[lane];
    for (unsigned offset = kLanes / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(kMask, v, offset);
    if (lane == 0) {
        assert(v == 36);
        *out = v;
    }
}
