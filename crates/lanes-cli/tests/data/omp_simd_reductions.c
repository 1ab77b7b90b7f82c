/* `#pragma omp simd reduction(op: s)` for every operator of OpenMP on int, float and
 * double (tests/it/omp_simd.rs). min and max over floats reach lanes as a compare and a
 * select, && and || as a branch on the running value. Compiled a second time with
 * -DNAME(f)=ref_##f as the clang-19 reference. */
#ifndef NAME
#define NAME(f) f
#endif

int NAME(r_add)(const int *a, int n) { int s = 0;
#pragma omp simd reduction(+:s)
  for (int i = 0; i < n; i++) s += a[i];
  return s; }
int NAME(r_mul)(const int *a, int n) { int s = 1;
#pragma omp simd reduction(*:s)
  for (int i = 0; i < n; i++) s *= a[i];
  return s; }
int NAME(r_min)(const int *a, int n) { int s = 1 << 30;
#pragma omp simd reduction(min:s)
  for (int i = 0; i < n; i++) s = a[i] < s ? a[i] : s;
  return s; }
int NAME(r_max)(const int *a, int n) { int s = -(1 << 30);
#pragma omp simd reduction(max:s)
  for (int i = 0; i < n; i++) s = a[i] > s ? a[i] : s;
  return s; }
int NAME(r_and)(const int *a, int n) { int s = ~0;
#pragma omp simd reduction(&:s)
  for (int i = 0; i < n; i++) s &= a[i];
  return s; }
int NAME(r_or)(const int *a, int n) { int s = 0;
#pragma omp simd reduction(|:s)
  for (int i = 0; i < n; i++) s |= a[i];
  return s; }
int NAME(r_xor)(const int *a, int n) { int s = 0;
#pragma omp simd reduction(^:s)
  for (int i = 0; i < n; i++) s ^= a[i];
  return s; }
int NAME(r_land)(const int *a, int n) { int s = 1;
#pragma omp simd reduction(&&:s)
  for (int i = 0; i < n; i++) s = s && a[i];
  return s; }
int NAME(r_lor)(const int *a, int n) { int s = 0;
#pragma omp simd reduction(||:s)
  for (int i = 0; i < n; i++) s = s || a[i];
  return s; }
float NAME(f_add)(const float *a, int n) { float s = 0;
#pragma omp simd reduction(+:s)
  for (int i = 0; i < n; i++) s += a[i];
  return s; }
float NAME(f_mul)(const float *a, int n) { float s = 1;
#pragma omp simd reduction(*:s)
  for (int i = 0; i < n; i++) s *= a[i];
  return s; }
float NAME(f_min)(const float *a, int n) { float s = 1e30f;
#pragma omp simd reduction(min:s)
  for (int i = 0; i < n; i++) s = a[i] < s ? a[i] : s;
  return s; }
double NAME(d_max)(const double *a, int n) { double s = -1e300;
#pragma omp simd reduction(max:s)
  for (int i = 0; i < n; i++) s = a[i] > s ? a[i] : s;
  return s; }
