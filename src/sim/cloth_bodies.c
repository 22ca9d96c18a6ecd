/* cloth_bodies.c — collision with the bodies (the dress form's spheres,
 * extra spheres and boxes) and the floor, with contact friction.
 *
 * Bodies are spheres in buckets: the body's bounds are cut into a grid of
 * x × y columns, each keeping the spheres that reach into it (a bit mask and
 * a packed copy), so a particle tests a handful of spheres, four at a time,
 * instead of all of them.  The push pass runs between the constraint
 * sweeps (push-out only); the friction pass ends the substep and also
 * rewrites x_prev of every particle touching a body.  Both take W particles
 * at a time (cloth_particles_kernel.inc), then the rest one by one; boxes
 * and the floor go particle by particle, as in the reference.
 */
#include "sim/cloth_kernels.h"

/* The (x, y) cell of a point inside the body bounds. */
static inline int bucket_of(const WbClothState *s, float x, float y)
{
    int bx = (int)((x - s->body_lo[0]) * s->bucket_inv[0]);
    int by = (int)((y - s->body_lo[1]) * s->bucket_inv[1]);
    bx = bx < 0 ? 0 : (bx >= WB_CLOTH_BUCKETS_X ? WB_CLOTH_BUCKETS_X - 1 : bx);
    by = by < 0 ? 0 : (by >= WB_CLOTH_BUCKETS_Y ? WB_CLOTH_BUCKETS_Y - 1 : by);
    return by * WB_CLOTH_BUCKETS_X + bx;
}

/* Spheres are tested four at a time from the bucket's packed copy (padded
 * with spheres no point can reach): a group none of whose spheres reaches
 * the point is skipped; a group with a hit is walked one sphere at a time
 * with the point as it moves.  Since the point only moves at a hit, this is
 * exactly the sequential "push out of each sphere in turn" of the
 * reference, without walking every candidate one by one. */
static inline int group_reaches(const WbClothState *s, int g, float x, float y, float z,
                                float margin, float skin)
{
    v4f dx = v4_set(x) - v4_ld(s->pack_x + g), dy = v4_set(y) - v4_ld(s->pack_y + g),
        dz = v4_set(z) - v4_ld(s->pack_z + g),
        r = (v4_ld(s->pack_r + g) + v4_set(margin)) + v4_set(skin);
    v4i m = (dx * dx + dy * dy + dz * dz) < r * r;
    return (m[0] | m[1] | m[2] | m[3]) != 0;
}

static inline int in_body_bounds(const WbClothState *s, float x, float y, float z)
{
    return x >= s->body_lo[0] && x <= s->body_hi[0] && y >= s->body_lo[1] &&
           y <= s->body_hi[1] && z >= s->body_lo[2] && z <= s->body_hi[2];
}

/* Push (x, y, z) out of every sphere it is in.  Returns the number of hits. */
static int push_spheres(const WbClothState *s, float margin, float *x, float *y, float *z)
{
    if (!in_body_bounds(s, *x, *y, *z))
        return 0;
    int bk = bucket_of(s, *x, *y), hits = 0;
    for (int g = s->pack_start[bk]; g < s->pack_start[bk + 1]; g += 4) {
        if (!group_reaches(s, g, *x, *y, *z, margin, 0.0f))
            continue;
        for (int k = g; k < g + 4; k++) {
            float cx = s->pack_x[k], cy = s->pack_y[k], cz = s->pack_z[k];
            float dx = *x - cx, dy = *y - cy, dz = *z - cz, r = s->pack_r[k] + margin;
            float d2 = dx * dx + dy * dy + dz * dz;
            if (d2 < r * r && d2 > 1e-18f) {
                float f = r / sqrtf(d2);
                *x = cx + dx * f;
                *y = cy + dy * f;
                *z = cz + dz * f;
                hits++;
            }
        }
    }
    return hits;
}

/* Inside the box grown by margin: push out through the nearest face; the
 * face normal goes to n.  Returns the push depth, 0 when outside. */
static float push_box(const WbBox *bx, float margin, float *x, float *y, float *z, float n[3])
{
    float *p[3] = {x, y, z};
    float best = INFINITY;
    int axis = -1;
    float sgn = 1.0f;
    for (int c = 0; c < 3; c++) {
        float d = *p[c] - bx->c[c], h = bx->h[c] + margin;
        float pen = h - fabsf(d);
        if (!(pen > 0.0f))
            return 0.0f;
        if (pen < best) {
            best = pen;
            axis = c;
            sgn = d >= 0.0f ? 1.0f : -1.0f;
        }
    }
    *p[axis] = bx->c[axis] + sgn * (bx->h[axis] + margin);
    n[0] = n[1] = n[2] = 0.0f;
    n[axis] = sgn;
    return best;
}

/* Per sphere, for the lane passes: centre, r = radius + margin and the
 * squared reach (r + skin)² — the very floats push_spheres() and
 * friction_spheres() compute for each test. */
static void sphere_table(const WbClothState *s, float margin, float skin,
                         float sph[WB_CLOTH_MAX_SPHERES][5])
{
    for (int k = 0; k < s->n_spheres; k++) {
        const WbSphere *sp = &s->spheres[k];
        float r = sp->r + margin, rs = r + skin;
        sph[k][0] = sp->x;
        sph[k][1] = sp->y;
        sph[k][2] = sp->z;
        sph[k][3] = r;
        sph[k][4] = rs * rs;
    }
}

void wb_cloth_bodies_push(WbClothState *s, const WbClothDef *def)
{
    const float margin = def->margin;
    float sph[WB_CLOTH_MAX_SPHERES][5];
    sphere_table(s, margin, 0.0f, sph);
    int i = 0;
#if WB_SIMD_WIDE
    if (s->lanes == 16)
        i = wb_cloth_v16_push_all(s, i, sph);
    if (s->lanes >= 8)
        i = wb_cloth_v8_push_all(s, i, sph);
#endif
    i = wb_cloth_v4_push_all(s, i, sph);
    for (; i < s->n; i++) {
        if (!(s->w[i] > 0.0f))
            continue;
        float x = s->x[i], y = s->y[i], z = s->z[i];
        if (push_spheres(s, margin, &x, &y, &z)) {
            s->x[i] = x;
            s->y[i] = y;
            s->z[i] = z;
        }
    }
    /* boxes after the spheres, particle by particle as in the reference */
    for (int b = 0; b < s->n_boxes; b++) {
        for (i = 0; i < s->n; i++) {
            if (!(s->w[i] > 0.0f))
                continue;
            float n[3];
            push_box(&s->boxes[b], margin, &s->x[i], &s->y[i], &s->z[i], n);
        }
    }
}

/* Contact friction on the implicit velocity v = x − x_prev: remove the
 * normal part; keep the tangential part only if it exceeds the static limit
 * μs·(normal load of gravity over the substep + push depth) — Coulomb's
 * cone for a particle resting on the surface — and then scale it by
 * (1 − μ).  Rewrites x_prev so the next prediction carries that velocity. */
static void contact_friction(WbClothState *s, int i, const float n[3], float depth,
                             float mu, float gdt2)
{
    float vx = s->x[i] - s->px[i], vy = s->y[i] - s->py[i], vz = s->z[i] - s->pz[i];
    float vn = vx * n[0] + vy * n[1] + vz * n[2];
    float tx = vx - vn * n[0], ty = vy - vn * n[1], tz = vz - vn * n[2];
    float load = gdt2 * n[1];
    if (load < 0.0f)
        load = 0.0f;
    float limit = WB_CLOTH_STATIC_RATIO * mu * (load + depth);
    float keep = (tx * tx + ty * ty + tz * tz <= limit * limit) ? 0.0f : 1.0f - mu;
    s->px[i] = s->x[i] - tx * keep;
    s->py[i] = s->y[i] - ty * keep;
    s->pz[i] = s->z[i] - tz * keep;
}

/* The final pass.  The interleaved passes have usually put a resting
 * particle exactly on the surface already, so "in contact" means within a
 * thin skin of it, not strictly inside — otherwise friction would almost
 * never act (which is why the reference's cloth slides off the torso). */
static void friction_spheres(WbClothState *s, int i, float margin, float skin, float mu,
                             float gdt2)
{
    /* a push out of one sphere can land inside a neighbour: a few rounds */
    for (int round = 0; round < 4; round++) {
        if (!in_body_bounds(s, s->x[i], s->y[i], s->z[i]))
            break;
        int bk = bucket_of(s, s->x[i], s->y[i]), hits = 0;
        for (int g = s->pack_start[bk]; g < s->pack_start[bk + 1]; g += 4) {
            if (!group_reaches(s, g, s->x[i], s->y[i], s->z[i], margin, skin))
                continue;
            for (int k = g; k < g + 4; k++) {
                float cx = s->pack_x[k], cy = s->pack_y[k], cz = s->pack_z[k];
                float dx = s->x[i] - cx, dy = s->y[i] - cy, dz = s->z[i] - cz;
                float r = s->pack_r[k] + margin, rs = r + skin;
                float d2 = dx * dx + dy * dy + dz * dz;
                if (!(d2 < rs * rs && d2 > 1e-18f))
                    continue;
                float d = sqrtf(d2);
                float n[3] = {dx / d, dy / d, dz / d};
                float depth = r - d;
                if (depth > 0.0f) {
                    s->x[i] = cx + n[0] * r;
                    s->y[i] = cy + n[1] * r;
                    s->z[i] = cz + n[2] * r;
                    hits++;
                } else {
                    depth = 0.0f;
                }
                contact_friction(s, i, n, depth, mu, gdt2);
            }
        }
        if (!hits)
            break;
    }
}

void wb_cloth_bodies_friction(WbClothState *s, const WbClothDef *def, float dt)
{
    const float mu = def->fabric.friction, gdt2 = def->gravity * dt * dt;
    const float margin = def->margin, skin = WB_CLOTH_CONTACT_SKIN + 0.1f * margin;
    float sph[WB_CLOTH_MAX_SPHERES][5];
    sphere_table(s, margin, skin, sph);
    int i = 0;
#if WB_SIMD_WIDE
    if (s->lanes == 16)
        i = wb_cloth_v16_friction_all(s, i, sph, mu, gdt2);
    if (s->lanes >= 8)
        i = wb_cloth_v8_friction_all(s, i, sph, mu, gdt2);
#endif
    i = wb_cloth_v4_friction_all(s, i, sph, mu, gdt2);
    for (; i < s->n; i++) {
        if (s->w[i] > 0.0f)
            friction_spheres(s, i, margin, skin, mu, gdt2);
    }
    if (s->n_boxes == 0)
        return;
    for (i = 0; i < s->n; i++) {
        if (!(s->w[i] > 0.0f))
            continue;
        for (int b = 0; b < s->n_boxes; b++) {
            float n[3], x = s->x[i], y = s->y[i], z = s->z[i];
            float depth = push_box(&s->boxes[b], margin + skin, &x, &y, &z, n);
            if (depth > 0.0f) {
                /* within margin + skin: touching; inside the margin: put it
                 * on the margin surface (the push went skin further) */
                depth -= skin;
                if (depth > 0.0f) {
                    s->x[i] = x - n[0] * skin;
                    s->y[i] = y - n[1] * skin;
                    s->z[i] = z - n[2] * skin;
                }
                contact_friction(s, i, n, depth > 0.0f ? depth : 0.0f, mu, gdt2);
            }
        }
    }
}

void wb_cloth_bodies_floor(WbClothState *s, const WbClothDef *def, float dt)
{
    const float n[3] = {0.0f, 1.0f, 0.0f};
    const float fy = def->floor_y, mu = def->fabric.friction, gdt2 = def->gravity * dt * dt;
    const float lim = fy + WB_CLOTH_CONTACT_SKIN;
    const v4f vlim = v4_set(lim);
    const float *py = s->y;
    for (int i0 = 0; i0 < s->n; i0 += 4) {
        /* four at a time off the floor (most of the cloth): skipped at once */
        int i1 = i0 + 4 < s->n ? i0 + 4 : s->n;
        if (i1 == i0 + 4 && !V4_ANY(v4_ld(py + i0) < vlim))
            continue;
        for (int i = i0; i < i1; i++) {
            if (!(s->y[i] < lim && s->w[i] > 0.0f))
                continue;
            float depth = fy - s->y[i];
            depth = depth > 0.0f ? depth : 0.0f;
            s->y[i] = s->y[i] < fy ? fy : s->y[i];
            contact_friction(s, i, n, depth, mu, gdt2);
        }
    }
}

/* The stretch limit's ordered pass starts from a pin or, with none, from the
 * highest particle touching a body sphere (within margin + skin of it, or
 * inside). */
int wb_cloth_bodies_touch(const WbClothState *s, int p, float margin, float skin)
{
    float x = s->x[p], y = s->y[p], z = s->z[p];
    if (s->n_spheres == 0 || !in_body_bounds(s, x, y, z))
        return 0;
    int bk = bucket_of(s, x, y);
    for (int g = s->pack_start[bk]; g < s->pack_start[bk + 1]; g += 4) {
        if (group_reaches(s, g, x, y, z, margin, skin))
            return 1;
    }
    return 0;
}

static void build_spheres(WbClothState *s, const WbClothDef *def)
{
    s->n_spheres = 0;
    if (def->mannequin)
        s->n_spheres = wb_mannequin_build(&def->body, s->spheres, WB_CLOTH_MAX_SPHERES);
    for (int k = 0; k < def->n_spheres; k++)
        s->spheres[s->n_spheres++] = def->spheres[k];
    s->n_boxes = def->n_boxes;
    memcpy(s->boxes, def->boxes, sizeof(WbBox) * (size_t)def->n_boxes);
    /* bounds and buckets carry a slack over the margin so a margin raised
     * later by a timeline still finds the spheres */
    const float slack = def->margin + 0.01f;
    for (int c = 0; c < 3; c++) {
        s->body_lo[c] = INFINITY;
        s->body_hi[c] = -INFINITY;
    }
    for (int k = 0; k < s->n_spheres; k++) {
        const WbSphere *sp = &s->spheres[k];
        float c3[3] = {sp->x, sp->y, sp->z}, r = sp->r + slack;
        for (int c = 0; c < 3; c++) {
            s->body_lo[c] = fminf(s->body_lo[c], c3[c] - r);
            s->body_hi[c] = fmaxf(s->body_hi[c], c3[c] + r);
        }
    }
    memset(s->bucket, 0, sizeof s->bucket);
    if (s->n_spheres == 0)
        return;
    s->bucket_inv[0] = (float)WB_CLOTH_BUCKETS_X / (s->body_hi[0] - s->body_lo[0]);
    s->bucket_inv[1] = (float)WB_CLOTH_BUCKETS_Y / (s->body_hi[1] - s->body_lo[1]);
    for (int k = 0; k < s->n_spheres; k++) {
        const WbSphere *sp = &s->spheres[k];
        float r = sp->r + slack;
        int x0 = (int)floorf((sp->x - r - s->body_lo[0]) * s->bucket_inv[0]);
        int x1 = (int)floorf((sp->x + r - s->body_lo[0]) * s->bucket_inv[0]);
        int y0 = (int)floorf((sp->y - r - s->body_lo[1]) * s->bucket_inv[1]);
        int y1 = (int)floorf((sp->y + r - s->body_lo[1]) * s->bucket_inv[1]);
        x0 = x0 < 0 ? 0 : x0;
        y0 = y0 < 0 ? 0 : y0;
        x1 = x1 >= WB_CLOTH_BUCKETS_X ? WB_CLOTH_BUCKETS_X - 1 : x1;
        y1 = y1 >= WB_CLOTH_BUCKETS_Y ? WB_CLOTH_BUCKETS_Y - 1 : y1;
        for (int by = y0; by <= y1; by++)
            for (int bx = x0; bx <= x1; bx++)
                s->bucket[by * WB_CLOTH_BUCKETS_X + bx] |= (uint64_t)1 << k;
    }
}

/* Each bucket's spheres copied into its packs, in order, the padding out
 * of reach. */
static void fill_packs(WbClothState *s)
{
    const int nb = WB_CLOTH_BUCKETS_X * WB_CLOTH_BUCKETS_Y;
    for (int b = 0; b < nb; b++) {
        int g = s->pack_start[b];
        for (uint64_t m = s->bucket[b]; m; m &= m - 1) {
            const WbSphere *sp = &s->spheres[__builtin_ctzll(m)];
            s->pack_x[g] = sp->x, s->pack_y[g] = sp->y, s->pack_z[g] = sp->z, s->pack_r[g] = sp->r;
            g++;
        }
        for (; g < s->pack_start[b + 1]; g++)
            s->pack_x[g] = 1e18f, s->pack_y[g] = s->pack_z[g] = s->pack_r[g] = 0.0f;
    }
}

/* Packed per-bucket sphere copies for the grouped tests: each bucket's spheres
 * in order, padded to a multiple of four with unreachable spheres. */
static bool build_packs(WbClothState *s)
{
    const int nb = WB_CLOTH_BUCKETS_X * WB_CLOTH_BUCKETS_Y;
    s->pack_start = calloc((size_t)nb + 1, sizeof(int32_t));
    if (!s->pack_start)
        return false;
    int total = 0;
    for (int b = 0; b < nb; b++) {
        s->pack_start[b] = total;
        total += (__builtin_popcountll(s->bucket[b]) + 3) & ~3;
    }
    s->pack_start[nb] = total;
    size_t sz = (size_t)(total ? total : 4);
    s->pack_x = malloc(sz * sizeof(float));
    s->pack_y = malloc(sz * sizeof(float));
    s->pack_z = malloc(sz * sizeof(float));
    s->pack_r = malloc(sz * sizeof(float));
    if (!s->pack_x || !s->pack_y || !s->pack_z || !s->pack_r)
        return false;
    fill_packs(s);
    return true;
}

bool wb_cloth_bodies_build(WbClothState *s, const WbClothDef *def)
{
    build_spheres(s, def);
    return build_packs(s);
}

void wb_cloth_translate(WbClothState *s, const float by[3])
{
    float *pos[3] = {s->x, s->y, s->z}, *prev[3] = {s->px, s->py, s->pz};
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < s->n; k++) {
            pos[c][k] += by[c];
            prev[c][k] += by[c];
        }
    wb_cloth_translate_bodies(s, by);
}

void wb_cloth_translate_bodies(WbClothState *s, const float by[3])
{
    for (int k = 0; k < s->n_spheres; k++) {
        s->spheres[k].x += by[0];
        s->spheres[k].y += by[1];
        s->spheres[k].z += by[2];
    }
    for (int k = 0; k < s->n_boxes; k++)
        for (int c = 0; c < 3; c++)
            s->boxes[k].c[c] += by[c];
    /* the buckets sit on the bounds: they move along and keep their spheres */
    for (int c = 0; c < 3; c++) {
        s->body_lo[c] += by[c];
        s->body_hi[c] += by[c];
    }
    fill_packs(s);
}
