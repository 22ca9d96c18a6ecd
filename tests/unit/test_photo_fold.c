/* The fold limit (sim/photo_fold.h): folded cells come back, others stay
 * bit for bit, mask-0 vertices stay at rest. */
#include <criterion/criterion.h>
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

static int64_t limit(WbPhotoState *s)
{
    WbPhotoFoldScratch w;
    cr_assert(wb_photo_fold_scratch_init(&w, s->grid));
    int64_t n = wb_photo_fold_limit(s, &w);
    wb_photo_fold_scratch_free(&w);
    return n;
}

static size_t at(const WbPhotoState *s, int i, int j)
{
    return (size_t)j * (size_t)(s->grid + 1) + (size_t)i;
}

Test(photo_fold, a_vertex_pushed_past_its_neighbour_is_unfolded)
{
    WbPhotoState s = grid_state(8);
    float h = s.rx[1] - s.rx[0];
    s.x[at(&s, 4, 4)] += 1.7f * h;      /* past (5, 4): four cells turn over */
    s.vx[at(&s, 4, 4)] = 3.0f;
    cr_assert_gt(wb_photo_fold_count(&s), 0);
    cr_assert_gt(limit(&s), 0);
    cr_assert_eq(wb_photo_fold_count(&s), 0);
    cr_assert_lt(s.vx[at(&s, 4, 4)], 3.0f, "the folding motion is damped too");
    wb_photo_state_free(&s);
}

Test(photo_fold, an_unfolded_mesh_is_left_bit_for_bit)
{
    WbPhotoState s = grid_state(16);
    for (size_t i = 0; i < s.n; i++) {
        s.x[i] += 0.3f * (s.rx[i] - 0.5f) * (s.ry[i] - 0.2f);  /* a smooth shear */
        s.vy[i] = s.rx[i];
    }
    size_t bytes = s.n * sizeof(float);
    float *x = malloc(bytes), *vy = malloc(bytes);
    memcpy(x, s.x, bytes);
    memcpy(vy, s.vy, bytes);
    cr_assert_eq(limit(&s), 0);
    cr_assert(memcmp(x, s.x, bytes) == 0 && memcmp(vy, s.vy, bytes) == 0);
    free(x);
    free(vy);
    wb_photo_state_free(&s);
}

Test(photo_fold, mask_zero_vertices_stay_at_rest)
{
    WbPhotoState s = grid_state(8);
    float *m = wb_photo_array_alloc(s.n);
    for (size_t i = 0; i < s.n; i++)
        m[i] = s.rx[i] < 0.45f ? 1.0f : 0.0f;
    wb_photo_apply_mask(&s, m);
    float h = s.rx[1] - s.rx[0];
    s.x[at(&s, 3, 4)] += 2.5f * h;      /* over the unmasked (4, 4) and beyond */
    cr_assert_gt(wb_photo_fold_count(&s), 0);
    limit(&s);
    cr_assert_eq(wb_photo_fold_count(&s), 0);
    for (size_t i = 0; i < s.n; i++)
        if (m[i] == 0.0f)
            cr_assert(s.x[i] == s.rx[i] && s.y[i] == s.ry[i] && s.vx[i] == 0.0f);
    wb_photo_state_free(&s);
}
