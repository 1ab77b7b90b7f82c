// Parallel loops for the outer-loop vectorizer (PLDI'18 §7): `#pragma omp simd` and
// `#pragma clang loop vectorize(assume_safety)` loops whose bodies hold divergent
// branches, divergent inner loops, reductions and last values. lanes-wfv/tests/outer_loop.rs runs
// each before and after vectorization in the interpreter and compares;
// lanes-cli/tests/omp_simd.rs compiles it with `lanes compile -fopenmp-simd` and compares
// with clang-19 natively.
#include <stdint.h>

void saxpy(int n, float a, const float *x, float *y) {
#pragma omp simd
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}

// A divergent inner loop per element: LLVM's loop vectorizer gives up on this loop.
void halve_until(long n, float *y, float lo) {
#pragma clang loop vectorize(assume_safety)
  for (long i = 0; i < n; i++) {
    float v = y[i];
    int k = 0;
    while (v > lo && k < 100) {
      v = v * 0.5f;
      k++;
    }
    y[i] = v;
  }
}

float dot(int n, const float *x, const float *y) {
  float s = 0;
#pragma omp simd reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[i] * y[i];
  return s;
}

int sum_above(int n, const int *x, int t) {
  int s = 0;
#pragma omp simd reduction(+ : s)
  for (int i = 0; i < n; i++)
    if (x[i] > t)
      s += x[i];
  return s;
}

int min_max_spread(int n, const int *x) {
  int lo = 1000000, hi = -1000000;
#pragma omp simd reduction(min : lo) reduction(max : hi)
  for (int i = 0; i < n; i++) {
    lo = x[i] < lo ? x[i] : lo;
    hi = x[i] > hi ? x[i] : hi;
  }
  return hi - lo;
}

unsigned checksum(unsigned n, const unsigned *x) {
  unsigned h = 0, p = 1;
#pragma omp simd reduction(^ : h) reduction(* : p)
  for (unsigned i = 0; i < n; i++) {
    h ^= x[i] * 2654435761u;
    p *= (x[i] | 1);
  }
  return h + p;
}

float last_scaled(int n, const float *x, float *y) {
  float v = -1;
#pragma omp simd lastprivate(v)
  for (int i = 0; i < n; i++) {
    v = x[i] * 2.0f;
    y[i] = v + 1.0f;
  }
  return v;
}

void reverse_copy(int n, const int *x, int *y) {
#pragma omp simd
  for (int i = n - 1; i >= 0; i--)
    y[i] = x[n - 1 - i] + i;
}

void window(unsigned lo, unsigned hi, int *y) {
#pragma omp simd
  for (unsigned i = lo; i < hi; i++)
    y[i] = (int)(i * i) - 7;
}

// Mandelbrot over one row (the escape exit of PLDI'18 Fig. 9 inside an omp simd loop).
void mandel_row(int width, float y0, float x0, float dx, int max_iter, int *out) {
#pragma omp simd
  for (int px = 0; px < width; px++) {
    float cr = x0 + px * dx, ci = y0;
    float zr = 0, zi = 0;
    int it = 0;
    while (it < max_iter) {
      float zr2 = zr * zr, zi2 = zi * zi;
      if (zr2 + zi2 > 4.0f)
        break;
      zi = 2.0f * zr * zi + ci;
      zr = zr2 - zi2 + cr;
      it++;
    }
    out[px] = it;
  }
}

// Binary search per query (XSBench's grid search).
void lower_bounds(int n, const int *queries, const int *table, int len, int *pos) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    int q = queries[i], lo = 0, hi = len;
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (table[mid] < q)
        lo = mid + 1;
      else
        hi = mid;
    }
    pos[i] = lo;
  }
}

// A nested loop with a per-row reduction and a guarded division.
void row_means(int rows, int cols, const int *a, int *mean) {
#pragma omp simd
  for (int r = 0; r < rows; r++) {
    int s = 0, c = 0;
    for (int j = 0; j < cols; j++) {
      int v = a[r * cols + j];
      if (v % 3 != 0) {
        s += v;
        c++;
      }
    }
    mean[r] = c != 0 ? s / c : -1;
  }
}

void strided(long n, const double *x, double *y) {
#pragma omp simd
  for (long i = 0; i < n; i++) {
    y[2 * i] = x[2 * i + 1] * 0.25;
    if (x[i] > 3.0)
      y[2 * i + 1] = -x[i];
  }
}

int sums(int n, const int *x, int *sq) {
  int s = 0, s2 = 0;
#pragma omp simd reduction(+ : s, s2)
  for (int i = 0; i < n; i++) {
    int v = x[i] - 8;
    s += v;
    s2 += v * v;
  }
  *sq = s2;
  return s;
}

void guarded_div(int n, const int *x, int *y) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    if (x[i] == 0)
      continue;
    y[i] = 1000 / x[i];
  }
}

void collatz_steps(int n, const int *x, int *steps) {
#pragma clang loop vectorize(assume_safety)
  for (int i = 0; i < n; i++) {
    unsigned v = (unsigned)x[i] + 1;
    int s = 0;
    while (v != 1 && s < 200) {
      v = (v & 1) ? 3 * v + 1 : v / 2;
      s++;
    }
    steps[i] = s;
  }
}

// A local array indexed at run time: clang allocates it once in the entry block; every
// lane needs its own.
void pick(int n, const int *x, int *y) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    int t[5];
    for (int j = 0; j < 5; j++)
      t[j] = x[i] * j + (i % 7);
    int k = x[i] & 3;
    y[i] = t[k] + t[(k + 1) % 5];
  }
}

// A `declare simd` function with an `omp simd` loop: its vector variants are made from
// the scalar function; the scalar function's loop is vectorized as an outer loop.
#pragma omp declare simd uniform(a, m) notinbranch
int row_sum(const int *a, int m, int r) {
  int s = 0;
#pragma omp simd reduction(+ : s)
  for (int j = 0; j < m; j++)
    s += a[r * m + j] * (j + 1);
  return s;
}

// Early exits: the loop is left from the body. clang rejects `break` in `omp simd`
// loops, so these use `assume_safety`, which declares the iterations independent too.
int first_negative(int n, const int *x) {
  int i;
#pragma clang loop vectorize(assume_safety)
  for (i = 0; i < n; i++)
    if (x[i] < 0)
      break;
  return i;
}

// `return` from the loop, and a value of the exiting iteration used after it.
int first_big_double(int n, const float *x, float limit, float *out) {
#pragma clang loop vectorize(assume_safety)
  for (int i = 0; i < n; i++) {
    float v = x[i] * 2.0f;
    if (v > limit) {
      *out = v;
      return i;
    }
  }
  return -1;
}

// Stores before the exit: the iterations before the first negative element, and that
// one, store; none after it. (`restrict` lets clang reuse the load of x[i] for the exit
// test; without it the test reads x[i] after the store to y[i], which could be x[i]:
// see `copy_through_negative_aliased`.)
int copy_through_negative(int n, const int *restrict x, int *restrict y) {
  int i;
#pragma clang loop vectorize(assume_safety)
  for (i = 0; i < n; i++) {
    y[i] = x[i] + 1;
    if (x[i] < 0)
      break;
  }
  return i;
}

// Declined: the exit test reloads x[i] after the store to y[i], which may be the same
// element; the test cannot be run ahead of the store.
int copy_through_negative_aliased(int n, const int *x, int *y) {
  int i;
#pragma clang loop vectorize(assume_safety)
  for (i = 0; i < n; i++) {
    y[i] = x[i] + 1;
    if (x[i] < 0)
      break;
  }
  return i;
}

// A bounded strlen: byte loads, which the probe reads ahead within the page.
int bounded_strlen(int n, const char *s) {
  int i;
#pragma clang loop vectorize(assume_safety)
  for (i = 0; i < n; i++)
    if (s[i] == 0)
      break;
  return i;
}

// Two exits to different places, each with its own result, and an index loaded through.
int two_exits(int n, const int *x, const int *idx) {
#pragma clang loop vectorize(assume_safety)
  for (int i = 0; i < n; i++) {
    if (x[i] == 7)
      return 1000 + i;
    if (x[idx[i] & 1023] == 5)
      return 2000 + i;
  }
  return -1;
}

// A value carried to the next iteration, computed there from the inductions alone (a
// first-order recurrence): each iteration recomputes its predecessor's x[i].
void shift_by_one(int n, const int *x, int *y) {
  int prev = 0;
#pragma clang loop vectorize(assume_safety)
  for (int i = 0; i < n; i++) {
    y[i] = prev;
    prev = x[i];
  }
}

// Declined: a value carried to the next iteration that depends on itself (no
// reduction, no recurrence of the inductions).
void carried_scan(int n, const int *x, int *y) {
  int s = 0;
#pragma clang loop vectorize(assume_safety)
  for (int i = 0; i < n; i++) {
    s = s / 2 + x[i];
    y[i] = s;
  }
}

// Not parallel: not reported at all.
void prefix(int n, int *x) {
  for (int i = 1; i < n; i++)
    x[i] += x[i - 1];
}
