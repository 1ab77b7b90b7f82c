/* The peer of bench/early_exit.rs: the kernels as loops over the instances compiled by
 * clang-19 -O3 -march=native in one translation unit (inlined; the inner loops stay
 * scalar). */
#include "kernels.c"

void ref_find_first(int n, const float *data, int m, const float *q, int *pos) {
  for (int i = 0; i < n; i++) find_first(i, data, m, q, pos);
}
void ref_strlen_each(int n, const unsigned char *text, const int *start, int *len) {
  for (int i = 0; i < n; i++) strlen_each(i, text, start, len);
}
void ref_search_sorted(int n, const int *table, int m, const int *keys, int *pos) {
  for (int i = 0; i < n; i++) search_sorted(i, table, m, keys, pos);
}
