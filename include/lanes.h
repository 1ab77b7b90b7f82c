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

_Bool __lanes_any(_Bool pred);
_Bool __lanes_all(_Bool pred);
unsigned __lanes_popcount(_Bool pred);
unsigned __lanes_ballot(_Bool pred);
unsigned __lanes_lane_id(void);
unsigned __lanes_num_lanes(void);
int __lanes_extract(int x, unsigned lane);
int __lanes_broadcast(int x);

#define lanes_any(p) __lanes_any((p) != 0)
#define lanes_all(p) __lanes_all((p) != 0)
#define lanes_popcount(p) __lanes_popcount((p) != 0)
#define lanes_ballot(p) __lanes_ballot((p) != 0)
#define lanes_lane_id() __lanes_lane_id()
#define lanes_num_lanes() __lanes_num_lanes()
#define lanes_extract(x, lane) __lanes_extract((x), (lane))
#define lanes_broadcast(x) __lanes_broadcast(x)

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
/* x as lane `lane` (modulo the number of lanes) computed it: at width 1, x. */
static inline int lanes_extract(int x, unsigned lane) { (void)lane; return x; }
/* x of the first active lane, in every lane. */
static inline int lanes_broadcast(int x) { return x; }

#endif
#endif
