/* Early-exit loops of each instance, for bench/early_exit.rs: every instance runs its own
 * search and leaves it at its own iteration (PLDI'18 §5, the divergent loop transform:
 * a lane that left is masked off until all have). clang's loop vectorizer takes none of
 * these inner loops (an exit that depends on the data). */

/* The first element of row i (m floats) above q[i], or -1: find-first. */
void find_first(int i, const float *data, int m, const float *q, int *pos) {
  const float *row = data + (long)i * m;
  int found = -1;
  for (int j = 0; j < m; j++)
    if (row[j] > q[i]) {
      found = j;
      break;
    }
  pos[i] = found;
}

/* The length of string i of a text (`start[i]` its first byte): strlen. */
void strlen_each(int i, const unsigned char *text, const int *start, int *len) {
  const unsigned char *s = text + start[i];
  int n = 0;
  while (s[n]) n++;
  len[i] = n;
}

/* The position of the first table entry not below keys[i] (a sorted table of m ints,
 * searched linearly): a search loop with a `return`-like exit. */
void search_sorted(int i, const int *table, int m, const int *keys, int *pos) {
  int j = 0;
  while (j < m && table[j] < keys[i]) j++;
  pos[i] = j;
}
