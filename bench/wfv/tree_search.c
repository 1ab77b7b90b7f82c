/* Binary-tree search (PLDI'18 Fig. 1): each instance walks a complete binary search tree
 * stored as an array (children of node k at 2k+1 and 2k+2) looking for its key; the
 * loop exit and the left/right choice are divergent. Half of the keys are in the tree. */
#include "wfv.h"

void KERNEL(long i, const int *keys, const int *queries, int *out, int size) {
  int q = queries[i];
  int node = 0, depth = 0;
  while (node < size) {
    int k = keys[node];
    if (k == q) break;
    node = q < k ? 2 * node + 1 : 2 * node + 2;
    depth++;
  }
  out[i] = node < size ? depth : -depth;
}

#ifdef WFV_REFERENCE
void wfv_reference(long n, const int *keys, const int *queries, int *out, int size) {
  for (long i = 0; i < n; i++) KERNEL(i, keys, queries, out, size);
}
#endif

#ifdef WFV_DRIVER
#include <stdlib.h>
#include <string.h>
typedef void (*launcher)(long, const int *, const int *, int *, int);
enum { SIZE = (1 << 16) - 1 };
static int *keys, *queries, *out;
static int next_key;

/* In-order numbering makes the array a search tree: keys 0, 2, 4, ... */
static void fill(int node) {
  if (node >= SIZE) return;
  fill(2 * node + 1);
  keys[node] = next_key;
  next_key += 2;
  fill(2 * node + 2);
}

void wfv_setup(long n) {
  keys = malloc(sizeof(int) * SIZE);
  queries = malloc(sizeof(int) * n);
  out = malloc(sizeof(int) * n);
  fill(0);
  for (long i = 0; i < n; i++) queries[i] = (int)(wfv_rand() % (2u * SIZE));
}
void wfv_clear(long n) { memset(out, 0, sizeof(int) * n); }
void wfv_sweep(void *fn, long n) { ((launcher)fn)(n, keys, queries, out, SIZE); }
void wfv_dump(FILE *f, long n) {
  wfv_dump_buffer(f, keys, sizeof(int) * SIZE);
  wfv_dump_buffer(f, queries, sizeof(int) * n);
  wfv_dump_buffer(f, out, sizeof(int) * n);
  wfv_dump_int(f, SIZE);
}
double wfv_checksum(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += out[i] * (double)(i % 7 + 1);
  return s;
}
#endif
