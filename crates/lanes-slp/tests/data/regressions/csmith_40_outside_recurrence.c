/* csmith seed 40, reduced by cvise: a loop whose recurrence (the address of a local,
 * l_495 = &l_505) is defined outside it made the unroller look it up among the loop's
 * own values and panic. */
#include <stdint.h>
uint64_t g_11;
uint32_t g_512;
int func_2_p_4;
void func_2() {
  int32_t *l_495;
  for (;;) {
    int32_t l_505;
    for (; g_11; ++g_11) {
      int32_t **l_631 = &l_495;
      for (; g_512;)
        *l_495 = func_2_p_4;
      *l_631 = &l_505;
    }
  }
}
