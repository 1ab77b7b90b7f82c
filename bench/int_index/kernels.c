/* SPMD saxpy kernels for bench/int_index.rs: instance i of n, indexed by a C `long`, a C
 * `int`, and an `int` plus an offset (`add nsw`). `lanes vectorize` makes each a launcher
 * F_spmd(n, ...) == for (i = 0; i < n; i++) F(i, ...). */

void saxpy_long(long i, float a, const float *x, float *y) { y[i] = a * x[i] + y[i]; }

void saxpy_int(int i, float a, const float *x, float *y) { y[i] = a * x[i] + y[i]; }

void saxpy_int_off(int i, int k, float a, const float *x, float *y) {
    y[i + k] = a * x[i + k] + y[i + k];
}
