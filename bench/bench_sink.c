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
        wb_bench_photo_frame(&frames[k], k * 5, 7, false);
    }
    double *t = malloc(sizeof *t * (size_t)n);
    double t0 = wb_bench_now_ms();
    if (!t || wb_sink_open(&s, &o, &err) != WB_OK) {
        fprintf(stderr, "%s: %s\n", label, err.msg);
        return 1;
    }
    for (int i = 0; i < n; i++) {
        double a = wb_bench_now_ms();
        if (wb_sink_write(s, &frames[i % 4], NULL, &err) != WB_OK) {
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
