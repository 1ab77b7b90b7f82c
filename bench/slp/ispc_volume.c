/* ispc-style volume rendering (written from the algorithm of ispc's `volume` example,
 * whose sequential baseline marches a ray per pixel through a density grid): the ray is
 * clipped to the volume's box, then marched in fixed steps until it leaves the box or
 * the light passing through falls below a threshold — an early exit, so that every
 * pixel runs its own number of steps. Each step reads the grid at a point that depends
 * on the pixel (a data-dependent load). Unrolled over pixels, the marching loops of
 * neighbouring pixels are co-iterated (PLDI'22 Fig. 10). */
#include <math.h>
#include "slp.h"
#define GRID 32
static float clamp01(float v) { return v < 0.0f ? 0.0f : v > 0.999f ? 0.999f : v; }
void KERNEL(float *restrict out, const float *restrict grid, int width, int height) {
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      /* A ray from the eye through the pixel, towards the unit cube [0,1]³. */
      float ox = 0.5f, oy = 0.5f, oz = -1.5f;
      float dx = (x + 0.5f) / width - 0.5f, dy = (y + 0.5f) / height - 0.5f, dz = 1.0f;
      /* Slab intersection with the cube. */
      float t0 = 0.0f, t1 = 1e30f;
      float ix = 1.0f / dx, iy = 1.0f / dy, iz = 1.0f / dz;
      float ax = (0.0f - ox) * ix, bx = (1.0f - ox) * ix;
      float ay = (0.0f - oy) * iy, by = (1.0f - oy) * iy;
      float az = (0.0f - oz) * iz, bz = (1.0f - oz) * iz;
      t0 = fmaxf(t0, fminf(ax, bx));
      t1 = fminf(t1, fmaxf(ax, bx));
      t0 = fmaxf(t0, fminf(ay, by));
      t1 = fminf(t1, fmaxf(ay, by));
      t0 = fmaxf(t0, fminf(az, bz));
      t1 = fminf(t1, fmaxf(az, bz));
      float light = 0.0f, trans = 1.0f;
      const float step = 0.02f;
      for (float t = t0; t < t1; t += step) {
        float px = clamp01(ox + t * dx), py = clamp01(oy + t * dy), pz = clamp01(oz + t * dz);
        int cell = ((int)(pz * GRID) * GRID + (int)(py * GRID)) * GRID + (int)(px * GRID);
        float density = grid[cell];
        float absorbed = density * step * 4.0f;
        light += trans * absorbed * (0.5f + 0.5f * pz);
        trans *= 1.0f - absorbed;
        if (trans < 0.005f) break;
      }
      out[y * width + x] = light;
    }
}
#define SLP_REPS 1
#define SLP_CALL(fn, n)                                                                  \
  ((void (*)(float *, const float *, int, int))fn)(a, grid_of(c, n), 128, (int)((n) / 128))
#ifdef SLP_DRIVER
/* The density grid: GRID³ values in [0, 1] from the data array c (|c| ≤ 1). */
static float *grid_storage;
static const float *grid_of(const float *src, long n) {
  if (!grid_storage) {
    grid_storage = malloc(sizeof(float) * GRID * GRID * GRID);
    for (long i = 0; i < GRID * GRID * GRID; i++) {
      float v = src[i % n];
      grid_storage[i] = v < 0 ? -v * 0.5f : v * 0.5f;
    }
  }
  return grid_storage;
}
#endif
#include "slp1d.h"
