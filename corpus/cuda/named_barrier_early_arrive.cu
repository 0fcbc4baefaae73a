// scopecheck: --block 64 --arg in=u32[32] --arg out=u32[32]
// Producer/consumer between the two warps of a block through shared memory and named barrier 1
// (bar.arrive by the producer warp, bar.sync by the consumer warp; barrier 0 is
// __syncthreads()'s). BUG: the producer arrives *before* it writes the buffer. bar.arrive only
// orders the arriving thread's accesses that precede it: "bar.sync ... and bar.arrive ...
// guarantee that ... all prior memory accesses requested by the threads are performed relative
// to all threads participating in the barrier" (PTX ISA, "bar, barrier"); the store after the
// arrive is not ordered with the consumer's load after its bar.sync: a data race.

__device__ void named_arrive(unsigned id, unsigned count) {
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

__device__ void named_sync(unsigned id, unsigned count) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

extern "C" __global__ void produce_consume(const unsigned *in, unsigned *out) {
    __shared__ unsigned buf[32];
    unsigned lane = threadIdx.x % 32;
    if (threadIdx.x < 32) {
        named_arrive(1, 64);
        buf[lane] = in[lane] + 1;
    } else {
        named_sync(1, 64);
        out[lane] = buf[lane];
    }
}
