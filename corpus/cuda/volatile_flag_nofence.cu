// scopecheck: --grid 2 --block 1 --arg data=u32[1] --arg flag=u32[1]
// Message passing between two blocks through a volatile flag, WITHOUT fences: block 0 writes the
// payload and raises the flag, block 1 spins on the flag and reads the payload.
// BUG: "The semantics of volatile operations are equivalent to a relaxed memory operation with
// system-scope" (PTX ISA, memory consistency model, "volatile Operation"): the flag accesses do
// not race with each other, but they synchronize nothing. Nothing orders the payload store before
// the flag store, nor the flag load before the payload load: the payload accesses race.

extern "C" __global__ void message(unsigned *data, volatile unsigned *flag) {
    if (blockIdx.x == 0) {
        *data = 42;
        *flag = 1;
    } else {
        while (*flag == 0) {
        }
        unsigned v = *data;
        if (v != 42)
            __trap();
    }
}
