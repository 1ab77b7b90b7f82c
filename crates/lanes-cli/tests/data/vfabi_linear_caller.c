/* Loops whose calls GCC's vectorizer turns into calls of the `declare simd` variants of
 * vfabi_linear_callee.c (defined by lanes): linear parameters are passed as lane 0's
 * value, uniform ones as scalars, the others as vectors. */
#pragma omp declare simd uniform(a) linear(i) aligned(a:32) notinbranch
float lin_load(const float *a, int i, float x);
#pragma omp declare simd linear(p) notinbranch
int lin_ptr(const int *p);
#pragma omp declare simd linear(i:2) uniform(base) notinbranch
int lin_step2(int i, int base);
#pragma omp declare simd linear(i:-1) notinbranch
int lin_down(int i, int x);
void loops(const float *__restrict a, float *__restrict y, const int *__restrict p, int *__restrict q, int n) {
#pragma omp simd aligned(a:32)
  for (int i = 0; i < n; i++) y[i] = lin_load(a, i, y[i]);
#pragma omp simd
  for (int i = 0; i < n; i++) q[i] = lin_ptr(&p[i]);
#pragma omp simd
  for (int i = 0; i < n; i++) q[i] += lin_step2(2 * i, 5);
#pragma omp simd
  for (int i = 0; i < n; i++) q[i] += lin_down(n - i, q[i]);
}
