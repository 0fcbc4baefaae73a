// Dynamic shared memory (extern __shared__), a static __shared__ 2-D array and __constant__
// data with initialisers.
__constant__ int table[4] = {1, 2, 3, 4};
__constant__ float scale = 0.5f;
__device__ int counters[2][3] = {{1, 2, 3}, {4, 5, 6}};
extern "C" __global__ void dyn(int *out) {
    extern __shared__ int dynamic[];
    __shared__ int grid2[4][8];
    dynamic[threadIdx.x] = table[threadIdx.x % 4];
    grid2[threadIdx.x % 4][threadIdx.x % 8] = counters[1][threadIdx.x % 3];
    __syncthreads();
    out[threadIdx.x] = (int)(dynamic[(threadIdx.x + 1) % blockDim.x] * scale) + grid2[0][1];
}
