/* Point correlation on a kd-tree (PLDI'18 §7): each instance counts the points within a
 * radius of its query point, walking a 2-d tree (stored as a complete binary tree, split
 * axis alternating by depth) with a private stack and pruning subtrees the radius cannot
 * reach. Which subtrees are visited, and so the loop's trip count, differ per instance. */
#include "wfv.h"

void KERNEL(long i, const float *px, const float *py, const float *qx, const float *qy,
            int *out, int size, float r) {
  float x = qx[i], y = qy[i];
  int nodes[40], depths[40];
  int sp = 0, count = 0;
  nodes[sp] = 0;
  depths[sp] = 0;
  sp++;
  while (sp > 0) {
    sp--;
    int node = nodes[sp], d = depths[sp];
    float dx = px[node] - x, dy = py[node] - y;
    if (dx * dx + dy * dy <= r * r) count++;
    float split = (d & 1) ? dy : dx;
    int left = 2 * node + 1, right = 2 * node + 2;
    if (left < size && split >= -r) {
      nodes[sp] = left;
      depths[sp] = d + 1;
      sp++;
    }
    if (right < size && split <= r) {
      nodes[sp] = right;
      depths[sp] = d + 1;
      sp++;
    }
  }
  out[i] = count;
}

#ifdef WFV_REFERENCE
void wfv_reference(long n, const float *px, const float *py, const float *qx, const float *qy,
                   int *out, int size, float r) {
  for (long i = 0; i < n; i++) KERNEL(i, px, py, qx, qy, out, size, r);
}
#endif

#ifdef WFV_DRIVER
#include "kdtree.h"
typedef void (*launcher)(long, const float *, const float *, const float *, const float *,
                         int *, int, float);
static int *out;

void wfv_setup(long n) {
  kd_setup(n);
  out = malloc(sizeof(int) * n);
}
void wfv_clear(long n) { memset(out, 0, sizeof(int) * n); }
void wfv_sweep(void *fn, long n) { ((launcher)fn)(n, kd_x, kd_y, kd_qx, kd_qy, out, KD_SIZE, 0.02f); }
void wfv_dump(FILE *f, long n) {
  kd_dump(f, n);
  wfv_dump_buffer(f, out, sizeof(int) * n);
  wfv_dump_int(f, KD_SIZE);
  wfv_dump_float(f, 0.02f);
}
double wfv_checksum(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += out[i] * (double)(i % 5 + 1);
  return s;
}
#endif
