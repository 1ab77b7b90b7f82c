/* A file with constructs lanes IR cannot express next to a kernel it can (for
 * tests/it/vectorize.rs): the kernel vectorizes; the others are refused, each with the
 * construct and its line. */
int g = 5;
int *gp = &g; /* an initializer holding an address */

int use_gp(int i) { return *gp + i; }

__attribute__((noinline)) int fenced(int i) {
  __asm__ volatile("" ::: "memory");
  return i;
}

int calls_fenced(int i) { return fenced(i) + 1; }

void saxpy(int i, float a, const float *x, float *y) { y[i] = a * x[i] + y[i]; }
