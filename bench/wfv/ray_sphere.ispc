// ISPC twin of ray_sphere.c for `lanes bench wfv` (the ISPC column); see mandelbrot.ispc.
// The sphere loop is uniform; the nearest-hit update and the shading are varying branches.
export void KERNEL_SPMD(uniform int64 n, uniform const float cx[], uniform const float cy[],
                        uniform const float cz[], uniform const float cr[], uniform float out[],
                        uniform int width, uniform int spheres) {
    foreach (i = 0 ... n) {
        int px = (int)(i % width), py = (int)(i / width);
        float dx = (px - width * 0.5f) / width, dy = (py - width * 0.5f) / width, dz = -1.0f;
        float len = sqrt(dx * dx + dy * dy + dz * dz);
        dx /= len;
        dy /= len;
        dz /= len;
        float best = 1e30f;
        int hit = -1;
        for (uniform int s = 0; s < spheres; s++) {
            float ox = -cx[s], oy = -cy[s], oz = -cz[s];
            float b = ox * dx + oy * dy + oz * dz;
            float c = ox * ox + oy * oy + oz * oz - cr[s] * cr[s];
            float disc = b * b - c;
            if (disc > 0.0f) {
                float t = -b - sqrt(disc);
                if (t > 0.0f && t < best) {
                    best = t;
                    hit = s;
                }
            }
        }
        float shade = 0.0f;
        if (hit >= 0) {
            float hx = best * dx - cx[hit], hy = best * dy - cy[hit], hz = best * dz - cz[hit];
            float inv = 1.0f / cr[hit];
            float l = (hx * 0.577f + hy * 0.577f + hz * 0.577f) * inv;
            shade = l > 0.0f ? l : 0.05f;
        }
        out[i] = shade;
    }
}
