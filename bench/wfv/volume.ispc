// ISPC twin of volume.c for `lanes bench wfv` (the ISPC column); see mandelbrot.ispc. The
// march is a varying loop with a varying early exit; every grid sample is eight gathers.
static inline int vr_cell(float g, uniform int n, float &frac) {
    int c = (int)g;
    c = c < 0 ? 0 : c > n - 2 ? n - 2 : c;
    frac = g - (float)c;
    return c;
}

export void KERNEL_SPMD(uniform int64 count, uniform float out[], uniform const float grid[],
                        uniform int n, uniform int width, uniform float step,
                        uniform float absorb) {
    foreach (i = 0 ... count) {
        int px = (int)(i % width), py = (int)(i / width);
        uniform float ex = 0.9f, ey = 0.8f, ez = -1.6f;
        float dx = -0.2f + 1.4f * (px + 0.5f) / width - ex;
        float dy = -0.2f + 1.4f * (py + 0.5f) / width - ey;
        uniform float dz = 0.5f - ez;
        float ix = 1.0f / dx, iy = 1.0f / dy;
        uniform float iz = 1.0f / dz;
        float ax = -ex * ix, bx = (1.0f - ex) * ix, ay = -ey * iy, by = (1.0f - ey) * iy;
        uniform float az = -ez * iz, bz = (1.0f - ez) * iz;
        float t0 = ax < bx ? ax : bx, t1 = ax < bx ? bx : ax;
        float lo = ay < by ? ay : by, hi = ay < by ? by : ay;
        t0 = lo > t0 ? lo : t0;
        t1 = hi < t1 ? hi : t1;
        lo = az < bz ? az : bz;
        hi = az < bz ? bz : az;
        t0 = lo > t0 ? lo : t0;
        t1 = hi < t1 ? hi : t1;
        float color = 0.0f, alpha = 0.0f;
        int steps = t1 > t0 ? (int)((t1 - t0) / step) : 0;
        uniform float scale = (float)(n - 1);
        for (int k = 0; k < steps; k++) {
            float t = t0 + (k + 0.5f) * step;
            float fx, fy, fz;
            int cx = vr_cell((ex + t * dx) * scale, n, fx);
            int cy = vr_cell((ey + t * dy) * scale, n, fy);
            int cz = vr_cell((ez + t * dz) * scale, n, fz);
            int g = (cz * n + cy) * n + cx;
            uniform int sy = n, sz = n * n;
            float c00 = grid[g] + fx * (grid[g + 1] - grid[g]);
            float c01 = grid[g + sy] + fx * (grid[g + sy + 1] - grid[g + sy]);
            float c10 = grid[g + sz] + fx * (grid[g + sz + 1] - grid[g + sz]);
            float c11 = grid[g + sz + sy] + fx * (grid[g + sz + sy + 1] - grid[g + sz + sy]);
            float c0 = c00 + fy * (c01 - c00), c1 = c10 + fy * (c11 - c10);
            float density = c0 + fz * (c1 - c0);
            if (density > 0.0f) {
                float a = density * absorb * step;
                a = a < 1.0f ? a : 1.0f;
                float emit = 0.25f + 0.75f * (cy + fy) / scale;
                color += (1.0f - alpha) * a * emit;
                alpha += (1.0f - alpha) * a;
                if (alpha > 0.97f)
                    break;
            }
        }
        out[i] = color + (1.0f - alpha) * 0.05f;
    }
}
