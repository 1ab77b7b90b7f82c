/* Types shared by the lanes C corpus (corpus/c) and its generated test drivers. */
#ifndef LANES_CORPUS_H
#define LANES_CORPUS_H
#include <stdint.h>

struct point { float x, y; };
struct particle { float pos[3]; float vel[3]; int alive; float mass; };
struct rec { int32_t key; int16_t tag; uint8_t flag; int8_t small; double weight; };
struct big { int64_t a, b, c, d; };
struct triple { double x, y, z; };
#endif
