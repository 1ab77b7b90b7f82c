/* The kernel corpus of the vectorizer: loops people write, as `#pragma omp simd` loops
 * (ISPC's `foreach`, written in C), each with the signature KERNEL(name) expands to:
 *
 *   void name(int n, const float *a, const float *b, float *out, const int *idx, int *iout)
 *
 * `a`, `b` hold n + 64 floats in [-4, 4); `idx` n + 64 ints in [0, n + 64); `out` and
 * `iout` n + 64 elements each, compared whole after the call (writes past n count).
 * crates/lanes-cli/tests/it/kernel_corpus.rs compiles this file with lanes at 4, 8, 16
 * lanes and the target's own, and compares every kernel with clang-19's scalar build.
 * Sections: straight-line, divergent branches, divergent loops, reductions, calls,
 * gathers and strided access, early exits of inner loops, intrinsics and private arrays,
 * early exits of the parallel loop itself. */
#include <limits.h>
#include <math.h>

#ifndef NAME
#define NAME(f) f
#endif
#define KERNEL(f)                                                                        \
  void NAME(f)(int n, const float *restrict a, const float *restrict b,                  \
               float *restrict out, const int *restrict idx, int *restrict iout)
#define HELPER static __attribute__((noinline))

/* --- straight-line --- */
KERNEL(saxpy) {
#pragma omp simd
  for (int i = 0; i < n; i++) out[i] = 2.5f * a[i] + b[i];
}
KERNEL(poly) {
#pragma omp simd
  for (int i = 0; i < n; i++) out[i] = ((0.5f * a[i] - 1.0f) * a[i] + 2.0f) * a[i] - b[i];
}
KERNEL(int_ops) {
#pragma omp simd
  for (int i = 0; i < n; i++) iout[i] = (idx[i] * 7 + i) ^ (idx[i] >> 2);
}
KERNEL(convert) {
#pragma omp simd
  for (int i = 0; i < n; i++) iout[i] = (int)(a[i] * 100.0f) + (int)b[i];
}
KERNEL(stencil3) {
#pragma omp simd
  for (int i = 1; i < n - 1; i++) out[i] = 0.25f * a[i - 1] + 0.5f * a[i] + 0.25f * a[i + 1];
}
KERNEL(reverse) {
#pragma omp simd
  for (int i = 0; i < n; i++) out[i] = a[n - 1 - i];
}
KERNEL(sqrt_abs) {
#pragma omp simd
  for (int i = 0; i < n; i++) out[i] = sqrtf(fabsf(a[i])) + fminf(a[i], b[i]);
}

KERNEL(stencil_clamped) {
  /* Neighbours clamped to [0, n): consecutive except in the groups at either end (a
   * gather there, one vector load elsewhere, tested at run time). */
#pragma omp simd
  for (int i = 0; i < n; i++) {
    int left = i - 1 < 0 ? 0 : i - 1, right = i + 1 > n - 1 ? n - 1 : i + 1;
    out[i] = 0.25f * a[left] + 0.5f * a[i] + 0.25f * a[right];
  }
}
KERNEL(butterfly) {
  /* One step of a fast Walsh transform with a half-size h known at run time (8 here):
   * j = (i / h) * 2h + i % h is consecutive within groups of up to h lanes, not across
   * 16 (a vector access where the addresses prove consecutive, else a gather/scatter). */
  int h = 8 + (n > 100000);
#pragma omp simd
  for (int i = 0; i < n / 2; i++) {
    int j = (i / h) * 2 * h + i % h;
    float x = a[j], y = a[j + h];
    out[j] = x + y;
    out[j + h] = x - y;
  }
}
KERNEL(constant_trip) {
  /* A constant trip count (37, not a multiple of any width): clang materializes the
   * bound inside the loop; lanes moves it to the preheader and vectorizes the loop. */
#pragma omp simd
  for (int i = 0; i < 37; i++)
    if (a[i] > 0.0f) out[i] = a[i] * 2.0f + b[i];
}
KERNEL(block_runs) {
  /* Each element against the first of its block of 8 and a quarter-index neighbour:
   * a[i & -8] and b[i >> 2] hold one value over runs of lanes (one load per run when
   * lane 0 is aligned, tested at run time); a[(i + 3) & -8] is never aligned (the
   * gather). Under a divergent condition, so the runs' first lanes may be inactive. */
#pragma omp simd
  for (int i = 0; i < n; i++) {
    if (a[i] > -1.0f)
      out[i] = a[i] - a[i & -8] + b[i >> 2] * a[(i + 3) & -8];
  }
}

/* --- divergent branches --- */
KERNEL(clamp_branch) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    if (a[i] > 1.0f)
      out[i] = 1.0f;
    else if (a[i] < -1.0f)
      out[i] = -1.0f;
    else
      out[i] = a[i];
  }
}
KERNEL(piecewise) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    float x = a[i], y;
    if (x < -2.0f) y = x * x;
    else if (x < 0.0f) y = -x;
    else if (x < 2.0f) y = x * 0.5f;
    else y = 1.0f + b[i];
    out[i] = y;
  }
}
KERNEL(guarded_div) {
#pragma omp simd
  for (int i = 0; i < n; i++) iout[i] = idx[i] % 3 ? 1000 / (idx[i] % 3) : -1;
}
KERNEL(cond_store) {
#pragma omp simd
  for (int i = 0; i < n; i++)
    if (a[i] > b[i]) out[i] = a[i] - b[i];
}
KERNEL(nested_if) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    int v = idx[i];
    if (v & 1) {
      if (v & 2) iout[i] = v * 3;
      else iout[i] = v + 5;
    } else if (v & 4) {
      iout[i] = -v;
    }
  }
}
KERNEL(switch_case) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    switch (idx[i] & 3) {
    case 0: out[i] = a[i]; break;
    case 1: out[i] = b[i]; break;
    case 2: out[i] = a[i] * b[i]; break;
    default: out[i] = 0.0f;
    }
  }
}

KERNEL(divide_guarded) {
  /* Divisions under a divergent branch by divisors the same in every lane (PLDI'18 §3.4
   * guards). A quarter of the lanes have x = INT_MIN and skip the branch, and for odd n
   * the divisor is -1: an inactive lane dividing its INT_MIN would trap. */
  int d = (n & 1) ? -1 : 3;
#pragma omp simd
  for (int i = 0; i < n; i++) {
    int x = INT_MIN + idx[i] % 4;
    if (a[i] > -2.0f && x != INT_MIN)
      iout[i] = x / d + x % (n | 1) + (int)((unsigned)x / (unsigned)(n + 1));
    else
      iout[i] = n / (d + 4) + (n + 7) % (n | 1);
  }
}

/* --- divergent loops --- */
KERNEL(collatz) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    int x = idx[i] + 1, s = 0;
    while (x != 1 && s < 300) {
      x = (x & 1) ? 3 * x + 1 : x / 2;
      s++;
    }
    iout[i] = s;
  }
}
KERNEL(mandel) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    float cr = a[i] * 0.5f, ci = b[i] * 0.5f, zr = 0.0f, zi = 0.0f;
    int k = 0;
    while (k < 64 && zr * zr + zi * zi < 4.0f) {
      float t = zr * zr - zi * zi + cr;
      zi = 2.0f * zr * zi + ci;
      zr = t;
      k++;
    }
    iout[i] = k;
  }
}
KERNEL(newton_sqrt) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    float x = fabsf(a[i]) + 1.0f, g = x;
    for (int k = 0; k < 20 && fabsf(g * g - x) > 1e-3f; k++) g = 0.5f * (g + x / g);
    out[i] = g;
  }
}
KERNEL(bsearch_each) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    /* idx is not sorted; search the sorted table 0, 3, 6, … of `i`'s own span. */
    int lo = 0, hi = 64, key = idx[i] % 192;
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (mid * 3 < key) lo = mid + 1;
      else hi = mid;
    }
    iout[i] = lo;
  }
}
KERNEL(gcd) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    int x = idx[i] + 1, y = i + 1;
    while (y != 0) {
      int t = x % y;
      x = y;
      y = t;
    }
    iout[i] = x;
  }
}
KERNEL(bits) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    unsigned v = (unsigned)idx[i] * 2654435761u;
    int c = 0;
    while (v) {
      v &= v - 1;
      c++;
    }
    iout[i] = c;
  }
}
KERNEL(inner_sum) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int j = 0; j <= (idx[i] & 15); j++) s += a[(i + j) % (n + 64)];
    out[i] = s;
  }
}
KERNEL(halve) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    float x = fabsf(a[i]) * 100.0f;
    int k = 0;
    while (x > 1.0f) {
      x *= 0.5f;
      k++;
    }
    iout[i] = k;
    out[i] = x;
  }
}

/* --- reductions (the result goes to out[0] / iout[0]) --- */
KERNEL(sum) {
  float s = 0.0f;
#pragma omp simd reduction(+ : s)
  for (int i = 0; i < n; i++) s += (float)(idx[i] & 7);
  out[0] = s;
}
KERNEL(dot_int) {
  int s = 0;
#pragma omp simd reduction(+ : s)
  for (int i = 0; i < n; i++) s += idx[i] * (i & 3);
  iout[0] = s;
}
KERNEL(max_min) {
  float hi = -1e30f, lo = 1e30f;
#pragma omp simd reduction(max : hi) reduction(min : lo)
  for (int i = 0; i < n; i++) {
    hi = hi > a[i] ? hi : a[i];
    lo = lo < b[i] ? lo : b[i];
  }
  out[0] = hi;
  out[1] = lo;
}
KERNEL(count_if) {
  int c = 0;
#pragma omp simd reduction(+ : c)
  for (int i = 0; i < n; i++)
    if (a[i] > b[i]) c++;
  iout[0] = c;
}
KERNEL(bit_reductions) {
  int x = 0, o = 0, an = -1;
#pragma omp simd reduction(^ : x) reduction(| : o) reduction(& : an)
  for (int i = 0; i < n; i++) {
    x ^= idx[i];
    o |= idx[i] << (i & 3);
    an &= idx[i] | 0x100;
  }
  iout[0] = x;
  iout[1] = o;
  iout[2] = an;
}
KERNEL(any_all) {
  int any = 0, all = 1;
#pragma omp simd reduction(|| : any) reduction(&& : all)
  for (int i = 0; i < n; i++) {
    any = any || a[i] > 3.5f;
    all = all && idx[i] >= 0;
  }
  iout[0] = any;
  iout[1] = all;
}
KERNEL(last_value) {
  float last = 0.0f;
#pragma omp simd lastprivate(last)
  for (int i = 0; i < n; i++) {
    last = a[i] * 2.0f;
    out[i] = last;
  }
  out[n] = last;
}

/* --- calls of helpers --- */
HELPER float smoothstep(float e0, float e1, float x) {
  float t = (x - e0) / (e1 - e0);
  t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
  return t * t * (3.0f - 2.0f * t);
}
HELPER int steps_of(int x) {
  int s = 0;
  while (x > 1 && s < 100) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    s++;
  }
  return s;
}
HELPER void put(float *p, float v) { *p = v; }
HELPER int tree_depth(int x) { return x <= 1 ? 0 : 1 + tree_depth(x / 2) + tree_depth(x / 3); }
KERNEL(call_pure) {
#pragma omp simd
  for (int i = 0; i < n; i++) out[i] = smoothstep(-1.0f, 1.0f, a[i]);
}
KERNEL(call_loop) {
#pragma omp simd
  for (int i = 0; i < n; i++) iout[i] = steps_of(idx[i] + 1);
}
KERNEL(call_masked_store) {
#pragma omp simd
  for (int i = 0; i < n; i++)
    if (b[i] > 0.0f) put(&out[i], a[i] + b[i]);
}
KERNEL(call_recursive) {
#pragma omp simd
  for (int i = 0; i < n; i++) iout[i] = tree_depth(idx[i] & 255);
}
KERNEL(call_math) {
#pragma omp simd
  for (int i = 0; i < n; i++) out[i] = expf(-a[i] * a[i]) * 0.5f + floorf(b[i]);
}

/* --- gathers and strided access --- */
KERNEL(gather) {
#pragma omp simd
  for (int i = 0; i < n; i++) out[i] = a[idx[i]] - b[i];
}
KERNEL(pairs) {
#pragma omp simd
  for (int i = 0; i < n / 2; i++) out[i] = a[2 * i] * a[2 * i + 1];
}
KERNEL(aos_xyz) {
  /* `a` as an array of (x, y, z) points. */
#pragma omp simd
  for (int i = 0; i < n / 3; i++) {
    float x = a[3 * i], y = a[3 * i + 1], z = a[3 * i + 2];
    out[i] = x * x + y * y + z * z;
  }
}
KERNEL(interleave_store) {
#pragma omp simd
  for (int i = 0; i < n / 2; i++) {
    out[2 * i] = a[i] + b[i];
    out[2 * i + 1] = a[i] - b[i];
  }
}
KERNEL(lookup_table) {
  static const int table[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
#pragma omp simd
  for (int i = 0; i < n; i++) iout[i] = table[idx[i] & 15] * i;
}
KERNEL(column) {
  /* Every eighth element: a strided gather. */
#pragma omp simd
  for (int i = 0; i < n / 8; i++) out[i] = a[8 * i] + 1.0f;
}

/* --- early exits of each instance's own loop (the divergent loop transform) --- */
KERNEL(find_in_window) {
  /* The first j in the instance's window with a[j] > b[i]; -1 if none. */
#pragma omp simd
  for (int i = 0; i < n; i++) {
    int found = -1;
    for (int j = i; j < i + 32 && j < n + 64; j++)
      if (a[j] > b[i]) {
        found = j;
        break;
      }
    iout[i] = found;
  }
}
KERNEL(copy_until_negative) {
  /* Stores before the exit: copy a window until the first negative element. */
#pragma omp simd
  for (int i = 0; i < n / 8; i++) {
    int j = 0;
    for (; j < 8; j++) {
      out[8 * i + j] = a[8 * i + j] * 2.0f;
      if (a[8 * i + j] < 0.0f) break;
    }
    iout[i] = j;
  }
}
KERNEL(strlen_like) {
  /* A `while` over "strings" of idx values ended by a multiple of 7. */
#pragma omp simd
  for (int i = 0; i < n; i++) {
    int k = i;
    while (k < n + 63 && idx[k] % 7 != 0) k++;
    iout[i] = k - i;
  }
}

/* --- what clang makes intrinsics of, and private arrays --- */
KERNEL(byte_bits) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    unsigned x = (unsigned)idx[i] * 2654435761u;
    iout[i] = (int)(__builtin_bswap32(x) ^ __builtin_bitreverse32(x >> 3));
  }
}
KERNEL(checked_math) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    int s, p;
    long long q;
    int o = __builtin_add_overflow(idx[i] * 40000, i * 70000, &s);
    o += 2 * __builtin_mul_overflow(idx[i] * 9000, idx[i] * 9000, &p);
    o += 4 * __builtin_mul_overflow((long long)idx[i] << 40, (long long)i << 30, &q);
    iout[i] = o * 1000 + (s ^ p ^ (int)q) % 1000;
  }
}
KERNEL(powi_poly) {
#pragma omp simd
  for (int i = 0; i < n; i++)
    out[i] = (float)(__builtin_powi((double)a[i], 5) - __builtin_powi((double)b[i], -2) +
                     __builtin_powi((double)a[i], idx[i] % 9 - 4));
}
KERNEL(private_fold) {
  /* A private array per iteration indexed alike in all: laid out element-major. */
  int m = 8 + (n & 7);
#pragma omp simd
  for (int i = 0; i < n; i++) {
    float v[16];
    for (int k = 0; k < m; k++) v[k] = a[i] * (float)k + b[i];
    for (int s = m - 1; s > 0; s--)
      for (int k = 0; k < s; k++) v[k] = 0.5f * v[k] + v[k + 1];
    out[i] = v[0];
  }
}
KERNEL(private_histogram) {
  /* Indexed per iteration: gathers and scatters into the private array. */
#pragma omp simd
  for (int i = 0; i < n; i++) {
    int h[4] = {0, 0, 0, 0};
    for (int k = 0; k < 6 + (n & 1); k++) h[(idx[i] + k * i) & 3] += k;
    iout[i] = h[0] * 1000 + h[1] * 100 + h[2] * 10 + h[3];
  }
}

/* --- early exits of the parallel loop itself (`break` needs `assume_safety`: clang
 * rejects it in `omp simd` loops) --- */
KERNEL(first_above) {
  int i;
#pragma clang loop vectorize(assume_safety)
  for (i = 0; i < n; i++)
    if (a[i] > 3.0f) break;
  iout[0] = i;
}
KERNEL(copy_until) {
  int i;
#pragma clang loop vectorize(assume_safety)
  for (i = 0; i < n; i++) {
    if (idx[i] == 7) break;
    out[i] = a[i];
  }
  iout[0] = i;
}
