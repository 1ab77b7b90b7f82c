// Early returns at several points: past the end of the data, for negative inputs (after
// writing a marker), from inside a loop once a target is found, and a final fallthrough.
// out[i]: n/a for i >= n (untouched), -1 for negative inputs, the first k in 1..64 whose
// square modulo 97 equals in[i] % 97 (written as 1000 + k), or -2 if none.
__kernel void early_return(__global const int *in, __global int *out, int n) {
  int i = get_global_id(0);
  if (i >= n)
    return;
  int v = in[i];
  if (v < 0) {
    out[i] = -1;
    return;
  }
  int target = v % 97;
  for (int k = 1; k < 64; k++) {
    if ((k * k) % 97 == target) {
      out[i] = 1000 + k;
      return;
    }
  }
  out[i] = -2;
}
