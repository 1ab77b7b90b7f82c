/* Compares each F_spmd(…, n, …) with the scalar reference ref_F run for i in 0..n. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void saxpy_spmd(int, float, const float *, float *);
void branchy_spmd(int, const int *, int *);
void mandel_spmd(int, int, float, float, float, int, int *);
void guarded_spmd(int, const int *, int *);
void ref_saxpy(int, float, const float *, float *);
void ref_branchy(int, const int *, int *);
void ref_mandel(int, int, float, float, float, int, int *);
void ref_guarded(int, const int *, int *);

#define CAP 128

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 37;
    float x[CAP], y1[CAP], y2[CAP];
    int xi[CAP], o1[CAP], o2[CAP];
    int bad = 0;
    for (int i = 0; i < CAP; i++) {
        x[i] = (float)(i * 7 % 13) - 6.5f;
        y1[i] = y2[i] = (float)(i % 5) * 0.25f;
        xi[i] = (i * 37 % 101) - 40;
    }
    for (int i = 0; i < n; i++) ref_saxpy(i, 1.5f, x, y1);
    saxpy_spmd(n, 1.5f, x, y2);
    if (memcmp(y1, y2, sizeof y1)) { printf("saxpy differs\n"); bad = 1; }

    memset(o1, 0x55, sizeof o1); memset(o2, 0x55, sizeof o2);
    for (int i = 0; i < n; i++) ref_branchy(i, xi, o1);
    branchy_spmd(n, xi, o2);
    if (memcmp(o1, o2, sizeof o1)) { printf("branchy differs\n"); bad = 1; }

    memset(o1, 0x55, sizeof o1); memset(o2, 0x55, sizeof o2);
    for (int i = 0; i < n; i++) ref_mandel(i, 7, -2.0f, -1.25f, 0.37f, 64, o1);
    mandel_spmd(n, 7, -2.0f, -1.25f, 0.37f, 64, o2);
    if (memcmp(o1, o2, sizeof o1)) { printf("mandel differs\n"); bad = 1; }

    memset(o1, 0x55, sizeof o1); memset(o2, 0x55, sizeof o2);
    for (int i = 0; i < n; i++) ref_guarded(i, xi, o1);
    guarded_spmd(n, xi, o2);
    if (memcmp(o1, o2, sizeof o1)) { printf("guarded differs\n"); bad = 1; }

    if (!bad) printf("ok %d\n", n);
    return bad;
}
