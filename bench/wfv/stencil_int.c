/* A 5-point stencil over a 2-d grid with `int` indices (as C programmers write them):
 * the neighbours' indices are computed in 32 bits and clamped at the borders (a
 * divergent test only at the edges), which a vectorizer must still turn into contiguous
 * accesses rather than gathers. */
#include "wfv.h"

void KERNEL(long i, const float *in, float *out, int width, int height) {
  int k = (int)i;
  int x = k % width, y = k / width;
  int left = x > 0 ? k - 1 : k, right = x < width - 1 ? k + 1 : k;
  int up = y > 0 ? k - width : k, down = y < height - 1 ? k + width : k;
  out[k] = 0.5f * in[k] + 0.125f * (in[left] + in[right] + in[up] + in[down]);
}

#ifdef WFV_REFERENCE
void wfv_reference(long n, const float *in, float *out, int width, int height) {
  for (long i = 0; i < n; i++) KERNEL(i, in, out, width, height);
}
#endif

#ifdef WFV_DRIVER
#include <stdlib.h>
#include <string.h>
typedef void (*launcher)(long, const float *, float *, int, int);
enum { WIDTH = 1024 };
static float *in, *out;

void wfv_setup(long n) {
  in = malloc(sizeof(float) * n);
  out = malloc(sizeof(float) * n);
  for (long i = 0; i < n; i++) in[i] = wfv_uniform(0.0f, 1.0f);
}
void wfv_clear(long n) { memset(out, 0, sizeof(float) * n); }
void wfv_sweep(void *fn, long n) { ((launcher)fn)(n, in, out, WIDTH, (int)(n / WIDTH)); }
void wfv_dump(FILE *f, long n) {
  wfv_dump_buffer(f, in, sizeof(float) * n);
  wfv_dump_buffer(f, out, sizeof(float) * n);
  wfv_dump_int(f, WIDTH);
  wfv_dump_int(f, (int)(n / WIDTH));
}
double wfv_checksum(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += out[i] * (double)(i % 3 + 1);
  return s;
}
#endif
