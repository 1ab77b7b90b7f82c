/* Volume rendering by ray marching: one instance per pixel casts a ray from a camera
 * through the unit cube holding a density grid, samples it trilinearly at fixed steps
 * and composites emission front to back. Rays that miss the cube do no marching, each
 * ray's trip count is its own chord length, empty samples skip the compositing, and a
 * ray stops early once its opacity saturates: trip counts diverge widely across lanes,
 * and every sample is eight gathers. */
#include "wfv.h"

/* The lattice cell below coordinate g (0..n-1) and the offset in it. */
static inline int vr_cell(float g, int n, float *frac) {
  int c = (int)g;
  c = c < 0 ? 0 : c > n - 2 ? n - 2 : c;
  *frac = g - (float)c;
  return c;
}

void KERNEL(long i, float *out, const float *grid, int n, int width, float step, float absorb) {
  int px = (int)(i % width), py = (int)(i / width);
  float ex = 0.9f, ey = 0.8f, ez = -1.6f;
  float dx = -0.2f + 1.4f * (px + 0.5f) / width - ex;
  float dy = -0.2f + 1.4f * (py + 0.5f) / width - ey;
  float dz = 0.5f - ez;
  /* Where the ray enters and leaves the cube [0, 1]^3 (slabs). */
  float ix = 1.0f / dx, iy = 1.0f / dy, iz = 1.0f / dz;
  float ax = -ex * ix, bx = (1.0f - ex) * ix, ay = -ey * iy, by = (1.0f - ey) * iy;
  float az = -ez * iz, bz = (1.0f - ez) * iz;
  float t0, t1;
  wfv_slabs(ax, bx, ay, by, az, bz, &t0, &t1);
  float color = 0.0f, alpha = 0.0f;
  int steps = t1 > t0 ? (int)((t1 - t0) / step) : 0;
  float scale = (float)(n - 1);
  for (int k = 0; k < steps; k++) {
    float t = t0 + (k + 0.5f) * step;
    float fx, fy, fz;
    int cx = vr_cell((ex + t * dx) * scale, n, &fx);
    int cy = vr_cell((ey + t * dy) * scale, n, &fy);
    int cz = vr_cell((ez + t * dz) * scale, n, &fz);
    const float *g = grid + (cz * n + cy) * n + cx;
    int sy = n, sz = n * n;
    float c00 = g[0] + fx * (g[1] - g[0]), c01 = g[sy] + fx * (g[sy + 1] - g[sy]);
    float c10 = g[sz] + fx * (g[sz + 1] - g[sz]);
    float c11 = g[sz + sy] + fx * (g[sz + sy + 1] - g[sz + sy]);
    float c0 = c00 + fy * (c01 - c00), c1 = c10 + fy * (c11 - c10);
    float density = c0 + fz * (c1 - c0);
    if (density > 0.0f) {
      float a = density * absorb * step;
      a = a < 1.0f ? a : 1.0f;
      float emit = 0.25f + 0.75f * (cy + fy) / scale;
      color += (1.0f - alpha) * a * emit;
      alpha += (1.0f - alpha) * a;
      if (alpha > 0.97f) break;
    }
  }
  out[i] = color + (1.0f - alpha) * 0.05f;
}

#ifdef WFV_REFERENCE
void wfv_reference(long n, float *out, const float *grid, int gn, int width, float step,
                   float absorb) {
  for (long i = 0; i < n; i++) KERNEL(i, out, grid, gn, width, step, absorb);
}
#endif

#ifdef WFV_DRIVER
#include <stdlib.h>
#include <string.h>
typedef void (*launcher)(long, float *, const float *, int, int, float, float);
enum { GRID = 64, BLOBS = 24 };
/* The widest square image the instances fill (the rows past it look further down), so
 * that a sweep at any scale sees the whole scene. */
static int side;
static float grid[GRID * GRID * GRID];
static float *out;

/* Soft balls of density in empty space. */
void wfv_setup(long n) {
  for (side = 1; (long)(side + 1) * (side + 1) <= n;) side++;
  out = malloc(sizeof(float) * n);
  for (int b = 0; b < BLOBS; b++) {
    float x = wfv_uniform(0.15f, 0.85f), y = wfv_uniform(0.15f, 0.85f), z = wfv_uniform(0.15f, 0.85f);
    float r = wfv_uniform(0.06f, 0.2f), strength = wfv_uniform(1.0f, 6.0f);
    for (int k = 0; k < GRID * GRID * GRID; k++) {
      float gx = (k % GRID) / (GRID - 1.0f) - x, gy = (k / GRID % GRID) / (GRID - 1.0f) - y;
      float gz = (k / (GRID * GRID)) / (GRID - 1.0f) - z;
      float d2 = (gx * gx + gy * gy + gz * gz) / (r * r);
      if (d2 < 1.0f) grid[k] += strength * (1.0f - d2);
    }
  }
}
void wfv_clear(long n) { memset(out, 0, sizeof(float) * n); }
void wfv_sweep(void *fn, long n) { ((launcher)fn)(n, out, grid, GRID, side, 1.0f / 128.0f, 6.0f); }
void wfv_dump(FILE *f, long n) {
  wfv_dump_buffer(f, out, sizeof(float) * n);
  wfv_dump_buffer(f, grid, sizeof(grid));
  wfv_dump_int(f, GRID);
  wfv_dump_int(f, side);
  wfv_dump_float(f, 1.0f / 128.0f);
  wfv_dump_float(f, 6.0f);
}
double wfv_checksum(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += out[i];
  return s;
}
#endif
