/* The protocol between `lanes bench wfv` and its kernels (bench/wfv/<kernel>.c).
 *
 * Each kernel file defines the SPMD kernel `void KERNEL(long i, ...)`, one instance per
 * index `i`, under the name the build gives it with -DKERNEL=name (lanes vectorizes it
 * into `name_spmd(long n, ...)`, which runs instances 0..n-1), and:
 *   - with -DWFV_REFERENCE: `wfv_reference(long n, ...)`, the plain loop over the
 *     instances, which clang-19 -O3 -march=native compiles (LLVM's vectorizers on);
 *   - with -DWFV_DRIVER: `wfv_setup(n)` making its data set (fixed seeds),
 *     `wfv_clear(n)` zeroing its outputs, `wfv_sweep(fn, n)` calling a launcher or the
 *     reference on the data, `wfv_checksum(n)` summing the outputs, and
 *     `wfv_dump(f, n)` writing the arguments of a sweep after the index (with the
 *     helpers below), from which the harness runs instances in lanes' SIMT
 *     interpreter to measure SIMD utilization.
 * `driver.c` checks every build's checksum against the reference's before timing. */
#ifndef LANES_WFV_H
#define LANES_WFV_H
#ifndef KERNEL
#define KERNEL wfv_kernel
#endif

/* A small deterministic generator for the data sets. */
static unsigned wfv_seed = 12345u;
static inline unsigned wfv_rand(void) {
  wfv_seed = wfv_seed * 1103515245u + 12345u;
  return wfv_seed >> 8;
}
/* The parameter interval [*t0, *t1] where a ray is inside an axis-aligned box, from the
 * ray parameters (ax, bx), (ay, by), (az, bz) where it meets the two planes of each axis
 * (slabs); empty when *t1 < *t0. */
static inline void wfv_slabs(float ax, float bx, float ay, float by, float az, float bz,
                             float *t0, float *t1) {
  float lo = ax < bx ? ax : bx, hi = ax < bx ? bx : ax;
  float l = ay < by ? ay : by, h = ay < by ? by : ay;
  lo = l > lo ? l : lo;
  hi = h < hi ? h : hi;
  l = az < bz ? az : bz;
  h = az < bz ? bz : az;
  *t0 = l > lo ? l : lo;
  *t1 = h < hi ? h : hi;
}

/* Uniform in [lo, hi). */
static inline float wfv_uniform(float lo, float hi) {
  return lo + (hi - lo) * (float)(wfv_rand() % 1000000u) / 1000000.0f;
}

#ifdef WFV_DRIVER
#include <stdio.h>
/* One argument per line: `buffer BYTES HEX`, `int VALUE` or `float VALUE`. */
static void wfv_dump_buffer(FILE *f, const void *p, long bytes) {
  const unsigned char *b = p;
  fprintf(f, "buffer %ld ", bytes);
  for (long k = 0; k < bytes; k++) fprintf(f, "%02x", b[k]);
  fputc('\n', f);
}
static void wfv_dump_int(FILE *f, long v) { fprintf(f, "int %ld\n", v); }
static void wfv_dump_float(FILE *f, float v) { fprintf(f, "float %.9g\n", v); }
#endif
#endif
