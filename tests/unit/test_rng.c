/* test_rng.c — mulberry32 equals the JavaScript reference bit for bit.
 * The expected values are produced by Node at test time, printed with
 * 17 significant digits (enough to round-trip a double) and compared with ==. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/rng.h"

enum { N_DRAWS = 20 };

/* Run node; returns false when node is missing (the test then fails: the
 * project's dependency list includes node). */
static bool js_sequence(uint32_t seed, double out[N_DRAWS])
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "node -e 'function mulberry32(a){return function(){a|=0;a=a+0x6D2B79F5|0;"
             "let t=Math.imul(a^a>>>15,1|a);t=t+Math.imul(t^t>>>7,61|t)^t;"
             "return((t^t>>>14)>>>0)/4294967296;}}"
             "const r=mulberry32(%lu);for(let i=0;i<%d;i++)console.log(r().toPrecision(17));'",
             (unsigned long)seed, N_DRAWS);
    FILE *p = popen(cmd, "r");
    if (!p) return false;
    int n = 0;
    while (n < N_DRAWS && fscanf(p, "%lf", &out[n]) == 1) n++;
    int rc = pclose(p);
    return rc == 0 && n == N_DRAWS;
}

Test(rng, matches_javascript_mulberry32)
{
    static const uint32_t seeds[] = {0u, 1u, 7u, 42u, 0xFFFFFFFFu, 123456789u};
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
        double want[N_DRAWS];
        cr_assert(js_sequence(seeds[s], want), "could not run node for seed %lu", (unsigned long)seeds[s]);
        WbRng r = wb_rng_seed(seeds[s]);
        for (int i = 0; i < N_DRAWS; i++) {
            double got = wb_rng_unit(&r);
            cr_expect(got == want[i], "seed %lu draw %d: C %.17g, JS %.17g", (unsigned long)seeds[s], i,
                      got, want[i]);
        }
    }
}

Test(rng, unit_is_u32_over_two_to_the_32)
{
    WbRng a = wb_rng_seed(99), b = wb_rng_seed(99);
    for (int i = 0; i < 1000; i++) {
        uint32_t u = wb_rng_u32(&a);
        double d = wb_rng_unit(&b);
        cr_assert_eq(d, (double)u / 4294967296.0);
        cr_assert(d >= 0.0 && d < 1.0);
    }
}

Test(rng, range_is_lo_plus_u_times_width)
{
    WbRng a = wb_rng_seed(5), b = wb_rng_seed(5);
    for (int i = 0; i < 100; i++) {
        double u = wb_rng_unit(&a);
        double r = wb_rng_range(&b, 0.45, 1.9);
        cr_assert_eq(r, 0.45 + u * (1.9 - 0.45));
        cr_assert(r >= 0.45 && r < 1.9);
    }
}

Test(rng, copies_fork_identical_streams)
{
    WbRng a = wb_rng_seed(123);
    (void)wb_rng_u32(&a);
    WbRng b = a;
    for (int i = 0; i < 10; i++) cr_assert_eq(wb_rng_u32(&a), wb_rng_u32(&b));
}
