/* Loops, nested loops and early exits. Each `//@` line gives a function's test signature:
   argument kinds (scalar type, `range T lo hi`, `frange T lo hi`, `buf T n`,
   `byval NAME SIZE`) and the result (`void`, a scalar type, `sret NAME SIZE`). */
#include "corpus.h"

//@ sum_i32(buf i32 64, range i32 0 64) -> i32
int sum_i32(const int *a, int n) {
    unsigned s = 0;
    for (int i = 0; i < n; i++) s += (unsigned)a[i];
    return (int)s;
}

//@ dot_f32(buf f32 32, buf f32 32, range i32 0 32) -> f32
float dot_f32(const float *a, const float *b, int n) {
    float s = 0.0f;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

//@ saxpy(f32, buf f32 40, buf f32 40, range i32 0 40) -> void
void saxpy(float a, const float *x, float *y, int n) {
    for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}

//@ find_first(buf i32 50, range i32 0 50, range i32 -4 4) -> i32
int find_first(const int *a, int n, int key) {
    for (int i = 0; i < n; i++)
        if ((a[i] & 7) - 4 == key) return i;
    return -1;
}

//@ matmul4(buf f64 16, buf f64 16, buf f64 16) -> void
void matmul4(const double *a, const double *b, double *c) {
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double s = 0.0;
            for (int k = 0; k < 4; k++) s += a[i * 4 + k] * b[k * 4 + j];
            c[i * 4 + j] = s;
        }
}

//@ count_pairs(buf u8 40, range i32 0 40) -> i32
int count_pairs(const unsigned char *a, int n) {
    int c = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if ((a[i] ^ a[j]) < 16) c++;
    return c;
}

//@ max_index(buf i64 33, range i32 1 33) -> i32
int max_index(const long long *a, int n) {
    int best = 0;
    for (int i = 1; i < n; i++)
        if (a[i] > a[best]) best = i;
    return best;
}

//@ prefix_sum(buf i32 48, range i32 0 48) -> void
void prefix_sum(int *a, int n) {
    unsigned acc = 0;
    for (int i = 0; i < n; i++) {
        acc += (unsigned)a[i];
        a[i] = (int)acc;
    }
}

//@ collatz_steps(range u32 1 100000) -> i32
int collatz_steps(unsigned x) {
    int steps = 0;
    while (x != 1 && steps < 1000) {
        x = (x & 1) ? 3 * x + 1 : x / 2;
        steps++;
    }
    return steps;
}

//@ while_break(buf i16 64, range i32 0 64, i16) -> i32
int while_break(const short *a, int n, short limit) {
    int i = 0, total = 0;
    while (i < n) {
        if (a[i] > limit) break;
        if (a[i] < 0) { i += 2; continue; }
        total += a[i];
        i++;
    }
    return total * 100 + i;
}

//@ reverse_u16(buf u16 31, range i32 0 31) -> void
void reverse_u16(unsigned short *a, int n) {
    for (int i = 0, j = n - 1; i < j; i++, j--) {
        unsigned short t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

//@ stencil(buf f32 34, buf f32 34, range i32 2 34) -> void
void stencil(const float *in, float *out, int n) {
    for (int i = 1; i + 1 < n; i++) out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
}

//@ triangle(range i32 0 200) -> i64
long long triangle(int n) {
    unsigned long long s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) s = s * 3u + (unsigned long long)i * (unsigned)j;
    return (long long)s;
}

//@ zero_fill(buf i32 40, range i32 0 40) -> void
void zero_fill(int *a, int n) {
    for (int i = 0; i < n; i++) a[i] = 0;
}

//@ copy_ints(buf i32 30, buf i32 30, range i32 0 30) -> void
void copy_ints(int *restrict d, const int *restrict s, int n) {
    for (int i = 0; i < n; i++) d[i] = s[i];
}

//@ fill_bytes(buf u8 64, range i32 0 64, u8) -> i32
int fill_bytes(unsigned char *p, int n, unsigned char v) {
    for (int i = 0; i < n; i++) p[i] = v;
    return n > 0 ? p[n - 1] : -1;
}
