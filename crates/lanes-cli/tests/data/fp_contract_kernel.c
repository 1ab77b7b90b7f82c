/* An SPMD kernel mixing C's fused fmaf with a * b + c, which clang contracts into
 * llvm.fmuladd under its default -ffp-contract=on (tests/fp_contract.rs). */
#include <math.h>

void horner(float *out, int i, const float *x) {
    float t = x[i];
    float p = fmaf(t, 0.3183099f, -0.5f);
    p = fmaf(p, t, 0.25f);
    p = p * t + 1.4142135f;
    out[i] = p * t - 0.75f * t;
}
