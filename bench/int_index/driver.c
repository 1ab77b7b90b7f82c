/* Timing driver of bench/int_index.rs: `driver N REPS` runs each launcher REPS times over
 * N floats, the kernels taking turns within each of RUNS runs; prints per kernel the median
 * milliseconds and a checksum of y (the same arithmetic everywhere: equal sums). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void saxpy_long_spmd(long n, float a, const float *x, float *y);
void saxpy_int_spmd(int n, float a, const float *x, float *y);
void saxpy_int_off_spmd(int n, int k, float a, const float *x, float *y);
void saxpy_int_off_wrapv_spmd(int n, int k, float a, const float *x, float *y);

enum { RUNS = 12, KERNELS = 4 };
static float *x, *y, *y0;
static int n, reps;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double run(int k) {
    memcpy(y, y0, sizeof(float) * n);
    double t0 = now_ms();
    for (int r = 0; r < reps; r++) {
        switch (k) {
        case 0: saxpy_long_spmd(n, 0.999f, x, y); break;
        case 1: saxpy_int_spmd(n, 0.999f, x, y); break;
        case 2: saxpy_int_off_spmd(n, 0, 0.999f, x, y); break;
        default: saxpy_int_off_wrapv_spmd(n, 0, 0.999f, x, y); break;
        }
    }
    return now_ms() - t0;
}

static int cmp(const void *a, const void *b) {
    double d = *(const double *)a - *(const double *)b;
    return (d > 0) - (d < 0);
}

int main(int argc, char **argv) {
    const char *names[KERNELS] = {"long", "int", "int+k", "int+k_wrapv"};
    n = argc > 1 ? atoi(argv[1]) : 1 << 14;
    reps = argc > 2 ? atoi(argv[2]) : 1000;
    x = aligned_alloc(64, sizeof(float) * n);
    y = aligned_alloc(64, sizeof(float) * n);
    y0 = aligned_alloc(64, sizeof(float) * n);
    for (int i = 0; i < n; i++) {
        x[i] = (float)(i % 97) * 0.01f;
        y0[i] = (float)(i % 13) * 0.5f;
    }
    double ms[KERNELS][RUNS];
    double sums[KERNELS];
    /* The order rotates from run to run: each kernel runs in each position equally often
     * (the first after a checksum pass over y is slower at memory sizes). */
    for (int r = 0; r < RUNS; r++)
        for (int j = 0; j < KERNELS; j++) {
            int k = (r + j) % KERNELS;
            ms[k][r] = run(k);
            double s = 0;
            for (int i = 0; i < n; i++) s += y[i];
            sums[k] = s;
        }
    for (int k = 0; k < KERNELS; k++) {
        qsort(ms[k], RUNS, sizeof(double), cmp);
        printf("kernel %s %.4f %.9g\n", names[k], ms[k][RUNS / 2], sums[k]);
    }
    return 0;
}
