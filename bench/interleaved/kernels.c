/* Array-of-structures kernels for bench/interleaved.rs, each next to its gather version:
 * the same arithmetic with the structure's stride passed at run time (`s`), so that
 * lanes cannot see that the fields fill the stride and reads each field with a gather. */
#include <math.h>

/* |p| of 3-float points. */
void norm3(int i, const float *p, float *out) {
  float x = p[3 * i], y = p[3 * i + 1], z = p[3 * i + 2];
  out[i] = sqrtf(x * x + y * y + z * z);
}
void norm3_gather(int i, int s, const float *p, float *out) {
  float x = p[s * i], y = p[s * i + 1], z = p[s * i + 2];
  out[i] = sqrtf(x * x + y * y + z * z);
}

/* Complex products of interleaved (re, im) pairs: two load groups and a store group. */
void cmul(int i, const float *a, const float *b, float *c) {
  float ar = a[2 * i], ai = a[2 * i + 1], br = b[2 * i], bi = b[2 * i + 1];
  c[2 * i] = ar * br - ai * bi;
  c[2 * i + 1] = ar * bi + ai * br;
}
void cmul_gather(int i, int s, const float *a, const float *b, float *c) {
  float ar = a[s * i], ai = a[s * i + 1], br = b[s * i], bi = b[s * i + 1];
  c[s * i] = ar * br - ai * bi;
  c[s * i + 1] = ar * bi + ai * br;
}
