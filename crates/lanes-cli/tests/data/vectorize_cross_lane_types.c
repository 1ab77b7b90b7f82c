/* lanes_broadcast and lanes_extract keep their argument's type (tests/it/vectorize.rs):
 * a float, a double and a long long read from other lanes come back unchanged, where an
 * int-only version would truncate them. */
#include <lanes.h>

void spread(int i, const float *f, const double *d, const long long *l, float *fo,
            double *dout, long long *lo) {
    unsigned next = lanes_lane_id() + 1;
    fo[2 * i] = lanes_broadcast(f[i]);
    fo[2 * i + 1] = lanes_extract(f[i], next);
    dout[2 * i] = lanes_broadcast(d[i]);
    dout[2 * i + 1] = lanes_extract(d[i], next);
    lo[2 * i] = lanes_broadcast(l[i]);
    lo[2 * i + 1] = lanes_extract(l[i], next);
}
