/* cloth.h — position-based cloth (SPEC 4.3).
 *
 * A rectangular grid of nx × ny particles, stored as separate float arrays
 * (x, y, z, previous position, inverse mass).  Particle (i, j) has index
 * j·nx + i; i runs along `axis_i`, j along `axis_j` of the initial plane.
 * Units: metres, seconds, y up, gravity along −y.
 *
 * One frame, wb_cloth_step(), is `substeps` substeps of dt = dt_frame/substeps:
 *   1. predict     Verlet with damping, gravity and wind:
 *                  v = (x − x_prev)·damp;  x_prev = x;  x += v + a·dt²
 *   2. iterate     `iterations` Gauss–Seidel sweeps over the constraints:
 *                  structural and shear links every sweep, bending every 2nd,
 *                  body collisions (push-out only) every 3rd.  Order (PBD):
 *                  horizontal links (a, a+1) with a even, then a odd; then
 *                  vertical, diagonal (i,j)-(i+1,j+1), diagonal
 *                  (i+1,j)-(i,j+1), each in order of its first particle a,
 *                  up in odd iterations and back down in even ones (one
 *                  direction only made the drape creep along j); bending
 *                  alike (horizontal a mod 4 in {0,1}, then {2,3})
 *   3. self        cloth–cloth repulsion through a spatial hash (optional)
 *   4. clamp       hard stretch limit: no structural link longer than
 *                  max_stretch × rest.  One sequential sweep each way (the
 *                  end nearer a pin stays, the other follows; equal ends
 *                  split by mass), then an ordered pass that settles the
 *                  particles breadth-first from the pins (with no pin, from
 *                  the highest particle touching a body, else the grid
 *                  centre), each moved once to the nearest point within the
 *                  limit of its settled neighbours: exact on a full grid led
 *                  from one start, where a mass split only crawls down
 *   5. friction    final body collision that also rewrites x_prev for every
 *                  particle touching a body (within WB_CLOTH_CONTACT_SKIN):
 *                  the normal velocity is removed, the tangential one is
 *                  kept only if it beats static friction, scaled by
 *                  (1 − friction)
 *   6. floor       the same against the plane y = floor_y
 * then vertex normals once per frame.  Nothing in the step allocates.
 */
#ifndef WB_CLOTH_H
#define WB_CLOTH_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "sim/fabric.h"
#include "sim/mannequin.h"

#define WB_CLOTH_MAX_PINS 256      /* named pins in a def */
#define WB_CLOTH_MAX_SPHERES 64    /* mannequin + user spheres */
#define WB_CLOTH_DIH_COLOURS 12    /* 3 kinds of edge x 2 x 2 parities */
#define WB_CLOTH_MAX_BOXES 16
#define WB_CLOTH_MAX_GRID 1024     /* particles per side */
#define WB_CLOTH_STATIC_RATIO 2.0f /* static friction = ratio × kinetic */
#define WB_CLOTH_CLAMP_ROUNDS 1     /* forward + backward stretch-limit sweeps */
#define WB_CLOTH_CONTACT_SKIN 1e-4f /* m: "touching" = within skin (+10 % of margin) */
#define WB_CLOTH_BUCKETS_X 16      /* sphere lookup grid over the body bounds */
#define WB_CLOTH_BUCKETS_Y 64

/* Pinned particles have inverse mass 0: no constraint, collision or
 * integration ever moves them.  Inert particles (inverse mass
 * WB_CLOTH_INERT < 0, wb_cloth_set_inert) are cut out of the cloth: no
 * link, bend, collision or integration touches them, they are not pins,
 * and triangles with an inert corner are not cloth (normals, stretch).
 * Cutting a shape (a disc) out of the grid this way keeps the grid's
 * vector sweeps. */
#define WB_CLOTH_INERT (-1.0f) /* inverse mass of a particle cut out of the cloth */

/* Solvers: WB_CLOTH_PBD projects each constraint with a stiffness k per
 * sweep (the reference); the result then depends on substeps × iterations.
 * WB_CLOTH_XPBD uses compliance α (m/N): per substep α̃ = α/dt², a Lagrange
 * multiplier λ per constraint starts at 0 and accumulates
 *   Δλ = (−C − α̃λ) / (Σ wᵢ|∇ᵢC|² + α̃),   Δxᵢ = wᵢ ∇ᵢC Δλ,
 * so a converged solve reaches the same equilibrium C = −α·(force) whatever
 * the substep count. */
typedef enum WbClothSolver { WB_CLOTH_PBD, WB_CLOTH_XPBD } WbClothSolver;

typedef enum WbClothBending {
    WB_CLOTH_BEND_SKIP,     /* distance links to the particle two along (reference) */
    WB_CLOTH_BEND_DIHEDRAL  /* angle between the two triangles at each inner edge */
} WbClothBending;

typedef enum WbClothPinMode {
    WB_CLOTH_PIN_NONE,
    WB_CLOTH_PIN_TOP_EDGE,    /* every particle of row j = 0 */
    WB_CLOTH_PIN_TOP_CORNERS, /* (0,0) and (nx−1,0) */
    WB_CLOTH_PIN_CORNERS      /* the four corners */
} WbClothPinMode;

/* A particle named by its grid coordinates. */
typedef struct WbClothPin {
    int i, j;
} WbClothPin;

/* An axis-aligned box obstacle: centre and half extents, metres. */
typedef struct WbBox {
    float c[3], h[3];
} WbBox;

/* Wind: acceleration = dir · strength · response / weight · gust, with
 *   gust = bias + 0.6 sin(2.1 t + 7.5 y) + 0.4 sin(0.7 t + 4 x)
 * (layered sines over time and position; x, y in metres). */
typedef struct WbClothWind {
    float strength;  /* N/m² of wind pressure; 0 = calm */
    float dir[3];    /* direction, normalized by the solver */
    float bias;      /* mean of the gust factor, usually 1 */
} WbClothWind;

typedef struct WbClothDef {
    /* Non-zero (the caller was told to stop): wb_cloth_substep leaves its
     * sweeps early, the state half solved, fit only to be freed.  NULL:
     * never.  Read, never written: the solver keeps no global. */
    const volatile sig_atomic_t *cancel;
    /* topology, read by wb_cloth_init only */
    int nx, ny;               /* particles per side, 3..WB_CLOTH_MAX_GRID */
    float size[2];            /* extent along axis_i, axis_j, metres */
    float origin[3];          /* position of particle (0, 0) */
    float axis_i[3], axis_j[3]; /* unit directions of the grid (orthogonal) */
    WbClothPinMode pin_mode;
    WbClothPin pins[WB_CLOTH_MAX_PINS]; /* extra pinned particles */
    int n_pins;
    bool mannequin;           /* add the dress form's spheres */
    WbMannequinDef body;
    WbSphere spheres[WB_CLOTH_MAX_SPHERES]; /* extra spheres */
    int n_spheres;
    WbBox boxes[WB_CLOTH_MAX_BOXES];
    int n_boxes;
    bool self_collision;      /* allocate and run the spatial hash */

    /* parameters, read every step (a timeline may change them) */
    WbFabric fabric;
    WbClothSolver solver;
    WbClothBending bending;
    int substeps;             /* per frame, >= 1 (default 6) */
    int iterations;           /* per substep, >= 1 (default 10) */
    float gravity;            /* m/s², along −y (default 9.81) */
    float max_stretch;        /* hard limit on structural links; 0 = off (1.12) */
    float margin;             /* collision skin around bodies, metres (0.008);
                                 raising it by more than 1 cm after init is
                                 not seen by the sphere lookup */
    float thickness;          /* self-collision distance; 0 = 0.6 × link length */
    bool floor;
    float floor_y;            /* metres (0) */
    WbClothWind wind;
} WbClothDef;

/* Solver state; every array has n = nx·ny entries and is owned by the state. */
typedef struct WbClothState {
    int nx, ny, n;
    float *x, *y, *z;         /* positions, metres */
    float *px, *py, *pz;      /* positions one substep ago */
    float *nrmx, *nrmy, *nrmz;/* unit vertex normals (area weighted), per frame */
    float *face_rows;         /* 12·nx, scratch of wb_cloth_normals: two quad rows'
                                 face normals */
    float *w;                 /* inverse mass, 1/kg; 0 = pinned, < 0 = inert */
    float *pin_depth;         /* grid steps to the nearest pin (stretch limit);
                                 the ordered pass marks visits by negating it
                                 and restores it before returning */
    int32_t *queue;           /* n, scratch of the pin-depth search */
    int32_t *free_rows;       /* ny: rows from row j on holding only free particles
                                 of inverse mass 1/mass (refreshed every substep) */
    float *wind_su, *wind_cu; /* sin/cos(4u) per column (wind phase tables) */
    float *wind_sv, *wind_cv; /* sin/cos(7.5v) per row */
    float mass;               /* kg per free particle (uniform) */
    float rest[6];            /* rest lengths: h, v, diag, diag, bend h, bend v */
    float *lambda[6];         /* XPBD multipliers per link family, indexed by the
                                 link's first particle */
    /* dihedral bending: quads (edge a-b, wings c, d), rest angle, multiplier */
    int32_t *dih;             /* 4 per constraint, stored by colour */
    float *dih_rest, *dih_lambda;
    int n_dih;
    /* colour k: constraints dih_colour[k] .. dih_colour[k+1]−1, no two of
       which share a particle */
    int dih_colour[WB_CLOTH_DIH_COLOURS + 1];
    int n_dih_colours;
    /* bodies: spheres (with margin applied at test time) and y buckets */
    WbSphere spheres[WB_CLOTH_MAX_SPHERES];
    int n_spheres;
    float body_lo[3], body_hi[3];  /* bounds of all spheres (radius + margin) */
    uint64_t bucket[WB_CLOTH_BUCKETS_X * WB_CLOTH_BUCKETS_Y]; /* sphere masks */
    float bucket_inv[2];           /* buckets per metre along x, y */
    int32_t *pack_start;           /* per bucket: its spheres packed by 4 ... */
    float *pack_x, *pack_y, *pack_z, *pack_r; /* ... for the quick contact test */
    WbBox boxes[WB_CLOTH_MAX_BOXES];
    int n_boxes;
    /* self collision: spatial hash (counting sort by cell) */
    int32_t *hash_start;      /* hash_size + 1 */
    int32_t *hash_items;      /* n */
    int32_t *hash_key;        /* n */
    int hash_size;            /* power of two, 0 when off */
    double time;              /* seconds simulated */
    double acc;               /* wb_cloth_advance: time not yet simulated */
    int top_hint;             /* the ordered stretch pass's last start particle, −1:
                                 a hint only, the start it finds does not depend on it */
    int settle_moved;         /* particles the last ordered pass moved: picks the
                                 order of the next one (the same bytes either way) */
    int lanes;                /* vector width of the sweeps, wb_cpu_lanes():
                                 16 with AVX-512, 8 with AVX2, else 4;
                                 any width gives bit-identical results */
} WbClothState;

/* The reference drape: 70×70 silk, 1.4 m square held horizontal at 1.95 m
 * over the dress form, PBD 6 × 10, skip-one bending, floor at 0, no pins,
 * no wind. */
WbClothDef wb_cloth_default(void);

/* Validate `def` and allocate the state with the cloth flat in its initial
 * plane and at rest.  WB_E_INPUT for an invalid def (message names the
 * field); WB_E_IO when memory runs out.  On failure the state owns nothing. */
WbStatus wb_cloth_init(WbClothState *s, const WbClothDef *def, WbError *err);

void wb_cloth_free(WbClothState *s);

/* Advance one frame of dt_frame seconds (substeps inside), starting at scene
 * time t (used by the wind).  Pure: reads def, writes s; no allocation.
 * The substep is dt_frame/substeps, so the motion depends on the frame
 * rate: renders should use wb_cloth_advance(). */
void wb_cloth_step(WbClothState *s, const WbClothDef *def, double t, float dt_frame);

/* Advance by frame_delta seconds of scene time in fixed substeps of
 * dt_sim = 1/(60·substeps) s — the reference's `substeps` per 1/60 s —
 * carrying the remainder to the next call, so the motion does not change
 * with the output frame rate (24, 30 and 60 fps see the same cloth).  Wind
 * time is s->time.  Recomputes the normals; returns the substeps taken.
 * Negative or non-finite deltas count as 0. */
int wb_cloth_advance(WbClothState *s, const WbClothDef *def, double frame_delta);

/* One substep of dt seconds at time t (stages 1–6, no normals). */
void wb_cloth_substep(WbClothState *s, const WbClothDef *def, double t, float dt);

/* Recompute the vertex normals from the positions. */
void wb_cloth_normals(WbClothState *s);

/* Pin (hold where it is) or release particle (i, j); returns false when
 * (i, j) is outside the grid.  A released particle starts at rest. */
bool wb_cloth_set_pinned(WbClothState *s, int i, int j, bool pinned);

/* Cut particle (i, j) out of the cloth (see WB_CLOTH_INERT above): it
 * stays where it is and no longer takes part in anything.  Returns false
 * when (i, j) is outside the grid.  wb_cloth_set_pinned() brings an inert
 * particle back; wb_cloth_release_all() leaves it inert. */
bool wb_cloth_set_inert(WbClothState *s, int i, int j);

/* Release every pinned particle. */
void wb_cloth_release_all(WbClothState *s);

/* Teleport: every particle and its position one substep ago (so its
 * velocity is kept), pinned ones included, and every body (spheres, the
 * form's spheres, boxes) move by `by` metres; the floor stays.  The cloth
 * then lies on its bodies exactly as before, shifted. */
void wb_cloth_translate(WbClothState *s, const float by[3]);
/* The bodies alone (a state whose particles were loaded already moved). */
void wb_cloth_translate_bodies(WbClothState *s, const float by[3]);

/* Longest structural link (between non-inert particles) divided by its rest length. */
float wb_cloth_max_stretch(const WbClothState *s);

/* The dihedral angle θ (radians, 0 when flat) at the edge q[0]-q[1] between
 * the triangles (q[2], q[0], q[1]) and (q[3], q[1], q[0]) at the current
 * positions, and ∂θ/∂x of the four particles.  Returns 0 for a degenerate
 * triangle.  The dihedral bending constraint is C = θ − θ_rest. */
int wb_cloth_dihedral_eval(const WbClothState *s, const int32_t q[4], float *theta,
                           float grad[4][3]);

/* Index of the first non-finite coordinate, or −1 when all are finite. */
int wb_cloth_find_nonfinite(const WbClothState *s);

#endif
