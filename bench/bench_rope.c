/* bench_rope.c — the rope convergence table with step costs (SPEC 4.4).
 *
 * For each row of wb_rope_convergence_table(): a hanging rope of 0.1 m links
 * settles for 5 s, then its mean and max link elongation and the median µs
 * per 1/120 s step (5 batches) are printed.  The seed's claimed 30-node rows
 * are shown next to ours.  The last line is JSON for bench/run.sh.  Peer:
 * ../shared/anchors/rope_jakobsen.js (the Jakobsen rope in node). */
#include <stdio.h>

#include "sim/rope.h"

int main(void)
{
    WbRopeConvRow rows[16];
    WbError err;
    int n = wb_rope_convergence_table(rows, 16, true, &err);
    if (n < 0) {
        fprintf(stderr, "bench_rope: %s\n", err.msg);
        return 1;
    }
    printf("solver    nodes passes   mean%%    max%%   us/step   seed claims\n");
    double j305 = 0.0, c301 = 0.0;
    for (int k = 0; k < n; k++) {
        const WbRopeConvRow *r = &rows[k];
        const char *claim = "";
        if (r->solver == WB_ROPE_JAKOBSEN && r->nodes == 30 && r->passes == 1) claim = "14.8 %, 120 us";
        if (r->solver == WB_ROPE_JAKOBSEN && r->nodes == 30 && r->passes == 3) claim = "3.2 %, 280 us";
        if (r->solver == WB_ROPE_JAKOBSEN && r->nodes == 30 && r->passes == 5) claim = "0.4 %, 450 us";
        if (r->solver == WB_ROPE_JAKOBSEN && r->nodes == 60 && r->passes == 5) claim = "0.8 %, 880 us";
        printf("%-9s %5d %6d %7.3f %7.3f %9.3f   %s\n",
               r->solver == WB_ROPE_CHAIN ? "chain" : "jakobsen", r->nodes, r->passes,
               100.0 * r->mean_elongation, 100.0 * r->max_elongation, r->us_per_step, claim);
        if (r->solver == WB_ROPE_JAKOBSEN && r->nodes == 30 && r->passes == 5)
            j305 = r->us_per_step;
        if (r->solver == WB_ROPE_CHAIN && r->nodes == 30 && r->passes == 1)
            c301 = r->us_per_step;
    }
    printf("{\"rope30x5_jakobsen_us\": %.4f, \"rope30x1_chain_us\": %.4f}\n", j305, c301);
    return 0;
}
