/* lanes_extract and lanes_broadcast through `lanes vectorize` (tests/vectorize.rs):
 * every instance reads the next lane's x (wrapping at W) and the first active lane's x. */
#include <lanes.h>

void rotate(int i, const int *in, int *out) {
    int x = in[i];
    int next = lanes_extract(x, lanes_lane_id() + 1);
    int first = lanes_broadcast(x);
    out[i] = next * 1000 + first;
}
