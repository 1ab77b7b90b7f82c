/* SPMD kernels for `lanes vectorize` (tests/vectorize.rs): instance i of n. */
#include <lanes.h>

void saxpy(int i, float a, const float *x, float *y) { y[i] = a * x[i] + y[i]; }

/* A divergent if/else. */
void branchy(int i, const int *x, int *y) {
    int v = x[i];
    if (v > 0)
        y[i] = v * 3 + 1;
    else
        y[i] = -v / 2;
}

/* A divergent loop with an escape exit (Mandelbrot, PLDI'18 Fig. 9). */
void mandel(int i, int w, float x0, float y0, float d, int max_iter, int *out) {
    float cr = x0 + (float)(i % w) * d, ci = y0 + (float)(i / w) * d;
    float zr = 0.0f, zi = 0.0f;
    int k = 0;
    while (k < max_iter && zr * zr + zi * zi < 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        k++;
    }
    out[i] = k;
}

/* A `lanes_any` guard: the inner test keeps the result independent of the width. */
void guarded(int i, const int *x, int *y) {
    int v = x[i], r = v;
    if (lanes_any(v > 50)) {
        if (v > 50)
            r = v - 50 + (int)lanes_num_lanes() * 0;
    }
    y[i] = r;
}
