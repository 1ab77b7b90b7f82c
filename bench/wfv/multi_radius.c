/* Multi-radius point correlation on a kd-tree (PLDI'18 §7): as point_correlation.c, but
 * each instance counts the points within four radii at once, pruning by the largest. */
#include "wfv.h"

void KERNEL(long i, const float *px, const float *py, const float *qx, const float *qy,
            int *out, int size, float r) {
  float x = qx[i], y = qy[i];
  float r0 = r * 0.25f, r1 = r * 0.5f, r2 = r * 0.75f;
  int nodes[40], depths[40];
  int sp = 0, c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  nodes[sp] = 0;
  depths[sp] = 0;
  sp++;
  while (sp > 0) {
    sp--;
    int node = nodes[sp], d = depths[sp];
    float dx = px[node] - x, dy = py[node] - y;
    float d2 = dx * dx + dy * dy;
    if (d2 <= r * r) {
      c3++;
      if (d2 <= r2 * r2) {
        c2++;
        if (d2 <= r1 * r1) {
          c1++;
          if (d2 <= r0 * r0) c0++;
        }
      }
    }
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
  out[i] = c0 + 3 * c1 + 5 * c2 + 7 * c3;
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
void wfv_sweep(void *fn, long n) { ((launcher)fn)(n, kd_x, kd_y, kd_qx, kd_qy, out, KD_SIZE, 0.03f); }
void wfv_dump(FILE *f, long n) {
  kd_dump(f, n);
  wfv_dump_buffer(f, out, sizeof(int) * n);
  wfv_dump_int(f, KD_SIZE);
  wfv_dump_float(f, 0.03f);
}
double wfv_checksum(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += out[i] * (double)(i % 5 + 1);
  return s;
}
#endif
