/* An if-then-else whose two sides do similar work (PACT'11 §IV-A), for
 * tests/it/table1.rs: with `i` contiguous the branch on x[i] > y[i] is divergent, and
 * branch fusion merges the sides' products, sums, quotients and square roots (five
 * pairs); the last operation, a sum on one side and a difference on the other, stays
 * divergent. */
#include <math.h>

void twin(long i, const float *x, const float *y, float *out) {
  float a = x[i], b = y[i], r;
  if (a > b) {
    float t = a * b + 1.5f;
    float u = sqrtf(t * t + a);
    r = u / (t + 2.0f) + a;
  } else {
    float t = b * a + 0.5f;
    float u = sqrtf(t * t + b);
    r = u / (t + 3.0f) - b;
  }
  out[i] = r;
}
