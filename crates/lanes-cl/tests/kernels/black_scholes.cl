// European option prices by Black-Scholes (CC'12's BlackScholes): one option per
// work-item, with the cumulative normal distribution approximated by the
// Abramowitz-Stegun polynomial (26.2.17). Exercises exp, log, sqrt, fabs and a helper
// function called twice.
float cnd(float d) {
  const float a1 = 0.319381530f;
  const float a2 = -0.356563782f;
  const float a3 = 1.781477937f;
  const float a4 = -1.821255978f;
  const float a5 = 1.330274429f;
  const float inv_sqrt_2pi = 0.39894228040143267794f;
  float k = 1.0f / (1.0f + 0.2316419f * fabs(d));
  float poly = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))));
  float c = inv_sqrt_2pi * exp(-0.5f * d * d) * poly;
  return d > 0.0f ? 1.0f - c : c;
}

__kernel void black_scholes(__global const float *spot, __global const float *strike,
                            __global const float *years, float rate, float volatility,
                            __global float *call, __global float *put, int n) {
  int i = get_global_id(0);
  if (i >= n)
    return;
  float s = spot[i];
  float k = strike[i];
  float t = years[i];
  float sqrt_t = sqrt(t);
  float d1 = (log(s / k) + (rate + 0.5f * volatility * volatility) * t) / (volatility * sqrt_t);
  float d2 = d1 - volatility * sqrt_t;
  float discounted = k * exp(-rate * t);
  float n1 = cnd(d1);
  float n2 = cnd(d2);
  call[i] = s * n1 - discounted * n2;
  put[i] = discounted * (1.0f - n2) - s * (1.0f - n1);
}
