// Checks the kernels of two_index_kernels.c, compiled by `lanes compile`, against the
// same accesses done here one element at a time. A buffer of 2 GiB + 1 MiB (reserved,
// touched only where used) holds marks near its start and past 2 GiB; some lanes' two
// indices sum past INT_MAX (the 64-bit path), inactive lanes get indices that would fault
// under either address, and trip counts 0…67 leave the elements past n untouched. Prints
// the mismatches and exits non-zero on any.
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

void k_gather_bytes(int, const char *, const int *, const int *, char *);
void k_gather_bytes_if(int, const char *, const int *, const int *, const int *, char *);
void k_scatter_bytes_if(int, char *, const int *, const int *, const int *, const char *);
void k_gather_rows(int, const float *, const int *, const int *, float *);

#define N 96
#define HIGH ((size_t)INT_MAX + 1)
#define SIZE (HIGH + (1u << 20))

static char *buf;
static int a[N], b[N], on[N];
static char out[N], v[N];
static long mismatches;

static uint64_t state = 42;
static unsigned next(void) {
  state = state * 6364136223846793005u + 1442695040888963407u;
  return (unsigned)(state >> 33);
}

// Lane i: offsets within the first MiB, or (every fifth lane) `a` near INT_MAX and `b`
// taking the sum past it, to a byte in the last MiB. Off lanes: INT_MAX twice.
static void fill(void) {
  for (int i = 0; i < N; i++) {
    on[i] = next() % 3 != 0;
    if (i % 5 == 2) {
      a[i] = INT_MAX - (int)(next() % 4096);
      b[i] = (int)(HIGH - (size_t)a[i]) + (int)(next() % 4096);
    } else {
      a[i] = 1000 + (int)(next() % 65536);
      b[i] = (int)(next() % 65536) - 1000;
    }
    if (!on[i]) a[i] = b[i] = INT_MAX;
    v[i] = (char)next();
  }
}

static size_t offset(int i) { return (size_t)((int64_t)a[i] + b[i]); }

int main(void) {
  buf = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
             -1, 0);
  if (buf == MAP_FAILED) {
    printf("two_index: cannot map 2 GiB; skipped\n");
    return 0;
  }
  for (size_t k = 0; k < (1u << 17); k++) buf[k] = (char)(k * 7 + 1);
  for (size_t k = HIGH - 4096; k < HIGH + 8192; k++) buf[k] = (char)(k * 13 + 5);
  for (int n = 0; n <= 67; n++) {
    fill();
    for (int unmasked = 0; unmasked < 2; unmasked++) {
      memset(out, 0x55, sizeof out);
      if (unmasked) {
        for (int i = 0; i < N; i++)
          if (!on[i]) a[i] = b[i] = 0;
        k_gather_bytes(n, buf, a, b, out);
      } else {
        k_gather_bytes_if(n, buf, a, b, on, out);
      }
      for (int i = 0; i < N; i++) {
        char want = i < n && (unmasked || on[i]) ? buf[offset(i)] : 0x55;
        if (out[i] != want && mismatches++ < 10)
          printf("  gather%s: n=%d i=%d a=%d b=%d got %d want %d\n", unmasked ? "" : "_if", n,
                 i, a[i], b[i], out[i], want);
      }
    }
    fill();
    char before[N];
    for (int i = 0; i < N; i++) before[i] = on[i] ? buf[offset(i)] : 0;
    k_scatter_bytes_if(n, buf, a, b, on, v);
    for (int i = 0; i < N; i++) {
      if (!on[i]) continue;
      // A later lane writing the same byte wins, as in the scalar loop.
      char want = before[i];
      for (int j = 0; j < n; j++)
        if (on[j] && offset(j) == offset(i)) want = v[j];
      if (buf[offset(i)] != want && mismatches++ < 10)
        printf("  scatter_if: n=%d i=%d got %d want %d\n", n, i, buf[offset(i)], want);
    }
  }
  static float grid[1 << 16], fout[N];
  static int row[N], col[N];
  for (int k = 0; k < (1 << 16); k++) grid[k] = (float)(k % 1000) * 0.5f;
  for (int n = 0; n <= 67; n++) {
    for (int i = 0; i < N; i++) {
      row[i] = (int)(next() % 256) * 256;
      col[i] = (int)(next() % 255);
      fout[i] = -1.0f;
    }
    k_gather_rows(n, grid, row, col, fout);
    for (int i = 0; i < N; i++) {
      float want = i < n ? grid[row[i] + col[i]] + 2.0f * grid[row[i] + col[i] + 1] : -1.0f;
      if (fout[i] != want && mismatches++ < 10)
        printf("  gather_rows: n=%d i=%d got %g want %g\n", n, i, fout[i], want);
    }
  }
  printf("two_index: %ld mismatches\n", mismatches);
  return mismatches != 0;
}
