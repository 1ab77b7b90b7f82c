// ISPC twin of noise.c for `lanes bench wfv` (the ISPC column); see mandelbrot.ispc. The
// permutation table is uniform; every lookup into it is a gather.
static inline float nz_fade(float t) { return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f); }
static inline float nz_lerp(float t, float a, float b) { return a + t * (b - a); }

static inline float nz_grad(int h, float x, float y, float z) {
    h &= 15;
    float u = h < 8 ? x : y;
    float v = h < 4 ? y : (h == 12 || h == 14 ? x : z);
    return ((h & 1) ? -u : u) + ((h & 2) ? -v : v);
}

static inline float nz_noise(uniform const int p[], float x, float y, float z) {
    float fx = floor(x), fy = floor(y), fz = floor(z);
    int X = (int)fx & 255, Y = (int)fy & 255, Z = (int)fz & 255;
    x -= fx;
    y -= fy;
    z -= fz;
    float u = nz_fade(x), v = nz_fade(y), w = nz_fade(z);
    int A = (p[X] + Y) & 255, B = (p[(X + 1) & 255] + Y) & 255;
    int AA = (p[A] + Z) & 255, AB = (p[(A + 1) & 255] + Z) & 255;
    int BA = (p[B] + Z) & 255, BB = (p[(B + 1) & 255] + Z) & 255;
    float x0 = nz_lerp(u, nz_grad(p[AA], x, y, z), nz_grad(p[BA], x - 1.0f, y, z));
    float x1 = nz_lerp(u, nz_grad(p[AB], x, y - 1.0f, z), nz_grad(p[BB], x - 1.0f, y - 1.0f, z));
    float x2 = nz_lerp(u, nz_grad(p[(AA + 1) & 255], x, y, z - 1.0f),
                       nz_grad(p[(BA + 1) & 255], x - 1.0f, y, z - 1.0f));
    float x3 = nz_lerp(u, nz_grad(p[(AB + 1) & 255], x, y - 1.0f, z - 1.0f),
                       nz_grad(p[(BB + 1) & 255], x - 1.0f, y - 1.0f, z - 1.0f));
    return nz_lerp(w, nz_lerp(v, x0, x1), nz_lerp(v, x2, x3));
}

export void KERNEL_SPMD(uniform int64 n, uniform float out[], uniform const int perm[],
                        uniform int width, uniform float scale, uniform float depth,
                        uniform int octaves) {
    foreach (i = 0 ... n) {
        int px = (int)(i % width), py = (int)(i / width);
        float x = px * scale, y = py * scale, z = depth;
        float sum = 0.0f, amp = 0.5f;
        for (uniform int o = 0; o < octaves; o++) {
            sum += amp * abs(nz_noise(perm, x, y, z));
            x *= 2.0f;
            y *= 2.0f;
            z *= 2.0f;
            amp *= 0.5f;
        }
        out[i] = sum;
    }
}
