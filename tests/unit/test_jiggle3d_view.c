/* test_jiggle3d_view.c — the jiggle 3D views: the five shape meshes
 * (closed, sized as the UV projections expect), weights landing where the
 * presets paint them, bone rest points, squash-and-stretch keeping volume,
 * the heatmap colours, and frames that move with the bones and are the same
 * bytes on one and two threads. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/pool.h"
#include "render/jiggle3d_view.h"
#include "sim/jiggle.h"

static const WbWeightShape SHAPES[5] = {WB_WEIGHT_ORB, WB_WEIGHT_CAPSULE, WB_WEIGHT_TORUS,
                                        WB_WEIGHT_DANCER, WB_WEIGHT_WALKER};

static void build(WbMeshBuf *b, WbWeightShape s)
{
    WbError err;
    memset(b, 0, sizeof *b);
    cr_assert_eq(wb_jiggle3_shape_mesh(b, s, &err), WB_OK, "shape %d: %s", (int)s, err.msg);
}

static int cmp_edge(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return *x < *y ? -1 : *x > *y;
}

/* Watertight by index: every directed edge appears once and its reverse once. */
static bool closed(const WbMeshBuf *b)
{
    size_t n = 3 * (size_t)b->n_triangles;
    uint64_t *e = malloc(sizeof *e * n), *r = malloc(sizeof *r * n);
    for (int t = 0; t < b->n_triangles; t++)
        for (int k = 0; k < 3; k++) {
            uint64_t i = b->idx[3 * t + k], j = b->idx[3 * t + (k + 1) % 3];
            e[3 * t + k] = i << 32 | j;
            r[3 * t + k] = j << 32 | i;
        }
    qsort(e, n, sizeof *e, cmp_edge);
    qsort(r, n, sizeof *r, cmp_edge);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++)
        ok = e[i] == r[i] && (i == 0 || e[i] != e[i - 1]);
    free(e);
    free(r);
    return ok;
}

/* Signed volume by the divergence theorem: Σ p0 · (p1 × p2) / 6. */
static double volume(const float *p, const uint32_t *idx, int nt)
{
    double v = 0;
    for (int t = 0; t < nt; t++) {
        const float *a = p + 3 * idx[3 * t], *b = p + 3 * idx[3 * t + 1], *c = p + 3 * idx[3 * t + 2];
        v += a[0] * ((double)b[1] * c[2] - (double)b[2] * c[1]) +
             a[1] * ((double)b[2] * c[0] - (double)b[0] * c[2]) +
             a[2] * ((double)b[0] * c[1] - (double)b[1] * c[0]);
    }
    return v / 6.0;
}

static void extent(const WbMeshBuf *b, double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++)
        lo[k] = INFINITY, hi[k] = -INFINITY;
    for (int i = 0; i < b->n_vertices; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], b->pos[3 * i + k]);
            hi[k] = fmax(hi[k], b->pos[3 * i + k]);
        }
}

Test(jiggle3d_view, shapes_are_closed_outward_and_sized_for_their_uv)
{
    /* y extents the UV projections of weightmap.h are written for */
    const double ylo[5] = {-0.8, -0.5, -0.28, -1.0, -0.95}, yhi[5] = {0.8, 0.5, 0.28, 1.0, 0.84};
    for (int s = 0; s < 5; s++) {
        WbMeshBuf b;
        build(&b, SHAPES[s]);
        cr_expect(closed(&b), "shape %d is not watertight", s);
        cr_expect(volume(b.pos, b.idx, b.n_triangles) > 0, "shape %d winds inward", s);
        cr_expect(b.n_triangles >= 8000, "shape %d: only %d triangles", s, b.n_triangles);
        double lo[3], hi[3];
        extent(&b, lo, hi);
        cr_expect(fabs(lo[1] - ylo[s]) < 1e-3 && fabs(hi[1] - yhi[s]) < 1e-3,
                  "shape %d spans y %g..%g", s, lo[1], hi[1]);
        wb_meshbuf_free(&b);
    }
    WbMeshBuf orb;
    build(&orb, WB_WEIGHT_ORB);
    cr_expect(orb.n_triangles >= 20000, "orb: %d triangles", orb.n_triangles);
    /* the orb's volume is the sphere's to within the tessellation */
    double v = volume(orb.pos, orb.idx, orb.n_triangles), ref = 4.0 / 3.0 * M_PI * 0.512;
    cr_expect(v < ref && v > ref * 0.995, "orb volume %g vs %g", v, ref);
    wb_meshbuf_free(&orb);
}

/* Sample the preset on a shape and return the vertex weights. */
static float *preset_weights(const WbMeshBuf *b, WbWeightShape s)
{
    WbWeightMap m;
    WbError err;
    cr_assert_eq(wb_weightmap_init(&m, 512, 256, &err), WB_OK);
    wb_weightmap_preset(&m, s);
    float *w = malloc(sizeof *w * 3 * (size_t)b->n_vertices);
    wb_jiggle3_sample_weights(&m, s, b->pos, (size_t)b->n_vertices, w);
    wb_weightmap_free(&m);
    return w;
}

Test(jiggle3d_view, preset_weights_land_where_painted)
{
    /* orb: bone 0 heavy on the lower part (its ring peaks at v = 0.82, 32°
     * above the bottom pole), nothing at the top; bone 1 on the equator */
    WbMeshBuf b;
    build(&b, WB_WEIGHT_ORB);
    float *w = preset_weights(&b, WB_WEIGHT_ORB);
    for (int i = 0; i < b.n_vertices; i++) {
        float y = b.pos[3 * i + 1];
        if (y < -0.7f)
            cr_expect(w[3 * i] > 0.5f, "orb bottom vertex %d: %g", i, w[3 * i]);
        if (y > 0.7f)
            cr_expect(w[3 * i] < 0.01f, "orb top vertex %d: %g", i, w[3 * i]);
        if (fabsf(y) < 0.02f)
            cr_expect(w[3 * i + 1] > 0.55f, "orb equator vertex %d: %g", i, w[3 * i + 1]);
    }
    free(w);
    wb_meshbuf_free(&b);
    /* walker: bust in front (+z) up high, glutes behind (−z) low */
    build(&b, WB_WEIGHT_WALKER);
    w = preset_weights(&b, WB_WEIGHT_WALKER);
    double rest[9], sum[3];
    wb_jiggle3_bone_rest(b.pos, w, (size_t)b.n_vertices, rest, sum);
    cr_expect(sum[0] > 0 && sum[1] > 0 && sum[2] > 0);
    cr_expect(rest[2] > 0.05 && rest[1] > 0.2, "bust at %g %g", rest[1], rest[2]);
    cr_expect(rest[5] < -0.05 && rest[4] < 0.1, "glutes at %g %g", rest[4], rest[5]);
    cr_expect(rest[8] > 0.05 && rest[7] < 0.1, "groin at %g %g", rest[7], rest[8]);
    cr_expect(fabs(rest[0]) < 1e-3, "bust centred in x: %g", rest[0]); /* two symmetric dabs */
    free(w);
    wb_meshbuf_free(&b);
    /* dancer: head-heavy rings, feet carry nothing */
    build(&b, WB_WEIGHT_DANCER);
    w = preset_weights(&b, WB_WEIGHT_DANCER);
    wb_jiggle3_bone_rest(b.pos, w, (size_t)b.n_vertices, rest, sum);
    cr_expect(rest[1] > rest[4] && rest[4] > rest[7], "bones 0..2 top to bottom");
    for (int i = 0; i < b.n_vertices; i++)
        if (b.pos[3 * i + 1] < -0.9f)
            cr_expect(w[3 * i] + w[3 * i + 1] + w[3 * i + 2] < 1e-3f, "foot vertex %d moves", i);
    free(w);
    wb_meshbuf_free(&b);
}

Test(jiggle3d_view, bone_rest_is_the_weighted_centroid)
{
    const float p[9] = {0, 0, 0, 2, 0, 0, 0, 4, 0};
    const float w[9] = {1, 0, 0, 1, 0.5f, 0, 0, 0.5f, 0};
    double rest[9], sum[3];
    wb_jiggle3_bone_rest(p, w, 3, rest, sum);
    cr_expect_float_eq(rest[0], 1.0, 1e-12);
    cr_expect_float_eq(rest[1], 0.0, 1e-12);
    cr_expect_float_eq(rest[3], 1.0, 1e-12);
    cr_expect_float_eq(rest[4], 2.0, 1e-12);
    cr_expect(sum[2] == 0 && rest[6] == 0 && rest[7] == 0 && rest[8] == 0);
    cr_expect_float_eq(sum[0], 2.0, 1e-12);
}

Test(jiggle3d_view, squash_keeps_volume_and_stretches_along_the_offset)
{
    WbMeshBuf b;
    build(&b, WB_WEIGHT_ORB);
    size_t n = (size_t)b.n_vertices;
    float *w = calloc(3 * n, sizeof *w), *pos = malloc(sizeof *pos * 3 * n);
    for (size_t i = 0; i < n; i++)
        w[3 * i] = 1.0f; /* one bone moves everything: S is one linear map */
    const double rest[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    const double off[9] = {0.0, -0.3, 0.0, 0, 0, 0, 0, 0, 0};
    memcpy(pos, b.pos, sizeof *pos * 3 * n);
    wb_jiggle3_squash(pos, b.pos, w, n, rest, off, 0.5, 0.6);
    double v0 = volume(b.pos, b.idx, b.n_triangles), v1 = volume(pos, b.idx, b.n_triangles);
    cr_expect(fabs(v1 / v0 - 1.0) < 1e-5, "volume %g -> %g", v0, v1);
    /* s = 1 + 0.5·min(0.3/0.6, 1) = 1.25 along y, 1/√1.25 across */
    double lo[3], hi[3];
    WbMeshBuf q = b;
    q.pos = pos;
    extent(&q, lo, hi);
    cr_expect(fabs(hi[1] - 0.8 * 1.25) < 1e-5, "stretched top %g", hi[1]);
    cr_expect(fabs(hi[0] - 0.8 / sqrt(1.25)) < 2e-3, "squeezed side %g", hi[0]);
    /* amount 0, zero offsets, zero weights: untouched */
    memcpy(pos, b.pos, sizeof *pos * 3 * n);
    wb_jiggle3_squash(pos, b.pos, w, n, rest, off, 0.0, 0.6);
    const double zero[9] = {0};
    wb_jiggle3_squash(pos, b.pos, w, n, rest, zero, 0.5, 0.6);
    memset(w, 0, sizeof *w * 3 * n);
    wb_jiggle3_squash(pos, b.pos, w, n, rest, off, 0.5, 0.6);
    cr_expect(memcmp(pos, b.pos, sizeof *pos * 3 * n) == 0);
    free(w);
    free(pos);
    wb_meshbuf_free(&b);
}

Test(jiggle3d_view, heatmap_is_the_channels_over_a_dark_base)
{
    float c[4];
    wb_jiggle3_heat((const float[3]){1, 0, 0}, c);
    cr_expect(c[0] == 1.0f && fabsf(c[1] - 0.25f) < 1e-6f && fabsf(c[2] - 0.25f) < 1e-6f &&
              c[3] == 1.0f);
    /* 0.5 → 1 − 0.125 = 0.875 → 0.25 + 0.75·0.875 = 0.90625; out of range clamps */
    wb_jiggle3_heat((const float[3]){-1, 0.5f, 2}, c);
    cr_expect(fabsf(c[0] - 0.25f) < 1e-6f && fabsf(c[1] - 0.90625f) < 1e-6f && c[2] == 1.0f);
}

typedef struct Frame {
    WbImage img;
    uint64_t sum;
} Frame;

static void draw(WbJiggle3View *v, const double off[9], int threads, WbImage *img)
{
    WbError err;
    WbPool *pool = NULL;
    cr_assert_eq(wb_pool_create(&pool, threads, &err), WB_OK);
    cr_assert_eq(wb_image_alloc(img, 160, 90, &err), WB_OK);
    WbJiggle3Frame f = {.offsets = off, .yaw = 20, .pitch = 12, .fov = 40};
    cr_assert_eq(wb_jiggle3_view_draw(v, &f, pool, img, &err), WB_OK, "%s", err.msg);
    wb_pool_destroy(pool);
}

static const uint8_t *px(const WbImage *img, int x, int y)
{
    return wb_image_row(img, y) + 4 * x;
}

Test(jiggle3d_view, frames_follow_the_bones_and_ignore_the_thread_count)
{
    WbWeightMap m;
    WbError err;
    cr_assert_eq(wb_weightmap_init(&m, 512, 256, &err), WB_OK);
    wb_weightmap_preset(&m, WB_WEIGHT_ORB);
    WbJiggle3Setup s = {
        .width = 160, .height = 90, .samples = 4, .shape = WB_WEIGHT_ORB,
        .colour = {0.9, 0.6, 0.5, 1}, .background = {0.1, 0.1, 0.12, 1},
        .floor = true, .floor_y = -0.85, .squash = 0.3,
    };
    WbJiggle3View v;
    cr_assert_eq(wb_jiggle3_view_init(&v, &s, &m, &err), WB_OK, "%s", err.msg);
    wb_weightmap_free(&m);
    const double rest[9] = {0}, moved[9] = {0.25, -0.1, 0, 0, 0.1, 0, 0, 0, 0};
    WbImage a, b, c;
    draw(&v, rest, 1, &a);
    draw(&v, rest, 2, &b);
    cr_expect(memcmp(a.px, b.px, (size_t)a.stride * a.h) == 0, "threads change the bytes");
    /* the shape fills the centre in its colour, the sky corner is background */
    const uint8_t *mid = px(&a, 80, 45), *corner = px(&a, 2, 2);
    cr_expect(mid[0] > mid[2] + 40, "centre %d %d %d is not the orb", mid[0], mid[1], mid[2]);
    cr_expect(abs(corner[0] - 26) <= 1 && abs(corner[2] - 31) <= 1, "corner %d %d %d",
              corner[0], corner[1], corner[2]);
    draw(&v, moved, 2, &c);
    cr_expect(memcmp(a.px, c.px, (size_t)a.stride * a.h) != 0, "bones do not move the mesh");
    /* the bottom bone's rest point projects inside the frame, below the centre */
    double r0[3] = {v.bone_rest[0], v.bone_rest[1], v.bone_rest[2]};
    float p[2], depth;
    cr_expect(wb_raster3_project(v.raster, r0, p, &depth));
    cr_expect(p[0] > 0 && p[0] < 160 && p[1] > 45 && p[1] < 90, "bone 0 at %g %g", p[0], p[1]);
    wb_image_free(&a);
    wb_image_free(&b);
    wb_image_free(&c);
    wb_jiggle3_view_free(&v);
}

Test(jiggle3d_view, dancer_bends_at_its_centreline_feet_anchored)
{
    WbWeightMap m;
    WbError err;
    cr_assert_eq(wb_weightmap_init(&m, 512, 256, &err), WB_OK);
    wb_weightmap_preset(&m, WB_WEIGHT_DANCER);
    WbJiggle3Setup s = {.width = 64, .height = 36, .samples = 1, .shape = WB_WEIGHT_DANCER,
                        .colour = {1, 0.3, 0.3, 1}, .background = {0, 0, 0, 1}};
    WbJiggle3View v;
    cr_assert_eq(wb_jiggle3_view_init(&v, &s, &m, &err), WB_OK, "%s", err.msg);
    wb_weightmap_free(&m);
    /* the head bone thrown +x: below the head ring its weight rises with y,
     * so the centreline leans right and the cross-sections tilt with it —
     * the right side of a ring drops, the left side rises */
    const double off[9] = {0.2, 0, 0, 0, 0, 0, 0, 0, 0};
    WbImage img;
    cr_assert_eq(wb_image_alloc(&img, 64, 36, &err), WB_OK);
    WbJiggle3Frame f = {.offsets = off, .yaw = 0, .pitch = 0, .fov = 40};
    cr_assert_eq(wb_jiggle3_view_draw(&v, &f, NULL, &img, &err), WB_OK, "%s", err.msg);
    int right = -1, left = -1, n_feet = 0;
    for (int i = 0; i < v.mesh.n_vertices; i++) {
        const float *r = v.mesh.pos + 3 * i, *p = v.pos + 3 * i;
        if (r[1] < -0.9f) {
            cr_expect(p[0] == r[0] && p[1] == r[1] && p[2] == r[2], "foot vertex %d moved", i);
            n_feet++;
        }
        if (fabsf(r[1] - 0.6f) < 0.02f) {
            if (right < 0 || r[0] > v.mesh.pos[3 * right])
                right = i;
            if (left < 0 || r[0] < v.mesh.pos[3 * left])
                left = i;
        }
    }
    cr_assert(n_feet > 0 && right >= 0 && left >= 0);
    /* the arms' tips (the vertices farthest out on each side, up at the
     * shoulders): out past x = ±0.6, and they tilt with the chest */
    int rt = 0, lt = 0;
    for (int i = 0; i < v.mesh.n_vertices; i++) {
        if (v.mesh.pos[3 * i] > v.mesh.pos[3 * rt])
            rt = i;
        if (v.mesh.pos[3 * i] < v.mesh.pos[3 * lt])
            lt = i;
    }
    cr_expect(v.mesh.pos[3 * rt] > 0.6f && v.mesh.pos[3 * lt] < -0.6f, "arms reach %g, %g",
              v.mesh.pos[3 * rt], v.mesh.pos[3 * lt]);
    cr_expect(v.mesh.pos[3 * rt + 1] > 0.6f && v.mesh.pos[3 * lt + 1] > 0.6f, "arms raised");
    cr_expect(v.pos[3 * rt + 1] < v.mesh.pos[3 * rt + 1] && v.pos[3 * lt + 1] > v.mesh.pos[3 * lt + 1],
              "the arms did not tilt with the chest");
    cr_expect(v.pos[3 * rt] > v.mesh.pos[3 * rt] && v.pos[3 * lt] > v.mesh.pos[3 * lt],
              "the arms did not follow the head");
    cr_expect(v.pos[3 * right + 1] < v.mesh.pos[3 * right + 1], "right side did not drop");
    cr_expect(v.pos[3 * left + 1] > v.mesh.pos[3 * left + 1], "left side did not rise");
    cr_expect(v.pos[3 * right] > v.mesh.pos[3 * right], "ring did not follow the head");
    wb_image_free(&img);
    wb_jiggle3_view_free(&v);
}

/* camera.distance 0 fits the bounding sphere: its outline spans 1/1.3 of the
 * frame's shorter side at every fov, and the camera stays outside the
 * sphere.  The fit was r·1.3/tan(fov/2), which put the camera inside the orb
 * from fov ≈ 115° on (the orb vanished at the documented fov 150) and drew
 * it larger the wider the fov. */
Test(jiggle3d_view, fitted_camera_frames_the_shape_at_every_fov)
{
    static const int SIZES[2][2] = {{320, 180}, {180, 320}};
    static const double FOVS[] = {10, 40, 90, 120, 150};
    WbJiggle3View v;
    memset(&v, 0, sizeof v);
    v.radius = 0.8;
    v.centre[1] = 0.1;
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < sizeof FOVS / sizeof *FOVS; i++) {
            v.setup.width = SIZES[s][0];
            v.setup.height = SIZES[s][1];
            WbJiggle3Frame f = {.yaw = 25, .pitch = 12, .distance = 0, .fov = FOVS[i]};
            WbCamera c = wb_jiggle3_view_camera(&v, &f);
            double d2 = 0;
            for (int k = 0; k < 3; k++)
                d2 += (c.eye[k] - v.centre[k]) * (c.eye[k] - v.centre[k]);
            double d = sqrt(d2);
            cr_assert_gt(d, v.radius, "fov %g: camera at %g, inside the shape", FOVS[i], d);
            /* outline half-angle α: sin α = r/d; its image tan α against the
             * frame's half-extent along the shorter side */
            double half = tan(FOVS[i] * M_PI / 360.0);
            double side = fmin(half, half * SIZES[s][0] / SIZES[s][1]);
            double share = tan(asin(v.radius / d)) / side;
            cr_assert_float_eq(share, 1.0 / 1.3, 1e-9, "fov %g %dx%d: outline spans %g", FOVS[i],
                               SIZES[s][0], SIZES[s][1], share);
        }
}
