// scopecheck: --block 2 --arg a=u32[12]=1,2,3,4,5,6,7,8,9,10,11,12 --arg out=u32[2] --tensor-map tmap=a:u32:4x3:4x2
// A block loads a 4 x 2 tile of a 4 x 3 row-major matrix with the TMA (cp.async.bulk.tensor.2d
// through a CUtensorMap made on the host by cuTensorMapEncodeTiled, passed as a
// __grid_constant__ kernel parameter). The box starts at row 2: row 3 is past the tensor, and
// the TMA fills it with zeros (PTX ISA, "Tensors", tile mode: out-of-bound elements of the
// bounding box are zero-filled). FIXED: every thread waits on the mbarrier before reading the
// tile; the wait observes the copy's complete-tx, which makes the copy's writes visible (PTX
// ISA, "mbarrier": completion of the phase; "Asynchronous operations": the async proxy's
// writes are made visible through the completion mechanism).

// cuda.h's definition (CCCL's <cuda/barrier> only forward-declares it): "a 128-byte opaque
// object", 64-byte aligned.
typedef struct alignas(64) CUtensorMap_st {
    unsigned long long opaque[16];
} CUtensorMap;

constexpr unsigned kCols = 4, kBoxRows = 2, kBoxBytes = kCols * kBoxRows * 4;

__device__ unsigned smem_addr(const void *p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
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

extern "C" __global__ void tile_load(const __grid_constant__ CUtensorMap tmap, const unsigned *a,
                                     unsigned *out) {
    __shared__ alignas(128) unsigned tile[kBoxRows][kCols];
    __shared__ alignas(8) unsigned long long bar;
    unsigned t = threadIdx.x;
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar)) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (t == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                         smem_addr(&bar)),
                     "r"(kBoxBytes)
                     : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx"
                     "::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(smem_addr(tile)),
                     "l"(&tmap), "r"(0), "r"(2), "r"(smem_addr(&bar))
                     : "memory");
    }
    wait_parity(&bar, 0);
    unsigned in_bounds = tile[0][t], filled = tile[1][t];
    if (in_bounds != a[2 * kCols + t] || filled != 0)
        __trap();
    out[t] = in_bounds + filled;
}
