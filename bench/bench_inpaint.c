/* bench_inpaint.c — the one-off fill behind a masked object (core/inpaint.c)
 * on a 1000×1000 photo-like picture (wb_bench_photo_frame), a disc mask of
 * radius 200 px with a 3 px soft edge (about a head in a portrait), and a
 * mask ten times smaller.  The median of 7 runs, CPU and wall milliseconds.
 * Printed as `name value unit` lines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "core/inpaint.h"

#define SIZE 1000
#define RUNS 7

static float *disc(int n, double r)
{
    float *m = malloc((size_t)n * (size_t)n * sizeof *m);
    if (!m)
        return NULL;
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++) {
            double d = hypot(x + 0.5 - 0.45 * n, y + 0.5 - 0.4 * n) - r;
            m[(size_t)y * (size_t)n + (size_t)x] = (float)(d <= 0 ? 1 : d < 3 ? 1 - d / 3 : 0);
        }
    return m;
}

static int run(const char *name, const WbImage *img, const float *mask)
{
    double cpu[RUNS], wall[RUNS];
    WbInpaintDef def = {.margin = WB_INPAINT_MARGIN};
    for (int i = 0; i < RUNS; i++) {
        WbImage out;
        WbError err;
        double c0 = wb_bench_cpu_ms(), w0 = wb_bench_now_ms();
        if (wb_inpaint(img, mask, &def, &out, &err) != WB_OK) {
            fprintf(stderr, "bench_inpaint: %s\n", err.msg);
            return 1;
        }
        cpu[i] = wb_bench_cpu_ms() - c0;
        wall[i] = wb_bench_now_ms() - w0;
        wb_image_free(&out);
    }
    printf("%s_cpu %.1f ms\n", name, wb_bench_median(cpu, RUNS));
    printf("%s_wall %.1f ms\n", name, wb_bench_median(wall, RUNS));
    return 0;
}

int main(void)
{
    WbImage img;
    WbError err;
    if (wb_image_alloc(&img, SIZE, SIZE, &err) != WB_OK)
        return 1;
    wb_bench_photo_frame(&img, 0, 0, false);
    float *head = disc(SIZE, 200), *small = disc(SIZE, 20);
    int rc = !head || !small;
    if (!rc)
        rc = run("inpaint_1000_r200", &img, head);
    if (!rc)
        rc = run("inpaint_1000_r20", &img, small);
    free(head);
    free(small);
    wb_image_free(&img);
    return rc;
}
