/* bench_yuv — RGBA → YUV 4:2:0 (io/yuv.c) per 1920×1080 frame, each path.
 *
 * Four photo-like frames (ramps, a bright disc, grain) are converted in
 * turn, as the sink converts each new frame, into planes laid out like an
 * AVFrame's (rows 64-byte aligned).  The paths alternate call by call, in
 * the order ABBA, so that the machine's speed swings hit them alike; the
 * medians of the per-call wall clock and thread CPU time are printed, and
 * the paths' planes are compared byte for byte first (exit 1 if they
 * differ).  The baseline is the code the AVX2 path replaced in the sink.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "io/yuv.h"

enum { W = 1920, H = 1080, FRAMES = 4, ROUNDS = 120 };

typedef struct {
    uint8_t *plane[4];
    int linesize[4];
} Planes;

static int planes_alloc(Planes *p)
{
    int ls[4] = {W, (W / 2 + 63) & ~63, (W / 2 + 63) & ~63, W};
    int rows[4] = {H, (H + 1) / 2, (H + 1) / 2, H};
    for (int k = 0; k < 4; k++) {
        p->linesize[k] = ls[k];
        p->plane[k] = aligned_alloc(64, (size_t)ls[k] * (size_t)rows[k]);
        if (!p->plane[k])
            return 1;
        memset(p->plane[k], 0, (size_t)ls[k] * (size_t)rows[k]);
    }
    return 0;
}

static size_t planes_bytes(const Planes *p, int k)
{
    return (size_t)p->linesize[k] * (size_t)(k == 1 || k == 2 ? (H + 1) / 2 : H);
}

/* One conversion through path; its wall and thread CPU milliseconds. */
static void timed(WbYuvPath path, const WbImage *img, Planes *p, bool alpha, double *wall,
                  double *cpu)
{
    uint8_t *pl[4] = {p->plane[0], p->plane[1], p->plane[2], alpha ? p->plane[3] : NULL};
    double c0 = wb_bench_clock_ms(CLOCK_THREAD_CPUTIME_ID), w0 = wb_bench_now_ms();
    wb_rgba_to_yuv420_path(path, img, pl, p->linesize);
    *wall = wb_bench_now_ms() - w0;
    *cpu = wb_bench_clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
}

int main(void)
{
    WbImage img[FRAMES];
    WbError err;
    Planes out[2];
    for (int i = 0; i < FRAMES; i++) {
        if (wb_image_alloc(&img[i], W, H, &err) != WB_OK) {
            fprintf(stderr, "bench_yuv: %s\n", err.msg);
            return 1;
        }
        wb_bench_photo_frame(&img[i], i, 37, true);
    }
    if (planes_alloc(&out[0]) || planes_alloc(&out[1])) {
        fprintf(stderr, "bench_yuv: out of memory\n");
        return 1;
    }
    /* The widest path WOBBLE_SIMD allows against the baseline: AVX-512
     * where there; WOBBLE_SIMD=8 times the AVX2 path, the sink's. */
    const WbYuvPath paths[2] = {WB_YUV_BASELINE, wb_yuv_path_available(WB_YUV_AVX512)
                                                     ? WB_YUV_AVX512
                                                     : WB_YUV_AVX2};
    if (!wb_yuv_path_available(WB_YUV_AVX2))
        printf("(no AVX2 on this CPU or build: both columns are the baseline)\n");

    /* Same bytes, every frame, with alpha. */
    for (int i = 0; i < FRAMES; i++) {
        double w, c;
        for (int k = 0; k < 2; k++)
            timed(paths[k], &img[i], &out[k], true, &w, &c);
        for (int k = 0; k < 4; k++)
            if (memcmp(out[0].plane[k], out[1].plane[k], planes_bytes(&out[0], k)) != 0) {
                fprintf(stderr, "bench_yuv: frame %d plane %d differs between paths\n", i, k);
                return 1;
            }
    }

    printf("%-22s %12s %12s %12s %12s %8s\n", "1920x1080, ms/frame", "base wall", "wide wall",
           "base cpu", "wide cpu", "cpu x");
    for (int alpha = 0; alpha < 2; alpha++) {
        double *t = malloc(sizeof *t * 4 * ROUNDS);
        if (!t)
            return 1;
        double *wall[2] = {t, t + ROUNDS}, *cpu[2] = {t + 2 * ROUNDS, t + 3 * ROUNDS};
        for (int r = 0; r < ROUNDS; r++) {
            const WbImage *src = &img[r % FRAMES];
            int first = r & 1; /* ABBA: A B in even rounds, B A in odd ones */
            for (int q = 0; q < 2; q++) {
                int k = q ^ first;
                timed(paths[k], src, &out[k], alpha, &wall[k][r], &cpu[k][r]);
            }
        }
        double mw[2], mc[2];
        for (int k = 0; k < 2; k++) {
            mw[k] = wb_bench_median(wall[k], ROUNDS);
            mc[k] = wb_bench_median(cpu[k], ROUNDS);
        }
        printf("%-22s %12.3f %12.3f %12.3f %12.3f %8.2f\n", alpha ? "yuva420p" : "yuv420p",
               mw[0], mw[1], mc[0], mc[1], mc[0] / mc[1]);
        free(t);
    }
    for (int i = 0; i < FRAMES; i++)
        wb_image_free(&img[i]);
    for (int k = 0; k < 2; k++)
        for (int p = 0; p < 4; p++)
            free(out[k].plane[p]);
    return 0;
}
