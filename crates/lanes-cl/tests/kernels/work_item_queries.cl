// Every work-item function for dimensions 0, 1 and 2, whatever the NDRange's dimension
// count (past it the functions must give OpenCL's defaults: offset 0, one group, ids 0,
// sizes 1). Work-item (x, y, z) of the launch writes 24 words at its linear position
// counted from the global offset:
//   0: get_work_dim()
//   1 + 7d .. 7 + 7d: get_global_offset(d), get_num_groups(d), get_group_id(d),
//                     get_local_id(d), get_global_id(d), get_global_size(d),
//                     get_local_size(d)
//   22, 23: 0xdead
#define QUERY(o, d)                                                                        \
  o[1 + 7 * d] = get_global_offset(d);                                                     \
  o[2 + 7 * d] = get_num_groups(d);                                                        \
  o[3 + 7 * d] = get_group_id(d);                                                          \
  o[4 + 7 * d] = get_local_id(d);                                                          \
  o[5 + 7 * d] = get_global_id(d);                                                         \
  o[6 + 7 * d] = get_global_size(d);                                                       \
  o[7 + 7 * d] = get_local_size(d);

__kernel void queries(__global uint *out) {
  size_t x = get_global_id(0) - get_global_offset(0);
  size_t y = get_global_id(1) - get_global_offset(1);
  size_t z = get_global_id(2) - get_global_offset(2);
  size_t linear = (z * get_global_size(1) + y) * get_global_size(0) + x;
  __global uint *o = out + 24 * linear;
  o[0] = get_work_dim();
  QUERY(o, 0)
  QUERY(o, 1)
  QUERY(o, 2)
  o[22] = o[23] = 0xdead;
}
