/* Perlin's improved gradient noise, summed over octaves as fractal turbulence: one
 * instance per pixel evaluates 3-D noise at several frequencies. The lattice corners are
 * hashed through a 256-entry permutation table with indices that differ in every lane (a
 * chain of dependent gathers), and the gradient is picked by the hash's low bits (short
 * data-dependent selects); control flow is uniform. */
#include <math.h>
#include "wfv.h"

static inline float nz_fade(float t) { return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f); }
static inline float nz_lerp(float t, float a, float b) { return a + t * (b - a); }

/* The dot product of (x, y, z) with one of the 12 cube-edge gradients (16 cases). */
static inline float nz_grad(int h, float x, float y, float z) {
  h &= 15;
  float u = h < 8 ? x : y;
  float v = h < 4 ? y : (h == 12 || h == 14 ? x : z);
  return ((h & 1) ? -u : u) + ((h & 2) ? -v : v);
}

static inline float nz_noise(const int *p, float x, float y, float z) {
  float fx = floorf(x), fy = floorf(y), fz = floorf(z);
  int X = (int)fx & 255, Y = (int)fy & 255, Z = (int)fz & 255;
  x -= fx;
  y -= fy;
  z -= fz;
  float u = nz_fade(x), v = nz_fade(y), w = nz_fade(z);
  int A = (p[X] + Y) & 255, B = (p[(X + 1) & 255] + Y) & 255;
  int AA = (p[A] + Z) & 255, AB = (p[(A + 1) & 255] + Z) & 255;
  int BA = (p[B] + Z) & 255, BB = (p[(B + 1) & 255] + Z) & 255;
  float x0 = nz_lerp(u, nz_grad(p[AA], x, y, z), nz_grad(p[BA], x - 1.0f, y, z));
  float x1 = nz_lerp(u, nz_grad(p[AB], x, y - 1.0f, z), nz_grad(p[BB], x - 1.0f, y - 1.0f, z));
  float x2 = nz_lerp(u, nz_grad(p[(AA + 1) & 255], x, y, z - 1.0f),
                     nz_grad(p[(BA + 1) & 255], x - 1.0f, y, z - 1.0f));
  float x3 = nz_lerp(u, nz_grad(p[(AB + 1) & 255], x, y - 1.0f, z - 1.0f),
                     nz_grad(p[(BB + 1) & 255], x - 1.0f, y - 1.0f, z - 1.0f));
  return nz_lerp(w, nz_lerp(v, x0, x1), nz_lerp(v, x2, x3));
}

void KERNEL(long i, float *out, const int *perm, int width, float scale, float depth, int octaves) {
  int px = (int)(i % width), py = (int)(i / width);
  float x = px * scale, y = py * scale, z = depth;
  float sum = 0.0f, amp = 0.5f;
  for (int o = 0; o < octaves; o++) {
    sum += amp * fabsf(nz_noise(perm, x, y, z));
    x *= 2.0f;
    y *= 2.0f;
    z *= 2.0f;
    amp *= 0.5f;
  }
  out[i] = sum;
}

#ifdef WFV_REFERENCE
void wfv_reference(long n, float *out, const int *perm, int width, float scale, float depth,
                   int octaves) {
  for (long i = 0; i < n; i++) KERNEL(i, out, perm, width, scale, depth, octaves);
}
#endif

#ifdef WFV_DRIVER
#include <stdlib.h>
#include <string.h>
typedef void (*launcher)(long, float *, const int *, int, float, float, int);
enum { WIDTH = 512, OCTAVES = 6 };
static int perm[256];
static float *out;

void wfv_setup(long n) {
  out = malloc(sizeof(float) * n);
  /* A random permutation of 0..255 (Fisher-Yates). */
  for (int k = 0; k < 256; k++) perm[k] = k;
  for (int k = 255; k > 0; k--) {
    int j = (int)(wfv_rand() % (unsigned)(k + 1)), t = perm[k];
    perm[k] = perm[j];
    perm[j] = t;
  }
}
void wfv_clear(long n) { memset(out, 0, sizeof(float) * n); }
void wfv_sweep(void *fn, long n) { ((launcher)fn)(n, out, perm, WIDTH, 1.0f / 64.0f, 0.37f, OCTAVES); }
void wfv_dump(FILE *f, long n) {
  wfv_dump_buffer(f, out, sizeof(float) * n);
  wfv_dump_buffer(f, perm, sizeof(perm));
  wfv_dump_int(f, WIDTH);
  wfv_dump_float(f, 1.0f / 64.0f);
  wfv_dump_float(f, 0.37f);
  wfv_dump_int(f, OCTAVES);
}
double wfv_checksum(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += out[i];
  return s;
}
#endif
