// Math and common builtins on floats, one input triple per work-item; out[16i + k] is:
//   0 sin(x)            1 cos(x)             2 exp(x / 2)         3 log(|x| + 0.5)
//   4 pow(|x| + 0.5, y) 5 sqrt(|x|)          6 rsqrt(|x| + 0.25)  7 fma(x, y, z)
//   8 clamp(x, -2, 3)   9 mix(x, y, a)      10 smoothstep(-1, 2, x)
//  11 floor(x * 3.5)   12 fmod(x, 1.75)     13 atan2(y, x)       14 fabs(z) - fmin(x, y)
//  15 exp2(y) * log2(|z| + 1)
// with x in [-10, 10], y in [-3, 3], z in [-100, 100] and a = |sin(z)| in [0, 1].
__kernel void math_builtins(__global const float *xs, __global const float *ys,
                            __global const float *zs, __global float *out) {
  int i = get_global_id(0);
  float x = xs[i];
  float y = ys[i];
  float z = zs[i];
  __global float *o = out + 16 * i;
  o[0] = sin(x);
  o[1] = cos(x);
  o[2] = exp(x / 2.0f);
  o[3] = log(fabs(x) + 0.5f);
  o[4] = pow(fabs(x) + 0.5f, y);
  o[5] = sqrt(fabs(x));
  o[6] = rsqrt(fabs(x) + 0.25f);
  o[7] = fma(x, y, z);
  o[8] = clamp(x, -2.0f, 3.0f);
  float a = fabs(sin(z));
  o[9] = mix(x, y, a);
  o[10] = smoothstep(-1.0f, 2.0f, x);
  o[11] = floor(x * 3.5f);
  o[12] = fmod(x, 1.75f);
  o[13] = atan2(y, x);
  o[14] = fabs(z) - fmin(x, y);
  float e = exp2(y);
  float l = log2(fabs(z) + 1.0f);
  o[15] = e * l;
}
