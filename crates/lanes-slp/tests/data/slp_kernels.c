/* Straight-line and hand-unrolled kernels for SLP packing across blocks: each function
 * says in its comment what the packer must do with it. */

/* Four adjacent float stores of sums of adjacent loads: one tree of four packs. */
void add4(float *restrict a, const float *restrict b, const float *restrict c) {
    a[0] = b[0] + c[0];
    a[1] = b[1] + c[1];
    a[2] = b[2] + c[2];
    a[3] = b[3] + c[3];
}

/* The same without `restrict`: a store to a[0] may change b[1], so the loads cannot
 * all move before the stores; the tree is rejected for its dependences. */
void add4_alias(float *a, const float *b, const float *c) {
    a[0] = b[0] + c[0];
    a[1] = b[1] + c[1];
    a[2] = b[2] + c[2];
    a[3] = b[3] + c[3];
}

/* Each store under its own condition: lanes under different predicates, so the
 * multiplication is speculated and the store masked. */
void cond_scale8(int *restrict a, const int *restrict b, int t) {
    if (b[0] > t) a[0] = b[0] * 3;
    if (b[1] > t) a[1] = b[1] * 3;
    if (b[2] > t) a[2] = b[2] * 3;
    if (b[3] > t) a[3] = b[3] * 3;
    if (b[4] > t) a[4] = b[4] * 3;
    if (b[5] > t) a[5] = b[5] * 3;
    if (b[6] > t) a[6] = b[6] * 3;
    if (b[7] > t) a[7] = b[7] * 3;
}

/* If-then-else per lane joining in a φ: packed as gated φs whose gates differ per
 * lane (a blend). The else sides load from `d`, which clang may not speculate, so the
 * branches stay; those loads become one masked load. */
void branchy4(int *restrict a, const int *restrict b, const int *restrict c, const int *restrict d) {
    int x0, x1, x2, x3;
    if (b[0] > 0) x0 = b[0] - c[0]; else x0 = d[0] * 2 - b[0];
    if (b[1] > 0) x1 = b[1] - c[1]; else x1 = d[1] * 2 - b[1];
    if (b[2] > 0) x2 = b[2] - c[2]; else x2 = d[2] * 2 - b[2];
    if (b[3] > 0) x3 = b[3] - c[3]; else x3 = d[3] * 2 - b[3];
    a[0] = x0 * 5;
    a[1] = x1 * 5;
    a[2] = x2 * 5;
    a[3] = x3 * 5;
}

/* Operands swapped in some lanes (commutative) and a permuted load: the swap is
 * undone, and the permuted loads become one vector load and a shuffle. */
void swapped4(double *restrict a, const double *restrict b, const double *restrict c) {
    a[0] = b[0] * c[0];
    a[1] = c[1] * b[1];
    a[2] = b[3] * c[2];
    a[3] = c[3] * b[2];
}

/* A loop unrolled by hand: packs inside the loop body, with addresses that share the
 * loop counter. */
void saxpy_by4(float *restrict y, const float *restrict x, float k, int n) {
    for (int i = 0; i + 3 < n; i += 4) {
        y[i] = k * x[i] + y[i];
        y[i + 1] = k * x[i + 1] + y[i + 1];
        y[i + 2] = k * x[i + 2] + y[i + 2];
        y[i + 3] = k * x[i + 3] + y[i + 3];
    }
}

/* A three-point stencil, unrolled by hand, under a data-dependent condition per row. */
void stencil_rows(float *restrict out, const float *restrict in, const int *restrict on, int rows) {
    for (int r = 0; r < rows; r++) {
        if (on[r]) {
            const float *p = in + r * 10 + 1;
            float *q = out + r * 8;
            q[0] = p[-1] + p[0] + p[1];
            q[1] = p[0] + p[1] + p[2];
            q[2] = p[1] + p[2] + p[3];
            q[3] = p[2] + p[3] + p[4];
            q[4] = p[3] + p[4] + p[5];
            q[5] = p[4] + p[5] + p[6];
            q[6] = p[5] + p[6] + p[7];
            q[7] = p[6] + p[7] + p[8];
        }
    }
}

/* Stores two elements apart: no seed. */
void no_adjacent(int *restrict a, const int *restrict b) {
    a[0] = b[0] + 1;
    a[2] = b[1] + 1;
    a[4] = b[2] + 1;
}

/* Plain loops, not unrolled by hand: unrolled by the packer into a main loop of one
 * vector per trip and the original loop for what is left. */
void saxpy(float *restrict y, const float *restrict x, float k, int n) {
    for (int i = 0; i < n; i++)
        y[i] = k * x[i] + y[i];
}

/* A condition per iteration: the unrolled copies' stores become one masked store. */
void clamp_positive(int *restrict a, const int *restrict b, int n) {
    for (int i = 0; i < n; i++)
        if (b[i] > 0)
            a[i] = b[i] * 2 - 1;
}

/* An unsigned counter and a value read after the loop. */
unsigned last_sum(unsigned *restrict a, const unsigned *restrict b, unsigned n) {
    unsigned last = 0;
    for (unsigned i = 0; i < n; i++) {
        a[i] = b[i] + 7;
        last = a[i];
    }
    return last;
}

/* Doubles with a start that is not zero and a bound from memory. */
void scale_tail(double *restrict a, const double *restrict b, const int *restrict bounds) {
    for (long i = bounds[0]; i < bounds[1]; i++)
        a[i] = b[i] * 0.5 + a[i];
}

/* PLDI'22 Fig. 16 (TSVC): a guarded inner loop per column; unrolling the outer loop
 * gives copies of the inner loop over the same rows, fused under their guards, whose
 * stores to adjacent columns pack (outer-loop vectorization with control flow). */
#define LEN2 64
void outer_guarded(float aa[restrict LEN2][LEN2], float bb[restrict LEN2][LEN2], float cc[restrict LEN2][LEN2]) {
    for (int i = 0; i < LEN2; i++)
        if (aa[0][i] > (float)0.)
            for (int j = 1; j < LEN2; j++)
                aa[j][i] = aa[j - 1][i] + bb[j][i] * cc[j][i];
}

/* A recurrence from outside the loop (prev = mu(k, 5), the constant hoisted before
 * it): its copies keep reading 5 (csmith seed 40 found the unroller expecting every
 * recurrence inside the loop). */
void lagged(int *restrict a, const int *restrict b, int k, int n) {
    int prev = k;
    for (int i = 0; i < n; i++) {
        a[i] = prev * b[i];
        prev = 5;
    }
}

/* Escape counts (PLDI'22 Fig. 2 and 11, Mandelbrot's inner loop): per element a loop
 * with a data-dependent exit. Unrolled, its copies are co-iterated and their μ-nodes
 * (the counters, the values, the active flags) packed as vector μ-nodes; the loop goes
 * on while any lane is active; the counts are stored as one vector after it. */
void escape_counts(int *restrict out, const float *restrict c, int n) {
    for (int i = 0; i < n; i++) {
        float z = 0.0f;
        int k = 0;
        for (; k < 40; k++) {
            if (z > 4.0f || z < -4.0f) break;
            z = z * z * 0.5f + c[i];
        }
        out[i] = k;
    }
}

/* Row sums: the copies of the inner loop of the outer loop unrolled would run the same
 * iterations and could be fused, but then each iteration's loads are strided; the
 * inner loop is unrolled instead, its integer sum split into a vector accumulator. */
void row_sums(unsigned *restrict out, const unsigned *restrict a, int rows, int cols) {
    for (int i = 0; i < rows; i++) {
        unsigned s = 0;
        for (int j = 0; j < cols; j++) s += a[i * cols + j] * (unsigned)(j + 1);
        out[i] = s;
    }
}

/* A reduction (PLDI'22 §3.2's other seed): unrolled, the sum is split into one
 * accumulator per copy, packed as one vector μ-node, and folded after the loop. */
unsigned int_dot(const unsigned *restrict a, const unsigned *restrict b, int n) {
    unsigned s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

/* Eight adjacent quotients: isomorphic and independent, so register counting packs
 * them, but x86 has no vector integer division: the target's cost model prices the
 * vector `udiv` as eight scalar ones plus moving every lane in and out, and keeps the
 * code scalar (PLDI'22 §4.3). Odd divisors: no input divides by zero. */
void div8(unsigned *restrict a, const unsigned *restrict b, const unsigned *restrict c) {
    for (int i = 0; i < 8; i++) a[i] = b[i] / (c[i] | 1);
}

/* Sums down the columns of an n×n matrix (PolyBench mvt's Aᵀ·y): each x[i] is a
 * floating-point sum along j, kept in order. The outer loop is unrolled and the copies
 * of the inner loop fused; their common `j·n` and `y[j]` are computed once, so that the
 * copies' loads of A[j][i..] are one vector load and y[j] one splat, and the sums one
 * vector μ-node — each lane adding in its own, unchanged, order. */
void column_sums(float *restrict x, const float *restrict A, const float *restrict y, int n) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) x[i] += A[j * n + i] * y[j];
}

/* A floating-point sum the program allows in any order (`reassociate`, as -ffast-math
 * allows it): split into one accumulator per unrolled copy like an integer one, packed
 * as one vector μ-node, folded after the loop. Without the pragma it stays in order. */
float float_sum(const float *restrict a, int n) {
#pragma clang fp reassociate(on)
    float s = 0.0f;
    for (int i = 0; i < n; i++) s += a[i];
    return s;
}

float float_sum_in_order(const float *restrict a, int n) {
    float s = 0.0f;
    for (int i = 0; i < n; i++) s += a[i];
    return s;
}
