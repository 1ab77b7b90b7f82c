/* Every construct the "Real C in" list names lanes IR lacks: each function holding one stays LLVM IR. */
#include <stdio.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <complex.h>
_Thread_local int tl = 5;
extern int ext_g;
int ext_g = 2;
static int (*fp)(int) = 0;
struct s12 { int a, b, c; };
struct s12 mk(int x) { struct s12 r = { x, x + 1, x + 2 }; return r; }
struct bf { int a : 24; int b : 8; };
int bits(struct bf *p) { return p->a + p->b; }
int sq(int x) { return x * x; }
long double ld(long double x) { return x * 2; }
__int128 wide(__int128 a) { return a * 3; }
double _Complex cx(double _Complex z) { return z * z; }
int vla(int n) { int a[n]; for (int i = 0; i < n; i++) a[i] = i; return a[n - 1]; }
_Atomic int at = 0;
int inc(void) { return atomic_fetch_add(&at, 2); }
int asmf(int x) { int y; __asm__("mov %1, %0" : "=r"(y) : "r"(x)); return y; }
int cgoto(int k) { static void *t[] = { &&a, &&b }; goto *t[k & 1]; a: return 10; b: return 20; }
int sum(int n, ...) { va_list ap; va_start(ap, n); int s = 0; for (int i = 0; i < n; i++) s += va_arg(ap, int); va_end(ap); return s; }
jmp_buf jb;
int sj(void) { volatile int r = 0; if (setjmp(jb) == 0) { r = 1; longjmp(jb, 1); } return r + 1; }
int main(void) {
  fp = sq;
  struct bf b = { 100, 3 };
  struct s12 m = mk(4);
  printf("%d %d %d %d %d %d %d %d %d %d %d %d %d\n", tl, ext_g, fp(7), m.c, bits(&b), (int)ld(2.5L), (int)wide(5),
         (int)creal(cx(2.0 + 1.0 * I)), vla(6), inc() + inc(), asmf(9), cgoto(3), sum(3, 1, 2, 3) + sj());
  return 0;
}
