/* C that clang turns into LLVM intrinsics lanes spells out (see loops.c for `//@`):
 * byte and bit reversal, arithmetic with overflow checks, powi, and memory operations
 * longer than lanes expands inline. */
#include <string.h>
#include "corpus.h"

//@ bswap16(u16) -> u16
unsigned short bswap16(unsigned short x) { return __builtin_bswap16(x); }

//@ bswap32(u32) -> u32
unsigned bswap32(unsigned x) { return __builtin_bswap32(x); }

//@ bswap64(u64) -> u64
unsigned long long bswap64(unsigned long long x) { return __builtin_bswap64(x); }

/* The shift-and-mask spelling, which clang -O2 recognizes as llvm.bswap. */
//@ bswap_idiom(u32) -> u32
unsigned bswap_idiom(unsigned x) {
    return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}

//@ bitreverse8(u8) -> u8
unsigned char bitreverse8(unsigned char x) { return __builtin_bitreverse8(x); }

//@ bitreverse32(u32) -> u32
unsigned bitreverse32(unsigned x) { return __builtin_bitreverse32(x); }

//@ bitreverse64(u64) -> u64
unsigned long long bitreverse64(unsigned long long x) { return __builtin_bitreverse64(x); }

/* Each checked operation: the wrapped result, with bit 0 of the high word the flag. */
//@ checked_i32(i32, i32) -> i64
long long checked_i32(int a, int b) {
    int s, d, p;
    int os = __builtin_add_overflow(a, b, &s);
    int od = __builtin_sub_overflow(a, b, &d);
    int op = __builtin_mul_overflow(a, b, &p);
    return ((long long)(os | od << 1 | op << 2) << 32) ^ (unsigned)(s ^ d * 3 ^ p * 7);
}

//@ checked_u32(u32, u32) -> i64
long long checked_u32(unsigned a, unsigned b) {
    unsigned s, d, p;
    int os = __builtin_add_overflow(a, b, &s);
    int od = __builtin_sub_overflow(a, b, &d);
    int op = __builtin_mul_overflow(a, b, &p);
    return ((long long)(os | od << 1 | op << 2) << 32) ^ (s ^ d * 3 ^ p * 7);
}

//@ checked_i64(i64, i64) -> i64
long long checked_i64(long long a, long long b) {
    long long s, d, p;
    int os = __builtin_add_overflow(a, b, &s);
    int od = __builtin_sub_overflow(a, b, &d);
    int op = __builtin_mul_overflow(a, b, &p);
    return (s ^ d * 3 ^ p * 7) * 8 + (os | od << 1 | op << 2);
}

//@ checked_u64(u64, u64) -> u64
unsigned long long checked_u64(unsigned long long a, unsigned long long b) {
    unsigned long long s, d, p;
    int os = __builtin_add_overflow(a, b, &s);
    int od = __builtin_sub_overflow(a, b, &d);
    int op = __builtin_mul_overflow(a, b, &p);
    return (s ^ d * 3 ^ p * 7) * 8 + (os | od << 1 | op << 2);
}

/* A small multiply near the edges: -1 times INT64_MIN overflows, times 0 never does. */
//@ checked_mul_edges(range i32 -2 2, range i32 0 3) -> i32
int checked_mul_edges(int k, int which) {
    long long b = which == 0 ? INT64_MIN : which == 1 ? INT64_MAX : which == 2 ? 0 : -1;
    long long r;
    return __builtin_mul_overflow((long long)k, b, &r) * 2 + (r < 0);
}

//@ powi_consts(f64) -> f64
double powi_consts(double x) {
    return __builtin_powi(x, 5) + __builtin_powi(x, -3) + __builtin_powi(x, 0) +
           __builtin_powi(x, 13);
}

//@ powi_f32(f32) -> f32
float powi_f32(float x) { return __builtin_powif(x, 7) - __builtin_powif(x, -2); }

/* Copies and fills longer than 4 KiB, and overlapping moves both ways. */
//@ big_copy(buf i32 2200, range i32 0 2200) -> i32
int big_copy(int *buf, int k) {
    int tmp[1100];
    memcpy(tmp, buf, sizeof tmp);
    memset(buf + 1100, k & 0xff, 1100 * sizeof(int));
    memmove(buf + 1, buf, 1000 * sizeof(int));
    memmove(buf + 500, buf + 501, 1200 * sizeof(int));
    int s = 0;
    for (int i = 0; i < 1100; i++) s = s * 31 + tmp[i] + buf[i + k % 1100];
    return s;
}

//@ var_move(buf u8 64, range i32 0 32, range i32 0 32) -> u32
unsigned var_move(unsigned char *buf, int from, int n) {
    memmove(buf + 7, buf + from, (size_t)n);
    memmove(buf + from, buf + 9, (size_t)n);
    unsigned h = 0;
    for (int i = 0; i < 64; i++) h = h * 131 + buf[i];
    return h;
}

/* Copies to and from a volatile struct: a volatile llvm.memcpy (as csmith writes them). */
//@ volatile_copy(i64) -> i64
long long volatile_copy(long long x) {
    volatile struct big v;
    struct big a = {x, x * 3, x ^ 5, ~x}, b;
    v = a;
    b = v;
    return b.a + b.b * 7 + b.c * 11 + b.d * 13;
}

/* __builtin_powi with an exponent known only at run time: the loop over its bits. */
//@ powi_var(f64, range i32 -40 40) -> f64
double powi_var(double x, int n) { return __builtin_powi(x, n) + __builtin_powi(x, n ^ 1); }

//@ powi_var_f32(f32, i32) -> f32
float powi_var_f32(float x, int n) { return __builtin_powif(x, n % 70); }
