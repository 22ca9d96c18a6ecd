/* test_scratch.c — grow-only scratch buffers (suite scratch): the doubling
 * sequence from the first capacity, kept contents, no reallocation when the
 * buffer is already large enough, and failure that leaves the buffer as it
 * was. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/scratch.h"

Test(scratch, grows_by_doubling_from_the_first_capacity)
{
    void *buf = NULL;
    size_t cap = 0;
    cr_assert(wb_scratch_reserve(&buf, &cap, 1, sizeof(double), 64));
    cr_expect_eq(cap, 64);
    cr_assert(wb_scratch_reserve(&buf, &cap, 65, sizeof(double), 64));
    cr_expect_eq(cap, 128);
    cr_assert(wb_scratch_reserve(&buf, &cap, 1000, sizeof(double), 64));
    cr_expect_eq(cap, 1024);
    /* first 0 is taken as 1: 1, 2, 4, 8 */
    void *b2 = NULL;
    size_t c2 = 0;
    cr_assert(wb_scratch_reserve(&b2, &c2, 5, 1, 0));
    cr_expect_eq(c2, 8);
    free(buf);
    free(b2);
}

Test(scratch, growth_keeps_the_contents)
{
    void *buf = NULL;
    size_t cap = 0;
    cr_assert(wb_scratch_reserve(&buf, &cap, 10, sizeof(int), 16));
    int *a = buf;
    for (int i = 0; i < 16; i++)
        a[i] = 7 * i + 1;
    cr_assert(wb_scratch_reserve(&buf, &cap, 5000, sizeof(int), 16));
    cr_expect_eq(cap, 8192);
    a = buf;
    for (int i = 0; i < 16; i++)
        cr_expect_eq(a[i], 7 * i + 1, "element %d", i);
    free(buf);
}

Test(scratch, the_buffer_stays_when_it_fits_or_cannot_grow)
{
    void *buf = NULL;
    size_t cap = 0;
    cr_assert(wb_scratch_reserve(&buf, &cap, 100, 4, 256));
    void *before = buf;
    /* enough room: nothing moves */
    cr_assert(wb_scratch_reserve(&buf, &cap, 256, 4, 256));
    cr_assert(wb_scratch_reserve(&buf, &cap, 0, 4, 256));
    cr_expect_eq(buf, before);
    cr_expect_eq(cap, 256);
    /* more bytes than a size_t holds: refused, the buffer kept */
    cr_expect_not(wb_scratch_reserve(&buf, &cap, SIZE_MAX / 4 + 1, 4, 256));
    cr_expect_eq(buf, before);
    cr_expect_eq(cap, 256);
    free(buf);
}

Test(scratch, xy_counts_points_of_two_floats)
{
    float *xy = NULL;
    int cap = 0;
    cr_assert(wb_scratch_reserve_xy(&xy, &cap, 65, 64));
    cr_expect_eq(cap, 128);
    xy[2 * 127] = 1.5f; /* the last point is there (ASan would flag it) */
    xy[2 * 127 + 1] = -2.5f;
    cr_assert(wb_scratch_reserve_xy(&xy, &cap, 129, 64));
    cr_expect_eq(cap, 256);
    cr_expect_eq(xy[2 * 127], 1.5f);
    cr_expect_eq(xy[2 * 127 + 1], -2.5f);
    float *before = xy;
    cr_assert(wb_scratch_reserve_xy(&xy, &cap, 256, 64));
    cr_expect_eq(xy, before);
    cr_assert(wb_scratch_reserve_xy(&xy, &cap, -1, 64));
    cr_expect_eq(cap, 256);
    free(xy);
}
