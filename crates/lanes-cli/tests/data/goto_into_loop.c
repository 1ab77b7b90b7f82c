/* A jump into the middle of a loop: a cycle with two entries (irreducible control flow),
 * which lanes' linearization declines with the cycle's source lines. */
void goto_into_loop(long i, const int *a, int *out, int n) {
  int x = a[i], k = 0;
  if (x & 1) goto inside;
  while (k < n) {
    x = x * 3 + 1;
  inside:
    x ^= k;
    k++;
  }
  out[i] = x;
}
