// Binary search in a sorted table: for each key, the index of the first element not less
// than it (lower bound; n if none), and how many elements equal it (a second loop that
// only runs on a hit). Trip counts differ by key.
__kernel void lower_bound(__global const int *table, int n, __global const int *keys,
                          __global int2 *result) {
  int i = get_global_id(0);
  int key = keys[i];
  int lo = 0;
  int hi = n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (table[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  int count = 0;
  while (lo + count < n && table[lo + count] == key)
    count++;
  result[i] = (int2)(lo, count);
}
