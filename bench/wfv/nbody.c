/* N-body forces: each instance sums the gravitational pull of every body on its own
 * (a uniform loop over all bodies, no divergence: the compute-bound baseline). */
#include <math.h>
#include "wfv.h"

void KERNEL(long i, const float *x, const float *y, const float *z, const float *m, float *ax,
            float *ay, float *az, int bodies) {
  float xi = x[i], yi = y[i], zi = z[i];
  float fx = 0.0f, fy = 0.0f, fz = 0.0f;
  for (int j = 0; j < bodies; j++) {
    float dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
    float d2 = dx * dx + dy * dy + dz * dz + 0.01f;
    float inv = 1.0f / sqrtf(d2);
    float s = m[j] * inv * inv * inv;
    fx += dx * s;
    fy += dy * s;
    fz += dz * s;
  }
  ax[i] = fx;
  ay[i] = fy;
  az[i] = fz;
}

#ifdef WFV_REFERENCE
void wfv_reference(long n, const float *x, const float *y, const float *z, const float *m,
                   float *ax, float *ay, float *az, int bodies) {
  for (long i = 0; i < n; i++) KERNEL(i, x, y, z, m, ax, ay, az, bodies);
}
#endif

#ifdef WFV_DRIVER
#include <stdlib.h>
#include <string.h>
typedef void (*launcher)(long, const float *, const float *, const float *, const float *,
                         float *, float *, float *, int);
static float *x, *y, *z, *m, *ax, *ay, *az;

void wfv_setup(long n) {
  float **arrays[] = {&x, &y, &z, &m, &ax, &ay, &az};
  for (int k = 0; k < 7; k++) *arrays[k] = malloc(sizeof(float) * n);
  for (long i = 0; i < n; i++) {
    x[i] = wfv_uniform(-1.0f, 1.0f);
    y[i] = wfv_uniform(-1.0f, 1.0f);
    z[i] = wfv_uniform(-1.0f, 1.0f);
    m[i] = wfv_uniform(0.5f, 1.5f);
  }
}
void wfv_clear(long n) {
  memset(ax, 0, sizeof(float) * n);
  memset(ay, 0, sizeof(float) * n);
  memset(az, 0, sizeof(float) * n);
}
void wfv_sweep(void *fn, long n) { ((launcher)fn)(n, x, y, z, m, ax, ay, az, (int)n); }
void wfv_dump(FILE *f, long n) {
  const float *arrays[] = {x, y, z, m, ax, ay, az};
  for (int k = 0; k < 7; k++) wfv_dump_buffer(f, arrays[k], sizeof(float) * n);
  wfv_dump_int(f, n);
}
double wfv_checksum(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += ax[i] + 2.0 * ay[i] + 3.0 * az[i];
  return s;
}
#endif
