// Message passing through cuda::atomic_ref: release store of a flag, acquire load, relaxed counter.
#include <cuda/atomic>
extern "C" __global__ void message_passing(int *data, int *flag, int *out) {
    cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        data[0] = 42;
        f.store(1, cuda::memory_order_release);
    } else if (blockIdx.x == 1 && threadIdx.x == 0) {
        while (f.load(cuda::memory_order_acquire) == 0) {
        }
        out[0] = data[0];
    }
    cuda::atomic_ref<int, cuda::thread_scope_block> c(out[1]);
    c.fetch_add(1, cuda::memory_order_relaxed);
    cuda::atomic_ref<int, cuda::thread_scope_system> s(out[2]);
    int expected = 0;
    s.compare_exchange_strong(expected, 7, cuda::memory_order_acq_rel);
}
