/* Runs lanes' launchers against clang-19's scalar kernels built with the same flags
 * (`ref_`) and with -ffp-contract=off (`off_`); prints how many outputs differ, bit for
 * bit (tests/fp_contract.rs). */
#include <stdio.h>
#include <string.h>

void mandel_spmd(int *out, int n, int width, int height, int max_iter);
void ref_mandel(int *out, int i, int width, int height, int max_iter);
void off_mandel(int *out, int i, int width, int height, int max_iter);
void horner_spmd(float *out, int n, const float *x);
void ref_horner(float *out, int i, const float *x);
void off_horner(float *out, int i, const float *x);

enum { W = 320, H = 240, N = W * H, MAX = 256 };
static int m_lanes[N], m_ref[N], m_off[N];
static float x[N], h_lanes[N], h_ref[N], h_off[N];

static int differ(const void *a, const void *b, int n, int size) {
    int d = 0;
    for (int i = 0; i < n; i++)
        d += memcmp((const char *)a + i * size, (const char *)b + i * size, size) != 0;
    return d;
}

int main(void) {
    unsigned s = 12345;
    for (int i = 0; i < N; i++) {
        s = s * 1103515245u + 12345u;
        x[i] = (float)(s >> 8) / 16777216.0f * 4.0f - 2.0f;
    }
    mandel_spmd(m_lanes, N, W, H, MAX);
    horner_spmd(h_lanes, N, x);
    for (int i = 0; i < N; i++) {
        ref_mandel(m_ref, i, W, H, MAX);
        off_mandel(m_off, i, W, H, MAX);
        ref_horner(h_ref, i, x);
        off_horner(h_off, i, x);
    }
    printf("mandel %d %d\n", differ(m_lanes, m_ref, N, 4), differ(m_off, m_ref, N, 4));
    printf("horner %d %d\n", differ(h_lanes, h_ref, N, 4), differ(h_off, h_ref, N, 4));
    return 0;
}
