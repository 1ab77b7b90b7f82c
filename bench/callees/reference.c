/* The peer of bench/callees.rs: the kernels as plain loops, compiled by clang-19 -O3
 * -march=native in one translation unit with kernels.c (LLVM's loop and SLP vectorizers
 * on; the `noinline` helpers stay calls, as in the lanes builds). */
#include "kernels.c"

void ref_steps_call(int n, const int *in, int *out) {
  for (int i = 0; i < n; i++) steps_call(i, in, out);
}
void ref_steps_inline(int n, const int *in, int *out) {
  for (int i = 0; i < n; i++) steps_inline(i, in, out);
}
void ref_shade_call(int n, const float *x, float *y, float k) {
  for (int i = 0; i < n; i++) shade_call(i, x, y, k);
}
void ref_shade_inline(int n, const float *x, float *y, float k) {
  for (int i = 0; i < n; i++) shade_inline(i, x, y, k);
}
void ref_axpy_call(int n, const float *x, float *y, float a) {
  for (int i = 0; i < n; i++) axpy_call(i, x, y, a);
}
void ref_axpy_inline(int n, const float *x, float *y, float a) {
  for (int i = 0; i < n; i++) axpy_inline(i, x, y, a);
}
