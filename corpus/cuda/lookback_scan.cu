// scopecheck: --grid 2 --block 1 --arg in=u32[2]=5,7 --arg out=u32[2] --arg prefix=u32[2] --arg status=u32[2] --arg ticket=u32[1]
// Decoupled look-back scan (single-pass prefix sum), one element per block, FIXED: the status
// flag is a cuda::atomic_ref at device scope, raised with a release store after the prefix is
// written and read with acquire loads before the prefix is read. A release store read by an
// acquire load at a scope that includes both threads synchronizes (PTX ISA, memory consistency
// model, "Release and acquire patterns", "Causality order"), so the prefix store happens before
// the load that reads it. The tile after the first checks the running sum.
#include <cuda/atomic>

extern "C" __global__ void scan(const unsigned *in, unsigned *out, unsigned *prefix,
                                unsigned *status, unsigned *ticket) {
    unsigned tile = atomicAdd(ticket, 1);
    unsigned inclusive = in[tile];
    if (tile > 0) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> ready(status[tile - 1]);
        while (ready.load(cuda::memory_order_acquire) == 0) {
        }
        inclusive += prefix[tile - 1];
        if (inclusive != in[0] + in[1])
            __trap();
    }
    prefix[tile] = inclusive;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(status[tile])
        .store(1, cuda::memory_order_release);
    out[tile] = inclusive;
}
