/* Ray casting through a bounding volume hierarchy: one instance per pixel walks a BVH of
 * a few thousand spheres with its own stack of nodes still to visit (a private array
 * indexed by a per-lane stack pointer), testing each node's box and, at the leaves, the
 * spheres, keeping the nearest hit. The walk's length, the leaf/inner branch and the
 * near-child-first order all diverge across lanes; every node fetch is a gather. */
#include <math.h>
#include "wfv.h"

enum { BVH_STACK = 64 };

/* Nodes: box[6k..6k+5] = min x, y, z, max x, y, z; link[2k] = first child (children are
 * adjacent) or first sphere, link[2k+1] = sphere count of a leaf, or -(split axis + 1). */
void KERNEL(long i, float *out, const float *box, const int *link, const float *sph, int width) {
  int px = (int)(i % width), py = (int)(i / width);
  float dx = (px + 0.5f - width * 0.5f) / width, dy = (width * 0.5f - py - 0.5f) / width;
  float dz = -1.0f;
  float len = sqrtf(dx * dx + dy * dy + dz * dz);
  dx /= len;
  dy /= len;
  dz /= len;
  float ix = 1.0f / dx, iy = 1.0f / dy, iz = 1.0f / dz;
  float best = 1e30f;
  int stack[BVH_STACK];
  int sp = 0;
  stack[sp++] = 0;
  while (sp > 0) {
    int node = stack[--sp];
    const float *b = box + 6 * node;
    /* The ray starts at the origin: the slab distances are the planes times 1/d. */
    float ax = b[0] * ix, bx = b[3] * ix, ay = b[1] * iy, by = b[4] * iy;
    float az = b[2] * iz, bz = b[5] * iz;
    float t0, t1;
    wfv_slabs(ax, bx, ay, by, az, bz, &t0, &t1);
    if (t1 < t0 || t1 < 0.0f || t0 > best) continue;
    int first = link[2 * node], count = link[2 * node + 1];
    if (count > 0) {
      for (int k = first; k < first + count; k++) {
        float cx = sph[4 * k], cy = sph[4 * k + 1], cz = sph[4 * k + 2], r = sph[4 * k + 3];
        float bb = cx * dx + cy * dy + cz * dz;
        float disc = bb * bb - (cx * cx + cy * cy + cz * cz - r * r);
        if (disc > 0.0f) {
          float t = bb - sqrtf(disc);
          if (t > 1e-4f && t < best) best = t;
        }
      }
    } else {
      /* Visit the child on the near side of the split first (pushed last). */
      int axis = -count - 1;
      float da = axis == 0 ? dx : axis == 1 ? dy : dz;
      int nearc = da > 0.0f ? first : first + 1;
      stack[sp++] = 2 * first + 1 - nearc;
      stack[sp++] = nearc;
    }
  }
  out[i] = best < 1e29f ? best : 0.0f;
}

#ifdef WFV_REFERENCE
void wfv_reference(long n, float *out, const float *box, const int *link, const float *sph,
                   int width) {
  for (long i = 0; i < n; i++) KERNEL(i, out, box, link, sph, width);
}
#endif

#ifdef WFV_DRIVER
#include <stdlib.h>
#include <string.h>
typedef void (*launcher)(long, float *, const float *, const int *, const float *, int);
enum { SPHERES = 4096, LEAF = 4 };
/* The widest square image the instances fill (the rows past it look further down), so
 * that a sweep at any scale sees the whole scene. */
static int side;
static float raw[4 * SPHERES], sph[4 * SPHERES], box[6 * 2 * SPHERES];
static int links[2 * 2 * SPHERES], order[SPHERES], nodes, split_axis;
static float *out;

static int by_center(const void *x, const void *y) {
  float a = raw[4 * *(const int *)x + split_axis], b = raw[4 * *(const int *)y + split_axis];
  return (a > b) - (a < b);
}

/* Node `k` over order[lo..hi): its box, then a leaf or a median split on the longest axis. */
static void build(int k, int lo, int hi) {
  float mn[3] = {1e30f, 1e30f, 1e30f}, mx[3] = {-1e30f, -1e30f, -1e30f};
  for (int j = lo; j < hi; j++)
    for (int a = 0; a < 3; a++) {
      const float *s = raw + 4 * order[j];
      mn[a] = fminf(mn[a], s[a] - s[3]);
      mx[a] = fmaxf(mx[a], s[a] + s[3]);
    }
  for (int a = 0; a < 3; a++) {
    box[6 * k + a] = mn[a];
    box[6 * k + 3 + a] = mx[a];
  }
  if (hi - lo <= LEAF) {
    links[2 * k] = lo;
    links[2 * k + 1] = hi - lo;
    return;
  }
  split_axis = 0;
  for (int a = 1; a < 3; a++)
    if (mx[a] - mn[a] > mx[split_axis] - mn[split_axis]) split_axis = a;
  qsort(order + lo, hi - lo, sizeof(int), by_center);
  int child = nodes;
  nodes += 2;
  links[2 * k] = child;
  links[2 * k + 1] = -(split_axis + 1);
  build(child, lo, (lo + hi) / 2);
  build(child + 1, (lo + hi) / 2, hi);
}

void wfv_setup(long n) {
  for (side = 1; (long)(side + 1) * (side + 1) <= n;) side++;
  out = malloc(sizeof(float) * n);
  for (int s = 0; s < SPHERES; s++) {
    raw[4 * s] = wfv_uniform(-4.0f, 4.0f);
    raw[4 * s + 1] = wfv_uniform(-4.0f, 4.0f);
    raw[4 * s + 2] = wfv_uniform(-12.0f, -4.0f);
    raw[4 * s + 3] = wfv_uniform(0.05f, 0.2f);
    order[s] = s;
  }
  nodes = 1;
  build(0, 0, SPHERES);
  /* The spheres in leaf order. */
  for (int s = 0; s < SPHERES; s++) memcpy(sph + 4 * s, raw + 4 * order[s], 4 * sizeof(float));
}
void wfv_clear(long n) { memset(out, 0, sizeof(float) * n); }
void wfv_sweep(void *fn, long n) { ((launcher)fn)(n, out, box, links, sph, side); }
void wfv_dump(FILE *f, long n) {
  wfv_dump_buffer(f, out, sizeof(float) * n);
  wfv_dump_buffer(f, box, sizeof(float) * 6 * nodes);
  wfv_dump_buffer(f, links, sizeof(int) * 2 * nodes);
  wfv_dump_buffer(f, sph, sizeof(sph));
  wfv_dump_int(f, side);
}
double wfv_checksum(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += out[i];
  return s;
}
#endif
