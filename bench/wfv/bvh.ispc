// ISPC twin of bvh.c for `lanes bench wfv` (the ISPC column); see mandelbrot.ispc. The
// traversal stack is a varying array indexed by a varying stack pointer (gathers and
// scatters), and the walk is a varying loop.
#define BVH_STACK 64

export void KERNEL_SPMD(uniform int64 n, uniform float out[], uniform const float box[],
                        uniform const int link[], uniform const float sph[], uniform int width) {
    foreach (i = 0 ... n) {
        int px = (int)(i % width), py = (int)(i / width);
        float dx = (px + 0.5f - width * 0.5f) / width, dy = (width * 0.5f - py - 0.5f) / width;
        float dz = -1.0f;
        float len = sqrt(dx * dx + dy * dy + dz * dz);
        dx /= len;
        dy /= len;
        dz /= len;
        float ix = 1.0f / dx, iy = 1.0f / dy, iz = 1.0f / dz;
        float best = 1e30f;
        int stack[BVH_STACK];
        int sp = 0;
        stack[sp++] = 0;
        while (sp > 0) {
            int node = stack[--sp];
            int b = 6 * node;
            float ax = box[b] * ix, bx = box[b + 3] * ix, ay = box[b + 1] * iy, by = box[b + 4] * iy;
            float az = box[b + 2] * iz, bz = box[b + 5] * iz;
            float t0 = ax < bx ? ax : bx, t1 = ax < bx ? bx : ax;
            float lo = ay < by ? ay : by, hi = ay < by ? by : ay;
            t0 = lo > t0 ? lo : t0;
            t1 = hi < t1 ? hi : t1;
            lo = az < bz ? az : bz;
            hi = az < bz ? bz : az;
            t0 = lo > t0 ? lo : t0;
            t1 = hi < t1 ? hi : t1;
            if (t1 < t0 || t1 < 0.0f || t0 > best)
                continue;
            int first = link[2 * node], count = link[2 * node + 1];
            if (count > 0) {
                for (int k = first; k < first + count; k++) {
                    float cx = sph[4 * k], cy = sph[4 * k + 1], cz = sph[4 * k + 2], r = sph[4 * k + 3];
                    float bb = cx * dx + cy * dy + cz * dz;
                    float disc = bb * bb - (cx * cx + cy * cy + cz * cz - r * r);
                    if (disc > 0.0f) {
                        float t = bb - sqrt(disc);
                        if (t > 1e-4f && t < best)
                            best = t;
                    }
                }
            } else {
                int axis = -count - 1;
                float da = axis == 0 ? dx : axis == 1 ? dy : dz;
                int nearc = da > 0.0f ? first : first + 1;
                stack[sp++] = 2 * first + 1 - nearc;
                stack[sp++] = nearc;
            }
        }
        out[i] = best < 1e29f ? best : 0.0f;
    }
}
