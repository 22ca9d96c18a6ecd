/* scratch.c — grow-only scratch buffers (see scratch.h). */
#include "core/scratch.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

bool wb_scratch_reserve(void **buf, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap)
        return true;
    size_t max = SIZE_MAX / elem; /* most elements whose bytes fit a size_t */
    if (need > max)
        return false;
    size_t n = *cap ? *cap : first ? first : 1;
    while (n < need)
        n = n <= max / 2 ? 2 * n : need;
    void *p = realloc(*buf, n * elem);
    if (!p)
        return false;
    *buf = p;
    *cap = n;
    return true;
}

bool wb_scratch_reserve_xy(float **xy, int *cap, int need, int first)
{
    if (need <= *cap)
        return true;
    void *buf = *xy;
    size_t n = (size_t)*cap;
    if (!wb_scratch_reserve(&buf, &n, (size_t)need, 2 * sizeof **xy, (size_t)first))
        return false;
    *xy = buf;
    /* a capacity past INT_MAX is recorded as INT_MAX: never more than there is */
    *cap = n > INT_MAX ? INT_MAX : (int)n;
    return true;
}
