/* The fold limit (sim/photo_fold.h): motion that would fold is taken back,
 * a mesh that does not come near folding stays bit for bit, mask-0
 * vertices stay at rest, and no sequence of pulls, however wild, leaves a
 * flat or inverted triangle. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/photo.h"
#include "sim/photo_fold.h"

static WbPhotoState grid_state(int grid)
{
    WbPhotoState s;
    WbError err = {0};
    cr_assert_eq(wb_photo_state_init(&s, grid, 100, 100, &err), WB_OK);
    return s;
}

static size_t at(const WbPhotoState *s, int i, int j)
{
    return (size_t)j * (size_t)(s->grid + 1) + (size_t)i;
}

Test(photo_fold, a_vertex_pushed_past_its_neighbour_goes_back)
{
    WbPhotoState s = grid_state(8);
    WbPhotoFoldScratch w;
    cr_assert(wb_photo_fold_scratch_init(&w, s.grid));
    wb_photo_fold_save(&s, &w);
    float h = s.rx[1] - s.rx[0];
    size_t v = at(&s, 4, 4);
    s.x[v] += 1.7f * h;      /* past (5, 4): four cells turn over */
    s.vx[v] = 3.0f;
    cr_assert_gt(wb_photo_fold_count(&s), 0);
    cr_assert_gt(wb_photo_fold_limit(&s, &w), 0);
    cr_assert_eq(wb_photo_fold_count(&s), 0);
    cr_assert(s.x[v] == s.rx[v] && s.y[v] == s.ry[v], "the vertex went back to where it was");
    wb_photo_fold_scratch_free(&w);
    wb_photo_state_free(&s);
}

Test(photo_fold, an_unfolded_mesh_is_left_bit_for_bit)
{
    WbPhotoState s = grid_state(16);
    WbPhotoFoldScratch w;
    cr_assert(wb_photo_fold_scratch_init(&w, s.grid));
    wb_photo_fold_save(&s, &w);
    for (size_t i = 0; i < s.n; i++) {
        s.x[i] += 0.3f * (s.rx[i] - 0.5f) * (s.ry[i] - 0.2f);  /* a smooth shear */
        s.vy[i] = s.rx[i];
    }
    size_t bytes = s.n * sizeof(float);
    float *x = malloc(bytes), *vy = malloc(bytes);
    memcpy(x, s.x, bytes);
    memcpy(vy, s.vy, bytes);
    cr_assert_eq(wb_photo_fold_limit(&s, &w), 0);
    cr_assert(memcmp(x, s.x, bytes) == 0 && memcmp(vy, s.vy, bytes) == 0);
    free(x);
    free(vy);
    wb_photo_fold_scratch_free(&w);
    wb_photo_state_free(&s);
}

/* What did not move since the save (here the right half) is never moved. */
Test(photo_fold, vertices_at_their_saved_place_stay)
{
    WbPhotoState s = grid_state(8);
    WbPhotoFoldScratch w;
    cr_assert(wb_photo_fold_scratch_init(&w, s.grid));
    wb_photo_fold_save(&s, &w);
    float h = s.rx[1] - s.rx[0];
    s.x[at(&s, 3, 4)] += 2.5f * h;      /* over (4, 4) and beyond */
    cr_assert_gt(wb_photo_fold_count(&s), 0);
    wb_photo_fold_limit(&s, &w);
    cr_assert_eq(wb_photo_fold_count(&s), 0);
    for (size_t i = 0; i < s.n; i++)
        if (s.rx[i] >= 0.45f)
            cr_assert(s.x[i] == s.rx[i] && s.y[i] == s.ry[i] && s.vx[i] == 0.0f);
    wb_photo_fold_scratch_free(&w);
    wb_photo_state_free(&s);
}

static uint32_t next(uint32_t *r)
{
    *r = *r * 1664525u + 1013904223u;
    return *r >> 8;
}

/* A uniform number in [-1, 1). */
static float unit(uint32_t *r)
{
    return (float)next(r) / (float)(1u << 23) - 1.0f;
}

/* The guarantee: runs of wild motion (every vertex jumps up to 3 cells, a
 * Gaussian patch is dragged 6 cells, both at once), each limited, never
 * leave a flat or inverted corner triangle, and every triangle keeps at
 * least min(floor, half its area before the run). */
Test(photo_fold, wild_runs_never_leave_a_fold)
{
    WbPhotoState s = grid_state(24);
    WbPhotoFoldScratch w;
    cr_assert(wb_photo_fold_scratch_init(&w, s.grid));
    size_t cols = (size_t)s.grid + 1;
    float h = s.rx[1] - s.rx[0], lim = WB_PHOTO_FOLD_MIN * h * h;
    float *was = malloc(s.n * 4 * sizeof *was);
    uint32_t r = 22;
    int64_t limited = 0, folded_raw = 0;
    for (int run = 0; run < 300; run++) {
        wb_photo_fold_save(&s, &w);
        for (size_t j = 0; j + 1 < cols; j++)
            for (size_t i = 0; i + 1 < cols; i++) {
                size_t a = j * cols + i;
                const float px[4] = {s.x[a], s.x[a + 1], s.x[a + cols + 1], s.x[a + cols]};
                const float py[4] = {s.y[a], s.y[a + 1], s.y[a + cols + 1], s.y[a + cols]};
                for (int k = 0; k < 4; k++) {
                    int n = (k + 1) & 3, p = (k + 3) & 3;
                    was[a * 4 + k] = (px[n] - px[k]) * (py[p] - py[k]) -
                                     (py[n] - py[k]) * (px[p] - px[k]);
                }
            }
        float cx = 0.5f + 0.4f * unit(&r), cy = 0.5f + 0.4f * unit(&r);
        float gx = 6 * h * unit(&r), gy = 6 * h * unit(&r), jump = run % 3 ? 3 * h : 0.0f;
        for (size_t v = 0; v < s.n; v++) {
            float dx = s.rx[v] - cx, dy = s.ry[v] - cy;
            float g = expf(-(dx * dx + dy * dy) / 0.02f);
            s.x[v] += g * gx + jump * unit(&r);
            s.y[v] += g * gy + jump * unit(&r);
            /* and back towards rest now and then, through the folds */
            if (run % 7 == 0) {
                s.x[v] = s.rx[v] + 0.3f * (s.x[v] - s.rx[v]);
                s.y[v] = s.ry[v] + 0.3f * (s.y[v] - s.ry[v]);
            }
        }
        folded_raw += wb_photo_fold_count(&s);
        limited += wb_photo_fold_limit(&s, &w);
        cr_assert_eq(wb_photo_fold_count(&s), 0, "run %d left a fold", run);
        for (size_t j = 0; j + 1 < cols; j++)
            for (size_t i = 0; i + 1 < cols; i++) {
                size_t a = j * cols + i;
                const float px[4] = {s.x[a], s.x[a + 1], s.x[a + cols + 1], s.x[a + cols]};
                const float py[4] = {s.y[a], s.y[a + 1], s.y[a + cols + 1], s.y[a + cols]};
                for (int k = 0; k < 4; k++) {
                    int n = (k + 1) & 3, p = (k + 3) & 3;
                    float ar = (px[n] - px[k]) * (py[p] - py[k]) -
                               (py[n] - py[k]) * (px[p] - px[k]);
                    float keep = 0.5f * was[a * 4 + k];
                    cr_assert(ar >= lim || ar >= keep, "run %d cell (%zu, %zu) corner %d: %g < %g",
                              run, i, j, k, ar, keep < lim ? keep : lim);
                }
            }
    }
    cr_assert_gt(folded_raw, 1000, "the runs fold without the limit");
    cr_assert_gt(limited, 0);
    free(was);
    wb_photo_fold_scratch_free(&w);
    wb_photo_state_free(&s);
}
