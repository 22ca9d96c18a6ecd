/* rng.h — mulberry32, the seeded generator behind every random choice in a
 * jiggle scene (per-bone character, reseed, shake).
 *
 * Bit-compatible with the JavaScript one-liner used by the jiggle standard:
 *
 *   a = a + 0x6D2B79F5 | 0;
 *   t = Math.imul(a ^ a >>> 15, 1 | a);
 *   t = t + Math.imul(t ^ t >>> 7, 61 | t) ^ t;
 *   return ((t ^ t >>> 14) >>> 0) / 4294967296;
 *
 * All of it is 32-bit two's-complement arithmetic, which is exactly uint32_t
 * arithmetic modulo 2^32 in C (Math.imul is the low 32 bits of the product),
 * so the same seed gives the same sequence of doubles in both languages.
 * The state is a plain value: copy it to fork a stream, no globals.
 */
#ifndef WB_RNG_H
#define WB_RNG_H

#include <stdint.h>

typedef struct WbRng {
    uint32_t a; /* the generator's whole state */
} WbRng;

/* A generator whose first draw equals JS `mulberry32(seed)()`. */
WbRng wb_rng_seed(uint32_t seed);

/* Next 32-bit output (the value JS divides by 2^32). */
uint32_t wb_rng_u32(WbRng *rng);

/* Next output / 2^32: a double in [0, 1), exactly JS's return value. */
double wb_rng_unit(WbRng *rng);

/* lo + u * (hi - lo) with u = wb_rng_unit(): the `rnd(a, b)` form of the
 * reference, evaluated in the same order so results match bit for bit. */
double wb_rng_range(WbRng *rng, double lo, double hi);

#endif
