/* bench_sink — encode throughput of the output path.
 *
 * For 1280×720 and 1920×1080: H.264 (preset veryfast, crf 18) into an .mp4,
 * and the y4m sink into /dev/null (RGBA→YUV conversion and the write path
 * alone, no encoder).  Prints frames per second over the whole clip and the
 * median time of one wb_sink_write call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "io/sink.h"

/* A photo-like frame: smooth ramps, a moving bright disc, light grain. */
static void fill(WbImage *img, int i)
{
    uint32_t seed = 2463534242u + (uint32_t)i;
    int cx = img->w / 4 + i * 7, cy = img->h / 2;
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
            p[3] = 255;
        }
    }
}

static int run(const char *label, const char *path, int w, int h, int n, const char *preset)
{
    WbSinkOptions o = {.path = path, .width = w, .height = h, .fps_num = 30, .fps_den = 1,
                       .crf = 18, .preset = preset, .threads = 0};
    WbError err;
    WbSink *s;
    WbImage frames[4];
    for (int k = 0; k < 4; k++) {
        if (wb_image_alloc(&frames[k], w, h, &err) != WB_OK)
            return 1;
        fill(&frames[k], k * 5);
    }
    double *t = malloc(sizeof *t * (size_t)n);
    double t0 = wb_bench_now_ms();
    if (!t || wb_sink_open(&s, &o, &err) != WB_OK) {
        fprintf(stderr, "%s: %s\n", label, err.msg);
        return 1;
    }
    for (int i = 0; i < n; i++) {
        double a = wb_bench_now_ms();
        if (wb_sink_write(s, &frames[i % 4], &err) != WB_OK) {
            fprintf(stderr, "%s: %s\n", label, err.msg);
            wb_sink_close(s, false, &err);
            return 1;
        }
        t[i] = wb_bench_now_ms() - a;
    }
    if (wb_sink_close(s, true, &err) != WB_OK) {
        fprintf(stderr, "%s: %s\n", label, err.msg);
        return 1;
    }
    double total_s = (wb_bench_now_ms() - t0) * 1e-3;
    printf("%-28s %5dx%-5d %4d frames  %7.1f fps  median write %7.2f ms\n", label, w, h, n,
           n / total_s, wb_bench_median(t, n));
    free(t);
    for (int k = 0; k < 4; k++)
        wb_image_free(&frames[k]);
    return 0;
}

int main(void)
{
    char mp4[64];
    snprintf(mp4, sizeof mp4, "/tmp/bench_sink_%ld.mp4", (long)getpid());
    int rc = 0;
    rc |= run("y4m -> /dev/null (convert)", "/dev/null", 1280, 720, 60, NULL);
    rc |= run("y4m -> /dev/null (convert)", "/dev/null", 1920, 1080, 40, NULL);
    rc |= run("mp4 x264 veryfast crf 18", mp4, 1280, 720, 60, "veryfast");
    rc |= run("mp4 x264 veryfast crf 18", mp4, 1920, 1080, 40, "veryfast");
    unlink(mp4);
    return rc;
}
