/* Runs each kernel of lanes-slp's tests/data/slp_kernels.c as `lanes compile --slp` built
 * it and as clang-19 built it without vectorizers for the same CPU (the `ref_` copies,
 * so that `a * b + c` is fused the same way) on the same random inputs, and prints one
 * line per kernel: its name and whether every output byte matched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#define DECL(name, ...) void name(__VA_ARGS__); void ref_##name(__VA_ARGS__);
DECL(add4, float *restrict, const float *restrict, const float *restrict)
DECL(add4_alias, float *, const float *, const float *)
DECL(cond_scale8, int *restrict, const int *restrict, int)
DECL(branchy4, int *restrict, const int *restrict, const int *restrict, const int *restrict)
DECL(swapped4, double *restrict, const double *restrict, const double *restrict)
DECL(saxpy_by4, float *restrict, const float *restrict, float, int)
DECL(stencil_rows, float *restrict, const float *restrict, const int *restrict, int)
DECL(no_adjacent, int *restrict, const int *restrict)
DECL(saxpy, float *restrict, const float *restrict, float, int)
DECL(clamp_positive, int *restrict, const int *restrict, int)
unsigned last_sum(unsigned *restrict, const unsigned *restrict, unsigned);
unsigned ref_last_sum(unsigned *restrict, const unsigned *restrict, unsigned);
unsigned int_dot(const unsigned *restrict, const unsigned *restrict, int);
unsigned ref_int_dot(const unsigned *restrict, const unsigned *restrict, int);
DECL(scale_tail, double *restrict, const double *restrict, const int *restrict)
DECL(outer_guarded, float (*restrict)[64], float (*restrict)[64], float (*restrict)[64])
DECL(lagged, int *restrict, const int *restrict, int, int)
DECL(escape_counts, int *restrict, const float *restrict, int)
DECL(row_sums, unsigned *restrict, const unsigned *restrict, int, int)
DECL(column_sums, float *restrict, const float *restrict, const float *restrict, int)
float float_sum(const float *restrict, int);
float ref_float_sum(const float *restrict, int);
float float_sum_in_order(const float *restrict, int);
float ref_float_sum_in_order(const float *restrict, int);
static float fgot, fwant;
DECL(div8, unsigned *restrict, const unsigned *restrict, const unsigned *restrict)
static unsigned got, want;
static int bounds[2];

enum { N = 4096 };
static unsigned char A[N * 8], B[N * 8], C[N * 8], D[N * 8], RA[N * 8];

static void fill(unsigned seed) {
    srand(seed);
    for (int i = 0; i < N * 8; i += 4) {
        /* Floats from small integers: never NaN (whose payload may depend on the order
         * of commutative operands); read as ints, they are just other integers. */
        float f = (float)(rand() % 40 - 20) / 3.0f;
        memcpy(A + i, &f, 4);
        f = (float)(rand() % 40 - 20) / 7.0f;
        memcpy(B + i, &f, 4);
        int k = rand() % 2;
        memcpy(C + i, &k, 4);
        k = rand() % 40 - 20;
        memcpy(D + i, &k, 4);
    }
}

static unsigned char SAVE[N * 8];

/* Doubles for the kernel on doubles (float bit pairs could make NaNs). */
static void fill_doubles(unsigned seed) {
    fill(seed);
    for (int i = 0; i < N; i++) {
        double x = (double)(rand() % 200 - 100) / 8.0, y = (double)(rand() % 200 - 100) / 16.0;
        memcpy(B + 8 * i, &x, 8);
        memcpy(D + 8 * i, &y, 8);
    }
}

/* The reference runs first on a copy of the inputs, then lanes' build on the same
 * inputs; every byte of the output array must agree. */
#define CHECK(name, call, refcall) CHECK_WITH(fill, name, call, refcall)
#define CHECK_WITH(filler, name, call, refcall)                     \
    do {                                                            \
        int ok = 1;                                                 \
        for (unsigned s = 1; s <= 50 && ok; s++) {                  \
            filler(s);                                              \
            memcpy(SAVE, A, sizeof A);                              \
            refcall;                                                \
            memcpy(RA, A, sizeof A);                                \
            memcpy(A, SAVE, sizeof A);                              \
            call;                                                   \
            ok = memcmp(A, RA, sizeof A) == 0;                      \
        }                                                           \
        printf("%s %s\n", name, ok ? "same" : "DIFFERENT");         \
    } while (0)

int main(void) {
    CHECK("add4", add4((float *)A, (float *)B, (float *)C), ref_add4((float *)A, (float *)B, (float *)C));
    for (int n = 0; n <= 40; n += 7)
        CHECK("column_sums", column_sums((float *)A, (float *)B, (float *)C, n), ref_column_sums((float *)A, (float *)B, (float *)C, n));
    CHECK("div8", div8((unsigned *)A, (unsigned *)B, (unsigned *)D), ref_div8((unsigned *)A, (unsigned *)B, (unsigned *)D));
    CHECK("add4_alias", add4_alias((float *)A, (float *)A + 1, (float *)B), ref_add4_alias((float *)A, (float *)A + 1, (float *)B));
    CHECK("cond_scale8", cond_scale8((int *)A, (int *)B, 2), ref_cond_scale8((int *)A, (int *)B, 2));
    CHECK("branchy4", branchy4((int *)A, (int *)B, (int *)D, (int *)C), ref_branchy4((int *)A, (int *)B, (int *)D, (int *)C));
    CHECK_WITH(fill_doubles, "swapped4", swapped4((double *)A, (double *)B, (double *)D), ref_swapped4((double *)A, (double *)B, (double *)D));
    CHECK("saxpy_by4", saxpy_by4((float *)A, (float *)B, 1.5f, 101), ref_saxpy_by4((float *)A, (float *)B, 1.5f, 101));
    CHECK("stencil_rows", stencil_rows((float *)A, (float *)B, (int *)C, 40), ref_stencil_rows((float *)A, (float *)B, (int *)C, 40));
    CHECK("no_adjacent", no_adjacent((int *)A, (int *)B), ref_no_adjacent((int *)A, (int *)B));
    CHECK("outer_guarded", outer_guarded((float (*)[64])A, (float (*)[64])B, (float (*)[64])D),
          ref_outer_guarded((float (*)[64])A, (float (*)[64])B, (float (*)[64])D));
    /* Loops at every trip count around the unroll factors, including none. */
    for (int n = 0; n <= 70; n++) {
        CHECK("saxpy", saxpy((float *)A, (float *)B, 0.75f, n), ref_saxpy((float *)A, (float *)B, 0.75f, n));
        CHECK("clamp_positive", clamp_positive((int *)A, (int *)D, n), ref_clamp_positive((int *)A, (int *)D, n));
        CHECK("lagged", lagged((int *)A, (int *)D, n - 3, n), ref_lagged((int *)A, (int *)D, n - 3, n));
        CHECK("escape_counts", escape_counts((int *)A, (float *)B, n), ref_escape_counts((int *)A, (float *)B, n));
        CHECK("row_sums", row_sums((unsigned *)A, (unsigned *)D, n, n % 9 + 3),
              ref_row_sums((unsigned *)A, (unsigned *)D, n, n % 9 + 3));
        CHECK("last_sum", got = last_sum((unsigned *)A, (unsigned *)D, n), want = ref_last_sum((unsigned *)A, (unsigned *)D, n));
        if (got != want) printf("last_sum DIFFERENT result\n");
        CHECK("int_dot", got = int_dot((unsigned *)B, (unsigned *)D, n), want = ref_int_dot((unsigned *)B, (unsigned *)D, n));
        if (got != want) printf("int_dot DIFFERENT result\n");
        /* A sum allowed in another order differs in its last bits only; one kept in
         * order does not differ at all. */
        CHECK("float_sum", fgot = float_sum((float *)B, n), fwant = ref_float_sum((float *)B, n));
        if (!(fabsf(fgot - fwant) <= 1e-4f * (1.0f + fabsf(fwant)))) printf("float_sum DIFFERENT result\n");
        CHECK("float_sum_in_order", fgot = float_sum_in_order((float *)B, n),
              fwant = ref_float_sum_in_order((float *)B, n));
        if (fgot != fwant) printf("float_sum_in_order DIFFERENT result\n");
        bounds[0] = n % 7;
        bounds[1] = n;
        CHECK_WITH(fill_doubles, "scale_tail", scale_tail((double *)A, (double *)B, bounds), ref_scale_tail((double *)A, (double *)B, bounds));
    }
    return 0;
}
