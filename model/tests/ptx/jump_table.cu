// A dense switch over a runtime value, which NVVM may lower to a jump table (brx.idx with a
// .branchtargets list).
extern "C" __global__ void jump(int *v, int k) {
    int x = v[threadIdx.x];
    switch (k) {
    case 0: x = x * 3 + 1; break;
    case 1: x = x ^ 0x55; break;
    case 2: x = x - 7; break;
    case 3: x = x << 2; break;
    case 4: x = x / 5; break;
    case 5: x = ~x; break;
    case 6: x = x % 11; break;
    case 7: x = x + 100; break;
    case 8: x = x * x; break;
    case 9: x = -x; break;
    default: x = 0; break;
    }
    v[threadIdx.x] = x;
}
