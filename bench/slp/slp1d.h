/* The data of the one-dimensional kernels: five float arrays a..e, an int array ip of
 * indices into them, filled from a fixed seed; a sweep calls the kernel SLP_REPS times
 * through SLP_CALL(fn, n); the checksum weighs every element of a and b. */
#ifndef LANES_BENCH_SLP1D_H
#define LANES_BENCH_SLP1D_H
#ifdef SLP_DRIVER
#ifndef SLP_REPS
#define SLP_REPS 400
#endif
static float *a, *b, *c, *d, *e, *a0, *b0;
static int *ip;
void slp_setup(long n) {
  a = malloc(n * sizeof *a); b = malloc(n * sizeof *b); c = malloc(n * sizeof *c);
  d = malloc(n * sizeof *d); e = malloc(n * sizeof *e); a0 = malloc(n * sizeof *a0);
  b0 = malloc(n * sizeof *b0); ip = malloc(n * sizeof *ip);
  for (long i = 0; i < n; i++) {
    a0[i] = slp_rand(); b0[i] = slp_rand(); c[i] = slp_rand(); d[i] = slp_rand();
    e[i] = slp_rand();
    ip[i] = (int)((i * 7919) % n);
  }
}
void slp_clear(long n) {
  memcpy(a, a0, n * sizeof *a);
  memcpy(b, b0, n * sizeof *b);
}
void slp_sweep(void *fn, long n) {
  for (int r = 0; r < SLP_REPS; r++) SLP_CALL(fn, n);
}
double slp_checksum(long n) { return slp_sum_f(a, n) + 3 * slp_sum_f(b, n); }
#endif
#endif
