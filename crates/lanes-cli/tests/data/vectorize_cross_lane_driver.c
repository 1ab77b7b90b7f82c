/* Driver of tests/vectorize.rs's cross-lane test: rotate_spmd(n, in, out) runs groups of
 * W instances; lane k of the group starting at g reads in[g + (k+1) mod W] (checked where
 * that lane is active, i.e. below n) and the group's first lane in[g]; out beyond n is
 * untouched. Usage: driver W N; prints "ok N". */
#include <stdio.h>
#include <stdlib.h>

void rotate_spmd(int n, const int *in, int *out);

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    int w = atoi(argv[1]), n = atoi(argv[2]);
    int in[256], out[256];
    for (int i = 0; i < 256; i++) { in[i] = (i * 37 + 11) % 500; out[i] = -7; }
    rotate_spmd(n, in, out);
    for (int i = 0; i < 256; i++) {
        int g = i / w * w, src = g + (i % w + 1) % w, ok;
        if (i >= n) ok = out[i] == -7;
        else if (src < n) ok = out[i] == in[src] * 1000 + in[g];
        else ok = (out[i] - in[g]) % 1000 == 0; /* the next lane is inactive: unspecified */
        if (!ok) { fprintf(stderr, "mismatch at %d: %d\n", i, out[i]); return 1; }
    }
    printf("ok %d\n", n);
    return 0;
}
