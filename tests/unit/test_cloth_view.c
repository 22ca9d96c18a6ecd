/* test_cloth_view.c — the cloth kind's 3D view (torso surface against the
 * collision spheres, what lands on which pixel, sheen, determinism across
 * pool sizes) and its scene block (fabric presets and overrides, grid). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/image.h"
#include "core/pool.h"
#include "render/cloth_view.h"
#include "scene/scene_load.h"
#include "sim/cloth.h"
#include "sim/mannequin.h"

#define W 160
#define H 120

static const float silk_red[3] = {0.69f, 0.12f, 0.24f};

/* A setup looking at the origin region from +z, slightly above. */
static WbClothViewSetup setup(double pitch)
{
    const double target[3] = {0.0, 1.0, 0.0};
    WbClothViewSetup s = {
        .width = W,
        .height = H,
        .samples = 4,
        .camera = wb_camera_orbit(target, 0.0, pitch, 3.0),
        .background = {0.1f, 0.2f, 0.3f, 1.0f},
        .colour = {silk_red[0], silk_red[1], silk_red[2]},
        .sheen = 0.0f,
        .gloss = 0.0f,
        .floor = true,
        .floor_y = 0.0f,
        .floor_colour = {0.6f, 0.6f, 0.6f},
    };
    return s;
}

/* A flat 1 m sheet at y = 1 (horizontal), 21 × 21 particles, at rest. */
static void flat_sheet(WbClothState *st)
{
    WbClothDef d = wb_cloth_default();
    d.nx = d.ny = 21;
    d.size[0] = d.size[1] = 1.0f;
    const float origin[3] = {-0.5f, 1.0f, 0.5f}, ai[3] = {1, 0, 0}, aj[3] = {0, 0, -1};
    memcpy(d.origin, origin, sizeof origin);
    memcpy(d.axis_i, ai, sizeof ai);
    memcpy(d.axis_j, aj, sizeof aj);
    d.mannequin = false;
    WbError e;
    wb_error_clear(&e);
    cr_assert_eq(wb_cloth_init(st, &d, &e), WB_OK, "%s", e.msg);
    wb_cloth_normals(st);
}

static const uint8_t *pixel(const WbImage *img, int x, int y)
{
    return wb_image_row(img, y) + 4 * x;
}

static void draw(WbClothView *v, const WbClothState *st, WbPool *pool, WbImage *img)
{
    WbError e;
    wb_error_clear(&e);
    cr_assert_eq(wb_image_alloc(img, W, H, &e), WB_OK);
    cr_assert_eq(wb_cloth_view_draw(v, st, pool, img, &e), WB_OK, "%s", e.msg);
}

/* A view of setup(pitch) with `st` drawn into img. */
static void view_drawn(WbClothView *v, const WbClothState *st, double pitch, WbImage *img)
{
    WbError e;
    wb_error_clear(&e);
    WbClothViewSetup s = setup(pitch);
    cr_assert_eq(wb_cloth_view_init(v, &s, &e), WB_OK, "%s", e.msg);
    draw(v, st, NULL, img);
}

/* Where a world point lands, through the view's own raster. */
static void project(const WbClothView *v, double x, double y, double z, int *px, int *py)
{
    const double p[3] = {x, y, z};
    float q[2], depth;
    cr_assert(wb_raster3_project(v->raster, p, q, &depth));
    *px = (int)q[0];
    *py = (int)q[1];
    cr_assert(*px >= 0 && *px < W && *py >= 0 && *py < H, "(%g, %g, %g) is off screen", x, y, z);
}

Test(cloth_view, torso_stays_within_the_collision_margin_of_the_spheres)
{
    WbClothView v;
    WbError e;
    wb_error_clear(&e);
    WbClothViewSetup s = setup(10.0);
    cr_assert_eq(wb_cloth_view_init(&v, &s, &e), WB_OK, "%s", e.msg);
    WbMannequinDef def = wb_mannequin_default();
    cr_assert_eq(wb_cloth_view_add_mannequin(&v, &def, silk_red, &e), WB_OK, "%s", e.msg);
    WbSphere sp[WB_CLOTH_MAX_SPHERES];
    int n = wb_mannequin_build(&def, sp, WB_CLOTH_MAX_SPHERES);
    int torso = n - 1; /* the head is drawn as its own sphere */
    cr_assert_gt(v.torso_vertices, 100);
    float worst_out = -1.0f, worst_in = 0.0f;
    int on_surface = 0;
    for (int k = 0; k < v.torso_vertices; k++) {
        const float *p = &v.torso_pos[3 * k];
        /* signed distance to the union: min over spheres of |p − c| − r */
        float d = INFINITY;
        for (int q = 0; q < torso; q++) {
            float dx = p[0] - sp[q].x, dy = p[1] - sp[q].y, dz = p[2] - sp[q].z;
            d = fminf(d, sqrtf(dx * dx + dy * dy + dz * dz) - sp[q].r);
        }
        worst_out = fmaxf(worst_out, d);
        worst_in = fminf(worst_in, d);
        on_surface += fabsf(d) < 1e-4f;
    }
    /* at most 4 mm outside: inside the cloth's collision skin (0.008 m), so
     * no resting cloth is drawn through it; never deep inside either */
    cr_expect_leq(worst_out, 0.0041f, "torso vertex %g m outside the spheres", worst_out);
    cr_expect_geq(worst_in, -0.02f, "torso vertex %g m inside the spheres", worst_in);
    /* the slice rings and caps lie exactly on the union */
    cr_expect_gt(on_surface, v.torso_vertices / 2, "%d of %d on the union", on_surface,
                 v.torso_vertices);
    /* outward normals: from the axis, away */
    for (int k = 0; k < v.torso_vertices; k += 7) {
        const float *p = &v.torso_pos[3 * k], *nn = &v.torso_normal[3 * k];
        float rx = p[0] - def.position[0], rz = p[2] - def.position[2];
        if (rx * rx + rz * rz > 0.01f * 0.01f)
            cr_expect_gt(rx * nn[0] + rz * nn[2], 0.0f, "vertex %d normal points inward", k);
    }
    cr_expect_eq(wb_cloth_view_add_mannequin(&v, &def, silk_red, &e), WB_E_INPUT);
    wb_cloth_view_free(&v);
}

/* A box is drawn with its edges rounded: no vertex outside the rounded box
 * (distance to it ≤ 1e-5 m; a sharp corner is 0.73·round outside), and its
 * faces still reach the box's own (within the 2 % hair).  Cloth folded over
 * an edge cuts the corner between its particles, and the sharp edge showed
 * through it. */
Test(cloth_view, box_edges_are_drawn_rounded_and_faces_stay)
{
    WbClothView v;
    WbError e;
    wb_error_clear(&e);
    WbClothViewSetup s = setup(20.0);
    cr_assert_eq(wb_cloth_view_init(&v, &s, &e), WB_OK, "%s", e.msg);
    const float lo[3] = {-0.3f, 0.0f, -0.2f}, hi[3] = {0.3f, 0.8f, 0.2f}, r = 0.05f;
    cr_assert_eq(wb_cloth_view_add_box(&v, lo, hi, r, silk_red, &e), WB_OK, "%s", e.msg);
    const WbMeshBuf *b = &v.bodies;
    cr_assert_gt(b->n_vertices, 24);
    float reach[3] = {0.0f, 0.0f, 0.0f};
    for (int k = 0; k < b->n_vertices; k++) {
        double q[3], out = 0.0, in = -1e9;
        for (int a = 0; a < 3; a++) {
            double c = 0.5 * (lo[a] + hi[a]), h = 0.5 * (hi[a] - lo[a]);
            q[a] = fabs(b->pos[3 * k + a] - c) - (h - r);
            out += q[a] > 0.0 ? q[a] * q[a] : 0.0;
            in = fmax(in, q[a]);
            reach[a] = fmaxf(reach[a], fabsf(b->pos[3 * k + a] - (float)c) / (float)h);
        }
        double sdf = sqrt(out) + fmin(in, 0.0) - r;
        cr_assert_leq(sdf, 1e-5, "vertex %d (%g, %g, %g) is %g m outside the rounded box", k,
                      (double)b->pos[3 * k], (double)b->pos[3 * k + 1], (double)b->pos[3 * k + 2],
                      sdf);
    }
    for (int a = 0; a < 3; a++)
        cr_assert_gt(reach[a], 0.995f, "axis %d: the faces reach only %g of the box", a,
                     (double)reach[a]);
    wb_cloth_view_free(&v);
}

Test(cloth_view, cloth_floor_and_background_land_where_projected)
{
    WbClothState st;
    flat_sheet(&st);
    WbClothView v;
    WbImage img;
    view_drawn(&v, &st, 20.0, &img);
    int x, y;
    /* the sheet's centre: red dominates */
    project(&v, 0.0, 1.0, 0.0, &x, &y);
    const uint8_t *c = pixel(&img, x, y);
    cr_expect(c[0] > 2 * c[1] && c[0] > 2 * c[2] && c[3] == 255, "cloth pixel %d %d %d %d",
              c[0], c[1], c[2], c[3]);
    /* the top row is sky: exactly the background */
    const uint8_t *b = pixel(&img, 0, 0);
    cr_expect(b[0] == 26 && b[1] == 51 && b[2] == 77 && b[3] == 255, "background %d %d %d",
              b[0], b[1], b[2]);
    /* the floor beyond the sheet: grey, and the two squares at the middle of
     * neighbouring checker cells differ by the dark square's shade */
    int xa, ya, xb, yb;
    project(&v, 0.25, 0.0, -1.25, &xa, &ya);
    project(&v, -0.25, 0.0, -1.25, &xb, &yb);
    const uint8_t *fa = pixel(&img, xa, ya), *fb = pixel(&img, xb, yb);
    cr_expect(fa[0] == fa[1] && fa[1] == fa[2], "floor is grey: %d %d %d", fa[0], fa[1], fa[2]);
    int hi = fa[0] > fb[0] ? fa[0] : fb[0], lo = fa[0] > fb[0] ? fb[0] : fa[0];
    cr_expect(fabs((double)lo / hi - 0.86) < 0.03, "checker %d vs %d", lo, hi);
    wb_image_free(&img);
    wb_cloth_view_free(&v);
    wb_cloth_free(&st);
}

/* Mean of the red channel over the sheet's pixels (red pixels). */
static double cloth_brightness(const WbImage *img)
{
    double sum = 0.0;
    int n = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t *p = pixel(img, x, y);
            if (p[0] > p[1] + 30 && p[0] > p[2] + 30) {
                sum += p[0];
                n++;
            }
        }
    cr_assert_gt(n, 50);
    return sum / n;
}

Test(cloth_view, sheen_brightens_cloth_seen_at_a_grazing_angle)
{
    WbClothState st;
    flat_sheet(&st);
    double mean[2];
    for (int k = 0; k < 2; k++) {
        WbClothView v;
        WbError e;
        wb_error_clear(&e);
        WbClothViewSetup s = setup(8.0); /* the sheet seen nearly edge on */
        s.sheen = k ? 0.8f : 0.0f;
        s.floor = false;
        cr_assert_eq(wb_cloth_view_init(&v, &s, &e), WB_OK, "%s", e.msg);
        WbImage img;
        draw(&v, &st, NULL, &img);
        mean[k] = cloth_brightness(&img);
        wb_image_free(&img);
        wb_cloth_view_free(&v);
    }
    cr_expect_gt(mean[1], mean[0] + 5.0, "sheen %g vs none %g", mean[1], mean[0]);
    wb_cloth_free(&st);
}

Test(cloth_view, frames_are_identical_for_any_pool_size)
{
    WbClothState st;
    flat_sheet(&st);
    /* bend the sheet so every part of the pipeline has work */
    for (int k = 0; k < st.n; k++)
        st.y[k] += 0.2f * sinf(3.0f * st.x[k]) * cosf(2.0f * st.z[k]);
    wb_cloth_normals(&st);
    WbClothView v;
    WbError e;
    wb_error_clear(&e);
    WbClothViewSetup s = setup(20.0);
    s.sheen = 0.5f;
    s.gloss = 0.4f;
    cr_assert_eq(wb_cloth_view_init(&v, &s, &e), WB_OK, "%s", e.msg);
    const float c[3] = {0.4f, 0.5f, 0.3f}, lo[3] = {0.6f, 0.0f, -0.2f}, hi[3] = {0.9f, 0.3f, 0.1f};
    cr_assert_eq(wb_cloth_view_add_sphere(&v, c, 0.25f, silk_red, &e), WB_OK);
    cr_assert_eq(wb_cloth_view_add_box(&v, lo, hi, 0.02f, silk_red, &e), WB_OK);
    WbPool *pool;
    cr_assert_eq(wb_pool_create(&pool, 3, &e), WB_OK);
    WbImage a, b;
    draw(&v, &st, NULL, &a);
    draw(&v, &st, pool, &b);
    for (int y = 0; y < H; y++)
        cr_assert_eq(memcmp(wb_image_row(&a, y), wb_image_row(&b, y), 4 * W), 0, "row %d", y);
    wb_image_free(&a);
    wb_image_free(&b);
    wb_pool_destroy(pool);
    wb_cloth_view_free(&v);
    wb_cloth_free(&st);
}

/* The drawn sheet of a bent 21 × 21 sheet (y = f(x, z)): refined 3 times
 * per cell, through every particle exactly. */
static float bend(float x, float z)
{
    return 1.0f + 0.2f * sinf(3.0f * x) * cosf(2.0f * z);
}

static void bent_sheet(WbClothState *st)
{
    flat_sheet(st);
    for (int k = 0; k < st->n; k++)
        st->y[k] = bend(st->x[k], st->z[k]);
    wb_cloth_normals(st);
}

static const float *drawn(const WbClothView *v, int I, int J)
{
    return v->fpos + 3 * ((size_t)J * (size_t)v->fnx + (size_t)I);
}

Test(cloth_view, the_sheet_is_drawn_refined_through_every_particle)
{
    WbClothState st;
    bent_sheet(&st);
    WbClothView v;
    WbImage img;
    view_drawn(&v, &st, 20.0, &img);
    cr_assert_eq(v.refine, 3);
    cr_assert_eq(wb_cloth_view_refine(70, 70), 3);
    cr_assert_eq(wb_cloth_view_refine(140, 140), 2);
    cr_assert_eq(wb_cloth_view_refine(300, 20), 1);
    cr_assert_eq(v.fnx, 61);
    cr_assert_eq(v.fny, 61);
    cr_assert_eq(v.fn_triangles, 2 * 60 * 60);
    for (int j = 0; j < st.ny; j++)
        for (int i = 0; i < st.nx; i++) {
            const float *p = drawn(&v, 3 * i, 3 * j);
            const int k = j * st.nx + i;
            cr_assert(p[0] == st.x[k] && p[1] == st.y[k] && p[2] == st.z[k],
                      "particle (%d, %d) not on the sheet", i, j);
        }
    /* between the particles the patch follows the surface they sample much
     * closer than the flat triangles would (their midpoints' error); in the
     * edge cells, where it extends the last link straight, no worse */
    double err_patch = 0.0, err_edge = 0.0, err_flat = 0.0;
    for (int J = 0; J < v.fny; J++)
        for (int I = 0; I < v.fnx; I++) {
            const float *p = drawn(&v, I, J);
            double d = fabs(p[1] - bend(p[0], p[2]));
            bool edge = I < 3 || J < 3 || I > v.fnx - 4 || J > v.fny - 4;
            double *e_ = edge ? &err_edge : &err_patch;
            *e_ = d > *e_ ? d : *e_;
        }
    for (int j = 0; j + 1 < st.ny; j++)
        for (int i = 0; i + 1 < st.nx; i++) {
            const int a = j * st.nx + i, b = a + 1;
            float mx = 0.5f * (st.x[a] + st.x[b]), mz = 0.5f * (st.z[a] + st.z[b]);
            double d = fabs(0.5 * (st.y[a] + st.y[b]) - bend(mx, mz));
            err_flat = d > err_flat ? d : err_flat;
        }
    cr_expect_lt(err_patch, 0.2 * err_flat, "patch %g against chords %g", err_patch, err_flat);
    cr_expect_lt(err_edge, err_flat, "edge cells %g against chords %g", err_edge, err_flat);
    /* the normals: unit, on the side of the solver's */
    for (int J = 0; J < v.fny; J++)
        for (int I = 0; I < v.fnx; I++) {
            const float *n = v.fnormal + 3 * ((size_t)J * (size_t)v.fnx + (size_t)I);
            const int k = (J / 3) * st.nx + I / 3;
            double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            double dot = n[0] * st.nrmx[k] + n[1] * st.nrmy[k] + n[2] * st.nrmz[k];
            cr_assert(fabs(len - 1.0) < 1e-5 && dot > 0.9, "normal at (%d, %d): |n| %g, n·solver %g",
                      I, J, len, dot);
        }
    wb_image_free(&img);
    wb_cloth_view_free(&v);
    wb_cloth_free(&st);
}

Test(cloth_view, an_inert_particle_leaves_a_hole_with_flat_cells_around_it)
{
    WbClothState st;
    bent_sheet(&st);
    const int pi = 10, pj = 10, nx = st.nx;
    cr_assert(wb_cloth_set_inert(&st, pi, pj));
    st.y[pj * nx + pi] = 50.0f; /* where a patch reading it would show */
    WbClothView v;
    WbImage img;
    view_drawn(&v, &st, 20.0, &img);
    /* six of the grid's triangles have it as a corner: 6 × 9 drawn ones go */
    cr_assert_eq(v.fn_triangles, 2 * 60 * 60 - 6 * 9);
    for (int t = 0; t < 3 * v.fn_triangles; t++) {
        const float *p = v.fpos + 3 * (size_t)v.fidx[t];
        cr_assert(p[1] < 2.0f, "a drawn vertex reads the inert particle: y %g", p[1]);
    }
    /* a cell whose patch would read it is drawn flat: its points on its two
     * triangles (here a point of the a-d-c one, u = 1, v = 2) */
    const int ci = pi + 1, cj = pj + 1;
    const int a = cj * nx + ci, c = a + nx, d = c + 1;
    const float sx = 1.0f / 3.0f, ty = 2.0f / 3.0f;
    const float *p = drawn(&v, 3 * ci + 1, 3 * cj + 2);
    const float *P[3] = {st.x, st.y, st.z};
    for (int q = 0; q < 3; q++) {
        float want = P[q][a] + sx * (P[q][d] - P[q][c]) + ty * (P[q][c] - P[q][a]);
        cr_expect(fabsf(p[q] - want) < 1e-6f, "coordinate %d: %g, flat %g", q, p[q], want);
    }
    /* farther away the sheet is smooth again: not on the chord */
    const int fi = pi + 4, fj = pj + 4, fa = fj * nx + fi, fb = fa + 1;
    const float *m = drawn(&v, 3 * fi + 1, 3 * fj);
    float chord = st.y[fa] + (1.0f / 3.0f) * (st.y[fb] - st.y[fa]);
    cr_expect(fabsf(m[1] - chord) > 1e-6f, "a smooth cell drawn flat");
    wb_image_free(&img);
    wb_cloth_view_free(&v);
    wb_cloth_free(&st);
}

/* ------------------------------------------------------------ scene */

static const char *const cloth_scene = "wobble: 1\n"
                                       "kind: cloth\n"
                                       "cloth:\n"
                                       "  stiffness: 0.5\n"
                                       "  fabric: denim\n"
                                       "  size: [2, 1]\n"
                                       "  grid: 41\n";

Test(cloth_scene, fabric_sets_six_parameters_and_explicit_keys_win)
{
    WbScene s;
    WbError e;
    wb_error_clear(&e);
    cr_assert_eq(wb_scene_load_string("c.yaml", cloth_scene, NULL, 0, &s, &e), WB_OK, "%s",
                 e.msg);
    const WbClothSceneDef *c = &s.cloth;
    cr_expect_eq(c->fabric, WB_CLOTH_FABRIC_DENIM);
    cr_expect_eq(c->stiffness, 0.5);        /* written before the fabric, still wins */
    cr_expect_eq(c->weight, 0.4);
    cr_expect_eq(c->bend_stiffness, 0.12);
    cr_expect_eq(c->wind_response, 0.05);
    cr_expect_lt(c->sheen, 0.1);             /* denim: matte */
    int nx, ny;
    wb_cloth_scene_grid(c, &nx, &ny);
    cr_expect_eq(nx, 41);
    cr_expect_eq(ny, 21);                    /* square 5 cm cells */
    wb_scene_free(&s);
    const char *sets[] = {"cloth.fabric=silk"};
    cr_assert_eq(wb_scene_load_string("c.yaml", cloth_scene, sets, 1, &s, &e), WB_OK);
    cr_expect_eq(s.cloth.weight, 0.08);
    cr_expect_gt(s.cloth.sheen, 0.5);        /* silk: lustrous */
    wb_scene_free(&s);
}

Test(cloth_scene, unknown_fabric_and_unknown_pin_fail_with_positions)
{
    WbScene s;
    WbError e;
    wb_error_clear(&e);
    const char *sets[] = {"cloth.fabric=demin"};
    cr_assert_eq(wb_scene_load_string("c.yaml", cloth_scene, sets, 1, &s, &e), WB_E_INPUT);
    cr_expect(strstr(e.msg, "did you mean 'denim'?"), "%s", e.msg);
    const char *bad = "wobble: 1\n"
                      "kind: cloth\n"
                      "cloth:\n"
                      "  pins: [{name: a, i: 0, j: 0}]\n"
                      "timeline:\n"
                      "  - {time: 1, release: {pin: b}}\n";
    wb_error_clear(&e);
    cr_assert_eq(wb_scene_load_string("c.yaml", bad, NULL, 0, &s, &e), WB_E_INPUT);
    cr_expect_eq(e.line, 6);
    cr_expect(strstr(e.msg, "no pin named 'b'"), "%s", e.msg);
    const char *outside = "wobble: 1\n"
                          "kind: cloth\n"
                          "cloth:\n"
                          "  grid: 10\n"
                          "  pins: [{name: a, i: 10, j: 0}]\n";
    wb_error_clear(&e);
    cr_assert_eq(wb_scene_load_string("c.yaml", outside, NULL, 0, &s, &e), WB_E_INPUT);
    cr_expect_eq(e.line, 5);
    cr_expect(strstr(e.msg, "outside the 10 x 10 grid"), "%s", e.msg);
}
