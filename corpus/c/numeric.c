/* Integer overflow and shift edge cases, libm, NaN and infinity (see loops.c for `//@`).
   All code is free of undefined behaviour: wrapping goes through unsigned types, shift
   amounts are masked, float-to-int conversions are clamped first. */
#include <math.h>
#include <stdint.h>
#include "corpus.h"

//@ wrap_add(i32, i32) -> i32
int wrap_add(int a, int b) { return (int)((unsigned)a + (unsigned)b); }

//@ wrap_mul64(i64, i64) -> i64
long long wrap_mul64(long long a, long long b) {
    return (long long)((unsigned long long)a * (unsigned long long)b);
}

//@ shifts(u32, i32) -> u32
unsigned shifts(unsigned x, int s) {
    unsigned a = x << (s & 31);
    unsigned b = x >> ((s + 7) & 31);
    int c = (int)x >> (s & 31);
    return a ^ b ^ (unsigned)c;
}

//@ rotl64(u64, i32) -> u64
unsigned long long rotl64(unsigned long long x, int r) {
    r &= 63;
    return r == 0 ? x : (x << r) | (x >> (64 - r));
}

//@ safe_div(i32, i32) -> i32
int safe_div(int a, int b) {
    if (b == 0 || (a == INT32_MIN && b == -1)) return 0;
    return a / b + a % b;
}

//@ udiv_mod(u64, u64) -> u64
unsigned long long udiv_mod(unsigned long long a, unsigned long long b) {
    if (b == 0) return a;
    return a / b * 1000003u + a % b;
}

//@ sat_add_u8(u8, u8) -> u8
unsigned char sat_add_u8(unsigned char a, unsigned char b) {
    unsigned s = (unsigned)a + b;
    return s > 255 ? 255 : (unsigned char)s;
}

//@ narrow(i64) -> i16
short narrow(long long x) { return (short)(x ^ (x >> 16)); }

//@ popcount_loop(u64) -> i32
int popcount_loop(unsigned long long x) {
    int c = 0;
    while (x) { x &= x - 1; c++; }
    return c;
}

//@ abs_diff(i32, i32) -> u32
unsigned abs_diff(int a, int b) {
    long long d = (long long)a - b;
    return (unsigned)(d < 0 ? -d : d);
}

//@ hypot_sum(buf f64 16, range i32 0 8) -> f64
double hypot_sum(const double *a, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += sqrt(a[2 * i] * a[2 * i] + a[2 * i + 1] * a[2 * i + 1]);
    return s;
}

//@ math_mix(frange f64 -10 10) -> f64
double math_mix(double x) {
    return sin(x) + cos(2.0 * x) + exp(x / 4.0) + log(fabs(x) + 1.0) + pow(fabs(x), 1.5) + atan2(x, 3.0);
}

//@ mathf_mix(frange f32 -10 10) -> f32
float mathf_mix(float x) {
    return floorf(x) + ceilf(x * 0.5f) + truncf(x * 3.0f) + roundf(x) + fabsf(x) + sqrtf(fabsf(x)) + fmaxf(x, 0.0f) + fminf(x, 1.0f);
}

//@ nan_count(buf f32 32) -> i32
int nan_count(const float *a) {
    int c = 0;
    for (int i = 0; i < 32; i++) {
        if (a[i] != a[i]) c += 1;
        else if (isinf(a[i])) c += 100;
        else if (a[i] == 0.0f) c += 10000;
    }
    return c;
}

//@ nan_max(f64, f64) -> f64
double nan_max(double a, double b) { return fmax(a, b) + fmin(a, b) * 0.5; }

//@ safe_ftoi(f32) -> i32
int safe_ftoi(float x) {
    if (x != x) return 0;
    if (x >= 2147483520.0f) return INT32_MAX;
    if (x <= -2147483648.0f) return INT32_MIN;
    return (int)x;
}

//@ inf_arith(f64, f64) -> f64
double inf_arith(double a, double b) {
    double q = a / b;
    if (isnan(q)) return -1.0;
    return q * 2.0 - a;
}

//@ cmp_unordered(f32, f32) -> i32
int cmp_unordered(float a, float b) {
    return (a < b) + 2 * (a > b) + 4 * (a == b) + 8 * !(a <= b) + 16 * isunordered(a, b);
}

//@ mix_types(i8, u16, f32, f64) -> f64
double mix_types(signed char a, unsigned short b, float c, double d) {
    return (double)a * 3.0 + (double)b / 7.0 + (double)c - d * 0.25;
}
