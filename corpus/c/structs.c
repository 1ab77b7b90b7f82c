/* Structs and arrays of structs, by pointer, by value and returned (see loops.c for `//@`). */
#include "corpus.h"

static const int primes[8] = {2, 3, 5, 7, 11, 13, 17, 19};
static const float weights[4] = {0.5f, 0.25f, 0.125f, 0.125f};

//@ centroid_x(buf f32 32, range i32 1 16) -> f32
float centroid_x(const struct point *p, int n) {
    float s = 0.0f;
    for (int i = 0; i < n; i++) s += p[i].x;
    return s / (float)n;
}

//@ step_particles(buf i32 80, range i32 0 10, frange f32 0 1) -> void
void step_particles(struct particle *ps, int n, float dt) {
    for (int i = 0; i < n; i++) {
        struct particle *p = &ps[i];
        if (!(p->alive & 1)) continue;
        for (int k = 0; k < 3; k++) p->pos[k] += dt * p->vel[k];
        p->mass *= 0.99f;
    }
}

//@ rec_score(buf i32 64, range i32 0 16) -> f64
double rec_score(const struct rec *r, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        if (r[i].flag & 1) s += (double)r[i].key * 0.5 + r[i].tag;
        else s -= r[i].small;
    }
    return s;
}

//@ prime_mix(buf u32 8) -> u32
unsigned prime_mix(const unsigned *a) {
    unsigned h = 0;
    for (int i = 0; i < 8; i++) h = h * 31u + a[i] * (unsigned)primes[i];
    return h;
}

//@ weighted(buf f32 4) -> f32
float weighted(const float *a) {
    float s = 0.0f;
    for (int i = 0; i < 4; i++) s += weights[i] * a[i];
    return s;
}

//@ big_sum(byval big 32) -> i64
long long big_sum(struct big b) {
    return (long long)((unsigned long long)b.a + (unsigned long long)b.b * 3u +
                       (unsigned long long)b.c * 5u - (unsigned long long)b.d);
}

//@ make_big(i64, i32) -> sret big 32
struct big make_big(long long seed, int k) {
    struct big b;
    b.a = seed;
    b.b = (long long)((unsigned long long)seed * 7u);
    b.c = k;
    b.d = (long long)((unsigned long long)seed ^ (unsigned long long)(long long)k);
    return b;
}

//@ cross(byval triple 24, byval triple 24) -> sret triple 24
struct triple cross(struct triple a, struct triple b) {
    struct triple r = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
    return r;
}

//@ swap_fields(buf i32 40, range i32 0 20) -> void
void swap_fields(struct point *p, int n) {
    for (int i = 0; i < n; i++) {
        float t = p[i].x;
        p[i].x = p[i].y;
        p[i].y = t;
    }
}

//@ copy_recs(buf i32 32, buf i32 32) -> void
void copy_recs(struct rec *dst, const struct rec *src) {
    for (int i = 0; i < 8; i++) dst[i] = src[7 - i];
}
