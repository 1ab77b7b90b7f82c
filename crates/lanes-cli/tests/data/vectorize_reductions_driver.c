/* Runs reduce_spmd(n, ...) (vectorize_reductions.c) at width W = argv[1] for n = argv[2]
 * and checks every lane against the reductions of its group's active lanes (those below
 * n), folded in lane order. Prints "ok N" or the first mismatch. */
#include <stdio.h>
#include <stdlib.h>

void reduce_spmd(int n, const int *a, const float *f, const unsigned long long *u, int *o,
                 float *fo, unsigned long long *uo);

int main(int argc, char **argv) {
    int w = atoi(argv[1]), n = atoi(argv[2]);
    int a[256], o[6 * 256];
    float f[256], fo[2 * 256];
    unsigned long long u[256], uo[2 * 256];
    for (int i = 0; i < 256; i++) {
        a[i] = (i * 37) % 101 - 50;
        f[i] = (float)i * 0.1f + 0.3f;
        u[i] = 0xF0F0F0F0F0F0F0F0ull ^ ((unsigned long long)i * 0x9E3779B97F4A7C15ull);
    }
    reduce_spmd(n, a, f, u, o, fo, uo);
    for (int i = 0; i < n; i++) {
        int base = i / w * w, end = base + w < n ? base + w : n;
        int sum = 0, mn = a[base], mx = a[base], scan = 0, dsum = 0, dscan = 0;
        float fsum = 0.0f, fmn = f[base];
        unsigned long long and_ = ~0ull, or_ = 0;
        for (int j = base; j < end; j++) {
            sum += a[j];
            mn = a[j] < mn ? a[j] : mn;
            mx = a[j] > mx ? a[j] : mx;
            scan += j < i ? a[j] : 0;
            if (a[j] % 3 != 0) {
                dsum += a[j];
                dscan += j < i ? a[j] : 0;
            }
            fsum = fsum + f[j];
            fmn = f[j] < fmn ? f[j] : fmn;
            and_ &= u[j];
            or_ |= u[j];
        }
        int taken = a[i] % 3 != 0;
        if (o[6 * i] != sum || o[6 * i + 1] != mn || o[6 * i + 2] != mx || o[6 * i + 3] != scan
            || o[6 * i + 4] != (taken ? dsum : 0) || o[6 * i + 5] != (taken ? dscan : 0)
            || fo[2 * i] != fsum || fo[2 * i + 1] != fmn || uo[2 * i] != and_
            || uo[2 * i + 1] != or_) {
            printf("lane %d differs: sum %d/%d min %d/%d max %d/%d scan %d/%d dsum %d/%d dscan %d/%d fsum %g/%g\n",
                   i, o[6 * i], sum, o[6 * i + 1], mn, o[6 * i + 2], mx, o[6 * i + 3], scan,
                   o[6 * i + 4], taken ? dsum : 0, o[6 * i + 5], taken ? dscan : 0, fo[2 * i], fsum);
            return 1;
        }
    }
    printf("ok %d\n", n);
    return 0;
}
