// scopecheck: --block 4 --arg in=u32[4]=1,2,3,4 --arg out=u32[1]
// Register (shuffle) reduction over one partial warp of 4 lanes, FIXED: every lane named in the
// mask executes each __shfl_down_sync with the same mask (CUDA C++ Programming Guide, "Warp
// Shuffle Functions"); lane 0 ends with the sum, checked with assert. The width argument is the
// partial warp's: without it lane 3 would read lane 3 + offset, outside the mask, whose value
// is undefined ("If the target thread is inactive, the retrieved value is undefined"); with it,
// a source lane past the width returns the caller's own value.
#include <cuda/std/cassert>

extern "C" __global__ void shuffle_reduce(const unsigned *in, unsigned *out) {
    constexpr unsigned kLanes = 4, kMask = (1u << kLanes) - 1;
    unsigned lane = threadIdx.x;
    unsigned v = in[lane];
    for (unsigned offset = kLanes / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(kMask, v, offset, kLanes);
    if (lane == 0) {
        assert(v == 10);
        *out = v;
    }
}
