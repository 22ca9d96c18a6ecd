/* bench_raster3d.c — 3D rasterizer frame time: a lit, back-face-culled
 * torus of 32,768 triangles filling much of a 1280×720 frame, 4 samples,
 * ONE thread (a stress case for the rasterizer: the jiggle issue's target,
 * under 5 ms per frame for a 3D view of at least 20,000 triangles, is
 * measured on the jiggle view itself by bench_jiggle3d), and the same on a
 * textured lit floor crossing the near plane with a two-sided cloth-like
 * sheet of 20,000 triangles.  Prints the median of 21 frames (after two
 * warm-ups), wall and CPU time, and a hash of each case's last frame (the
 * same hash = the same bytes); `--frames N` changes the count and
 * `--case torus|cloth` runs one case (for profiling).  The last line is
 * JSON.
 *
 *   build/bench/bench_raster3d [--frames N] [--case torus|cloth]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/pool.h"
#include "render/mesh3.h"
#include "render/raster3d.h"

#define W 1280
#define H 720

static double now_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct Scene {
    WbMeshBuf mesh, floor;
    WbTexture tex;
    int n_triangles;
} Scene;

/* Frame f of the torus scene: the camera orbits a little per frame so
 * nothing is cached between frames. */
static void draw_torus(WbRaster3 *r, const Scene *s, int f)
{
    WbCamera cam = wb_camera_orbit((const double[3]){0, 0, 0}, 20.0 + f, 35.0, 4.2);
    wb_raster3_begin(r, &cam, NULL, wb_rgba_premul(0.08, 0.08, 0.1, 1.0));
    WbMesh3 m = {.n_vertices = s->mesh.n_vertices, .pos = s->mesh.pos,
                 .normal = s->mesh.normal, .indices = s->mesh.idx,
                 .n_triangles = s->mesh.n_triangles, .paint = WB_PAINT_COLOR,
                 .color = wb_rgba_premul(0.3, 0.6, 0.85, 1.0),
                 .material = wb_material_default(), .opacity = 1.0f, .cull_back = true};
    wb_raster3_mesh(r, &m);
}

static void draw_cloth(WbRaster3 *r, const Scene *s, int f)
{
    WbCamera cam = {.eye = {0.3 + 0.01 * f, 1.4, 3.2}, .target = {0, 0.5, 0}, .up = {0, 1, 0},
                    .fov_y = 50.0, .near = 0.05, .far = 200.0};
    wb_raster3_begin(r, &cam, NULL, wb_rgba_premul(0.5, 0.6, 0.7, 1.0));
    WbMaterial fm = wb_material_default();
    WbMesh3 fl = {.n_vertices = s->floor.n_vertices, .pos = s->floor.pos,
                  .normal = s->floor.normal, .indices = s->floor.idx,
                  .n_triangles = s->floor.n_triangles, .paint = WB_PAINT_TEXTURE,
                  .texture = &s->tex, .uv = s->floor.uv, .to_texel = {256, 256, 0, 0},
                  .material = fm, .opacity = 1.0f};
    wb_raster3_mesh(r, &fl);
    WbMaterial cm = wb_material_default();
    cm.two_sided = true;
    cm.sheen = 0.4f;
    cm.back_tint[0] = 0.7f, cm.back_tint[1] = 0.7f, cm.back_tint[2] = 0.9f;
    WbMesh3 m = {.n_vertices = s->mesh.n_vertices, .pos = s->mesh.pos,
                 .normal = s->mesh.normal, .indices = s->mesh.idx,
                 .n_triangles = s->mesh.n_triangles, .paint = WB_PAINT_COLOR,
                 .color = wb_rgba_premul(0.8, 0.25, 0.3, 1.0), .material = cm, .opacity = 1.0f};
    wb_raster3_mesh(r, &m);
}

typedef void (*DrawFn)(WbRaster3 *r, const Scene *s, int f);

static int time_case(DrawFn draw, const Scene *s, int frames, double *wall, double *cpu,
                     uint64_t *hash)
{
    WbError err;
    WbRaster3 *r;
    WbImage img;
    if (wb_raster3_create(&r, W, H, 4, &err) != WB_OK || wb_image_alloc(&img, W, H, &err) != WB_OK) {
        fprintf(stderr, "bench_raster3d: %s\n", err.msg);
        return 1;
    }
    double *tw = malloc((size_t)frames * sizeof *tw), *tc = malloc((size_t)frames * sizeof *tc);
    if (!tw || !tc) {
        fprintf(stderr, "bench_raster3d: out of memory\n");
        return 1;
    }
    for (int f = -2; f < frames; f++) {
        double w0 = now_ms(CLOCK_MONOTONIC), c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
        draw(r, s, f);
        if (wb_raster3_end(r, NULL, &img, &err) != WB_OK) {
            fprintf(stderr, "bench_raster3d: %s\n", err.msg);
            return 1;
        }
        if (f >= 0) {
            tw[f] = now_ms(CLOCK_MONOTONIC) - w0;
            tc[f] = now_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
        }
    }
    qsort(tw, (size_t)frames, sizeof *tw, cmp_double);
    qsort(tc, (size_t)frames, sizeof *tc, cmp_double);
    *wall = tw[frames / 2];
    *cpu = tc[frames / 2];
    *hash = wb_image_hash(&img);
    free(tw);
    free(tc);
    wb_image_free(&img);
    wb_raster3_destroy(r);
    return 0;
}

int main(int argc, char **argv)
{
    int frames = 21;
    const char *only = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--frames") == 0)
            frames = atoi(argv[i + 1]) > 0 ? atoi(argv[i + 1]) : 21;
        else if (strcmp(argv[i], "--case") == 0)
            only = argv[i + 1];
    }
    WbError err;
    Scene torus = {0}, cloth = {0};
    const float o[3] = {0, 0, 0};
    /* 256 × 64 × 2 = 32,768 triangles. */
    if (wb_mesh3_torus(&torus.mesh, o, 1.0f, 0.42f, 256, 64, &err) != WB_OK) {
        fprintf(stderr, "bench_raster3d: %s\n", err.msg);
        return 1;
    }
    /* A 100 × 100 sheet (20,000 triangles) draped in waves, over a floor. */
    if (wb_mesh3_plane(&cloth.mesh, (const float[3]){0, 0.6f, 0}, 2.4f, 2.4f, 100, 100, &err) != WB_OK ||
        wb_mesh3_plane(&cloth.floor, o, 60.0f, 60.0f, 8, 8, &err) != WB_OK) {
        fprintf(stderr, "bench_raster3d: %s\n", err.msg);
        return 1;
    }
    for (int i = 0; i < cloth.mesh.n_vertices; i++) {
        float *p = cloth.mesh.pos + 3 * i;
        p[1] += 0.25f * sinf(3.0f * p[0]) * cosf(2.0f * p[2]) - 0.15f * p[0] * p[0];
    }
    if (wb_mesh3_normals(cloth.mesh.pos, cloth.mesh.n_vertices, cloth.mesh.idx,
                         cloth.mesh.n_triangles, cloth.mesh.normal, &err) != WB_OK) {
        fprintf(stderr, "bench_raster3d: %s\n", err.msg);
        return 1;
    }
    WbImage chk;
    if (wb_image_alloc(&chk, 256, 256, &err) != WB_OK) {
        fprintf(stderr, "bench_raster3d: %s\n", err.msg);
        return 1;
    }
    for (int y = 0; y < 256; y++)
        for (int x = 0; x < 256; x++) {
            uint8_t *p = wb_image_row(&chk, y) + 4 * x;
            int on = ((x / 16) + (y / 16)) & 1;
            p[0] = on ? 220 : 60, p[1] = on ? 220 : 70, p[2] = on ? 210 : 80, p[3] = 255;
        }
    if (wb_texture_from_image(&cloth.tex, &chk, &err) != WB_OK) {
        fprintf(stderr, "bench_raster3d: %s\n", err.msg);
        return 1;
    }
    wb_image_free(&chk);

    double tw = 0, tcpu = 0, cw = 0, ccpu = 0;
    uint64_t th = 0, ch = 0;
    if ((!only || strcmp(only, "torus") == 0) && time_case(draw_torus, &torus, frames, &tw, &tcpu, &th))
        return 1;
    if ((!only || strcmp(only, "cloth") == 0) && time_case(draw_cloth, &cloth, frames, &cw, &ccpu, &ch))
        return 1;
    printf("bench_raster3d: %dx%d, 4 samples, 1 thread, median of %d frames\n", W, H, frames);
    printf("  lit torus, %d triangles (back faces culled)       wall %6.2f ms  cpu %6.2f ms\n",
           torus.mesh.n_triangles, tw, tcpu);
    printf("  two-sided sheet %d tris + textured lit floor     wall %6.2f ms  cpu %6.2f ms\n",
           cloth.mesh.n_triangles, cw, ccpu);
    printf("  last frames' FNV-1a: torus %016llx  cloth %016llx\n", (unsigned long long)th,
           (unsigned long long)ch);
    printf("{\"torus_tris\": %d, \"torus_ms\": %.3f, \"torus_cpu_ms\": %.3f, \"cloth_tris\": %d, "
           "\"cloth_ms\": %.3f, \"cloth_cpu_ms\": %.3f}\n",
           torus.mesh.n_triangles, tw, tcpu, cloth.mesh.n_triangles, cw, ccpu);
    wb_meshbuf_free(&torus.mesh);
    wb_meshbuf_free(&cloth.mesh);
    wb_meshbuf_free(&cloth.floor);
    wb_texture_free(&cloth.tex);
    return 0;
}
