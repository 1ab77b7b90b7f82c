/* Driver of tests/vectorize.rs's irreducible-control-flow test: goto_into_loop_spmd(count,
 * a, out, n) runs instances 0..count of goto_into_loop.c, whose loop is entered in its
 * middle by odd inputs; every out[i] below count must equal the scalar function's, and
 * out beyond count stay untouched. Usage: driver COUNT; prints "ok COUNT". */
#include <stdio.h>
#include <stdlib.h>

#define goto_into_loop ref_goto_into_loop
#include "goto_into_loop.c"
#undef goto_into_loop

void goto_into_loop_spmd(long count, const int *a, int *out, int n);

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    int count = atoi(argv[1]);
    int a[256], out[256], expect[256];
    for (int i = 0; i < 256; i++) { a[i] = (i * 7919 + 13) % 1001; out[i] = expect[i] = -7; }
    for (int n = 0; n < 6; n++) {
        /* n is uniform: the lanes of one call differ in x and in where they enter. */
        for (int i = 0; i < 256; i++) out[i] = -7;
        goto_into_loop_spmd(count, a, out, n);
        for (int i = 0; i < count; i++) ref_goto_into_loop(i, a, expect, n);
        for (int i = 0; i < 256; i++) {
            int want = i < count ? expect[i] : -7;
            if (out[i] != want) {
                fprintf(stderr, "n=%d mismatch at %d: %d, want %d\n", n, i, out[i], want);
                return 1;
            }
        }
    }
    printf("ok %d\n", count);
    return 0;
}
