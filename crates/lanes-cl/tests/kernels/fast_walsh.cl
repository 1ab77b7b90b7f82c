// Fast Walsh-Hadamard transform, in place (CC'12's FastWalshTransform): the host launches
// one butterfly step per half-size h = 1, 2, 4, ..., n / 2. Work-item p (< n / 2) combines
// x[i] and x[i + h] of its butterfly; work-items of the padding return at once.
__kernel void fwt_step(__global float *x, uint n, uint h) {
  uint p = get_global_id(0);
  if (p >= n / 2)
    return;
  uint i = (p / h) * 2 * h + p % h;
  uint j = i + h;
  float a = x[i];
  float b = x[j];
  x[i] = a + b;
  x[j] = a - b;
}
