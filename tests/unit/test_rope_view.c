/* test_rope_view.c — the rope scene kind's loader rules (suite rope_scene)
 * and its 2D view (suite rope_view): framing, exact colours inside shapes,
 * antialiased edges, transparency, and the same bytes for every pool size. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/image.h"
#include "core/pool.h"
#include "render/rope_view.h"
#include "scene/scene.h"
#include "scene/scene_load.h"

/* ------------------------------------------------------------- loader */

static const char *const ROPE_MIN =
    "wobble: 1\nkind: rope\nrope:\n  ropes:\n    - {from: [1, 0.5], to: [2, 0.5]}\n";

static WbStatus load_rope(const char *text, const char *const *sets, size_t n, WbScene *s,
                          WbError *e)
{
    wb_error_clear(e);
    return wb_scene_load_string("r.yaml", text, sets, n, s, e);
}

static char *print_scene(const WbScene *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    wb_scene_print(s, f);
    fclose(f);
    return buf;
}

Test(rope_scene, minimal_scene_has_the_documented_defaults)
{
    WbScene s;
    WbError e;
    cr_assert_eq(load_rope(ROPE_MIN, NULL, 0, &s, &e), WB_OK, "%s", e.msg);
    cr_expect_eq(s.kind, WB_KIND_ROPE);
    cr_expect_eq(s.rope.solver, WB_ROPE_SOLVER_JAKOBSEN);
    cr_expect_eq(s.rope.passes, 5);
    cr_expect_eq(s.rope.damping, 0.99);
    cr_expect_eq(s.rope.gravity, 9.81);
    cr_expect_eq(s.rope.step, 1.0 / 120.0);
    cr_expect_eq(s.rope.max_frame_delta, 0.25);
    cr_expect_eq(s.rope.view.width, 4.0);
    cr_expect_eq(s.rope.view.height, 3.0);
    cr_assert_eq(s.rope.n_ropes, 1);
    const WbRopeLineDef *l = &s.rope.ropes[0];
    cr_expect_eq(l->nodes, 20);
    cr_expect_eq(l->pin, WB_ROPE_PIN_START);
    cr_expect_eq(l->end_mass, 1.0);
    cr_expect(l->width.automatic);
    cr_expect_eq(l->start_path.n, 0);
    cr_expect_eq(s.rope.n_obstacles, 0);
    wb_scene_free(&s);
}

Test(rope_scene, print_round_trips_every_field)
{
    const char *text =
        "wobble: 1\nkind: rope\noutput: {width: 320, height: 200}\n"
        "rope:\n  solver: chain\n  passes: 2\n  gravity: 4.5\n  view: {width: 8, height: 5}\n"
        "  ropes:\n"
        "    - from: [1, 0.5]\n      to: [2.25, 1.0000000000000002]\n      nodes: 7\n"
        "      length: 3\n      pin: both\n      end_mass: 2.5\n      width: 3px\n"
        "      colour: [0.1, 0.2, 0.3]\n"
        "      start_path: [{time: 0.5, to: [1.5, 0.5], ease: out}, {time: 1, to: [1, 1]}]\n"
        "      end_path: [{time: 2, to: [3, 1], ease: step}]\n"
        "    - {from: [4, 1], to: [4, 2], width: 0.1}\n"
        "  obstacles:\n    - {points: [[0, 4], [1, 4], [0.5, 3]], colour: \"#102030\"}\n"
        "timeline:\n  - {time: 1.5, cut: {rope: 0, link: 5}}\n";
    WbScene a, b;
    WbError e;
    cr_assert_eq(load_rope(text, NULL, 0, &a, &e), WB_OK, "%s", e.msg);
    char *first = print_scene(&a);
    cr_assert_eq(load_rope(first, NULL, 0, &b, &e), WB_OK, "%s\n%s", e.msg, first);
    char *second = print_scene(&b);
    cr_expect_str_eq(second, first);
    cr_assert_eq(b.rope.n_ropes, 2);
    cr_expect_eq(memcmp(a.rope.ropes, b.rope.ropes, 2 * sizeof *a.rope.ropes), 0);
    cr_expect_eq(memcmp(a.rope.obstacles, b.rope.obstacles, sizeof *a.rope.obstacles), 0);
    cr_expect_eq(b.rope.ropes[0].to.y, 1.0000000000000002);
    cr_expect_eq(b.rope.ropes[0].start_path.n, 2);
    cr_expect_eq(b.rope.ropes[0].start_path.keys[1].ease, WB_EASE_IN_OUT);
    cr_expect_eq(b.rope.ropes[0].end_path.keys[0].ease, WB_EASE_STEP);
    cr_expect(b.rope.ropes[0].width.px);
    cr_expect_eq(b.rope.ropes[0].width.value, 3.0);
    cr_expect_eq(b.rope.obstacles[0].n, 3);
    cr_assert_eq(b.n_events, 1);
    cr_expect_eq(b.events[0].type, WB_EVENT_CUT);
    cr_expect_eq(b.events[0].u.cut.link, 5);
    free(first);
    free(second);
    wb_scene_free(&a);
    wb_scene_free(&b);
}

Test(rope_scene, set_reaches_into_the_rope_list)
{
    const char *sets[] = {"rope.ropes.0.nodes=7", "rope.ropes.1={from: [0, 0], to: [1, 1]}"};
    WbScene s;
    WbError e;
    cr_assert_eq(load_rope(ROPE_MIN, sets, 2, &s, &e), WB_OK, "%s", e.msg);
    cr_assert_eq(s.rope.n_ropes, 2);
    cr_expect_eq(s.rope.ropes[0].nodes, 7);
    cr_expect_eq(s.rope.ropes[1].to.x, 1.0);
    wb_scene_free(&s);
}

typedef struct BadRope {
    const char *extra;   /* appended to ROPE_MIN */
    int line, col;
    const char *msg;
} BadRope;

Test(rope_scene, bad_scenes_name_the_place)
{
    static const BadRope bad[] = {
        {"  obstacles:\n    - {points: [[0, 0], [1, 0]]}\n", 7, 16,
         "'rope.obstacles[0].points' expects a list of 3 to 16 points [x, y] (metres), found 2 points"},
        {"  obstacles:\n    - {points: [[0, 0], [1, 0], [2, 0]]}\n", 7, 16,
         "'rope.obstacles[0].points' encloses no area"},
        {"  step: 0.5\n", 6, 9, "'rope.step' must be in [1e-05, 0.1], found 0.5"},
        {"  max_frame_delta: 0.001\n", 6, 20,
         "'rope.max_frame_delta' must be at least rope.step (0.00833333 s), found 0.001"},
        {"  solver: jakobson\n", 6, 11,
         "'rope.solver' expects jakobsen | chain, found 'jakobson' (did you mean 'jakobsen'?)"},
        {"    - {from: [0, 0], to: [0, 0]}\n", 6, 26,
         "'rope.ropes[1]' has from == to and no length; give a length or two different points"},
        {"    - {from: [0, 0], to: [1, 0], pin: start, start_path: [{time: 1, to: [0, 1]}, "
         "{time: 1, to: [0, 2]}]}\n", 6, 89,
         "'rope.ropes[1].start_path[1].time' must be later than the previous key's time 1, found 1"},
        {"timeline:\n  - {time: 0, cut: {rope: 0, link: 19}}\n", 7, 5,
         "cut at 0 s: rope 0 has links 0..18, not 19"},
        {"timeline:\n  - {time: 0, cut: {rope: 0}}\n", 7, 15, "missing required key 'link' in "
         "'timeline[0].cut'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[1024];
        snprintf(text, sizeof text, "%s%s", ROPE_MIN, bad[i].extra);
        WbScene s;
        WbError e;
        cr_expect_eq(load_rope(text, NULL, 0, &s, &e), WB_E_INPUT, "case %zu loaded", i);
        cr_expect_str_eq(e.msg, bad[i].msg, "case %zu", i);
        cr_expect_eq(e.line, bad[i].line, "case %zu line %d", i, e.line);
        cr_expect_eq(e.col, bad[i].col, "case %zu col %d", i, e.col);
    }
}

/* --------------------------------------------------------------- view */

static const WbColor RED = {1, 0, 0, 1};

static const uint8_t *pixel(const WbImage *img, int x, int y)
{
    return wb_image_row(img, y) + 4 * x;
}

static void setup(WbRopeView *v, int w, int h, WbFit fit, bool transparent)
{
    WbRopeViewSetup s = {.width = w, .height = h, .samples = 4, .fit = fit, .world_w = 4,
                         .world_h = 3, .background = {0, 0, 1, 1}, .transparent = transparent};
    WbError e;
    cr_assert_eq(wb_rope_view_init(v, &s, &e), WB_OK, "%s", e.msg);
}

Test(rope_view, fit_letterboxes_and_fill_crops)
{
    WbRopeView v;
    setup(&v, 200, 100, WB_FIT_CONTAIN, false);
    /* 4 × 3 m into 200 × 100: the height limits, 100/3 px per metre,
     * centred horizontally */
    cr_expect_float_eq(wb_rope_view_px_per_m(&v), 100.0f / 3.0f, 1e-5);
    cr_expect_float_eq(v.to_px.ox, (200.0f - 400.0f / 3.0f) / 2.0f, 1e-4);
    cr_expect_float_eq(v.to_px.oy, 0.0f, 1e-6);
    wb_rope_view_free(&v);
    setup(&v, 200, 100, WB_FIT_COVER, false);
    cr_expect_float_eq(wb_rope_view_px_per_m(&v), 50.0f, 1e-6);
    cr_expect_float_eq(v.to_px.ox, 0.0f, 1e-6);
    cr_expect_float_eq(v.to_px.oy, (100.0f - 150.0f) / 2.0f, 1e-4);
    wb_rope_view_free(&v);
}

Test(rope_view, rope_is_exact_inside_and_soft_at_its_edge)
{
    WbRopeView v;
    setup(&v, 80, 60, WB_FIT_CONTAIN, true);   /* 20 px per metre */
    WbImage img;
    WbError e;
    cr_assert_eq(wb_image_alloc(&img, 80, 60, &e), WB_OK);
    /* a horizontal rope at y = 1.5 m = 30 px, 8 px wide: rows 26..33 */
    float x[3] = {0.5f, 2.0f, 3.5f}, y[3] = {1.5f, 1.5f, 1.5f};
    wb_rope_view_begin(&v);
    wb_rope_view_rope(&v, x, y, 3, 8.0f, RED);
    cr_assert_eq(wb_rope_view_end(&v, NULL, &img, &e), WB_OK, "%s", e.msg);
    const uint8_t *c = pixel(&img, 40, 29);
    cr_expect(c[0] == 255 && c[1] == 0 && c[2] == 0 && c[3] == 255, "inside %d %d %d %d", c[0],
              c[1], c[2], c[3]);
    cr_expect_eq(pixel(&img, 40, 20)[3], 0, "background stays transparent");
    /* round cap: the rope ends at x = 10 px with a half-disc of radius 4,
     * so a pixel at the cap's rim is partly covered */
    int partial = 0;
    for (int px = 4; px < 12; px++)
        for (int py = 25; py < 35; py++) {
            int a = pixel(&img, px, py)[3];
            partial += a > 0 && a < 255;
        }
    cr_expect_gt(partial, 4, "antialiased cap");
    wb_image_free(&img);
    wb_rope_view_free(&v);
}

Test(rope_view, shapes_and_the_same_bytes_for_every_pool)
{
    WbRopeView v;
    setup(&v, 160, 120, WB_FIT_CONTAIN, false);   /* 40 px per metre */
    WbImage a, b;
    WbError e;
    cr_assert_eq(wb_image_alloc(&a, 160, 120, &e), WB_OK);
    cr_assert_eq(wb_image_alloc(&b, 160, 120, &e), WB_OK);
    double ox[4] = {1, 2, 2, 1}, oy[4] = {1, 1, 2, 2};
    float rx[4] = {0.2f, 1.3f, 2.9f, 3.7f}, ry[4] = {0.3f, 2.4f, 0.8f, 2.7f};
    WbPool *pool;
    cr_assert_eq(wb_pool_create(&pool, 3, &e), WB_OK);
    for (int pass = 0; pass < 2; pass++) {
        wb_rope_view_begin(&v);
        wb_rope_view_obstacle(&v, ox, oy, 4, (WbColor){0, 1, 0, 1}, 2.0f);
        wb_rope_view_rope(&v, rx, ry, 4, 3.0f, RED);
        wb_rope_view_weight(&v, 3.0f, 0.5f, 6.0f, RED);
        wb_rope_view_anchor(&v, 0.5f, 2.5f, 4.0f);
        cr_assert_eq(wb_rope_view_end(&v, pass ? pool : NULL, pass ? &b : &a, &e), WB_OK);
    }
    cr_expect_eq(memcmp(a.px, b.px, (size_t)160 * 120 * 4), 0, "pool changed the frame");
    /* obstacle interior (1.5, 1.2 m) is its fill; the background is blue */
    const uint8_t *g = pixel(&a, 60, 48);
    cr_expect(g[0] == 0 && g[1] == 255 && g[2] == 0, "fill %d %d %d", g[0], g[1], g[2]);
    const uint8_t *bg = pixel(&a, 150, 110);
    cr_expect(bg[0] == 0 && bg[1] == 0 && bg[2] == 255 && bg[3] == 255);
    /* the weight's centre is its colour, the anchor's centre is light */
    const uint8_t *w = pixel(&a, 120, 20);
    cr_expect(w[0] == 255 && w[1] == 0 && w[2] == 0, "weight %d %d %d", w[0], w[1], w[2]);
    cr_expect_gt(pixel(&a, 20, 100)[1], 200, "anchor centre");
    wb_pool_destroy(pool);
    wb_image_free(&a);
    wb_image_free(&b);
    wb_rope_view_free(&v);
}
