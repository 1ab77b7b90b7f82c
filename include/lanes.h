/* lanes.h: predicate and lane intrinsics for SPMD kernels vectorized by lanes
 * (RV's rv_* set). Compiled without lanes, every function has its width-1 meaning:
 * one instance runs, alone, in lane 0 of a one-lane group. When lanes compiles a file
 * (`lanes import`, `lanes compile`, `lanes vectorize`) it defines __LANES__ and puts
 * this header on the include path; the calls then become lanes intrinsics that the
 * vectorizer widens (any/all/popcount/ballot over the active lanes; lanes_extract and
 * lanes_broadcast read other lanes' values: lane `lane mod W`, the first active lane;
 * the reductions and the exclusive scan fold the active lanes' values in lane order).
 * Reading a lane that is not active gives an unspecified value.
 *
 * lanes_unmasked { ... } (ISPC's `unmasked`): the block's loads, stores, calls and mask
 * queries run on every lane that entered the vectorized function, whatever branch
 * around the block the lanes took; lanes never turns on a lane that did not enter (an
 * omp simd loop's or a launcher's last, partial group keeps its missing instances off).
 * A lane that did not take an enclosing branch computes with the values it has there.
 * The block must be straight-line code (no branches, loops, break or return); values
 * it assigns keep, after it, the lanes the enclosing code has active. Compiled without
 * lanes it is an ordinary block. */
#ifndef LANES_H
#define LANES_H

#ifdef __LANES__

#ifdef __cplusplus
/* C linkage, so that lanes recognizes the names; C++'s bool is C's _Bool. */
extern "C" {
#define __LANES_BOOL bool
#else
#define __LANES_BOOL _Bool
#endif

__LANES_BOOL __lanes_any(__LANES_BOOL pred);
__LANES_BOOL __lanes_all(__LANES_BOOL pred);
unsigned __lanes_popcount(__LANES_BOOL pred);
unsigned __lanes_ballot(__LANES_BOOL pred);
/* The ballot of every lane up to 64 (lanes_ballot keeps 32). */
#ifdef __OPENCL_C_VERSION__
typedef unsigned long __lanes_mask;
#else
typedef unsigned long long __lanes_mask;
#endif
__lanes_mask __lanes_ballot64(__LANES_BOOL pred);
unsigned __lanes_lane_id(void);
unsigned __lanes_num_lanes(void);
void __lanes_unmasked_begin(void);
void __lanes_unmasked_end(void);
/* One pair per element type: lanes_extract and lanes_broadcast keep their argument's type
 * (a float is not read as an int). char and short arguments are promoted to int, which
 * holds them exactly. */
int __lanes_extract(int x, unsigned lane);
int __lanes_broadcast(int x);
int __lanes_extract_i32(int x, unsigned lane);
int __lanes_broadcast_i32(int x);
unsigned __lanes_extract_u32(unsigned x, unsigned lane);
unsigned __lanes_broadcast_u32(unsigned x);
long __lanes_extract_l(long x, unsigned lane);
long __lanes_broadcast_l(long x);
unsigned long __lanes_extract_ul(unsigned long x, unsigned lane);
unsigned long __lanes_broadcast_ul(unsigned long x);
float __lanes_extract_f32(float x, unsigned lane);
float __lanes_broadcast_f32(float x);
#ifndef __OPENCL_C_VERSION__
/* OpenCL C reserves `long long`, and `double` needs cl_khr_fp64. */
long long __lanes_extract_ll(long long x, unsigned lane);
long long __lanes_broadcast_ll(long long x);
unsigned long long __lanes_extract_ull(unsigned long long x, unsigned lane);
unsigned long long __lanes_broadcast_ull(unsigned long long x);
double __lanes_extract_f64(double x, unsigned lane);
double __lanes_broadcast_f64(double x);
#endif

#ifdef __cplusplus
}
#endif

#define lanes_any(p) __lanes_any((p) != 0)
#define lanes_all(p) __lanes_all((p) != 0)
#define lanes_popcount(p) __lanes_popcount((p) != 0)
#define lanes_ballot(p) __lanes_ballot((p) != 0)
#define lanes_lane_id() __lanes_lane_id()
#define lanes_num_lanes() __lanes_num_lanes()
/* The block after it runs between the two calls, once (a for statement that runs its
 * body once: `lanes_unmasked { ... }` reads as a statement). */
#define lanes_unmasked                                                                   \
  for (int __lanes_once = (__lanes_unmasked_begin(), 1); __lanes_once;                   \
       __lanes_once = (__lanes_unmasked_end(), 0))
/* The call for x's type (each association is a call, not a function designator: OpenCL C
 * does not take the address of a function). */
#ifdef __OPENCL_C_VERSION__
#define __LANES_BY_TYPE(name, x, ...)                                                    \
    _Generic((x),                                                                       \
        unsigned: name##_u32(__VA_ARGS__),                                              \
        long: name##_l(__VA_ARGS__),                                                    \
        unsigned long: name##_ul(__VA_ARGS__),                                          \
        float: name##_f32(__VA_ARGS__),                                                 \
        default: name##_i32(__VA_ARGS__))
#else
#define __LANES_BY_TYPE(name, x, ...)                                                    \
    _Generic((x),                                                                       \
        unsigned: name##_u32(__VA_ARGS__),                                              \
        long: name##_l(__VA_ARGS__),                                                    \
        unsigned long: name##_ul(__VA_ARGS__),                                          \
        long long: name##_ll(__VA_ARGS__),                                              \
        unsigned long long: name##_ull(__VA_ARGS__),                                    \
        float: name##_f32(__VA_ARGS__),                                                 \
        double: name##_f64(__VA_ARGS__),                                                \
        default: name##_i32(__VA_ARGS__))
#endif
#define lanes_extract(x, lane) __LANES_BY_TYPE(__lanes_extract, x, (x), (lane))
#define lanes_broadcast(x) __LANES_BY_TYPE(__lanes_broadcast, x, (x))
/* lanes_shuffle(x, lane): x of lane `lane` (each lane its own), as lanes_extract. */
#define lanes_shuffle(x, lane) lanes_extract((x), (lane))

/* Reductions and the exclusive scan over the active lanes, in lane order 0, 1, …, W-1 (a
 * float sum is that ordered sum), built from the ballot of the active lanes and reads of
 * their values: every active lane gets the same result. Integer types only for and/or. */
#define __LANES_FOLD(T, S, NAME, ID, OP)                                                 \
    static inline __attribute__((always_inline)) T __lanes_reduce_##NAME##_##S(T x) {  \
        __lanes_mask active = __lanes_ballot64(1);                                     \
        T acc = (ID);                                                                  \
        for (unsigned k = 0; k < __lanes_num_lanes(); k++)                             \
            if (active >> k & 1) {                                                     \
                T y = __lanes_extract_##S(x, k);                                       \
                acc = (OP);                                                            \
            }                                                                          \
        return acc;                                                                    \
    }
#define __LANES_SCAN(T, S)                                                               \
    static inline __attribute__((always_inline)) T __lanes_exclusive_scan_add_##S(T x) { \
        __lanes_mask active = __lanes_ballot64(1);                                     \
        unsigned me = __lanes_lane_id();                                               \
        T acc = 0;                                                                     \
        for (unsigned k = 0; k < __lanes_num_lanes(); k++)                             \
            if ((active >> k & 1) && k < me)                                           \
                acc = acc + __lanes_extract_##S(x, k);                                 \
        return acc;                                                                    \
    }
#define __LANES_ARITH(T, S, MIN, MAX)                                                    \
    __LANES_FOLD(T, S, add, 0, acc + y)                                                 \
    __LANES_FOLD(T, S, min, MAX, y < acc ? y : acc)                                     \
    __LANES_FOLD(T, S, max, MIN, y > acc ? y : acc)                                     \
    __LANES_SCAN(T, S)
#define __LANES_BITS(T, S)                                                               \
    __LANES_FOLD(T, S, and, ~(T)0, acc & y)                                             \
    __LANES_FOLD(T, S, or, 0, acc | y)
__LANES_ARITH(int, i32, -__INT_MAX__ - 1, __INT_MAX__)
__LANES_BITS(int, i32)
__LANES_ARITH(unsigned, u32, 0u, ~0u)
__LANES_BITS(unsigned, u32)
__LANES_ARITH(long, l, -__LONG_MAX__ - 1L, __LONG_MAX__)
__LANES_BITS(long, l)
__LANES_ARITH(unsigned long, ul, 0ul, ~0ul)
__LANES_BITS(unsigned long, ul)
__LANES_ARITH(float, f32, -__builtin_inff(), __builtin_inff())
#ifndef __OPENCL_C_VERSION__
__LANES_ARITH(long long, ll, -__LONG_LONG_MAX__ - 1LL, __LONG_LONG_MAX__)
__LANES_BITS(long long, ll)
__LANES_ARITH(unsigned long long, ull, 0ull, ~0ull)
__LANES_BITS(unsigned long long, ull)
__LANES_ARITH(double, f64, -__builtin_inf(), __builtin_inf())
#define __LANES_BY_INT_TYPE(name, x)                                                     \
    _Generic((x),                                                                       \
        char: name##_i32, signed char: name##_i32, unsigned char: name##_i32,           \
        short: name##_i32, unsigned short: name##_i32, int: name##_i32,                 \
        unsigned: name##_u32, long: name##_l, unsigned long: name##_ul,                 \
        long long: name##_ll, unsigned long long: name##_ull)(x)
#else
#define __LANES_BY_INT_TYPE(name, x)                                                     \
    _Generic((x),                                                                       \
        char: name##_i32(x), uchar: name##_i32(x), short: name##_i32(x),                \
        ushort: name##_i32(x), int: name##_i32(x), uint: name##_u32(x),                 \
        long: name##_l(x), ulong: name##_ul(x))
#endif
#define lanes_reduce_add(x) __LANES_BY_TYPE(__lanes_reduce_add, x, (x))
#define lanes_reduce_min(x) __LANES_BY_TYPE(__lanes_reduce_min, x, (x))
#define lanes_reduce_max(x) __LANES_BY_TYPE(__lanes_reduce_max, x, (x))
#define lanes_reduce_and(x) __LANES_BY_INT_TYPE(__lanes_reduce_and, x)
#define lanes_reduce_or(x) __LANES_BY_INT_TYPE(__lanes_reduce_or, x)
#define lanes_exclusive_scan_add(x) __LANES_BY_TYPE(__lanes_exclusive_scan_add, x, (x))

#else

/* Is the predicate true in any active lane? */
static inline int lanes_any(int pred) { return pred != 0; }
/* Is the predicate true in every active lane? */
static inline int lanes_all(int pred) { return pred != 0; }
/* How many active lanes have the predicate true? */
static inline unsigned lanes_popcount(int pred) { return pred != 0 ? 1u : 0u; }
/* Bit i set iff lane i is active with the predicate true. */
static inline unsigned lanes_ballot(int pred) { return pred != 0 ? 1u : 0u; }
/* This instance's lane in its group. */
static inline unsigned lanes_lane_id(void) { return 0u; }
/* The number of lanes in a group. */
static inline unsigned lanes_num_lanes(void) { return 1u; }
/* x as lane `lane` (modulo the number of lanes) computed it: at width 1, x, of x's type. */
#define lanes_extract(x, lane) ((void)(lane), (x))
/* x of the first active lane, in every lane: at width 1, x. */
#define lanes_broadcast(x) (x)
/* x of lane `lane`, each lane its own: at width 1, x. */
#define lanes_shuffle(x, lane) ((void)(lane), (x))
/* The sum, minimum, maximum, and, or of x over the active lanes: at width 1, x. */
#define lanes_reduce_add(x) (x)
#define lanes_reduce_min(x) (x)
#define lanes_reduce_max(x) (x)
#define lanes_reduce_and(x) (x)
#define lanes_reduce_or(x) (x)
/* The sum of x over the active lanes before this one: at width 1, zero of x's type. */
#define lanes_exclusive_scan_add(x) ((__typeof__(x))0)
/* Every lane that entered runs the block: at width 1, the one instance. */
#define lanes_unmasked

#endif
#endif
