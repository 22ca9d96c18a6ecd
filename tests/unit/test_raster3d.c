/* Tests of the 3D rasterizer: exact coverage of a square facing the camera,
 * no seams and no double blending inside a translucent mesh, depth order
 * independent of submission order, perspective-correct texturing against
 * the ray-cast closed form (also across the near plane), culling that
 * agrees with the winding, the transparent background, determinism across
 * thread counts, and wb_raster3_project() landing on the drawn pixel. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/pool.h"
#include "render/mesh3.h"
#include "render/raster3d.h"

typedef struct R3 {
    WbRaster3 *r;
    WbImage img;
    int w, h;
} R3;

static void r3_init(R3 *c, int w, int h, int samples)
{
    WbError err;
    cr_assert_eq(wb_raster3_create(&c->r, w, h, samples, &err), WB_OK, "%s", err.msg);
    cr_assert_eq(wb_image_alloc(&c->img, w, h, &err), WB_OK);
    c->w = w;
    c->h = h;
}

static void r3_end(R3 *c, WbPool *pool)
{
    WbError err;
    cr_assert_eq(wb_raster3_end(c->r, pool, &c->img, &err), WB_OK, "%s", err.msg);
}

static void r3_free(R3 *c)
{
    wb_raster3_destroy(c->r);
    wb_image_free(&c->img);
}

static const uint8_t *px(const R3 *c, int x, int y)
{
    return wb_image_row(&c->img, y) + 4 * x;
}

static WbMesh3 unlit_mesh(const WbMeshBuf *b, uint32_t color)
{
    WbMaterial mat = wb_material_default();
    mat.unlit = true;
    WbMesh3 m = {.n_vertices = b->n_vertices, .pos = b->pos, .normal = b->normal,
                 .indices = b->idx, .n_triangles = b->n_triangles, .paint = WB_PAINT_COLOR,
                 .color = color, .material = mat, .opacity = 1.0f};
    return m;
}

/* Camera on +z looking at the origin with a 90° field of view: at the
 * plane z = 0 one world unit is h/(2·5) pixels. */
static WbCamera front_camera(void)
{
    WbCamera cam = {.eye = {0, 0, 5}, .target = {0, 0, 0}, .up = {0, 1, 0}, .fov_y = 90.0,
                    .near = 0.1, .far = 100.0};
    return cam;
}

/* A quad in the plane z = z0 from (x0, y0) to (x1, y1), CCW seen from +z. */
static void quad(WbMeshBuf *b, float x0, float y0, float x1, float y1, float z0)
{
    WbError err;
    const float c[3] = {0, 0, 0};
    cr_assert_eq(wb_mesh3_plane(b, c, 1.0f, 1.0f, 1, 1, &err), WB_OK);
    /* The plane is y = 0 with normal +y; map (x, z) → (x, −z) into a plane
     * facing +z: corner (i, k) → (x0 or x1, y1 or y0). */
    float *p = b->pos + 3 * (b->n_vertices - 4);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 2; i++) {
            float *v = p + 3 * (2 * k + i);
            v[0] = i ? x1 : x0;
            v[1] = k ? y0 : y1;
            v[2] = z0;
            float *n = b->normal + 3 * (b->n_vertices - 4 + 2 * k + i);
            n[0] = 0, n[1] = 0, n[2] = 1;
        }
}

Test(raster3d, square_facing_camera_covers_exact_pixels)
{
    for (int S = 1; S <= 16; S *= S == 1 ? 4 : 2) {
        R3 c;
        r3_init(&c, 100, 100, S);
        WbMeshBuf b = {0};
        quad(&b, -1.0f, -1.0f, 1.0f, 1.0f, 0.0f);   /* 20×20 px at [40, 60)² */
        WbCamera cam = front_camera();
        wb_raster3_begin(c.r, &cam, NULL, 0);
        uint32_t col = wb_rgba_premul(0.2, 0.6, 1.0, 1.0);
        WbMesh3 m = unlit_mesh(&b, col);
        wb_raster3_mesh(c.r, &m);
        r3_end(&c, NULL);
        int full = 0, partial = 0;
        for (int y = 0; y < 100; y++)
            for (int x = 0; x < 100; x++) {
                const uint8_t *p = px(&c, x, y);
                bool in = x >= 40 && x < 60 && y >= 40 && y < 60;
                if (p[3] == 255) {
                    full++;
                    cr_assert(in, "pixel %d,%d covered outside the square (S=%d)", x, y, S);
                    cr_assert_eq(p[0], WB_RGBA_R(col));
                    cr_assert_eq(p[1], WB_RGBA_G(col));
                    cr_assert_eq(p[2], WB_RGBA_B(col));
                } else if (p[3] != 0) {
                    partial++;
                }
            }
        cr_assert_eq(full, 400, "S=%d: %d full pixels", S, full);
        cr_assert_eq(partial, 0, "S=%d: %d partial pixels", S, partial);
        wb_meshbuf_free(&b);
        r3_free(&c);
    }
}

/* Point-in-convex-polygon for a counter-clockwise-on-screen or clockwise
 * polygon: signed distances to every edge, the smallest one returned
 * (positive inside, in px). */
static double inside_dist(const float (*v)[2], int n, double x, double y)
{
    double area = 0.0;
    for (int i = 0; i < n; i++) {
        const float *a = v[i], *b = v[(i + 1) % n];
        area += (double)a[0] * b[1] - (double)b[0] * a[1];
    }
    double sgn = area > 0 ? 1.0 : -1.0, best = INFINITY;
    for (int i = 0; i < n; i++) {
        const float *a = v[i], *b = v[(i + 1) % n];
        double ex = b[0] - a[0], ey = b[1] - a[1], l = sqrt(ex * ex + ey * ey);
        double d = sgn * (ex * (y - a[1]) - ey * (x - a[0])) / l;
        best = d < best ? d : best;
    }
    return best;
}

Test(raster3d, shared_edges_no_seam_no_double_blend)
{
    /* A tilted, receding grid of 12×12 cells (288 triangles), translucent:
     * with one sample per pixel every covered pixel holds the colour
     * blended exactly once, every pixel centre inside the outline is
     * covered, and none outside it. */
    R3 c;
    r3_init(&c, 160, 120, 1);
    WbMeshBuf b = {0};
    WbError err;
    const float ctr[3] = {0.0f, 0.0f, 0.0f};
    cr_assert_eq(wb_mesh3_plane(&b, ctr, 3.0f, 3.0f, 12, 12, &err), WB_OK);
    for (int i = 0; i < b.n_vertices; i++) {
        float *p = b.pos + 3 * i;
        float x = p[0], z = p[2];
        /* Rotate about y by 30° and tilt: still planar, so the outline is
         * the projected quad. */
        p[0] = 0.866f * x + 0.5f * z;
        p[2] = -0.5f * x + 0.866f * z;
        p[1] = 0.3f * p[2];
    }
    WbCamera cam = {.eye = {0.3, 2.5, 3.5}, .target = {0, 0, 0}, .up = {0, 1, 0},
                    .fov_y = 50.0, .near = 0.1, .far = 50.0};
    wb_raster3_begin(c.r, &cam, NULL, 0);
    uint32_t col = wb_rgba_premul(1.0, 0.5, 0.25, 0.5);   /* alpha 128 */
    WbMesh3 m = unlit_mesh(&b, col);
    wb_raster3_mesh(c.r, &m);
    r3_end(&c, NULL);
    /* The outline: the grid's four corners, projected. */
    float v[4][2], depth;
    const int corners[4] = {0, 12, 12 * 13 + 12, 12 * 13};
    for (int k = 0; k < 4; k++) {
        const float *p = b.pos + 3 * corners[k];
        double dp[3] = {p[0], p[1], p[2]};
        cr_assert(wb_raster3_project(c.r, dp, v[k], &depth));
    }
    int covered = 0;
    for (int y = 0; y < c.h; y++)
        for (int x = 0; x < c.w; x++) {
            const uint8_t *p = px(&c, x, y);
            double d = inside_dist((const float(*)[2])v, 4, x + 0.5, y + 0.5);
            if (p[3] != 0) {
                covered++;
                cr_assert_eq(p[3], 128, "pixel %d,%d alpha %d: blended twice?", x, y, p[3]);
                cr_assert_eq(p[0], 255);
                cr_assert_eq(p[1], 128);
                cr_assert(d > -0.01, "pixel %d,%d covered %g px outside", x, y, -d);
            } else {
                cr_assert(d < 0.01, "pixel %d,%d uncovered %g px inside: a seam", x, y, d);
            }
        }
    cr_assert_gt(covered, 2000);
    wb_meshbuf_free(&b);
    r3_free(&c);
}

Test(raster3d, nearer_wins_regardless_of_order)
{
    WbImage imgs[2];
    for (int order = 0; order < 2; order++) {
        R3 c;
        r3_init(&c, 80, 60, 4);
        WbMeshBuf far = {0}, near = {0};
        quad(&far, -2.0f, -2.0f, 2.0f, 2.0f, 0.0f);
        quad(&near, -1.0f, -1.0f, 1.0f, 1.0f, 0.5f);
        WbCamera cam = front_camera();
        wb_raster3_begin(c.r, &cam, NULL, wb_rgba_premul(0, 0, 0, 1));
        WbMesh3 mf = unlit_mesh(&far, wb_rgba_premul(1, 0, 0, 1));
        WbMesh3 mn = unlit_mesh(&near, wb_rgba_premul(0, 1, 0, 1));
        wb_raster3_mesh(c.r, order ? &mn : &mf);
        wb_raster3_mesh(c.r, order ? &mf : &mn);
        r3_end(&c, NULL);
        const uint8_t *centre = px(&c, 40, 30), *ring = px(&c, 40, 30 + 9);
        cr_assert_eq(centre[1], 255, "order %d: far quad drawn over the near one", order);
        cr_assert_eq(centre[0], 0);
        cr_assert_eq(ring[0], 255);
        imgs[order] = c.img;
        c.img.px = NULL;
        wb_raster3_destroy(c.r);
        wb_meshbuf_free(&far);
        wb_meshbuf_free(&near);
    }
    cr_assert(memcmp(imgs[0].px, imgs[1].px, (size_t)imgs[0].stride * 60) == 0);
    wb_image_free(&imgs[0]);
    wb_image_free(&imgs[1]);
}

/* A checker texture: `n`×`n` texels, squares of `cell` texels. */
static void checker(WbTexture *t, int n, int cell)
{
    WbImage img;
    WbError err;
    cr_assert_eq(wb_image_alloc(&img, n, n, &err), WB_OK);
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++) {
            uint8_t *p = wb_image_row(&img, y) + 4 * x;
            int on = ((x / cell) + (y / cell)) & 1;
            p[0] = on ? 240 : 20;
            p[1] = on ? 200 : 40;
            p[2] = on ? 30 : 160;
            p[3] = 255;
        }
    cr_assert_eq(wb_texture_from_image(t, &img, &err), WB_OK);
    wb_image_free(&img);
}

/* Where the ray through pixel centre (x+0.5, y+0.5) meets the plane
 * y = 0; false when it does not (above the horizon or behind). */
static bool ray_floor(const WbCamera *cam, int w, int h, int x, int y, double hit[3])
{
    double f[3], s[3], u[3];
    for (int k = 0; k < 3; k++)
        f[k] = cam->target[k] - cam->eye[k];
    double l = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (int k = 0; k < 3; k++)
        f[k] /= l;
    s[0] = f[1] * cam->up[2] - f[2] * cam->up[1];
    s[1] = f[2] * cam->up[0] - f[0] * cam->up[2];
    s[2] = f[0] * cam->up[1] - f[1] * cam->up[0];
    l = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    for (int k = 0; k < 3; k++)
        s[k] /= l;
    u[0] = s[1] * f[2] - s[2] * f[1];
    u[1] = s[2] * f[0] - s[0] * f[2];
    u[2] = s[0] * f[1] - s[1] * f[0];
    double t = tan(0.5 * cam->fov_y * M_PI / 180.0), aspect = (double)w / h;
    double xn = 2.0 * (x + 0.5) / w - 1.0, yn = 1.0 - 2.0 * (y + 0.5) / h;
    double d[3];
    for (int k = 0; k < 3; k++)
        d[k] = f[k] + s[k] * xn * t * aspect + u[k] * yn * t;
    if (!(d[1] < 0.0))
        return false;
    double a = -cam->eye[1] / d[1];
    for (int k = 0; k < 3; k++)
        hit[k] = cam->eye[k] + a * d[k];
    return true;
}

/* Draw a floor (y = 0, x ∈ [−10, 10], z ∈ [z0, z1]) as ONE quad with a
 * checker texture and compare every pixel whose centre lands well inside
 * a square with the texel the ray hits; returns the number compared. */
static int check_floor(const WbCamera *cam, float z0, float z1, int *mismatch)
{
    const int W = 160, H = 100, N = 256, CELL = 32;
    R3 c;
    r3_init(&c, W, H, 4);
    WbTexture tex;
    checker(&tex, N, CELL);
    WbMeshBuf b = {0};
    WbError err;
    const float ctr[3] = {0.0f, 0.0f, 0.5f * (z0 + z1)};
    cr_assert_eq(wb_mesh3_plane(&b, ctr, 20.0f, z1 - z0, 1, 1, &err), WB_OK);
    WbMaterial mat = wb_material_default();
    mat.unlit = true;
    WbMesh3 m = {.n_vertices = b.n_vertices, .pos = b.pos, .normal = b.normal, .indices = b.idx,
                 .n_triangles = b.n_triangles, .paint = WB_PAINT_TEXTURE, .texture = &tex,
                 .uv = b.uv, .to_texel = {(float)N, (float)N, 0.0f, 0.0f}, .material = mat,
                 .opacity = 1.0f};
    wb_raster3_begin(c.r, cam, NULL, 0);
    wb_raster3_mesh(c.r, &m);
    r3_end(&c, NULL);
    int compared = 0;
    *mismatch = 0;
    for (int y = 1; y + 1 < H; y++)
        for (int x = 1; x + 1 < W; x++) {
            const uint8_t *p = px(&c, x, y);
            /* Interior pixels only: the four neighbours' rays hit the
             * floor too (the silhouette is antialiased, not textured). */
            double hit[3], u = 0.0, v = 0.0;
            bool inside = true;
            const int nb[5][2] = {{0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1}};
            for (int k = 0; k < 5 && inside; k++) {
                inside = ray_floor(cam, W, H, x + nb[k][0], y + nb[k][1], hit);
                double hu = (hit[0] + 10.0) / 20.0 * N, hv = (hit[2] - z0) / (z1 - z0) * N;
                inside = inside && hu >= 0 && hu < N && hv >= 0 && hv < N;
                if (k == 0)
                    u = hu, v = hv;
            }
            if (!inside)
                continue;
            /* Well inside a square: 1.5 texels from its borders, so bilinear
             * filtering returns the square's colour exactly. */
            double fu = fmod(u, CELL), fv = fmod(v, CELL);
            if (fu < 1.5 || fu > CELL - 1.5 || fv < 1.5 || fv > CELL - 1.5)
                continue;
            int on = (((int)u / CELL) + ((int)v / CELL)) & 1;
            compared++;
            if (p[3] != 255 || p[0] != (on ? 240 : 20) || p[2] != (on ? 30 : 160)) {
                (*mismatch)++;
                if (getenv("R3DEBUG"))
                    fprintf(stderr, "px %d,%d u %.3f v %.3f got %d,%d,%d,%d\n", x, y, u, v, p[0], p[1], p[2], p[3]);
            }
        }
    wb_texture_free(&tex);
    wb_meshbuf_free(&b);
    r3_free(&c);
    return compared;
}

Test(raster3d, perspective_correct_texture)
{
    /* A floor receding to z = −40 seen from 1.2 above: one quad spans a
     * depth ratio of ~20, where affine interpolation misplaces squares by
     * many pixels. */
    WbCamera cam = {.eye = {0.3, 1.2, 2.0}, .target = {0, 0.2, -10}, .up = {0, 1, 0},
                    .fov_y = 60.0, .near = 0.05, .far = 100.0};
    int bad, n = check_floor(&cam, -40.0f, 1.5f, &bad);
    cr_assert_gt(n, 2000, "only %d pixels compared", n);
    cr_assert_eq(bad, 0, "%d of %d pixels show the wrong square", bad, n);
}

Test(raster3d, near_plane_clipping_floor_under_camera)
{
    /* The floor passes under and behind the camera (z up to +30 with the
     * eye at z = 2): its quad crosses the near plane and must be clipped,
     * not mirrored or exploded. */
    WbCamera cam = {.eye = {0.0, 1.0, 2.0}, .target = {0.2, 0.6, -10}, .up = {0, 1, 0},
                    .fov_y = 70.0, .near = 0.05, .far = 100.0};
    int bad, n = check_floor(&cam, -30.0f, 30.0f, &bad);
    cr_assert_gt(n, 3000, "only %d pixels compared", n);
    cr_assert_eq(bad, 0, "%d of %d pixels show the wrong square", bad, n);
}

Test(raster3d, cull_back_agrees_with_winding)
{
    /* A closed opaque sphere and torus look the same with and without
     * back-face culling: culling removes only hidden triangles.  Seen from
     * inside (camera at the centre), the culled sphere is invisible. */
    WbMeshBuf b = {0};
    WbError err;
    cr_assert_eq(wb_mesh3_sphere(&b, (const float[3]){-0.8f, 0.0f, 0.0f}, 0.7f, 24, 12, &err), WB_OK);
    cr_assert_eq(wb_mesh3_torus(&b, (const float[3]){0.9f, 0.0f, 0.0f}, 0.6f, 0.25f, 24, 12, &err), WB_OK);
    WbCamera cam = wb_camera_orbit((const double[3]){0, 0, 0}, 25.0, 30.0, 4.0);
    WbImage out[2];
    for (int cull = 0; cull < 2; cull++) {
        R3 c;
        r3_init(&c, 96, 64, 4);
        wb_raster3_begin(c.r, &cam, NULL, 0);
        WbMesh3 m = {.n_vertices = b.n_vertices, .pos = b.pos, .normal = b.normal,
                     .indices = b.idx, .n_triangles = b.n_triangles, .paint = WB_PAINT_COLOR,
                     .color = wb_rgba_premul(0.7, 0.7, 0.7, 1), .material = wb_material_default(),
                     .opacity = 1.0f, .cull_back = cull};
        wb_raster3_mesh(c.r, &m);
        r3_end(&c, NULL);
        out[cull] = c.img;
        c.img.px = NULL;
        wb_raster3_destroy(c.r);
    }
    cr_assert(memcmp(out[0].px, out[1].px, (size_t)out[0].stride * 64) == 0);
    int drawn = 0;
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 96; x++)
            drawn += wb_image_row(&out[0], y)[4 * x + 3] != 0;
    cr_assert_gt(drawn, 500);
    wb_image_free(&out[0]);
    wb_image_free(&out[1]);

    R3 c;
    r3_init(&c, 48, 32, 1);
    WbCamera inside = {.eye = {-0.8, 0, 0}, .target = {-0.8, 0, -1}, .up = {0, 1, 0},
                       .fov_y = 60.0, .near = 0.01, .far = 10.0};
    wb_raster3_begin(c.r, &inside, NULL, 0);
    WbMesh3 m = unlit_mesh(&b, wb_rgba_premul(1, 1, 1, 1));
    m.n_triangles = 2 * 24 * 11;   /* the sphere only */
    m.cull_back = true;
    wb_raster3_mesh(c.r, &m);
    r3_end(&c, NULL);
    for (int y = 0; y < 32; y++)
        for (int x = 0; x < 48; x++)
            cr_assert_eq(px(&c, x, y)[3], 0);
    m.cull_back = false;
    wb_raster3_begin(c.r, &inside, NULL, 0);
    wb_raster3_mesh(c.r, &m);
    r3_end(&c, NULL);
    cr_assert_eq(px(&c, 24, 16)[3], 255);
    r3_free(&c);
    wb_meshbuf_free(&b);
}

Test(raster3d, two_sided_back_tint_and_lighting)
{
    /* A sheet facing +y seen from below: two-sided it shows the back tint
     * (blue here), one-sided it shows the front colours. */
    WbMeshBuf b = {0};
    WbError err;
    cr_assert_eq(wb_mesh3_plane(&b, (const float[3]){0, 0, 0}, 4.0f, 4.0f, 2, 2, &err), WB_OK);
    WbCamera below = {.eye = {0, -3, 0.01}, .target = {0, 0, 0}, .up = {0, 1, 0}, .fov_y = 60.0,
                      .near = 0.1, .far = 10.0};
    WbLighting light = {.key = {.dir = {0, -1, 0}, .color = {1, 1, 1}}, .sky = {0, 0, 0},
                        .ground = {0, 0, 0}};
    uint8_t got[2][4];
    for (int two = 0; two < 2; two++) {
        R3 c;
        r3_init(&c, 32, 32, 1);
        wb_raster3_begin(c.r, &below, &light, 0);
        WbMesh3 m = {.n_vertices = b.n_vertices, .pos = b.pos, .normal = b.normal,
                     .indices = b.idx, .n_triangles = b.n_triangles, .paint = WB_PAINT_COLOR,
                     .color = wb_rgba_premul(1, 1, 1, 1), .material = wb_material_default(),
                     .opacity = 1.0f};
        m.material.specular = 0.0f;
        m.material.diffuse = 1.0f;
        m.material.two_sided = two;
        m.material.back_tint[0] = 0.0f;
        m.material.back_tint[1] = 0.0f;
        wb_raster3_mesh(c.r, &m);
        r3_end(&c, NULL);
        memcpy(got[two], px(&c, 16, 16), 4);
        r3_free(&c);
    }
    /* One-sided: lit by its own normal +y, which faces away from a light
     * shining from below: black.  Two-sided: the flipped normal −y faces
     * the light fully, tinted blue. */
    cr_assert_eq(got[0][3], 255);
    cr_assert_eq(got[0][0] + got[0][1] + got[0][2], 0);
    cr_assert_eq(got[1][0], 0);
    cr_assert_eq(got[1][1], 0);
    cr_assert_geq(got[1][2], 250);
    wb_meshbuf_free(&b);
}

Test(raster3d, transparent_background_survives)
{
    R3 c;
    r3_init(&c, 64, 64, 4);
    WbMeshBuf b = {0};
    WbError err;
    cr_assert_eq(wb_mesh3_sphere(&b, (const float[3]){0, 0, 0}, 1.0f, 32, 16, &err), WB_OK);
    WbCamera cam = wb_camera_orbit((const double[3]){0, 0, 0}, 0.0, 0.0, 5.0);
    wb_raster3_begin(c.r, &cam, NULL, 0);
    WbMesh3 m = unlit_mesh(&b, wb_rgba_premul(0.8, 0.4, 0.2, 1.0));
    m.cull_back = true;
    wb_raster3_mesh(c.r, &m);
    r3_end(&c, NULL);
    int edge = 0;
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++) {
            const uint8_t *p = px(&c, x, y);
            if (p[3] == 0)
                continue;
            /* Straight colour is the paint's even at antialiased edges. */
            cr_assert(abs(p[0] - 204) <= 1 && abs(p[1] - 102) <= 1 && abs(p[2] - 51) <= 1,
                      "pixel %d,%d = %d,%d,%d,%d", x, y, p[0], p[1], p[2], p[3]);
            edge += p[3] < 255;
        }
    cr_assert_gt(edge, 20);
    cr_assert_eq(px(&c, 0, 0)[3], 0);
    cr_assert_eq(px(&c, 32, 32)[3], 255);
    wb_meshbuf_free(&b);
    r3_free(&c);
}

/* A busy scene: lit sphere, textured floor crossing the near plane,
 * two-sided sheet, translucent torus, on_top marker, facet-lit box. */
static void busy_scene(WbRaster3 *r, WbMeshBuf *b, WbTexture *tex)
{
    WbError err;
    wb_meshbuf_clear(&b[0]);
    wb_mesh3_sphere(&b[0], (const float[3]){0, 0.8f, 0}, 0.8f, 40, 20, &err);
    wb_mesh3_plane(&b[1], (const float[3]){0, 0, 0}, 30.0f, 30.0f, 6, 6, &err);
    wb_mesh3_torus(&b[2], (const float[3]){1.2f, 0.6f, 0.5f}, 0.6f, 0.2f, 32, 12, &err);
    wb_mesh3_box(&b[3], (const float[3]){-2.0f, 0, -1.0f}, (const float[3]){-1.2f, 0.8f, -0.3f}, &err);
    WbCamera cam = {.eye = {0.5, 1.6, 4.0}, .target = {0, 0.6, 0}, .up = {0, 1, 0},
                    .fov_y = 45.0, .near = 0.05, .far = 100.0};
    wb_raster3_begin(r, &cam, NULL, wb_rgba_premul(0.2, 0.3, 0.4, 1));
    WbMaterial mat = wb_material_default();
    WbMesh3 m = {.n_vertices = b[0].n_vertices, .pos = b[0].pos, .normal = b[0].normal,
                 .indices = b[0].idx, .n_triangles = b[0].n_triangles, .paint = WB_PAINT_COLOR,
                 .color = wb_rgba_premul(0.8, 0.3, 0.2, 1), .material = mat, .opacity = 1.0f,
                 .cull_back = true};
    wb_raster3_mesh(r, &m);
    WbMesh3 fl = {.n_vertices = b[1].n_vertices, .pos = b[1].pos, .normal = b[1].normal,
                  .indices = b[1].idx, .n_triangles = b[1].n_triangles, .paint = WB_PAINT_TEXTURE,
                  .texture = tex, .uv = b[1].uv, .to_texel = {256, 256, 0, 0}, .material = mat,
                  .opacity = 1.0f};
    wb_raster3_mesh(r, &fl);
    WbMesh3 t = m;
    t.n_vertices = b[2].n_vertices, t.pos = b[2].pos, t.normal = b[2].normal;
    t.indices = b[2].idx, t.n_triangles = b[2].n_triangles;
    t.opacity = 0.6f;
    t.color = wb_rgba_premul(0.2, 0.5, 0.9, 1);
    wb_raster3_mesh(r, &t);
    WbMesh3 bx = m;
    bx.n_vertices = b[3].n_vertices, bx.pos = b[3].pos, bx.normal = NULL;
    bx.indices = b[3].idx, bx.n_triangles = b[3].n_triangles;
    bx.material.two_sided = true;
    wb_raster3_mesh(r, &bx);
    WbMesh3 top = t;
    top.on_top = true;
    top.opacity = 1.0f;
    top.n_triangles = 40;
    wb_raster3_mesh(r, &top);
}

Test(raster3d, bit_identical_across_threads)
{
    WbTexture tex;
    checker(&tex, 256, 16);
    WbMeshBuf b[4] = {{0}};
    WbImage img[2];
    WbError err;
    for (int k = 0; k < 2; k++) {
        WbPool *pool = NULL;
        cr_assert_eq(wb_pool_create(&pool, k + 1, &err), WB_OK);
        R3 c;
        r3_init(&c, 200, 150, 4);
        for (int i = 0; i < 4; i++)
            wb_meshbuf_clear(&b[i]);
        busy_scene(c.r, b, &tex);
        r3_end(&c, pool);
        img[k] = c.img;
        c.img.px = NULL;
        wb_raster3_destroy(c.r);
        wb_pool_destroy(pool);
    }
    cr_assert(memcmp(img[0].px, img[1].px, (size_t)img[0].stride * 150) == 0);
    /* Not trivially empty. */
    int colours = 0;
    uint32_t prev = 0;
    for (int i = 0; i < 200 * 150; i++) {
        uint32_t v;
        memcpy(&v, img[0].px + 4 * i, 4);
        colours += v != prev;
        prev = v;
    }
    cr_assert_gt(colours, 1000);
    for (int i = 0; i < 4; i++)
        wb_meshbuf_free(&b[i]);
    wb_texture_free(&tex);
    wb_image_free(&img[0]);
    wb_image_free(&img[1]);
}

Test(raster3d, project_lands_on_drawn_pixel)
{
    /* A small triangle around each of a few world points: the pixel that
     * wb_raster3_project names is covered, and every covered pixel lies
     * within the projected vertices' box. */
    R3 c;
    r3_init(&c, 120, 90, 16);
    WbCamera cam = wb_camera_orbit((const double[3]){0.2, 0.1, -0.3}, 35.0, 20.0, 3.0);
    const double pts[3][3] = {{0, 0, 0}, {0.5, 0.3, -0.2}, {-0.6, -0.2, 0.4}};
    for (int i = 0; i < 3; i++) {
        float pos[9];
        for (int k = 0; k < 3; k++) {
            pos[k] = (float)pts[i][k];
        }
        /* A triangle with a vertex at the point, in the camera's view. */
        pos[3] = pos[0] + 0.04f, pos[4] = pos[1], pos[5] = pos[2];
        pos[6] = pos[0], pos[7] = pos[1] + 0.04f, pos[8] = pos[2];
        const uint32_t idx[3] = {0, 1, 2};
        WbMaterial mat = wb_material_default();
        mat.unlit = true;
        WbMesh3 m = {.n_vertices = 3, .pos = pos, .indices = idx, .n_triangles = 1,
                     .paint = WB_PAINT_COLOR, .color = wb_rgba_premul(1, 1, 1, 1),
                     .material = mat, .opacity = 1.0f};
        wb_raster3_begin(c.r, &cam, NULL, 0);
        wb_raster3_mesh(c.r, &m);
        r3_end(&c, NULL);
        float v[3][2], depth;
        for (int k = 0; k < 3; k++) {
            const double p[3] = {pos[3 * k], pos[3 * k + 1], pos[3 * k + 2]};
            cr_assert(wb_raster3_project(c.r, p, v[k], &depth));
            cr_assert_gt(depth, 0.0f);
        }
        /* Slightly inside the triangle from its first vertex. */
        float gx = (v[0][0] + v[1][0] + v[2][0]) / 3.0f, gy = (v[0][1] + v[1][1] + v[2][1]) / 3.0f;
        float sx = v[0][0] + 0.05f * (gx - v[0][0]), sy = v[0][1] + 0.05f * (gy - v[0][1]);
        cr_assert_gt(px(&c, (int)sx, (int)sy)[3], 0, "point %d: pixel %d,%d not drawn", i,
                     (int)sx, (int)sy);
        float x0 = fminf(v[0][0], fminf(v[1][0], v[2][0])), x1 = fmaxf(v[0][0], fmaxf(v[1][0], v[2][0]));
        float y0 = fminf(v[0][1], fminf(v[1][1], v[2][1])), y1 = fmaxf(v[0][1], fmaxf(v[1][1], v[2][1]));
        for (int y = 0; y < c.h; y++)
            for (int x = 0; x < c.w; x++)
                if (px(&c, x, y)[3])
                    cr_assert(x + 1 > x0 && x < x1 && y + 1 > y0 && y < y1,
                              "pixel %d,%d outside the projected triangle", x, y);
    }
    /* Behind the camera: false. */
    float p2[2], d;
    const double behind[3] = {cam.eye[0] + (cam.eye[0] - cam.target[0]),
                              cam.eye[1] + (cam.eye[1] - cam.target[1]),
                              cam.eye[2] + (cam.eye[2] - cam.target[2])};
    cr_assert(!wb_raster3_project(c.r, behind, p2, &d));
    /* The target lands on the image centre at its distance. */
    cr_assert(wb_raster3_project(c.r, cam.target, p2, &d));
    cr_assert_float_eq(p2[0], 60.0f, 1e-3);
    cr_assert_float_eq(p2[1], 45.0f, 1e-3);
    cr_assert_float_eq(d, 3.0f, 1e-5);
    r3_free(&c);
}

Test(raster3d, bad_arguments)
{
    WbRaster3 *r = (WbRaster3 *)1;
    WbError err;
    cr_assert_eq(wb_raster3_create(&r, 0, 10, 4, &err), WB_E_INPUT);
    cr_assert_null(r);
    cr_assert_eq(wb_raster3_create(&r, 10, 10, 3, &err), WB_E_INPUT);
    wb_raster3_destroy(NULL);
}

/* One frame of a lit sphere (vertex normals, back faces culled) and a
 * facet-lit box (no normals) seen from the front, with `extra` meshes
 * recorded first that draw nothing (behind the camera or culled). */
static void small_scene(WbRaster3 *r, WbMeshBuf *b, int extra)
{
    WbError err;
    for (int i = 0; i < 4; i++)
        wb_meshbuf_clear(&b[i]);
    cr_assert_eq(wb_mesh3_sphere(&b[0], (const float[3]){-1.0f, 0, 0}, 1.0f, 24, 12, &err), WB_OK);
    cr_assert_eq(wb_mesh3_box(&b[1], (const float[3]){0.6f, -0.7f, -0.5f},
                              (const float[3]){1.8f, 0.7f, 0.5f}, &err), WB_OK);
    /* Behind the camera (z > 5), and a sphere far off to the side. */
    cr_assert_eq(wb_mesh3_sphere(&b[2], (const float[3]){0, 0, 9.0f}, 1.0f, 16, 8, &err), WB_OK);
    cr_assert_eq(wb_mesh3_sphere(&b[3], (const float[3]){60.0f, 0, 0}, 1.0f, 16, 8, &err), WB_OK);
    WbCamera cam = front_camera();
    wb_raster3_begin(r, &cam, NULL, wb_rgba_premul(0.1, 0.1, 0.12, 1));
    WbMaterial mat = wb_material_default();
    for (int i = 0; i < extra; i++) {
        WbMesh3 x = {.n_vertices = b[2 + i].n_vertices, .pos = b[2 + i].pos,
                     .normal = b[2 + i].normal, .indices = b[2 + i].idx,
                     .n_triangles = b[2 + i].n_triangles, .paint = WB_PAINT_COLOR,
                     .color = wb_rgba_premul(1, 1, 0, 1), .material = mat, .opacity = 1.0f};
        wb_raster3_mesh(r, &x);
    }
    WbMesh3 s = {.n_vertices = b[0].n_vertices, .pos = b[0].pos, .normal = b[0].normal,
                 .indices = b[0].idx, .n_triangles = b[0].n_triangles, .paint = WB_PAINT_COLOR,
                 .color = wb_rgba_premul(0.8, 0.3, 0.2, 1), .material = mat, .opacity = 1.0f,
                 .cull_back = true};
    wb_raster3_mesh(r, &s);
    WbMesh3 bx = s;
    bx.n_vertices = b[1].n_vertices, bx.pos = b[1].pos, bx.normal = NULL;
    bx.indices = b[1].idx, bx.n_triangles = b[1].n_triangles;
    bx.color = wb_rgba_premul(0.3, 0.7, 0.4, 1);
    wb_raster3_mesh(r, &bx);
}

/* Only the vertices (and facets) of triangles that are drawn get lit:
 * meshes recorded before that draw nothing shift every later mesh's
 * records and must change no pixel; and a raster that drew a busy frame
 * must leave no trace in the next one (its band buffers are cleaned span
 * by span while resolving). */
Test(raster3d, lit_records_and_clean_buffers_across_frames)
{
    WbMeshBuf b[4] = {{0}};
    WbTexture tex;
    checker(&tex, 256, 16);
    R3 fresh, extra, reused;
    r3_init(&fresh, 160, 120, 4);
    r3_init(&extra, 160, 120, 4);
    r3_init(&reused, 160, 120, 4);
    small_scene(fresh.r, b, 0);
    r3_end(&fresh, NULL);
    small_scene(extra.r, b, 2);
    r3_end(&extra, NULL);
    WbMeshBuf busy[4] = {{0}};
    busy_scene(reused.r, busy, &tex);
    r3_end(&reused, NULL);
    small_scene(reused.r, b, 0);
    r3_end(&reused, NULL);
    const size_t n = (size_t)fresh.img.stride * 120;
    cr_assert(memcmp(fresh.img.px, extra.img.px, n) == 0);
    cr_assert(memcmp(fresh.img.px, reused.img.px, n) == 0);
    /* Both shapes are there and lit: the sphere's centre is brighter than
     * its rim, the box's front face differs from the background. */
    const uint8_t *bg = px(&fresh, 2, 2), *ctr = px(&fresh, 80 - 12, 60), *box = px(&fresh, 94, 60);
    cr_assert_neq(memcmp(ctr, bg, 3), 0);
    cr_assert_neq(memcmp(box, bg, 3), 0);
    cr_assert_neq(memcmp(box, ctr, 3), 0);
    for (int i = 0; i < 4; i++) {
        wb_meshbuf_free(&b[i]);
        wb_meshbuf_free(&busy[i]);
    }
    wb_texture_free(&tex);
    r3_free(&fresh);
    r3_free(&extra);
    r3_free(&reused);
}

/* A 2×2 grid of n×n cells facing the camera (front_camera: the square
 * [40, 60)² px of a 100×100 frame), one premultiplied vertex colour. */
static void facing_grid(WbMeshBuf *b, int n, const float rgba[4], float **colours)
{
    WbError err;
    const float c[3] = {0, 0, 0};
    cr_assert_eq(wb_mesh3_plane(b, c, 2.0f, 2.0f, n, n, &err), WB_OK);
    /* Rotate the plane y = 0 (normal +y) by 90° about x: (x, y, z) →
     * (x, −z, y), a rotation, so the winding faces +z. */
    for (int i = 0; i < b->n_vertices; i++) {
        float *p = b->pos + 3 * i;
        float z = p[2];
        p[2] = p[1];
        p[1] = -z;
    }
    *colours = malloc(sizeof **colours * 4 * (size_t)b->n_vertices);
    cr_assert_not_null(*colours);
    for (int i = 0; i < b->n_vertices; i++)
        memcpy(*colours + 4 * i, rgba, 4 * sizeof *rgba);
}

Test(raster3d, tiny_triangles_four_samples_no_seam_no_double_blend)
{
    /* The 4-sample path for small triangles (cells of 0.8 and 2.9 px,
     * interpolated colours, translucent): inside the square every pixel
     * is the colour blended exactly once over the black background,
     * 0.4·0.6·255 = 61.2 → 61, the same as the square drawn as two large
     * triangles. A gap would leave less, a sample drawn twice more. */
    const float rgba[4] = {0.4f, 0.4f, 0.4f, 1.0f};
    const int cells[3] = {1, 7, 24};
    WbImage ref = {0};
    for (int g = 0; g < 3; g++) {
        R3 c;
        r3_init(&c, 100, 100, 4);
        WbMeshBuf b = {0};
        float *colours;
        facing_grid(&b, cells[g], rgba, &colours);
        WbCamera cam = front_camera();
        wb_raster3_begin(c.r, &cam, NULL, wb_rgba_premul(0, 0, 0, 1));
        WbMaterial mat = wb_material_default();
        mat.unlit = true;
        WbMesh3 m = {.n_vertices = b.n_vertices, .pos = b.pos, .indices = b.idx,
                     .n_triangles = b.n_triangles, .paint = WB_PAINT_VERTEX_COLOR,
                     .rgba = colours, .material = mat, .opacity = 0.6f};
        wb_raster3_mesh(c.r, &m);
        r3_end(&c, NULL);
        for (int y = 41; y < 59; y++)
            for (int x = 41; x < 59; x++) {
                const uint8_t *p = px(&c, x, y);
                cr_assert(p[0] == 61 && p[1] == 61 && p[2] == 61 && p[3] == 255,
                          "%d cells: pixel %d,%d is %d,%d,%d,%d", cells[g], x, y, p[0], p[1],
                          p[2], p[3]);
            }
        if (g == 0) {
            WbError err;
            cr_assert_eq(wb_image_alloc(&ref, 100, 100, &err), WB_OK);
            memcpy(ref.px, c.img.px, (size_t)c.img.stride * 100);
        } else {
            /* outside the square and on its border too: the same bytes */
            for (int y = 0; y < 100; y++)
                cr_assert(memcmp(wb_image_row(&ref, y), wb_image_row(&c.img, y), 400) == 0,
                          "%d cells: row %d differs from the two-triangle square", cells[g], y);
        }
        free(colours);
        wb_meshbuf_free(&b);
        r3_free(&c);
    }
    wb_image_free(&ref);
}

Test(raster3d, thin_tall_triangles_no_seam_no_double_blend)
{
    /* A rectangle 96 px wide cut into a sliver along its left side and
     * two wide triangles, translucent, 4 samples: inside it every pixel is
     * the colour blended exactly once over black, whichever walk each
     * triangle takes.  At 800 px tall the sliver (12 px wide) is tested
     * pixel by pixel in int32; at 4000 px (40 px wide) its edge values
     * would overflow int32, so it must be solved row by row in int64.  A
     * wrong mask (an overflowed edge value, for one) leaves a seam or a
     * double blend along the sliver's long edge. */
    const int heights[2] = {800, 4000}, sliver[2] = {12, 40};
    for (int g = 0; g < 2; g++) {
        const int w = 200, h = heights[g];
        R3 c;
        r3_init(&c, w, h, 4);
        /* front_camera: at z = 0 one world unit is h/10 px */
        const float k = (float)h / 10.0f;
        const float X[5] = {52, (float)(52 + sliver[g]), 148, 148, 52};
        const float Y[5] = {40, 40, 40, (float)(h - 40), (float)(h - 40)};
        float pos[15], nrm[15];
        for (int v = 0; v < 5; v++) {
            pos[3 * v] = (X[v] - 0.5f * (float)w) / k;
            pos[3 * v + 1] = (0.5f * (float)h - Y[v]) / k;
            pos[3 * v + 2] = 0.0f;
            nrm[3 * v] = nrm[3 * v + 1] = 0.0f;
            nrm[3 * v + 2] = 1.0f;
        }
        /* the sliver 0-4-1, then 1-4-3 and 1-3-2 */
        const uint32_t idx[9] = {0, 4, 1, 1, 4, 3, 1, 3, 2};
        WbMaterial mat = wb_material_default();
        mat.unlit = true;
        WbMesh3 m = {.n_vertices = 5, .pos = pos, .normal = nrm, .indices = idx,
                     .n_triangles = 3, .paint = WB_PAINT_COLOR,
                     .color = wb_rgba_premul(1.0, 0.5, 0.25, 0.5), .material = mat,
                     .opacity = 1.0f};
        WbCamera cam = front_camera();
        wb_raster3_begin(c.r, &cam, NULL, wb_rgba_premul(0, 0, 0, 1));
        wb_raster3_mesh(c.r, &m);
        r3_end(&c, NULL);
        const uint8_t *want = px(&c, 100, h / 2);
        cr_assert(want[0] > 100 && want[3] == 255, "%d px: the inside is %d,%d,%d,%d", h,
                  want[0], want[1], want[2], want[3]);
        for (int y = 42; y < h - 42; y++)
            for (int x = 54; x < 146; x++) {
                const uint8_t *p = px(&c, x, y);
                cr_assert(memcmp(p, want, 4) == 0, "%d px: pixel %d,%d is %d,%d,%d,%d", h, x, y,
                          p[0], p[1], p[2], p[3]);
            }
        r3_free(&c);
    }
}

Test(raster3d, opaque_edge_pixels_resolve_to_the_rounded_mean)
{
    /* Two opaque squares meeting at x = 50.3 px: the pixels of column 50
     * hold k samples of the left colour and 4 − k of the right one, and
     * resolve to ⌊(k·A + (4 − k)·B + 2) / 4⌋ per channel with the same k
     * in every channel and row (1 ≤ k ≤ 3), alpha 255. */
    R3 c;
    r3_init(&c, 100, 100, 4);
    WbMeshBuf left = {0}, right = {0};
    quad(&left, -1.0f, -1.0f, 0.03f, 1.0f, 0.0f);
    quad(&right, 0.03f, -1.0f, 1.0f, 1.0f, 0.0f);
    WbCamera cam = front_camera();
    wb_raster3_begin(c.r, &cam, NULL, wb_rgba_premul(0, 0, 0, 1));
    const uint8_t A[3] = {200, 40, 10}, B[3] = {20, 180, 250};
    WbMesh3 ml = unlit_mesh(&left, WB_RGBA(A[0], A[1], A[2], 255));
    WbMesh3 mr = unlit_mesh(&right, WB_RGBA(B[0], B[1], B[2], 255));
    wb_raster3_mesh(c.r, &ml);
    wb_raster3_mesh(c.r, &mr);
    r3_end(&c, NULL);
    int k_seen = -1;
    for (int y = 42; y < 58; y++) {
        const uint8_t *p = px(&c, 50, y);
        int k_px = -1;
        for (int k = 1; k <= 3 && k_px < 0; k++) {
            bool all = true;
            for (int ch = 0; ch < 3; ch++)
                all &= p[ch] == (k * A[ch] + (4 - k) * B[ch] + 2) / 4;
            if (all)
                k_px = k;
        }
        cr_assert(k_px > 0, "pixel 50,%d = %d,%d,%d is no mean of k samples", y, p[0], p[1], p[2]);
        cr_assert_eq(p[3], 255);
        cr_assert(k_seen < 0 || k_seen == k_px, "row %d: k %d, earlier rows %d", y, k_px, k_seen);
        k_seen = k_px;
        /* and the neighbours are the plain colours */
        cr_assert(px(&c, 49, y)[0] == A[0] && px(&c, 51, y)[0] == B[0]);
    }
    wb_meshbuf_free(&left);
    wb_meshbuf_free(&right);
    r3_free(&c);
}

Test(raster3d, lit_vertex_colour_frames_pinned_bytes)
{
    /* A lit sphere over a floor plane that passes under the camera (near
     * plane clipping, wide triangles), vertex colours, 4 samples: culled
     * and opaque; two-sided with sheen and a back tint; translucent;
     * shininess below 1 on a transparent background.  The hashes are the
     * bytes of the one-triangle-at-a-time code (setup, lighting and
     * triangle setup without the eight-lane AVX2 versions), which every
     * build must reproduce: the lanes may change the speed, never a bit. */
    static const uint64_t want[4] = {0x62ebda0267898a0dull, 0x42c529302f6130b9ull,
                                     0xb8a7ba30dd2fd5e6ull, 0x203766391cbf0040ull};
    WbError err;
    WbMeshBuf mb = {0};
    const float c0[3] = {0, 0, 0}, c1[3] = {0.3f, -1.0f, 0};
    cr_assert_eq(wb_mesh3_sphere(&mb, c0, 1.0f, 96, 64, &err), WB_OK);
    cr_assert_eq(wb_mesh3_plane(&mb, c1, 6, 6, 30, 30, &err), WB_OK);
    float *rgba = malloc(sizeof *rgba * 4 * (size_t)mb.n_vertices);
    cr_assert_not_null(rgba);
    for (int i = 0; i < mb.n_vertices; i++) {
        const float a = 0.5f + 0.5f * (float)(i % 7) / 6.0f;
        rgba[4 * i] = a * (float)(i % 13) / 12.0f;
        rgba[4 * i + 1] = a * (float)(i % 5) / 4.0f;
        rgba[4 * i + 2] = a * (float)(i % 3) / 2.0f;
        rgba[4 * i + 3] = a;
    }
    R3 c;
    r3_init(&c, 640, 360, 4);
    for (int v = 0; v < 4; v++) {
        const double tgt[3] = {0, 0, 0};
        WbCamera cam = wb_camera_orbit(tgt, 20 + 40 * v, 15, 2.2 + v * 0.3);
        wb_raster3_begin(c.r, &cam, NULL, v == 3 ? 0 : wb_rgba_premul(0.1, 0.1, 0.2, 1));
        WbMesh3 m = {.n_vertices = mb.n_vertices, .pos = mb.pos, .normal = mb.normal,
                     .indices = mb.idx, .n_triangles = mb.n_triangles,
                     .paint = WB_PAINT_VERTEX_COLOR, .rgba = rgba,
                     .material = wb_material_default(), .opacity = v == 2 ? 0.6f : 1.0f,
                     .cull_back = v == 0};
        if (v == 1) {
            m.material.two_sided = true;
            m.material.sheen = 0.4f;
            m.material.back_tint[0] = 0.5f;
        }
        if (v == 3)
            m.material.shininess = 0.5f;
        wb_raster3_mesh(c.r, &m);
        r3_end(&c, NULL);
        cr_assert_eq(wb_image_hash(&c.img), want[v], "case %d: %016llx", v,
                     (unsigned long long)wb_image_hash(&c.img));
    }
    r3_free(&c);
    free(rgba);
    wb_meshbuf_free(&mb);
}
