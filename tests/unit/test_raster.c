/* Tests of the rasterizer core: coverage is exact (fill rule, no seams, no
 * double blending), antialiasing matches the analytic coverage, texture
 * sampling follows its stated conventions, shapes have their analytic
 * areas, motion is sub-pixel smooth, and the bytes do not depend on the
 * thread count. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/pool.h"
#include "render/raster.h"
#include "render/texture.h"

static const int AA[] = {1, 4, 8, 16};

/* Draw-and-resolve helper state. */
typedef struct Canvas {
    WbRaster r;
    WbImage img;
} Canvas;

static void canvas_init(Canvas *c, int w, int h, int samples)
{
    WbError err;
    cr_assert_eq(wb_raster_init(&c->r, w, h, samples, &err), WB_OK, "%s", err.msg);
    cr_assert_eq(wb_image_alloc(&c->img, w, h, &err), WB_OK);
    wb_raster_begin(&c->r, 0);
}

static void canvas_end(Canvas *c, WbPool *pool)
{
    WbError err;
    cr_assert_eq(wb_raster_end(&c->r, pool, &c->img, &err), WB_OK, "%s", err.msg);
}

static void canvas_free(Canvas *c)
{
    wb_raster_free(&c->r);
    wb_image_free(&c->img);
}

static const uint8_t *px_at(const Canvas *c, int x, int y)
{
    return wb_image_row(&c->img, y) + 4 * x;
}

/* The fixed-point snap the rasterizer applies (1/256 px, nearest). */
static long fix(double v)
{
    return (long)floor(v * 256.0 + 0.5);
}

/* Expected straight RGBA of a pixel with k of S samples holding premultiplied
 * colour col over transparent black (the resolve formula of raster.h). */
static void expect_resolve(uint32_t col, int k, int S, uint8_t out[4])
{
    unsigned sa = (unsigned)k * WB_RGBA_A(col);
    if (sa == 0) {
        memset(out, 0, 4);
        return;
    }
    unsigned ch[3] = {k * WB_RGBA_R(col), k * WB_RGBA_G(col), k * WB_RGBA_B(col)};
    for (int i = 0; i < 3; i++)
        out[i] = (uint8_t)((ch[i] * 255 + sa / 2) / sa);
    out[3] = (uint8_t)((sa + (unsigned)S / 2) / (unsigned)S);
}

/* Samples of pixel (px, py) inside the axis-aligned box [x0,x1)×[y0,y1) in
 * fixed point (left/top edges included: the top-left rule). */
static int samples_in_box(int S, int px, int py, long x0, long x1, long y0, long y1)
{
    int k = 0;
    for (int s = 0; s < S; s++) {
        int dx, dy;
        wb_raster_sample_offset(S, s, &dx, &dy);
        long sx = px * 256L + 128 + dx * 16, sy = py * 256L + 128 + dy * 16;
        k += sx >= x0 && sx < x1 && sy >= y0 && sy < y1;
    }
    return k;
}

/* A (n+1)² grid over the box with jittered interior vertices, as triangles
 * with a random diagonal per cell. */
static void jittered_grid(int n, double x0, double y0, double x1, double y1, float *x, float *y,
                          uint32_t *tri)
{
    unsigned s = 7;
    for (int j = 0; j <= n; j++)
        for (int i = 0; i <= n; i++) {
            double fx = (double)i / n, fy = (double)j / n;
            if (i > 0 && i < n && j > 0 && j < n) {
                s = s * 1103515245u + 12345u;
                fx += ((s >> 16) % 1000 / 1000.0 - 0.5) * 0.6 / n;
                s = s * 1103515245u + 12345u;
                fy += ((s >> 16) % 1000 / 1000.0 - 0.5) * 0.6 / n;
            }
            x[j * (n + 1) + i] = (float)(x0 + fx * (x1 - x0));
            y[j * (n + 1) + i] = (float)(y0 + fy * (y1 - y0));
        }
    int t = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            uint32_t a = (uint32_t)(j * (n + 1) + i), b = a + 1, c = a + (uint32_t)n + 1, d = c + 1;
            s = s * 1103515245u + 12345u;
            if ((s >> 16) & 1) {
                uint32_t q[6] = {a, b, d, a, d, c};
                memcpy(tri + 6 * t, q, sizeof q);
            } else {
                uint32_t q[6] = {a, b, c, b, d, c};
                memcpy(tri + 6 * t, q, sizeof q);
            }
            t++;
        }
}

/* Many small irregular triangles tiling a box, drawn with a TRANSLUCENT
 * colour: any sample covered twice would blend twice and show.  Every pixel
 * must equal the exact resolve of "k samples inside the box". */
Test(raster, mesh_has_no_seams_and_no_double_blending)
{
    enum { N = 24 };
    static float x[(N + 1) * (N + 1)], y[(N + 1) * (N + 1)];
    static uint32_t tri[N * N * 6];
    const double bx0 = 10.3, by0 = 5.2, bx1 = 90.7, by1 = 70.9;
    jittered_grid(N, bx0, by0, bx1, by1, x, y, tri);
    uint32_t col = WB_RGBA(60, 100, 20, 128);
    for (size_t a = 0; a < sizeof AA / sizeof AA[0]; a++) {
        int S = AA[a];
        Canvas c;
        canvas_init(&c, 101, 80, S);
        WbMesh m = {.n_vertices = (N + 1) * (N + 1), .x = x, .y = y, .to_px = {1, 1, 0, 0},
                    .indices = tri, .n_triangles = N * N * 2, .paint = WB_PAINT_COLOR, .color = col};
        wb_raster_mesh(&c.r, &m);
        canvas_end(&c, NULL);
        int interior = 0;
        for (int py = 0; py < 80; py++)
            for (int px = 0; px < 101; px++) {
                int k = samples_in_box(S, px, py, fix(bx0), fix(bx1), fix(by0), fix(by1));
                uint8_t want[4];
                expect_resolve(col, k, S, want);
                cr_assert_arr_eq(px_at(&c, px, py), want, 4,
                                 "aa %d pixel (%d,%d): got %d,%d,%d,%d want %d,%d,%d,%d (k=%d)", S,
                                 px, py, px_at(&c, px, py)[0], px_at(&c, px, py)[1],
                                 px_at(&c, px, py)[2], px_at(&c, px, py)[3], want[0], want[1],
                                 want[2], want[3], k);
                interior += k == S;
            }
        cr_assert_gt(interior, 4000);
        canvas_free(&c);
    }
}

/* Count the samples a set of triangles covers, per pixel, via resolve:
 * opaque white over transparent gives alpha = round(255·k/S). */
static void coverage(int S, const float *x, const float *y, const uint32_t *tri, int nt, int w,
                     int h, int *k)
{
    Canvas c;
    canvas_init(&c, w, h, S);
    WbMesh m = {.n_vertices = 64, .x = x, .y = y, .to_px = {1, 1, 0, 0}, .indices = tri,
                .n_triangles = nt, .paint = WB_PAINT_COLOR, .color = WB_RGBA(255, 255, 255, 255)};
    wb_raster_mesh(&c.r, &m);
    canvas_end(&c, NULL);
    for (int i = 0; i < w * h; i++) {
        int a = px_at(&c, i % w, i / w)[3];
        k[i] = (a * S + 127) / 255;
        cr_assert_eq((k[i] * 255 + S / 2) / S, a, "alpha %d is not a sample count of %d", a, S);
    }
    canvas_free(&c);
}

/* Two triangles sharing an edge cover every sample at most once, and
 * together exactly the samples of their union — including samples lying
 * exactly on the shared edge or on outer edges (vertices placed on sample
 * positions). */
Test(raster, top_left_rule_shared_edges_cover_once)
{
    for (size_t a = 0; a < sizeof AA / sizeof AA[0]; a++) {
        int S = AA[a];
        int dx, dy;
        wb_raster_sample_offset(S, 0, &dx, &dy);
        float sx = 3 + 0.5f + dx / 16.0f, sy = 4 + 0.5f + dy / 16.0f; /* a sample position */
        /* Quads whose shared diagonal/edges pass through sample positions:
         * vertical, horizontal, diagonal and arbitrary shared edges. */
        const float quads[][8] = {
            {sx, 1, sx, 9, 7.3f, 5, 0.7f, 5},        /* vertical shared edge x = sx */
            {1, sy, 9, sy, 5, 8.6f, 5, 0.2f},        /* horizontal shared edge y = sy */
            {sx, sy, sx + 4, sy + 4, sx + 4, sy, sx, sy + 4}, /* diagonal through a sample */
            {1.1f, 1.7f, 8.9f, 7.3f, 7.7f, 1.2f, 2.3f, 8.8f},
        };
        for (size_t q = 0; q < sizeof quads / sizeof quads[0]; q++) {
            float x[64] = {0}, y[64] = {0};
            for (int i = 0; i < 4; i++) {
                x[i] = quads[q][2 * i];
                y[i] = quads[q][2 * i + 1];
            }
            /* Triangles (0,1,2) and (0,1,3) share edge 0-1, on opposite sides. */
            uint32_t ta[3] = {0, 1, 2}, tb[3] = {1, 0, 3}, both[6] = {0, 1, 2, 1, 0, 3};
            int ka[100], kb[100], kab[100];
            coverage(S, x, y, ta, 1, 10, 10, ka);
            coverage(S, x, y, tb, 1, 10, 10, kb);
            coverage(S, x, y, both, 2, 10, 10, kab);
            int total = 0;
            for (int i = 0; i < 100; i++) {
                cr_assert_leq(ka[i] + kb[i], S, "aa %d quad %zu pixel %d double covered", S, q, i);
                cr_assert_eq(ka[i] + kb[i], kab[i], "aa %d quad %zu pixel %d", S, q, i);
                total += kab[i];
            }
            cr_assert_gt(total, 0);
        }
    }
}

/* Exact area fraction of pixel (px, py) on the side a·x + b·y < c, by
 * fine numerical integration. */
static double area_fraction(int px, int py, double a, double b, double c)
{
    int in = 0, n = 128;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            double x = px + (i + 0.5) / n, y = py + (j + 0.5) / n;
            in += a * x + b * y < c;
        }
    return (double)in / (n * n);
}

/* A half-plane edge at a sub-pixel offset: each pixel's coverage is the
 * analytic area fraction within 2/S, and within 3/(4S) on average.  (S
 * points of a sparse pattern cannot do better than about 1.6/S for every
 * edge direction and offset: the measured worst cases here are 0.245 at
 * S=4, 0.194 at S=8 and 0.103 at S=16, for slanted edges; axis-aligned
 * edges stay within 1/S.) */
Test(raster, half_plane_edge_coverage_matches_area)
{
    /* Edges: vertical at x = 20.3, horizontal at y = 10.55, slanted. */
    const double lines[][3] = {{1, 0, 20.3}, {0, 1, 10.55}, {1, 0.37, 24.1}, {-0.8, 1, -3.7}};
    static double area[4][30][40];
    for (size_t l = 0; l < sizeof lines / sizeof lines[0]; l++)
        for (int py = 0; py < 30; py++)
            for (int px = 0; px < 40; px++)
                area[l][py][px] = area_fraction(px, py, lines[l][0], lines[l][1], lines[l][2]);
    for (size_t a = 1; a < sizeof AA / sizeof AA[0]; a++) {
        int S = AA[a];
        for (size_t l = 0; l < sizeof lines / sizeof lines[0]; l++) {
            double la = lines[l][0], lb = lines[l][1], lc = lines[l][2];
            /* A huge triangle whose only edge crossing the canvas is the
             * line: two far vertices on the line, the third far inside. */
            double dx = -lb, dy = la, nrm = sqrt(la * la + lb * lb);
            double px0 = la * lc / (nrm * nrm), py0 = lb * lc / (nrm * nrm);
            float x[64] = {0}, y[64] = {0};
            x[0] = (float)(px0 + 5000 * dx);
            y[0] = (float)(py0 + 5000 * dy);
            x[1] = (float)(px0 - 5000 * dx);
            y[1] = (float)(py0 - 5000 * dy);
            x[2] = (float)(px0 - 5000 * la / nrm);
            y[2] = (float)(py0 - 5000 * lb / nrm);
            uint32_t t[3] = {0, 1, 2};
            int k[40 * 30];
            coverage(S, x, y, t, 1, 40, 30, k);
            int partial = 0;
            double err_sum = 0;
            for (int py = 0; py < 30; py++)
                for (int px = 0; px < 40; px++) {
                    double want = area[l][py][px];
                    double got = (double)k[py * 40 + px] / S;
                    double tol = (la == 0 || lb == 0 ? 1.0 : 2.0) / S + 0.02;
                    cr_assert_leq(fabs(got - want), tol,
                                  "aa %d line %zu pixel (%d,%d): coverage %.3f, area %.3f", S, l,
                                  px, py, got, want);
                    if (want > 0 && want < 1) {
                        partial++;
                        err_sum += fabs(got - want);
                    }
                }
            cr_assert_gt(partial, 10);
            cr_assert_leq(err_sum / partial, 0.75 / S, "aa %d line %zu: mean error %.3f", S, l,
                          err_sum / partial);
        }
    }
}

Test(raster, bilinear_texel_centres_and_midpoints)
{
    WbImage img;
    cr_assert_eq(wb_image_alloc(&img, 4, 3, NULL), WB_OK);
    unsigned s = 99;
    for (int i = 0; i < 12; i++)
        for (int ch = 0; ch < 4; ch++) {
            s = s * 1103515245u + 12345u;
            img.px[4 * i + ch] = ch == 3 ? 255 : (uint8_t)(s >> 16);
        }
    WbTexture tex;
    cr_assert_eq(wb_texture_from_image(&tex, &img, NULL), WB_OK);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 4; i++) {
            uint32_t t = tex.px[j * 4 + i];
            cr_assert_eq(wb_texture_sample(&tex, i + 0.5f, j + 0.5f), t);
            /* Within 1/512 texel of a centre still returns the texel. */
            cr_assert_eq(wb_texture_sample(&tex, i + 0.5f + 0.0015f, j + 0.5f - 0.0015f), t);
        }
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 3; i++) {
            uint32_t a = tex.px[j * 4 + i], b = tex.px[j * 4 + i + 1];
            uint32_t c = tex.px[(j + 1) * 4 + i], d = tex.px[(j + 1) * 4 + i + 1];
            uint32_t h = wb_texture_sample(&tex, i + 1.0f, j + 0.5f);
            uint32_t v = wb_texture_sample(&tex, i + 0.5f, j + 1.0f);
            uint32_t q = wb_texture_sample(&tex, i + 1.0f, j + 1.0f);
            for (int ch = 0; ch < 32; ch += 8) {
                unsigned A = a >> ch & 255, B = b >> ch & 255, C = c >> ch & 255, D = d >> ch & 255;
                cr_assert_eq(h >> ch & 255, (A + B + 1) / 2);
                cr_assert_eq(v >> ch & 255, (A + C + 1) / 2);
                cr_assert_eq(q >> ch & 255, (A + B + C + D + 2) / 4);
            }
        }
    /* Clamp to edge. */
    cr_assert_eq(wb_texture_sample(&tex, -7.0f, -3.0f), tex.px[0]);
    cr_assert_eq(wb_texture_sample(&tex, 100.0f, 0.2f), tex.px[3]);
    cr_assert_eq(wb_texture_sample(&tex, 0.1f, 50.0f), tex.px[8]);
    cr_assert_eq(wb_texture_sample(&tex, NAN, NAN), tex.px[0]);
    wb_texture_free(&tex);
    wb_image_free(&img);
}

#ifdef __SSE2__
/* The four-lane sampler is the scalar one, lane for lane, everywhere:
 * inside, on both clamped borders (where it reads a pair past the last
 * column), far outside, at NaN, and on 1-texel-wide and -high textures. */
/* (And the eight- and sixteen-lane ones, where the CPU has AVX2, AVX-512.) */
Test(raster, four_lane_sampler_equals_the_scalar_one)
{
    static const int sizes[][2] = {{5, 4}, {1, 3}, {4, 1}, {1, 1}, {37, 9}};
    unsigned s = 7;
    for (size_t n = 0; n < sizeof sizes / sizeof sizes[0]; n++) {
        const int w = sizes[n][0], h = sizes[n][1];
        WbImage img;
        cr_assert_eq(wb_image_alloc(&img, w, h, NULL), WB_OK);
        for (int i = 0; i < 4 * w * h; i++) {
            s = s * 1103515245u + 12345u;
            img.px[i] = (uint8_t)(s >> 16);
        }
        WbTexture tex;
        cr_assert_eq(wb_texture_from_image(&tex, &img, NULL), WB_OK);
        const WbTexSampler ts = wb_tex_sampler(&tex);
        for (int k = 0; k < 20000; k++) {
            float u[4], v[4];
            for (int j = 0; j < 4; j++) {
                s = s * 1103515245u + 12345u;
                /* su, sv in [-2, w + 2] texels ·256, with some exact centres,
                 * far-outside values and NaN. */
                float fu = ((float)(s >> 8 & 0xFFFF) / 65535.0f) * (float)(w + 4) - 2.0f;
                float fv = ((float)(s >> 4 & 0xFFFF) / 65535.0f) * (float)(h + 4) - 2.0f;
                if ((s >> 28) == 1)
                    fu = (float)(int)fu;
                if ((s >> 28) == 2)
                    fv = 1e9f;
                if ((s >> 28) == 3)
                    fu = NAN;
                u[j] = fu * 256.0f - 128.0f;
                v[j] = fv * 256.0f - 128.0f;
            }
            uint32_t got[4];
            _mm_storeu_si128((__m128i *)got,
                             wb_tex_sampler_fx4(&ts, _mm_loadu_ps(u), _mm_loadu_ps(v)));
            for (int j = 0; j < 4; j++)
                cr_assert_eq(got[j], wb_tex_sampler_fx(&ts, u[j], v[j]),
                             "%dx%d lane %d at (%g, %g)", w, h, j, (double)u[j], (double)v[j]);
#if WB_SIMD_WIDE
            /* The eight-lane sampler, lanes 4-7 the same points reversed. */
            if (wb_cpu_lanes() >= 8) {
                float u8[8], v8[8];
                for (int j = 0; j < 4; j++) {
                    u8[j] = u[j];
                    v8[j] = v[j];
                    u8[7 - j] = u[j];
                    v8[7 - j] = v[j];
                }
                uint32_t got8[8];
                wb_tex_sample_w8(&ts, u8, v8, got8);
                for (int j = 0; j < 8; j++)
                    cr_assert_eq(got8[j], got[j < 4 ? j : 7 - j], "%dx%d fx8 lane %d", w, h, j);
            }
#endif
#if WB_SIMD_WIDE
            /* The sixteen-lane one: the four points at lanes j, 7 - j,
             * 8 + (j + 1) % 4 and 15 - j (every quarter and both 8-lane
             * halves see each point somewhere). */
            if (wb_cpu_lanes() >= 16) {
                float u16[16], v16[16];
                int src[16];
                for (int j = 0; j < 4; j++) {
                    src[j] = j;
                    src[7 - j] = j;
                    src[8 + (j + 1) % 4] = j;
                    src[15 - j] = j;
                }
                for (int l = 0; l < 16; l++) {
                    u16[l] = u[src[l]];
                    v16[l] = v[src[l]];
                }
                uint32_t got16[16];
                wb_tex_sample_w16(&ts, u16, v16, got16);
                for (int l = 0; l < 16; l++)
                    cr_assert_eq(got16[l], got[src[l]], "%dx%d fx16 lane %d", w, h, l);
            }
#endif
        }
        wb_texture_free(&tex);
        wb_image_free(&img);
    }
}
#endif

/* Filtering happens on premultiplied texels: halfway between opaque red and
 * a transparent texel that claims to be green is half-transparent RED. */
Test(raster, premultiplied_filtering_has_no_fringe)
{
    WbImage img;
    cr_assert_eq(wb_image_alloc(&img, 2, 1, NULL), WB_OK);
    const uint8_t px[8] = {255, 0, 0, 255, 0, 255, 0, 0};
    memcpy(img.px, px, 8);
    WbTexture tex;
    cr_assert_eq(wb_texture_from_image(&tex, &img, NULL), WB_OK);
    cr_assert_eq(tex.px[1], 0u);
    uint32_t mid = wb_texture_sample(&tex, 1.0f, 0.5f);
    cr_assert_eq(mid, WB_RGBA(128, 0, 0, 128));
    wb_texture_free(&tex);
    wb_image_free(&img);
}

Test(raster, texture_downscale_is_an_area_mean)
{
    WbImage img;
    cr_assert_eq(wb_image_alloc(&img, 6, 4, NULL), WB_OK);
    for (int i = 0; i < 24; i++) {
        img.px[4 * i] = (uint8_t)(i * 10);
        img.px[4 * i + 3] = 255;
    }
    WbTexture tex, small;
    cr_assert_eq(wb_texture_from_image(&tex, &img, NULL), WB_OK);
    cr_assert_eq(wb_texture_downscale(&small, &tex, 3, 2, NULL), WB_OK);
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 3; i++) {
            int a = (2 * j) * 6 + 2 * i;
            double mean = (a + (a + 1) + (a + 6) + (a + 7)) * 10 / 4.0;
            cr_assert_eq(WB_RGBA_R(small.px[j * 3 + i]), (unsigned)floor(mean + 0.5));
            cr_assert_eq(WB_RGBA_A(small.px[j * 3 + i]), 255u);
        }
    WbTexture bad;
    cr_assert_eq(wb_texture_downscale(&bad, &tex, 7, 2, NULL), WB_E_INPUT);
    wb_texture_free(&small);
    wb_texture_free(&tex);
    wb_image_free(&img);
}

/* Over a transparent background, antialiased edges keep their exact
 * straight colour; untouched pixels stay (0,0,0,0). */
Test(raster, transparent_background_and_straight_alpha_resolve)
{
    Canvas c;
    canvas_init(&c, 40, 40, 16);
    wb_raster_disc(&c.r, 20.2f, 19.7f, 12.3f, WB_RGBA(200, 100, 50, 255));
    canvas_end(&c, NULL);
    int edge = 0;
    for (int py = 0; py < 40; py++)
        for (int px = 0; px < 40; px++) {
            const uint8_t *p = px_at(&c, px, py);
            if (p[3] == 0) {
                cr_assert(p[0] == 0 && p[1] == 0 && p[2] == 0);
                continue;
            }
            cr_assert_eq(p[0], 200);
            cr_assert_eq(p[1], 100);
            cr_assert_eq(p[2], 50);
            edge += p[3] < 255;
        }
    cr_assert_gt(edge, 40);
    canvas_free(&c);

    /* A translucent colour over an opaque background: straight result of
     * "over", and a transparent hole stays transparent. */
    canvas_init(&c, 8, 8, 4);
    wb_raster_begin(&c.r, wb_rgba_premul(0, 0, 1, 1));
    const float sq[8] = {0, 0, 4, 0, 4, 8, 0, 8};
    wb_raster_polygon(&c.r, sq, 4, wb_rgba_premul(1, 0, 0, 0.5));
    canvas_end(&c, NULL);
    const uint8_t *p = px_at(&c, 1, 1), *q = px_at(&c, 6, 6);
    cr_assert(p[0] == 128 && p[1] == 0 && p[2] == 127 && p[3] == 255, "%d %d %d %d", p[0], p[1],
              p[2], p[3]);
    cr_assert(q[0] == 0 && q[1] == 0 && q[2] == 255 && q[3] == 255);
    canvas_free(&c);
}

static double alpha_area(const Canvas *c)
{
    double sum = 0;
    for (int y = 0; y < c->img.h; y++)
        for (int x = 0; x < c->img.w; x++)
            sum += px_at(c, x, y)[3] / 255.0;
    return sum;
}

Test(raster, disc_and_polyline_areas_match_analytic)
{
    Canvas c;
    canvas_init(&c, 120, 100, 16);
    const double r = 20.3;
    wb_raster_disc(&c.r, 50.2f, 40.7f, (float)r, WB_RGBA(255, 255, 255, 255));
    canvas_end(&c, NULL);
    cr_assert_float_eq(alpha_area(&c), M_PI * r * r, 0.004 * M_PI * r * r);
    canvas_free(&c);

    /* Straight polyline with an interior (collinear) join, translucent: the
     * join must not blend twice, so the area is still 2rL + πr². */
    const float hw = 3.0f;
    const float straight[6] = {10.2f, 20.4f, 40.2f, 30.4f, 70.2f, 40.4f};
    double L = 2 * sqrt(30.0 * 30.0 + 10.0 * 10.0);
    canvas_init(&c, 120, 100, 16);
    wb_raster_polyline(&c.r, straight, 3, 2 * hw, WB_RGBA(128, 128, 128, 128), WB_CAP_ROUND);
    canvas_end(&c, NULL);
    double want = (2 * hw * L + M_PI * hw * hw) * 128.0 / 255.0;
    cr_assert_float_eq(alpha_area(&c), want, 0.01 * want);
    for (int y = 0; y < 100; y++)
        for (int x = 0; x < 120; x++)
            cr_assert_leq(px_at(&c, x, y)[3], 128);
    canvas_free(&c);

    /* A right-angle bend: 2r(L1+L2) + πr² + r²(π/4 - 1). */
    const float bend[6] = {10.5f, 10.5f, 60.5f, 10.5f, 60.5f, 80.5f};
    canvas_init(&c, 120, 100, 16);
    wb_raster_polyline(&c.r, bend, 3, 2 * hw, WB_RGBA(255, 255, 255, 255), WB_CAP_ROUND);
    canvas_end(&c, NULL);
    want = 2 * hw * (50 + 70) + M_PI * hw * hw + hw * hw * (M_PI / 4 - 1);
    cr_assert_float_eq(alpha_area(&c), want, 0.01 * want);
    canvas_free(&c);

    /* Butt caps: exactly the rectangle. */
    const float seg[4] = {10.25f, 50.5f, 90.25f, 50.5f};
    canvas_init(&c, 120, 100, 16);
    wb_raster_polyline(&c.r, seg, 2, 5.0f, WB_RGBA(255, 255, 255, 255), WB_CAP_BUTT);
    canvas_end(&c, NULL);
    cr_assert_float_eq(alpha_area(&c), 80.0 * 5.0, 0.5);
    canvas_free(&c);
}

/* Concave polygons fill exactly; self-intersecting ones by even-odd. */
Test(raster, polygon_concave_and_even_odd)
{
    Canvas c;
    canvas_init(&c, 60, 60, 4);
    /* An L: 40×40 square minus its 20×20 top-right quarter = 1200 px². */
    const float ell[12] = {10, 10, 30, 10, 30, 30, 50, 30, 50, 50, 10, 50};
    wb_raster_polygon(&c.r, ell, 6, WB_RGBA(255, 255, 255, 255));
    canvas_end(&c, NULL);
    cr_assert_float_eq(alpha_area(&c), 1200.0, 1e-9);
    cr_assert_eq(px_at(&c, 40, 20)[3], 0);
    cr_assert_eq(px_at(&c, 20, 20)[3], 255);
    canvas_free(&c);

    /* A pentagram: the points are filled, the central pentagon is not. */
    float star[10];
    for (int i = 0; i < 5; i++) {
        double t = -M_PI / 2 + i * 4 * M_PI / 5;
        star[2 * i] = (float)(30 + 25 * cos(t));
        star[2 * i + 1] = (float)(30 + 25 * sin(t));
    }
    canvas_init(&c, 60, 60, 4);
    wb_raster_polygon(&c.r, star, 5, WB_RGBA(255, 255, 255, 255));
    canvas_end(&c, NULL);
    cr_assert_eq(px_at(&c, 30, 30)[3], 0, "centre of a pentagram is outside (even-odd)");
    cr_assert_eq(px_at(&c, 30, 8)[3], 255, "top point is inside");
    canvas_free(&c);
}

/* Moving a vertex by 0.1 px changes the covered area by 0.1 px × height:
 * no integer snapping anywhere. */
Test(raster, sub_pixel_motion_is_smooth)
{
    double prev = -1;
    for (int step = 0; step <= 10; step++) {
        float right = 30.0f + 0.1f * step;
        const float quad[8] = {10.0f, 5.3f, right, 5.3f, right, 25.3f, 10.0f, 25.3f};
        Canvas c;
        canvas_init(&c, 40, 30, 16);
        wb_raster_polygon(&c.r, quad, 4, WB_RGBA(255, 255, 255, 255));
        canvas_end(&c, NULL);
        double area = alpha_area(&c);
        cr_assert_float_eq(area, (right - 10.0) * 20.0, 20.0 / 16 + 0.1);
        if (prev >= 0)
            cr_assert_float_eq(area - prev, 0.1 * 20.0, 20.0 / 16 + 0.1,
                               "step %d: area grew by %.3f", step, area - prev);
        prev = area;
        canvas_free(&c);
    }
}

/* A frame mixing every primitive kind, overlapping translucently, drawn
 * with 1..4 threads: identical bytes. */
Test(raster, bytes_do_not_depend_on_thread_count)
{
    enum { N = 40 };
    static float x[(N + 1) * (N + 1)], y[(N + 1) * (N + 1)], rgba[4 * (N + 1) * (N + 1)];
    static uint32_t tri[N * N * 6];
    jittered_grid(N, -5, 3, 150, 97, x, y, tri);
    for (int i = 0; i < (N + 1) * (N + 1); i++) {
        float a = 0.3f + 0.7f * (float)(i % 7) / 6.0f;
        rgba[4 * i] = a * (float)(i % 3) / 2.0f;
        rgba[4 * i + 1] = a * 0.5f;
        rgba[4 * i + 2] = a * (float)(i % 5) / 4.0f;
        rgba[4 * i + 3] = a;
    }
    const float line[8] = {3, 3, 70, 90, 120, 10, 140, 95};
    uint64_t ref = 0;
    for (int threads = 1; threads <= 4; threads++) {
        for (size_t a = 0; a < sizeof AA / sizeof AA[0]; a++) {
            WbPool *pool;
            cr_assert_eq(wb_pool_create(&pool, threads, NULL), WB_OK);
            Canvas c;
            canvas_init(&c, 150, 101, AA[a]);
            wb_raster_begin(&c.r, wb_rgba_premul(0.1, 0.2, 0.3, 0.5));
            WbMesh m = {.n_vertices = (N + 1) * (N + 1), .x = x, .y = y, .to_px = {1, 1, 0, 0},
                        .indices = tri, .n_triangles = N * N * 2, .paint = WB_PAINT_VERTEX_COLOR,
                        .rgba = rgba};
            wb_raster_mesh(&c.r, &m);
            wb_raster_polyline(&c.r, line, 4, 7.5f, wb_rgba_premul(1, 1, 0, 0.6), WB_CAP_ROUND);
            wb_raster_disc(&c.r, 75, 50, 30, wb_rgba_premul(0, 1, 1, 0.4));
            canvas_end(&c, pool);
            uint64_t h = wb_image_hash(&c.img) ^ (uint64_t)AA[a];
            if (threads == 1)
                cr_assert_neq(h, 0u);
            if (a == 0 && threads == 1)
                ref = h;
            if (a == 0)
                cr_assert_eq(h, ref, "threads %d changed the image", threads);
            /* Re-resolving the same recording gives the same bytes. */
            uint64_t h1 = h;
            canvas_end(&c, pool);
            cr_assert_eq(wb_image_hash(&c.img) ^ (uint64_t)AA[a], h1);
            canvas_free(&c);
            wb_pool_destroy(pool);
        }
    }
}

/* Per-sample-count hashes must also agree across thread counts. */
Test(raster, bytes_do_not_depend_on_thread_count_per_aa)
{
    const float poly[10] = {5, 5, 95, 20, 50, 95, 60, 30, 10, 80};
    for (size_t a = 0; a < sizeof AA / sizeof AA[0]; a++) {
        uint64_t ref = 0;
        for (int threads = 1; threads <= 4; threads++) {
            WbPool *pool;
            cr_assert_eq(wb_pool_create(&pool, threads, NULL), WB_OK);
            Canvas c;
            canvas_init(&c, 100, 100, AA[a]);
            wb_raster_polygon(&c.r, poly, 5, wb_rgba_premul(0.9, 0.4, 0.1, 0.7));
            wb_raster_disc(&c.r, 40, 60, 25.5f, wb_rgba_premul(0.1, 0.4, 0.9, 0.5));
            canvas_end(&c, pool);
            uint64_t h = wb_image_hash(&c.img);
            if (threads == 1)
                ref = h;
            cr_assert_eq(h, ref, "aa %d threads %d", AA[a], threads);
            canvas_free(&c);
            wb_pool_destroy(pool);
        }
    }
}

Test(raster, bad_arguments_are_input_errors)
{
    WbRaster r;
    WbError err;
    cr_assert_eq(wb_raster_init(&r, 100, 100, 3, &err), WB_E_INPUT);
    cr_assert(strstr(err.msg, "1, 4, 8 or 16") != NULL);
    cr_assert_eq(wb_raster_init(&r, 0, 100, 4, &err), WB_E_INPUT);
}

/* NaN vertices drop their triangles instead of drawing garbage. */
Test(raster, non_finite_vertices_are_skipped)
{
    float x[64] = {1, 9, 1, 9}, y[64] = {1, 1, 9, 9};
    x[3] = NAN;
    uint32_t tri[6] = {0, 1, 2, 1, 3, 2};
    int k[100], k1[100];
    coverage(4, x, y, tri, 2, 10, 10, k);
    coverage(4, x, y, tri, 1, 10, 10, k1);
    int total = 0;
    for (int i = 0; i < 100; i++) {
        cr_assert_eq(k[i], k1[i], "only the finite triangle is drawn");
        total += k[i];
    }
    cr_assert_gt(total, 100);
}

/* Attributes are taken at the pixel centre (extrapolated a little at a
 * silhouette) unless the mesh asks for centroid shading, which keeps the
 * shading point inside the triangle. */
Test(raster, centroid_shading_stays_inside_the_triangle)
{
    /* A quad over x in [2.3, 10.3]; red goes 0.2 → 0.6 left to right.
     * Pixel 10's centre (10.5) is outside: red 0.61 there. */
    float x[64] = {2.3f, 10.3f, 10.3f, 2.3f}, y[64] = {0, 0, 4, 4};
    float rgba[4 * 64] = {0.2f, 0, 0, 1, 0.6f, 0, 0, 1, 0.6f, 0, 0, 1, 0.2f, 0, 0, 1};
    uint32_t tri[6] = {0, 1, 2, 0, 2, 3};
    for (int centroid = 0; centroid < 2; centroid++) {
        Canvas c;
        canvas_init(&c, 12, 4, 4);
        WbMesh m = {.n_vertices = 4, .x = x, .y = y, .to_px = {1, 1, 0, 0}, .indices = tri,
                    .n_triangles = 2, .paint = WB_PAINT_VERTEX_COLOR, .rgba = rgba,
                    .centroid = centroid};
        wb_raster_mesh(&c.r, &m);
        canvas_end(&c, NULL);
        const uint8_t *p = px_at(&c, 10, 1);
        cr_assert(p[3] > 0 && p[3] < 255, "pixel 10 is a silhouette pixel");
        if (centroid)
            cr_assert_leq(p[0], 153, "centroid: red %d must not exceed 0.6", p[0]);
        else
            cr_assert_eq(p[0], 156, "pixel centre: red 0.61 extrapolated, got %d", p[0]);
        canvas_free(&c);
    }
}

/* ---- the photo path (one opaque-mapped grid mesh) ------------------------ */

/* A w×h texture of hard-edged stripes and a gradient: sharp content, so a
 * seam, a hole or a wrong triangle would show. */
static void stripe_texture(WbTexture *t, int w, int h)
{
    t->w = w;
    t->h = h;
    t->px = malloc(sizeof *t->px * (size_t)w * (size_t)h);
    cr_assert_not_null(t->px);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            t->px[y * w + x] = ((x / 3 + y / 5) & 1) ? WB_RGBA(250, 240, 20, 255)
                                                     : WB_RGBA(x * 255 / w, 30, y * 255 / h, 255);
}

/* Draw an n×n grid mesh (positions x, y in px, texture coordinates u, v
 * in texels) at 4 samples.  with_alpha = true adds an all-opaque alpha
 * array: the same picture by the general MSAA path (opaque triangles skip
 * the alpha plane), which the photo path must match where no edge shows. */
static void draw_grid(int n, const float *x, const float *y, const float *u, const float *v,
                      const WbTexture *tex, bool with_alpha, int threads, Canvas *c)
{
    size_t nv = (size_t)(n + 1) * (size_t)(n + 1);
    float *ones = malloc(sizeof *ones * nv);
    cr_assert_not_null(ones);
    for (size_t i = 0; i < nv; i++)
        ones[i] = 1.0f;
    WbPool *pool = NULL;
    WbError err;
    cr_assert_eq(wb_pool_create(&pool, threads, &err), WB_OK);
    canvas_init(c, 96, 80, 4);
    wb_raster_begin(&c->r, WB_RGBA(0, 0, 0, 255));
    WbMesh m = {.n_vertices = (int)nv, .x = x, .y = y, .to_px = {1, 1, 0, 0},
                .grid_cols = n, .grid_rows = n, .paint = WB_PAINT_TEXTURE, .texture = tex,
                .u = u, .v = v, .to_texel = {1, 1, 0, 0}, .alpha = with_alpha ? ones : NULL};
    if (with_alpha)
        wb_raster_mesh(&c->r, &m);
    else
        wb_raster_photo_grid(&c->r, &m);
    canvas_end(c, pool);
    wb_pool_destroy(pool);
    free(ones);
}

/* A 12×12 grid over [8, 88]×[6, 74] px, texture coordinates at rest; fold
 * = true pushes column 6 of vertices past column 8 in rows 3..8 (a fold:
 * flipped cells lie over their neighbours), and a smooth bend moves the
 * rest. */
static void photo_grid(int n, bool bend, bool fold, float *x, float *y, float *u, float *v)
{
    for (int j = 0; j <= n; j++)
        for (int i = 0; i <= n; i++) {
            int k = j * (n + 1) + i;
            double fx = 8 + 80.0 * i / n, fy = 6 + 68.0 * j / n;
            u[k] = (float)(fx - 8) * 0.75f;
            v[k] = (float)(fy - 6) * 0.75f;
            if (bend) {
                fx += 3.1 * sin(0.11 * fy + 0.3);
                fy += 2.3 * cos(0.07 * fx);
            }
            if (fold && i == 6 && j >= 3 && j <= 8)
                fx += 80.0 / n * 2.6;
            x[k] = (float)fx;
            y[k] = (float)fy;
        }
}

/* Draw the grid by the photo path and by the general MSAA path; the worst
 * channel difference between the two pictures and how many differ. */
static void photo_vs_msaa(int n, const float *x, const float *y, const float *u, const float *v,
                          const WbTexture *tex, int *worst, int *differ)
{
    Canvas fast, msaa;
    draw_grid(n, x, y, u, v, tex, false, 1, &fast);
    draw_grid(n, x, y, u, v, tex, true, 1, &msaa);
    *worst = *differ = 0;
    for (int py = 0; py < 80; py++)
        for (int px = 0; px < 96; px++)
            for (int k = 0; k < 4; k++) {
                int d = abs(px_at(&fast, px, py)[k] - px_at(&msaa, px, py)[k]);
                *worst = d > *worst ? d : *worst;
                *differ += d != 0;
            }
    canvas_free(&fast);
    canvas_free(&msaa);
}

Test(raster, photo_path_matches_msaa_at_rest_and_where_edges_show)
{
    enum { N = 12, NV = (N + 1) * (N + 1) };
    float x[NV], y[NV], u[NV], v[NV];
    WbTexture tex;
    stripe_texture(&tex, 64, 56);
    for (int pass = 0; pass < 3; pass++) {
        photo_grid(N, pass > 0, pass == 2, x, y, u, v);
        int worst, differ;
        photo_vs_msaa(N, x, y, u, v, &tex, &worst, &differ);
        if (pass == 0) {
            /* At rest every triangle shades a pixel alike: identical. */
            cr_assert_eq(differ, 0, "undeformed: %d channels differ", differ);
        } else {
            /* Bent or folded: the silhouette and the folds are the MSAA
             * path's own samples; elsewhere the photo path shades from the
             * triangle owning the centre where the MSAA path averages the
             * planes of the triangles owning its samples, at the same
             * centre: a few levels on the smooth bend, more inside the
             * stretched cells beside the fold, never a hole (background)
             * or an edge left unblended (which differ by 150 and more on
             * this texture). */
            int limit = pass == 1 ? 8 : 48;
            cr_assert_leq(worst, limit, "pass %d: worst channel difference %d", pass, worst);
        }
    }
    wb_texture_free(&tex);
}

/* The grid's border off the frame (or on its edge: `fit: fill`) needs no
 * MSAA there: its cells draw like interior ones, and the picture must
 * still be the MSAA path's.  Spans: past every side; exactly the frame;
 * past the left and top only, so the right and bottom silhouette shows
 * and must be blended. */
Test(raster, photo_path_matches_msaa_with_the_border_off_the_frame)
{
    enum { N = 12, NV = (N + 1) * (N + 1) };
    static const float span[3][4] = {{-9.5f, 105.25f, -7.75f, 86.5f},
                                     {0.0f, 96.0f, 0.0f, 80.0f},
                                     {-9.5f, 83.5f, -7.75f, 71.25f}};
    float x[NV], y[NV], u[NV], v[NV];
    WbTexture tex;
    stripe_texture(&tex, 96, 96);
    for (int c = 0; c < 3; c++)
        for (int bend = 0; bend < 2; bend++) {
            for (int j = 0; j <= N; j++)
                for (int i = 0; i <= N; i++) {
                    int k = j * (N + 1) + i;
                    double fx = span[c][0] + (span[c][1] - span[c][0]) * i / N;
                    double fy = span[c][2] + (span[c][3] - span[c][2]) * j / N;
                    u[k] = (float)(i * 7.5);
                    v[k] = (float)(j * 7.5);
                    if (bend && i > 0 && i < N && j > 0 && j < N) {
                        fx += 2.7 * sin(0.13 * fy + 0.4);
                        fy += 1.9 * cos(0.09 * fx);
                    }
                    x[k] = (float)fx;
                    y[k] = (float)fy;
                }
            int worst, differ;
            photo_vs_msaa(N, x, y, u, v, &tex, &worst, &differ);
            /* At rest identical; bent, the border cells now shade like
             * interior ones (the centre's triangle against the samples'
             * average, a few levels where the bend shears them most), and
             * a hole or an unblended silhouette would differ by 150 and
             * more on this texture. */
            if (!bend)
                cr_assert_eq(differ, 0, "span %d at rest: %d channels differ", c, differ);
            else
                cr_assert_leq(worst, 16, "span %d bent: worst channel difference %d", c, worst);
        }
    wb_texture_free(&tex);
}

Test(raster, photo_path_bytes_do_not_depend_on_thread_count)
{
    enum { N = 12, NV = (N + 1) * (N + 1) };
    float x[NV], y[NV], u[NV], v[NV];
    WbTexture tex;
    stripe_texture(&tex, 64, 56);
    photo_grid(N, true, true, x, y, u, v);
    Canvas one;
    draw_grid(N, x, y, u, v, &tex, false, 1, &one);
    for (int threads = 2; threads <= 3; threads++) {
        Canvas many;
        draw_grid(N, x, y, u, v, &tex, false, threads, &many);
        cr_assert_eq(memcmp(one.img.px, many.img.px, one.img.stride * 80), 0, "threads %d",
                     threads);
        canvas_free(&many);
    }
    canvas_free(&one);
    wb_texture_free(&tex);
}
