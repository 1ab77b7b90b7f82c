/* The data set of the kd-tree kernels (driver side): KD_SIZE random points in the unit
 * square arranged as a 2-d tree in a complete binary tree (node k's children at 2k+1 and
 * 2k+2, split on x at even depths and y at odd ones), and one query point per instance. */
#ifndef LANES_WFV_KDTREE_H
#define LANES_WFV_KDTREE_H
#include <stdlib.h>
#include <string.h>
#include "wfv.h"

enum { KD_SIZE = (1 << 14) - 1 };
static float *kd_x, *kd_y, *kd_qx, *kd_qy;
static int kd_axis;

typedef struct {
  float x, y;
} kd_point;

static int kd_compare(const void *a, const void *b) {
  const kd_point *p = a, *q = b;
  float u = kd_axis ? p->y : p->x, v = kd_axis ? q->y : q->x;
  return (u > v) - (u < v);
}

/* Places the median of pts[lo..hi] (by the depth's axis) at `node`, the halves below. */
static void kd_build(kd_point *pts, int lo, int hi, int node, int depth) {
  if (lo > hi || node >= KD_SIZE) return;
  kd_axis = depth & 1;
  qsort(pts + lo, (size_t)(hi - lo + 1), sizeof(kd_point), kd_compare);
  int mid = lo + (hi - lo) / 2;
  kd_x[node] = pts[mid].x;
  kd_y[node] = pts[mid].y;
  kd_build(pts, lo, mid - 1, 2 * node + 1, depth + 1);
  kd_build(pts, mid + 1, hi, 2 * node + 2, depth + 1);
}

static void kd_setup(long n) {
  kd_point *pts = malloc(sizeof(kd_point) * KD_SIZE);
  kd_x = malloc(sizeof(float) * KD_SIZE);
  kd_y = malloc(sizeof(float) * KD_SIZE);
  kd_qx = malloc(sizeof(float) * n);
  kd_qy = malloc(sizeof(float) * n);
  for (int k = 0; k < KD_SIZE; k++) {
    pts[k].x = wfv_uniform(0.0f, 1.0f);
    pts[k].y = wfv_uniform(0.0f, 1.0f);
  }
  kd_build(pts, 0, KD_SIZE - 1, 0, 0);
  free(pts);
  for (long i = 0; i < n; i++) {
    kd_qx[i] = wfv_uniform(0.0f, 1.0f);
    kd_qy[i] = wfv_uniform(0.0f, 1.0f);
  }
}

/* The tree and the queries as kernel arguments (wfv_dump). */
static void kd_dump(FILE *f, long n) {
  wfv_dump_buffer(f, kd_x, sizeof(float) * KD_SIZE);
  wfv_dump_buffer(f, kd_y, sizeof(float) * KD_SIZE);
  wfv_dump_buffer(f, kd_qx, sizeof(float) * n);
  wfv_dump_buffer(f, kd_qy, sizeof(float) * n);
}
#endif
