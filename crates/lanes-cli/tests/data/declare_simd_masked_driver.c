/* Masked variants for tests/declare_simd.rs: calls the `_ZGV<isa>M…` variants of
   declare_simd_kernels.c (compiled by `lanes compile -fopenmp-simd`) through vector types
   with a partial mask (SSE/AVX2: a vector of the characteristic type, all ones for an
   active lane; AVX-512: an integer, bit k for lane k), compares the active lanes with the
   reference scalar functions (renamed ref_*) and checks that masked-off lanes of
   store_scaled did not store. Prints the number of mismatches and of checked lanes. */
#include <stdio.h>
#include <string.h>

float ref_branchy(float x, float s);
int ref_collatz(int n);
int ref_store_scaled(int *out, int i, int x);
int ref_offset(int i, int base);

typedef float f4 __attribute__((vector_size(16)));
typedef int i4 __attribute__((vector_size(16)));
typedef int i8 __attribute__((vector_size(32)));
typedef float f16 __attribute__((vector_size(64)));
typedef int i16 __attribute__((vector_size(64)));
f4 _ZGVbM4vu_branchy(f4 x, float s, f4 mask);
i4 _ZGVbM4v_collatz(i4 n, i4 mask);
i4 _ZGVbM4uvv_store_scaled(int *out, i4 i, i4 x, i4 mask);
i8 _ZGVdM8uvv_store_scaled(int *out, i8 i, i8 x, i8 mask);
/* A linear parameter: lane k's i is the argument plus k. */
i4 _ZGVbM4lu_offset(int i, int base, i4 mask);
i8 _ZGVdM8lu_offset(int i, int base, i8 mask);
f16 _ZGVeM16vu_branchy(f16 x, float s, unsigned short mask);
i16 _ZGVeM16uvv_store_scaled(int *out, i16 i, i16 x, unsigned short mask);

static int bad, checked;
static int out[64], want[64];

static int on(int k, int round) { return (k * 5 + round) % 3 != 0; }

static void check(int ok) { bad += !ok; checked++; }

/* Lanes k with on(k) stored ref's value at out[2k+1]; every other slot is untouched. */
static void check_stores(int w, int round) {
  memset(want, 0x5a, sizeof want);
  for (int k = 0; k < w; k++)
    if (on(k, round)) ref_store_scaled(want, 2 * k + 1, 7 * k - round);
  check(memcmp(out, want, sizeof out) == 0);
}

int main(void) {
  for (int round = 0; round < 3; round++) {
    f4 x4, m4f; i4 n4, m4, i4v, v4;
    for (int k = 0; k < 4; k++) {
      x4[k] = (float)(k * 3 - 4 + round); n4[k] = 27 + 10 * k + round;
      i4v[k] = 2 * k + 1; v4[k] = 7 * k - round;
      m4[k] = on(k, round) ? -1 : 0;
    }
    memcpy(&m4f, &m4, sizeof m4f); /* all-ones bits (a NaN) for an active lane */
    f4 y4 = _ZGVbM4vu_branchy(x4, 1.5f, m4f);
    i4 c4 = _ZGVbM4v_collatz(n4, m4);
    memset(out, 0x5a, sizeof out);
    i4 r4 = _ZGVbM4uvv_store_scaled(out, i4v, v4, m4);
    for (int k = 0; k < 4; k++)
      if (on(k, round)) {
        check(y4[k] == ref_branchy(x4[k], 1.5f));
        check(c4[k] == ref_collatz(n4[k]));
        check(r4[k] == ref_store_scaled(want, i4v[k], v4[k]));
      }
    check_stores(4, round);
    i4 o4 = _ZGVbM4lu_offset(3 * round - 5, 100, m4);
    for (int k = 0; k < 4; k++)
      if (on(k, round)) check(o4[k] == ref_offset(3 * round - 5 + k, 100));
#ifdef __AVX2__
    i8 i8v, v8, m8;
    for (int k = 0; k < 8; k++) { i8v[k] = 2 * k + 1; v8[k] = 7 * k - round; m8[k] = on(k, round) ? -1 : 0; }
    memset(out, 0x5a, sizeof out);
    i8 r8 = _ZGVdM8uvv_store_scaled(out, i8v, v8, m8);
    for (int k = 0; k < 8; k++)
      if (on(k, round)) check(r8[k] == ref_store_scaled(want, i8v[k], v8[k]));
    check_stores(8, round);
    i8 o8 = _ZGVdM8lu_offset(3 * round - 5, -7, m8);
    for (int k = 0; k < 8; k++)
      if (on(k, round)) check(o8[k] == ref_offset(3 * round - 5 + k, -7));
#endif
#ifdef __AVX512F__
    f16 x16; i16 i16v, v16; unsigned short m16 = 0;
    for (int k = 0; k < 16; k++) {
      x16[k] = (float)(k - 8 + round); i16v[k] = 2 * k + 1; v16[k] = 7 * k - round;
      if (on(k, round)) m16 |= (unsigned short)(1u << k);
    }
    f16 y16 = _ZGVeM16vu_branchy(x16, -2.0f, m16);
    memset(out, 0x5a, sizeof out);
    i16 r16 = _ZGVeM16uvv_store_scaled(out, i16v, v16, m16);
    for (int k = 0; k < 16; k++)
      if (on(k, round)) {
        check(y16[k] == ref_branchy(x16[k], -2.0f));
        check(r16[k] == ref_store_scaled(want, i16v[k], v16[k]));
      }
    check_stores(16, round);
#endif
  }
  printf("mismatches %d of %d\n", bad, checked);
  return 0;
}
