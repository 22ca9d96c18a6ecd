/* bench_util.h — the clocks and the median every benchmark times with.
 *
 * Header-only (static inline): each bench/bench_<module>.c is its own
 * program built by the Makefile's bench rule from that one file and the
 * library, so a shared .c would need a rule of its own; an inline header
 * needs none.
 *
 * Clocks return doubles in the unit their name says.  CLOCK_MONOTONIC is
 * the wall clock of a run; CLOCK_PROCESS_CPUTIME_ID (all threads of the
 * process) and CLOCK_THREAD_CPUTIME_ID are the work done, which on the
 * shared 2-core machine is steadier than the wall clock.
 */
#ifndef WB_BENCH_UTIL_H
#define WB_BENCH_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "core/image.h"

/* Milliseconds on clock id (CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID, ...). */
static inline double wb_bench_clock_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Wall-clock milliseconds (CLOCK_MONOTONIC). */
static inline double wb_bench_now_ms(void)
{
    return wb_bench_clock_ms(CLOCK_MONOTONIC);
}

/* CPU milliseconds of the whole process, all threads. */
static inline double wb_bench_cpu_ms(void)
{
    return wb_bench_clock_ms(CLOCK_PROCESS_CPUTIME_ID);
}

/* Wall-clock nanoseconds (CLOCK_MONOTONIC), for per-call costs below 1 µs. */
static inline double wb_bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* qsort comparator: ascending doubles. */
static inline int wb_bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sort v[0..n) ascending in place (n ≥ 0). */
static inline void wb_bench_sort(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, wb_bench_cmp_double);
}

/* The median of v[0..n), n ≥ 1: v is sorted in place and v[n/2] returned
 * (the upper middle for even n, an actual sample, never an average). */
static inline double wb_bench_median(double *v, int n)
{
    wb_bench_sort(v, n);
    return v[n / 2];
}

/* Frame i of a photo-like sequence: smooth ramps, a bright disc that moves
 * `step` px to the right per frame, light grain; alpha a left-to-right
 * ramp with `alpha_ramp`, else opaque.  The same bytes on every run. */
static inline void wb_bench_photo_frame(WbImage *img, int i, int step, bool alpha_ramp)
{
    uint32_t seed = 2463534242u + (uint32_t)i;
    int cx = img->w / 4 + i * step, cy = img->h / 2;
    for (int y = 0; y < img->h; y++) {
        uint8_t *p = wb_image_row(img, y);
        for (int x = 0; x < img->w; x++, p += 4) {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            int grain = (int)(seed & 7) - 4;
            int dx = x - cx, dy = y - cy;
            int disc = dx * dx + dy * dy < img->h * img->h / 16 ? 80 : 0;
            int r = x * 200 / img->w + disc + grain, g = y * 200 / img->h + disc + grain;
            int b = 120 + disc / 2 + grain;
            p[0] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
            p[1] = (uint8_t)(g < 0 ? 0 : g > 255 ? 255 : g);
            p[2] = (uint8_t)(b < 0 ? 0 : b > 255 ? 255 : b);
            p[3] = alpha_ramp ? (uint8_t)(x * 255 / img->w) : 255;
        }
    }
}

#endif
