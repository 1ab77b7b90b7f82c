/* An aobench-like ray/sphere kernel: one instance per pixel casts a ray through a
 * field of spheres, keeps the nearest hit (a divergent update inside a uniform loop) and
 * shades it with a light direction; rays that miss everything skip the shading. */
#include <math.h>
#include "wfv.h"

void KERNEL(long i, const float *cx, const float *cy, const float *cz, const float *cr,
            float *out, int width, int spheres) {
  int px = (int)(i % width), py = (int)(i / width);
  float dx = (px - width * 0.5f) / width, dy = (py - width * 0.5f) / width, dz = -1.0f;
  float len = sqrtf(dx * dx + dy * dy + dz * dz);
  dx /= len;
  dy /= len;
  dz /= len;
  float best = 1e30f;
  int hit = -1;
  for (int s = 0; s < spheres; s++) {
    float ox = -cx[s], oy = -cy[s], oz = -cz[s];
    float b = ox * dx + oy * dy + oz * dz;
    float c = ox * ox + oy * oy + oz * oz - cr[s] * cr[s];
    float disc = b * b - c;
    if (disc > 0.0f) {
      float t = -b - sqrtf(disc);
      if (t > 0.0f && t < best) {
        best = t;
        hit = s;
      }
    }
  }
  float shade = 0.0f;
  if (hit >= 0) {
    float hx = best * dx - cx[hit], hy = best * dy - cy[hit], hz = best * dz - cz[hit];
    float inv = 1.0f / cr[hit];
    float l = (hx * 0.577f + hy * 0.577f + hz * 0.577f) * inv;
    shade = l > 0.0f ? l : 0.05f;
  }
  out[i] = shade;
}

#ifdef WFV_REFERENCE
void wfv_reference(long n, const float *cx, const float *cy, const float *cz, const float *cr,
                   float *out, int width, int spheres) {
  for (long i = 0; i < n; i++) KERNEL(i, cx, cy, cz, cr, out, width, spheres);
}
#endif

#ifdef WFV_DRIVER
#include <stdlib.h>
#include <string.h>
typedef void (*launcher)(long, const float *, const float *, const float *, const float *,
                         float *, int, int);
enum { SPHERES = 32, WIDTH = 512 };
static float cx[SPHERES], cy[SPHERES], cz[SPHERES], cr[SPHERES];
static float *out;

void wfv_setup(long n) {
  out = malloc(sizeof(float) * n);
  for (int s = 0; s < SPHERES; s++) {
    cx[s] = wfv_uniform(-2.0f, 2.0f);
    cy[s] = wfv_uniform(-2.0f, 2.0f);
    cz[s] = wfv_uniform(-8.0f, -3.0f);
    cr[s] = wfv_uniform(0.2f, 0.6f);
  }
}
void wfv_clear(long n) { memset(out, 0, sizeof(float) * n); }
void wfv_sweep(void *fn, long n) { ((launcher)fn)(n, cx, cy, cz, cr, out, WIDTH, SPHERES); }
void wfv_dump(FILE *f, long n) {
  const float *arrays[] = {cx, cy, cz, cr};
  for (int k = 0; k < 4; k++) wfv_dump_buffer(f, arrays[k], sizeof(float) * SPHERES);
  wfv_dump_buffer(f, out, sizeof(float) * n);
  wfv_dump_int(f, WIDTH);
  wfv_dump_int(f, SPHERES);
}
double wfv_checksum(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += out[i];
  return s;
}
#endif
