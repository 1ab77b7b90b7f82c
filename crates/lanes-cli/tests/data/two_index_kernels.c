// Accesses at `base + a[i] + b[i]` with two varying `int` indices: lanes gathers and
// scatters with one 32-bit index `a + b` where no active lane's sum overflows, else with
// the 64-bit address (export/two_index.rs). Driven by two_index_driver.c.

// Bytes: the offsets reach past 2 GiB, where `a + b` leaves `int`.
void k_gather_bytes(int n, const char *buf, const int *a, const int *b, char *out) {
#pragma omp simd
  for (int i = 0; i < n; i++) out[i] = (buf + a[i])[b[i]];
}

// Only where `on[i]`: the other lanes' indices point anywhere and must not be read.
void k_gather_bytes_if(int n, const char *buf, const int *a, const int *b, const int *on,
                       char *out) {
#pragma omp simd
  for (int i = 0; i < n; i++)
    if (on[i]) out[i] = (buf + a[i])[b[i]];
}

void k_scatter_bytes_if(int n, char *buf, const int *a, const int *b, const int *on,
                        const char *v) {
#pragma omp simd
  for (int i = 0; i < n; i++)
    if (on[i]) (buf + a[i])[b[i]] = v[i];
}

// Floats, a row then a column, with a uniform offset on the way (`+ 1`).
void k_gather_rows(int n, const float *grid, const int *row, const int *col, float *out) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    const float *r = grid + row[i];
    out[i] = r[col[i]] + 2.0f * r[col[i] + 1];
  }
}
