// scopecheck: --block 64 --arg in=u32[32] --arg out=u32[32]
// Producer/consumer between the two warps of a block through shared memory and named barrier 1,
// FIXED: the producer warp writes the buffer, then arrives (bar.arrive 1, 64); the consumer
// warp waits (bar.sync 1, 64), then reads. "All prior memory accesses requested by the threads
// are performed relative to all threads participating in the barrier" (PTX ISA, "bar,
// barrier"), so each buf[] store happens before the load of it. The count, 64, is a multiple of
// the warp size and covers both warps, as the ISA requires.

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
        buf[lane] = in[lane] + 1;
        named_arrive(1, 64);
    } else {
        named_sync(1, 64);
        unsigned v = buf[lane];
        if (v != 1)
            __trap();
        out[lane] = v;
    }
}
