/* bench_jiggle3d.c — cost of one jiggle 3D frame at 1280×720.
 *
 * For the orb (the densest mesh, ≥ 20,000 triangles) alone and with the
 * floor and contact shadow, and the walker with them, squash styling on,
 * 4 samples per pixel, on ONE thread (pool NULL), prints the median ms per
 * frame of
 *   - the whole frame (deform + normals + record + rasterize + resolve), and
 *   - the part this module adds before the rasterizer (deform, squash,
 *     normals), measured alone.
 * The bones' offsets change every frame (a circle of radius 0.15) so
 * nothing is cached.  Prints a hash of one fixed frame per case (the same
 * hash = the same bytes).  Runs in a few seconds; `bench_jiggle3d CASE`
 * (orb, orb+floor, walker+floor) runs one case. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "render/jiggle3d_view.h"
#include "sim/jiggle.h"

enum { RUNS = 9, FRAMES = 6, W = 1280, H = 720 };

static void offsets_at(int k, double off[9])
{
    for (int b = 0; b < 3; b++) {
        double a = 0.7 * k + 2.1 * b;
        off[3 * b] = 0.15 * cos(a);
        off[3 * b + 1] = 0.15 * sin(a) - 0.05;
        off[3 * b + 2] = 0.05 * sin(2 * a);
    }
}

static int bench_shape(WbWeightShape shape, const char *name, bool floor)
{
    WbError err;
    WbWeightMap m;
    if (wb_weightmap_init(&m, 512, 256, &err))
        return 1;
    wb_weightmap_preset(&m, shape);
    WbJiggle3Setup s = {
        .width = W, .height = H, .samples = 4, .shape = shape,
        .colour = {0.93, 0.62, 0.55, 1}, .background = {0.1, 0.11, 0.14, 1},
        .squash = 0.25, .floor = floor, .floor_y = -1.0,
    };
    WbJiggle3View v;
    WbImage img;
    if (wb_jiggle3_view_init(&v, &s, &m, &err) || wb_image_alloc(&img, W, H, &err)) {
        fprintf(stderr, "bench_jiggle3d: %s\n", err.msg);
        return 1;
    }
    wb_weightmap_free(&m);
    double frame[RUNS], cpu[RUNS], prep[RUNS], off[9];
    WbJiggle3Frame f = {.offsets = off, .yaw = 25, .pitch = 12, .fov = 40};
    int k = 0;
    offsets_at(k++, off);
    wb_jiggle3_view_draw(&v, &f, NULL, &img, &err); /* warm: first-frame allocations */
    for (int r = 0; r < RUNS; r++) {
        double t0 = wb_bench_now_ms(), c0 = wb_bench_cpu_ms();
        for (int i = 0; i < FRAMES; i++) {
            offsets_at(k++, off);
            if (wb_jiggle3_view_draw(&v, &f, NULL, &img, &err)) {
                fprintf(stderr, "bench_jiggle3d: %s\n", err.msg);
                return 1;
            }
        }
        frame[r] = (wb_bench_now_ms() - t0) / FRAMES;
        /* CPU time of this one-thread process: what the frame cost when the
         * shared machine's other load stretches the wall clock. */
        cpu[r] = (wb_bench_cpu_ms() - c0) / FRAMES;
        /* the view's own per-frame work: the standard's deform, squash, normals */
        size_t n = (size_t)v.mesh.n_vertices;
        t0 = wb_bench_now_ms();
        for (int i = 0; i < FRAMES; i++) {
            offsets_at(k++, off);
            memcpy(v.pos, v.mesh.pos, sizeof *v.pos * 3 * n);
            wb_jiggle_deform(v.pos, 3, n, v.weights, 3, off);
            wb_jiggle3_squash(v.pos, v.mesh.pos, v.weights, n, v.bone_rest, off, 0.25, v.reach);
            wb_mesh3_normals_into(v.pos, (int)n, v.mesh.idx, v.mesh.n_triangles, v.normal,
                                  v.normal_acc);
        }
        prep[r] = (wb_bench_now_ms() - t0) / FRAMES;
    }
    /* A fixed frame to hash, whatever ran before. */
    offsets_at(0, off);
    if (wb_jiggle3_view_draw(&v, &f, NULL, &img, &err)) {
        fprintf(stderr, "bench_jiggle3d: %s\n", err.msg);
        return 1;
    }
    const double wall = wb_bench_median(frame, RUNS), cpu_med = wb_bench_median(cpu, RUNS);
    printf("%-8s %-8s %6d tris %6d verts  frame %7.2f ms (%5.1f fps)  deform+normals %5.2f ms  "
           "FNV-1a %016llx  cpu %6.2f ms (best %6.2f)\n",
           name, floor ? "+floor" : "alone", v.mesh.n_triangles, v.mesh.n_vertices, wall,
           1e3 / wall, wb_bench_median(prep, RUNS), (unsigned long long)wb_image_hash(&img), cpu_med,
           cpu[0]);
    wb_image_free(&img);
    wb_jiggle3_view_free(&v);
    return 0;
}

int main(int argc, char **argv)
{
    /* Optional: one case, "orb", "orb+floor" or "walker+floor" (profiling). */
    const char *only = argc > 1 ? argv[1] : NULL;
    printf("jiggle 3D view, %dx%d, 4 samples, squash on, one thread (median of %d x %d "
           "frames; frame = wall, cpu = process CPU time); +floor adds the floor checker and contact shadow\n", W, H, RUNS, FRAMES);
    int rc = 0;
    if (!only || strcmp(only, "orb") == 0)
        rc |= bench_shape(WB_WEIGHT_ORB, "orb", false);
    if (!only || strcmp(only, "orb+floor") == 0)
        rc |= bench_shape(WB_WEIGHT_ORB, "orb", true);
    if (!only || strcmp(only, "walker+floor") == 0)
        rc |= bench_shape(WB_WEIGHT_WALKER, "walker", true);
    return rc;
}
