/* Parallel loops that the loop itself leaves early, for bench/early_exit.rs: find-first,
 * a bounded strlen and a search, written as plain C loops with
 * `#pragma clang loop vectorize(assume_safety)` (clang rejects `break` in `omp simd`
 * loops). lanes compiles them with a probe of the exit test that reads ahead only within
 * pages the loop reads (PLDI'18 §7 with early exits); clang-19 builds the same file under
 * `-DNAME(f)=ref_##f` as the peer (LLVM 19's loop vectorizer leaves data-dependent exits
 * scalar). */
#ifndef NAME
#define NAME(f) f
#endif

/* The first index whose element is above q (n if none). */
int NAME(find_above)(int n, const float *a, float q) {
  int i;
#pragma clang loop vectorize(assume_safety)
  for (i = 0; i < n; i++)
    if (a[i] > q)
      break;
  return i;
}

/* strlen with a bound far past every string. */
int NAME(bounded_strlen)(int n, const char *s) {
  int i;
#pragma clang loop vectorize(assume_safety)
  for (i = 0; i < n; i++)
    if (s[i] == 0)
      break;
  return i;
}

/* The index of key in a (unsorted), or -1: a `return` from the loop. */
int NAME(search)(int n, const int *a, int key) {
#pragma clang loop vectorize(assume_safety)
  for (int i = 0; i < n; i++)
    if (a[i] == key)
      return i;
  return -1;
}
