// The OpenCL C 1.2 builtin function library of lanes' OpenCL runtime.
//
// A kernel is compiled by clang-19 as OpenCL C; every builtin it calls stays a call to an
// Itanium-mangled declaration (`_Z3dotDv4_fS_`, `_Z5clampfff`). This file defines those
// functions, with exactly the signatures clang declares for the builtins (opencl-c.h, or
// the same set that `-fdeclare-opencl-builtins` declares lazily), so that the mangled names
// match. The runtime compiles it with the same clang command as the kernel (under
// `-cl-std=CL1.2` or `-cl-std=CL2.0`), links the two modules, makes every library function
// internal and runs `always-inline`, `scalarizer<load-store>`, `instcombine`,
// `simplifycfg`, `sroa`, `early-cse` and `globaldce` before lanes imports the result.
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
// VP1: R_n F(X_n, AS P_n *)  VP2: R_n F(X_n, X_n, AS P_n *), for every address space.
#define VP1_(N, A, B, NA, NB, AS, R, F, X, P)                                              \
  R##N OVL F(X##N x, AS P##N *p) {                                                         \
    P##NA a;                                                                               \
    P##NB b;                                                                               \
    R##N r = (R##N)(F(x.A, &a), F(x.B, &b));                                               \
    *p = (P##N)(a, b);                                                                     \
    return r;                                                                              \
  }
#define VP1_AS(AS, R, F, X, P) FOR_WIDTHS(VP1_, AS, R, F, X, P)
#define VP1(R, F, X, P) FOR_AS_RW(VP1_AS, R, F, X, P)
#define VP2_(N, A, B, NA, NB, AS, R, F, X, P)                                              \
  R##N OVL F(X##N x, X##N y, AS P##N *p) {                                                 \
    P##NA a;                                                                               \
    P##NB b;                                                                               \
    R##N r = (R##N)(F(x.A, y.A, &a), F(x.B, y.B, &b));                                     \
    *p = (P##N)(a, b);                                                                     \
    return r;                                                                              \
  }
#define VP2_AS(AS, R, F, X, P) FOR_WIDTHS(VP2_, AS, R, F, X, P)
#define VP2(R, F, X, P) FOR_AS_RW(VP2_AS, R, F, X, P)

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
  T OVL powr(T x, T y) {                                                                   \
    T r = BI(T, pow)(x, y);                                                                \
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
