/* The data of the two-dimensional (PolyBench-style) kernels: the n elements are an m×m
 * square (m = floor(sqrt(n))); matrices A, B, C and vectors x, y, tmp, filled from a fixed
 * seed; a sweep calls the kernel SLP_REPS times through SLP_CALL(fn, m); the checksum
 * weighs every element of C, B, y and tmp. */
#ifndef LANES_BENCH_SLP2D_H
#define LANES_BENCH_SLP2D_H
#ifdef SLP_DRIVER
#ifndef SLP_REPS
#define SLP_REPS 4
#endif
static float *A, *B, *C, *C0, *B0, *x, *y, *tmp;
static int side(long n) {
  int m = 1;
  while ((long)(m + 1) * (m + 1) <= n) m++;
  return m;
}
void slp_setup(long n) {
  long mm = (long)side(n) * side(n);
  A = malloc(mm * sizeof *A); B = malloc(mm * sizeof *B); C = malloc(mm * sizeof *C);
  C0 = malloc(mm * sizeof *C0); B0 = malloc(mm * sizeof *B0);
  x = malloc(side(n) * sizeof *x); y = malloc(side(n) * sizeof *y);
  tmp = malloc(side(n) * sizeof *tmp);
  for (long i = 0; i < mm; i++) {
    A[i] = slp_rand(); B0[i] = slp_rand(); C0[i] = slp_rand();
  }
  for (int i = 0; i < side(n); i++) x[i] = slp_rand();
}
void slp_clear(long n) {
  long mm = (long)side(n) * side(n);
  memcpy(C, C0, mm * sizeof *C);
  memcpy(B, B0, mm * sizeof *B);
  memset(y, 0, side(n) * sizeof *y);
  memset(tmp, 0, side(n) * sizeof *tmp);
}
void slp_sweep(void *fn, long n) {
  for (int r = 0; r < SLP_REPS; r++) SLP_CALL(fn, side(n));
}
double slp_checksum(long n) {
  long mm = (long)side(n) * side(n);
  return slp_sum_f(C, mm) + 3 * slp_sum_f(B, mm) + 5 * slp_sum_f(y, side(n)) +
         7 * slp_sum_f(tmp, side(n));
}
#endif
#endif
