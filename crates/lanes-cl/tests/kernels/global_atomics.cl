// Atomic read-modify-write on __global counters (OpenCL 1.2 §6.12.11), from many
// work-items of one vector at once.
//
// `counters`: every work-item i < n folds in[i] into counters[0] (atomic_add),
// counters[1] (atomic_sub), counters[2] (atomic_min), counters[3] (atomic_max),
// bits[0] (atomic_or of bit in[i] & 31), bits[1] (atomic_and clearing that bit),
// bits[2] (atomic_xor), and counts its positive inputs with atomic_inc on counters[4],
// whose returned old value is the slot where it appends its index to `positives`;
// atomic_dec on counters[5] counts the others down.
__kernel void counters(__global const int *in, int n, __global int *counters,
                       __global uint *bits, __global int *positives) {
  int i = get_global_id(0);
  if (i >= n)
    return;
  int v = in[i];
  atomic_add(&counters[0], v);
  atomic_sub(&counters[1], v);
  atomic_min(&counters[2], v);
  atomic_max(&counters[3], v);
  uint bit = 1u << (v & 31);
  atomic_or(&bits[0], bit);
  atomic_and(&bits[1], ~bit);
  atomic_xor(&bits[2], bit);
  if (v > 0) {
    int slot = atomic_inc(&counters[4]);
    positives[slot] = i;
  } else {
    atomic_dec(&counters[5]);
  }
}

// `claim`: work-item i tries to become the owner of bucket key[i] with
// atomic_cmpxchg(owner, -1, i); the winners are arbitrary, but every bucket that is
// used must end with exactly one owner whose key is that bucket, and `won` counts the
// winners. atomic_xchg then swaps each work-item's id into `last`, keeping one of them.
__kernel void claim(__global const int *key, __global int *owner, __global int *won,
                    __global int *last) {
  int i = get_global_id(0);
  int old = atomic_cmpxchg(&owner[key[i]], -1, i);
  if (old == -1)
    atomic_inc(won);
  atomic_xchg(last, i);
}
