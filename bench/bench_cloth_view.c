/* bench_cloth_view.c — cost of one cloth frame of the silk-over-the-form
 * example at 1280×720: the simulation of one 30 fps output frame (12
 * substeps of the reference 70×70 drape, PBD 6 × 10 per 1/60 s, one
 * thread) and the 3D render of it (cloth, smooth dress form, floor checker,
 * contact shadow; 4 samples per pixel; one thread and two).  The cloth
 * first falls for 1.5 s, so the render sees a draped, folded sheet; both
 * are then timed frame by frame while it keeps moving.  Prints medians.
 * Runs in a few seconds. */
#include <stdio.h>

#include "bench_util.h"
#include "core/image.h"
#include "core/pool.h"
#include "render/camera.h"
#include "render/cloth_view.h"
#include "sim/cloth.h"

enum { FRAMES = 15, W = 1280, H = 720 };

int main(void)
{
    WbError err;
    wb_error_clear(&err);
    WbClothDef def = wb_cloth_default();
    WbClothState st;
    if (wb_cloth_init(&st, &def, &err)) {
        fprintf(stderr, "bench_cloth_view: %s\n", err.msg);
        return 1;
    }
    const double target[3] = {0.0, 1.02, 0.0};
    WbClothViewSetup s = {
        .width = W,
        .height = H,
        .samples = 4,
        .camera = wb_camera_orbit(target, 30.0, 10.0, 2.45),
        .background = {0.14f, 0.15f, 0.17f, 1.0f},
        .colour = {0.69f, 0.12f, 0.24f},
        .sheen = 0.8f,
        .gloss = 0.45f,
        .floor = true,
        .floor_y = 0.0f,
        .floor_colour = {0.6f, 0.59f, 0.56f},
    };
    WbClothView v;
    WbPool *pool = NULL;
    WbImage img;
    const float body[3] = {0.85f, 0.81f, 0.77f};
    if (wb_cloth_view_init(&v, &s, &err) ||
        wb_cloth_view_add_mannequin(&v, &def.body, body, &err) ||
        wb_image_alloc(&img, W, H, &err) || wb_pool_create(&pool, 2, &err)) {
        fprintf(stderr, "bench_cloth_view: %s\n", err.msg);
        return 1;
    }
    wb_cloth_advance(&st, &def, 1.5);   /* fall onto the form first */
    double sim[FRAMES], one[FRAMES], two[FRAMES];
    int status = 0;
    for (int f = 0; f < FRAMES && !status; f++) {
        double t0 = wb_bench_now_ms();
        wb_cloth_advance(&st, &def, 1.0 / 30.0);
        double t1 = wb_bench_now_ms();
        status |= wb_cloth_view_draw(&v, &st, NULL, &img, &err) != WB_OK;
        double t2 = wb_bench_now_ms();
        status |= wb_cloth_view_draw(&v, &st, pool, &img, &err) != WB_OK;
        double t3 = wb_bench_now_ms();
        sim[f] = t1 - t0;
        one[f] = t2 - t1;
        two[f] = t3 - t2;
    }
    if (status) {
        fprintf(stderr, "bench_cloth_view: %s\n", err.msg);
        return 1;
    }
    printf("cloth frame, silk 70x70 over the dress form, %dx%d, 4 samples (median of %d)\n", W,
           H, FRAMES);
    printf("  simulate one 30 fps frame (12 substeps x 10 iterations): %8.2f ms\n",
           wb_bench_median(sim, FRAMES));
    printf("  render, 1 thread:                                       %8.2f ms\n",
           wb_bench_median(one, FRAMES));
    printf("  render, 2 threads:                                      %8.2f ms\n",
           wb_bench_median(two, FRAMES));
    wb_pool_destroy(pool);
    wb_image_free(&img);
    wb_cloth_view_free(&v);
    wb_cloth_free(&st);
    return 0;
}
