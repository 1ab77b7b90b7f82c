/* lanes.h's lanes_unmasked in an SPMD function, for tests/it/lanes_h.rs: inside a
 * divergent branch, the unmasked block stores and counts on every lane that entered the
 * function; the store before it only on the lanes that took the branch. */
#include <lanes.h>

void unmasked(int i, const int *a, int *taken, int *all, int *count) {
  int x = a[i];
  if (x > 0) {
    taken[i] = x;
    lanes_unmasked {
      all[i] = i + 100;
      count[i] = (int)lanes_popcount(1);
    }
  }
}

/* A loop inside the block: not straight-line, reported. */
void unmasked_loop(int i, const int *a, int *all) {
  if (a[i] > 0) {
    lanes_unmasked {
      for (int k = 0; k < a[0]; k++)
        all[i] += k;
    }
  }
}
