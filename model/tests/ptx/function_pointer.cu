// An indirect call through a device function pointer (a .callprototype in the caller) and a
// __managed__-free global table of function addresses initialised with symbols.
typedef int (*op_t)(int, int);
__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_mul(int a, int b) { return a * b; }
__device__ op_t ops[2] = {op_add, op_mul};
extern "C" __global__ void indirect(int *v, int which) {
    op_t f = ops[which & 1];
    v[threadIdx.x] = f(v[threadIdx.x], 3);
}
