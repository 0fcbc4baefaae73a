// Ampere cp.async copies global -> shared with commit/wait groups, by inline assembly.
extern "C" __global__ void copy_async(const int *src, int *dst) {
    __shared__ int tile[128];
    unsigned s = (unsigned)__cvta_generic_to_shared(&tile[threadIdx.x]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(s), "l"(src + threadIdx.x));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    __syncthreads();
    dst[threadIdx.x] = tile[(threadIdx.x + 1) % 128];
}
