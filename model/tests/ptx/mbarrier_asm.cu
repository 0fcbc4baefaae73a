// An mbarrier in shared memory driven by inline assembly: init, fence.mbarrier_init, arrive,
// and a try_wait loop with its own .reg .pred and labels inside a { } scope.
extern "C" __global__ void barrier_kernel(int *data) {
    __shared__ unsigned long long bar;
    unsigned a = (unsigned)__cvta_generic_to_shared(&bar);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(a), "r"(blockDim.x));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    data[threadIdx.x] += 1;
    unsigned long long state;
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(a) : "memory");
    asm volatile("{\n\t.reg .pred P1;\n"
                 "LAB_WAIT:\n\t"
                 "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 P1, [%0], %1;\n\t"
                 "@P1 bra DONE;\n\t"
                 "bra LAB_WAIT;\n"
                 "DONE:\n\t}" :: "r"(a), "r"(0) : "memory");
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "mbarrier.test_wait.shared::cta.b64 p, [%0], %1;\n\t"
                 "@!p st.global.u32 [%2], 0;\n\t}" :: "r"(a), "l"(state), "l"(data) : "memory");
}
