// scopecheck: --block 4 --arg in=u32[4]=1,2,3,4 --arg out=u32[1]
// Shared-memory warp reduction, FIXED with __syncwarp: every lane of the (partial, 4-lane) warp
// reads its operands, waits at __syncwarp, writes, and waits again. "__syncwarp() ... guarantees
// memory ordering among threads participating in the barrier" (CUDA C++ Programming Guide,
// "Synchronization Functions"), so each round's writes happen before the next round's reads.
// The mask names exactly the launched lanes (lanes 4..31 of the warp do not exist).

extern "C" __global__ void warp_reduce(const unsigned *in, unsigned *out) {
    constexpr unsigned kLanes = 4, kMask = (1u << kLanes) - 1;
    __shared__ unsigned s[kLanes];
    unsigned lane = threadIdx.x;
    s[lane] = in[lane];
    __syncwarp(kMask);
    for (unsigned offset = kLanes / 2; offset > 0; offset /= 2) {
        unsigned v = lane < offset ? s[lane] + s[lane + offset] : 0;
        __syncwarp(kMask);
        if (lane < offset)
            s[lane] = v;
        __syncwarp(kMask);
    }
    if (lane == 0) {
        if (s[0] != 10)
            __trap();
        *out = s[0];
    }
}
