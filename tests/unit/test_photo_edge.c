/* The apron beyond the photo's border (render/photo_edge.h): flat at rest
 * and where the border moves out, spanning exactly the gap where it moves
 * in, with texture coordinates that continue the photo (clamp) or reflect
 * it (mirror); and drawn, it leaves no background inside the frame. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/color.h"
#include "render/photo_edge.h"
#include "render/photo_view.h"

#define G 4
#define N ((G + 1) * (G + 1))
#define EN ((G + 3) * (G + 3))

typedef struct Lattice {
    float x[N], y[N], rx[N], ry[N];
    float ex[EN], ey[EN], eu[EN], ev[EN];
} Lattice;

/* A square photo's rest lattice, the current positions at rest. */
static void rest(Lattice *l)
{
    for (int j = 0; j <= G; j++)
        for (int i = 0; i <= G; i++) {
            int k = j * (G + 1) + i;
            l->rx[k] = l->x[k] = (float)i / G;
            l->ry[k] = l->y[k] = (float)j / G;
        }
}

static int e(int I, int J)
{
    return J * (G + 3) + I;
}

Test(photo_edge, at_rest_the_ring_lies_on_the_border_and_the_inside_is_the_photo)
{
    Lattice l;
    rest(&l);
    wb_photo_edge_lattice(G, 1, 1, WB_EDGE_CLAMP, l.x, l.y, l.rx, l.ry, l.ex, l.ey, l.eu, l.ev);
    for (int J = 0; J < G + 3; J++)
        for (int I = 0; I < G + 3; I++) {
            int i = I < 1 ? 0 : I > G + 1 ? G : I - 1;
            int j = J < 1 ? 0 : J > G + 1 ? G : J - 1;
            int k = j * (G + 1) + i;
            cr_assert(l.ex[e(I, J)] == l.rx[k] && l.ey[e(I, J)] == l.ry[k], "(%d, %d)", I, J);
            cr_assert(l.eu[e(I, J)] == l.rx[k] && l.ev[e(I, J)] == l.ry[k], "(%d, %d)", I, J);
        }
}

Test(photo_edge, a_border_pulled_in_leaves_the_ring_at_rest_with_continued_coordinates)
{
    Lattice l;
    rest(&l);
    const float d = 0.2f;
    for (int j = 0; j <= G; j++)   /* the left column moves right by d */
        l.x[j * (G + 1)] += d;
    wb_photo_edge_lattice(G, 1, 1, WB_EDGE_CLAMP, l.x, l.y, l.rx, l.ry, l.ex, l.ey, l.eu, l.ev);
    for (int J = 1; J <= G + 1; J++) {
        cr_assert_eq(l.ex[e(0, J)], 0.0f, "the ring stays on the rest edge");
        cr_assert_eq(l.ex[e(1, J)], d, "the photo's border moved");
        cr_assert_eq(l.eu[e(0, J)], 0.0f, "clamp: the border texel continues");
        cr_assert_eq(l.ev[e(0, J)], l.ev[e(1, J)]);
    }
    wb_photo_edge_lattice(G, 1, 1, WB_EDGE_MIRROR, l.x, l.y, l.rx, l.ry, l.ex, l.ey, l.eu, l.ev);
    for (int J = 1; J <= G + 1; J++)
        cr_assert_float_eq(l.eu[e(0, J)], d, 1e-6f, "mirror: d beyond shows d inside");
}

/* A corner pulled in on the diagonal: each ring vertex goes back to the
 * rest edge along the axis it is outside on and keeps its border vertex's
 * place along the edge, so the cells' sides stand square to the edge; with
 * clamp it takes the border vertex's own texture coordinates, so every
 * border texel runs straight out (no kink at a cell's diagonal). */
Test(photo_edge, a_corner_pulled_in_diagonally_runs_the_border_square_to_the_edge)
{
    Lattice l;
    rest(&l);
    for (int j = 0; j <= G; j++)
        for (int i = 0; i <= G; i++) {
            float d = 0.25f * (1.0f - (float)i / G) * (1.0f - (float)j / G);
            l.x[j * (G + 1) + i] += d;
            l.y[j * (G + 1) + i] += d;
        }
    wb_photo_edge_lattice(G, 1, 1, WB_EDGE_CLAMP, l.x, l.y, l.rx, l.ry, l.ex, l.ey, l.eu, l.ev);
    for (int i = 0; i < G; i++) {   /* the top edge, pulled down and right */
        int k = i;
        cr_assert_eq(l.ex[e(i + 1, 0)], l.x[k], "top %d: along the edge b's own place", i);
        cr_assert_eq(l.ey[e(i + 1, 0)], 0.0f, "top %d: on the rest edge", i);
        cr_assert(l.eu[e(i + 1, 0)] == l.rx[k] && l.ev[e(i + 1, 0)] == l.ry[k], "top %d", i);
    }
    for (int j = 0; j < G; j++) {   /* the left edge, pulled right and down */
        int k = j * (G + 1);
        cr_assert_eq(l.ex[e(0, j + 1)], 0.0f, "left %d: on the rest edge", j);
        cr_assert_eq(l.ey[e(0, j + 1)], l.y[k], "left %d: along the edge b's own place", j);
        cr_assert(l.eu[e(0, j + 1)] == l.rx[k] && l.ev[e(0, j + 1)] == l.ry[k], "left %d", j);
    }
    cr_assert(l.ex[e(0, 0)] == 0.0f && l.ey[e(0, 0)] == 0.0f, "the corner at its rest corner");
}

Test(photo_edge, a_border_pushed_out_leaves_the_ring_on_it)
{
    Lattice l;
    rest(&l);
    for (int i = 0; i <= G; i++)   /* the bottom row moves down */
        l.y[G * (G + 1) + i] += 0.3f;
    wb_photo_edge_lattice(G, 1, 1, WB_EDGE_MIRROR, l.x, l.y, l.rx, l.ry, l.ex, l.ey, l.eu, l.ev);
    for (int I = 1; I <= G + 1; I++) {
        cr_assert_eq(l.ey[e(I, G + 2)], l.ey[e(I, G + 1)], "flat: it would cover the photo");
        cr_assert_eq(l.ev[e(I, G + 2)], 1.0f);
    }
}

Test(photo_edge, mirror_reflects_again_past_a_whole_photo)
{
    Lattice l;
    rest(&l);
    for (int j = 0; j <= G; j++)
        l.x[j * (G + 1) + G] -= 1.25f;   /* the right column far past the left edge */
    wb_photo_edge_lattice(G, 1, 1, WB_EDGE_MIRROR, l.x, l.y, l.rx, l.ry, l.ex, l.ey, l.eu, l.ev);
    /* u = 1 + 1.25 = 2.25: reflected at 1 to -0.25, then at 0 to 0.25 */
    cr_assert_float_eq(l.eu[e(G + 2, 2)], 0.25f, 1e-6f);
}

Test(photo_edge, the_ring_has_two_triangles_per_cell_around_the_grid)
{
    uint32_t idx[24 * (G + 1)];
    int n = wb_photo_edge_ring(G, idx);
    cr_assert_eq(n, 8 * (G + 1));
    for (int t = 0; t < 3 * n; t++) {
        int I = (int)idx[t] % (G + 3), J = (int)idx[t] / (G + 3);
        cr_assert(I <= 1 || I >= G + 1 || J <= 1 || J >= G + 1, "index %d is inside", t);
    }
}

/* Drawn: a photo whose left edge is pulled in by a fifth, or whose corner is
 * pulled in on the diagonal, shows no background pixel with clamp, mirror or
 * a colour, and the background with none. */
static int background_pixels(WbEdgeMode mode, bool diagonal)
{
    WbImage img = {0}, out = {0};
    WbError err = {0};
    cr_assert_eq(wb_image_alloc(&img, 64, 64, &err), WB_OK);
    for (int i = 0; i < 64 * 64; i++) {
        uint8_t *p = img.px + 4 * i;
        p[0] = (uint8_t)(i % 64 * 4), p[1] = (uint8_t)(i / 64 * 4), p[2] = 100, p[3] = 255;
    }
    WbPhotoView v;
    WbPhotoViewDef def = {.image = &img, .grid = G, .width = 64, .height = 64,
                          .background = {1, 0, 1, 1}, .samples = 4, .edge = mode,
                          .edge_color = {0, 1, 0, 1}};
    cr_assert_eq(wb_photo_view_init(&v, &def, &err), WB_OK, "%s", err.msg);
    cr_assert_eq(wb_image_alloc(&out, 64, 64, &err), WB_OK);
    Lattice l;
    rest(&l);
    for (int j = 0; j <= G; j++)
        for (int i = 0; i <= (diagonal ? G : 0); i++) {
            float d = diagonal ? 0.25f * (1.0f - (float)i / G) * (1.0f - (float)j / G) : 0.2f;
            l.x[j * (G + 1) + i] += d;
            l.y[j * (G + 1) + i] += diagonal ? d : 0.0f;
        }
    cr_assert_eq(wb_photo_view_draw(&v, NULL, l.x, l.y, l.rx, l.ry, NULL, &out, &err), WB_OK);
    int n = 0;
    for (int i = 0; i < 64 * 64; i++) {
        const uint8_t *p = out.px + 4 * i;
        n += p[0] > 200 && p[1] < 50 && p[2] > 200;
    }
    wb_photo_view_free(&v);
    wb_image_free(&out);
    wb_image_free(&img);
    return n;
}

Test(photo_edge, drawn_no_background_shows_but_with_none)
{
    for (int diagonal = 0; diagonal < 2; diagonal++) {
        cr_assert_eq(background_pixels(WB_EDGE_CLAMP, diagonal), 0);
        cr_assert_eq(background_pixels(WB_EDGE_MIRROR, diagonal), 0);
        cr_assert_eq(background_pixels(WB_EDGE_COLOR, diagonal), 0);
    }
    cr_assert_geq(background_pixels(WB_EDGE_NONE, false), 64 * 12, "a strip 0.2 of the width shows");
    cr_assert_geq(background_pixels(WB_EDGE_NONE, true), 64 * 4, "the corner's gap shows");
}
