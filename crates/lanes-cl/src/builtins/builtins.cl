// The OpenCL C 1.2 builtin function library of lanes' OpenCL runtime.
//
// A kernel is compiled by clang-19 as OpenCL C; every builtin it calls stays a call to an
// Itanium-mangled declaration (`_Z3dotDv4_fS_`, `_Z5clampfff`). This file defines those
// functions, with exactly the signatures clang declares for the builtins (opencl-c.h, or
// the same set that `-fdeclare-opencl-builtins` declares lazily), so that the mangled names
// match. The runtime compiles it with the same clang command as the kernel (under
// `-cl-std=CL1.2` or `-cl-std=CL2.0`), links the two modules, makes every library function
// internal and runs `always-inline`, the scalarizer (splitting loads and stores too),
// `instcombine`, `simplifycfg`, `sroa`, `early-cse` and `globaldce` before lanes imports
// the result.
//
// Hence the style of the file:
// - Every definition is `always_inline` (and `overloadable`, like its declaration): no
//   library function survives the inliner, and lanes sees only instructions, LLVM
//   intrinsics it maps (llvm.sqrt, llvm.fma, llvm.smax, llvm.ctlz, llvm.fshl,
//   llvm.sadd.sat, ...), and a few libm calls (erf, erfc, lgamma, tgamma), which lanes keeps
//   as external calls made per lane.
// - The scalarizer turns OpenCL vector types into scalars after inlining, so vector
//   overloads are written element-wise: a vector of n elements is split into two halves
//   (n = 3 into 2 + 1) and the function applied to each, down to the scalar definition.
//   Writing them with vector arithmetic would not make the code any faster.
// - Functions whose float precision needs care and that lanes has no operation for
//   (sinpi, cbrt, hypot, rootn, exp10, log1p, ...) are computed in double for float
//   arguments and rounded once, which gives results within about half an ulp; the double
//   versions use the same formulas, corrected where needed (Newton steps, split constants).
//   The library therefore requires cl_khr_fp64, which every CPU target of lanes has.
// - half is supported only as a storage format (vload_half, vstore_half, ...: conversion
//   by bit manipulation); lanes has no 16-bit float type, so the `half` overloads of the
//   arithmetic builtins are not defined.
// - Work-item functions, barrier and printf are lowered by lanes itself and are not here.
//
// Sections follow the OpenCL C 1.2 specification (§6.12):
//   1. helpers and expansion macros
//   2. math functions                         §6.12.2 (and §6.12.2.1 native_/half_)
//   3. integer functions                      §6.12.3
//   4. common functions                       §6.12.4
//   5. geometric functions                    §6.12.5
//   6. relational functions                   §6.12.6
//   7. vector data load and store             §6.12.7
//   8. synchronization and memory fences      §6.12.8, §6.12.9
//   9. async copies and prefetch              §6.12.10
//  10. atomic functions                       §6.12.11 (and cl_khr_*_atomics)
//  11. miscellaneous vector functions         §6.12.12 (shuffle, shuffle2)
//  12. conversions                            §6.2.3 (convert_<type><n>[_sat][_<mode>])
//  13. OpenCL C 2.0 additions                 (ctz, get_global_linear_id, ...)

#ifndef cl_khr_fp64
#error "the lanes builtin library needs cl_khr_fp64"
#endif
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// Vector arguments wider than SSE registers change the x86 ABI; every function here is
// inlined, so the ABI never matters.
#pragma clang diagnostic ignored "-Wpsabi"

// ===================================================================================
// 1. Helpers and expansion macros
// ===================================================================================

// A library function: inlined into every caller, overloaded like its declaration.
#define OVL __attribute__((overloadable, always_inline))
// A private helper: inlined, internal to the library module.
#define HLP static inline __attribute__((overloadable, always_inline))

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

// Pointer address spaces of the builtins with pointer arguments. OpenCL C 1.2 declares
// one overload per named address space, 2.0 one with a generic pointer (no qualifier).
#if __OPENCL_C_VERSION__ >= 200
#define FOR_AS_RW(M, ...) M(, __VA_ARGS__)
#define FOR_AS_RO(M, ...) M(, __VA_ARGS__) M(__constant, __VA_ARGS__)
#else
#define FOR_AS_RW(M, ...) M(__global, __VA_ARGS__) M(__local, __VA_ARGS__) M(__private, __VA_ARGS__)
#define FOR_AS_RO(M, ...)                                                                  \
  M(__global, __VA_ARGS__) M(__local, __VA_ARGS__) M(__private, __VA_ARGS__)               \
      M(__constant, __VA_ARGS__)
#endif

// The vector widths and how each splits in two: M(N, part A, part B, width of A, width of
// B, ...). An empty width stands for the scalar type.
#define FOR_WIDTHS(M, ...)                                                                 \
  M(2, s0, s1, , , __VA_ARGS__)                                                            \
  M(3, s01, s2, 2, , __VA_ARGS__)                                                          \
  M(4, lo, hi, 2, 2, __VA_ARGS__)                                                          \
  M(8, lo, hi, 4, 4, __VA_ARGS__)                                                          \
  M(16, lo, hi, 8, 8, __VA_ARGS__)

// Element-wise vector overloads of a scalar function F; R, X, Y, Z are element types.
// V1: R_n F(X_n)            V2: R_n F(X_n, Y_n)           V3: R_n F(X_n, Y_n, Z_n)
#define V1_(N, A, B, NA, NB, R, F, X)                                                      \
  R##N OVL F(X##N x) { return (R##N)(F(x.A), F(x.B)); }
#define V1(R, F, X) FOR_WIDTHS(V1_, R, F, X)
#define V2_(N, A, B, NA, NB, R, F, X, Y)                                                   \
  R##N OVL F(X##N x, Y##N y) { return (R##N)(F(x.A, y.A), F(x.B, y.B)); }
#define V2(R, F, X, Y) FOR_WIDTHS(V2_, R, F, X, Y)
#define V3_(N, A, B, NA, NB, R, F, X, Y, Z)                                                \
  R##N OVL F(X##N x, Y##N y, Z##N z) { return (R##N)(F(x.A, y.A, z.A), F(x.B, y.B, z.B)); }
#define V3(R, F, X, Y, Z) FOR_WIDTHS(V3_, R, F, X, Y, Z)
// Overloads with scalar trailing arguments, by broadcasting them:
// V2S: R_n F(X_n, Y)         V3SS: R_n F(X_n, Y, Y)
#define V2S_(N, A, B, NA, NB, R, F, X, Y)                                                  \
  R##N OVL F(X##N x, Y y) { return F(x, (Y##N)(y)); }
#define V2S(R, F, X, Y) FOR_WIDTHS(V2S_, R, F, X, Y)
#define V3SS_(N, A, B, NA, NB, R, F, X, Y)                                                 \
  R##N OVL F(X##N x, Y y, Y z) { return F(x, (Y##N)(y), (Y##N)(z)); }
#define V3SS(R, F, X, Y) FOR_WIDTHS(V3SS_, R, F, X, Y)
// Overloads with a pointer result argument (fract, frexp, modf, sincos, lgamma_r, remquo):
// VP1: R_n F(X_n, AS P_n *)  VP2: R_n F(X_n, X_n, AS P_n *), for every address space
// (width by width: each calls the private-pointer overload of the narrower width).
#define VP1_(N, A, B, NA, NB, AS, R, F, X, P)                                              \
  R##N OVL F(X##N x, AS P##N *p) {                                                         \
    P##NA a;                                                                               \
    P##NB b;                                                                               \
    R##N r = (R##N)(F(x.A, &a), F(x.B, &b));                                               \
    *p = (P##N)(a, b);                                                                     \
    return r;                                                                              \
  }
#define VP1_AS(AS, N, A, B, NA, NB, R, F, X, P) VP1_(N, A, B, NA, NB, AS, R, F, X, P)
#define VP1_W(N, A, B, NA, NB, R, F, X, P) FOR_AS_RW(VP1_AS, N, A, B, NA, NB, R, F, X, P)
#define VP1(R, F, X, P) FOR_WIDTHS(VP1_W, R, F, X, P)
#define VP2_(N, A, B, NA, NB, AS, R, F, X, P)                                              \
  R##N OVL F(X##N x, X##N y, AS P##N *p) {                                                 \
    P##NA a;                                                                               \
    P##NB b;                                                                               \
    R##N r = (R##N)(F(x.A, y.A, &a), F(x.B, y.B, &b));                                     \
    *p = (P##N)(a, b);                                                                     \
    return r;                                                                              \
  }
#define VP2_AS(AS, N, A, B, NA, NB, R, F, X, P) VP2_(N, A, B, NA, NB, AS, R, F, X, P)
#define VP2_W(N, A, B, NA, NB, R, F, X, P) FOR_AS_RW(VP2_AS, N, A, B, NA, NB, R, F, X, P)
#define VP2(R, F, X, P) FOR_WIDTHS(VP2_W, R, F, X, P)

// Properties of the floating-point types, by type name: the integer types of the same
// width, the builtin suffix, and the IEEE 754 format.
#define F_INT_float int
#define F_INT_double long
#define F_UINT_float uint
#define F_UINT_double ulong
#define F_SFX_float f
#define F_SFX_double
#define F_MANT_float 23
#define F_MANT_double 52
#define F_BIAS_float 127
#define F_BIAS_double 1023
#define F_EXPMASK_float 0xffu
#define F_EXPMASK_double 0x7fful
#define F_MINNORM_float FLT_MIN
#define F_MINNORM_double DBL_MIN
#define F_BELOW1_float 0x1.fffffep-1f
#define F_BELOW1_double 0x1.fffffffffffffp-1
#define F_TRUEMIN_float 0x1p-149f
#define F_TRUEMIN_double 0x1p-1074

// as_uint / as_ulong, as_float / as_double of the scalar type T.
#define AS_UINT(T, x) CAT(as_, F_UINT_##T)(x)
#define AS_FLT(T, x) CAT(as_, T)(x)
// __builtin_<name>f for float, __builtin_<name> for double.
#define BI(T, name) CAT(__builtin_##name, F_SFX_##T)

// ===================================================================================
// 2. Math functions (§6.12.2)
// ===================================================================================

// --- 2.1 Functions that become LLVM intrinsics (or libm calls) lanes maps -----------
#define MATH_INTRINSIC1(T, F) T OVL F(T x) { return BI(T, F)(x); }
#define MATH_INTRINSIC2(T, F) T OVL F(T x, T y) { return BI(T, F)(x, y); }
#define MATH_MAPPED(T)                                                                     \
  MATH_INTRINSIC1(T, acos)                                                                 \
  MATH_INTRINSIC1(T, asin)                                                                 \
  MATH_INTRINSIC1(T, atan)                                                                 \
  MATH_INTRINSIC1(T, cos)                                                                  \
  MATH_INTRINSIC1(T, cosh)                                                                 \
  MATH_INTRINSIC1(T, sin)                                                                  \
  MATH_INTRINSIC1(T, sinh)                                                                 \
  MATH_INTRINSIC1(T, tan)                                                                  \
  MATH_INTRINSIC1(T, tanh)                                                                 \
  MATH_INTRINSIC1(T, exp)                                                                  \
  MATH_INTRINSIC1(T, exp2)                                                                 \
  MATH_INTRINSIC1(T, log)                                                                  \
  MATH_INTRINSIC1(T, log2)                                                                 \
  MATH_INTRINSIC1(T, log10)                                                                \
  MATH_INTRINSIC1(T, sqrt)                                                                 \
  MATH_INTRINSIC1(T, fabs)                                                                 \
  MATH_INTRINSIC1(T, floor)                                                                \
  MATH_INTRINSIC1(T, ceil)                                                                 \
  MATH_INTRINSIC1(T, trunc)                                                                \
  MATH_INTRINSIC1(T, round)                                                                \
  MATH_INTRINSIC1(T, rint)                                                                 \
  MATH_INTRINSIC2(T, atan2)                                                                \
  MATH_INTRINSIC2(T, pow)                                                                  \
  MATH_INTRINSIC2(T, copysign)                                                             \
  MATH_INTRINSIC2(T, fmin)                                                                 \
  MATH_INTRINSIC2(T, fmax)                                                                 \
  MATH_INTRINSIC2(T, fmod)                                                                 \
  T OVL fma(T a, T b, T c) { return BI(T, fma)(a, b, c); }                                 \
  /* a * b + c under clang's default -ffp-contract=on: llvm.fmuladd */                     \
  T OVL mad(T a, T b, T c) { return a * b + c; }                                           \
  T OVL rsqrt(T x) { return (T)1 / BI(T, sqrt)(x); }                                       \
  /* libm: lanes has no operation for these; they stay calls made per lane */              \
  MATH_INTRINSIC1(T, erf)                                                                  \
  MATH_INTRINSIC1(T, erfc)                                                                 \
  MATH_INTRINSIC1(T, lgamma)                                                               \
  MATH_INTRINSIC1(T, tgamma)
MATH_MAPPED(float)
MATH_MAPPED(double)

// --- 2.2 Functions spelled out on the bits of the format -----------------------------
#define MATH_BITS(T)                                                                       \
  /* x * 2^n without intermediate overflow, rounding once (after musl's scalbn) */         \
  T OVL ldexp(T x, int n) {                                                                \
    const int maxe = F_BIAS_##T, mine = 1 - F_BIAS_##T, p = F_MANT_##T + 1;                \
    const T up = AS_FLT(T, (F_UINT_##T)(2 * F_BIAS_##T) << F_MANT_##T);                    \
    const T down = AS_FLT(T, (F_UINT_##T)(1 + p) << F_MANT_##T); /* 2^(mine + p) */        \
    if (n > maxe) {                                                                        \
      x *= up;                                                                             \
      n -= maxe;                                                                           \
      if (n > maxe) {                                                                      \
        x *= up;                                                                           \
        n -= maxe;                                                                         \
        n = n > maxe ? maxe : n;                                                           \
      }                                                                                    \
    } else if (n < mine) {                                                                 \
      x *= down;                                                                           \
      n += -mine - p;                                                                      \
      if (n < mine) {                                                                      \
        x *= down;                                                                         \
        n += -mine - p;                                                                    \
        n = n < mine ? mine : n;                                                           \
      }                                                                                    \
    }                                                                                      \
    return x * AS_FLT(T, (F_UINT_##T)(F_BIAS_##T + n) << F_MANT_##T);                      \
  }                                                                                        \
  int OVL ilogb(T x) {                                                                     \
    const int w = (int)sizeof(T) * 8;                                                      \
    F_UINT_##T u = AS_UINT(T, x) & (~(F_UINT_##T)0 >> 1);                                  \
    F_UINT_##T ebits = u >> F_MANT_##T;                                                    \
    F_UINT_##T mant = u & (((F_UINT_##T)1 << F_MANT_##T) - 1);                             \
    int e = (int)ebits - F_BIAS_##T;                                                       \
    int sub = (w - 1 - (int)__builtin_clzg(u, w)) - (F_BIAS_##T - 1 + F_MANT_##T);         \
    e = ebits == 0 ? sub : e;                                                              \
    e = u == 0 ? FP_ILOGB0 : e;                                                            \
    return ebits == F_EXPMASK_##T ? (mant != 0 ? FP_ILOGBNAN : INT_MAX) : e;               \
  }                                                                                        \
  T OVL logb(T x) {                                                                        \
    T r = (T)ilogb(x);                                                                     \
    r = x == 0 ? -(T)INFINITY : r;                                                         \
    r = BI(T, fabs)(x) == (T)INFINITY ? (T)INFINITY : r;                                   \
    return x != x ? x : r;                                                                 \
  }                                                                                        \
  HLP int __clb_frexp_exp(T x) {                                                           \
    int e = ilogb(x) + 1;                                                                  \
    return (x == 0 || !(BI(T, fabs)(x) < (T)INFINITY)) ? 0 : e;                            \
  }                                                                                        \
  HLP T __clb_frexp_mant(T x) {                                                            \
    int e = __clb_frexp_exp(x);                                                            \
    return (x == 0 || !(BI(T, fabs)(x) < (T)INFINITY)) ? x : ldexp(x, -e);                 \
  }                                                                                        \
  T OVL nextafter(T x, T y) {                                                              \
    F_INT_##T ix = CAT(as_, F_INT_##T)(x);                                                 \
    F_INT_##T step = ((x < y) == (x > 0)) ? 1 : -1;                                        \
    T r = CAT(as_, T)(ix + step);                                                          \
    r = x == 0 ? BI(T, copysign)(F_TRUEMIN_##T, y) : r;                                    \
    r = x == y ? y : r;                                                                    \
    return (x != x || y != y) ? x + y : r;                                                 \
  }                                                                                        \
  T OVL fdim(T x, T y) {                                                                   \
    T r = x > y ? x - y : (T)0;                                                            \
    return (x != x || y != y) ? x + y : r;                                                 \
  }                                                                                        \
  T OVL maxmag(T x, T y) {                                                                 \
    T ax = BI(T, fabs)(x), ay = BI(T, fabs)(y);                                            \
    return ax > ay ? x : (ay > ax ? y : BI(T, fmax)(x, y));                                \
  }                                                                                        \
  T OVL minmag(T x, T y) {                                                                 \
    T ax = BI(T, fabs)(x), ay = BI(T, fabs)(y);                                            \
    return ax < ay ? x : (ay < ax ? y : BI(T, fmin)(x, y));                                \
  }                                                                                        \
  T OVL nan(F_UINT_##T code) {                                                             \
    const F_UINT_##T quiet = (F_UINT_##T)(F_EXPMASK_##T * 2 + 1) << (F_MANT_##T - 1);      \
    return AS_FLT(T, quiet | (code & (((F_UINT_##T)1 << (F_MANT_##T - 1)) - 1)));          \
  }                                                                                        \
  HLP T __clb_fract(T x, T *fl) {                                                          \
    T f = BI(T, floor)(x);                                                                 \
    *fl = f;                                                                               \
    T r = BI(T, fmin)(x - f, F_BELOW1_##T);                                                \
    r = BI(T, fabs)(x) == (T)INFINITY ? BI(T, copysign)((T)0, x) : r;                      \
    return (x != x || x == 0) ? x : r;                                                     \
  }                                                                                        \
  /* remquo: the remainder of x / y rounded to nearest even, exactly, and the low three  */ \
  /* bits of the quotient: fmod by 8|y| is exact, then three exact subtractions         */ \
  HLP T __clb_remquo(T x, T y, int *quo) {                                                 \
    T p = BI(T, fabs)(y), a = BI(T, fmod)(BI(T, fabs)(x), 8 * p);                           \
    int q = 0;                                                                             \
    if (a >= 4 * p) { a -= 4 * p; q += 4; }                                                \
    if (a >= 2 * p) { a -= 2 * p; q += 2; }                                                \
    if (a >= p) { a -= p; q += 1; }                                                        \
    if (a + a > p || (a + a == p && (q & 1))) { a -= p; q += 1; }                          \
    q &= 7;                                                                                \
    T r = x < 0 ? -a : a;                                                                  \
    int neg = (x < 0) != (y < 0);                                                          \
    *quo = (r != r) ? 0 : (neg ? -q : q);                                                  \
    return r;                                                                              \
  }                                                                                        \
  T OVL remainder(T x, T y) {                                                              \
    int q;                                                                                 \
    return __clb_remquo(x, y, &q);                                                         \
  }                                                                                        \
  T OVL powr(T x, T y) { /* pow of |x|: powr(-0, y < 0) is +inf */                        \
    T r = BI(T, pow)(BI(T, fabs)(x), y);                                                   \
    r = x < 0 ? (T)NAN : r;                                                                \
    r = ((x == 0 || x == (T)INFINITY) && y == 0) ? (T)NAN : r;                             \
    r = (x == 1 && BI(T, fabs)(y) == (T)INFINITY) ? (T)NAN : r;                            \
    return (x != x || y != y) ? x + y : r;                                                 \
  }                                                                                        \
  /* sign of gamma(x) (0 where lgamma has a pole or x is NaN) */                           \
  HLP int __clb_gamma_sign(T x) {                                                          \
    T fl = BI(T, floor)(x);                                                                \
    int s = BI(T, fmod)(fl, (T)2) != 0 ? -1 : 1;                                           \
    s = x == fl ? 0 : s;                                                                   \
    s = x == 0 ? (BI(T, copysign)((T)1, x) < 0 ? -1 : 1) : s;                              \
    s = x > 0 ? 1 : s;                                                                     \
    return x != x ? 0 : s;                                                                 \
  }
MATH_BITS(float)
MATH_BITS(double)

// --- 2.3 Functions lanes has no operation for, by formula --------------------------
// Written for double; the float overloads evaluate the double formula and round once.

// log1p: log of u = 1 + x rounded, corrected by the rounding error of u (exact, by
// Fast2Sum) divided by u; expm1 by Kahan's trick, the rounding error of exp(x) cancelling
// in (u - 1) / log(u).
double OVL log1p(double x) {
  double u = 1.0 + x;
  double err = __builtin_fabs(x) < 1.0 ? x - (u - 1.0) : 1.0 - (u - x);
  double r = __builtin_log(u) + err / u;
  r = (u == 0.0 || u == (double)INFINITY) ? __builtin_log(u) : r;
  return x == 0.0 ? x : r; // keeps the sign of zero
}
double OVL expm1(double x) {
  double u = __builtin_exp(x);
  double um1 = u - 1.0;
  double r = um1 * (x / __builtin_log(u));
  r = um1 == -1.0 ? -1.0 : r;
  r = u == (double)INFINITY ? u : r;
  return u == 1.0 ? x : r;
}
// The inverse hyperbolic functions as in fdlibm.
double OVL asinh(double x) {
  double a = __builtin_fabs(x), t = a * a;
  double r = log1p(a + t / (1.0 + __builtin_sqrt(1.0 + t)));
  r = a > 2.0 ? __builtin_log(2.0 * a + 1.0 / (__builtin_sqrt(t + 1.0) + a)) : r;
  r = a > 0x1p28 ? __builtin_log(a) + M_LN2 : r;
  return __builtin_copysign(r, x);
}
double OVL acosh(double x) {
  double t = x - 1.0;
  double r = log1p(t + __builtin_sqrt(2.0 * t + t * t));
  r = x > 2.0 ? __builtin_log(2.0 * x - 1.0 / (x + __builtin_sqrt(x * x - 1.0))) : r;
  r = x > 0x1p28 ? __builtin_log(x) + M_LN2 : r;
  return x < 1.0 ? (double)NAN : r;
}
double OVL atanh(double x) {
  double a = __builtin_fabs(x);
  double r = 0.5 * log1p(2.0 * a / (1.0 - a));
  r = a < 0.5 ? 0.5 * log1p(2.0 * a + 2.0 * a * a / (1.0 - a)) : r;
  return __builtin_copysign(r, x);
}
// cbrt: pow of |x| by the rounded 1/3, then one Newton step.
double OVL cbrt(double x) {
  double a = __builtin_fabs(x);
  double r = __builtin_pow(a, 1.0 / 3.0);
  double n = r - (r - a / (r * r)) * (1.0 / 3.0);
  r = (a > 0.0 && a < (double)INFINITY) ? n : r;
  return __builtin_copysign(r, x);
}
double OVL hypot(double x, double y) {
  double a = __builtin_fabs(x), b = __builtin_fabs(y);
  double mx = __builtin_fmax(a, b), mn = __builtin_fmin(a, b);
  double q = mn / mx;
  double r = mx * __builtin_sqrt(1.0 + q * q);
  r = mn == 0.0 ? mx : r;
  r = (x != x || y != y) ? x + y : r;
  return (a == (double)INFINITY || b == (double)INFINITY) ? (double)INFINITY : r;
}
// exp10(x) = 2^(x log2 10): the product's rounding error e (from fma and the low part of
// log2 10) is applied as the factor 1 + e ln 2.
double OVL exp10(double x) {
  const double l = 0x1.a934f0979a371p+1, l_lo = 0x1.7f2495fb7fa6dp-53;
  double t = x * l;
  double e = __builtin_fma(x, l, -t) + x * l_lo;
  double r = __builtin_exp2(t);
  double c = __builtin_fma(r, e * M_LN2, r);
  c = (r < (double)INFINITY && r > 0.0 && e == e) ? c : r;
  // integers up to 22: 10^|x| is exact (a product of exact powers), its reciprocal rounds once
  double k = __builtin_fabs(x);
  int n = (int)(k <= 22.0 ? k : 0.0);
  double p = ((n & 1) ? 1e1 : 1.0) * ((n & 2) ? 1e2 : 1.0) * ((n & 4) ? 1e4 : 1.0) *
             ((n & 8) ? 1e8 : 1.0) * ((n & 16) ? 1e16 : 1.0);
  return (k <= 22.0 && k == __builtin_trunc(k)) ? (x < 0.0 ? 1.0 / p : p) : c;
}
double OVL pown(double x, int n) { return __builtin_pow(x, (double)n); }
// rootn: pow by the rounded 1/n, corrected for the rounding error e of 1/n (exact, by
// fma): |x|^(1/n) = pow(|x|, fl(1/n)) * exp(e log|x|), and e log|x| is tiny.
double OVL rootn(double x, int n) {
  double a = __builtin_fabs(x), dn = (double)n;
  double inv = 1.0 / dn;
  double e = __builtin_fma(-inv, dn, 1.0) / dn;
  double r = __builtin_pow(a, inv);
  double c = r + r * (__builtin_log(a) * e);
  r = (a > 0.0 && a < (double)INFINITY && r > 0.0 && r < (double)INFINITY) ? c : r;
  int odd = n & 1;
  r = odd ? __builtin_copysign(r, x) : r;
  r = (x < 0.0 && !odd) ? (double)NAN : r;
  return n == 0 ? (double)NAN : r;
}
// sinpi, cospi, tanpi: exact reduction of x modulo 2 (or 1), so that integers and
// half-integers give exact zeros (with the signs the specification lists) and infinities.
double OVL sinpi(double x) {
  double r = x - 2.0 * __builtin_rint(0.5 * x); // in [-1, 1], exact
  r = r > 0.5 ? 1.0 - r : r;                     // in [-0.5, 0.5], exact
  r = r < -0.5 ? -1.0 - r : r;
  double s = __builtin_sin(M_PI * r);
  return r == 0.0 ? __builtin_copysign(0.0, x) : s;
}
double OVL cospi(double x) {
  double a = __builtin_fabs(x);
  double r = __builtin_fabs(a - 2.0 * __builtin_rint(0.5 * a)); // in [0, 1], exact
  double c = __builtin_cos(M_PI * r);
  c = r > 0.25 ? __builtin_sin(M_PI * (0.5 - r)) : c;
  c = r > 0.75 ? -__builtin_cos(M_PI * (1.0 - r)) : c;
  return r == 0.5 ? 0.0 : c;
}
double OVL tanpi(double x) {
  double k = __builtin_rint(x);
  double r = x - k; // in [-0.5, 0.5], exact
  double ar = __builtin_fabs(r);
  double t = __builtin_tan(M_PI * ar);
  // near the poles tan(pi r) = 1 / tan(pi (1/2 - r)), whose argument is exact and small
  t = ar > 0.25 ? 1.0 / __builtin_tan(M_PI * (0.5 - ar)) : t;
  t = __builtin_copysign(t, r);
  int k_odd = __builtin_fmod(k, 2.0) != 0.0;
  int n_odd = __builtin_fmod(__builtin_floor(x), 2.0) != 0.0;
  t = r == 0.0 ? __builtin_copysign(0.0, k_odd ? -x : x) : t;
  return __builtin_fabs(r) == 0.5 ? (n_odd ? -(double)INFINITY : (double)INFINITY) : t;
}
double OVL asinpi(double x) { return __builtin_asin(x) / M_PI; }
double OVL acospi(double x) { return __builtin_acos(x) / M_PI; }
double OVL atanpi(double x) { return __builtin_atan(x) / M_PI; }
double OVL atan2pi(double y, double x) { return __builtin_atan2(y, x) / M_PI; }

#define VIA_DOUBLE1(F) float OVL F(float x) { return (float)F((double)x); }
#define VIA_DOUBLE2(F) float OVL F(float x, float y) { return (float)F((double)x, (double)y); }
VIA_DOUBLE1(log1p)
VIA_DOUBLE1(expm1)
VIA_DOUBLE1(asinh)
VIA_DOUBLE1(acosh)
VIA_DOUBLE1(atanh)
VIA_DOUBLE1(sinpi)
VIA_DOUBLE1(cospi)
VIA_DOUBLE1(tanpi)
VIA_DOUBLE1(asinpi)
VIA_DOUBLE1(acospi)
VIA_DOUBLE1(atanpi)
VIA_DOUBLE2(atan2pi)
float OVL cbrt(float x) { // pow in double is within 2^-50 or so: no Newton step needed
  double a = __builtin_fabs((double)x);
  return (float)__builtin_copysign(__builtin_pow(a, 1.0 / 3.0), (double)x);
}
float OVL hypot(float x, float y) { // the squares and their sum are exact in double
  double a = (double)x, b = (double)y;
  float r = (float)__builtin_sqrt(a * a + b * b);
  return (__builtin_fabs(x) == INFINITY || __builtin_fabs(y) == INFINITY) ? INFINITY : r;
}
float OVL exp10(float x) { return (float)__builtin_exp2((double)x * 0x1.a934f0979a371p+1); }
float OVL pown(float x, int n) { return (float)__builtin_pow((double)x, (double)n); }
float OVL rootn(float x, int n) {
  double a = __builtin_fabs((double)x);
  double r = __builtin_pow(a, 1.0 / (double)n);
  int odd = n & 1;
  r = odd ? __builtin_copysign(r, (double)x) : r;
  r = (x < 0.0f && !odd) ? (double)NAN : r;
  return n == 0 ? NAN : (float)r;
}

// --- 2.4 Functions with a pointer result ---------------------------------------------
#define MATH_PTR_AS(AS, T)                                                                 \
  T OVL fract(T x, AS T *iptr) {                                                           \
    T f;                                                                                   \
    T r = __clb_fract(x, &f);                                                              \
    *iptr = f;                                                                             \
    return r;                                                                              \
  }                                                                                        \
  T OVL modf(T x, AS T *iptr) {                                                            \
    T i = BI(T, trunc)(x);                                                                 \
    *iptr = i;                                                                             \
    return BI(T, copysign)(BI(T, fabs)(x) == (T)INFINITY ? (T)0 : x - i, x);               \
  }                                                                                        \
  T OVL frexp(T x, AS int *exp) {                                                          \
    *exp = __clb_frexp_exp(x);                                                             \
    return __clb_frexp_mant(x);                                                            \
  }                                                                                        \
  T OVL sincos(T x, AS T *cosval) {                                                        \
    *cosval = BI(T, cos)(x);                                                               \
    return BI(T, sin)(x);                                                                  \
  }                                                                                        \
  T OVL lgamma_r(T x, AS int *signp) {                                                     \
    *signp = __clb_gamma_sign(x);                                                          \
    return BI(T, lgamma)(x);                                                               \
  }                                                                                        \
  T OVL remquo(T x, T y, AS int *quo) {                                                    \
    int q;                                                                                 \
    T r = __clb_remquo(x, y, &q);                                                          \
    *quo = q;                                                                              \
    return r;                                                                              \
  }
FOR_AS_RW(MATH_PTR_AS, float)
FOR_AS_RW(MATH_PTR_AS, double)

// --- 2.5 native_ and half_ functions (float only; §6.12.2.1) -------------------------
// They may be less precise than the full functions; lanes maps most of them to the same
// operations, so they are the full functions except for reciprocals and divisions.
#define NATIVE1(F, E) float OVL native_##F(float x) { return E; } float OVL half_##F(float x) { return E; }
#define NATIVE2(F, E)                                                                      \
  float OVL native_##F(float x, float y) { return E; }                                     \
  float OVL half_##F(float x, float y) { return E; }
NATIVE1(cos, __builtin_cosf(x))
NATIVE1(sin, __builtin_sinf(x))
NATIVE1(tan, __builtin_tanf(x))
NATIVE1(exp, __builtin_expf(x))
NATIVE1(exp2, __builtin_exp2f(x))
NATIVE1(exp10, __builtin_exp2f(x * 0x1.a934f0p+1f))
NATIVE1(log, __builtin_logf(x))
NATIVE1(log2, __builtin_log2f(x))
NATIVE1(log10, __builtin_log10f(x))
NATIVE1(sqrt, __builtin_sqrtf(x))
NATIVE1(rsqrt, 1.0f / __builtin_sqrtf(x))
NATIVE1(recip, 1.0f / x)
NATIVE2(divide, x / y)
NATIVE2(powr, powr(x, y))

// --- 2.6 Vector overloads -------------------------------------------------------------
#define MATH_VECTORS(T)                                                                    \
  V1(T, acos, T) V1(T, acosh, T) V1(T, acospi, T) V1(T, asin, T) V1(T, asinh, T)           \
  V1(T, asinpi, T) V1(T, atan, T) V1(T, atanh, T) V1(T, atanpi, T) V1(T, cbrt, T)          \
  V1(T, ceil, T) V1(T, cos, T) V1(T, cosh, T) V1(T, cospi, T) V1(T, erfc, T)               \
  V1(T, erf, T) V1(T, exp, T) V1(T, exp2, T) V1(T, exp10, T) V1(T, expm1, T)               \
  V1(T, fabs, T) V1(T, floor, T) V1(T, lgamma, T) V1(T, log, T) V1(T, log2, T)             \
  V1(T, log10, T) V1(T, log1p, T) V1(T, logb, T) V1(T, rint, T) V1(T, round, T)            \
  V1(T, rsqrt, T) V1(T, sin, T) V1(T, sinh, T) V1(T, sinpi, T) V1(T, sqrt, T)              \
  V1(T, tan, T) V1(T, tanh, T) V1(T, tanpi, T) V1(T, tgamma, T) V1(T, trunc, T)            \
  V1(int, ilogb, T) V1(T, nan, F_UINT_##T)                                                 \
  V2(T, atan2, T, T) V2(T, atan2pi, T, T) V2(T, copysign, T, T) V2(T, fdim, T, T)          \
  V2(T, fmax, T, T) V2(T, fmin, T, T) V2(T, fmod, T, T) V2(T, hypot, T, T)                 \
  V2(T, maxmag, T, T) V2(T, minmag, T, T) V2(T, nextafter, T, T) V2(T, pow, T, T)          \
  V2(T, powr, T, T) V2(T, remainder, T, T) V2(T, pown, T, int) V2(T, rootn, T, int)        \
  V2(T, ldexp, T, int) V2S(T, ldexp, T, int) V2S(T, fmax, T, T) V2S(T, fmin, T, T)         \
  V3(T, fma, T, T, T) V3(T, mad, T, T, T)                                                  \
  VP1(T, fract, T, T) VP1(T, modf, T, T) VP1(T, sincos, T, T) VP1(T, frexp, T, int)        \
  VP1(T, lgamma_r, T, int) VP2(T, remquo, T, int)
MATH_VECTORS(float)
MATH_VECTORS(double)
#define NATIVE_VECTORS(P)                                                                  \
  V1(float, P##cos, float) V1(float, P##sin, float) V1(float, P##tan, float)               \
  V1(float, P##exp, float) V1(float, P##exp2, float) V1(float, P##exp10, float)            \
  V1(float, P##log, float) V1(float, P##log2, float) V1(float, P##log10, float)            \
  V1(float, P##sqrt, float) V1(float, P##rsqrt, float) V1(float, P##recip, float)          \
  V2(float, P##divide, float, float) V2(float, P##powr, float, float)
NATIVE_VECTORS(native_)
NATIVE_VECTORS(half_)

// ===================================================================================
// 3. Integer functions (§6.12.3)
// ===================================================================================

// Properties of the integer types, by type name: unsigned and signed types of the same
// width, width, limits, the types narrow sums (WIDE) and products (WMUL) are computed in.
#define I_U_char uchar
#define I_U_uchar uchar
#define I_U_short ushort
#define I_U_ushort ushort
#define I_U_int uint
#define I_U_uint uint
#define I_U_long ulong
#define I_U_ulong ulong
#define I_S_char char
#define I_S_uchar char
#define I_S_short short
#define I_S_ushort short
#define I_S_int int
#define I_S_uint int
#define I_S_long long
#define I_S_ulong long
#define I_BITS_char 8
#define I_BITS_uchar 8
#define I_BITS_short 16
#define I_BITS_ushort 16
#define I_BITS_int 32
#define I_BITS_uint 32
#define I_BITS_long 64
#define I_BITS_ulong 64
#define I_MIN_char CHAR_MIN
#define I_MIN_uchar 0
#define I_MIN_short SHRT_MIN
#define I_MIN_ushort 0
#define I_MIN_int INT_MIN
#define I_MIN_uint 0
#define I_MIN_long LONG_MIN
#define I_MIN_ulong 0
#define I_MAX_char CHAR_MAX
#define I_MAX_uchar UCHAR_MAX
#define I_MAX_short SHRT_MAX
#define I_MAX_ushort USHRT_MAX
#define I_MAX_int INT_MAX
#define I_MAX_uint UINT_MAX
#define I_MAX_long LONG_MAX
#define I_MAX_ulong ULONG_MAX
#define I_WIDE_char int
#define I_WIDE_uchar int
#define I_WIDE_short int
#define I_WIDE_ushort int
#define I_WMUL_char int
#define I_WMUL_uchar int
#define I_WMUL_short int
#define I_WMUL_ushort uint
// Signedness, for dispatch: S or U.
#define I_SGN_char S
#define I_SGN_uchar U
#define I_SGN_short S
#define I_SGN_ushort U
#define I_SGN_int S
#define I_SGN_uint U
#define I_SGN_long S
#define I_SGN_ulong U

#define FOR_INT_TYPES(M) M(char) M(uchar) M(short) M(ushort) M(int) M(uint) M(long) M(ulong)
#define FOR_SIGNED_INT_TYPES(M) M(char) M(short) M(int) M(long)

// 64-bit high products from 32-bit halves.
HLP ulong __clb_mul_hi_u64(ulong a, ulong b) {
  ulong al = a & 0xffffffffUL, ah = a >> 32, bl = b & 0xffffffffUL, bh = b >> 32;
  ulong p0 = al * bl, p1 = al * bh, p2 = ah * bl, p3 = ah * bh;
  ulong mid = (p0 >> 32) + (p1 & 0xffffffffUL) + (p2 & 0xffffffffUL);
  return p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);
}
HLP long __clb_mul_hi_s64(long a, long b) {
  ulong h = __clb_mul_hi_u64((ulong)a, (ulong)b);
  h -= a < 0 ? (ulong)b : 0UL;
  h -= b < 0 ? (ulong)a : 0UL;
  return (long)h;
}

// Functions whose definition is the same for every integer type.
#define INT_COMMON(T)                                                                      \
  I_U_##T OVL abs_diff(T x, T y) {                                                         \
    return x > y ? (I_U_##T)((I_U_##T)x - (I_U_##T)y) : (I_U_##T)((I_U_##T)y - (I_U_##T)x); \
  }                                                                                        \
  /* floor((x + y) / 2) and ceil((x + y) / 2) without overflow */                          \
  T OVL hadd(T x, T y) { return (T)((x >> 1) + (y >> 1) + (x & y & 1)); }                  \
  T OVL rhadd(T x, T y) { return (T)((x >> 1) + (y >> 1) + ((x | y) & 1)); }               \
  T OVL max(T x, T y) { return x > y ? x : y; }                                            \
  T OVL min(T x, T y) { return x < y ? x : y; }                                            \
  T OVL clamp(T x, T lo, T hi) { return min(max(x, lo), hi); }                             \
  T OVL clz(T x) { return (T)__builtin_clzg((I_U_##T)x, I_BITS_##T); }                     \
  T OVL popcount(T x) { return (T)__builtin_popcountg((I_U_##T)x); }                       \
  T OVL rotate(T v, T i) {                                                                 \
    return (T)CAT(__builtin_rotateleft, I_BITS_##T)((I_U_##T)v, (I_U_##T)i);               \
  }                                                                                        \
  T OVL mad_hi(T a, T b, T c) { return (T)(mul_hi(a, b) + c); }                            \
  V1(I_U_##T, abs, T) V2(I_U_##T, abs_diff, T, T) V2(T, add_sat, T, T)                     \
  V2(T, sub_sat, T, T) V2(T, hadd, T, T) V2(T, rhadd, T, T) V2(T, max, T, T)               \
  V2(T, min, T, T) V2S(T, max, T, T) V2S(T, min, T, T) V3(T, clamp, T, T, T)               \
  V3SS(T, clamp, T, T) V1(T, clz, T) V1(T, popcount, T) V2(T, rotate, T, T)                \
  V2(T, mul_hi, T, T) V3(T, mad_hi, T, T, T) V3(T, mad_sat, T, T, T)

#define INT_SIGNED(T)                                                                      \
  I_U_##T OVL abs(T x) { return x < 0 ? (I_U_##T)(0 - (I_U_##T)x) : (I_U_##T)x; }
#define INT_UNSIGNED(T)                                                                    \
  T OVL abs(T x) { return x; }

// Narrow types: saturating arithmetic (in int) and high products in a wider type.
// (__builtin_elementwise_add_sat is no use here: clang promotes scalar char and short
// arguments to int before applying it.)
#define INT_NARROW(T)                                                                      \
  T OVL add_sat(T x, T y) {                                                                \
    I_WIDE_##T s = (I_WIDE_##T)x + (I_WIDE_##T)y;                                          \
    return (T)(s > I_MAX_##T ? I_MAX_##T : (s < I_MIN_##T ? I_MIN_##T : s));               \
  }                                                                                        \
  T OVL sub_sat(T x, T y) {                                                                \
    I_WIDE_##T d = (I_WIDE_##T)x - (I_WIDE_##T)y;                                          \
    return (T)(d > I_MAX_##T ? I_MAX_##T : (d < I_MIN_##T ? I_MIN_##T : d));               \
  }                                                                                        \
  T OVL mul_hi(T x, T y) {                                                                 \
    return (T)(((I_WMUL_##T)x * (I_WMUL_##T)y) >> I_BITS_##T);                             \
  }                                                                                        \
  T OVL mad_sat(T a, T b, T c) {                                                           \
    /* the product and sum fit the wider type (unsigned for ushort) */                     \
    I_WMUL_##T s = (I_WMUL_##T)a * (I_WMUL_##T)b + (I_WMUL_##T)c;                          \
    return (T)(s > I_MAX_##T ? I_MAX_##T : (s < I_MIN_##T ? I_MIN_##T : s));               \
  }
// 32- and 64-bit types: llvm.[su]{add,sub}.sat.
#define INT_SAT_BUILTIN(T)                                                                 \
  T OVL add_sat(T x, T y) { return __builtin_elementwise_add_sat(x, y); }                  \
  T OVL sub_sat(T x, T y) { return __builtin_elementwise_sub_sat(x, y); }

INT_SIGNED(char)
INT_SIGNED(short)
INT_SIGNED(int)
INT_SIGNED(long)
INT_UNSIGNED(uchar)
INT_UNSIGNED(ushort)
INT_UNSIGNED(uint)
INT_UNSIGNED(ulong)
INT_NARROW(char)
INT_NARROW(uchar)
INT_NARROW(short)
INT_NARROW(ushort)
INT_SAT_BUILTIN(int)
INT_SAT_BUILTIN(uint)
INT_SAT_BUILTIN(long)
INT_SAT_BUILTIN(ulong)
int OVL mul_hi(int x, int y) { return (int)(((long)x * (long)y) >> 32); }
uint OVL mul_hi(uint x, uint y) { return (uint)(((ulong)x * (ulong)y) >> 32); }
int OVL mad_sat(int a, int b, int c) {
  long s = (long)a * (long)b + (long)c; // |a*b| <= 2^62: no overflow
  return (int)(s > INT_MAX ? INT_MAX : (s < INT_MIN ? INT_MIN : s));
}
uint OVL mad_sat(uint a, uint b, uint c) {
  ulong s = (ulong)a * (ulong)b + (ulong)c; // <= 2^64 - 2^32
  return (uint)(s > UINT_MAX ? UINT_MAX : s);
}
long OVL mul_hi(long x, long y) { return __clb_mul_hi_s64(x, y); }
ulong OVL mul_hi(ulong x, ulong y) { return __clb_mul_hi_u64(x, y); }
// The 128-bit a*b + c, saturated: hi:lo is the product, then c is added with its sign
// extension and the carry.
long OVL mad_sat(long a, long b, long c) {
  ulong lo = (ulong)a * (ulong)b;
  long hi = __clb_mul_hi_s64(a, b);
  ulong lo2 = lo + (ulong)c;
  hi += (c < 0 ? -1L : 0L) + (lo2 < lo ? 1L : 0L);
  long r = (long)lo2;
  int fits = hi == (r >> 63);
  return fits ? r : (hi < 0 ? LONG_MIN : LONG_MAX);
}
ulong OVL mad_sat(ulong a, ulong b, ulong c) {
  ulong lo = a * b;
  ulong hi = __clb_mul_hi_u64(a, b);
  ulong lo2 = lo + c;
  hi += lo2 < lo ? 1UL : 0UL;
  return hi != 0 ? ULONG_MAX : lo2;
}
FOR_INT_TYPES(INT_COMMON)

// upsample(hi, lo) = hi << width | lo, into the type twice as wide.
#define UPSAMPLE(R, T, U, BITS)                                                            \
  R OVL upsample(T hi, U lo) {                                                             \
    return (R)(((I_U_##R)(U)hi << BITS) | (I_U_##R)lo);                                    \
  }                                                                                        \
  V2(R, upsample, T, U)
UPSAMPLE(short, char, uchar, 8)
UPSAMPLE(ushort, uchar, uchar, 8)
UPSAMPLE(int, short, ushort, 16)
UPSAMPLE(uint, ushort, ushort, 16)
UPSAMPLE(long, int, uint, 32)
UPSAMPLE(ulong, uint, uint, 32)

// 24-bit multiplication (§6.12.3.1): the operands' low 24 bits, sign-extended for int.
int OVL mul24(int x, int y) {
  return (int)((uint)((int)((uint)x << 8) >> 8) * (uint)((int)((uint)y << 8) >> 8));
}
uint OVL mul24(uint x, uint y) { return (x & 0xffffffu) * (y & 0xffffffu); }
int OVL mad24(int x, int y, int z) { return (int)((uint)mul24(x, y) + (uint)z); }
uint OVL mad24(uint x, uint y, uint z) { return mul24(x, y) + z; }
V2(int, mul24, int, int)
V2(uint, mul24, uint, uint)
V3(int, mad24, int, int, int)
V3(uint, mad24, uint, uint, uint)

// ===================================================================================
// 4. Common functions (§6.12.4)
// ===================================================================================

// Overloads whose leading arguments are scalars: R_n F(X, X_n) and R_n F(X, X, X_n).
#define VS2_(N, A, B, NA, NB, R, F, X) R##N OVL F(X e, X##N x) { return F((X##N)(e), x); }
#define VS2(R, F, X) FOR_WIDTHS(VS2_, R, F, X)
#define VSS3_(N, A, B, NA, NB, R, F, X)                                                    \
  R##N OVL F(X e0, X e1, X##N x) { return F((X##N)(e0), (X##N)(e1), x); }
#define VSS3(R, F, X) FOR_WIDTHS(VSS3_, R, F, X)
// R_n F(X_n, X_n, X): mix with a scalar weight.
#define V3S_(N, A, B, NA, NB, R, F, X) R##N OVL F(X##N x, X##N y, X a) { return F(x, y, (X##N)(a)); }
#define V3S(R, F, X) FOR_WIDTHS(V3S_, R, F, X)

#define COMMON(T)                                                                          \
  T OVL clamp(T x, T lo, T hi) { return BI(T, fmin)(BI(T, fmax)(x, lo), hi); }             \
  T OVL degrees(T r) { return r * (T)57.295779513082320876798154814105; }                  \
  T OVL radians(T d) { return d * (T)0.017453292519943295769236907684886; }                \
  T OVL max(T x, T y) { return BI(T, fmax)(x, y); }                                        \
  T OVL min(T x, T y) { return BI(T, fmin)(x, y); }                                        \
  T OVL mix(T x, T y, T a) { return x + (y - x) * a; }                                     \
  T OVL step(T edge, T x) { return x < edge ? (T)0 : (T)1; }                               \
  T OVL smoothstep(T e0, T e1, T x) {                                                      \
    T t = clamp((x - e0) / (e1 - e0), (T)0, (T)1);                                         \
    return t * t * ((T)3 - (T)2 * t);                                                      \
  }                                                                                        \
  T OVL sign(T x) {                                                                        \
    T r = x > 0 ? (T)1 : (x < 0 ? (T)-1 : x); /* keeps the sign of zero */                 \
    return x != x ? (T)0 : r;                                                              \
  }                                                                                        \
  V3(T, clamp, T, T, T) V3SS(T, clamp, T, T) V1(T, degrees, T) V1(T, radians, T)           \
  V2(T, max, T, T) V2S(T, max, T, T) V2(T, min, T, T) V2S(T, min, T, T)                    \
  V3(T, mix, T, T, T) V3S(T, mix, T) V2(T, step, T, T) VS2(T, step, T)                     \
  V3(T, smoothstep, T, T, T) VSS3(T, smoothstep, T) V1(T, sign, T)
COMMON(float)
COMMON(double)

// ===================================================================================
// 5. Geometric functions (§6.12.5): vectors of 1 to 4 elements
// ===================================================================================

#define GEO_DOT(T)                                                                         \
  T OVL dot(T p, T q) { return p * q; }                                                    \
  T OVL dot(T##2 p, T##2 q) { return p.x * q.x + p.y * q.y; }                              \
  T OVL dot(T##3 p, T##3 q) { return p.x * q.x + p.y * q.y + p.z * q.z; }                  \
  T OVL dot(T##4 p, T##4 q) { return p.x * q.x + p.y * q.y + p.z * q.z + p.w * q.w; }      \
  T##3 OVL cross(T##3 p, T##3 q) {                                                         \
    return (T##3)(p.y * q.z - p.z * q.y, p.z * q.x - p.x * q.z, p.x * q.y - p.y * q.x);    \
  }                                                                                        \
  T##4 OVL cross(T##4 p, T##4 q) {                                                         \
    return (T##4)(p.y * q.z - p.z * q.y, p.z * q.x - p.x * q.z, p.x * q.y - p.y * q.x, 0); \
  }
GEO_DOT(float)
GEO_DOT(double)

// length and normalize rescale when the sum of squares overflows or loses precision to
// underflow (the scale factors are those of libclc).
#define GEO_N(V, T, BIG, SMALL)                                                            \
  T OVL length(V p) {                                                                      \
    T l2 = dot(p, p);                                                                      \
    T r = BI(T, sqrt)(l2);                                                                 \
    r = l2 < F_MINNORM_##T ? BI(T, sqrt)(dot(p * BIG, p * BIG)) * (1 / BIG) : r;           \
    r = l2 == (T)INFINITY ? BI(T, sqrt)(dot(p * SMALL, p * SMALL)) * (1 / SMALL) : r;      \
    return r;                                                                              \
  }                                                                                        \
  T OVL distance(V p, V q) { return length(p - q); }                                       \
  V OVL normalize(V p) {                                                                   \
    T l2 = dot(p, p);                                                                      \
    V q = p;                                                                               \
    if (l2 < F_MINNORM_##T) {                                                              \
      q = p * BIG;                                                                         \
    } else if (l2 == (T)INFINITY) {                                                        \
      q = p * SMALL;                                                                       \
      if (dot(q, q) == (T)INFINITY) /* infinite elements: their signs, others 0 */         \
        q = copysign(__clb_isinf_01(q), q);                                                \
    }                                                                                      \
    T lq = dot(q, q);                                                                      \
    return lq == 0 ? p : q * ((T)1 / BI(T, sqrt)(lq)); /* all zero: p itself */            \
  }
HLP float __clb_isinf_01(float x) { return __builtin_fabsf(x) == INFINITY ? 1.0f : 0.0f; }
HLP double __clb_isinf_01(double x) { return __builtin_fabs(x) == INFINITY ? 1.0 : 0.0; }
V1(float, __clb_isinf_01, float)
V1(double, __clb_isinf_01, double)
#define GEO_ALL(T, BIG, SMALL)                                                             \
  GEO_N(T, T, BIG, SMALL) GEO_N(T##2, T, BIG, SMALL) GEO_N(T##3, T, BIG, SMALL)            \
  GEO_N(T##4, T, BIG, SMALL)
GEO_ALL(float, 0x1p86f, 0x1p-65f)
GEO_ALL(double, 0x1p563, 0x1p-513)

#define GEO_FAST(V)                                                                        \
  float OVL fast_length(V p) { return half_sqrt(dot(p, p)); }                              \
  float OVL fast_distance(V p, V q) { return fast_length(p - q); }                         \
  V OVL fast_normalize(V p) {                                                              \
    float l2 = dot(p, p);                                                                  \
    return l2 == 0.0f ? p : p * half_rsqrt(l2);                                            \
  }
GEO_FAST(float)
GEO_FAST(float2)
GEO_FAST(float3)
GEO_FAST(float4)

// ===================================================================================
// 6. Relational functions (§6.12.6)
// ===================================================================================
// Scalar overloads return int 1 or 0; vector ones -1 (all bits set) or 0 in each element
// of the signed integer type of the element's width: what OpenCL C's own comparison and
// logical operators give for scalars and vectors, so every overload is the same
// expression.

#define REL1_V_(N, A, B, NA, NB, F, T, E) CAT(F_INT_##T, N) OVL F(T##N x) { return E; }
#define REL1(F, T, E) int OVL F(T x) { return E; } FOR_WIDTHS(REL1_V_, F, T, E)
#define REL2_V_(N, A, B, NA, NB, F, T, E) CAT(F_INT_##T, N) OVL F(T##N x, T##N y) { return E; }
#define REL2(F, T, E) int OVL F(T x, T y) { return E; } FOR_WIDTHS(REL2_V_, F, T, E)
#define SIGNBIT_V_(N, A, B, NA, NB, T)                                                     \
  CAT(F_INT_##T, N) OVL signbit(T##N x) { return CAT(as_, CAT(F_INT_##T, N))(x) < 0; }

#define RELATIONAL(T)                                                                      \
  REL2(isequal, T, x == y)                                                                 \
  REL2(isnotequal, T, x != y)                                                              \
  REL2(isgreater, T, x > y)                                                                \
  REL2(isgreaterequal, T, x >= y)                                                          \
  REL2(isless, T, x < y)                                                                   \
  REL2(islessequal, T, x <= y)                                                             \
  REL2(islessgreater, T, x < y || x > y)                                                   \
  REL2(isordered, T, x == x && y == y)                                                     \
  REL2(isunordered, T, x != x || y != y)                                                   \
  REL1(isfinite, T, fabs(x) < (T)INFINITY)                                                 \
  REL1(isinf, T, fabs(x) == (T)INFINITY)                                                   \
  REL1(isnan, T, x != x)                                                                   \
  REL1(isnormal, T, fabs(x) >= F_MINNORM_##T && fabs(x) < (T)INFINITY)                     \
  int OVL signbit(T x) { return CAT(as_, F_INT_##T)(x) < 0; }                              \
  FOR_WIDTHS(SIGNBIT_V_, T)
RELATIONAL(float)
RELATIONAL(double)

// any / all: is the most significant bit set in any / all elements?
#define ANY_ALL_V_(N, A, B, NA, NB, T)                                                     \
  int OVL any(T##N x) { return any(x.A) | any(x.B); }                                      \
  int OVL all(T##N x) { return all(x.A) & all(x.B); }
#define ANY_ALL(T)                                                                         \
  int OVL any(T x) { return x < 0; }                                                       \
  int OVL all(T x) { return x < 0; }                                                       \
  FOR_WIDTHS(ANY_ALL_V_, T)
FOR_SIGNED_INT_TYPES(ANY_ALL)

// bitselect(a, b, c): each bit from b where c's is set, else from a.
#define BITSELECT_INT(T)                                                                   \
  T OVL bitselect(T a, T b, T c) { return (T)((a & ~c) | (b & c)); }                       \
  V3(T, bitselect, T, T, T)
FOR_INT_TYPES(BITSELECT_INT)
#define BITSELECT_FLOAT(T)                                                                 \
  T OVL bitselect(T a, T b, T c) {                                                         \
    F_UINT_##T ua = AS_UINT(T, a), ub = AS_UINT(T, b), uc = AS_UINT(T, c);                 \
    return AS_FLT(T, (ua & ~uc) | (ub & uc));                                              \
  }                                                                                        \
  V3(T, bitselect, T, T, T)
BITSELECT_FLOAT(float)
BITSELECT_FLOAT(double)

// select(a, b, c): b where c is nonzero (scalars) or where c's most significant bit is
// set (vectors), else a; c is signed or unsigned, of the element width of a.
#define SELECT_V_(N, A, B, NA, NB, T, ST, UT)                                                \
  T##N OVL select(T##N a, T##N b, ST##N c) { return c < (ST##N)0 ? b : a; }                \
  T##N OVL select(T##N a, T##N b, UT##N c) { return CAT(as_, ST##N)(c) < (ST##N)0 ? b : a; }
#define SELECT(T, ST, UT)                                                                  \
  T OVL select(T a, T b, ST c) { return c ? b : a; }                                       \
  T OVL select(T a, T b, UT c) { return c ? b : a; }                                       \
  FOR_WIDTHS(SELECT_V_, T, ST, UT)
#define SELECT_INT(T) SELECT(T, I_S_##T, I_U_##T)
FOR_INT_TYPES(SELECT_INT)
SELECT(float, int, uint)
SELECT(double, long, ulong)

// ===================================================================================
// 7. Vector data load and store (§6.12.7)
// ===================================================================================

#define FOR_ALL_SCALAR_TYPES(M)                                                            \
  M(char) M(uchar) M(short) M(ushort) M(int) M(uint) M(long) M(ulong) M(float) M(double)

#define VLOAD_AS(AS, T)                                                                    \
  T##2 OVL vload2(size_t i, const AS T *p) {                                               \
    const AS T *q = p + i * 2;                                                             \
    return (T##2)(q[0], q[1]);                                                             \
  }                                                                                        \
  T##3 OVL vload3(size_t i, const AS T *p) {                                               \
    const AS T *q = p + i * 3;                                                             \
    return (T##3)(q[0], q[1], q[2]);                                                       \
  }                                                                                        \
  T##4 OVL vload4(size_t i, const AS T *p) { return (T##4)(vload2(2 * i, p), vload2(2 * i + 1, p)); } \
  T##8 OVL vload8(size_t i, const AS T *p) { return (T##8)(vload4(2 * i, p), vload4(2 * i + 1, p)); } \
  T##16 OVL vload16(size_t i, const AS T *p) {                                             \
    return (T##16)(vload8(2 * i, p), vload8(2 * i + 1, p));                                \
  }
#define VSTORE_AS(AS, T)                                                                   \
  void OVL vstore2(T##2 v, size_t i, AS T *p) {                                            \
    AS T *q = p + i * 2;                                                                   \
    q[0] = v.s0;                                                                           \
    q[1] = v.s1;                                                                           \
  }                                                                                        \
  void OVL vstore3(T##3 v, size_t i, AS T *p) {                                            \
    AS T *q = p + i * 3;                                                                   \
    q[0] = v.s0;                                                                           \
    q[1] = v.s1;                                                                           \
    q[2] = v.s2;                                                                           \
  }                                                                                        \
  void OVL vstore4(T##4 v, size_t i, AS T *p) {                                            \
    vstore2(v.lo, 2 * i, p);                                                               \
    vstore2(v.hi, 2 * i + 1, p);                                                           \
  }                                                                                        \
  void OVL vstore8(T##8 v, size_t i, AS T *p) {                                            \
    vstore4(v.lo, 2 * i, p);                                                               \
    vstore4(v.hi, 2 * i + 1, p);                                                           \
  }                                                                                        \
  void OVL vstore16(T##16 v, size_t i, AS T *p) {                                          \
    vstore8(v.lo, 2 * i, p);                                                               \
    vstore8(v.hi, 2 * i + 1, p);                                                           \
  }
#define VLOAD_STORE(T) FOR_AS_RO(VLOAD_AS, T) FOR_AS_RW(VSTORE_AS, T)
FOR_ALL_SCALAR_TYPES(VLOAD_STORE)

// half as a storage format: IEEE 754 binary16 by bit manipulation.
HLP float __clb_half_to_float(ushort h) {
  uint s = (uint)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  float normal = as_float(s | ((e + 112u) << 23) | (m << 13));
  float sub = as_float(s | as_uint((float)m * 0x1p-24f)); // exact
  float special = as_float(s | 0x7f800000u | (m << 13));  // infinities, NaNs (payload kept)
  return e == 0 ? sub : (e == 31 ? special : normal);
}
// T (float or double) to binary16, rounding once in mode 0 (to nearest even), 1 (toward
// zero), 2 (toward +inf) or 3 (toward -inf): |f| is divided by the binary16 ulp at its
// magnitude (a power of two: exact), rounded to an integer in the mode, and multiplied
// back (exact), which gives the binary16 value to encode.
#define TO_HALF(T)                                                                         \
  HLP ushort __clb_to_half(T f, int mode) {                                                \
    const int w = (int)sizeof(T) * 8;                                                      \
    F_UINT_##T u = AS_UINT(T, f);                                                          \
    uint sign = (uint)(u >> (w - 16)) & 0x8000u;                                           \
    int neg = sign != 0;                                                                   \
    T x = BI(T, fabs)(f);                                                                  \
    int e = (int)(AS_UINT(T, x) >> F_MANT_##T) - F_BIAS_##T;                               \
    int ue = (e < -14 ? -14 : e) - 10;                                                     \
    T ulp = AS_FLT(T, (F_UINT_##T)(ue + F_BIAS_##T) << F_MANT_##T);                        \
    T q = x / ulp;                                                                         \
    int up = (mode == 2 && !neg) || (mode == 3 && neg);                                    \
    T qr = mode == 0 ? BI(T, rint)(q) : (up ? BI(T, ceil)(q) : BI(T, trunc)(q));           \
    T m = qr * ulp;                                                                        \
    int em = (int)(AS_UINT(T, m) >> F_MANT_##T) - F_BIAS_##T;                              \
    uint normal = ((uint)(em + 15) << 10) | (uint)((AS_UINT(T, m) >> (F_MANT_##T - 10)) & 0x3ffu); \
    uint bits = m < (T)0x1p-14 ? (uint)(m * (T)0x1p24) : normal;                           \
    bits = m >= (T)65536 ? ((mode == 0 || up) ? 0x7c00u : 0x7bffu) : bits;                 \
    bits = x == (T)INFINITY ? 0x7c00u : bits;                                              \
    bits = x != x ? 0x7e00u | (uint)((u >> (F_MANT_##T - 10)) & 0x3ffu) : bits;            \
    return (ushort)(sign | bits);                                                          \
  }
TO_HALF(float)
TO_HALF(double)

#define VLOAD_HALF_AS(AS, _)                                                               \
  float OVL vload_half(size_t i, const AS half *p) {                                       \
    return __clb_half_to_float(((const AS ushort *)p)[i]);                                 \
  }                                                                                        \
  float2 OVL vload_half2(size_t i, const AS half *p) {                                     \
    return (float2)(vload_half(2 * i, p), vload_half(2 * i + 1, p));                       \
  }                                                                                        \
  float3 OVL vload_half3(size_t i, const AS half *p) {                                     \
    return (float3)(vload_half(3 * i, p), vload_half(3 * i + 1, p), vload_half(3 * i + 2, p)); \
  }                                                                                        \
  float4 OVL vload_half4(size_t i, const AS half *p) {                                     \
    return (float4)(vload_half2(2 * i, p), vload_half2(2 * i + 1, p));                     \
  }                                                                                        \
  float8 OVL vload_half8(size_t i, const AS half *p) {                                     \
    return (float8)(vload_half4(2 * i, p), vload_half4(2 * i + 1, p));                     \
  }                                                                                        \
  float16 OVL vload_half16(size_t i, const AS half *p) {                                   \
    return (float16)(vload_half8(2 * i, p), vload_half8(2 * i + 1, p));                    \
  }                                                                                        \
  /* vloada_half: aligned; only vloada_half3 differs, its vectors are 4 halves apart */    \
  float2 OVL vloada_half2(size_t i, const AS half *p) { return vload_half2(i, p); }        \
  float3 OVL vloada_half3(size_t i, const AS half *p) {                                    \
    return (float3)(vload_half(4 * i, p), vload_half(4 * i + 1, p), vload_half(4 * i + 2, p)); \
  }                                                                                        \
  float4 OVL vloada_half4(size_t i, const AS half *p) { return vload_half4(i, p); }        \
  float8 OVL vloada_half8(size_t i, const AS half *p) { return vload_half8(i, p); }        \
  float16 OVL vloada_half16(size_t i, const AS half *p) { return vload_half16(i, p); }
FOR_AS_RO(VLOAD_HALF_AS, _)

#define VSTORE_HALF_AS(AS, T, SFX, MODE)                                                   \
  void OVL vstore_half##SFX(T v, size_t i, AS half *p) {                                   \
    ((AS ushort *)p)[i] = __clb_to_half(v, MODE);                                          \
  }                                                                                        \
  void OVL vstore_half2##SFX(T##2 v, size_t i, AS half *p) {                               \
    vstore_half##SFX(v.s0, 2 * i, p);                                                      \
    vstore_half##SFX(v.s1, 2 * i + 1, p);                                                  \
  }                                                                                        \
  void OVL vstore_half3##SFX(T##3 v, size_t i, AS half *p) {                               \
    vstore_half##SFX(v.s0, 3 * i, p);                                                      \
    vstore_half##SFX(v.s1, 3 * i + 1, p);                                                  \
    vstore_half##SFX(v.s2, 3 * i + 2, p);                                                  \
  }                                                                                        \
  void OVL vstore_half4##SFX(T##4 v, size_t i, AS half *p) {                               \
    vstore_half2##SFX(v.lo, 2 * i, p);                                                     \
    vstore_half2##SFX(v.hi, 2 * i + 1, p);                                                 \
  }                                                                                        \
  void OVL vstore_half8##SFX(T##8 v, size_t i, AS half *p) {                               \
    vstore_half4##SFX(v.lo, 2 * i, p);                                                     \
    vstore_half4##SFX(v.hi, 2 * i + 1, p);                                                 \
  }                                                                                        \
  void OVL vstore_half16##SFX(T##16 v, size_t i, AS half *p) {                             \
    vstore_half8##SFX(v.lo, 2 * i, p);                                                     \
    vstore_half8##SFX(v.hi, 2 * i + 1, p);                                                 \
  }                                                                                        \
  void OVL vstorea_half2##SFX(T##2 v, size_t i, AS half *p) { vstore_half2##SFX(v, i, p); } \
  void OVL vstorea_half3##SFX(T##3 v, size_t i, AS half *p) {                              \
    vstore_half##SFX(v.s0, 4 * i, p);                                                      \
    vstore_half##SFX(v.s1, 4 * i + 1, p);                                                  \
    vstore_half##SFX(v.s2, 4 * i + 2, p);                                                  \
  }                                                                                        \
  void OVL vstorea_half4##SFX(T##4 v, size_t i, AS half *p) { vstore_half4##SFX(v, i, p); } \
  void OVL vstorea_half8##SFX(T##8 v, size_t i, AS half *p) { vstore_half8##SFX(v, i, p); } \
  void OVL vstorea_half16##SFX(T##16 v, size_t i, AS half *p) { vstore_half16##SFX(v, i, p); }
#define VSTORE_HALF_MODES(AS, T)                                                           \
  VSTORE_HALF_AS(AS, T, , 0)                                                               \
  VSTORE_HALF_AS(AS, T, _rte, 0)                                                           \
  VSTORE_HALF_AS(AS, T, _rtz, 1)                                                           \
  VSTORE_HALF_AS(AS, T, _rtp, 2)                                                           \
  VSTORE_HALF_AS(AS, T, _rtn, 3)
FOR_AS_RW(VSTORE_HALF_MODES, float)
FOR_AS_RW(VSTORE_HALF_MODES, double)

// ===================================================================================
// 8. Synchronization and memory fences (§6.12.8, §6.12.9)
// ===================================================================================
// The work-items of a work-group run on one thread between barriers (which lanes lowers
// itself), so a fence between them orders nothing.
void OVL mem_fence(cl_mem_fence_flags flags) {}
void OVL read_mem_fence(cl_mem_fence_flags flags) {}
void OVL write_mem_fence(cl_mem_fence_flags flags) {}

// ===================================================================================
// 9. Async copies and prefetch (§6.12.10)
// ===================================================================================
// async_work_group_copy is performed collectively by the work-group. lanes runs the
// work-items independently between barriers, so here every work-item copies the whole
// range: the copies store the same values, so the result is the same, and the copy is
// complete when the work-item reaches wait_group_events (which is then a no-op). The
// event returned is the one passed in.

#define ASYNC_COPY(T)                                                                      \
  event_t OVL async_work_group_copy(__local T *dst, const __global T *src, size_t n,       \
                                    event_t e) {                                           \
    for (size_t i = 0; i < n; i++)                                                         \
      dst[i] = src[i];                                                                     \
    return e;                                                                              \
  }                                                                                        \
  event_t OVL async_work_group_copy(__global T *dst, const __local T *src, size_t n,       \
                                    event_t e) {                                           \
    for (size_t i = 0; i < n; i++)                                                         \
      dst[i] = src[i];                                                                     \
    return e;                                                                              \
  }                                                                                        \
  event_t OVL async_work_group_strided_copy(__local T *dst, const __global T *src,         \
                                            size_t n, size_t stride, event_t e) {          \
    for (size_t i = 0; i < n; i++)                                                         \
      dst[i] = src[i * stride];                                                            \
    return e;                                                                              \
  }                                                                                        \
  event_t OVL async_work_group_strided_copy(__global T *dst, const __local T *src,         \
                                            size_t n, size_t stride, event_t e) {          \
    for (size_t i = 0; i < n; i++)                                                         \
      dst[i * stride] = src[i];                                                            \
    return e;                                                                              \
  }                                                                                        \
  void OVL prefetch(const __global T *p, size_t n) {}
#define ASYNC_COPY_WIDTHS(T)                                                               \
  ASYNC_COPY(T) ASYNC_COPY(T##2) ASYNC_COPY(T##3) ASYNC_COPY(T##4) ASYNC_COPY(T##8)        \
  ASYNC_COPY(T##16)
FOR_ALL_SCALAR_TYPES(ASYNC_COPY_WIDTHS)
void OVL wait_group_events(int num_events, event_t *event_list) {}
#if __OPENCL_C_VERSION__ < 200
// clang's lazily declared builtins (-fdeclare-opencl-builtins, the driver's default) give
// wait_group_events a generic event pointer under OpenCL C 1.2 too, which 1.2 cannot
// spell: that overload is defined under its mangled name, with the pointer in the generic
// address space's number.
void __attribute__((always_inline))
__clb_wait_group_events_generic(int num_events, __attribute__((address_space(4))) event_t *event_list)
    __asm__("_Z17wait_group_eventsiPU9CLgeneric9ocl_event");
void __attribute__((always_inline))
__clb_wait_group_events_generic(int num_events, __attribute__((address_space(4))) event_t *event_list) {}
#endif

// ===================================================================================
// 10. Atomic functions (§6.12.11; cl_khr_{global,local}_int32_{base,extended}_atomics
//     and cl_khr_int64_{base,extended}_atomics for the atom_ names)
// ===================================================================================
// Sequentially consistent read-modify-write operations: LLVM atomicrmw and cmpxchg.

#define ATOMICS(P, T, AS)                                                                  \
  T OVL P##add(volatile AS T *p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); } \
  T OVL P##sub(volatile AS T *p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); } \
  T OVL P##xchg(volatile AS T *p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); } \
  T OVL P##min(volatile AS T *p, T v) { return __atomic_fetch_min(p, v, __ATOMIC_SEQ_CST); } \
  T OVL P##max(volatile AS T *p, T v) { return __atomic_fetch_max(p, v, __ATOMIC_SEQ_CST); } \
  T OVL P##and(volatile AS T *p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); } \
  T OVL P##or(volatile AS T *p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }  \
  T OVL P##xor(volatile AS T *p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); } \
  T OVL P##inc(volatile AS T *p) { return __atomic_fetch_add(p, (T)1, __ATOMIC_SEQ_CST); }  \
  T OVL P##dec(volatile AS T *p) { return __atomic_fetch_sub(p, (T)1, __ATOMIC_SEQ_CST); }  \
  T OVL P##cmpxchg(volatile AS T *p, T cmp, T v) {                                         \
    __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);    \
    return cmp; /* the old value, whether or not it was replaced */                        \
  }
#define ATOMICS_AS(AS)                                                                     \
  ATOMICS(atomic_, int, AS)                                                                \
  ATOMICS(atomic_, uint, AS)                                                               \
  ATOMICS(atom_, int, AS)                                                                  \
  ATOMICS(atom_, uint, AS)                                                                 \
  ATOMICS(atom_, long, AS)                                                                 \
  ATOMICS(atom_, ulong, AS)                                                                \
  float OVL atomic_xchg(volatile AS float *p, float v) {                                   \
    return as_float(__atomic_exchange_n((volatile AS uint *)p, as_uint(v), __ATOMIC_SEQ_CST)); \
  }
ATOMICS_AS(__global)
ATOMICS_AS(__local)

// ===================================================================================
// 11. Miscellaneous vector functions (§6.12.12): shuffle, shuffle2
// ===================================================================================
// Element i of the result is element mask[i] (modulo the element count) of x, or of the
// concatenation of x and y.

#define SHUFFLE_M(M, T, UT)                                                                \
  HLP T __clb_elem(T##M x, UT i) { return x[i & (M - 1)]; }                                \
  HLP T __clb_elem2(T##M x, T##M y, UT i) { return (i & M) ? y[i & (M - 1)] : x[i & (M - 1)]; } \
  T##2 OVL shuffle(T##M x, UT##2 m) { return (T##2)(__clb_elem(x, m.s0), __clb_elem(x, m.s1)); } \
  T##4 OVL shuffle(T##M x, UT##4 m) { return (T##4)(shuffle(x, m.lo), shuffle(x, m.hi)); } \
  T##8 OVL shuffle(T##M x, UT##8 m) { return (T##8)(shuffle(x, m.lo), shuffle(x, m.hi)); } \
  T##16 OVL shuffle(T##M x, UT##16 m) { return (T##16)(shuffle(x, m.lo), shuffle(x, m.hi)); } \
  T##2 OVL shuffle2(T##M x, T##M y, UT##2 m) {                                             \
    return (T##2)(__clb_elem2(x, y, m.s0), __clb_elem2(x, y, m.s1));                       \
  }                                                                                        \
  T##4 OVL shuffle2(T##M x, T##M y, UT##4 m) {                                             \
    return (T##4)(shuffle2(x, y, m.lo), shuffle2(x, y, m.hi));                             \
  }                                                                                        \
  T##8 OVL shuffle2(T##M x, T##M y, UT##8 m) {                                             \
    return (T##8)(shuffle2(x, y, m.lo), shuffle2(x, y, m.hi));                             \
  }                                                                                        \
  T##16 OVL shuffle2(T##M x, T##M y, UT##16 m) {                                           \
    return (T##16)(shuffle2(x, y, m.lo), shuffle2(x, y, m.hi));                            \
  }
#define SHUFFLE(T, UT)                                                                     \
  SHUFFLE_M(2, T, UT) SHUFFLE_M(4, T, UT) SHUFFLE_M(8, T, UT) SHUFFLE_M(16, T, UT)
#define SHUFFLE_INT(T) SHUFFLE(T, I_U_##T)
FOR_INT_TYPES(SHUFFLE_INT)
SHUFFLE(float, uint)
SHUFFLE(double, ulong)

// ===================================================================================
// 12. Conversions (§6.2.3): convert_<type><n>[_sat][_rte|_rtz|_rtp|_rtn]
// ===================================================================================
// Rounding: to an integer type the default is _rtz, to a float type _rte (what C's casts
// do). _sat (integer destinations only) clamps to the destination's range, NaN to 0;
// without _sat an out-of-range value is undefined (C's cast). Directed rounding to a float
// type corrects the cast's nearest rounding by one ulp where it went the wrong way.

// Kind of each type: I(nteger) or F(loat).
#define K_char I
#define K_uchar I
#define K_short I
#define K_ushort I
#define K_int I
#define K_uint I
#define K_long I
#define K_ulong I
#define K_float F
#define K_double F

// The neighbours of a float value (not NaN) toward +inf and -inf.
#define NEXT_UP_DOWN(T)                                                                    \
  HLP T __clb_next_up(T f) {                                                               \
    T r = AS_FLT(T, AS_UINT(T, f) + (f > 0 ? (F_UINT_##T)1 : ~(F_UINT_##T)0));             \
    return f == 0 ? F_TRUEMIN_##T : r;                                                     \
  }                                                                                        \
  HLP T __clb_next_down(T f) {                                                             \
    T r = AS_FLT(T, AS_UINT(T, f) + (f > 0 ? ~(F_UINT_##T)0 : (F_UINT_##T)1));             \
    return f == 0 ? -F_TRUEMIN_##T : r;                                                    \
  }                                                                                        \
  /* f, the nearest value to an exact value X, rounded in mode 1 (toward zero), 2 (toward */ \
  /* +inf) or 3 (toward -inf); cmp is the sign of f - X, neg whether X < 0 */               \
  HLP T __clb_round_dir(T f, int cmp, int neg, int mode) {                                 \
    int down = (mode == 3 || (mode == 1 && !neg)) && cmp > 0;                              \
    int up = (mode == 2 || (mode == 1 && neg)) && cmp < 0;                                 \
    return down ? __clb_next_down(f) : (up ? __clb_next_up(f) : f);                        \
  }                                                                                        \
  /* integer to T with directed rounding (the comparison is exact in the integer type) */  \
  HLP T __clb_i2f(long v, T dummy, int mode) {                                             \
    T f = (T)v;                                                                            \
    int cmp = f >= (T)0x1p63 ? 1 : ((long)f > v ? 1 : ((long)f < v ? -1 : 0));             \
    return __clb_round_dir(f, cmp, v < 0, mode);                                           \
  }                                                                                        \
  HLP T __clb_i2f(ulong v, T dummy, int mode) {                                            \
    T f = (T)v;                                                                            \
    int cmp = f >= (T)0x1p64 ? 1 : ((ulong)f > v ? 1 : ((ulong)f < v ? -1 : 0));           \
    return __clb_round_dir(f, cmp, 0, mode);                                               \
  }
NEXT_UP_DOWN(float)
NEXT_UP_DOWN(double)
HLP float __clb_d2f(double x, int mode) {
  float f = (float)x;
  double fd = (double)f;
  return __clb_round_dir(f, fd > x ? 1 : (fd < x ? -1 : 0), x < 0, mode);
}

// Saturating float (already rounded to an integral value, or not for _rtz) to integer.
#define CVT_LO_char -128.0
#define CVT_LO_uchar 0.0
#define CVT_LO_short -32768.0
#define CVT_LO_ushort 0.0
#define CVT_LO_int -0x1p31
#define CVT_LO_uint 0.0
#define CVT_LO_long -0x1p63
#define CVT_LO_ulong 0.0
#define CVT_HI_char 128.0
#define CVT_HI_uchar 256.0
#define CVT_HI_short 32768.0
#define CVT_HI_ushort 65536.0
#define CVT_HI_int 0x1p31
#define CVT_HI_uint 0x1p32
#define CVT_HI_long 0x1p63
#define CVT_HI_ulong 0x1p64
#define SAT_F2I(D, T)                                                                      \
  HLP D __clb_sat_##D(T r) {                                                               \
    D v = (D)r;                                                                            \
    v = r >= (T)CVT_HI_##D ? (D)I_MAX_##D : v;                                             \
    v = r < (T)CVT_LO_##D ? (D)I_MIN_##D : v;                                              \
    return r != r ? (D)0 : v;                                                              \
  }
#define SAT_F2I_BOTH(D) SAT_F2I(D, float) SAT_F2I(D, double)
FOR_INT_TYPES(SAT_F2I_BOTH)

// Saturating integer to integer: through long (signed sources) or ulong (unsigned ones).
#define CVT_SMAX_char 127L
#define CVT_SMAX_uchar 255L
#define CVT_SMAX_short 32767L
#define CVT_SMAX_ushort 65535L
#define CVT_SMAX_int 2147483647L
#define CVT_SMAX_uint 4294967295L
#define CVT_SMAX_long LONG_MAX
#define CVT_SMAX_ulong LONG_MAX
#define CVT_UMAX_char 127UL
#define CVT_UMAX_uchar 255UL
#define CVT_UMAX_short 32767UL
#define CVT_UMAX_ushort 65535UL
#define CVT_UMAX_int 2147483647UL
#define CVT_UMAX_uint 4294967295UL
#define CVT_UMAX_long 9223372036854775807UL
#define CVT_UMAX_ulong ULONG_MAX
#define CVT_II_0(D, S, x) (D)(x)
#define CVT_II_1(D, S, x) CAT(CVT_II_SAT_, I_SGN_##S)(D, x)
#define CVT_II_SAT_S(D, x)                                                                 \
  (D)((long)(x) < (long)I_MIN_##D ? (long)I_MIN_##D                                        \
                                  : ((long)(x) > CVT_SMAX_##D ? CVT_SMAX_##D : (long)(x)))
#define CVT_II_SAT_U(D, x) (D)((ulong)(x) > CVT_UMAX_##D ? CVT_UMAX_##D : (ulong)(x))

// Float to integer: round in the mode (the cast itself rounds toward zero), then convert.
#define CVT_ROUND_DEF(S, x) (x)
#define CVT_ROUND_RTZ(S, x) (x)
#define CVT_ROUND_RTE(S, x) BI(S, rint)(x)
#define CVT_ROUND_RTP(S, x) BI(S, ceil)(x)
#define CVT_ROUND_RTN(S, x) BI(S, floor)(x)
#define CVT_IF_0(D, S, r) (D)(r)
#define CVT_IF_1(D, S, r) __clb_sat_##D(r)

// Integer to float: exact for some pairs (E), else (N) directed modes need a correction.
#define X_float_char E
#define X_float_uchar E
#define X_float_short E
#define X_float_ushort E
#define X_float_int N
#define X_float_uint N
#define X_float_long N
#define X_float_ulong N
#define X_double_char E
#define X_double_uchar E
#define X_double_short E
#define X_double_ushort E
#define X_double_int E
#define X_double_uint E
#define X_double_long N
#define X_double_ulong N
#define X_float_float E
#define X_float_double N
#define X_double_float E
#define X_double_double E
#define CVT_WIDE_S(x) (long)(x)
#define CVT_WIDE_U(x) (ulong)(x)
#define CVT_FI_DEF(D, S, x) (D)(x)
#define CVT_FI_RTE(D, S, x) (D)(x)
#define CVT_FI_RTZ(D, S, x) CVT_FI_DIR(D, S, x, 1)
#define CVT_FI_RTP(D, S, x) CVT_FI_DIR(D, S, x, 2)
#define CVT_FI_RTN(D, S, x) CVT_FI_DIR(D, S, x, 3)
#define CVT_FI_DIR(D, S, x, mode) CAT(CVT_FI_DIR_, X_##D##_##S)(D, S, x, mode)
#define CVT_FI_DIR_E(D, S, x, mode) (D)(x)
#define CVT_FI_DIR_N(D, S, x, mode) __clb_i2f(CAT(CVT_WIDE_, I_SGN_##S)(x), (D)0, mode)
// Float to float: only double to float rounds.
#define CVT_FF_DEF(D, S, x) (D)(x)
#define CVT_FF_RTE(D, S, x) (D)(x)
#define CVT_FF_RTZ(D, S, x) CVT_FF_DIR(D, S, x, 1)
#define CVT_FF_RTP(D, S, x) CVT_FF_DIR(D, S, x, 2)
#define CVT_FF_RTN(D, S, x) CVT_FF_DIR(D, S, x, 3)
#define CVT_FF_DIR(D, S, x, mode) CAT(CVT_FF_DIR_, X_##D##_##S)(x, mode)
#define CVT_FF_DIR_E(x, mode) (x)
#define CVT_FF_DIR_N(x, mode) __clb_d2f(x, mode)

#define CVT_BODY_II(D, S, M, SAT, x) CAT(CVT_II_, SAT)(D, S, x)
#define CVT_BODY_IF(D, S, M, SAT, x) CAT(CVT_IF_, SAT)(D, S, CVT_ROUND_##M(S, x))
#define CVT_BODY_FI(D, S, M, SAT, x) CVT_FI_##M(D, S, x)
#define CVT_BODY_FF(D, S, M, SAT, x) CVT_FF_##M(D, S, x)
#define CVT_BODY(D, S, M, SAT, x) CAT(CVT_BODY_, CAT(K_##D, K_##S))(D, S, M, SAT, x)

#define CVT_VEC_(N, A, B, NA, NB, D, S, SFX)                                               \
  D##N OVL convert_##D##N##SFX(S##N x) {                                                   \
    return (D##N)(convert_##D##NA##SFX(x.A), convert_##D##NB##SFX(x.B));                  \
  }
#define CVT_ONE(D, S, SFX, M, SAT)                                                         \
  D OVL convert_##D##SFX(S x) { return CVT_BODY(D, S, M, SAT, x); }                        \
  FOR_WIDTHS(CVT_VEC_, D, S, SFX)
#define CVT_MODES_F(D, S)                                                                  \
  CVT_ONE(D, S, , DEF, 0)                                                                  \
  CVT_ONE(D, S, _rte, RTE, 0)                                                              \
  CVT_ONE(D, S, _rtz, RTZ, 0)                                                              \
  CVT_ONE(D, S, _rtp, RTP, 0)                                                              \
  CVT_ONE(D, S, _rtn, RTN, 0)
#define CVT_MODES_I(D, S)                                                                  \
  CVT_MODES_F(D, S)                                                                        \
  CVT_ONE(D, S, _sat, DEF, 1)                                                              \
  CVT_ONE(D, S, _sat_rte, RTE, 1)                                                          \
  CVT_ONE(D, S, _sat_rtz, RTZ, 1)                                                          \
  CVT_ONE(D, S, _sat_rtp, RTP, 1)                                                          \
  CVT_ONE(D, S, _sat_rtn, RTN, 1)
#define CVT_PAIR(D, S) CAT(CVT_MODES_, K_##D)(D, S)
#define CVT_TO(D)                                                                          \
  CVT_PAIR(D, char) CVT_PAIR(D, uchar) CVT_PAIR(D, short) CVT_PAIR(D, ushort)              \
  CVT_PAIR(D, int) CVT_PAIR(D, uint) CVT_PAIR(D, long) CVT_PAIR(D, ulong)                  \
  CVT_PAIR(D, float) CVT_PAIR(D, double)
FOR_ALL_SCALAR_TYPES(CVT_TO)

// ===================================================================================
// 13. OpenCL C 2.0 additions
// ===================================================================================
#if __OPENCL_C_VERSION__ >= 200
#define CTZ(T)                                                                             \
  T OVL ctz(T x) { return (T)__builtin_ctzg((I_U_##T)x, I_BITS_##T); }                     \
  V1(T, ctz, T)
FOR_INT_TYPES(CTZ)

size_t OVL get_global_linear_id(void) {
  return ((get_global_id(2) - get_global_offset(2)) * get_global_size(1) +
          (get_global_id(1) - get_global_offset(1))) *
             get_global_size(0) +
         (get_global_id(0) - get_global_offset(0));
}
size_t OVL get_local_linear_id(void) {
  return (get_local_id(2) * get_local_size(1) + get_local_id(1)) * get_local_size(0) +
         get_local_id(0);
}
#endif
