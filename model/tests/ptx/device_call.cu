// Device functions kept out of line with __noinline__: .func with parameters and a return value.
__device__ __noinline__ int add_scaled(int a, int b, int scale) { return a + b * scale; }
__device__ __noinline__ void store_pair(int *p, int a, long long b) { p[0] = a; p[1] = (int)(b >> 32); }
extern "C" __global__ void caller(int *out, int k) {
    int r = add_scaled(threadIdx.x, k, 3);
    store_pair(out + 2 * threadIdx.x, r, (long long)r << 33);
}
