// ISPC twin of binomial.c for `lanes bench wfv` (the ISPC column); see mandelbrot.ispc. The
// per-instance array is a varying array, which ISPC lays out element-major across lanes.
#define BINOMIAL_STEPS 63

export void KERNEL_SPMD(uniform int64 n, uniform const float spot[], uniform const float strike[],
                        uniform const float years[], uniform float put[], uniform float rate,
                        uniform float vol) {
    foreach (i = 0 ... n) {
        float s = spot[i], x = strike[i], t = years[i];
        float v[BINOMIAL_STEPS + 1];
        float dt = t / BINOMIAL_STEPS;
        float up = exp(vol * sqrt(dt));
        float down = 1.0f / up;
        float growth = exp(rate * dt);
        float p_up = (growth - down) / (up - down);
        for (uniform int j = 0; j <= BINOMIAL_STEPS; j++)
            v[j] = max(0.0f, x - s * pow(up, (float)(2 * j - BINOMIAL_STEPS)));
        for (uniform int step = BINOMIAL_STEPS - 1; step >= 0; step--)
            for (uniform int j = 0; j <= step; j++)
                v[j] = ((1.0f - p_up) * v[j] + p_up * v[j + 1]) / growth;
        put[i] = v[0];
    }
}
