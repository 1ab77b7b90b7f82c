/* The TSVC loop of PLDI'22 Fig. 16: per column a guard and a loop down the column with a
 * recurrence along it. LLVM vectorizes neither loop; unrolling the outer loop and
 * fusing the inner loops' copies under their guards packs adjacent columns. The size is
 * TSVC's fixed LEN2. */
#include "slp.h"
#define LEN2 256
void KERNEL(float aa[restrict LEN2][LEN2], float bb[restrict LEN2][LEN2],
            float cc[restrict LEN2][LEN2]) {
  for (int i = 0; i < LEN2; i++)
    if (aa[0][i] > (float)0.)
      for (int j = 1; j < LEN2; j++) aa[j][i] = aa[j - 1][i] + bb[j][i] * cc[j][i];
}
#define SLP_REPS 20
#define SLP_CALL(fn, m)                                                                  \
  ((void (*)(float (*)[LEN2], float (*)[LEN2], float (*)[LEN2]))fn)(                      \
      (float (*)[LEN2])C, (float (*)[LEN2])B0, (float (*)[LEN2])A)
#include "slp2d.h"
