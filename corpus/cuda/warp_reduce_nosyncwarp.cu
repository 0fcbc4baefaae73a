// scopecheck: --block 4 --arg in=u32[4]=1,2,3,4 --arg out=u32[1]
// Shared-memory warp reduction written for lock-step warps (pre-Volta "warp-synchronous"
// code), launched as one partial warp of 4 lanes. BUG: with independent thread scheduling
// (CUDA C++ Programming Guide, "Independent Thread Scheduling") the lanes of a warp are not
// guaranteed to run in lock step: lane i reads s[i + offset] while lane i + offset may still be
// writing it in the previous round. Nothing orders the rounds: a data race on s[].

extern "C" __global__ void warp_reduce(const unsigned *in, unsigned *out) {
    __shared__ unsigned s[4];
    unsigned lane = threadIdx.x;
    s[lane] = in[lane];
    for (unsigned offset = 2; offset > 0; offset /= 2) {
        if (lane < offset)
            s[lane] += s[lane + offset];
    }
    if (lane == 0)
        *out = s[0];
}
