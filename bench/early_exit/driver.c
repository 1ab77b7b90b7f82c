/* Timing driver of bench/early_exit.rs: `driver N REPS` runs each kernel REPS times over
 * N instances, taking turns in rotating order within each of RUNS runs; prints per kernel
 * `kernel NAME MS CHECKSUM` (median milliseconds, a checksum of the results). The text
 * is allocated to exactly its bytes, the rows to exactly n·m floats. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/timing.h"

void find_first_spmd(int n, const float *data, int m, const float *q, int *pos);
void ref_find_first(int n, const float *data, int m, const float *q, int *pos);
void strlen_each_spmd(int n, const unsigned char *text, const int *start, int *len);
void ref_strlen_each(int n, const unsigned char *text, const int *start, int *len);
void search_sorted_spmd(int n, const int *table, int m, const int *keys, int *pos);
void ref_search_sorted(int n, const int *table, int m, const int *keys, int *pos);

enum { RUNS = 9, KERNELS = 6, M = 64 };
static const char *names[KERNELS] = {"find_first/lanes",    "find_first/clang",
                                     "strlen/lanes",        "strlen/clang",
                                     "search_sorted/lanes", "search_sorted/clang"};
static float *data, *q;
static unsigned char *text;
static int *start, *table, *keys, *res;
static int n, reps;

static double run(int k, double *sum) {
  memset(res, 0, sizeof(int) * n);
  double t0 = now_ms();
  for (int r = 0; r < reps; r++) {
    switch (k) {
    case 0: find_first_spmd(n, data, M, q, res); break;
    case 1: ref_find_first(n, data, M, q, res); break;
    case 2: strlen_each_spmd(n, text, start, res); break;
    case 3: ref_strlen_each(n, text, start, res); break;
    case 4: search_sorted_spmd(n, table, 4 * M, keys, res); break;
    default: ref_search_sorted(n, table, 4 * M, keys, res); break;
    }
  }
  double ms = now_ms() - t0;
  double s = 0;
  for (int i = 0; i < n; i++) s += res[i] * (double)(i % 7 + 1);
  *sum = s;
  return ms;
}

int main(int argc, char **argv) {
  n = argc > 1 ? atoi(argv[1]) : 1 << 12;
  reps = argc > 2 ? atoi(argv[2]) : 100;
  unsigned seed = 99;
#define RAND() (seed = seed * 1103515245u + 12345u, seed >> 8)
  data = malloc(sizeof(float) * n * M);
  q = malloc(sizeof(float) * n);
  for (int i = 0; i < n * M; i++) data[i] = (float)(RAND() % 1000);
  for (int i = 0; i < n; i++) q[i] = 900.0f + (float)(RAND() % 120);
  start = malloc(sizeof(int) * n);
  int total = 0;
  int *lens = malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) {
    lens[i] = (int)(RAND() % 48);
    start[i] = total;
    total += lens[i] + 1;
  }
  text = malloc(total);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < lens[i]; j++) text[start[i] + j] = (unsigned char)('a' + RAND() % 26);
    text[start[i] + lens[i]] = 0;
  }
  table = malloc(sizeof(int) * 4 * M);
  for (int j = 0; j < 4 * M; j++) table[j] = 3 * j;
  keys = malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) keys[i] = (int)(RAND() % (12 * M + 8));
  res = malloc(sizeof(int) * n);
  report_rotating(KERNELS, RUNS, names, run);
  return 0;
}
