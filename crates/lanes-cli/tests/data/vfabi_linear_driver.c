/* Runs `loops` (GCC-vectorized, calling lanes' variants) and `ref_loops` (clang, scalar
 * calls of the scalar functions) on the same inputs for n = 0..67; prints the number of
 * runs and mismatches. */
#include <stdio.h>
#include <string.h>
void loops(const float *a, float *y, const int *p, int *q, int n);
void ref_loops(const float *a, float *y, const int *p, int *q, int n);
enum { N = 68 };
int main(void) {
  static float a[N] __attribute__((aligned(32)));
  float y0[N], y1[N];
  int p[N], q0[N], q1[N], runs = 0, bad = 0;
  for (int i = 0; i < N; i++) {
    a[i] = (float)(i % 9) * 0.5f - 1.0f;
    p[i] = (i * 37) % 23 - 11;
  }
  for (int n = 0; n < N; n++) {
    for (int i = 0; i < N; i++) {
      y0[i] = y1[i] = (float)(i % 5) - 2.0f;
      q0[i] = q1[i] = i - 7;
    }
    loops(a, y0, p, q0, n);
    ref_loops(a, y1, p, q1, n);
    runs++;
    if (memcmp(y0, y1, sizeof y0) || memcmp(q0, q1, sizeof q0)) {
      bad++;
      printf("n=%d differs\n", n);
    }
  }
  printf("%d runs, %d mismatches\n", runs, bad);
  return bad != 0;
}
