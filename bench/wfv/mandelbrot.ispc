// ISPC twin of mandelbrot.c for `lanes bench wfv` (the ISPC column): the same per-pixel
// escape-time loop, one program instance per pixel. KERNEL_SPMD is the launcher name the
// harness links (`<kernel>_ispc_w<W>_spmd`), with the lanes launcher's signature.
export void KERNEL_SPMD(uniform int64 n, uniform int out[], uniform int width, uniform float x0,
                        uniform float y0, uniform float step, uniform int max_iter) {
    foreach (i = 0 ... n) {
        int px = (int)(i % width), py = (int)(i / width);
        float cr = x0 + px * step, ci = y0 + py * step;
        float zr = 0.0f, zi = 0.0f;
        int k = 0;
        while (k < max_iter && zr * zr + zi * zi <= 4.0f) {
            float t = zr * zr - zi * zi + cr;
            zi = 2.0f * zr * zi + ci;
            zr = t;
            k++;
        }
        out[i] = k;
    }
}
