/* rope.c — Verlet ropes.  See rope.h for the step.
 *
 * Why a second solver.  Jakobsen relaxation is Gauss–Seidel on the distance
 * constraints: each sweep moves a length error only about one link along the
 * chain, so a hanging rope never finishes propagating its own weight to the
 * anchor.  Measured here (wb_rope_convergence_table), a 30-node rope settles
 * about 1.9 % long at 5 passes (the seed claims 0.4 %), 60 nodes about 4 %:
 * the error grows with the chain length and falls only like 1/passes.
 *
 * WB_ROPE_CHAIN solves the constraints of a whole chain at once.  Linearize
 * C_k(x) = |x_{k+1} − x_k| − L_k around the current positions, with
 * n_k = (x_{k+1} − x_k)/|…|, so ∇_{x_k} C_k = −n_k, ∇_{x_{k+1}} C_k = n_k.
 * The smallest mass-weighted correction Δx = W Jᵀλ that zeroes the linear
 * model solves
 *     (J W Jᵀ) λ = −C,
 *     (J W Jᵀ)_{kk}   = w_k + w_{k+1},
 *     (J W Jᵀ)_{k,k+1} = −w_{k+1} (n_k · n_{k+1}),
 * a symmetric tridiagonal, weakly diagonally dominant matrix — the Thomas
 * algorithm solves it in O(n) without pivoting.  Then
 *     Δx_j = w_j (λ_{j−1} n_{j−1} − λ_j n_j).
 * One such projection leaves only the second-order error |Δx|²/L, so one
 * pass per step holds a hanging rope to a few 10⁻⁵ of its length, and a pass
 * costs about two Jakobsen sweeps (one square root and two divisions per
 * link).  Pinned particles (w = 0) need no special case; a link between two
 * pinned particles gets λ = 0.  Cut links split the rope into independent
 * chains, each solved on its own.
 */
#include "sim/rope.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

WbRopeSetDef wb_rope_default(void)
{
    WbRopeSetDef d;
    memset(&d, 0, sizeof d);
    d.solver = WB_ROPE_JAKOBSEN;
    d.passes = 5;
    d.damping = 0.99f;
    d.gravity[0] = 0.0f;
    d.gravity[1] = -9.81f;
    d.step = 1.0f / 120.0f;
    d.max_frame_delta = 0.25f;
    d.max_speed = 50.0f;
    d.obstacle_friction = 0.1f;
    return d;
}

WbRopeSpec wb_rope_spec(float x0, float y0, float x1, float y1, int nodes)
{
    WbRopeSpec r;
    memset(&r, 0, sizeof r);
    r.start[0] = x0;
    r.start[1] = y0;
    r.end[0] = x1;
    r.end[1] = y1;
    r.nodes = nodes;
    r.pin_start = true;
    r.end_mass = 1.0f;
    return r;
}

void wb_rope_path_eval(const WbRopePath *p, double t, float *x, float *y)
{
    const double two_pi = 6.283185307179586;
    switch (p->kind) {
    case WB_ROPE_PATH_OSCILLATE: {
        double s = sin(two_pi * p->freq * t + p->phase);
        *x = (float)(p->x + p->ax * s);
        *y = (float)(p->y + p->ay * s);
        return;
    }
    case WB_ROPE_PATH_ORBIT: {
        double a = two_pi * p->freq * t + p->phase;
        *x = (float)(p->x + p->ax * cos(a));
        *y = (float)(p->y + p->ay * sin(a));
        return;
    }
    case WB_ROPE_PATH_KEYS: {
        int n = p->n_keys;
        if (n <= 0) {
            *x = p->x;
            *y = p->y;
            return;
        }
        if (t <= p->key_t[0]) {
            *x = p->key_x[0];
            *y = p->key_y[0];
            return;
        }
        for (int k = 0; k + 1 < n; k++) {
            if (t < p->key_t[k + 1]) {
                double f = (t - p->key_t[k]) / (p->key_t[k + 1] - p->key_t[k]);
                *x = (float)(p->key_x[k] + (p->key_x[k + 1] - p->key_x[k]) * f);
                *y = (float)(p->key_y[k] + (p->key_y[k + 1] - p->key_y[k]) * f);
                return;
            }
        }
        *x = p->key_x[n - 1];
        *y = p->key_y[n - 1];
        return;
    }
    case WB_ROPE_PATH_FIXED:
    default:
        *x = p->x;
        *y = p->y;
        return;
    }
}

/* ---------------------------------------------------------------- setup */

void wb_rope_free(WbRopeState *s)
{
    float **fl[] = {&s->x, &s->y, &s->px, &s->py, &s->w, &s->rest, &s->dirx, &s->diry,
                    &s->nx, &s->ny, &s->diag, &s->off, &s->rhs, &s->lam};
    for (size_t k = 0; k < sizeof fl / sizeof fl[0]; k++) {
        free(*fl[k]);
        *fl[k] = NULL;
    }
    free(s->la);
    free(s->lb);
    free(s->active);
    free(s->path);
    s->la = s->lb = s->path = NULL;
    s->active = NULL;
    s->n = s->n_links = s->n_ropes = 0;
}

static WbStatus validate_path(const WbRopePath *p, int rope, const char *end, WbError *err)
{
    if (p->kind == WB_ROPE_PATH_KEYS) {
        if (p->n_keys < 1 || p->n_keys > WB_ROPE_MAX_KEYS)
            return wb_error_set(err, WB_E_INPUT, "rope %d %s path: 1..%d keys expected", rope,
                                end, WB_ROPE_MAX_KEYS);
        for (int k = 0; k + 1 < p->n_keys; k++) {
            if (!(p->key_t[k + 1] > p->key_t[k]))
                return wb_error_set(err, WB_E_INPUT,
                                    "rope %d %s path: key times must increase", rope, end);
        }
    }
    if (!(p->freq >= 0.0f))
        return wb_error_set(err, WB_E_INPUT, "rope %d %s path: frequency must be >= 0", rope,
                            end);
    return WB_OK;
}

/* Outward normals need a known winding: make every polygon counter-clockwise. */
static float poly_area2(const WbRopePoly *p)
{
    float a = 0.0f;
    for (int i = 0; i < p->n; i++) {
        int j = (i + 1) % p->n;
        a += p->x[i] * p->y[j] - p->x[j] * p->y[i];
    }
    return a;
}

static WbStatus validate(const WbRopeSetDef *def, WbError *err)
{
    if (def->n_ropes < 0 || def->n_ropes > WB_ROPE_MAX_ROPES)
        return wb_error_set(err, WB_E_INPUT, "0..%d ropes expected", WB_ROPE_MAX_ROPES);
    if (def->n_obstacles < 0 || def->n_obstacles > WB_ROPE_MAX_OBSTACLES)
        return wb_error_set(err, WB_E_INPUT, "0..%d obstacles expected", WB_ROPE_MAX_OBSTACLES);
    if (def->passes < 1 || def->passes > 1000)
        return wb_error_set(err, WB_E_INPUT, "rope passes %d out of range (1..1000)", def->passes);
    if (!(def->step > 0.0f && def->step <= 0.1f))
        return wb_error_set(err, WB_E_INPUT, "rope step must be in (0, 0.1] s");
    if (!(def->max_frame_delta >= def->step))
        return wb_error_set(err, WB_E_INPUT, "rope max_frame_delta must be >= step");
    if (!(def->damping > 0.0f && def->damping <= 1.0f))
        return wb_error_set(err, WB_E_INPUT, "rope damping must be in (0, 1]");
    if (!(def->max_speed > 0.0f))
        return wb_error_set(err, WB_E_INPUT, "rope max_speed must be positive");
    if (!(def->obstacle_friction >= 0.0f && def->obstacle_friction <= 1.0f))
        return wb_error_set(err, WB_E_INPUT, "rope obstacle_friction must be in [0, 1]");
    for (int r = 0; r < def->n_ropes; r++) {
        const WbRopeSpec *sp = &def->ropes[r];
        if (sp->nodes < 2 || sp->nodes > WB_ROPE_MAX_NODES)
            return wb_error_set(err, WB_E_INPUT, "rope %d: nodes %d out of range (2..%d)", r,
                                sp->nodes, WB_ROPE_MAX_NODES);
        if (!(sp->end_mass >= 0.01f && sp->end_mass <= 1e4f))
            return wb_error_set(err, WB_E_INPUT, "rope %d: end_mass must be in [0.01, 10000]", r);
        float dx = sp->end[0] - sp->start[0], dy = sp->end[1] - sp->start[1];
        float len = sp->length > 0.0f ? sp->length : sqrtf(dx * dx + dy * dy);
        if (!(len > 0.0f) || !(sp->length >= 0.0f))
            return wb_error_set(err, WB_E_INPUT, "rope %d: length must be positive", r);
        if (!(sp->radius >= 0.0f && sp->radius <= WB_ROPE_MAX_RADIUS))
            return wb_error_set(err, WB_E_INPUT, "rope %d: radius must be in [0, %g]", r,
                                (double)WB_ROPE_MAX_RADIUS);
        if (!(sp->end_radius >= 0.0f && sp->end_radius <= WB_ROPE_MAX_RADIUS))
            return wb_error_set(err, WB_E_INPUT, "rope %d: end_radius must be in [0, %g]", r,
                                (double)WB_ROPE_MAX_RADIUS);
        WbStatus st;
        if (sp->move_start && (st = validate_path(&sp->start_path, r, "start", err)) != WB_OK)
            return st;
        if (sp->move_end && (st = validate_path(&sp->end_path, r, "end", err)) != WB_OK)
            return st;
    }
    for (int o = 0; o < def->n_obstacles; o++) {
        const WbRopePoly *p = &def->obstacles[o];
        if (p->n < 3 || p->n > WB_ROPE_POLY_MAX)
            return wb_error_set(err, WB_E_INPUT, "obstacle %d: 3..%d vertices expected", o,
                                WB_ROPE_POLY_MAX);
        float a = poly_area2(p);
        if (!(fabsf(a) > 0.0f))
            return wb_error_set(err, WB_E_INPUT, "obstacle %d has no area", o);
        /* convex: every turn has the winding's sign */
        for (int i = 0; i < p->n; i++) {
            int j = (i + 1) % p->n, k = (i + 2) % p->n;
            float cr = (p->x[j] - p->x[i]) * (p->y[k] - p->y[j]) -
                       (p->y[j] - p->y[i]) * (p->x[k] - p->x[j]);
            if (cr * a < 0.0f)
                return wb_error_set(err, WB_E_INPUT, "obstacle %d is not convex (vertex %d)", o, j);
        }
    }
    return WB_OK;
}

WbStatus wb_rope_init(WbRopeState *s, const WbRopeSetDef *def, WbError *err)
{
    memset(s, 0, sizeof *s);
    WbStatus st = validate(def, err);
    if (st != WB_OK)
        return st;
    int n = 0, nl = 0;
    for (int r = 0; r < def->n_ropes; r++) {
        n += def->ropes[r].nodes;
        nl += def->ropes[r].nodes - 1;
    }
    s->n = n;
    s->n_links = nl;
    s->n_ropes = def->n_ropes;
    size_t pn = (size_t)(n ? n : 1), ln = (size_t)(nl ? nl : 1);
    s->x = calloc(pn, sizeof(float));
    s->y = calloc(pn, sizeof(float));
    s->px = calloc(pn, sizeof(float));
    s->py = calloc(pn, sizeof(float));
    s->w = calloc(pn, sizeof(float));
    s->path = calloc(pn, sizeof(int32_t));
    s->la = calloc(ln, sizeof(int32_t));
    s->lb = calloc(ln, sizeof(int32_t));
    s->rest = calloc(ln, sizeof(float));
    s->active = calloc(ln, 1);
    float **scratch[] = {&s->dirx, &s->diry, &s->nx, &s->ny, &s->diag, &s->off, &s->rhs, &s->lam};
    bool ok = s->x && s->y && s->px && s->py && s->w && s->path && s->la && s->lb && s->rest &&
              s->active;
    for (size_t k = 0; k < sizeof scratch / sizeof scratch[0]; k++) {
        *scratch[k] = calloc(ln, sizeof(float));
        ok = ok && *scratch[k];
    }
    if (!ok) {
        wb_rope_free(s);
        return wb_error_set(err, WB_E_IO, "out of memory for %d rope particles", n);
    }
    int p = 0, l = 0;
    for (int r = 0; r < def->n_ropes; r++) {
        const WbRopeSpec *sp = &def->ropes[r];
        s->rope_first[r] = p;
        s->link_first[r] = l;
        float dx = sp->end[0] - sp->start[0], dy = sp->end[1] - sp->start[1];
        float span = sqrtf(dx * dx + dy * dy);
        float len = sp->length > 0.0f ? sp->length : span;
        float ux = span > 0.0f ? dx / span : 0.0f, uy = span > 0.0f ? dy / span : -1.0f;
        int m = sp->nodes;
        for (int k = 0; k < m; k++) {
            float f = (float)k / (float)(m - 1);
            s->x[p + k] = s->px[p + k] = sp->start[0] + dx * f;
            s->y[p + k] = s->py[p + k] = sp->start[1] + dy * f;
            s->w[p + k] = 1.0f;
            s->path[p + k] = -1;
        }
        s->w[p + m - 1] = 1.0f / sp->end_mass;
        if (sp->pin_start) {
            s->w[p] = 0.0f;
            if (sp->move_start)
                s->path[p] = 2 * r;
        }
        if (sp->pin_end) {
            s->w[p + m - 1] = 0.0f;
            if (sp->move_end)
                s->path[p + m - 1] = 2 * r + 1;
        }
        for (int k = 0; k + 1 < m; k++) {
            s->la[l] = p + k;
            s->lb[l] = p + k + 1;
            s->rest[l] = len / (float)(m - 1);
            s->active[l] = 1;
            s->dirx[l] = ux;
            s->diry[l] = uy;
            l++;
        }
        p += m;
    }
    s->rope_first[def->n_ropes] = p;
    s->link_first[def->n_ropes] = l;
    /* place moving anchors where their path starts */
    for (int k = 0; k < n; k++) {
        if (s->path[k] >= 0) {
            const WbRopeSpec *sp = &def->ropes[s->path[k] / 2];
            wb_rope_path_eval(s->path[k] % 2 ? &sp->end_path : &sp->start_path, 0.0, &s->x[k],
                              &s->y[k]);
            s->px[k] = s->x[k];
            s->py[k] = s->y[k];
        }
    }
    return WB_OK;
}

/* ---------------------------------------------------------------- stages */

static void move_anchors(WbRopeState *s, const WbRopeSetDef *def, double t)
{
    for (int k = 0; k < s->n; k++) {
        if (s->path[k] < 0)
            continue;
        const WbRopeSpec *sp = &def->ropes[s->path[k] / 2];
        s->px[k] = s->x[k];
        s->py[k] = s->y[k];
        wb_rope_path_eval(s->path[k] % 2 ? &sp->end_path : &sp->start_path, t, &s->x[k], &s->y[k]);
    }
}

/* Verlet without velocity: x += (x − x_prev)·damping + g·dt², with the
 * implicit velocity capped so a teleported anchor or a hitch cannot fling
 * particles across the scene. */
static void predict(WbRopeState *s, const WbRopeSetDef *def, float dt)
{
    const float gx = def->gravity[0] * dt * dt, gy = def->gravity[1] * dt * dt;
    const float vmax = def->max_speed * dt, d = def->damping;
    for (int k = 0; k < s->n; k++) {
        if (s->w[k] == 0.0f)
            continue;
        float vx = (s->x[k] - s->px[k]) * d, vy = (s->y[k] - s->py[k]) * d;
        float v2 = vx * vx + vy * vy;
        if (v2 > vmax * vmax) {
            float f = vmax / sqrtf(v2);
            vx *= f;
            vy *= f;
        }
        s->px[k] = s->x[k];
        s->py[k] = s->y[k];
        s->x[k] += vx + gx;
        s->y[k] += vy + gy;
    }
}

/* Unit direction of link l and its length; a link shorter than WB_ROPE_EPS
 * takes its rest direction (so coincident particles separate, no NaN). */
static float link_dir(const WbRopeState *s, int l, float *ux, float *uy)
{
    float dx = s->x[s->lb[l]] - s->x[s->la[l]], dy = s->y[s->lb[l]] - s->y[s->la[l]];
    float d = sqrtf(dx * dx + dy * dy);
    if (!(d > WB_ROPE_EPS)) {
        *ux = s->dirx[l];
        *uy = s->diry[l];
        return 0.0f;
    }
    *ux = dx / d;
    *uy = dy / d;
    return d;
}

/* Jakobsen: move both ends along the link so it has its rest length again,
 * the correction split by inverse mass (a pinned end does not move and the
 * other takes all of it).  The sweep is a chain of dependent square roots
 * and divisions, so along a run of joined links the shared particle is
 * carried in registers instead of being stored and reloaded per link. */
static void relax_range(WbRopeState *s, int l, int l1)
{
    float *X = s->x, *Y = s->y;
    const float *W = s->w;
    while (l < l1) {
        if (!s->active[l]) {
            l++;
            continue;
        }
        int a = s->la[l];
        float ax = X[a], ay = Y[a], wa = W[a];
        for (; l < l1 && s->active[l] && s->la[l] == a; l++) {
            int b = s->lb[l];
            float bx = X[b], by = Y[b], wb = W[b], ws = wa + wb;
            if (ws > 0.0f) {
                float dx = bx - ax, dy = by - ay;
                float d = sqrtf(dx * dx + dy * dy);
                float f;
                if (d > WB_ROPE_EPS) {
                    /* one division: f·(dx, dy) = (d − L)/ws · (dx, dy)/d */
                    f = (d - s->rest[l]) / (ws * d);
                } else { /* coincident: push apart along the rest direction */
                    dx = s->dirx[l];
                    dy = s->diry[l];
                    f = (d - s->rest[l]) / ws;
                }
                ax += wa * f * dx;
                ay += wa * f * dy;
                bx -= wb * f * dx;
                by -= wb * f * dy;
            }
            X[a] = ax;
            Y[a] = ay;
            a = b;
            ax = bx;
            ay = by;
            wa = wb;
        }
        X[a] = ax;
        Y[a] = ay;
    }
}

static void relax_links(WbRopeState *s) { relax_range(s, 0, s->n_links); }

/* The chain system of links [l0, l1) with `reg` times its largest diagonal
 * added to every diagonal (see solve_chain): diagonal, off-diagonal and
 * right-hand side. */
static void chain_system(WbRopeState *s, int l0, int l1, float reg)
{
    float *nx = s->nx, *ny = s->ny, *dg = s->diag, *of = s->off, *rhs = s->rhs;
    for (int l = l0; l < l1; l++) {
        float d = link_dir(s, l, &nx[l], &ny[l]);
        float wa = s->w[s->la[l]], wb = s->w[s->lb[l]];
        dg[l] = wa + wb;
        rhs[l] = -(d - s->rest[l]);
        if (!(dg[l] > 0.0f)) { /* both ends pinned: λ = 0 */
            dg[l] = 1.0f;
            rhs[l] = 0.0f;
        }
    }
    if (reg > 0.0f) {
        /* one compliance for every link, so what is left over is shared evenly */
        float big = 0.0f;
        for (int l = l0; l < l1; l++)
            big = fmaxf(big, dg[l]);
        for (int l = l0; l < l1; l++)
            dg[l] += reg * big;
    }
    for (int l = l0; l + 1 < l1; l++)
        of[l] = -s->w[s->lb[l]] * (nx[l] * nx[l + 1] + ny[l] * ny[l + 1]);
}

/* Thomas forward elimination in place (off[] becomes c', rhs[] becomes
 * d').  A pivot not clearly positive (below CHAIN_PIVOT of its diagonal)
 * means a (numerically) singular system, the matrix being PSD: then it gives
 * up and returns false, or with give_up false takes the floor and goes on. */
#define CHAIN_PIVOT 1e-5f /* relative pivot below which the chain counts as singular */
#define CHAIN_REG 1e-4f   /* relative compliance that makes a singular chain regular */

static bool chain_eliminate(WbRopeState *s, int l0, int l1, bool give_up)
{
    const float *dg = s->diag;
    float *of = s->off, *rhs = s->rhs;
    float c_prev = 0.0f, d_prev = 0.0f, o_prev = 0.0f;
    for (int l = l0; l < l1; l++) {
        float den = dg[l] - o_prev * c_prev;
        if (!(den > CHAIN_PIVOT * dg[l])) {
            if (give_up)
                return false;
            den = CHAIN_PIVOT * dg[l]; /* regularized: only rounding gets here */
        }
        float inv = 1.0f / den;
        float c = l + 1 < l1 ? of[l] * inv : 0.0f;
        float dd = (rhs[l] - o_prev * d_prev) * inv;
        o_prev = l + 1 < l1 ? of[l] : 0.0f;
        of[l] = c;
        rhs[l] = dd;
        c_prev = c;
        d_prev = dd;
    }
    return true;
}

/* One exact projection of the linearized chain of links [l0, l1) (all
 * active, consecutive); see the note at the top.
 *
 * A straight chain pinned at both ends (a taut rope hanging vertically, or
 * any straight one without gravity) is singular: the links' lengths must add
 * up to the fixed span, so one equation is the sum of the others and the
 * last pivot of the elimination is zero (it used to give 1/0 and NaN at the
 * first step).  Then the system is solved again with a small compliance
 * added to every diagonal, (A + ε·max diag·I) λ = −C, ε = CHAIN_REG: the
 * part of −C no projection can reach (a rope shorter than its span) is
 * spread over all links evenly, the part along the null space of A moves no
 * particle.  Steps whose system is regular are solved exactly as before. */
static void solve_chain(WbRopeState *s, int l0, int l1)
{
    float *nx = s->nx, *ny = s->ny, *of = s->off, *rhs = s->rhs, *lam = s->lam;
    chain_system(s, l0, l1, 0.0f);
    if (!chain_eliminate(s, l0, l1, true)) {
        chain_system(s, l0, l1, CHAIN_REG);
        (void)chain_eliminate(s, l0, l1, false); /* pivots ≈ ≥ ε·diagonal now */
    }
    float next = 0.0f;
    for (int l = l1 - 1; l >= l0; l--) {
        lam[l] = rhs[l] - of[l] * next;
        next = lam[l];
    }
    /* Δx_j = w_j (λ_{j−1} n_{j−1} − λ_j n_j) */
    for (int l = l0; l < l1; l++) {
        int a = s->la[l], b = s->lb[l];
        float fx = lam[l] * nx[l], fy = lam[l] * ny[l];
        s->x[a] -= s->w[a] * fx;
        s->y[a] -= s->w[a] * fy;
        s->x[b] += s->w[b] * fx;
        s->y[b] += s->w[b] * fy;
    }
}

/* A chain pinned at both ends whose anchors are further apart than its
 * links' rest lengths add up to (anchors pulled apart along their paths, or
 * a `length` shorter than the span) has no solution: its links cannot all
 * have their rest length.  The chain solve's model is then nearly singular
 * (straight links leave only sideways moves to change their lengths), so
 * each projection answers with huge sideways corrections and the rope
 * breaks into a zigzag.  Such a chain is relaxed by a Jakobsen sweep
 * instead, which just shares the stretch out.  The 1e-5 margin keeps a
 * chain that is exactly taut (rest lengths from the span itself) on the
 * chain solve. */
static bool overstretched(const WbRopeState *s, int l0, int l1)
{
    int a = s->la[l0], b = s->lb[l1 - 1];
    if (s->w[a] != 0.0f || s->w[b] != 0.0f)
        return false;
    double total = 0.0;
    for (int l = l0; l < l1; l++)
        total += s->rest[l];
    double dx = (double)s->x[b] - s->x[a], dy = (double)s->y[b] - s->y[a];
    return dx * dx + dy * dy > total * total * (1.0 + 2e-5);
}

/* Maximal runs of active links that share particles, each solved alone. */
static void solve_chains(WbRopeState *s)
{
    int l = 0;
    while (l < s->n_links) {
        if (!s->active[l]) {
            l++;
            continue;
        }
        int e = l + 1;
        while (e < s->n_links && s->active[e] && s->la[e] == s->lb[e - 1])
            e++;
        if (overstretched(s, l, e))
            relax_range(s, l, e);
        else
            solve_chain(s, l, e);
        l = e;
    }
}

/* Contact of a disc of radius r at (x, y) with the convex polygon p, whose
 * outward edge normals are (enx, eny).  The disc touches the polygon when
 * the distance from its centre to the polygon is below r, i.e. the centre
 * is inside the polygon grown by r (the Minkowski sum with the disc).
 *
 * Every signed edge distance sd_i = (x − v_i)·n_i is a lower bound of the
 * distance to the polygon (the polygon lies in each half-plane sd_i ≤ 0),
 * so one edge with sd_i ≥ r proves there is no contact — the usual early
 * exit.  Otherwise:
 *   inside (every sd_i < 0): the exit is the shallowest edge (largest sd);
 *     the centre moves along its normal to sd = r.  Afterwards the distance
 *     to the polygon is at least that sd, so at least r.
 *   outside but in the band (0 ≤ max sd < r): the nearest feature is an
 *     edge (foot inside the segment) or a vertex; q is the nearest point of
 *     the boundary, found by clamping the projection onto every edge; if
 *     |c − q| < r the centre moves to q + r·(c − q)/|c − q|, whose nearest
 *     point is still q, so the distance becomes exactly r.  The normal is
 *     the edge's normal when q is a foot, the direction from the vertex
 *     when q is a corner (a rope resting on a corner is pushed out
 *     radially).
 * With r = 0 the band is empty and the inside case is x − sd·n: exactly the
 * point projection to the nearest edge.  Returns false when there is no
 * contact; else the new centre and the unit contact normal. */
static bool contact(const WbRopePoly *p, const float *enx, const float *eny, float r, float *x,
                    float *y, float *cnx, float *cny)
{
    float cx = *x, cy = *y, best = -INFINITY, bnx = 0.0f, bny = 0.0f;
    for (int i = 0; i < p->n; i++) {
        float sd = (cx - p->x[i]) * enx[i] + (cy - p->y[i]) * eny[i];
        if (sd >= r)
            return false; /* at least r outside this edge: at least r from the polygon */
        if (sd > best) {
            best = sd;
            bnx = enx[i];
            bny = eny[i];
        }
    }
    if (best < 0.0f) { /* centre inside: out through the shallowest edge */
        *x = cx - (best - r) * bnx;
        *y = cy - (best - r) * bny;
        *cnx = bnx;
        *cny = bny;
        return true;
    }
    /* centre outside, within r of some edge line: nearest boundary point */
    float d2 = INFINITY, qx = cx, qy = cy;
    for (int i = 0; i < p->n; i++) {
        int j = i + 1 < p->n ? i + 1 : 0;
        float ex = p->x[j] - p->x[i], ey = p->y[j] - p->y[i];
        float t = ((cx - p->x[i]) * ex + (cy - p->y[i]) * ey) / (ex * ex + ey * ey);
        t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
        float fx = p->x[i] + t * ex, fy = p->y[i] + t * ey;
        float e2 = (cx - fx) * (cx - fx) + (cy - fy) * (cy - fy);
        if (e2 < d2) {
            d2 = e2;
            qx = fx;
            qy = fy;
        }
    }
    if (!(d2 < r * r))
        return false;
    float d = sqrtf(d2);
    if (d > WB_ROPE_EPS) {
        bnx = (cx - qx) / d;
        bny = (cy - qy) / d;
    } /* else on the boundary: the edge with the largest sd (≈ 0) gives the normal */
    *x = qx + r * bnx;
    *y = qy + r * bny;
    *cnx = bnx;
    *cny = bny;
    return true;
}

/* The implicit velocity of particle k after a contact with normal n loses
 * its normal part (unless it is already leaving) and `1 − keep` of its
 * tangential part. */
static void contact_velocity(WbRopeState *s, int k, float nx, float ny, float keep)
{
    float vx = s->x[k] - s->px[k], vy = s->y[k] - s->py[k];
    float vn = vx * nx + vy * ny;
    float tx = vx - vn * nx, ty = vy - vn * ny;
    if (vn > 0.0f) { /* already leaving: keep the outward part */
        tx += vn * nx;
        ty += vn * ny;
    }
    s->px[k] = s->x[k] - tx * keep;
    s->py[k] = s->y[k] - ty * keep;
}

/* A link of a thick rope against the polygon's corners.  Particles alone
 * let a sharp corner through between two of them when a link is pulled
 * taut over it (the link is longer than the rope is thick).  The link is a
 * capsule of radius r: a corner v closer than r to the inside of link a→b,
 * at c = a + t(b − a), 0 < t < 1, is a contact with normal n = (c − v)/|c − v|
 * and depth r − |c − v|.  It is resolved like a link constraint: with
 * C = |c − v| − r, ∇_a C = (1 − t) n, ∇_b C = t n,
 *     λ = −C / (w_a (1 − t)² + w_b t²),  Δa = w_a (1 − t) λ n,  Δb = w_b t λ n,
 * so c moves out to exactly r when neither end is pinned.  Only corners
 * the link passes on their outer side count (c in front of one of the two
 * edges that meet there); a link through the polygon's inside is left to
 * its particles.  Both ends' velocities are then filtered as a
 * particle contact's. */
static void collide_link_corners(WbRopeState *s, const WbRopePoly *p, const float *enx,
                                 const float *eny, const float *box, int l, float r, float keep)
{
    int a = s->la[l], b = s->lb[l];
    float ax = s->x[a], ay = s->y[a], bx = s->x[b], by = s->y[b];
    if (fmaxf(ax, bx) < box[0] - r || fminf(ax, bx) > box[1] + r || fmaxf(ay, by) < box[2] - r ||
        fminf(ay, by) > box[3] + r)
        return;
    float dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy;
    if (!(len2 > WB_ROPE_EPS * WB_ROPE_EPS))
        return;
    for (int i = 0; i < p->n; i++) {
        float vx = p->x[i], vy = p->y[i];
        float t = ((vx - ax) * dx + (vy - ay) * dy) / len2;
        if (!(t > 0.0f && t < 1.0f))
            continue; /* nearest to an end: the particle's own contact */
        float cx = ax + t * dx - vx, cy = ay + t * dy - vy;
        float d2 = cx * cx + cy * cy;
        if (!(d2 < r * r) || !(d2 > WB_ROPE_EPS * WB_ROPE_EPS))
            continue;
        int h = i > 0 ? i - 1 : p->n - 1; /* the edge h → i ends at the corner, i → i+1 starts */
        float d = sqrtf(d2), nx = cx / d, ny = cy / d;
        if (nx * enx[h] + ny * eny[h] <= 0.0f && nx * enx[i] + ny * eny[i] <= 0.0f)
            continue; /* behind both edges at the corner: the link passes inside */
        float wa = s->w[a] * (1.0f - t), wb = s->w[b] * t;
        float den = wa * (1.0f - t) + wb * t;
        if (!(den > 0.0f))
            continue; /* both ends pinned */
        float lam = (r - d) / den;
        s->x[a] += wa * lam * nx;
        s->y[a] += wa * lam * ny;
        s->x[b] += wb * lam * nx;
        s->y[b] += wb * lam * ny;
        if (s->w[a] != 0.0f)
            contact_velocity(s, a, nx, ny, keep);
        if (s->w[b] != 0.0f)
            contact_velocity(s, b, nx, ny, keep);
        ax = s->x[a];
        ay = s->y[a];
        bx = s->x[b];
        by = s->y[b];
        dx = bx - ax;
        dy = by - ay;
        len2 = dx * dx + dy * dy;
        if (!(len2 > WB_ROPE_EPS * WB_ROPE_EPS))
            return;
    }
}

/* Push particles out of the obstacles, each rope's particles with its
 * radius and its last one with the larger of radius and end_radius (see
 * contact), then the links of thick ropes off the corners (see
 * collide_link_corners; a rope of radius 0 has no link contacts, so it
 * collides exactly as points).  The edge normals are worked out once per
 * obstacle and step, on the stack. */
static void collide_obstacles(WbRopeState *s, const WbRopeSetDef *def)
{
    const float keep = 1.0f - def->obstacle_friction;
    float enx[WB_ROPE_POLY_MAX], eny[WB_ROPE_POLY_MAX];
    for (int o = 0; o < def->n_obstacles; o++) {
        const WbRopePoly *p = &def->obstacles[o];
        const float sgn = poly_area2(p) > 0.0f ? 1.0f : -1.0f; /* CCW: outward = (dy, −dx) */
        for (int i = 0; i < p->n; i++) {
            int j = (i + 1) % p->n;
            float ex = p->x[j] - p->x[i], ey = p->y[j] - p->y[i];
            float el = sqrtf(ex * ex + ey * ey);
            enx[i] = sgn * ey / el;
            eny[i] = -sgn * ex / el;
        }
        for (int r = 0; r < s->n_ropes; r++) {
            const WbRopeSpec *sp = &def->ropes[r];
            int last = s->rope_first[r + 1] - 1;
            for (int k = s->rope_first[r]; k <= last; k++) {
                if (s->w[k] == 0.0f)
                    continue;
                float rad = k == last ? fmaxf(sp->radius, sp->end_radius) : sp->radius;
                float nx, ny;
                if (contact(p, enx, eny, rad, &s->x[k], &s->y[k], &nx, &ny))
                    contact_velocity(s, k, nx, ny, keep);
            }
        }
        float box[4] = {p->x[0], p->x[0], p->y[0], p->y[0]}; /* x min, max, y min, max */
        for (int i = 1; i < p->n; i++) {
            box[0] = fminf(box[0], p->x[i]);
            box[1] = fmaxf(box[1], p->x[i]);
            box[2] = fminf(box[2], p->y[i]);
            box[3] = fmaxf(box[3], p->y[i]);
        }
        for (int r = 0; r < s->n_ropes; r++) {
            float rad = def->ropes[r].radius;
            if (!(rad > 0.0f))
                continue;
            for (int l = s->link_first[r]; l < s->link_first[r + 1]; l++)
                if (s->active[l])
                    collide_link_corners(s, p, enx, eny, box, l, rad, keep);
        }
    }
}

void wb_rope_step(WbRopeState *s, const WbRopeSetDef *def)
{
    const float dt = def->step;
    double t = s->time + dt;
    move_anchors(s, def, t);
    predict(s, def, dt);
    for (int k = 0; k < def->passes; k++) {
        if (def->solver == WB_ROPE_CHAIN)
            solve_chains(s);
        else
            relax_links(s);
    }
    collide_obstacles(s, def);
    s->time = t;
}

int wb_rope_advance(WbRopeState *s, const WbRopeSetDef *def, double frame_delta)
{
    if (!(frame_delta > 0.0))
        frame_delta = 0.0; /* negative or NaN: no time passes */
    if (frame_delta > def->max_frame_delta)
        frame_delta = def->max_frame_delta;
    s->acc += frame_delta;
    /* a hair of slack (1e-4 of a step) so 1/60 s frames give exactly two
     * steps of the float 1/120, which is a little more than 1/120 */
    const double eps = 1e-4 * (double)def->step;
    int steps = 0;
    while (s->acc >= (double)def->step - eps) {
        wb_rope_step(s, def);
        s->acc -= def->step;
        steps++;
    }
    if (s->acc < 0.0)
        s->acc = 0.0;
    return steps;
}

WbStatus wb_rope_cut(WbRopeState *s, int rope, int link, WbError *err)
{
    if (rope < 0 || rope >= s->n_ropes)
        return wb_error_set(err, WB_E_INPUT, "cut: no rope %d (the scene has %d)", rope, s->n_ropes);
    int nl = s->link_first[rope + 1] - s->link_first[rope];
    if (link < 0 || link >= nl)
        return wb_error_set(err, WB_E_INPUT, "cut: rope %d has links 0..%d, not %d", rope, nl - 1,
                            link);
    int l = s->link_first[rope] + link;
    if (!s->active[l])
        return wb_error_set(err, WB_E_INPUT, "cut: link %d of rope %d is already cut", link, rope);
    s->active[l] = 0;
    return WB_OK;
}

void wb_rope_elongation(const WbRopeState *s, int rope, double *mean, double *max_abs)
{
    double sum = 0.0, mx = 0.0;
    int cnt = 0;
    for (int l = s->link_first[rope]; l < s->link_first[rope + 1]; l++) {
        if (!s->active[l])
            continue;
        double dx = (double)s->x[s->lb[l]] - s->x[s->la[l]];
        double dy = (double)s->y[s->lb[l]] - s->y[s->la[l]];
        double e = sqrt(dx * dx + dy * dy) / s->rest[l] - 1.0;
        sum += e;
        if (fabs(e) > mx)
            mx = fabs(e);
        cnt++;
    }
    *mean = cnt ? sum / cnt : 0.0;
    *max_abs = mx;
}

int wb_rope_find_nonfinite(const WbRopeState *s)
{
    for (int k = 0; k < s->n; k++) {
        if (!isfinite(s->x[k]) || !isfinite(s->y[k]))
            return k;
    }
    return -1;
}

/* ---------------------------------------------------------------- convergence table */

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

WbStatus wb_rope_convergence_row(WbRopeSolver solver, int nodes, int passes, bool timed,
                                 WbRopeConvRow *row, WbError *err)
{
    WbRopeSetDef def = wb_rope_default();
    def.solver = solver;
    def.passes = passes;
    def.n_ropes = 1;
    def.ropes[0] = wb_rope_spec(0.0f, 0.0f, 0.0f, -0.1f * (float)(nodes - 1), nodes);
    WbRopeState s;
    WbStatus st = wb_rope_init(&s, &def, err);
    if (st != WB_OK)
        return st;
    for (int f = 0; f < 300; f++)
        wb_rope_advance(&s, &def, 1.0 / 60.0);
    row->solver = solver;
    row->nodes = nodes;
    row->passes = passes;
    wb_rope_elongation(&s, 0, &row->mean_elongation, &row->max_elongation);
    row->us_per_step = 0.0;
    if (timed) {
        enum { BATCHES = 5 };
        int steps = 400000 / (nodes * passes) + 100; /* ~ the same work per batch */
        double per[BATCHES];
        for (int b = 0; b < BATCHES; b++) {
            double t0 = now_us();
            for (int k = 0; k < steps; k++)
                wb_rope_step(&s, &def);
            per[b] = (now_us() - t0) / steps;
        }
        qsort(per, BATCHES, sizeof per[0], cmp_double);
        row->us_per_step = per[BATCHES / 2];
    }
    wb_rope_free(&s);
    return WB_OK;
}

int wb_rope_convergence_table(WbRopeConvRow *rows, int max, bool timed, WbError *err)
{
    static const int spec[][3] = {
        {WB_ROPE_JAKOBSEN, 30, 1}, {WB_ROPE_JAKOBSEN, 30, 3}, {WB_ROPE_JAKOBSEN, 30, 5},
        {WB_ROPE_JAKOBSEN, 30, 10}, {WB_ROPE_JAKOBSEN, 60, 1}, {WB_ROPE_JAKOBSEN, 60, 3},
        {WB_ROPE_JAKOBSEN, 60, 5}, {WB_ROPE_JAKOBSEN, 60, 10}, {WB_ROPE_JAKOBSEN, 60, 20},
        {WB_ROPE_CHAIN, 30, 1}, {WB_ROPE_CHAIN, 30, 2}, {WB_ROPE_CHAIN, 60, 1},
        {WB_ROPE_CHAIN, 60, 2},
    };
    int n = 0;
    for (size_t k = 0; k < sizeof spec / sizeof spec[0] && n < max; k++) {
        if (wb_rope_convergence_row((WbRopeSolver)spec[k][0], spec[k][1], spec[k][2], timed,
                                    &rows[n], err) != WB_OK)
            return -1;
        n++;
    }
    return n;
}
