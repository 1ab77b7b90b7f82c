/* Compares the launchers of struct_by_value.c (lanes) with the scalar functions (clang,
 * ref_*) for n = 0..40; prints the number of mismatches. */
#include <stdio.h>
struct pair { float x, y; };
struct mixed { int a; float b; double c; };
void affine_spmd(int n, struct pair p, float *out);
void ref_affine(int i, struct pair p, float *out);
void mixed_sum_spmd(int n, struct mixed q, double *out);
void ref_mixed_sum(int i, struct mixed q, double *out);
int main(void) {
  float f1[64], f2[64];
  double d1[64], d2[64];
  int bad = 0;
  struct pair p = {1.5f, -2.25f};
  struct mixed q = {3, 0.5f, -1.75};
  for (int n = 0; n <= 40; n++) {
    for (int i = 0; i < 64; i++) f1[i] = f2[i] = d1[i] = d2[i] = -1;
    affine_spmd(n, p, f1);
    mixed_sum_spmd(n, q, d1);
    for (int i = 0; i < n; i++) { ref_affine(i, p, f2); ref_mixed_sum(i, q, d2); }
    for (int i = 0; i < 64; i++) bad += f1[i] != f2[i] || d1[i] != d2[i];
  }
  printf("mismatches %d\n", bad);
  return bad != 0;
}
