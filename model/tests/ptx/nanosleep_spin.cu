// A spin lock with exponential back-off by __nanosleep, atomicCAS and atomicExch, __threadfence.
extern "C" __global__ void spin(int *lock, int *counter) {
    unsigned ns = 8;
    while (atomicCAS(lock, 0, 1) != 0) {
        __nanosleep(ns);
        if (ns < 256) ns *= 2;
    }
    __threadfence();
    *counter += 1;
    __threadfence();
    atomicExch(lock, 0);
}
