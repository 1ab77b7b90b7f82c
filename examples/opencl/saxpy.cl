// y = a·x + y over n elements: the smallest OpenCL kernel, for `lanes cl run`.
__kernel void saxpy(__global float *y, __global const float *x, float a) {
  size_t i = get_global_id(0);
  y[i] = a * x[i] + y[i];
}
