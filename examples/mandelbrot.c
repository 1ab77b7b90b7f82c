/* Escape-time iteration count of pixel i of a width x height image of the Mandelbrot set.
 *
 * The kernel of PLDI'18 Fig. 9: its loop has a uniform exit (the iteration limit) and a
 * varying one (the escape test), so neighbouring SIMD lanes leave it in different
 * iterations. `lanes vectorize --shapes u,c,u,u,u` makes `i` the instance index and emits
 * mandel_spmd(out, n, width, height, max_iter) == for (i = 0; i < n; i++) mandel(out, i, ...).
 */
void mandel(int *out, int i, int width, int height, int max_iter) {
    float cx = -2.0f + 2.75f * (float)(i % width) / (float)width;
    float cy = -1.25f + 2.5f * (float)(i / width) / (float)height;
    float x = 0.0f, y = 0.0f;
    int n = 0;
    while (n < max_iter) {
        float xx = x * x, yy = y * y;
        if (xx + yy > 4.0f)
            break;
        y = 2.0f * x * y + cy;
        x = xx - yy + cx;
        n++;
    }
    out[i] = n;
}
