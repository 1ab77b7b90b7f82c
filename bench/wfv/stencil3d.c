/* A 27-point stencil over a 3-d grid (a smoothing step of a finite-difference solver):
 * one instance per grid point; points on the grid's faces copy their input, interior
 * points weigh their 6 face, 12 edge and 8 corner neighbours. The boundary test is
 * divergent only in the groups that straddle the ends of a row (and uniform across the
 * first and last planes and rows); every neighbour access is contiguous across lanes. */
#include "wfv.h"

void KERNEL(long i, const float *in, float *out, int nx, int ny, int nz, float c0, float c1,
            float c2, float c3) {
  int j = (int)i;
  int x = j % nx, y = (j / nx) % ny, z = j / (nx * ny);
  if (x == 0 || x == nx - 1 || y == 0 || y == ny - 1 || z == 0 || z == nz - 1) {
    out[i] = in[i];
    return;
  }
  long sy = nx, sz = (long)nx * ny;
  const float *m = in + i - sz, *c = in + i, *p = in + i + sz;
  float face = c[-1] + c[1] + c[-sy] + c[sy] + m[0] + p[0];
  float edge = c[-sy - 1] + c[-sy + 1] + c[sy - 1] + c[sy + 1];
  edge += m[-1] + m[1] + m[-sy] + m[sy];
  edge += p[-1] + p[1] + p[-sy] + p[sy];
  float corner = m[-sy - 1] + m[-sy + 1] + m[sy - 1] + m[sy + 1];
  corner += p[-sy - 1] + p[-sy + 1] + p[sy - 1] + p[sy + 1];
  out[i] = c0 * c[0] + c1 * face + c2 * edge + c3 * corner;
}

#ifdef WFV_REFERENCE
void wfv_reference(long n, const float *in, float *out, int nx, int ny, int nz, float c0,
                   float c1, float c2, float c3) {
  for (long i = 0; i < n; i++) KERNEL(i, in, out, nx, ny, nz, c0, c1, c2, c3);
}
#endif

#ifdef WFV_DRIVER
#include <stdlib.h>
#include <string.h>
typedef void (*launcher)(long, const float *, float *, int, int, int, float, float, float,
                         float);
/* Planes of NX x NY points, as many as the instances fill (the last may be partial). */
enum { NX = 128, NY = 128 };
static float *in, *out;
static int nz;
static const float C0 = 0.25f, C1 = 0.06f, C2 = 0.02f, C3 = 0.01f;

void wfv_setup(long n) {
  nz = (int)((n + NX * NY - 1) / (NX * NY));
  long size = (long)NX * NY * nz;
  in = malloc(sizeof(float) * size);
  out = malloc(sizeof(float) * size);
  for (long k = 0; k < size; k++) in[k] = wfv_uniform(0.0f, 1.0f);
}
void wfv_clear(long n) { memset(out, 0, sizeof(float) * n); }
void wfv_sweep(void *fn, long n) { ((launcher)fn)(n, in, out, NX, NY, nz, C0, C1, C2, C3); }
void wfv_dump(FILE *f, long n) {
  wfv_dump_buffer(f, in, sizeof(float) * NX * NY * nz);
  wfv_dump_buffer(f, out, sizeof(float) * NX * NY * nz);
  wfv_dump_int(f, NX);
  wfv_dump_int(f, NY);
  wfv_dump_int(f, nz);
  wfv_dump_float(f, C0);
  wfv_dump_float(f, C1);
  wfv_dump_float(f, C2);
  wfv_dump_float(f, C3);
}
double wfv_checksum(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += out[i];
  return s;
}
#endif
