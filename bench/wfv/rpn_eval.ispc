// ISPC twin of rpn_eval.c for `lanes bench wfv` (the ISPC column); see mandelbrot.ispc. The
// program is uniform, so the stack pointer and the operator are uniform too: ISPC's
// varying stack array is indexed by a uniform index.
enum { OP_X, OP_Y, OP_CONST, OP_NEG, OP_SQUARE, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MIN, OP_MAX };
#define RPN_STACK 32

export void KERNEL_SPMD(uniform int64 n, uniform const float xs[], uniform const float ys[],
                        uniform float out[], uniform const int code[], uniform const float consts[],
                        uniform int length) {
    foreach (i = 0 ... n) {
        float stack[RPN_STACK];
        uniform int sp = 0;
        float x = xs[i], y = ys[i];
        for (uniform int pc = 0; pc < length; pc++) {
            uniform int op = code[pc];
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
                case OP_DIV: r = abs(b) > 1e-3f ? a / b : 1.0f; break;
                case OP_MIN: r = min(a, b); break;
                default: r = max(a, b); break;
                }
                stack[sp - 1] = r;
            }
        }
        out[i] = stack[0];
    }
}
