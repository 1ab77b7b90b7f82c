/* XSBench-style lookup: each instance binary-searches a sorted energy grid for its
 * energy (a loop whose trip count differs by a step or two between instances) and
 * interpolates five cross sections between the two grid points around it (gathers). */
#include "wfv.h"

void KERNEL(long i, const float *egrid, const float *xs, const float *energies, float *out,
            int ngrid) {
  float e = energies[i];
  int lo = 0, hi = ngrid - 1;
  while (hi - lo > 1) {
    int mid = lo + (hi - lo) / 2;
    if (egrid[mid] > e)
      hi = mid;
    else
      lo = mid;
  }
  float f = (e - egrid[lo]) / (egrid[hi] - egrid[lo]);
  float acc = 0.0f;
  for (int c = 0; c < 5; c++) acc += xs[lo * 5 + c] + f * (xs[hi * 5 + c] - xs[lo * 5 + c]);
  out[i] = acc;
}

#ifdef WFV_REFERENCE
void wfv_reference(long n, const float *egrid, const float *xs, const float *energies,
                   float *out, int ngrid) {
  for (long i = 0; i < n; i++) KERNEL(i, egrid, xs, energies, out, ngrid);
}
#endif

#ifdef WFV_DRIVER
#include <stdlib.h>
#include <string.h>
typedef void (*launcher)(long, const float *, const float *, const float *, float *, int);
enum { GRID = 1 << 15 };
static float *egrid, *xs, *energies, *out;

void wfv_setup(long n) {
  egrid = malloc(sizeof(float) * GRID);
  xs = malloc(sizeof(float) * GRID * 5);
  energies = malloc(sizeof(float) * n);
  out = malloc(sizeof(float) * n);
  float e = 0.0f;
  for (int k = 0; k < GRID; k++) {
    e += wfv_uniform(0.5f, 1.5f);
    egrid[k] = e;
  }
  for (int k = 0; k < GRID * 5; k++) xs[k] = wfv_uniform(0.0f, 1.0f);
  for (long i = 0; i < n; i++) energies[i] = wfv_uniform(egrid[0], egrid[GRID - 1]);
}
void wfv_clear(long n) { memset(out, 0, sizeof(float) * n); }
void wfv_sweep(void *fn, long n) { ((launcher)fn)(n, egrid, xs, energies, out, GRID); }
void wfv_dump(FILE *f, long n) {
  wfv_dump_buffer(f, egrid, sizeof(float) * GRID);
  wfv_dump_buffer(f, xs, sizeof(float) * GRID * 5);
  wfv_dump_buffer(f, energies, sizeof(float) * n);
  wfv_dump_buffer(f, out, sizeof(float) * n);
  wfv_dump_int(f, GRID);
}
double wfv_checksum(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += out[i];
  return s;
}
#endif
