// scopecheck: --grid 2 --block 2 --arg data=u32[2] --arg arrived=u32[1] --arg out=u32[4]
// A hand-written grid-wide barrier (what cooperative_groups::this_grid().sync() does for a
// cooperative launch): every block writes its value, the block's thread 0 counts the block in
// with atomicAdd and spins until every block has arrived, then each thread reads the other
// block's value. BUG: atomicAdd is a relaxed atom.add.gpu and the spin reads are volatile
// (relaxed.sys); without a fence they form no release or acquire pattern (PTX ISA, memory
// consistency model, "Release and acquire patterns"), so the other block's store of data[] is
// not ordered before this block's load: a data race.

__device__ void grid_sync(unsigned *arrived) {
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(arrived, 1);
        while (*(volatile unsigned *)arrived < gridDim.x) {
        }
    }
    __syncthreads();
}

extern "C" __global__ void exchange(unsigned *data, unsigned *arrived, unsigned *out) {
    if (threadIdx.x == 0)
        data[blockIdx.x] = blockIdx.x + 1;
    grid_sync(arrived);
    unsigned other = data[(blockIdx.x + 1) % gridDim.x];
    out[blockIdx.x * blockDim.x + threadIdx.x] = other;
}
