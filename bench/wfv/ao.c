/* Ambient occlusion in the manner of aobench: one instance per pixel casts a primary ray
 * against a few spheres and a ground plane (nearest hit), then at the hit point shoots
 * nsub x nsub cosine-distributed sample rays over the hemisphere and counts those the
 * scene blocks. Samples come from a per-pixel integer hash, drawn by rejection in the unit
 * disk (a short divergent retry loop, no trigonometry); pixels that miss the scene skip the
 * whole sampling, and each occlusion test leaves its sphere loop at the first blocker. */
#include <math.h>
#include "wfv.h"

/* An integer mix (xorshift-multiply rounds): the per-pixel random stream. */
static inline unsigned ao_hash(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

/* 24 random bits of `h` as a float in [-1, 1). */
static inline float ao_signed(unsigned h) { return (float)(int)(h >> 8) * (2.0f / 16777216.0f) - 1.0f; }

/* Does the ray o + t d (t > 0) hit a sphere or the plane y = -0.5? */
static inline int ao_occluded(const float *sph, int nspheres, float ox, float oy, float oz,
                              float dx, float dy, float dz) {
  for (int s = 0; s < nspheres; s++) {
    float rx = ox - sph[4 * s], ry = oy - sph[4 * s + 1], rz = oz - sph[4 * s + 2];
    float b = rx * dx + ry * dy + rz * dz;
    float c = rx * rx + ry * ry + rz * rz - sph[4 * s + 3] * sph[4 * s + 3];
    float disc = b * b - c;
    if (disc > 0.0f && -b - sqrtf(disc) > 1e-4f) return 1;
  }
  return dy < -1e-6f && -(oy + 0.5f) / dy > 1e-4f;
}

void KERNEL(long i, float *out, const float *sph, int nspheres, int width, int nsub) {
  int px = (int)(i % width), py = (int)(i / width);
  float dx = (px + 0.5f - width * 0.5f) / (width * 0.5f);
  float dy = (width * 0.5f - py - 0.5f) / (width * 0.5f);
  float dz = -1.0f;
  float len = sqrtf(dx * dx + dy * dy + dz * dz);
  dx /= len;
  dy /= len;
  dz /= len;
  /* Nearest hit: the plane first, then every sphere. */
  float best = 1e30f, nx = 0.0f, ny = 1.0f, nz = 0.0f;
  if (dy < -1e-6f) best = -0.5f / dy;
  for (int s = 0; s < nspheres; s++) {
    float cx = sph[4 * s], cy = sph[4 * s + 1], cz = sph[4 * s + 2], r = sph[4 * s + 3];
    float b = -(cx * dx + cy * dy + cz * dz);
    float disc = b * b - (cx * cx + cy * cy + cz * cz - r * r);
    if (disc > 0.0f) {
      float t = -b - sqrtf(disc);
      if (t > 1e-4f && t < best) {
        best = t;
        float inv = 1.0f / r;
        nx = (t * dx - cx) * inv;
        ny = (t * dy - cy) * inv;
        nz = (t * dz - cz) * inv;
      }
    }
  }
  float value = 0.0f;
  if (best < 1e29f) {
    /* A frame around the normal, and the origin of the sample rays just above the hit. */
    float ax = fabsf(nx) > 0.5f ? 0.0f : 1.0f, ay = 1.0f - ax;
    float tx = ay * nz, ty = -ax * nz, tz = ax * ny - ay * nx;
    float tl = sqrtf(tx * tx + ty * ty + tz * tz);
    tx /= tl;
    ty /= tl;
    tz /= tl;
    float bx = ny * tz - nz * ty, by = nz * tx - nx * tz, bz = nx * ty - ny * tx;
    float ox = best * dx + 1e-3f * nx, oy = best * dy + 1e-3f * ny, oz = best * dz + 1e-3f * nz;
    unsigned h = ao_hash((unsigned)i * 0x9e3779b9u + 0x632be5abu);
    int blocked = 0;
    for (int s = 0; s < nsub * nsub; s++) {
      /* Malley's method: a uniform point of the unit disk lifted onto the hemisphere. */
      float u = 0.0f, v = 0.0f;
      for (int tries = 0; tries < 8; tries++) {
        h = ao_hash(h + 0x9e3779b9u);
        u = ao_signed(h);
        h = ao_hash(h ^ 0x85ebca6bu);
        v = ao_signed(h);
        if (u * u + v * v <= 1.0f) break;
        u = v = 0.0f;
      }
      float w = sqrtf(fmaxf(0.0f, 1.0f - u * u - v * v));
      float sx = u * tx + v * bx + w * nx, sy = u * ty + v * by + w * ny, sz = u * tz + v * bz + w * nz;
      blocked += ao_occluded(sph, nspheres, ox, oy, oz, sx, sy, sz);
    }
    value = (float)(nsub * nsub - blocked) / (float)(nsub * nsub);
  }
  out[i] = value;
}

#ifdef WFV_REFERENCE
void wfv_reference(long n, float *out, const float *sph, int nspheres, int width, int nsub) {
  for (long i = 0; i < n; i++) KERNEL(i, out, sph, nspheres, width, nsub);
}
#endif

#ifdef WFV_DRIVER
#include <stdlib.h>
#include <string.h>
typedef void (*launcher)(long, float *, const float *, int, int, int);
enum { SPHERES = 4, NSUB = 4 };
/* The widest square image the instances fill (the rows past it look further down), so
 * that a sweep at any scale sees the whole scene. */
static int side;
static float sph[4 * SPHERES];
static float *out;

void wfv_setup(long n) {
  for (side = 1; (long)(side + 1) * (side + 1) <= n;) side++;
  out = malloc(sizeof(float) * n);
  for (int s = 0; s < SPHERES; s++) {
    sph[4 * s] = -1.5f + s + wfv_uniform(-0.2f, 0.2f);
    sph[4 * s + 3] = wfv_uniform(0.35f, 0.6f);
    sph[4 * s + 1] = sph[4 * s + 3] - 0.5f;
    sph[4 * s + 2] = wfv_uniform(-4.0f, -2.5f);
  }
}
void wfv_clear(long n) { memset(out, 0, sizeof(float) * n); }
void wfv_sweep(void *fn, long n) { ((launcher)fn)(n, out, sph, SPHERES, side, NSUB); }
void wfv_dump(FILE *f, long n) {
  wfv_dump_buffer(f, out, sizeof(float) * n);
  wfv_dump_buffer(f, sph, sizeof(sph));
  wfv_dump_int(f, SPHERES);
  wfv_dump_int(f, side);
  wfv_dump_int(f, NSUB);
}
double wfv_checksum(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += out[i];
  return s;
}
#endif
