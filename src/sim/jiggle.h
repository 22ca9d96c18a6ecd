/* jiggle.h — jiggle bones: damped springs in the parent's accelerating
 * frame, the standard of SPEC §4.2 (seed 001).
 *
 * Each bone is a point offset x (3 axes, world units, from the bone's rest
 * point) obeying, per axis,
 *
 *     x'' = −ω² x − 2ζω x' − a_parent + g_b,   g_b = (0, −gravity·m_g, 0)
 *
 * stepped by the exact closed form of oscillator.h with the forcing held
 * constant over the step: no accumulator, no substeps, stable for any dt.
 * The bone's response comes from the shared tissue (def) and its own
 * character and size:
 *
 *     ω = 2π · freq · m_f / √size,    ζ = damp · m_d / √size
 *
 * (tissue stiffness and damping are shared, so a heavier region — larger
 * size — wobbles slower, rings longer and travels further).  The character
 * multipliers m_f, m_d, m_g are drawn from mulberry32(seed) as the
 * JavaScript reference does, bone by bone in the order
 *
 *     m_f ∈ [0.45, 1.9),  m_d ∈ [0.6, 1.5),  m_g ∈ [0.4, 1.25)
 *
 * each as lo + u·(hi − lo), so a weight map plus a seed reproduces a look in
 * any engine.  `shake` continues the same stream.
 *
 * The deformation is vertex += Σ_b weight_b(vertex) · offset_b.
 * Extensions (colliders, chains) run around the step and never change it.
 *
 * Ownership: WbJiggle owns its arrays (wb_jiggle_init allocates once,
 * wb_jiggle_free releases); the step functions never allocate, print or
 * touch globals.  Arrays are public and may be written between steps
 * (e.g. size from a weight map, multipliers pinned to 1 for a demo).
 */
#ifndef WB_JIGGLE_H
#define WB_JIGGLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "sim/oscillator.h"
#include "sim/rng.h"

/* Defaults of the reference (one place; scene defaults should use these). */
#define WB_JIGGLE_FREQ_DEFAULT 1.9      /* Hz, natural frequency of the tissue */
#define WB_JIGGLE_DAMP_DEFAULT 0.14     /* damping ratio ζ (1 = critical) */
#define WB_JIGGLE_GRAVITY_DEFAULT 2.7   /* world units/s², pulls along −y */
#define WB_JIGGLE_SHAKE_DEFAULT 11.0    /* shake: each velocity axis += (u − ½)·span */
#define WB_JIGGLE_DRIVER_TAU_DEFAULT 0.012 /* s, driver velocity smoothing */
#define WB_JIGGLE_SIZE_MIN 0.5          /* painted-area size clamp */
#define WB_JIGGLE_SIZE_MAX 2.0
#define WB_JIGGLE_AREA_REF_DEFAULT 0.2  /* painted fraction that counts as size 1 */
#define WB_JIGGLE_MAX_BONES 4096        /* init refuses more (input guard) */
#define WB_JIGGLE_ORBIT_DRIVE_DEFAULT 0.04 /* parent units per radian of camera orbit */
#define WB_JIGGLE_BODY_GAIN_DEFAULT 0.22   /* parent units per unit of body translation */
#define WB_JIGGLE_WALK_BOB_DEFAULT 0.22    /* walk cycle: vertical bob amplitude, units */
#define WB_JIGGLE_WALK_RATE 3.2            /* walk cycle: rad/s of cos(rate·t) */

/* Seeded character ranges, [lo, hi). */
#define WB_JIGGLE_MUL_FREQ_LO 0.45
#define WB_JIGGLE_MUL_FREQ_HI 1.9
#define WB_JIGGLE_MUL_DAMP_LO 0.6
#define WB_JIGGLE_MUL_DAMP_HI 1.5
#define WB_JIGGLE_MUL_GRAV_LO 0.4
#define WB_JIGGLE_MUL_GRAV_HI 1.25

/* Shared tissue parameters. */
typedef struct WbJiggleDef {
    double freq;    /* Hz, ≥ 0 (0 = no spring: the bone drifts) */
    double damp;    /* damping ratio ζ, ≥ 0 */
    double gravity; /* world units/s², ≥ 0 pulls toward −y */
} WbJiggleDef;

WbJiggleDef wb_jiggle_def_default(void);

/* Bone state, structure of arrays.  x, v: 3n doubles, bone-major
 * [x0 y0 z0 x1 y1 z1 …].  size, mul_*: n doubles. */
typedef struct WbJiggle {
    int n;
    double *x;        /* offsets from rest, world units */
    double *v;        /* velocities, world units/s */
    double *size;     /* relative mass of the bone's region, > 0 (default 1) */
    double *mul_freq; /* seeded character multipliers */
    double *mul_damp;
    double *mul_grav;
    uint32_t seed;    /* the seed the character was drawn from */
    WbRng rng;        /* stream after the character draws; shake draws here */
    /* Cache, not state: each bone's last propagator and its (ω, ζ, dt) key.
     * A step whose key is unchanged reuses it (bit-identical result). */
    WbOscCoef *coef;  /* n */
    double *coef_key; /* 3n */
} WbJiggle;

/* Allocate n_bones bones at rest with size 1 and character from `seed`.
 * Fails with WB_E_INPUT for n_bones outside [1, WB_JIGGLE_MAX_BONES] and
 * WB_E_IO when out of memory; on failure *j is zeroed. */
WbStatus wb_jiggle_init(WbJiggle *j, int n_bones, uint32_t seed, WbError *err);

/* Release the arrays; *j becomes empty (safe to call twice). */
void wb_jiggle_free(WbJiggle *j);

/* New seed → new character (restarts the stream; positions untouched). */
void wb_jiggle_reseed(WbJiggle *j, uint32_t seed);

/* Random impulse from the same stream: for each bone, for x, y, z in that
 * order, v += (u − ½)·span.  span in world units/s (reference: 11). */
void wb_jiggle_shake(WbJiggle *j, double span);

/* All bones back to rest (x = v = 0); character and stream kept. */
void wb_jiggle_reset(WbJiggle *j);

/* Pin every multiplier to 1 (the 1D demo's three masses share one
 * frequency and differ only by def.damp). */
void wb_jiggle_neutral(WbJiggle *j);

/* False if any offset or velocity is NaN or infinite (for WB_E_DIVERGED). */
bool wb_jiggle_all_finite(const WbJiggle *j);

/* Size of a region from its painted area (Σ weight / texel count, in [0, 1]):
 * area / area_ref clamped to [WB_JIGGLE_SIZE_MIN, WB_JIGGLE_SIZE_MAX]. */
double wb_jiggle_size_from_area(double area, double area_ref);

/* The bone's natural frequency ω (rad/s) and damping ratio ζ. */
void wb_jiggle_bone_response(const WbJiggle *j, const WbJiggleDef *def, int bone,
                             double *omega, double *zeta);

/* One exact step of one bone under parent acceleration `accel` (3 values,
 * world units/s², in the shape's frame).  dt in seconds, ≥ 0. */
void wb_jiggle_step_bone(WbJiggle *j, const WbJiggleDef *def, int bone,
                         const double accel[3], double dt);

/* One exact step of every bone under the same parent acceleration. */
void wb_jiggle_step(WbJiggle *j, const WbJiggleDef *def, const double parent_accel[3], double dt);

/* ---- chain (extension): link i hangs off link i−1 -----------------------
 * Link i feels the root acceleration plus the acceleration of every link
 * above it this step (Δv/h of their own exact steps, h = max(dt, 1e-4) s):
 * sequential, exact per link, no coupling forces.  x[i] stays each link's
 * local offset; wb_jiggle_chain_tips gives the cumulative tip offsets. */
void wb_jiggle_chain_step(WbJiggle *j, const WbJiggleDef *def, const double root_accel[3], double dt);

/* tips (3n): tip i = Σ_{k ≤ i} x_k. */
void wb_jiggle_chain_tips(const WbJiggle *j, double *tips);

/* ---- driver: parent position → parent acceleration ----------------------
 * Finite differences with exponential smoothing of the velocity:
 *     v_raw = (p − p_prev)/h,  v ← v + (v_raw − v)(1 − e^{−h/τ}),
 *     a = (v_new − v_old)/h,   h = max(dt, 1e-4) s.
 * The first position only primes the history (zero velocity), so a path
 * that starts far from the origin produces no start-up spike. */
typedef struct WbJiggleDriver {
    double tau;     /* s, smoothing time constant; ≤ 0 = raw differences */
    double prev[3]; /* last position */
    double vel[3];  /* smoothed velocity */
    bool primed;
} WbJiggleDriver;

WbJiggleDriver wb_jiggle_driver_make(double tau);

/* Prime at `pos` with zero velocity (teleport: no motion is measured). */
void wb_jiggle_driver_reset(WbJiggleDriver *d, const double pos[3]);

/* Feed the parent position at the end of a step of dt seconds; writes the
 * parent acceleration.  dt ≤ 0 is a teleport: accel = 0, history re-primed. */
void wb_jiggle_driver_update(WbJiggleDriver *d, double dt, const double pos[3], double accel[3]);

/* The reference's virtual parent position for the driver: camera orbit
 * angles (rad) and the body's translation folded into one point,
 *     p = (yaw·orbit_gain + bx·body_gain, −pitch·orbit_gain + by·body_gain, bz·body_gain)
 * (pitch is inverted: looking down throws the mass up).  Only differences
 * matter to the driver, so the origin is arbitrary. */
void wb_jiggle_drive_point(double yaw, double pitch, const double body[3], double orbit_gain,
                           double body_gain, double out[3]);

/* Walk cycle: the body's vertical offset at time t (s),
 * −|cos(WB_JIGGLE_WALK_RATE·t)|·amplitude (two footfalls per period). */
double wb_jiggle_walk_bob(double t, double amplitude);

/* ---- colliders (extension): post-step constraint projection -------------
 * A bone's world point is rest + offset.  Each collider in order pushes it
 * out along the surface normal and removes the velocity component into the
 * surface (v −= (1 + e)(v·n) n when v·n < 0, e = restitution).  Then
 * `limit` (> 0) confines the offset to the sphere |x| ≤ limit the same way. */
typedef enum WbColliderKind { WB_COLLIDER_PLANE, WB_COLLIDER_SPHERE, WB_COLLIDER_CAPSULE } WbColliderKind;

typedef struct WbCollider {
    WbColliderKind kind;
    double a[3]; /* plane: unit normal; sphere: centre; capsule: end A */
    double b[3]; /* capsule: end B */
    double d;    /* plane: points keep n·p ≥ d */
    double r;    /* sphere, capsule: radius (points are kept outside) */
} WbCollider;

/* Plane n·p ≥ d; n is normalised (a zero normal becomes +y). */
WbCollider wb_collider_plane(double nx, double ny, double nz, double d);
WbCollider wb_collider_sphere(double cx, double cy, double cz, double r);
WbCollider wb_collider_capsule(const double a[3], const double b[3], double r);

typedef struct WbColliders {
    const WbCollider *items; /* borrowed */
    int count;
    double limit;       /* > 0: |offset| ≤ limit; ≤ 0: no limit */
    double restitution; /* 0 = stop into the surface, 1 = elastic bounce */
} WbColliders;

/* Resolve one bone: x, v its offset and velocity, rest its rest point. */
void wb_collide_bone(const WbColliders *c, const double rest[3], double x[3], double v[3]);

/* Resolve every bone; rest is 3n (bone i's rest point at rest[3i]). */
void wb_jiggle_collide(WbJiggle *j, const WbColliders *c, const double *rest);

/* A chain's joints: joint i is at rest_i + tip_i (tip_i the running sum of
 * the offsets) and moves at Σ_{k ≤ i} v_k.  Link by link from the root:
 * first `limit` confines link i's own offset (the stretch of one link, not
 * the joint's travel), then each collider pushes joint i out and takes its
 * velocity into the surface off, both through link i's own offset and
 * velocity, so the links below ride along.  Colliders act last so that no
 * joint is left inside one (a push may stretch a link past `limit`).
 * rest is 3n as for wb_jiggle_collide. */
void wb_jiggle_chain_collide(WbJiggle *j, const WbColliders *c, const double *rest);

/* ---- deformation ---------------------------------------------------------
 * pos: n_verts points of `dim` floats (2 or 3), updated in place with
 * pos += Σ_b weights[v·n_bones + b] · offsets[3b .. 3b+dim). */
void wb_jiggle_deform(float *pos, int dim, size_t n_verts, const float *weights, int n_bones,
                      const double *offsets);

#endif
