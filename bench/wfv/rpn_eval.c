/* Evaluation of one postfix expression on many data points, as genetic programming
 * scores a candidate expression tree on its fitness cases: the program is the same for
 * every instance, so the operator `switch` and the private stack's pointer are uniform,
 * and only the values on the stack differ. With the stack laid out element-major across
 * lanes, every push and pop is one vector store or load. */
#include <math.h>
#include "wfv.h"

enum { OP_X, OP_Y, OP_CONST, OP_NEG, OP_SQUARE, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MIN, OP_MAX };
enum { RPN_STACK = 32 };

void KERNEL(long i, const float *xs, const float *ys, float *out, const int *code,
            const float *consts, int length) {
  float stack[RPN_STACK];
  int sp = 0;
  float x = xs[i], y = ys[i];
  for (int pc = 0; pc < length; pc++) {
    int op = code[pc];
    if (op <= OP_CONST) {
      stack[sp++] = op == OP_X ? x : op == OP_Y ? y : consts[pc];
    } else if (op <= OP_SQUARE) {
      float a = stack[sp - 1];
      stack[sp - 1] = op == OP_NEG ? -a : a * a;
    } else {
      float b = stack[--sp], a = stack[sp - 1], r;
      switch (op) {
      case OP_ADD: r = a + b; break;
      case OP_SUB: r = a - b; break;
      case OP_MUL: r = a * b; break;
      /* Protected division, as genetic programming defines it. */
      case OP_DIV: r = fabsf(b) > 1e-3f ? a / b : 1.0f; break;
      case OP_MIN: r = fminf(a, b); break;
      default: r = fmaxf(a, b); break;
      }
      stack[sp - 1] = r;
    }
  }
  out[i] = stack[0];
}

#ifdef WFV_REFERENCE
void wfv_reference(long n, const float *xs, const float *ys, float *out, const int *code,
                   const float *consts, int length) {
  for (long i = 0; i < n; i++) KERNEL(i, xs, ys, out, code, consts, length);
}
#endif

#ifdef WFV_DRIVER
#include <stdlib.h>
#include <string.h>
typedef void (*launcher)(long, const float *, const float *, float *, const int *,
                         const float *, int);
enum { RPN_MAX_CODE = 1024, RPN_DEPTH = 9 };
static float *xs, *ys, *out, consts[RPN_MAX_CODE];
static int code[RPN_MAX_CODE], length;

/* A random expression tree of at most `depth` levels, emitted in postfix. */
static void rpn_tree(int depth) {
  unsigned r = wfv_rand();
  if (depth == 0 || r % 8 == 0) {
    int op = (int)(wfv_rand() % 3);
    consts[length] = op == OP_CONST ? wfv_uniform(-2.0f, 2.0f) : 0.0f;
    code[length++] = op;
  } else if (r % 8 == 1) {
    rpn_tree(depth - 1);
    code[length++] = OP_NEG + (int)(wfv_rand() % 2);
  } else {
    rpn_tree(depth - 1);
    rpn_tree(depth - 1);
    code[length++] = OP_ADD + (int)(wfv_rand() % 6);
  }
}

void wfv_setup(long n) {
  xs = malloc(sizeof(float) * n);
  ys = malloc(sizeof(float) * n);
  out = malloc(sizeof(float) * n);
  for (long i = 0; i < n; i++) {
    xs[i] = wfv_uniform(-3.0f, 3.0f);
    ys[i] = wfv_uniform(-3.0f, 3.0f);
  }
  /* Binary trees of depth 9 have at most 1023 nodes and need at most 10 stack slots. */
  while (length < 200) {
    length = 0;
    rpn_tree(RPN_DEPTH);
  }
}
void wfv_clear(long n) { memset(out, 0, sizeof(float) * n); }
void wfv_sweep(void *fn, long n) { ((launcher)fn)(n, xs, ys, out, code, consts, length); }
void wfv_dump(FILE *f, long n) {
  wfv_dump_buffer(f, xs, sizeof(float) * n);
  wfv_dump_buffer(f, ys, sizeof(float) * n);
  wfv_dump_buffer(f, out, sizeof(float) * n);
  wfv_dump_buffer(f, code, sizeof(int) * length);
  wfv_dump_buffer(f, consts, sizeof(float) * length);
  wfv_dump_int(f, length);
}
double wfv_checksum(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += isfinite(out[i]) ? out[i] : 0.0;
  return s;
}
#endif
