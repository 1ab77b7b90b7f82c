// ISPC twin of ao.c for `lanes bench wfv` (the ISPC column); see mandelbrot.ispc. The same
// per-pixel hash stream, rejection sampling and early-exit occlusion tests, with varying
// control flow where the C kernel's is divergent.
static inline unsigned int ao_hash(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static inline float ao_signed(unsigned int h) { return (float)(int)(h >> 8) * (2.0f / 16777216.0f) - 1.0f; }

static inline int ao_occluded(uniform const float sph[], uniform int nspheres, float ox, float oy,
                              float oz, float dx, float dy, float dz) {
    for (uniform int s = 0; s < nspheres; s++) {
        float rx = ox - sph[4 * s], ry = oy - sph[4 * s + 1], rz = oz - sph[4 * s + 2];
        float b = rx * dx + ry * dy + rz * dz;
        float c = rx * rx + ry * ry + rz * rz - sph[4 * s + 3] * sph[4 * s + 3];
        float disc = b * b - c;
        if (disc > 0.0f && -b - sqrt(disc) > 1e-4f)
            return 1;
    }
    return (dy < -1e-6f && -(oy + 0.5f) / dy > 1e-4f) ? 1 : 0;
}

export void KERNEL_SPMD(uniform int64 n, uniform float out[], uniform const float sph[],
                        uniform int nspheres, uniform int width, uniform int nsub) {
    foreach (i = 0 ... n) {
        int px = (int)(i % width), py = (int)(i / width);
        float dx = (px + 0.5f - width * 0.5f) / (width * 0.5f);
        float dy = (width * 0.5f - py - 0.5f) / (width * 0.5f);
        float dz = -1.0f;
        float len = sqrt(dx * dx + dy * dy + dz * dz);
        dx /= len;
        dy /= len;
        dz /= len;
        float best = 1e30f, nx = 0.0f, ny = 1.0f, nz = 0.0f;
        if (dy < -1e-6f)
            best = -0.5f / dy;
        for (uniform int s = 0; s < nspheres; s++) {
            uniform float cx = sph[4 * s], cy = sph[4 * s + 1], cz = sph[4 * s + 2], r = sph[4 * s + 3];
            float b = -(cx * dx + cy * dy + cz * dz);
            float disc = b * b - (cx * cx + cy * cy + cz * cz - r * r);
            if (disc > 0.0f) {
                float t = -b - sqrt(disc);
                if (t > 1e-4f && t < best) {
                    best = t;
                    uniform float inv = 1.0f / r;
                    nx = (t * dx - cx) * inv;
                    ny = (t * dy - cy) * inv;
                    nz = (t * dz - cz) * inv;
                }
            }
        }
        float value = 0.0f;
        if (best < 1e29f) {
            float ax = abs(nx) > 0.5f ? 0.0f : 1.0f;
            float ay = 1.0f - ax;
            float tx = ay * nz, ty = -ax * nz, tz = ax * ny - ay * nx;
            float tl = sqrt(tx * tx + ty * ty + tz * tz);
            tx /= tl;
            ty /= tl;
            tz /= tl;
            float bx = ny * tz - nz * ty, by = nz * tx - nx * tz, bz = nx * ty - ny * tx;
            float ox = best * dx + 1e-3f * nx, oy = best * dy + 1e-3f * ny, oz = best * dz + 1e-3f * nz;
            unsigned int h = ao_hash((unsigned int)i * 0x9e3779b9u + 0x632be5abu);
            int blocked = 0;
            for (uniform int s = 0; s < nsub * nsub; s++) {
                float u = 0.0f, v = 0.0f;
                for (int tries = 0; tries < 8; tries++) {
                    h = ao_hash(h + 0x9e3779b9u);
                    u = ao_signed(h);
                    h = ao_hash(h ^ 0x85ebca6bu);
                    v = ao_signed(h);
                    if (u * u + v * v <= 1.0f)
                        break;
                    u = v = 0.0f;
                }
                float w = sqrt(max(0.0f, 1.0f - u * u - v * v));
                float sx = u * tx + v * bx + w * nx, sy = u * ty + v * by + w * ny, sz = u * tz + v * bz + w * nz;
                blocked += ao_occluded(sph, nspheres, ox, oy, oz, sx, sy, sz);
            }
            value = (float)(nsub * nsub - blocked) / (float)(nsub * nsub);
        }
        out[i] = value;
    }
}
