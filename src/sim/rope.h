/* rope.h — 2-D Verlet ropes (SPEC 4.4).
 *
 * A rope set is several chains of particles in one plane.  Each particle has
 * a position, its position one step ago (no stored velocity) and an inverse
 * mass (0 = pinned).  Consecutive particles of a rope are joined by distance
 * links; a link can be cut at run time, which splits the rope in two.
 * Units are the scene's (metres by default, y up — gravity is a vector, so a
 * y-down pixel world works the same with gravity (0, +980)).
 *
 * One fixed step of dt (default 1/120 s):
 *   1. anchors   pinned particles that follow a path are moved to path(t+dt)
 *   2. predict   v = (x − x_prev)·damping, |v| ≤ max_speed·dt;
 *                x_prev = x;  x += v + g·dt²
 *   3. links     WB_ROPE_JAKOBSEN: `passes` relaxation sweeps over the links,
 *                  each link moved back to its rest length, the correction
 *                  split by inverse mass (Jakobsen 2001; the seed's solver).
 *                WB_ROPE_CHAIN: `passes` exact projections of the linearized
 *                  chain (a tridiagonal solve, see rope.c); 1 pass is enough.
 *   4. obstacles a particle of radius r (its rope's half-width; the end
 *                weight's disc for the last particle) closer than r to a
 *                convex polygon is pushed out to distance r along the
 *                normal of the polygon's nearest feature (edge or vertex);
 *                its normal velocity is removed, `obstacle_friction` of its
 *                tangential velocity too.  r = 0 is a point particle.  Then
 *                the links of a rope with r > 0 (capsules of radius r) are
 *                pushed off polygon corners closer than r to them, so a
 *                corner cannot slip in between two particles.
 * Frames drive the steps through an accumulator: the frame delta is clamped
 * to max_frame_delta (so a hitch costs at most max_frame_delta/dt steps) and
 * whole steps are taken while the accumulator holds one.
 *
 * Coincident particles never make NaN: a link shorter than WB_ROPE_EPS uses
 * a fixed direction (straight down the rope's rest direction) and pushes the
 * two apart.  Nothing in a step allocates.
 */
#ifndef WB_ROPE_H
#define WB_ROPE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"

#define WB_ROPE_MAX_ROPES 64
#define WB_ROPE_MAX_NODES 2048     /* per rope */
#define WB_ROPE_MAX_OBSTACLES 32
#define WB_ROPE_POLY_MAX 16        /* vertices per obstacle */
#define WB_ROPE_MAX_KEYS 16        /* keys of a keyframed anchor path */
#define WB_ROPE_EPS 1e-6f          /* links shorter than this have no direction */
#define WB_ROPE_MAX_RADIUS 1e6f    /* largest particle radius, units (a sanity bound) */

typedef enum WbRopeSolver {
    WB_ROPE_JAKOBSEN, /* relaxation sweeps (reference) */
    WB_ROPE_CHAIN     /* direct tridiagonal chain projection */
} WbRopeSolver;

typedef enum WbRopePathKind {
    WB_ROPE_PATH_FIXED,     /* stays at (x, y) */
    WB_ROPE_PATH_OSCILLATE, /* (x, y) + (ax, ay)·sin(2π f t + phase) */
    WB_ROPE_PATH_ORBIT,     /* (x + ax cos(2π f t + phase), y + ay sin(2π f t + phase)) */
    WB_ROPE_PATH_KEYS       /* piecewise linear through keys, held outside them */
} WbRopePathKind;

typedef struct WbRopePath {
    WbRopePathKind kind;
    float x, y;             /* centre / fixed point (ignored by KEYS) */
    float ax, ay;           /* amplitudes / radii */
    float freq;             /* Hz */
    float phase;            /* radians */
    int n_keys;
    float key_t[WB_ROPE_MAX_KEYS];   /* seconds, increasing */
    float key_x[WB_ROPE_MAX_KEYS];
    float key_y[WB_ROPE_MAX_KEYS];
} WbRopePath;

/* One rope: `nodes` particles evenly spaced on the segment start → end. */
typedef struct WbRopeSpec {
    float start[2], end[2];
    int nodes;              /* 2..WB_ROPE_MAX_NODES */
    float length;           /* rest length of the whole rope; 0 = |end − start| */
    bool pin_start, pin_end;
    bool move_start, move_end; /* pinned end follows start_path / end_path */
    WbRopePath start_path, end_path;
    float end_mass;         /* mass of the last particle in node masses (≥ 0.01; 1 = plain) */
    float radius;           /* collision radius of every particle, units (≥ 0): half the
                               rope's drawn width; 0 = a line of points (the default) */
    float end_radius;       /* collision radius of the last particle when larger than
                               `radius` (an end weight's drawn disc), units (≥ 0; 0 = none) */
} WbRopeSpec;

/* A convex polygon, vertices in either winding. */
typedef struct WbRopePoly {
    int n;                  /* 3..WB_ROPE_POLY_MAX */
    float x[WB_ROPE_POLY_MAX], y[WB_ROPE_POLY_MAX];
} WbRopePoly;

typedef struct WbRopeSetDef {
    WbRopeSpec ropes[WB_ROPE_MAX_ROPES];
    int n_ropes;
    WbRopePoly obstacles[WB_ROPE_MAX_OBSTACLES];
    int n_obstacles;
    WbRopeSolver solver;
    int passes;             /* relaxation sweeps / chain projections per step (5 / 1) */
    float damping;          /* velocity kept per step (0.99) */
    float gravity[2];       /* units/s² ((0, −9.81)) */
    float step;             /* fixed dt, s (1/120) */
    float max_frame_delta;  /* accumulator clamp, s (0.25) */
    float max_speed;        /* units/s cap on the implicit velocity (50) */
    float obstacle_friction;/* 0..1, tangential velocity lost on contact (0.1) */
} WbRopeSetDef;

typedef struct WbRopeState {
    int n, n_links, n_ropes;
    float *x, *y, *px, *py; /* positions now and one step ago */
    float *w;               /* inverse mass; 0 = pinned */
    int32_t *la, *lb;       /* link ends (particle indices), lb = la + 1 */
    float *rest;            /* link rest lengths */
    uint8_t *active;        /* 0 once cut */
    int32_t *path;          /* per particle: −1, or rope·2 + (0 start | 1 end) */
    int rope_first[WB_ROPE_MAX_ROPES + 1]; /* particles of rope r: [first[r], first[r+1]) */
    int link_first[WB_ROPE_MAX_ROPES + 1]; /* links of rope r likewise */
    float *dirx, *diry;     /* per link: fallback direction for coincident ends */
    /* chain-solve scratch, one entry per link */
    float *nx, *ny, *diag, *off, *rhs, *lam;
    double acc;             /* accumulator, s */
    double time;            /* simulated time, s */
} WbRopeState;

/* Defaults: no ropes, no obstacles, Jakobsen with 5 passes, damping 0.99,
 * gravity (0, −9.81), 1/120 s steps, frame delta clamped to 0.25 s. */
WbRopeSetDef wb_rope_default(void);

/* A plain rope spec: `nodes` particles from start to end, start pinned,
 * radius 0. */
WbRopeSpec wb_rope_spec(float x0, float y0, float x1, float y1, int nodes);

/* Validate and allocate; particles at rest on their segments.  WB_E_INPUT
 * for an invalid def (the message names the rope/obstacle and field), WB_E_IO
 * when memory runs out.  On failure the state owns nothing. */
WbStatus wb_rope_init(WbRopeState *s, const WbRopeSetDef *def, WbError *err);
void wb_rope_free(WbRopeState *s);

/* Feed a frame of `frame_delta` seconds: clamp it to [0, max_frame_delta]
 * (NaN counts as 0), add it to the accumulator, take whole steps.  Returns
 * the number of steps taken. */
int wb_rope_advance(WbRopeState *s, const WbRopeSetDef *def, double frame_delta);

/* One fixed step of def->step seconds (stages 1–4). */
void wb_rope_step(WbRopeState *s, const WbRopeSetDef *def);

/* Cut link `link` (0-based, between particles link and link+1) of rope
 * `rope`.  WB_E_INPUT if out of range or already cut. */
WbStatus wb_rope_cut(WbRopeState *s, int rope, int link, WbError *err);

/* Position of a path at time t. */
void wb_rope_path_eval(const WbRopePath *p, double t, float *x, float *y);

/* Link elongation |x_b − x_a|/rest − 1 over the active links of rope `rope`:
 * mean (signed) and max of the absolute value. */
void wb_rope_elongation(const WbRopeState *s, int rope, double *mean, double *max_abs);

/* Index of the first particle with a non-finite coordinate, −1 if none. */
int wb_rope_find_nonfinite(const WbRopeState *s);

/* One row of the convergence table: a rope of `nodes` particles and links of
 * 0.1 m hangs from its first particle under 9.81 m/s², 1/120 s steps,
 * damping 0.99 (the seed's setup: 10 px links at 980 px/s² scaled to metres,
 * the same physics); it is fed 300 frames of 1/60 s (5 s), then:
 *   mean_elongation  mean of |x_b − x_a|/L − 1 over the links (= the excess
 *                    length of the whole rope)
 *   max_elongation   the largest |…| (the top link)
 *   us_per_step      median wall time of one step over 5 batches, µs
 *                    (only when `timed`; else 0)                        */
typedef struct WbRopeConvRow {
    WbRopeSolver solver;
    int nodes, passes;
    double mean_elongation, max_elongation;
    double us_per_step;
} WbRopeConvRow;

WbStatus wb_rope_convergence_row(WbRopeSolver solver, int nodes, int passes, bool timed,
                                 WbRopeConvRow *row, WbError *err);

/* The standard table: Jakobsen 30 and 60 nodes × 1, 3, 5, 10 passes (+ 60 ×
 * 20), the chain solver 30 and 60 nodes × 1, 2 passes.  Writes at most `max`
 * rows; returns how many it wrote, or −1 with err filled. */
int wb_rope_convergence_table(WbRopeConvRow *rows, int max, bool timed, WbError *err);

#endif
