// Compares the loops of corpus/omp_simd/loops.c compiled by `lanes compile
// -fopenmp-simd` (outer-loop vectorized) with the same source compiled by clang-19
// (included below under ref_ names, pragmas ignored), byte for byte, on random inputs
// for trip counts around multiples of every vector width. Prints the totals.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define saxpy ref_saxpy
#define halve_until ref_halve_until
#define dot ref_dot
#define sum_above ref_sum_above
#define min_max_spread ref_min_max_spread
#define checksum ref_checksum
#define last_scaled ref_last_scaled
#define reverse_copy ref_reverse_copy
#define window ref_window
#define mandel_row ref_mandel_row
#define lower_bounds ref_lower_bounds
#define row_means ref_row_means
#define strided ref_strided
#define sums ref_sums
#define guarded_div ref_guarded_div
#define collatz_steps ref_collatz_steps
#define first_negative ref_first_negative
#define shift_by_one ref_shift_by_one
#define carried_scan ref_carried_scan
#define prefix ref_prefix
#define pick ref_pick
#define row_sum ref_row_sum
#define first_big_double ref_first_big_double
#define copy_through_negative ref_copy_through_negative
#define copy_through_negative_aliased ref_copy_through_negative_aliased
#define bounded_strlen ref_bounded_strlen
#define two_exits ref_two_exits
#include "loops.c"
#undef saxpy
#undef halve_until
#undef dot
#undef sum_above
#undef min_max_spread
#undef checksum
#undef last_scaled
#undef reverse_copy
#undef window
#undef mandel_row
#undef lower_bounds
#undef row_means
#undef strided
#undef sums
#undef guarded_div
#undef collatz_steps
#undef first_negative
#undef shift_by_one
#undef carried_scan
#undef prefix
#undef pick
#undef row_sum
#undef first_big_double
#undef copy_through_negative
#undef copy_through_negative_aliased
#undef bounded_strlen
#undef two_exits

void saxpy(int n, float a, const float *x, float *y);
void halve_until(long n, float *y, float lo);
float dot(int n, const float *x, const float *y);
int sum_above(int n, const int *x, int t);
int min_max_spread(int n, const int *x);
unsigned checksum(unsigned n, const unsigned *x);
float last_scaled(int n, const float *x, float *y);
void reverse_copy(int n, const int *x, int *y);
void window(unsigned lo, unsigned hi, int *y);
void mandel_row(int width, float y0, float x0, float dx, int max_iter, int *out);
void lower_bounds(int n, const int *queries, const int *table, int len, int *pos);
void row_means(int rows, int cols, const int *a, int *mean);
void strided(long n, const double *x, double *y);
int sums(int n, const int *x, int *sq);
void guarded_div(int n, const int *x, int *y);
void collatz_steps(int n, const int *x, int *steps);
int first_negative(int n, const int *x);
void shift_by_one(int n, const int *x, int *y);
void carried_scan(int n, const int *x, int *y);
void prefix(int n, int *x);
void pick(int n, const int *x, int *y);
int row_sum(const int *a, int m, int r);
int first_big_double(int n, const float *x, float limit, float *out);
int copy_through_negative(int n, const int *restrict x, int *restrict y);
int copy_through_negative_aliased(int n, const int *x, int *y);
int bounded_strlen(int n, const char *s);
int two_exits(int n, const int *x, const int *idx);

#define ELEMS 40000
static int ia[ELEMS], ib[ELEMS], ic[ELEMS], ja[ELEMS], jb[ELEMS], jc[ELEMS];
static float fa[ELEMS], fb[ELEMS], ga[ELEMS], gb[ELEMS];
static double da[ELEMS], db[ELEMS], ea[ELEMS], eb[ELEMS];
// Early exits far in: rare negatives, rare zero bytes.
static int ra[ELEMS], rb[ELEMS], rc[ELEMS], rd[ELEMS];
static char sa[ELEMS];
static long calls, mismatches;

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

// Fresh random inputs, the same for both sides (ints -4..31, floats quarter-integers:
// reductions in any order are exact).
static void fill(unsigned seed) {
  srand(seed);
  for (int i = 0; i < ELEMS; i++) {
    ia[i] = ja[i] = rand() % 36 - 4;
    ib[i] = jb[i] = rand() % 36 - 4;
    ic[i] = jc[i] = rand() % 36 - 4;
    fa[i] = ga[i] = (float)(rand() % 64 - 16) / 4.0f;
    fb[i] = gb[i] = (float)(rand() % 64 - 16) / 4.0f;
    da[i] = ea[i] = (double)(rand() % 64 - 16) / 4.0;
    db[i] = eb[i] = (double)(rand() % 64 - 16) / 4.0;
    ra[i] = rb[i] = rand() % 400 == 0 ? -1 : rand() % 1000;
    rc[i] = rd[i] = 0;
    sa[i] = (char)(rand() % 60 == 0 ? 0 : 1 + rand() % 120);
  }
  qsort(ib, ELEMS, sizeof(int), cmp_int);
  memcpy(jb, ib, sizeof ib);
}

static void check(const char *name, int n, int same) {
  calls++;
  same = same && !memcmp(ia, ja, sizeof ia) && !memcmp(ib, jb, sizeof ib) &&
         !memcmp(ic, jc, sizeof ic) && !memcmp(fa, ga, sizeof fa) &&
         !memcmp(fb, gb, sizeof fb) && !memcmp(da, ea, sizeof da) && !memcmp(db, eb, sizeof db) &&
         !memcmp(ra, rb, sizeof ra) && !memcmp(rc, rd, sizeof rc);
  if (!same) {
    mismatches++;
    if (mismatches < 10)
      printf("MISMATCH %s n=%d\n", name, n);
  }
}

// Data that ends right before an inaccessible page, with a trip bound far past it: the
// vector loops read ahead of the exit only on pages the loop itself reads, or this
// faults.
static int guard_page_misses(void) {
  long pg = sysconf(_SC_PAGESIZE);
  char *m = mmap(0, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED || mprotect(m + pg, pg, PROT_NONE))
    return 1000;
  int misses = 0;
  for (int len = 0; len < 70; len++) {
    char *s = m + pg - len - 1;
    memset(s, 'x', len);
    s[len] = 0;
    misses += bounded_strlen(1 << 30, s) != len;
    int *x = (int *)(m + pg) - len - 1;
    for (int k = 0; k < len; k++)
      x[k] = k;
    x[len] = -1;
    misses += first_negative(1 << 30, x) != len;
  }
  munmap(m, 2 * pg);
  return misses;
}

int main(void) {
  static const int counts[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 61, 100, 1000, 2047};
  for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; c++) {
    for (unsigned seed = 1; seed <= 3; seed++) {
      int n = counts[c];
      fill(seed * 7919 + c);
      float a = (float)(seed % 5) - 2.0f, lo = (float)(seed % 3);
      int t = (int)(seed * 5 % 17), small = (int)(seed * 3 % 9);
      ref_saxpy(n, a, fa, fb); saxpy(n, a, ga, gb); check("saxpy", n, 1);
      ref_halve_until(n, fa, lo); halve_until(n, ga, lo); check("halve_until", n, 1);
      { float r = ref_dot(n, fa, fb), l = dot(n, ga, gb); check("dot", n, r == l); }
      { int r = ref_sum_above(n, ia, t), l = sum_above(n, ja, t); check("sum_above", n, r == l); }
      { int r = ref_min_max_spread(n, ia), l = min_max_spread(n, ja); check("min_max_spread", n, r == l); }
      { unsigned r = ref_checksum(n, (unsigned *)ia), l = checksum(n, (unsigned *)ja); check("checksum", n, r == l); }
      { float r = ref_last_scaled(n, fa, fb), l = last_scaled(n, ga, gb); check("last_scaled", n, r == l); }
      ref_reverse_copy(n, ia, ic); reverse_copy(n, ja, jc); check("reverse_copy", n, 1);
      ref_window(small, n, ic); window(small, n, jc); check("window", n, 1);
      ref_mandel_row(n, a / 2, -2.0f, 2.5f / 64, 40 + small, ic);
      mandel_row(n, a / 2, -2.0f, 2.5f / 64, 40 + small, jc); check("mandel_row", n, 1);
      ref_lower_bounds(n, ia, ib, 9000, ic); lower_bounds(n, ja, jb, 9000, jc); check("lower_bounds", n, 1);
      ref_row_means(n < 2047 ? n : 2047, small, ia, ic); row_means(n < 2047 ? n : 2047, small, ja, jc); check("row_means", n, 1);
      ref_strided(n, da, db); strided(n, ea, eb); check("strided", n, 1);
      { int r = ref_sums(n, ia, ic), l = sums(n, ja, jc); check("sums", n, r == l); }
      ref_guarded_div(n, ia, ic); guarded_div(n, ja, jc); check("guarded_div", n, 1);
      ref_collatz_steps(n, ia, ic); collatz_steps(n, ja, jc); check("collatz_steps", n, 1);
      { int r = ref_first_negative(n, ia), l = first_negative(n, ja); check("first_negative", n, r == l); }
      ref_shift_by_one(n, ia, ic); shift_by_one(n, ja, jc); check("shift_by_one", n, 1);
      ref_carried_scan(n, ia, ic); carried_scan(n, ja, jc); check("carried_scan", n, 1);
      ref_prefix(n, ic); prefix(n, jc); check("prefix", n, 1);
      ref_pick(n, ia, ic); pick(n, ja, jc); check("pick", n, 1);
      { float o1 = 0, o2 = 0;
        int r = ref_first_big_double(n, fa, 7.0f + lo, &o1), l = first_big_double(n, ga, 7.0f + lo, &o2);
        check("first_big_double", n, r == l && o1 == o2); }
      { int r = ref_copy_through_negative(n, ra, rc), l = copy_through_negative(n, rb, rd); check("copy_through_negative", n, r == l); }
      { int r = ref_copy_through_negative_aliased(n, ra, rc), l = copy_through_negative_aliased(n, rb, rd); check("copy_through_negative_aliased", n, r == l); }
      { int r = ref_bounded_strlen(n, sa), l = bounded_strlen(n, sa); check("bounded_strlen", n, r == l); }
      { int r = ref_two_exits(n, ra, ia), l = two_exits(n, rb, ja); check("two_exits", n, r == l); }
      { int r = ref_row_sum(ia, n < 1000 ? n : 1000, small), l = row_sum(ja, n < 1000 ? n : 1000, small); check("row_sum", n, r == l); }
    }
  }
  printf("omp simd loops: %ld calls, %ld mismatches\n", calls, mismatches);
  int guard = guard_page_misses();
  printf("early exits before a guard page: %d misses\n", guard);
  return mismatches != 0 || guard != 0;
}
