// Work-item functions at a constant dimension index past any NDRange (3): OpenCL 1.2
// §6.12.1 defines the results (offset 0, one group, ids 0, sizes 1), so a kernel may ask.
__kernel void defaults(__global uint *out) {
  __global uint *o = out + 7 * get_global_id(0);
  o[0] = get_global_offset(3);
  o[1] = get_num_groups(3);
  o[2] = get_group_id(3);
  o[3] = get_local_id(3);
  o[4] = get_global_id(3);
  o[5] = get_global_size(3);
  o[6] = get_local_size(3);
}
