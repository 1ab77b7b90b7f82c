/* lanes.h's reductions and exclusive scan through `lanes vectorize` (tests/it/vectorize.rs):
 * over all active lanes, and in a divergent branch, where only the lanes that took it are
 * active. */
#include <lanes.h>

void reduce(int i, const int *a, const float *f, const unsigned long long *u, int *o,
            float *fo, unsigned long long *uo) {
    int x = a[i];
    o[6 * i + 0] = lanes_reduce_add(x);
    o[6 * i + 1] = lanes_reduce_min(x);
    o[6 * i + 2] = lanes_reduce_max(x);
    o[6 * i + 3] = lanes_exclusive_scan_add(x);
    o[6 * i + 4] = 0;
    o[6 * i + 5] = 0;
    if (x % 3 != 0) {
        o[6 * i + 4] = lanes_reduce_add(x);
        o[6 * i + 5] = lanes_exclusive_scan_add(x);
    }
    fo[2 * i] = lanes_reduce_add(f[i]);
    fo[2 * i + 1] = lanes_reduce_min(f[i]);
    uo[2 * i] = lanes_reduce_and(u[i]);
    uo[2 * i + 1] = lanes_reduce_or(u[i]);
}
