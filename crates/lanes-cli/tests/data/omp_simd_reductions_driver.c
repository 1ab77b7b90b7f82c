/* Compares the omp simd reductions of omp_simd_reductions.c built by lanes with clang-19's
 * (ref_*) on inputs whose float sums and products are exact, with a NaN for the minimum;
 * prints the number of calls and mismatches. */
#include <stdio.h>
#include <math.h>
#define DECL(T, f, E) T f(const E *, int); T ref_##f(const E *, int);
DECL(int, r_add, int) DECL(int, r_mul, int) DECL(int, r_min, int) DECL(int, r_max, int)
DECL(int, r_and, int) DECL(int, r_or, int) DECL(int, r_xor, int) DECL(int, r_land, int) DECL(int, r_lor, int)
DECL(float, f_add, float) DECL(float, f_mul, float) DECL(float, f_min, float) DECL(double, d_max, double)
int main(void) {
  int a[300], m[300]; float f[300], g[300], h[300]; double d[300]; int bad = 0, calls = 0;
  for (int i = 0; i < 300; i++) { a[i] = (i * 37) % 101 - 50; m[i] = (i % 7 == 3) ? -1 : 1;
    f[i] = (float)((i * 13) % 41 - 20); g[i] = (i % 5 == 1) ? 2.0f : ((i % 9 == 4) ? 0.5f : 1.0f);
    h[i] = (i == 77) ? NAN : (float)((i * 29) % 97) * 0.37f - 11.0f; d[i] = (i * 31) % 89 * 1.5 - 40.0; }
  for (int n = 0; n < 300; n += 7) {
#define CHECK(f, arr, fmt) calls++; if (f(arr, n) != ref_##f(arr, n)) { bad++; printf(#f " n=%d " fmt " vs " fmt "\n", n, f(arr, n), ref_##f(arr, n)); }
    CHECK(r_add, a, "%d") CHECK(r_mul, m, "%d") CHECK(r_min, a, "%d") CHECK(r_max, a, "%d")
    CHECK(r_and, a, "%d") CHECK(r_or, a, "%d") CHECK(r_xor, a, "%d") CHECK(r_land, a, "%d") CHECK(r_lor, a, "%d")
    CHECK(f_add, f, "%g") CHECK(f_mul, g, "%g") CHECK(f_min, h, "%g") CHECK(d_max, d, "%g")
  }
  printf("%d calls, %d mismatches\n", calls, bad); return bad != 0;
}
