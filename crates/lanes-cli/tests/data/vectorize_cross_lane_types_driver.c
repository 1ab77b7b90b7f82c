/* Runs spread_spmd(n, ...) (vectorize_cross_lane_types.c) at width W = argv[1] for
 * n = argv[2] and checks every lane: broadcast gives the first lane of the lane's group,
 * extract the next lane (wrapping) of a full group. Prints "ok N" or the first mismatch. */
#include <stdio.h>
#include <stdlib.h>

void spread_spmd(int n, const float *f, const double *d, const long long *l, float *fo,
                 double *dout, long long *lo);

int main(int argc, char **argv) {
    int w = atoi(argv[1]), n = atoi(argv[2]);
    float f[256], fo[512];
    double d[256], dout[512];
    long long l[256], lo[512];
    for (int i = 0; i < 256; i++) {
        f[i] = (float)i + 0.25f;
        d[i] = 1e300 / (i + 1);
        l[i] = (1LL << 40) + 3 * i;
    }
    spread_spmd(n, f, d, l, fo, dout, lo);
    for (int i = 0; i < n; i++) {
        int base = i / w * w, next = base + (i - base + 1) % w;
        if (fo[2 * i] != f[base] || dout[2 * i] != d[base] || lo[2 * i] != l[base]) {
            printf("broadcast differs at %d\n", i);
            return 1;
        }
        if (base + w <= n
            && (fo[2 * i + 1] != f[next] || dout[2 * i + 1] != d[next] || lo[2 * i + 1] != l[next])) {
            printf("extract differs at %d\n", i);
            return 1;
        }
    }
    printf("ok %d\n", n);
    return 0;
}
