/* ispc-style ray/sphere (written from the algorithm, as the sequential baselines of
 * ispc's examples are): a ray per pixel against every sphere of a small scene, keeping
 * the nearest hit. The loop over the spheres runs the same trips for every pixel:
 * unrolled over pixels, its copies are fused and the nearest distances become one
 * vector μ-node. */
#include "slp.h"
#define NSPHERES 16
void KERNEL(float *restrict out, const float *restrict scene, int width, int height) {
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      float dx = (x - width * 0.5f) / width, dy = (y - height * 0.5f) / height;
      float dz = 1.0f;
      float len2 = dx * dx + dy * dy + dz * dz;
      float tmin = 1e30f;
      for (int s = 0; s < NSPHERES; s++) {
        float cx = scene[4 * s], cy = scene[4 * s + 1], cz = scene[4 * s + 2] + 3.0f;
        float r = scene[4 * s + 3] * 0.5f + 0.6f;
        /* |t·d - c|² = r², t along the unnormalized ray d. */
        float b = (cx * dx + cy * dy + cz * dz) / len2;
        float disc = b * b - (cx * cx + cy * cy + cz * cz - r * r) / len2;
        if (disc > 0.0f) {
          float t = b - disc * 0.5f;
          if (t > 0.0f && t < tmin) tmin = t;
        }
      }
      out[y * width + x] = tmin < 1e30f ? tmin : 0.0f;
    }
}
#define SLP_REPS 4
#define SLP_CALL(fn, n)                                                                  \
  ((void (*)(float *, const float *, int, int))fn)(a, c, 256, (int)((n) / 256))
#include "slp1d.h"
