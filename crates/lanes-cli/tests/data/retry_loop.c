/* A short retry loop with a data-dependent early exit (rejection sampling, as ambient
 * occlusion draws its sample directions): lanes keeps it a loop to vectorize, a
 * divergent one, rather than clang's fully unrolled cascade of eight exits. */
static unsigned mix(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  return x;
}

void retry(long i, float *out) {
  unsigned h = (unsigned)i * 0x9e3779b9u;
  float u = 0.0f;
  for (int tries = 0; tries < 8; tries++) {
    h = mix(h + 1u);
    u = (float)(h >> 8) * (1.0f / 16777216.0f);
    if (u < 0.5f) break;
  }
  out[i] = u;
}
