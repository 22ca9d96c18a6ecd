/* cloth.c — position-based cloth: the API, the substep and setup.
 * See cloth.h for the model and the stages, cloth_internal.h for the files
 * the solver is split into.
 *
 * A substep is a straight sequence of named stages over the state's arrays:
 * predict, then `iterations` sweeps of the links (cloth_links.c), bending
 * (skip-one links or cloth_dihedral.c) and the body push-out
 * (cloth_bodies.c), then self collision (cloth_self.c), the stretch limit
 * (cloth_stretch.c), the friction pass and the floor.  Nothing in the step
 * allocates, and every stage is deterministic: the same state and def give
 * the same bytes whatever the lane width.
 */
#include "sim/cloth_kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"

static float dot3(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Verlet prediction: v = (x − x_prev)·damp; x_prev = x; x += v + a·dt².
 * Wind: gust = bias + 0.6 sin(2.1t + 7.5v) + 0.4 sin(0.7t + 4u) over the
 * material coordinates u (along i) and v (along j), metres; the sines are
 * split by angle addition, sin(ωt + φ) = sin ωt cos φ + cos ωt sin φ, over
 * the per-column/per-row tables made at init, so no sine is taken per
 * particle. */
static void predict(WbClothState *s, const WbClothDef *def, double t, float dt)
{
    const WbFabric *f = &def->fabric;
    /* damping is quoted per 1/360 s; rescale to this substep */
    const float damp = powf(f->damping, dt * 360.0f);
    const float dt2 = dt * dt;
    const float gy = -def->gravity * dt2;
    float wx = 0.0f, wy = 0.0f, wz = 0.0f;
    float s1 = 0.0f, c1 = 0.0f, s2 = 0.0f, c2 = 0.0f;
    bool wind = false;
    const float *dir = def->wind.dir;
    float dl = sqrtf(dot3(dir, dir));
    if (def->wind.strength != 0.0f && f->wind_response != 0.0f && dl > 0.0f) {
        float a = def->wind.strength * f->wind_response / f->weight * dt2 / dl;
        wx = dir[0] * a;
        wy = dir[1] * a;
        wz = dir[2] * a;
        s1 = (float)sin(2.1 * t);
        c1 = (float)cos(2.1 * t);
        s2 = (float)sin(0.7 * t);
        c2 = (float)cos(0.7 * t);
        wind = true;
    }
    const int nx = s->nx;
    for (int j = 0; j < s->ny; j++) {
        float gv = wind ? def->wind.bias + 0.6f * (s1 * s->wind_cv[j] + c1 * s->wind_sv[j]) : 0.0f;
        const float c[9] = {damp, gy, wx, wy, wz, gv, s2, c2, 0.0f};
        int i0 = 0;
#if WB_SIMD_WIDE
        if (s->lanes == 16)
            i0 = wb_cloth_v16_predict_row(s, j * nx, i0, c, wind);
        if (s->lanes >= 8)
            i0 = wb_cloth_v8_predict_row(s, j * nx, i0, c, wind);
#endif
        i0 = wb_cloth_v4_predict_row(s, j * nx, i0, c, wind);
        for (int i = i0; i < nx; i++) {
            int p = j * nx + i;
            float x = s->x[p], y = s->y[p], z = s->z[p];
            if (!(s->w[p] > 0.0f)) { /* pinned or inert: held */
                s->px[p] = x;
                s->py[p] = y;
                s->pz[p] = z;
                continue;
            }
            float ax = 0.0f, ay = gy, az = 0.0f;
            if (wind) {
                float gust = gv + 0.4f * (s2 * s->wind_cu[i] + c2 * s->wind_su[i]);
                ax += wx * gust;
                ay += wy * gust;
                az += wz * gust;
            }
            float vx = (x - s->px[p]) * damp, vy = (y - s->py[p]) * damp,
                  vz = (z - s->pz[p]) * damp;
            s->px[p] = x;
            s->py[p] = y;
            s->pz[p] = z;
            s->x[p] = x + vx + ax;
            s->y[p] = y + vy + ay;
            s->z[p] = z + vz + az;
        }
    }
}

/* Per-substep constraint parameters from the fabric.
 * PBD (reference):  K = min(1, 1.2·stiffness), shear 0.35·K, bend = the
 *                   fabric's bend stiffness (or 0.06·K, "auto").
 * XPBD:             E = E0·100^stiffness (N/m); compliance α = 1/E for
 *                   stretch, 1/(0.35E) for shear, 1/(E·kb/K) for skip-one
 *                   bend links, 1/B with B = B0·kb^1.5 (N·m) for dihedral
 *                   angles; α̃ = α/dt². */
static Stiffness stiffness(const WbClothState *s, const WbClothDef *def, float dt)
{
    const WbFabric *f = &def->fabric;
    Stiffness st;
    float K = fminf(1.0f, 1.2f * f->stiffness);
    float kb = f->bend_stiffness == WB_FABRIC_BEND_AUTO ? 0.06f * K : f->bend_stiffness;
    st.xpbd = def->solver == WB_CLOTH_XPBD;
    st.bend_on = kb > 0.0f;
    st.stretch = (LinkParams){K, 0.0f, s->rest[FAM_H], 0, 0};
    st.shear = (LinkParams){0.35f * K, 0.0f, s->rest[FAM_D1], 0, 0};
    st.bend = (LinkParams){kb, 0.0f, s->rest[FAM_BH], 0, 0};
    st.dih_k = kb;
    st.dih_at = 0.0f;
    if (st.xpbd) {
        float idt2 = 1.0f / (dt * dt);
        float E = WB_FABRIC_E0 * powf(100.0f, f->stiffness);
        st.stretch.k = st.shear.k = st.bend.k = 1.0f;
        st.stretch.at = idt2 / E;
        st.shear.at = idt2 / (0.35f * E);
        st.bend.at = K > 0.0f && kb > 0.0f ? idt2 * K / (E * kb) : 0.0f;
        st.dih_at = kb > 0.0f ? idt2 / (WB_FABRIC_B0 * powf(kb, 1.5f)) : 0.0f;
    }
    return st;
}

/* s->free_rows[j] = how many rows from row j on hold only free particles
 * of the common inverse mass 1/mass (no pin, no cut): the plain kernels
 * skip the masses there (see PFX_flink, cloth_links_kernel.inc).  Read from w every substep, so a
 * direct write to s->w is seen too. */
static void mark_free_rows(WbClothState *s)
{
    const int nx = s->nx;
    const float wf = 1.0f / s->mass;
    int run = 0;
    for (int j = s->ny - 1; j >= 0; j--) {
        const float *w = s->w + j * nx;
        v4i other = {0, 0, 0, 0};
        int i = 0;
        for (; i + 4 <= nx; i += 4)
            other |= v4_ld(w + i) != v4_set(wf);
        int any = (other[0] | other[1] | other[2] | other[3]) != 0;
        for (; i < nx; i++)
            any |= w[i] != wf;
        run = any ? 0 : run + 1;
        s->free_rows[j] = run;
    }
}

void wb_cloth_substep(WbClothState *s, const WbClothDef *def, double t, float dt)
{
    Stiffness st = stiffness(s, def, dt);
    mark_free_rows(s);
    predict(s, def, t, dt);
    if (st.xpbd) {
        for (int k = 0; k < 6; k++)
            memset(s->lambda[k], 0, sizeof(float) * (size_t)s->n);
        memset(s->dih_lambda, 0, sizeof(float) * (size_t)s->n_dih);
    }
    for (int it = 1; it <= def->iterations; it++) {
        if (def->cancel && *def->cancel)
            return;
        wb_cloth_links_stretch(s, &st, it % 2 == 0);
        wb_cloth_links_shear(s, &st, it % 2 == 0);
        if (it % 2 == 0 && st.bend_on) {
            if (def->bending == WB_CLOTH_BEND_DIHEDRAL)
                wb_cloth_dihedral_sweep(s, st.dih_k, st.dih_at, st.xpbd);
            else
                wb_cloth_links_bend(s, &st, it % 4 == 0);
        }
        if (it % 3 == 0)
            wb_cloth_bodies_push(s, def);
    }
    if (def->self_collision && s->hash_size > 0)
        wb_cloth_self_collide(s, def);
    if (def->max_stretch > 0.0f)
        wb_cloth_stretch_limit(s, def, def->max_stretch);
    wb_cloth_bodies_friction(s, def, dt);
    if (def->floor)
        wb_cloth_bodies_floor(s, def, dt);
    s->time = t + dt;
}

void wb_cloth_step(WbClothState *s, const WbClothDef *def, double t, float dt_frame)
{
    int n = def->substeps > 0 ? def->substeps : 1;
    float dt = dt_frame / (float)n;
    for (int k = 0; k < n; k++)
        wb_cloth_substep(s, def, t + (double)dt * k, dt);
    s->time = t + dt_frame;
    wb_cloth_normals(s);
}

int wb_cloth_advance(WbClothState *s, const WbClothDef *def, double frame_delta)
{
    if (!(frame_delta > 0.0) || !isfinite(frame_delta))
        frame_delta = 0.0;
    const double dt = 1.0 / (60.0 * (double)(def->substeps > 0 ? def->substeps : 1));
    s->acc += frame_delta;
    int n = 0;
    /* 1e-6 of a substep of slack: frames of 1/fps add up to whole substeps */
    while (s->acc >= dt * (1.0 - 1e-6)) {
        wb_cloth_substep(s, def, s->time, (float)dt);
        s->acc -= dt;
        n++;
    }
    if (s->acc < 0.0)
        s->acc = 0.0;
    wb_cloth_normals(s);
    return n;
}

WbClothDef wb_cloth_default(void)
{
    WbClothDef d;
    memset(&d, 0, sizeof d);
    d.nx = d.ny = 70;
    d.size[0] = d.size[1] = 1.4f;
    d.origin[0] = -0.7f;
    d.origin[1] = 1.95f;
    d.origin[2] = -0.7f;
    d.axis_i[0] = 1.0f;
    d.axis_j[2] = 1.0f;
    d.pin_mode = WB_CLOTH_PIN_NONE;
    d.mannequin = true;
    d.body = wb_mannequin_default();
    d.margin = 0.008f;
    d.fabric = wb_fabric_preset(WB_FABRIC_SILK);
    d.solver = WB_CLOTH_PBD;
    d.bending = WB_CLOTH_BEND_SKIP;
    d.substeps = 6;
    d.iterations = 10;
    d.gravity = 9.81f;
    d.max_stretch = 1.12f;
    d.floor = true;
    d.floor_y = 0.0f;
    d.wind.dir[0] = 1.0f;
    d.wind.bias = 1.0f;
    return d;
}

void wb_cloth_free(WbClothState *s)
{
    float **fl[] = {&s->x, &s->y, &s->z, &s->px, &s->py, &s->pz, &s->nrmx, &s->nrmy,
                    &s->nrmz, &s->w, &s->pin_depth, &s->wind_su, &s->wind_cu, &s->wind_sv, &s->wind_cv,
                    &s->dih_rest, &s->dih_lambda, &s->face_rows};
    for (size_t k = 0; k < sizeof fl / sizeof fl[0]; k++) {
        free(*fl[k]);
        *fl[k] = NULL;
    }
    for (int k = 0; k < 6; k++) {
        free(s->lambda[k]);
        s->lambda[k] = NULL;
    }
    free(s->pack_start);
    free(s->pack_x);
    free(s->pack_y);
    free(s->pack_z);
    free(s->pack_r);
    s->pack_start = NULL;
    s->pack_x = s->pack_y = s->pack_z = s->pack_r = NULL;
    free(s->dih);
    free(s->queue);
    s->queue = NULL;
    free(s->free_rows);
    s->free_rows = NULL;
    free(s->hash_start);
    free(s->hash_items);
    free(s->hash_key);
    s->dih = s->hash_start = s->hash_items = s->hash_key = NULL;
    s->n = s->nx = s->ny = s->n_dih = s->hash_size = 0;
}

static WbStatus validate(const WbClothDef *def, WbError *err)
{
    if (def->nx < 3 || def->ny < 3 || def->nx > WB_CLOTH_MAX_GRID || def->ny > WB_CLOTH_MAX_GRID)
        return wb_error_set(err, WB_E_INPUT, "cloth grid %dx%d is out of range (3..%d per side)",
                            def->nx, def->ny, WB_CLOTH_MAX_GRID);
    if (!(def->size[0] > 0.0f && def->size[1] > 0.0f))
        return wb_error_set(err, WB_E_INPUT, "cloth size must be positive");
    if (def->substeps < 1 || def->substeps > 1000 || def->iterations < 1 || def->iterations > 1000)
        return wb_error_set(err, WB_E_INPUT,
                            "cloth substeps %d / iterations %d out of range (1..1000)",
                            def->substeps, def->iterations);
    if (!(def->margin >= 0.0f) || !(def->max_stretch == 0.0f || def->max_stretch >= 1.0f))
        return wb_error_set(err, WB_E_INPUT,
                            "cloth margin must be >= 0 and max_stretch 0 (off) or >= 1");
    if (def->n_pins < 0 || def->n_pins > WB_CLOTH_MAX_PINS)
        return wb_error_set(err, WB_E_INPUT, "too many cloth pins (max %d)", WB_CLOTH_MAX_PINS);
    for (int k = 0; k < def->n_pins; k++) {
        const WbClothPin *p = &def->pins[k];
        if (p->i < 0 || p->i >= def->nx || p->j < 0 || p->j >= def->ny)
            return wb_error_set(err, WB_E_INPUT, "cloth pin (%d, %d) is outside the %dx%d grid",
                                p->i, p->j, def->nx, def->ny);
    }
    if (def->n_spheres < 0 || def->n_boxes < 0 || def->n_boxes > WB_CLOTH_MAX_BOXES)
        return wb_error_set(err, WB_E_INPUT, "bad obstacle count");
    int total = def->n_spheres + (def->mannequin ? wb_mannequin_sphere_count(&def->body) : 0);
    if (total > WB_CLOTH_MAX_SPHERES)
        return wb_error_set(err, WB_E_INPUT, "%d collision spheres (max %d)", total,
                            WB_CLOTH_MAX_SPHERES);
    for (int k = 0; k < def->n_spheres; k++) {
        if (!(def->spheres[k].r > 0.0f))
            return wb_error_set(err, WB_E_INPUT, "sphere %d: radius must be positive", k);
    }
    for (int k = 0; k < def->n_boxes; k++) {
        const WbBox *b = &def->boxes[k];
        if (!(b->h[0] > 0.0f && b->h[1] > 0.0f && b->h[2] > 0.0f))
            return wb_error_set(err, WB_E_INPUT, "box %d: half extents must be positive", k);
    }
    return wb_fabric_validate(&def->fabric, err);
}

/* Zeroed floats on a cache-line boundary (64 bytes), so the vector blocks of
 * the sweeps split across lines no more often than their offsets make them. */
static float *alloc_f(size_t n, bool *ok)
{
    size_t bytes = ((n ? n : 1) * sizeof(float) + 63) & ~(size_t)63;
    float *p = aligned_alloc(64, bytes);
    if (!p)
        *ok = false;
    else
        memset(p, 0, bytes);
    return p;
}

WbStatus wb_cloth_init(WbClothState *s, const WbClothDef *def, WbError *err)
{
    memset(s, 0, sizeof *s);
    WbStatus st = validate(def, err);
    if (st != WB_OK)
        return st;
    const int nx = def->nx, ny = def->ny, n = nx * ny;
    s->nx = nx;
    s->ny = ny;
    s->n = n;
    bool ok = true;
    float **fl[] = {&s->x, &s->y, &s->z, &s->px, &s->py, &s->pz, &s->nrmx, &s->nrmy,
                    &s->nrmz, &s->w, &s->pin_depth};
    for (size_t k = 0; k < sizeof fl / sizeof fl[0]; k++)
        *fl[k] = alloc_f((size_t)n, &ok);
    s->queue = calloc((size_t)n, sizeof(int32_t));
    s->free_rows = calloc((size_t)ny, sizeof(int32_t));
    if (!s->queue || !s->free_rows)
        ok = false;
    for (int k = 0; k < 6; k++)
        s->lambda[k] = alloc_f((size_t)n, &ok);
    s->face_rows = alloc_f((size_t)12 * (size_t)nx, &ok);
    s->wind_su = alloc_f((size_t)nx, &ok);
    s->wind_cu = alloc_f((size_t)nx, &ok);
    s->wind_sv = alloc_f((size_t)ny, &ok);
    s->wind_cv = alloc_f((size_t)ny, &ok);
    size_t max_dih = (size_t)3 * (size_t)n;
    s->dih = calloc(4 * max_dih, sizeof(int32_t));
    s->dih_rest = alloc_f(max_dih, &ok);
    s->dih_lambda = alloc_f(max_dih, &ok);
    if (!s->dih)
        ok = false;
    if (def->self_collision) {
        int size = 1;
        while (size < 2 * n)
            size <<= 1;
        s->hash_size = size;
        s->hash_start = calloc((size_t)size + 1, sizeof(int32_t));
        s->hash_items = calloc((size_t)n, sizeof(int32_t));
        s->hash_key = calloc((size_t)n, sizeof(int32_t));
        if (!s->hash_start || !s->hash_items || !s->hash_key)
            ok = false;
    }
    if (!ok) {
        wb_cloth_free(s);
        return wb_error_set(err, WB_E_IO, "out of memory for a %dx%d cloth", nx, ny);
    }

    float ai[3], aj[3];
    float li = sqrtf(dot3(def->axis_i, def->axis_i)), lj = sqrtf(dot3(def->axis_j, def->axis_j));
    if (!(li > 0.0f && lj > 0.0f)) {
        wb_cloth_free(s);
        return wb_error_set(err, WB_E_INPUT, "cloth axes must be non-zero vectors");
    }
    for (int c = 0; c < 3; c++) {
        ai[c] = def->axis_i[c] / li;
        aj[c] = def->axis_j[c] / lj;
    }
    const float hi = def->size[0] / (float)(nx - 1), hj = def->size[1] / (float)(ny - 1);
    s->rest[FAM_H] = hi;
    s->rest[FAM_V] = hj;
    s->rest[FAM_D1] = s->rest[FAM_D2] = sqrtf(hi * hi + hj * hj);
    s->rest[FAM_BH] = 2.0f * hi;
    s->rest[FAM_BV] = 2.0f * hj;
    s->mass = def->fabric.weight * def->size[0] * def->size[1] / (float)n;
    for (int j = 0; j < ny; j++) {
        for (int i = 0; i < nx; i++) {
            int p = j * nx + i;
            float u = hi * (float)i, v = hj * (float)j;
            s->x[p] = s->px[p] = def->origin[0] + u * ai[0] + v * aj[0];
            s->y[p] = s->py[p] = def->origin[1] + u * ai[1] + v * aj[1];
            s->z[p] = s->pz[p] = def->origin[2] + u * ai[2] + v * aj[2];
            s->w[p] = 1.0f / s->mass;
        }
    }
    for (int i = 0; i < nx; i++) {
        s->wind_su[i] = sinf(4.0f * hi * (float)i);
        s->wind_cu[i] = cosf(4.0f * hi * (float)i);
    }
    for (int j = 0; j < ny; j++) {
        s->wind_sv[j] = sinf(7.5f * hj * (float)j);
        s->wind_cv[j] = cosf(7.5f * hj * (float)j);
    }
    switch (def->pin_mode) {
    case WB_CLOTH_PIN_TOP_EDGE:
        for (int i = 0; i < nx; i++)
            s->w[i] = 0.0f;
        break;
    case WB_CLOTH_PIN_CORNERS:
        s->w[(ny - 1) * nx] = s->w[n - 1] = 0.0f;
        /* fall through */
    case WB_CLOTH_PIN_TOP_CORNERS:
        s->w[0] = s->w[nx - 1] = 0.0f;
        break;
    case WB_CLOTH_PIN_NONE: break;
    }
    for (int k = 0; k < def->n_pins; k++)
        s->w[def->pins[k].j * nx + def->pins[k].i] = 0.0f;

    s->top_hint = -1;
    s->settle_moved = 0;
    s->lanes = wb_cpu_lanes();
    wb_cloth_pin_depth_update(s);
    wb_cloth_dihedral_build(s);
    if (!wb_cloth_bodies_build(s, def)) {
        wb_cloth_free(s);
        return wb_error_set(err, WB_E_IO, "out of memory for the collision lookup");
    }
    wb_cloth_normals(s);
    return WB_OK;
}

bool wb_cloth_set_inert(WbClothState *s, int i, int j)
{
    if (i < 0 || i >= s->nx || j < 0 || j >= s->ny)
        return false;
    int p = j * s->nx + i;
    s->w[p] = WB_CLOTH_INERT;
    s->px[p] = s->x[p];
    s->py[p] = s->y[p];
    s->pz[p] = s->z[p];
    wb_cloth_pin_depth_update(s);
    return true;
}

bool wb_cloth_set_pinned(WbClothState *s, int i, int j, bool pinned)
{
    if (i < 0 || i >= s->nx || j < 0 || j >= s->ny)
        return false;
    int p = j * s->nx + i;
    s->w[p] = pinned ? 0.0f : 1.0f / s->mass;
    s->px[p] = s->x[p];
    s->py[p] = s->y[p];
    s->pz[p] = s->z[p];
    wb_cloth_pin_depth_update(s);
    return true;
}

void wb_cloth_release_all(WbClothState *s)
{
    for (int p = 0; p < s->n; p++) {
        if (s->w[p] == 0.0f) {
            s->w[p] = 1.0f / s->mass;
            s->px[p] = s->x[p];
            s->py[p] = s->y[p];
            s->pz[p] = s->z[p];
        }
    }
    wb_cloth_pin_depth_update(s);
}

float wb_cloth_max_stretch(const WbClothState *s)
{
    float m = 0.0f;
    for (int j = 0; j < s->ny; j++) {
        for (int i = 0; i < s->nx; i++) {
            int a = j * s->nx + i;
            int nb[2] = {i + 1 < s->nx ? a + 1 : -1, j + 1 < s->ny ? a + s->nx : -1};
            for (int k = 0; k < 2; k++) {
                int b = nb[k];
                if (b < 0 || s->w[a] < 0.0f || s->w[b] < 0.0f)
                    continue;
                float dx = s->x[b] - s->x[a], dy = s->y[b] - s->y[a], dz = s->z[b] - s->z[a];
                float r = sqrtf(dx * dx + dy * dy + dz * dz) / s->rest[k == 0 ? FAM_H : FAM_V];
                if (r > m)
                    m = r;
            }
        }
    }
    return m;
}

int wb_cloth_find_nonfinite(const WbClothState *s)
{
    for (int p = 0; p < s->n; p++) {
        if (!isfinite(s->x[p]) || !isfinite(s->y[p]) || !isfinite(s->z[p]))
            return p;
    }
    return -1;
}
