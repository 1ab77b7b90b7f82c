/* A kernel whose PLDI'18 Table 1 row is known, for tests/it/table1.rs: with `i`
 * contiguous and the rest uniform, three divergent branches (in and around the `while`
 * and the final `if`), four preserved uniform ones (`u > 2` and the `for` loop's
 * control), one uniform loop with one uniform exit, one
 * divergent loop with one divergent exit; loads: a[i] (contiguous, always), tab[u] and
 * tab[k] (uniform addresses under uniform predicates), a[a[i] & 15] (a gather under a
 * varying predicate); stores: out[i] (contiguous) and out[2 * i] (strided), both under
 * varying predicates. */
void kern(long i, const int *a, int *out, const int *tab, int m, int u) {
  int x = a[i], acc = 0;
  if (u > 2) acc = tab[u];
  for (int k = 0; k < m; k++) acc += tab[k];
  while (x > 1) { x = (x & 1) ? 3 * x + 1 : x / 2; acc++; }
  if (x == 0) out[i] = acc; else out[2 * i] = acc + a[a[i] & 15];
}
