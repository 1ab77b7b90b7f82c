// Work-item functions at a dimension index that is a kernel argument, not a constant
// (OpenCL 1.2 allows any uint; past the NDRange's dimensions the results are the
// defaults: offset 0, one group, ids 0, sizes 1). Work-item i writes 7 words.
__kernel void variable_dim(__global uint *out, uint dim) {
  __global uint *o = out + 7 * get_global_id(0);
  o[0] = get_global_offset(dim);
  o[1] = get_num_groups(dim);
  o[2] = get_group_id(dim);
  o[3] = get_local_id(dim);
  o[4] = get_global_id(dim);
  o[5] = get_global_size(dim);
  o[6] = get_local_size(dim);
}
