// scopecheck: --grid 2 --block 1 --arg in=u32[2]=5,7 --arg out=u32[2] --arg prefix=u32[2] --arg status=u32[2] --arg ticket=u32[1]
// Decoupled look-back scan (single-pass prefix sum), one element per block: a block takes a
// dynamic tile index from a ticket counter (so that the tile it waits on belongs to a block that
// already runs), publishes its inclusive prefix and raises its status flag; the next tile spins
// on the flag, then reads the prefix.
// BUG: the prefix and the flag are plain/volatile stores with nothing between them, and the
// reader's flag load is not followed by a fence: no release or acquire pattern (PTX ISA, memory
// consistency model, "Release and acquire patterns"). The prefix load races with its store.

extern "C" __global__ void scan(const unsigned *in, unsigned *out, unsigned *prefix,
                                volatile unsigned *status, unsigned *ticket) {
    unsigned tile = atomicAdd(ticket, 1);
    unsigned inclusive = in[tile];
    if (tile > 0) {
        while (status[tile - 1] == 0) {
        }
        inclusive += prefix[tile - 1];
    }
    prefix[tile] = inclusive;
    status[tile] = 1;
    out[tile] = inclusive;
}
