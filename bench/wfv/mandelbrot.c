/* Mandelbrot (PLDI'18 Fig. 9): one instance per pixel iterates z = z² + c until it
 * escapes or reaches the limit; the loop exit is divergent and its trip counts vary
 * widely near the set's boundary. */
#include "wfv.h"

void KERNEL(long i, int *out, int width, float x0, float y0, float step, int max_iter) {
  int px = (int)(i % width), py = (int)(i / width);
  float cr = x0 + px * step, ci = y0 + py * step;
  float zr = 0.0f, zi = 0.0f;
  int k = 0;
  while (k < max_iter && zr * zr + zi * zi <= 4.0f) {
    float t = zr * zr - zi * zi + cr;
    zi = 2.0f * zr * zi + ci;
    zr = t;
    k++;
  }
  out[i] = k;
}

#ifdef WFV_REFERENCE
void wfv_reference(long n, int *out, int width, float x0, float y0, float step, int max_iter) {
  for (long i = 0; i < n; i++) KERNEL(i, out, width, x0, y0, step, max_iter);
}
#endif

#ifdef WFV_DRIVER
#include <stdlib.h>
#include <string.h>
typedef void (*launcher)(long, int *, int, float, float, float, int);
enum { WIDTH = 512 };
static int *out;

void wfv_setup(long n) { out = malloc(sizeof(int) * n); }
void wfv_clear(long n) { memset(out, 0, sizeof(int) * n); }
void wfv_sweep(void *fn, long n) {
  float step = 3.0f / WIDTH;
  ((launcher)fn)(n, out, WIDTH, -2.25f, -1.5f, step, 256);
}
void wfv_dump(FILE *f, long n) {
  wfv_dump_buffer(f, out, sizeof(int) * n);
  wfv_dump_int(f, WIDTH);
  wfv_dump_float(f, -2.25f);
  wfv_dump_float(f, -1.5f);
  wfv_dump_float(f, 3.0f / WIDTH);
  wfv_dump_int(f, 256);
}
double wfv_checksum(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += out[i];
  return s;
}
#endif
