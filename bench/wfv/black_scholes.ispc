// ISPC twin of black_scholes.c for `lanes bench wfv` (the ISPC column); see mandelbrot.ispc.
static inline float cnd(float d) {
    float k = 1.0f / (1.0f + 0.2316419f * abs(d));
    float poly =
        k * (0.31938153f + k * (-0.356563782f + k * (1.781477937f + k * (-1.821255978f + k * 1.330274429f))));
    float w = 1.0f - 0.3989422804f * exp(-0.5f * d * d) * poly;
    if (d < 0.0f)
        w = 1.0f - w;
    return w;
}

export void KERNEL_SPMD(uniform int64 n, uniform const float spot[], uniform const float strike[],
                        uniform const float years[], uniform float call[], uniform float put[],
                        uniform float rate, uniform float vol) {
    foreach (i = 0 ... n) {
        float s = spot[i], x = strike[i], t = years[i];
        float sq = sqrt(t);
        float d1 = (log(s / x) + (rate + 0.5f * vol * vol) * t) / (vol * sq);
        float d2 = d1 - vol * sq;
        float e = x * exp(-rate * t);
        call[i] = s * cnd(d1) - e * cnd(d2);
        put[i] = e * (1.0f - cnd(d2)) - s * (1.0f - cnd(d1));
    }
}
