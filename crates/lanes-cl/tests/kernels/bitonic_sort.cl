// Bitonic sort of unsigned keys, ascending (CC'12's BitonicSort).
//
// `bitonic_pass`: one pass of the network over n = 2^k keys in global memory; the host
// launches it once per (stage, pass). Work-item p compares the pair (left, left + 2^pass)
// of its pass; work-items past n / 2 (the global size is padded to a multiple of the
// local size) return at once.
__kernel void bitonic_pass(__global uint *keys, uint n, uint stage, uint pass) {
  uint p = get_global_id(0);
  if (p >= n / 2)
    return;
  uint distance = 1u << pass;
  uint left = ((p >> pass) << (pass + 1)) | (p & (distance - 1));
  uint right = left + distance;
  bool ascending = ((left >> stage) & 1u) == 0;
  uint a = keys[left];
  uint b = keys[right];
  if ((a > b) == ascending) {
    keys[left] = b;
    keys[right] = a;
  }
}

// `bitonic_local`: each work-group sorts its own segment of 2^seg_log keys in __local
// memory, every pass separated by a barrier. Any local size works: each work-item loops
// over the pairs it owns (p = lid, lid + local size, ...), so trip counts differ between
// work-items when the local size does not divide the number of pairs.
__kernel void bitonic_local(__global uint *keys, __local uint *segment, uint seg_log) {
  uint size = 1u << seg_log;
  uint base = get_group_id(0) * size;
  uint lid = get_local_id(0);
  uint ls = get_local_size(0);
  for (uint i = lid; i < size; i += ls)
    segment[i] = keys[base + i];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint stage = 1; stage <= seg_log; stage++) {
    for (uint pass = stage; pass-- > 0;) {
      uint distance = 1u << pass;
      for (uint p = lid; p < size / 2; p += ls) {
        uint left = ((p >> pass) << (pass + 1)) | (p & (distance - 1));
        uint right = left + distance;
        bool ascending = ((left >> stage) & 1u) == 0;
        uint a = segment[left];
        uint b = segment[right];
        if ((a > b) == ascending) {
          segment[left] = b;
          segment[right] = a;
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  for (uint i = lid; i < size; i += ls)
    keys[base + i] = segment[i];
}
