/* Generated (the loop-per-element generator, seed 875): unrolled by eight for 512-bit
 * registers, the copies of clang's MIN/MAX joins multiplied the predicates so much that
 * lowering them took longer than five minutes (`lanes compile --slp -march=native`). An
 * unrolling whose predicates grow past a bound is no longer kept. */
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
void f(double *restrict A0, double *restrict A1, double *restrict A2, double t, double s, int n) {
  for (int i = 0; i < n; i++) {
    double acc = s;
    int k = 0;
    for (; k < 5; k++) {
      acc = MIN(MAX(MAX(s, (MIN(acc, A2[i + k]) - (acc - s))), (double)-64), (double)64);
    }
    A0[i] = acc + (double)k;
  }
}
