// scopecheck: --grid 2 --block 1 --arg lock=u32[1] --arg counter=u32[1]
// A spin lock built on cuda::atomic_ref, FIXED: the lock's scope is cuda::thread_scope_device
// (PTX .gpu), which includes the threads of both blocks, so the releasing store of one critical
// section synchronizes with the acquiring exchange that enters the next (PTX ISA, memory
// consistency model, "Release and acquire patterns", "Morally strong operations"), and the
// counter's accesses are ordered.
#include <cuda/atomic>

extern "C" __global__ void locked_increment(unsigned *lock, unsigned *counter) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> l(*lock);
    while (l.exchange(1, cuda::memory_order_acquire) != 0) {
    }
    *counter = *counter + 1;
    l.store(0, cuda::memory_order_release);
}
