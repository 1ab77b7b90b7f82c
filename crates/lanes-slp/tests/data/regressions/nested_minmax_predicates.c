/* Generated (the loop-per-element generator, seed 414): clang expands the nested MIN/MAX
 * macros of the fully unrolled inner loop into joins whose path predicates share parts
 * at every level. Walking those predicates as trees took exponential time and memory
 * (8 GiB, then the process was killed); now their parts are visited once and a function
 * whose predicates would be too large to branch on is declined (TooComplex). */
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
void f(double *restrict A0, double *restrict A1, double *restrict A2, double t, double s, int n) {
  for (int i = 0; i < n; i++) {
    double acc = A1[i];
    int k = 0;
    for (; k < 8; k++) {
      acc = MIN(MAX(MIN(MIN((s - A1[i]), (s + s)), MAX(A2[i + k], acc)), (double)-64), (double)64);
    }
    A0[i] = acc + (double)k;
  }
}
