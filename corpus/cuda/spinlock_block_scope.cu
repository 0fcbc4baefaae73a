// scopecheck: --grid 2 --block 1 --arg lock=u32[1] --arg counter=u32[1]
// A spin lock built on cuda::atomic_ref, taken by one thread of each of two blocks to increment
// a shared counter. BUG: the lock's scope is cuda::thread_scope_block (PTX scope .cta), but its
// users are in different blocks. Two operations are morally strong only if "each operation
// specifies a scope that includes the thread executing the other operation" (PTX ISA, memory
// consistency model, "Morally strong operations"): the exchange/store pairs of the two blocks
// are not, so the release store does not synchronize with the other block's acquiring
// exchange, and the counter's plain read-modify-write races (fixed by device scope).
#include <cuda/atomic>

extern "C" __global__ void locked_increment(unsigned *lock, unsigned *counter) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_block> l(*lock);
    while (l.exchange(1, cuda::memory_order_acquire) != 0) {
    }
    *counter = *counter + 1;
    l.store(0, cuda::memory_order_release);
}
