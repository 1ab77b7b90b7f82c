// Per-work-item sorting in private memory.
//
// `sort8_network`: each work-item sorts its 8 ints with Batcher's odd-even merge network
// (19 compare-exchanges on constant indices, min/max) and writes them back.
#define CX(i, j)                                                                           \
  {                                                                                        \
    int lo = min(v[i], v[j]);                                                              \
    int hi = max(v[i], v[j]);                                                              \
    v[i] = lo;                                                                             \
    v[j] = hi;                                                                             \
  }

__kernel void sort8_network(__global int *data) {
  int base = get_global_id(0) * 8;
  int v[8];
  for (int k = 0; k < 8; k++)
    v[k] = data[base + k];
  CX(0, 1) CX(2, 3) CX(4, 5) CX(6, 7)
  CX(0, 2) CX(1, 3) CX(4, 6) CX(5, 7)
  CX(1, 2) CX(5, 6)
  CX(0, 4) CX(1, 5) CX(2, 6) CX(3, 7)
  CX(2, 4) CX(3, 5)
  CX(1, 2) CX(3, 4) CX(5, 6)
  for (int k = 0; k < 8; k++)
    data[base + k] = v[k];
}

// `insertion_sort`: each work-item sorts its own run of `len[i]` ints (at most 16) by
// insertion in a private array indexed by loop variables: divergent trip counts and
// data-dependent inner loops over private memory.
__kernel void insertion_sort(__global int *data, __global const int *len) {
  int i = get_global_id(0);
  int n = len[i];
  int base = i * 16;
  int v[16];
  for (int k = 0; k < n; k++) {
    int x = data[base + k];
    int j = k;
    while (j > 0 && v[j - 1] > x) {
      v[j] = v[j - 1];
      j--;
    }
    v[j] = x;
  }
  for (int k = 0; k < n; k++)
    data[base + k] = v[k];
}
