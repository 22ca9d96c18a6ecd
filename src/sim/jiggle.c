/* jiggle.c — jiggle bones, driver, colliders, chains (see jiggle.h). */
#include "sim/jiggle.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/oscillator.h"

/* Every h in a finite difference is at least this (s): the reference's guard
 * against a zero-length frame turning a position change into infinity. */
#define WB_JIGGLE_MIN_H 1e-4

WbJiggleDef wb_jiggle_def_default(void)
{
    WbJiggleDef d = {WB_JIGGLE_FREQ_DEFAULT, WB_JIGGLE_DAMP_DEFAULT, WB_JIGGLE_GRAVITY_DEFAULT};
    return d;
}

WbStatus wb_jiggle_init(WbJiggle *j, int n_bones, uint32_t seed, WbError *err)
{
    memset(j, 0, sizeof *j);
    if (n_bones < 1 || n_bones > WB_JIGGLE_MAX_BONES)
        return wb_error_set(err, WB_E_INPUT, "jiggle: %d bones; expected 1 to %d", n_bones,
                            WB_JIGGLE_MAX_BONES);
    size_t n = (size_t)n_bones;
    /* One block: x, v (3n each), then size and three multipliers (n each). */
    double *block = calloc(13 * n, sizeof *block);
    WbOscCoef *coef = calloc(n, sizeof *coef);
    if (!block || !coef) {
        free(block);
        free(coef);
        return wb_error_set(err, WB_E_IO, "jiggle: out of memory for %d bones", n_bones);
    }
    j->n = n_bones;
    j->x = block;
    j->v = block + 3 * n;
    j->size = block + 6 * n;
    j->mul_freq = block + 7 * n;
    j->mul_damp = block + 8 * n;
    j->mul_grav = block + 9 * n;
    j->coef_key = block + 10 * n;
    j->coef = coef;
    for (size_t i = 0; i < n; i++) j->size[i] = 1.0;
    for (size_t i = 0; i < 3 * n; i++) j->coef_key[i] = NAN; /* never equal: first step computes */
    wb_jiggle_reseed(j, seed);
    return WB_OK;
}

void wb_jiggle_free(WbJiggle *j)
{
    free(j->x);
    free(j->coef);
    memset(j, 0, sizeof *j);
}

void wb_jiggle_reseed(WbJiggle *j, uint32_t seed)
{
    j->seed = seed;
    j->rng = wb_rng_seed(seed);
    /* Order is part of the standard: bone by bone, frequency, damping, gravity. */
    for (int i = 0; i < j->n; i++) {
        j->mul_freq[i] = wb_rng_range(&j->rng, WB_JIGGLE_MUL_FREQ_LO, WB_JIGGLE_MUL_FREQ_HI);
        j->mul_damp[i] = wb_rng_range(&j->rng, WB_JIGGLE_MUL_DAMP_LO, WB_JIGGLE_MUL_DAMP_HI);
        j->mul_grav[i] = wb_rng_range(&j->rng, WB_JIGGLE_MUL_GRAV_LO, WB_JIGGLE_MUL_GRAV_HI);
    }
}

void wb_jiggle_shake(WbJiggle *j, double span)
{
    for (int k = 0; k < 3 * j->n; k++) j->v[k] += (wb_rng_unit(&j->rng) - 0.5) * span;
}

void wb_jiggle_reset(WbJiggle *j)
{
    memset(j->x, 0, 3 * (size_t)j->n * sizeof *j->x);
    memset(j->v, 0, 3 * (size_t)j->n * sizeof *j->v);
}

void wb_jiggle_neutral(WbJiggle *j)
{
    for (int i = 0; i < j->n; i++) j->mul_freq[i] = j->mul_damp[i] = j->mul_grav[i] = 1.0;
}

bool wb_jiggle_all_finite(const WbJiggle *j)
{
    for (int k = 0; k < 3 * j->n; k++)
        if (!isfinite(j->x[k]) || !isfinite(j->v[k])) return false;
    return true;
}

double wb_jiggle_size_from_area(double area, double area_ref)
{
    double s = area_ref > 0.0 ? area / area_ref : WB_JIGGLE_SIZE_MAX;
    if (!(s >= WB_JIGGLE_SIZE_MIN)) return WB_JIGGLE_SIZE_MIN; /* also NaN */
    return s > WB_JIGGLE_SIZE_MAX ? WB_JIGGLE_SIZE_MAX : s;
}

void wb_jiggle_bone_response(const WbJiggle *j, const WbJiggleDef *def, int bone,
                             double *omega, double *zeta)
{
    assert(bone >= 0 && bone < j->n && j->size[bone] > 0.0);
    /* Shared k and c over a mass m = size: ω = √(k/m), ζ = c/(2√(km)). */
    double inv = 1.0 / sqrt(j->size[bone]);
    *omega = 2.0 * M_PI * def->freq * j->mul_freq[bone] * inv;
    *zeta = def->damp * j->mul_damp[bone] * inv;
}

void wb_jiggle_step_bone(WbJiggle *j, const WbJiggleDef *def, int bone,
                         const double accel[3], double dt)
{
    double omega, zeta;
    wb_jiggle_bone_response(j, def, bone, &omega, &zeta);
    /* One propagator for the three axes: they share ω, ζ and dt.  A fixed
     * dt and unchanged parameters (the usual case) reuse last step's. */
    double *key = j->coef_key + 3 * bone;
    if (key[0] != omega || key[1] != zeta || key[2] != dt) {
        j->coef[bone] = wb_osc_coef(omega, zeta, dt);
        key[0] = omega;
        key[1] = zeta;
        key[2] = dt;
    }
    const WbOscCoef c = j->coef[bone];
    double f[3] = {-accel[0], -accel[1] - def->gravity * j->mul_grav[bone], -accel[2]};
    double *x = j->x + 3 * bone, *v = j->v + 3 * bone;
    for (int k = 0; k < 3; k++) wb_osc_apply(&c, &x[k], &v[k], f[k]);
}

void wb_jiggle_step(WbJiggle *j, const WbJiggleDef *def, const double parent_accel[3], double dt)
{
    for (int i = 0; i < j->n; i++) wb_jiggle_step_bone(j, def, i, parent_accel, dt);
}

void wb_jiggle_chain_step(WbJiggle *j, const WbJiggleDef *def, const double root_accel[3], double dt)
{
    double h = fmax(dt, WB_JIGGLE_MIN_H);
    double a[3] = {root_accel[0], root_accel[1], root_accel[2]};
    for (int i = 0; i < j->n; i++) {
        double *v = j->v + 3 * i;
        double v0[3] = {v[0], v[1], v[2]};
        wb_jiggle_step_bone(j, def, i, a, dt);
        /* The link's own acceleration this step rides down to the next. */
        for (int k = 0; k < 3; k++) a[k] += (v[k] - v0[k]) / h;
    }
}

void wb_jiggle_chain_tips(const WbJiggle *j, double *tips)
{
    double c[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < j->n; i++)
        for (int k = 0; k < 3; k++) {
            c[k] += j->x[3 * i + k];
            tips[3 * i + k] = c[k];
        }
}

/* ---- driver ---------------------------------------------------------------- */

WbJiggleDriver wb_jiggle_driver_make(double tau)
{
    WbJiggleDriver d;
    memset(&d, 0, sizeof d);
    d.tau = tau;
    return d;
}

void wb_jiggle_driver_reset(WbJiggleDriver *d, const double pos[3])
{
    for (int k = 0; k < 3; k++) {
        d->prev[k] = pos[k];
        d->vel[k] = 0.0;
    }
    d->primed = true;
}

void wb_jiggle_driver_update(WbJiggleDriver *d, double dt, const double pos[3], double accel[3])
{
    if (!d->primed || !(dt > 0.0)) {
        wb_jiggle_driver_reset(d, pos);
        accel[0] = accel[1] = accel[2] = 0.0;
        return;
    }
    double h = fmax(dt, WB_JIGGLE_MIN_H);
    /* First-order low-pass of the velocity; blend = 1 − e^{−h/τ}. */
    double blend = d->tau > 0.0 ? -expm1(-h / d->tau) : 1.0;
    for (int k = 0; k < 3; k++) {
        double raw = (pos[k] - d->prev[k]) / h;
        double nv = d->vel[k] + (raw - d->vel[k]) * blend;
        accel[k] = (nv - d->vel[k]) / h;
        d->vel[k] = nv;
        d->prev[k] = pos[k];
    }
}

void wb_jiggle_drive_point(double yaw, double pitch, const double body[3], double orbit_gain,
                           double body_gain, double out[3])
{
    out[0] = yaw * orbit_gain + body[0] * body_gain;
    out[1] = -pitch * orbit_gain + body[1] * body_gain;
    out[2] = body[2] * body_gain;
}

double wb_jiggle_walk_bob(double t, double amplitude)
{
    return -fabs(cos(WB_JIGGLE_WALK_RATE * t)) * amplitude;
}

/* ---- colliders ------------------------------------------------------------- */

WbCollider wb_collider_plane(double nx, double ny, double nz, double d)
{
    WbCollider c;
    memset(&c, 0, sizeof c);
    c.kind = WB_COLLIDER_PLANE;
    double l = sqrt(nx * nx + ny * ny + nz * nz);
    if (l > 0.0) {
        c.a[0] = nx / l;
        c.a[1] = ny / l;
        c.a[2] = nz / l;
    } else {
        c.a[1] = 1.0;
    }
    c.d = d;
    return c;
}

WbCollider wb_collider_sphere(double cx, double cy, double cz, double r)
{
    WbCollider c;
    memset(&c, 0, sizeof c);
    c.kind = WB_COLLIDER_SPHERE;
    c.a[0] = cx;
    c.a[1] = cy;
    c.a[2] = cz;
    c.r = r;
    return c;
}

WbCollider wb_collider_capsule(const double a[3], const double b[3], double r)
{
    WbCollider c;
    memset(&c, 0, sizeof c);
    c.kind = WB_COLLIDER_CAPSULE;
    memcpy(c.a, a, sizeof c.a);
    memcpy(c.b, b, sizeof c.b);
    c.r = r;
    return c;
}

/* Move x out by depth along unit n; cancel (or reflect, with restitution)
 * the velocity component pointing into the surface. */
static void push(double x[3], double v[3], const double n[3], double depth, double bounce)
{
    double vn = v[0] * n[0] + v[1] * n[1] + v[2] * n[2];
    for (int k = 0; k < 3; k++) x[k] += n[k] * depth;
    if (vn < 0.0)
        for (int k = 0; k < 3; k++) v[k] -= n[k] * vn * bounce;
}

/* Keep world point p outside the ball (centre, r). */
static void push_out_ball(const double p[3], const double centre[3], double r, double x[3],
                          double v[3], double bounce)
{
    double q[3] = {p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]};
    double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    if (len >= r) return;
    /* A point exactly at the centre has no outward direction: use +y. */
    double n[3] = {0.0, 1.0, 0.0};
    if (len > 1e-12)
        for (int k = 0; k < 3; k++) n[k] = q[k] / len;
    push(x, v, n, r - len, bounce);
}

static void resolve_one(const WbCollider *c, const double rest[3], double x[3], double v[3],
                        double bounce)
{
    double p[3] = {rest[0] + x[0], rest[1] + x[1], rest[2] + x[2]};
    switch (c->kind) {
    case WB_COLLIDER_PLANE: {
        double dist = p[0] * c->a[0] + p[1] * c->a[1] + p[2] * c->a[2] - c->d;
        if (dist < 0.0) push(x, v, c->a, -dist, bounce);
        break;
    }
    case WB_COLLIDER_SPHERE:
        push_out_ball(p, c->a, c->r, x, v, bounce);
        break;
    case WB_COLLIDER_CAPSULE: {
        /* Closest point of segment AB to p, then a ball there. */
        double ab[3] = {c->b[0] - c->a[0], c->b[1] - c->a[1], c->b[2] - c->a[2]};
        double dd = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
        double t = 0.0;
        if (dd > 0.0)
            t = ((p[0] - c->a[0]) * ab[0] + (p[1] - c->a[1]) * ab[1] + (p[2] - c->a[2]) * ab[2]) / dd;
        t = fmin(1.0, fmax(0.0, t));
        double centre[3] = {c->a[0] + ab[0] * t, c->a[1] + ab[1] * t, c->a[2] + ab[2] * t};
        push_out_ball(p, centre, c->r, x, v, bounce);
        break;
    }
    }
}

void wb_collide_bone(const WbColliders *c, const double rest[3], double x[3], double v[3])
{
    double bounce = 1.0 + c->restitution;
    for (int i = 0; i < c->count; i++) resolve_one(&c->items[i], rest, x, v, bounce);
    if (c->limit > 0.0) {
        double len = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        if (len > c->limit) {
            double n[3] = {-x[0] / len, -x[1] / len, -x[2] / len};
            push(x, v, n, len - c->limit, bounce);
        }
    }
}

void wb_jiggle_collide(WbJiggle *j, const WbColliders *c, const double *rest)
{
    for (int i = 0; i < j->n; i++) wb_collide_bone(c, rest + 3 * i, j->x + 3 * i, j->v + 3 * i);
}

void wb_jiggle_chain_collide(WbJiggle *j, const WbColliders *c, const double *rest)
{
    /* The limit alone, then the colliders alone, through wb_collide_bone
     * (one resolver: the single-bone path stays as it is compiled). */
    const WbColliders lim = {NULL, 0, c->limit, c->restitution};
    const WbColliders surf = {c->items, c->count, 0.0, c->restitution};
    double tip[3] = {0.0, 0.0, 0.0}, vel[3] = {0.0, 0.0, 0.0}; /* the parent joint's */
    for (int i = 0; i < j->n; i++) {
        double *x = j->x + 3 * i, *v = j->v + 3 * i;
        wb_collide_bone(&lim, rest + 3 * i, x, v);
        /* The joint is at (rest_i + tip_{i−1}) + x_i moving at vel_{i−1} +
         * v_i; what a collider takes off that velocity comes off the
         * link's own (nothing when untouched: a free chain keeps its bits). */
        double at[3], w[3], w0[3];
        for (int k = 0; k < 3; k++) {
            at[k] = rest[3 * i + k] + tip[k];
            w[k] = w0[k] = vel[k] + v[k];
        }
        wb_collide_bone(&surf, at, x, w);
        for (int k = 0; k < 3; k++) {
            v[k] += w[k] - w0[k];
            tip[k] += x[k];
            vel[k] += v[k];
        }
    }
}

/* ---- deformation ----------------------------------------------------------- */

void wb_jiggle_deform(float *pos, int dim, size_t n_verts, const float *weights, int n_bones,
                      const double *offsets)
{
    assert(dim == 2 || dim == 3);
    for (size_t i = 0; i < n_verts; i++) {
        const float *w = weights + i * (size_t)n_bones;
        float *p = pos + i * (size_t)dim;
        for (int k = 0; k < dim; k++) {
            double s = 0.0;
            for (int b = 0; b < n_bones; b++) s += (double)w[b] * offsets[3 * b + k];
            p[k] = (float)((double)p[k] + s);
        }
    }
}
