/* `declare simd` functions with linear parameters (constant steps, a pointer's step in
 * bytes, a negative step), a uniform aligned pointer, for tests/it/declare_simd.rs: lanes
 * defines their vector variants; GCC's vectorizer calls them from
 * vfabi_linear_caller.c. */
#pragma omp declare simd uniform(a) linear(i) aligned(a:32) notinbranch
float lin_load(const float *a, int i, float x) { return a[i] * x + 1.0f; }
#pragma omp declare simd linear(p) notinbranch
int lin_ptr(const int *p) { return *p * 3 - 1; }
#pragma omp declare simd linear(i:2) uniform(base) notinbranch
int lin_step2(int i, int base) { return base + i * i; }
#pragma omp declare simd linear(i:-1) notinbranch
int lin_down(int i, int x) { return (i & 7) ? x - i : x + i; }
