// scopecheck: --grid 2 --block 2 --arg data=u32[2] --arg arrived=u32[1] --arg out=u32[4]
// A hand-written grid-wide barrier (what cooperative_groups::this_grid().sync() does for a
// cooperative launch), FIXED: thread 0 fences before counting its block in (fence.sc.gpu
// followed by the atomic: a release pattern) and after its spin loop has seen every block
// (the volatile read followed by fence.sc.gpu: an acquire pattern); __syncthreads() orders the
// other threads of the block before and after it (PTX ISA, "bar.sync": it "guarantees memory
// ordering" among the threads of the CTA). So data[] is written before it is read everywhere.

__device__ void grid_sync(unsigned *arrived) {
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(arrived, 1);
        while (*(volatile unsigned *)arrived < gridDim.x) {
        }
        __threadfence();
    }
    __syncthreads();
}

extern "C" __global__ void exchange(unsigned *data, unsigned *arrived, unsigned *out) {
    if (threadIdx.x == 0)
        data[blockIdx.x] = blockIdx.x + 1;
    grid_sync(arrived);
    unsigned other = data[(blockIdx.x + 1) % gridDim.x];
    if (other != (blockIdx.x + 1) % gridDim.x + 1)
        __trap();
    out[blockIdx.x * blockDim.x + threadIdx.x] = other;
}
