/* A jump into the middle of a loop: a cycle with two entries (irreducible control flow), which
 * partial linearization declines with the cycle's source lines; `--linearize reconverge` takes it. */
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
