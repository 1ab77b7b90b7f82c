/* Nearest-neighbour search on a kd-tree: each instance finds the tree point closest to
 * its query, visiting the near subtree first and pruning a far one once the best distance
 * so far is below its distance to the split plane. The pruning bound tightens at a
 * different pace in every instance, so the walks diverge more than point correlation's. */
#include "wfv.h"

void KERNEL(long i, const float *px, const float *py, const float *qx, const float *qy,
            int *out, int size) {
  float x = qx[i], y = qy[i];
  int nodes[40], depths[40];
  float bounds[40];
  int sp = 0, best = 0;
  float best_d2 = 1e30f;
  nodes[sp] = 0;
  depths[sp] = 0;
  bounds[sp] = 0.0f;
  sp++;
  while (sp > 0) {
    sp--;
    int node = nodes[sp], d = depths[sp];
    if (bounds[sp] >= best_d2) continue;
    float dx = px[node] - x, dy = py[node] - y;
    float d2 = dx * dx + dy * dy;
    if (d2 < best_d2) {
      best_d2 = d2;
      best = node;
    }
    float split = (d & 1) ? dy : dx;
    int left = 2 * node + 1, right = 2 * node + 2;
    /* split > 0: the query lies on the left of the plane, so left is near. */
    int near = split > 0.0f ? left : right, far = split > 0.0f ? right : left;
    if (far < size) {
      nodes[sp] = far;
      depths[sp] = d + 1;
      bounds[sp] = split * split;
      sp++;
    }
    if (near < size) {
      nodes[sp] = near;
      depths[sp] = d + 1;
      bounds[sp] = 0.0f;
      sp++;
    }
  }
  out[i] = best;
}

#ifdef WFV_REFERENCE
void wfv_reference(long n, const float *px, const float *py, const float *qx, const float *qy,
                   int *out, int size) {
  for (long i = 0; i < n; i++) KERNEL(i, px, py, qx, qy, out, size);
}
#endif

#ifdef WFV_DRIVER
#include "kdtree.h"
typedef void (*launcher)(long, const float *, const float *, const float *, const float *,
                         int *, int);
static int *out;

void wfv_setup(long n) {
  kd_setup(n);
  out = malloc(sizeof(int) * n);
}
void wfv_clear(long n) { memset(out, 0, sizeof(int) * n); }
void wfv_sweep(void *fn, long n) { ((launcher)fn)(n, kd_x, kd_y, kd_qx, kd_qy, out, KD_SIZE); }
void wfv_dump(FILE *f, long n) {
  kd_dump(f, n);
  wfv_dump_buffer(f, out, sizeof(int) * n);
  wfv_dump_int(f, KD_SIZE);
}
double wfv_checksum(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += out[i] * (double)(i % 5 + 1);
  return s;
}
#endif
