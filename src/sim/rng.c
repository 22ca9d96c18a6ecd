/* rng.c — mulberry32; see rng.h for the JavaScript it mirrors. */
#include "sim/rng.h"

WbRng wb_rng_seed(uint32_t seed)
{
    WbRng r = {seed};
    return r;
}

uint32_t wb_rng_u32(WbRng *rng)
{
    /* JS `a | 0` and `... | 0` only reinterpret the same 32 bits as signed;
     * `>>>` is a logical shift, i.e. a shift of the unsigned value. */
    uint32_t a = rng->a + 0x6D2B79F5u;
    rng->a = a;
    uint32_t t = (a ^ (a >> 15)) * (1u | a);
    t = (t + (t ^ (t >> 7)) * (61u | t)) ^ t;
    return t ^ (t >> 14);
}

double wb_rng_unit(WbRng *rng)
{
    /* 2^-32 is exact, so this is the same double as JS's division. */
    return (double)wb_rng_u32(rng) / 4294967296.0;
}

double wb_rng_range(WbRng *rng, double lo, double hi)
{
    double u = wb_rng_unit(rng);
    return lo + u * (hi - lo);
}
