/* ispc-style Mandelbrot (the sequential baseline of ispc's example, written from the
 * algorithm): an escape-time loop per pixel, whose trip count differs between pixels. */
#include "slp.h"
void KERNEL(int *restrict out, int width, int height) {
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      float cr = -2.0f + 3.0f * x / width, ci = -1.0f + 2.0f * y / height;
      float zr = cr, zi = ci;
      int k = 0;
      for (; k < 256; k++) {
        if (zr * zr + zi * zi > 4.0f) break;
        float nr = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = nr;
      }
      out[y * width + x] = k;
    }
}
#define SLP_REPS 1
#define SLP_CALL(fn, n) ((void (*)(int *, int, int))fn)((int *)a, 256, (int)((n) / 256))
#include "slp1d.h"
