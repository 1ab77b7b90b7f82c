// Mandelbrot set escape counts (CC'12's Mandelbrot) over a 2-D NDRange: every work-item
// iterates until its point escapes or max_iter is reached, so the loop's trip count
// varies between neighbouring work-items. All arithmetic goes through explicit fma() so
// that the result does not depend on whether the compiler contracts a * b + c.
__kernel void mandelbrot(__global int *iters, float x0, float y0, float step, int max_iter) {
  int px = get_global_id(0);
  int py = get_global_id(1);
  int w = get_global_size(0);
  float cx = fma((float)px, step, x0);
  float cy = fma((float)py, step, y0);
  float x = 0.0f;
  float y = 0.0f;
  int i = 0;
  while (i < max_iter) {
    float r2 = fma(x, x, y * y);
    if (r2 > 4.0f)
      break;
    float nx = fma(x, x, fma(-y, y, cx));
    y = fma(x + x, y, cy);
    x = nx;
    i++;
  }
  iters[py * w + px] = i;
}
