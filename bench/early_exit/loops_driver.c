/* Timing driver of the parallel-loop part of bench/early_exit.rs: `loops_driver N REPS`
 * runs find_above, bounded_strlen and search built by lanes and by clang (ref_), REPS
 * sweeps each, in rotating order within RUNS runs; prints `kernel NAME MS CHECKSUM` per
 * build (median milliseconds, a checksum of the results). Each sweep makes Q calls whose
 * exits fall at seeded positions spread over 0..N; the strings' text is allocated to
 * exactly its bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/timing.h"

int find_above(int n, const float *a, float q);
int ref_find_above(int n, const float *a, float q);
int bounded_strlen(int n, const char *s);
int ref_bounded_strlen(int n, const char *s);
int search(int n, const int *a, int key);
int ref_search(int n, const int *a, int key);

enum { RUNS = 9, KERNELS = 6, Q = 64 };
static const char *names[KERNELS] = {"find_above/lanes", "find_above/clang",
                                     "strlen/lanes",     "strlen/clang",
                                     "search/lanes",     "search/clang"};
static float *sorted, qs[Q];
static char *text;
static int *perm, starts[Q], keys[Q];
static int n, reps;

static double run(int k, double *sum) {
  double s = 0;
  double t0 = now_ms();
  for (int r = 0; r < reps; r++)
    for (int j = 0; j < Q; j++) {
      int x;
      switch (k) {
      case 0: x = find_above(n, sorted, qs[j]); break;
      case 1: x = ref_find_above(n, sorted, qs[j]); break;
      case 2: x = bounded_strlen(1 << 30, text + starts[j]); break;
      case 3: x = ref_bounded_strlen(1 << 30, text + starts[j]); break;
      case 4: x = search(n, perm, keys[j]); break;
      default: x = ref_search(n, perm, keys[j]); break;
      }
      s += (double)x * (j % 7 + 1);
    }
  *sum = s;
  return now_ms() - t0;
}

int main(int argc, char **argv) {
  n = argc > 1 ? atoi(argv[1]) : 1 << 16;
  reps = argc > 2 ? atoi(argv[2]) : 10;
  unsigned seed = 7;
#define RAND() (seed = seed * 1103515245u + 12345u, seed >> 8)
  sorted = malloc(sizeof(float) * n);
  for (int i = 0; i < n; i++) sorted[i] = (float)i;
  for (int j = 0; j < Q; j++) qs[j] = (float)(RAND() % n);
  perm = malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) perm[i] = (int)(((long)i * 40503) % n);
  for (int j = 0; j < Q; j++) keys[j] = (int)(RAND() % n);
  int total = 0, lens[Q];
  for (int j = 0; j < Q; j++) {
    lens[j] = (int)(RAND() % (unsigned)n);
    starts[j] = total;
    total += lens[j] + 1;
  }
  text = malloc(total);
  for (int j = 0; j < Q; j++) {
    memset(text + starts[j], 'a' + j % 26, lens[j]);
    text[starts[j] + lens[j]] = 0;
  }
  report_rotating(KERNELS, RUNS, names, run);
  return 0;
}
