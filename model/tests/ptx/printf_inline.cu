// printf (an .extern .func vprintf with a local buffer), an inlined device function (inlined_at
// in .loc), and a loop with #pragma unroll 1 (.pragma "nounroll").
extern "C" __device__ int printf(const char *, ...);
__device__ __forceinline__ int twice(int x) { return 2 * x; }
extern "C" __global__ void show(int *v, int n) {
    #pragma unroll 1
    for (int i = 0; i < n; ++i) v[i] = twice(v[i]);
    if (threadIdx.x == 0) printf("n=%d v0=%d\n", n, v[0]);
}
