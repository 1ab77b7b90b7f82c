/* Structures passed by value to SPMD functions: `struct pair` travels in one vector
 * register (`<2 x float>`), `struct mixed` in general registers and memory. */
struct pair { float x, y; };
struct mixed { int a; float b; double c; };
void affine(int i, struct pair p, float *out) { out[i] = p.x * (float)i + p.y; }
void mixed_sum(int i, struct mixed q, double *out) { out[i] = q.a * q.c + q.b * i; }
