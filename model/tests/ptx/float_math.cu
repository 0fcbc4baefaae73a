// Float math: fma, division, sqrt, exp, sin (the slow path keeps __cudart_i2opi_f, a .const table).
extern "C" __global__ void math(const float *x, float *y, double *z) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = x[i];
    y[i] = fmaf(a, 1.5f, -0.25f) / (a + 3.0f) + sqrtf(fabsf(a)) + expf(a) + sinf(a);
    z[i] = (double)a * 2.718281828459045 + 1e-300;
}
