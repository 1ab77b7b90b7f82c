/* lanes.h: predicate and lane intrinsics for SPMD kernels vectorized by lanes
 * (RV's rv_* set). Compiled without lanes, every function has its width-1 meaning:
 * one instance runs, alone, in lane 0 of a one-lane group. When lanes compiles a file
 * (`lanes import`, `lanes compile`, `lanes vectorize`) it defines __LANES__ and puts
 * this header on the include path; the calls then become lanes intrinsics that the
 * vectorizer widens (any/all/popcount/ballot over the active lanes; lanes_extract and
 * lanes_broadcast read other lanes' values: lane `lane mod W`, the first active lane).
 * Reading a lane that is not active gives an unspecified value. */
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
unsigned __lanes_lane_id(void);
unsigned __lanes_num_lanes(void);
/* One pair per element type: lanes_extract and lanes_broadcast keep their argument's type
 * (a float is not read as an int). char and short arguments are promoted to int, which
 * holds them exactly. */
int __lanes_extract(int x, unsigned lane);
int __lanes_broadcast(int x);
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
/* The call for x's type (each association is a call, not a function designator: OpenCL C
 * does not take the address of a function). */
#ifdef __OPENCL_C_VERSION__
#define __LANES_BY_TYPE(name, x, ...)                                                    \
    _Generic((x),                                                                       \
        unsigned: name##_u32(__VA_ARGS__),                                              \
        long: name##_l(__VA_ARGS__),                                                    \
        unsigned long: name##_ul(__VA_ARGS__),                                          \
        float: name##_f32(__VA_ARGS__),                                                 \
        default: name(__VA_ARGS__))
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
        default: name(__VA_ARGS__))
#endif
#define lanes_extract(x, lane) __LANES_BY_TYPE(__lanes_extract, x, (x), (lane))
#define lanes_broadcast(x) __LANES_BY_TYPE(__lanes_broadcast, x, (x))

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

#endif
#endif
