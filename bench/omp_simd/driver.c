// Times the kernels of kernels.c (linked from one compiler's object) and prints one
// line per kernel: `kernel NAME MEDIAN_MS CHECKSUM`. The math kernels' checksums are sums
// of magnitudes (libmvec is accurate to a few ulp, not correctly rounded, so they are
// compared with a relative tolerance that cancellation cannot defeat).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void saxpy(int n, float a, const float *x, float *y);
float dot(int n, const float *x, const float *y);
int count_above(int n, const float *x, float t);
void halve_until(int n, float *y, float lo);
void mandel(int w, int h, float x0, float y0, float dx, float dy, int max_iter, int *out);
void lower_bounds(int n, const int *queries, const int *table, int len, int *pos);
void collatz_steps(int n, const int *x, int *steps);
void gauss_sin(int n, const float *x, float *y);
void log_cos(int n, const double *x, double *y);

#define N (1 << 20)
#define RUNS 7
static float fx[N], fy[N], fy0[N], fd[N];
static int ix[N], iy[N], table[1 << 16];
static float fm[N];
static double dm[N], dy[N];
static volatile double sink;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static int cmp_i(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
static double isum(const int *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * (double)(i % 7 + 1);
  return s;
}
static double fabs_sum(const float *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] < 0 ? -(double)a[i] : a[i];
  return s;
}
static double dabs_sum(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] < 0 ? -a[i] : a[i];
  return s;
}
static double fsum(const float *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * (double)(i % 7 + 1);
  return s;
}

#define TIME(name, reset, call, check)                                                   \
  do {                                                                                   \
    double t[RUNS], c = 0;                                                               \
    for (int r = 0; r < RUNS; r++) {                                                     \
      reset;                                                                             \
      double t0 = now();                                                                 \
      call;                                                                              \
      t[r] = now() - t0;                                                                 \
      c = check;                                                                         \
    }                                                                                    \
    qsort(t, RUNS, sizeof t[0], cmp_d);                                                  \
    printf("kernel %s %.4f %.17g\n", name, t[RUNS / 2], c);                              \
  } while (0)

int main(void) {
  srand(42);
  for (int i = 0; i < N; i++) {
    fx[i] = (float)(rand() % 256 - 64) / 4.0f;
    fd[i] = (float)(rand() % 5 - 2) / 2.0f; // dot products stay exact in any order
    fy0[i] = (float)(rand() % 4096) * 1.5f;
    ix[i] = rand() % 100000 + 1;
    fm[i] = (float)rand() / (float)RAND_MAX * 8.0f - 4.0f;
    dm[i] = (double)rand() / RAND_MAX * 200.0 - 100.0;
  }
  for (int i = 0; i < (1 << 16); i++) table[i] = rand() % 100000;
  qsort(table, 1 << 16, sizeof(int), cmp_i);
  float d = 0;
  int c = 0;
  TIME("saxpy", memcpy(fy, fy0, sizeof fy), saxpy(N, 0.5f, fx, fy), fsum(fy, N));
  TIME("dot", (void)0, d = dot(N, fd, fd), d);
  TIME("count_above", (void)0, c = count_above(N, fx, 3.0f), c);
  TIME("halve_until", memcpy(fy, fy0, sizeof fy), halve_until(N, fy, 1.0f), fsum(fy, N));
  TIME("mandelbrot", (void)0, mandel(1024, 768, -2.0f, -1.2f, 3.0f / 1024, 2.4f / 768, 256, iy),
       isum(iy, 1024 * 768));
  TIME("lower_bounds", (void)0, lower_bounds(N, ix, table, 1 << 16, iy), isum(iy, N));
  TIME("collatz", (void)0, collatz_steps(N / 4, ix, iy), isum(iy, N / 4));
  TIME("gauss_sin", (void)0, gauss_sin(N, fm, fy), fabs_sum(fy, N));
  TIME("log_cos", (void)0, log_cos(N, dm, dy), dabs_sum(dy, N));
  sink = d + c;
  return 0;
}
