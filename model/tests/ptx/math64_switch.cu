// 64-bit integer math and a switch statement (branches and a jump table when dense).
extern "C" __global__ void mix(unsigned long long *v, int sel) {
    unsigned long long x = v[threadIdx.x];
    x = x * 0x9E3779B97F4A7C15ull + (x >> 29) - 0x123456789ull;
    switch ((sel + threadIdx.x) % 8) {
    case 0: x ^= 1; break;
    case 1: x += 17; break;
    case 2: x *= 3; break;
    case 3: x = x / 7; break;
    case 4: x <<= 5; break;
    case 5: x = ~x; break;
    case 6: x %= 1000003; break;
    default: x -= 9; break;
    }
    v[threadIdx.x] = x;
}
