// scopecheck: --grid 2 --block 1 --arg data=u32[1] --arg flag=u32[1]
// Message passing between two blocks through a volatile flag, FIXED with __threadfence() on both
// sides: fence.sc.gpu before the flag store is a release pattern, the flag load followed by
// fence.sc.gpu an acquire pattern (PTX ISA, memory consistency model, "Release and acquire
// patterns"); the volatile flag accesses are strong (relaxed.sys), so the pattern synchronizes
// and the payload store happens before the payload load.

extern "C" __global__ void message(unsigned *data, volatile unsigned *flag) {
    if (blockIdx.x == 0) {
        *data = 42;
        __threadfence();
        *flag = 1;
    } else {
        while (*flag == 0) {
        }
        __threadfence();
        unsigned v = *data;
        if (v != 42)
            __trap();
    }
}
