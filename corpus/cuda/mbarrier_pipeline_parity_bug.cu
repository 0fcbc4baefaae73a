// scopecheck: --block 2 --arg src=u32[16]=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 --arg out=u32[2]
// Hopper 2-stage pipeline: thread 0 loads 16-byte tiles into a shared-memory ring of two stages
// with cp.async.bulk, completing on each stage's mbarrier (expect_tx + complete_tx); every
// thread arrives on the stage's barrier, waits for the tile and consumes it. This is the bug of
// the seed document mbarrier-pipeline-phase-bug.zh.md, in miniature.
// BUG: every wait asks for phase parity 0. A stage's barrier is reused every second tile, and
// its phase alternates 0, 1, 0, ...; "mbarrier.try_wait.parity ... waitComplete is True when the
// phase indicated by the operand phaseParity ... has completed" (PTX ISA, "mbarrier.test_wait /
// mbarrier.try_wait"): on the second use of stage 0 (tile 2) the barrier is in phase 1, its
// phase 0 completed long ago, and the wait returns at once while the bulk copy of tile 2 is
// still writing the stage: the thread's load races with the copy.

constexpr unsigned kStages = 2, kTiles = 4, kTileWords = 4, kTileBytes = kTileWords * 4;

__device__ unsigned smem_addr(const void *p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ void mbarrier_init(unsigned long long *bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count)
                 : "memory");
}

// Thread 0: arrive, expect the tile's bytes, and start the bulk copy that completes them.
__device__ void issue_tile(unsigned *stage, const unsigned *gmem, unsigned long long *bar) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
                 "r"(kTileBytes)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1], %2, [%3];" ::"r"(smem_addr(stage)),
                 "l"(gmem), "r"(kTileBytes), "r"(smem_addr(bar))
                 : "memory");
}

__device__ void arrive(unsigned long long *bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}

__device__ void wait_parity(unsigned long long *bar, unsigned parity) {
    unsigned done = 0;
    while (!done) {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(smem_addr(bar)), "r"(parity)
                     : "memory");
    }
}

__device__ void load(unsigned p, unsigned (*ring)[kTileWords], const unsigned *src,
                     unsigned long long *bars) {
    unsigned s = p % kStages;
    if (threadIdx.x == 0)
        issue_tile(ring[s], src + p * kTileWords, &bars[s]);
    else
        arrive(&bars[s]);
}

extern "C" __global__ void pipeline(const unsigned *src, unsigned *out) {
    __shared__ alignas(16) unsigned ring[kStages][kTileWords];
    __shared__ alignas(8) unsigned long long bars[kStages];
    unsigned t = threadIdx.x;
    if (t == 0) {
        for (unsigned s = 0; s < kStages; ++s)
            mbarrier_init(&bars[s], blockDim.x);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    load(0, ring, src, bars);
    unsigned acc = 0;
    for (unsigned p = 0; p < kTiles; ++p) {
        if (p + 1 < kTiles)
            load(p + 1, ring, src, bars);
        unsigned s = p % kStages;
        wait_parity(&bars[s], 0);
        unsigned v = ring[s][t];
        if (v != src[p * kTileWords + t])
            __trap();
        acc += v;
        // The stage is refilled by a later bulk copy, whose writes are in the async proxy: the
        // generic reads of it must be ordered before them by a proxy fence (PTX ISA, "Proxies":
        // "Accessing the same memory location across multiple proxies needs a cross-proxy
        // fence. For the async proxy, fence.proxy.async should be used").
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
    }
    out[t] = acc;
}
