/* bench_render.c — photo-view frame time: grid 512 (524,288 triangles),
 * a photo of 2048×1536, a grab-deformed mesh, outputs 1280×720 and
 * 1920×1080, antialiasing 4, 1 and 2 threads; also the two-pass masked
 * frame, and the cost of each antialiasing level (5 frames each).  Prints
 * the median of 11 frames per case (after one warm-up); `--case W H
 * THREADS AA MASKED [FRAMES]` times one case (15 frames) for profiling.
 *
 *   build/bench/bench_render [--quick]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "core/pool.h"
#include "render/photo_view.h"

#define GRID 512
#define IMG_W 2048
#define IMG_H 1536

/* A detailed test photo: gradients, stripes and pseudo-random speckle. */
static void make_photo(WbImage *img)
{
    uint32_t s = 12345;
    for (int y = 0; y < img->h; y++) {
        uint8_t *row = wb_image_row(img, y);
        for (int x = 0; x < img->w; x++) {
            s = s * 1664525u + 1013904223u;
            row[4 * x + 0] = (uint8_t)(x * 255 / img->w);
            row[4 * x + 1] = (uint8_t)(((x / 16 + y / 16) & 1) ? 200 : 40);
            row[4 * x + 2] = (uint8_t)(s >> 24);
            row[4 * x + 3] = 255;
        }
    }
}

typedef struct Timing {
    double wall, cpu; /* medians, ms per frame */
} Timing;

static Timing run_case(int w, int h, int threads, int aa, int masked, int runs,
                       const float *x, const float *y, const float *rx, const float *ry,
                       const float *mask, const WbImage *photo)
{
    WbError err;
    WbPool *pool = NULL;
    if (wb_pool_create(&pool, threads, &err) != WB_OK) {
        fprintf(stderr, "bench_render: %s\n", err.msg);
        exit(1);
    }
    WbPhotoViewDef def = {.image = photo, .grid = GRID, .width = w, .height = h,
                          .fit = WB_FIT_CONTAIN, .background = {0, 0, 0, 1}, .samples = aa};
    WbPhotoView view;
    WbImage out;
    if (wb_photo_view_init(&view, &def, &err) != WB_OK || wb_image_alloc(&out, w, h, &err) != WB_OK) {
        fprintf(stderr, "bench_render: %s\n", err.msg);
        exit(1);
    }
    /* Every frame here is the same: time drawing it, not carrying it over. */
    wb_raster_carry_over(&view.raster, false);
    double t[64], c[64];
    for (int i = -1; i < runs; i++) {
        double t0 = wb_bench_now_ms(), c0 = wb_bench_cpu_ms();
        if (wb_photo_view_draw(&view, pool, x, y, rx, ry, masked ? mask : NULL, &out, &err) != WB_OK) {
            fprintf(stderr, "bench_render: %s\n", err.msg);
            exit(1);
        }
        if (i >= 0) {
            t[i] = wb_bench_now_ms() - t0;
            c[i] = wb_bench_cpu_ms() - c0;
        }
    }
    wb_image_free(&out);
    wb_photo_view_free(&view);
    wb_pool_destroy(pool);
    return (Timing){wb_bench_median(t, runs), wb_bench_median(c, runs)};
}

int main(int argc, char **argv)
{
    /* 11 frames per main case keeps the whole run near 20 s on the shared
     * 2-core machine; --quick for a smoke run. */
    int runs = argc > 1 && strcmp(argv[1], "--quick") == 0 ? 5 : 11;
    WbError err;
    WbImage photo;
    if (wb_image_alloc(&photo, IMG_W, IMG_H, &err) != WB_OK) {
        fprintf(stderr, "bench_render: %s\n", err.msg);
        return 1;
    }
    make_photo(&photo);
    size_t n = (size_t)(GRID + 1) * (GRID + 1);
    float *rx = malloc(n * sizeof *rx), *ry = malloc(n * sizeof *ry);
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *mask = malloc(n * sizeof *mask);
    if (!rx || !ry || !x || !y || !mask)
        return 1;
    wb_photo_view_rest(GRID, IMG_W, IMG_H, rx, ry);
    /* A grab at the centre pulled by 0.15 shorter edges, radius 1/6; the
     * mask is a soft disc around the same spot. */
    double gx = 0.5 * IMG_W / IMG_H, gy = 0.5, r = 1.0 / 6.0;
    for (size_t i = 0; i < n; i++) {
        double dx = rx[i] - gx, dy = ry[i] - gy, d2 = dx * dx + dy * dy;
        double w = exp(-d2 / (2 * r * r));
        x[i] = rx[i] + (float)(0.15 * w);
        y[i] = ry[i] + (float)(0.08 * w);
        double md = sqrt(d2) / (2 * r);
        mask[i] = (float)(md < 0.8 ? 1.0 : md > 1.0 ? 0.0 : (1.0 - md) / 0.2);
    }
    if ((argc == 7 || argc == 8) && strcmp(argv[1], "--case") == 0) {
        /* --case W H THREADS AA MASKED [FRAMES]: one case, for profiling
         * (FRAMES 1..64, default 15; 1 suits valgrind's instruction counts). */
        int frames = argc == 8 ? atoi(argv[7]) : 15;
        frames = frames < 1 ? 1 : frames > 64 ? 64 : frames;
        Timing tm = run_case(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]),
                             atoi(argv[6]), frames, x, y, rx, ry, mask, &photo);
        printf("%.2f ms/frame wall, %.2f ms CPU\n", tm.wall, tm.cpu);
        return 0;
    }
    printf("bench_render: photo view, grid %d (%d triangles), photo %dx%d, median of %d frames\n"
           "  (wall = elapsed per frame; cpu = CPU time of all threads per frame)\n",
           GRID, 2 * GRID * GRID, IMG_W, IMG_H, runs);
    static const struct { int w, h; } sizes[] = {{1280, 720}, {1920, 1080}};
    for (int si = 0; si < 2; si++)
        for (int masked = 0; masked < 2; masked++)
            for (int threads = 1; threads <= 2; threads++) {
                Timing tm = run_case(sizes[si].w, sizes[si].h, threads, 4, masked, runs, x, y,
                                     rx, ry, mask, &photo);
                printf("  %4dx%-4d aa 4   %s  threads %d  wall %7.2f ms  cpu %7.2f ms\n",
                       sizes[si].w, sizes[si].h, masked ? "masked (2 passes)" : "plain (1 pass)   ",
                       threads, tm.wall, tm.cpu);
                fflush(stdout);
            }
    for (int aa = 1; aa <= 16; aa *= 2) {
        if (aa == 2)
            continue;
        Timing tm = run_case(1280, 720, 2, aa, 0, 5, x, y, rx, ry, mask, &photo);
        printf("  1280x720  aa %-2d  plain (1 pass)     threads 2  wall %7.2f ms  cpu %7.2f ms\n",
               aa, tm.wall, tm.cpu);
    }
    free(rx);
    free(ry);
    free(x);
    free(y);
    free(mask);
    wb_image_free(&photo);
    return 0;
}
