/* Switches, recursion, selects and calls between functions (see loops.c for `//@`). */
#include "corpus.h"

//@ classify(i32) -> i32
int classify(int x) {
    switch (x & 15) {
    case 0: return 100;
    case 1: case 2: return 200 + x;
    case 3: return -x;
    case 7: return x * 3;
    case 11: return x ^ 0x5a5a;
    default: return x & 0xff;
    }
}

//@ opcode_eval(buf i32 24, range i32 0 24) -> i32
int opcode_eval(const int *ops, int n) {
    unsigned acc = 1;
    for (int i = 0; i < n; i++) {
        unsigned v = (unsigned)ops[i];
        switch (v % 6) {
        case 0: acc += v; break;
        case 1: acc *= (v | 1); break;
        case 2: acc ^= v >> 3; break;
        case 3: acc = (acc << 5) | (acc >> 27); break;
        case 4: if (acc > v) acc -= v; break;
        default: acc = ~acc; break;
        }
    }
    return (int)acc;
}

//@ fib(range i32 0 20) -> i32
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

//@ gcd(u32, u32) -> u32
unsigned gcd(unsigned a, unsigned b) { return b == 0 ? a : gcd(b, a % b); }

//@ ackermann(range i32 0 2, range i32 0 6) -> i32
int ackermann(int m, int n) {
    if (m == 0) return n + 1;
    if (n == 0) return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

static int sq(int x) { return x * x % 1000; }

//@ sum_squares(buf i32 20, range i32 0 20) -> i32
int sum_squares(const int *a, int n) {
    int s = 0;
    for (int i = 0; i < n; i++) s += sq(a[i] % 1000);
    return s;
}

//@ clamp_select(i32, i32, i32) -> i32
int clamp_select(int x, int lo, int hi) {
    if (lo > hi) { int t = lo; lo = hi; hi = t; }
    return x < lo ? lo : x > hi ? hi : x;
}

//@ sign3(i64) -> i8
signed char sign3(long long x) { return (signed char)((x > 0) - (x < 0)); }

//@ is_sorted(buf i32 16, range i32 0 16) -> u8
_Bool is_sorted(const int *a, int n) {
    for (int i = 1; i < n; i++)
        if (a[i - 1] > a[i]) return 0;
    return 1;
}

//@ binsearch(buf i32 32, i32) -> i32
int binsearch(int *a, int key) {
    /* sorts first (insertion sort), then searches */
    for (int i = 1; i < 32; i++) {
        int v = a[i], j = i - 1;
        while (j >= 0 && a[j] > v) { a[j + 1] = a[j]; j--; }
        a[j + 1] = v;
    }
    int lo = 0, hi = 31;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (a[mid] == key) return mid;
        if (a[mid] < key) lo = mid + 1; else hi = mid - 1;
    }
    return -(lo + 1);
}
