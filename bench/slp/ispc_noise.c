/* ispc-style noise (written from the algorithm of ispc's `noise` example, whose
 * sequential baseline evaluates Perlin's gradient noise per pixel): a sum of octaves of
 * noise, each the blend of the gradients at the eight corners of the lattice cell
 * around a point, the gradients chosen through a permutation table (data-dependent
 * loads). The octave loop runs the same trips for every pixel. */
#include <math.h>
#include "slp.h"
static const int perm[256] = {
    106, 178, 186, 37, 32, 2, 254, 154, 115, 243, 83, 27, 248, 25, 218, 122,
    91, 216, 123, 105, 184, 173, 64, 200, 255, 66, 28, 219, 44, 59, 49, 247,
    99, 240, 85, 96, 227, 41, 94, 251, 190, 60, 100, 81, 82, 112, 67, 168,
    188, 4, 198, 39, 181, 77, 214, 239, 231, 152, 97, 3, 225, 120, 86, 176,
    217, 203, 8, 197, 7, 241, 234, 13, 213, 187, 245, 224, 71, 58, 6, 156,
    65, 193, 40, 196, 207, 47, 68, 159, 167, 0, 229, 128, 175, 75, 177, 1,
    139, 84, 103, 102, 238, 145, 157, 133, 199, 153, 45, 53, 135, 183, 124, 110,
    130, 104, 150, 113, 35, 70, 51, 226, 21, 191, 151, 237, 117, 132, 50, 179,
    33, 169, 55, 206, 172, 29, 43, 90, 118, 5, 88, 98, 72, 170, 79, 192,
    194, 121, 69, 233, 235, 195, 202, 189, 89, 162, 185, 201, 215, 19, 10, 164,
    125, 253, 171, 42, 212, 131, 209, 249, 155, 73, 114, 87, 126, 134, 180, 221,
    20, 62, 204, 63, 76, 92, 116, 220, 119, 80, 109, 136, 205, 127, 52, 158,
    222, 228, 16, 182, 140, 246, 95, 48, 163, 208, 148, 26, 46, 174, 143, 78,
    146, 30, 138, 36, 236, 74, 34, 142, 11, 56, 250, 252, 223, 147, 230, 244,
    160, 161, 57, 31, 144, 211, 15, 108, 141, 23, 61, 17, 107, 111, 22, 9,
    54, 129, 232, 14, 149, 93, 24, 137, 210, 18, 12, 166, 101, 38, 242, 165,
};
static int hash(int i) { return perm[i & 255]; }
static float fade(float t) { return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f); }
static float lerp(float t, float a, float b) { return a + t * (b - a); }
static float grad(int h, float x, float y, float z) {
  h &= 15;
  float u = h < 8 ? x : y, v = h < 4 ? y : (h == 12 || h == 14 ? x : z);
  return ((h & 1) ? -u : u) + ((h & 2) ? -v : v);
}
static float noise(float x, float y, float z) {
  float fx = floorf(x), fy = floorf(y), fz = floorf(z);
  int ix = (int)fx, iy = (int)fy, iz = (int)fz;
  x -= fx; y -= fy; z -= fz;
  float u = fade(x), v = fade(y), w = fade(z);
  int a = hash(ix) + iy, aa = hash(a) + iz, ab = hash(a + 1) + iz;
  int b = hash(ix + 1) + iy, ba = hash(b) + iz, bb = hash(b + 1) + iz;
  return lerp(w,
              lerp(v, lerp(u, grad(hash(aa), x, y, z), grad(hash(ba), x - 1, y, z)),
                   lerp(u, grad(hash(ab), x, y - 1, z), grad(hash(bb), x - 1, y - 1, z))),
              lerp(v, lerp(u, grad(hash(aa + 1), x, y, z - 1), grad(hash(ba + 1), x - 1, y, z - 1)),
                   lerp(u, grad(hash(ab + 1), x, y - 1, z - 1),
                        grad(hash(bb + 1), x - 1, y - 1, z - 1))));
}
void KERNEL(float *restrict out, int width, int height) {
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      float px = x * (8.0f / width), py = y * (8.0f / height), sum = 0.0f, scale = 1.0f;
      for (int o = 0; o < 4; o++) {
        sum += noise(px * scale, py * scale, 0.6f) / scale;
        scale *= 2.0f;
      }
      out[y * width + x] = sum;
    }
}
#define SLP_REPS 1
#define SLP_CALL(fn, n) ((void (*)(float *, int, int))fn)(a, 256, (int)((n) / 256))
#include "slp1d.h"
