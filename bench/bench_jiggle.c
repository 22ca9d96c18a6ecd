/* bench_jiggle.c — cost of the exact step and of a whole jiggle rig.
 *
 * Prints medians over repeated timed runs (CLOCK_MONOTONIC):
 *   - ns per wb_osc_coef in each of its three regimes, and per apply;
 *   - ns per frame and frames/s of a 3-bone rig (driver + step + floor,
 *     sphere and limit colliders) plus a 6-link chain, and that cost as a
 *     fraction of a 60 fps frame.
 * Runs in well under a second. */
#include <math.h>
#include <stdio.h>

#include "bench_util.h"
#include "sim/jiggle.h"
#include "sim/oscillator.h"

enum { RUNS = 9 };

static volatile double sink;

/* Median ns per coefficient computation for one (ω, ζ, dt) regime; dt is
 * jittered so nothing can be hoisted out of the loop. */
static double bench_coef(double omega, double zeta, double dt, int iters)
{
    double t[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double acc = 0.0, t0 = wb_bench_now_ns();
        for (int i = 0; i < iters; i++) {
            WbOscCoef c = wb_osc_coef(omega, zeta, dt * (1.0 + 1e-9 * (i & 7)));
            acc += c.p11 + c.gx;
        }
        t[r] = (wb_bench_now_ns() - t0) / iters;
        sink = acc;
    }
    return wb_bench_median(t, RUNS);
}

static double bench_apply(int iters)
{
    WbOscCoef c = wb_osc_coef(12.0, 0.14, 1.0 / 60);
    double t[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double x = 1.0, v = 0.0, t0 = wb_bench_now_ns();
        for (int i = 0; i < iters; i++) wb_osc_apply(&c, &x, &v, (double)(i & 3));
        t[r] = (wb_bench_now_ns() - t0) / iters;
        sink = x + v;
    }
    return wb_bench_median(t, RUNS);
}

typedef struct Rig {
    WbJiggle bones, chain;
    WbJiggleDef def;
    WbJiggleDriver driver;
    WbCollider col[2];
    WbColliders set;
    double rest[9], tips[18];
} Rig;

static void rig_frame(Rig *g, int f, double dt)
{
    /* Orbit-like parent path: a circle with a bounce. */
    double t = f * dt, pos[3] = {0.8 * cos(2.1 * t), 0.3 * fabs(sin(3.3 * t)), 0.8 * sin(2.1 * t)}, acc[3];
    wb_jiggle_driver_update(&g->driver, dt, pos, acc);
    wb_jiggle_step(&g->bones, &g->def, acc, dt);
    wb_jiggle_collide(&g->bones, &g->set, g->rest);
    wb_jiggle_chain_step(&g->chain, &g->def, acc, dt);
    wb_jiggle_chain_tips(&g->chain, g->tips);
}

int main(void)
{
    printf("bench_jiggle: exact damped-oscillator step and a 3-bone rig (medians of %d runs)\n", RUNS);
    int iters = 20000;
    double w = 2 * M_PI * 1.9;
    printf("  wb_osc_coef, regime 1 series      (zeta=0.14, dt=1/60 s): %7.1f ns\n",
           bench_coef(w, 0.14, 1.0 / 60, iters));
    printf("  wb_osc_coef, regime 1 series      (zeta=1,    dt=1/60 s): %7.1f ns\n",
           bench_coef(w, 1.0, 1.0 / 60, iters));
    printf("  wb_osc_coef, regime 2 underdamped (zeta=0.14, dt=1/3 s) : %7.1f ns\n",
           bench_coef(w, 0.14, 1.0 / 3, iters));
    printf("  wb_osc_coef, regime 3 overdamped  (zeta=1.7,  dt=1/3 s) : %7.1f ns\n",
           bench_coef(w, 1.7, 1.0 / 3, iters));
    printf("  wb_osc_apply, one axis, coefficients reused            : %7.2f ns\n", bench_apply(iters * 10));

    Rig g;
    WbError err;
    if (wb_jiggle_init(&g.bones, 3, 7, &err) != WB_OK || wb_jiggle_init(&g.chain, 6, 7, &err) != WB_OK) {
        fprintf(stderr, "bench_jiggle: %s\n", err.msg);
        return 1;
    }
    g.def = wb_jiggle_def_default();
    g.driver = wb_jiggle_driver_make(WB_JIGGLE_DRIVER_TAU_DEFAULT);
    g.col[0] = wb_collider_plane(0, 1, 0, -1);
    g.col[1] = wb_collider_sphere(1.0, 0.0, 0.0, 0.5);
    g.set = (WbColliders){g.col, 2, 0.4, 0.0};
    for (int i = 0; i < 9; i++) g.rest[i] = 0.0;
    g.rest[1] = -0.7;
    g.rest[4] = -0.1;
    g.rest[7] = 0.3;
    g.bones.size[0] = 1.6;
    g.bones.size[2] = 0.6;
    int frames = 20000;
    double dt = 1.0 / 60, tr[RUNS];
    for (int r = 0; r < RUNS; r++) {
        wb_jiggle_reset(&g.bones);
        wb_jiggle_reset(&g.chain);
        g.driver = wb_jiggle_driver_make(WB_JIGGLE_DRIVER_TAU_DEFAULT);
        double t0 = wb_bench_now_ns();
        for (int f = 0; f < frames; f++) rig_frame(&g, f, dt);
        tr[r] = (wb_bench_now_ns() - t0) / frames;
        sink = g.tips[17] + g.bones.x[1];
    }
    double ns = wb_bench_median(tr, RUNS);
    printf("  rig frame: 3 bones + plane/sphere/limit colliders + 6-link chain + driver\n");
    printf("             %.0f ns/frame = %.2f M frames/s = %.4f %% of a 60 fps frame (16.7 ms)\n", ns,
           1e3 / ns, ns / (1e9 / 60.0) * 100.0);
    wb_jiggle_free(&g.bones);
    wb_jiggle_free(&g.chain);
    return 0;
}
