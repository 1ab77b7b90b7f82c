/* Compares the loops of omp_simd_calls.c built by lanes with clang-19's (ref_*) for
 * lengths 0..99, whole arrays (writes past n count); prints calls and mismatches. */
#include <stdio.h>
#include <string.h>
#define DECL(f, ...) void f(__VA_ARGS__); void ref_##f(__VA_ARGS__);
DECL(call_steps, const int *, int *, int)
DECL(call_bump, const int *, int *, int)
DECL(call_shade, const float *, float *, float, int)
DECL(call_recursive, const int *, int *, int)
enum { N = 100 };
int main(void) {
  int in[N], a[N], b[N], calls = 0, bad = 0;
  float x[N], fa[N], fb[N];
  for (int i = 0; i < N; i++) {
    in[i] = (i * 7919) % 1000 + (i % 5 == 0 ? 0 : 1);
    x[i] = (float)((i * 37) % 41 - 20) * 0.25f;
  }
  for (int n = 0; n < N; n++) {
#define INTS(f) \
    for (int i = 0; i < N; i++) a[i] = b[i] = i - 3; \
    f(in, a, n); ref_##f(in, b, n); calls++; \
    if (memcmp(a, b, sizeof a)) { bad++; printf(#f " n=%d differs\n", n); }
    INTS(call_steps) INTS(call_bump) INTS(call_recursive)
    for (int i = 0; i < N; i++) fa[i] = fb[i] = -1.0f;
    call_shade(x, fa, 0.75f, n); ref_call_shade(x, fb, 0.75f, n); calls++;
    if (memcmp(fa, fb, sizeof fa)) { bad++; printf("call_shade n=%d differs\n", n); }
  }
  printf("%d calls, %d mismatches\n", calls, bad);
  return bad != 0;
}
