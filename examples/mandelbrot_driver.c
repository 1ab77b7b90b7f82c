/* Demo driver: runs the Mandelbrot kernel scalar (clang-19 -O3 -march=native, as
 * ref_mandel) and vectorized by lanes (mandel_spmd), checks that every pixel agrees,
 * prints a small picture and the median time of each over several runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void ref_mandel(int *out, int i, int width, int height, int max_iter);
void mandel_spmd(int *out, int n, int width, int height, int max_iter);

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void) {
    enum { W = 1024, H = 768, MAX = 256, RUNS = 7 };
    int *ref = malloc(sizeof(int) * W * H), *vec = malloc(sizeof(int) * W * H);
    double ts[RUNS], tv[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = now();
        for (int i = 0; i < W * H; i++)
            ref_mandel(ref, i, W, H, MAX);
        double t1 = now();
        mandel_spmd(vec, W * H, W, H, MAX);
        double t2 = now();
        ts[r] = t1 - t0;
        tv[r] = t2 - t1;
    }
    long bad = 0;
    for (int i = 0; i < W * H; i++)
        bad += ref[i] != vec[i];
    for (int row = 0; row < H; row += H / 24) {
        for (int col = 0; col < W; col += W / 64)
            putchar(" .:-=+*#%@"[vec[row * W + col] >= MAX ? 9 : vec[row * W + col] % 9]);
        putchar('\n');
    }
    qsort(ts, RUNS, sizeof(double), cmp);
    qsort(tv, RUNS, sizeof(double), cmp);
    printf("%dx%d pixels, %d iterations max: %ld mismatches\n", W, H, MAX, bad);
    printf("scalar (clang-19 -O3 -march=native): %.1f ms, lanes mandel_spmd: %.1f ms, "
           "speedup %.2fx (median of %d runs)\n",
           ts[RUNS / 2] * 1e3, tv[RUNS / 2] * 1e3, ts[RUNS / 2] / tv[RUNS / 2], RUNS);
    free(ref);
    free(vec);
    return bad != 0;
}
