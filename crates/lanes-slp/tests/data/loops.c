/* Sibling loops for fusion and co-iteration; each function says what must happen. */

/* PLDI'22 Fig. 2: two searches that stop at different iterations: co-iterated. */
void two_searches(const int *restrict hay, const int *restrict needles, int *restrict idx, int n) {
  for (int i = 0; i < n; i++)
    if (hay[i] == needles[0]) { idx[0] = i; break; }
  for (int i = 0; i < n; i++)
    if (hay[i] == needles[1]) { idx[1] = i; break; }
}

/* The same iterations over different arrays: fused. */
void same_trips(float *restrict a, float *restrict b, const float *restrict c, int n) {
  for (int i = 0; i < n; i++) a[i] = c[i] * 2.0f;
  for (int i = 0; i < n; i++) b[i] = c[i] + 1.0f;
}

/* Different bounds, sums read after the loops: co-iterated, the sums held. */
int two_sums(const int *restrict a, const int *restrict b, int n, int m) {
  int s = 0, t = 0;
  for (int i = 0; i < n; i++) s += a[i];
  for (int j = 0; j < m; j++) t += b[j] * 3;
  return s * 7 + t;
}

/* The second loop reads what the first writes: not independent, left alone. */
void dependent(int *restrict a, int *restrict b, int n) {
  for (int i = 0; i < n; i++) a[i] = i * 3;
  for (int i = 0; i < n; i++) b[i] = a[n - 1 - i] + 1;
}

/* Loops under different conditions, with a store between them that moves. */
void guarded(int *restrict a, int *restrict b, int *restrict c, int n, int f) {
  if (f > 3)
    for (int i = 0; i < n; i++) a[i] = i + f;
  c[0] = f;
  if (f < 10)
    for (int i = 0; i < n + 2; i++) b[i] = i * f;
}
