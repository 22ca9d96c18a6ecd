/* Every sink writes a known pattern that a real reader (ffprobe / ffmpeg /
 * libpng) then reads back: codec, size, pixel format, frame count,
 * duration, and the first frame's pixels (exact for lossless kinds). */
#include <criterion/criterion.h>

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/png.h"
#include "io/sink.h"
#include "io/sink_pngseq.h"

#define TMPDIR_TEMPLATE "/tmp/wb_sink_XXXXXX"
#include "tmpdir.h"

TestSuite(sink, .init = make_dir, .fini = remove_dir);

/* The pattern: horizontal red ramp, vertical green ramp, blue by frame;
 * with alpha the right half is translucent (96). */
static void pattern(WbImage *img, int i, bool alpha)
{
    for (int y = 0; y < img->h; y++)
        for (int x = 0; x < img->w; x++) {
            uint8_t *p = wb_image_row(img, y) + 4 * x;
            p[0] = (uint8_t)(x * 255 / (img->w > 1 ? img->w - 1 : 1));
            p[1] = (uint8_t)(y * 255 / (img->h > 1 ? img->h - 1 : 1));
            p[2] = (uint8_t)(64 + 16 * i);
            p[3] = alpha && x >= img->w / 2 ? 96 : 255;
        }
}

static WbSinkOptions options(const char *path, int w, int h, bool alpha)
{
    return (WbSinkOptions){.path = path, .width = w, .height = h, .fps_num = 30, .fps_den = 1,
                           .alpha = alpha, .crf = -1, .threads = 0, .first_frame = 0};
}

/* Open, write n pattern frames, close(commit); returns close's status. */
static WbStatus write_clip(const WbSinkOptions *o, int n, bool commit, WbError *err)
{
    WbSink *s;
    WbStatus st = wb_sink_open(&s, o, err);
    cr_assert_eq(st, WB_OK, "open %s: %s", o->path, err->msg);
    WbImage img;
    cr_assert_eq(wb_image_alloc(&img, o->width, o->height, err), WB_OK);
    for (int i = 0; i < n; i++) {
        pattern(&img, i, o->alpha);
        cr_assert_eq(wb_sink_write(s, &img, NULL, err), WB_OK, "write %s: %s", o->path, err->msg);
    }
    wb_image_free(&img);
    return wb_sink_close(s, commit, err);
}

/* Read a command's whole stdout (NUL-terminated); *len gets its length. */
static char *run(const char *cmd, size_t *len)
{
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    size_t k;
    while ((k = fread(buf + n, 1, cap - n, p)) > 0) {
        n += k;
        if (n == cap)
            buf = realloc(buf, (cap *= 2) + 1);
    }
    buf[n] = '\0';
    pclose(p);
    if (len)
        *len = n;
    return buf;
}

/* One ffprobe value of the first video stream ("stream=codec_name",
 * "format=duration", "stream_tags=alpha_mode"), count_frames on. */
static char *probe(const char *path, const char *entry)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "ffprobe -v error -select_streams v:0 -count_frames -show_entries %s "
             "-of default=noprint_wrappers=1:nokey=1 '%s'",
             entry, path);
    char *out = run(cmd, NULL);
    out[strcspn(out, "\n")] = '\0';
    return out;
}

static void expect_probe(const char *path, const char *entry, const char *want)
{
    char *got = probe(path, entry);
    cr_expect_str_eq(got, want, "%s: %s is '%s', expected '%s'", path, entry, got, want);
    free(got);
}

static double probe_num(const char *path, const char *entry)
{
    char *got = probe(path, entry);
    double v = atof(got);
    free(got);
    return v;
}

/* Decode frame 0 to RGBA (w×h) with the ffmpeg CLI; `decoder` may force a
 * decoder (libvpx-vp9 for VP9 alpha). */
static uint8_t *decode_first(const char *path, const char *decoder, int w, int h)
{
    char cmd[1024];
    /* y4m has no field for the matrix: say it is BT.709, as the sink wrote. */
    bool y4m = strstr(path, ".y4m") != NULL;
    snprintf(cmd, sizeof cmd,
             "ffmpeg -nostdin -v error %s%s -i '%s' -frames:v 1 %s -f rawvideo -pix_fmt rgba -",
             decoder ? "-c:v " : "", decoder ? decoder : "", path,
             y4m ? "-vf scale=in_color_matrix=bt709" : "");
    size_t n;
    char *buf = run(cmd, &n);
    cr_assert_eq(n, (size_t)w * (size_t)h * 4, "%s decoded to %zu bytes", path, n);
    return (uint8_t *)buf;
}

/* Compare decoded RGBA (stride sw pixels) to the pattern's frame 0 over
 * w×h: max abs difference <= max_tol and mean <= mean_tol, on RGB, and on
 * alpha when check_alpha.  Pixels whose pattern alpha is < 255 are compared
 * on alpha only (their colour is not meaningful once blended). */
static void expect_close(const uint8_t *got, int sw, int w, int h, bool alpha, int max_tol,
                         double mean_tol, bool check_alpha, const char *what)
{
    WbImage want;
    WbError err;
    cr_assert_eq(wb_image_alloc(&want, w, h, &err), WB_OK);
    pattern(&want, 0, alpha);
    int maxd = 0;
    double sum = 0;
    long count = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const uint8_t *g = got + ((size_t)y * (size_t)sw + (size_t)x) * 4;
            const uint8_t *e = wb_image_row(&want, y) + 4 * x;
            for (int c = 0; c < 4; c++) {
                if ((c == 3 && !check_alpha) || (c < 3 && e[3] != 255))
                    continue;
                int d = abs(g[c] - e[c]);
                maxd = d > maxd ? d : maxd;
                sum += d;
                count++;
            }
        }
    double mean = sum / (double)count;
    cr_expect_leq(maxd, max_tol, "%s: max difference %d > %d", what, maxd, max_tol);
    cr_expect_leq(mean, mean_tol, "%s: mean difference %.3f > %.3f", what, mean, mean_tol);
    wb_image_free(&want);
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Nothing but `keep` (may be NULL) in the temp dir. */
static void expect_dir_holds_only(const char *keep)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -A '%s'", dir);
    char *out = run(cmd, NULL);
    char want[300];
    snprintf(want, sizeof want, "%s%s", keep ? keep : "", keep ? "\n" : "");
    cr_expect_str_eq(out, want, "folder holds:\n%s", out);
    free(out);
}

/* ---- kinds ------------------------------------------------------------ */

Test(sink, kind_follows_the_path)
{
    static const struct {
        const char *path;
        WbSinkKind kind;
    } ok[] = {
        {"a.mp4", WB_SINK_MP4},        {"dir/A.MP4", WB_SINK_MP4},   {"a.webm", WB_SINK_WEBM},
        {"a.mov", WB_SINK_MOV},        {"a.mkv", WB_SINK_MKV},       {"a.gif", WB_SINK_GIF},
        {"a.webp", WB_SINK_WEBP},      {"f_%04d.png", WB_SINK_PNGSEQ}, {"-", WB_SINK_Y4M},
        {"a.y4m", WB_SINK_Y4M},        {"/dev/null", WB_SINK_Y4M},
        {"a.apng", WB_SINK_APNG},      {"still.png", WB_SINK_PNG},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        WbSinkKind k;
        WbError err;
        cr_expect_eq(wb_sink_kind_for_path(ok[i].path, &k, &err), WB_OK, "%s", ok[i].path);
        cr_expect_eq(k, ok[i].kind, "%s", ok[i].path);
    }
    const char *bad[] = {"a.avi", "noext", "f_%04d.jpg"};
    for (size_t i = 0; i < 3; i++) {
        WbSinkKind k;
        WbError err;
        cr_expect_eq(wb_sink_kind_for_path(bad[i], &k, &err), WB_E_INPUT, "%s", bad[i]);
        cr_expect_not_null(strstr(err.msg, bad[i]), "%s", err.msg);
        cr_expect_not_null(strstr(err.msg, ".mp4"), "%s", err.msg);
    }
}

/* The notes for options an output ignores or frames it must merge. */
Test(sink, notes_warn_of_what_the_output_drops)
{
    WbSinkOptions o = {.path = "a.gif", .width = 64, .height = 48, .fps_num = 60, .fps_den = 1,
                       .crf = -1, .frame_count = 10};
    WbSinkNotes n;
    wb_sink_notes(&o, &n);
    cr_assert_eq(n.n, 1);
    cr_expect_not_null(strstr(n.msg[0], "40 of every 60 frames are kept"), "%s", n.msg[0]);
    o.fps_num = 50;
    wb_sink_notes(&o, &n);
    cr_expect_eq(n.n, 0);
    o.path = "a.mkv";
    o.crf = 20;
    o.crf_given = o.preset_given = true;
    wb_sink_notes(&o, &n);
    cr_assert_eq(n.n, 2);
    cr_expect_not_null(strstr(n.msg[0], "--crf is ignored by 'ffv1'"), "%s", n.msg[0]);
    cr_expect_not_null(strstr(n.msg[1], "--preset is ignored by 'ffv1'"), "%s", n.msg[1]);
    o.path = "a.mp4";
    wb_sink_notes(&o, &n);
    cr_expect_eq(n.n, 0);
}

Test(sink, png_pattern_names)
{
    char buf[64];
    WbError err;
    cr_expect_eq(wb_pngseq_name("f_%04d.png", 7, buf, sizeof buf, &err), WB_OK);
    cr_expect_str_eq(buf, "f_0007.png");
    cr_expect_eq(wb_pngseq_name("100%%_%d.png", 12345, buf, sizeof buf, &err), WB_OK);
    cr_expect_str_eq(buf, "100%_12345.png");
    cr_expect_eq(wb_pngseq_name("f_%3d.png", 5, buf, sizeof buf, &err), WB_OK);
    cr_expect_str_eq(buf, "f_  5.png");
    cr_expect_eq(wb_pngseq_name("f_%s.png", 1, buf, sizeof buf, &err), WB_E_INPUT);
    cr_expect_eq(wb_pngseq_name("f_%d_%d.png", 1, buf, sizeof buf, &err), WB_E_INPUT);
    cr_expect_eq(wb_pngseq_name("f_%%.png", 1, buf, sizeof buf, &err), WB_E_INPUT);
}

/* ---- each encoder ----------------------------------------------------- */

Test(sink, mp4_h264_reads_back)
{
    const char *path = in_dir("a.mp4");
    WbSinkOptions o = options(path, 64, 48, false);
    WbError err;
    cr_assert_eq(write_clip(&o, 5, true, &err), WB_OK, "%s", err.msg);
    expect_probe(path, "stream=codec_name", "h264");
    expect_probe(path, "stream=width", "64");
    expect_probe(path, "stream=height", "48");
    expect_probe(path, "stream=pix_fmt", "yuv420p");
    expect_probe(path, "stream=nb_read_frames", "5");
    expect_probe(path, "stream=color_space", "bt709");
    expect_probe(path, "stream=color_range", "tv");
    expect_probe(path, "stream=color_primaries", "bt709");
    cr_expect_float_eq(probe_num(path, "format=duration"), 5.0 / 30, 0.002);
    uint8_t *px = decode_first(path, NULL, 64, 48);
    expect_close(px, 64, 64, 48, false, 16, 3.0, false, "mp4");
    free(px);
    expect_dir_holds_only("a.mp4");
}

Test(sink, mp4_odd_size_is_padded_by_replication)
{
    const char *path = in_dir("odd.mp4");
    WbSinkOptions o = options(path, 63, 47, false);
    WbError err;
    cr_assert_eq(write_clip(&o, 3, true, &err), WB_OK, "%s", err.msg);
    expect_probe(path, "stream=width", "64");
    expect_probe(path, "stream=height", "48");
    expect_probe(path, "stream=nb_read_frames", "3");
    uint8_t *px = decode_first(path, NULL, 64, 48);
    expect_close(px, 64, 63, 47, false, 16, 3.0, false, "odd mp4");
    /* The extra column repeats the last one, the extra row the last row. */
    for (int y = 0; y < 47; y++)
        for (int c = 0; c < 3; c++)
            cr_expect_leq(abs(px[(y * 64 + 63) * 4 + c] - px[(y * 64 + 62) * 4 + c]), 12,
                          "column pad at row %d", y);
    for (int x = 0; x < 63; x++)
        for (int c = 0; c < 3; c++)
            cr_expect_leq(abs(px[(47 * 64 + x) * 4 + c] - px[(46 * 64 + x) * 4 + c]), 12,
                          "row pad at column %d", x);
    free(px);
}

Test(sink, mp4_knobs_preset_crf_pix_fmt)
{
    const char *path = in_dir("k.mp4");
    WbSinkOptions o = options(path, 32, 32, false);
    o.preset = "ultrafast";
    o.crf = 0;
    o.pix_fmt = "yuv444p";
    o.threads = 1;
    WbError err;
    cr_assert_eq(write_clip(&o, 2, true, &err), WB_OK, "%s", err.msg);
    expect_probe(path, "stream=pix_fmt", "yuv444p");
    expect_probe(path, "stream=nb_read_frames", "2");
    /* crf 0 with 4:4:4 is lossless in YUV: only the colour conversion's
     * rounding remains. */
    uint8_t *px = decode_first(path, NULL, 32, 32);
    expect_close(px, 32, 32, 32, false, 3, 1.0, false, "lossless h264");
    free(px);
}

Test(sink, webm_vp9_opaque_and_alpha)
{
    const char *path = in_dir("a.webm");
    WbSinkOptions o = options(path, 64, 48, false);
    WbError err;
    cr_assert_eq(write_clip(&o, 4, true, &err), WB_OK, "%s", err.msg);
    expect_probe(path, "stream=codec_name", "vp9");
    expect_probe(path, "stream=pix_fmt", "yuv420p");
    expect_probe(path, "stream=nb_read_frames", "4");
    cr_expect_float_eq(probe_num(path, "format=duration"), 4.0 / 30, 0.002);
    uint8_t *px = decode_first(path, NULL, 64, 48);
    expect_close(px, 64, 64, 48, false, 24, 3.0, false, "webm");
    free(px);

    const char *apath = in_dir("alpha.webm");
    o = options(apath, 64, 48, true);
    cr_assert_eq(write_clip(&o, 4, true, &err), WB_OK, "%s", err.msg);
    expect_probe(apath, "stream_tags=alpha_mode", "1");
    expect_probe(apath, "stream=nb_read_frames", "4");
    px = decode_first(apath, "libvpx-vp9", 64, 48);
    expect_close(px, 64, 64, 48, true, 24, 3.0, true, "webm alpha");
    free(px);
}

Test(sink, mov_prores4444_keeps_alpha)
{
    const char *path = in_dir("a.mov");
    WbSinkOptions o = options(path, 64, 48, true);
    WbError err;
    cr_assert_eq(write_clip(&o, 3, true, &err), WB_OK, "%s", err.msg);
    expect_probe(path, "stream=codec_name", "prores");
    expect_probe(path, "stream=profile", "4444");
    expect_probe(path, "stream=nb_read_frames", "3");
    expect_probe(path, "stream=color_space", "bt709");
    cr_expect_float_eq(probe_num(path, "format=duration"), 3.0 / 30, 0.002);
    char *pix = probe(path, "stream=pix_fmt");
    cr_expect(strncmp(pix, "yuva444p", 8) == 0, "pix_fmt %s has no alpha", pix);
    free(pix);
    uint8_t *px = decode_first(path, NULL, 64, 48);
    expect_close(px, 64, 64, 48, true, 6, 1.0, true, "prores");
    free(px);
}

Test(sink, mkv_ffv1_is_lossless)
{
    const char *path = in_dir("a.mkv");
    WbSinkOptions o = options(path, 33, 17, true);
    WbError err;
    cr_assert_eq(write_clip(&o, 3, true, &err), WB_OK, "%s", err.msg);
    expect_probe(path, "stream=codec_name", "ffv1");
    expect_probe(path, "stream=pix_fmt", "bgra");
    expect_probe(path, "stream=width", "33");
    expect_probe(path, "stream=nb_read_frames", "3");
    uint8_t *px = decode_first(path, NULL, 33, 17);
    expect_close(px, 33, 33, 17, true, 0, 0, true, "ffv1 rgba");
    /* Bit exact, translucent pixels' colour included. */
    WbImage want;
    cr_assert_eq(wb_image_alloc(&want, 33, 17, &err), WB_OK);
    pattern(&want, 0, true);
    cr_expect_eq(memcmp(px, want.px, 33 * 17 * 4), 0);
    wb_image_free(&want);
    free(px);

    const char *opath = in_dir("b.mkv");
    o = options(opath, 33, 17, false);
    cr_assert_eq(write_clip(&o, 2, true, &err), WB_OK, "%s", err.msg);
    expect_probe(opath, "stream=pix_fmt", "bgr0");
    px = decode_first(opath, NULL, 33, 17);
    expect_close(px, 33, 33, 17, false, 0, 0, true, "ffv1 rgb");
    free(px);
}

Test(sink, gif_palette_loop_and_transparency)
{
    const char *path = in_dir("a.gif");
    WbSinkOptions o = options(path, 64, 48, true);
    WbError err;
    cr_assert_eq(write_clip(&o, 6, true, &err), WB_OK, "%s", err.msg);
    expect_probe(path, "stream=codec_name", "gif");
    expect_probe(path, "stream=nb_read_frames", "6");
    cr_expect_float_eq(probe_num(path, "format=duration"), 6.0 / 30, 0.011);
    uint8_t *px = decode_first(path, NULL, 64, 48);
    /* One palette for the run, dithered: single pixels may be off by a
     * palette step, but 8×8 block averages (what the eye sees) stay close.
     * Frame 0 holds the run's extreme blue, at the edge of the palette's
     * gamut, hence the few levels of bias allowed. */
    expect_close(px, 64, 64, 48, true, 80, 16.0, false, "gif");
    WbImage want;
    cr_assert_eq(wb_image_alloc(&want, 64, 48, &err), WB_OK);
    pattern(&want, 0, true);
    for (int by = 0; by < 48; by += 8)
        for (int bx = 0; bx < 32; bx += 8)
            for (int c = 0; c < 3; c++) {
                double g = 0, e = 0;
                for (int y = by; y < by + 8; y++)
                    for (int x = bx; x < bx + 8; x++) {
                        g += px[(y * 64 + x) * 4 + c];
                        e += wb_image_row(&want, y)[4 * x + c];
                    }
                cr_expect_leq(fabs(g - e) / 64, 16.0, "block (%d,%d) channel %d: %.1f vs %.1f",
                              bx, by, c, g / 64, e / 64);
            }
    wb_image_free(&want);
    /* Alpha 96 < 128 became fully transparent, 255 stayed opaque. */
    cr_expect_eq(px[(10 * 64 + 50) * 4 + 3], 0);
    cr_expect_eq(px[(10 * 64 + 10) * 4 + 3], 255);
    free(px);
    /* Loops forever: NETSCAPE2.0 application extension with count 0. */
    FILE *f = fopen(path, "rb");
    static unsigned char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    unsigned char *app = NULL;
    for (size_t i = 0; i + 15 <= n && !app; i++)
        if (memcmp(buf + i, "NETSCAPE2.0", 11) == 0)
            app = buf + i;
    cr_assert_not_null(app);
    cr_expect_eq(app[11], 3);
    cr_expect_eq(app[12], 1);
    cr_expect_eq(app[13] | app[14] << 8, 0);
}

static unsigned le24(const unsigned char *p)
{
    return (unsigned)(p[0] | p[1] << 8 | p[2] << 16);
}

static unsigned le32(const unsigned char *p)
{
    return le24(p) | (unsigned)p[3] << 24;
}

Test(sink, webp_animated_loops_and_keeps_alpha)
{
    const char *path = in_dir("a.webp");
    WbSinkOptions o = options(path, 64, 48, true);
    WbError err;
    cr_assert_eq(write_clip(&o, 5, true, &err), WB_OK, "%s", err.msg);
    /* FFmpeg 5.1 cannot decode animated WebP, so walk the RIFF chunks. */
    FILE *f = fopen(path, "rb");
    static unsigned char d[1 << 18];
    size_t n = fread(d, 1, sizeof d, f);
    fclose(f);
    cr_assert(n > 30 && memcmp(d, "RIFF", 4) == 0 && memcmp(d + 8, "WEBP", 4) == 0);
    cr_expect_eq(le32(d + 4) + 8, n);
    int frames = 0, loop = -1, flags = 0;
    unsigned total_ms = 0;
    const unsigned char *first = NULL;
    unsigned first_len = 0;
    for (size_t i = 12; i + 8 <= n;) {
        unsigned len = le32(d + i + 4);
        const unsigned char *c = d + i + 8;
        if (memcmp(d + i, "VP8X", 4) == 0) {
            flags = c[0];
            cr_expect_eq(le24(c + 4) + 1, 64);
            cr_expect_eq(le24(c + 7) + 1, 48);
        } else if (memcmp(d + i, "ANIM", 4) == 0) {
            loop = c[4] | c[5] << 8;
        } else if (memcmp(d + i, "ANMF", 4) == 0) {
            if (!frames) {
                cr_expect_eq(le24(c + 6) + 1, 64);
                cr_expect_eq(le24(c + 9) + 1, 48);
                first = c + 16;
                first_len = len - 16;
            }
            total_ms += le24(c + 12);
            frames++;
        }
        i += 8 + len + (len & 1);
    }
    cr_expect_eq(frames, 5);
    cr_expect_eq(loop, 0, "loop count %d", loop);
    cr_expect(flags & 0x02, "VP8X animation flag");
    cr_expect(flags & 0x10, "VP8X alpha flag");
    cr_expect(total_ms >= 165 && total_ms <= 168, "total duration %u ms", total_ms);
    /* Rewrap frame 0 (ALPH + VP8 chunks) as a still WebP that FFmpeg reads. */
    cr_assert_not_null(first);
    const char *still = in_dir("still.webp");
    f = fopen(still, "wb");
    unsigned char hdr[30] = "RIFF....WEBPVP8X";
    unsigned riff = 4 + 18 + first_len;
    memcpy(hdr + 4, (unsigned char[]){riff & 255, riff >> 8 & 255, riff >> 16 & 255, riff >> 24}, 4);
    memcpy(hdr + 16, (unsigned char[]){10, 0, 0, 0, 0x10, 0, 0, 0, 63, 0, 0, 47, 0, 0}, 14);
    fwrite(hdr, 1, 30, f);
    fwrite(first, 1, first_len, f);
    cr_assert_eq(fclose(f), 0);
    uint8_t *px = decode_first(still, NULL, 64, 48);
    expect_close(px, 64, 64, 48, true, 40, 4.0, true, "webp frame 0");
    free(px);
}

Test(sink, png_sequence_numbers_and_exact_pixels)
{
    char pat[600];
    snprintf(pat, sizeof pat, "%s/f_%%04d.png", dir);
    WbSinkOptions o = options(pat, 20, 10, true);
    o.first_frame = 7;
    WbError err;
    cr_assert_eq(write_clip(&o, 3, true, &err), WB_OK, "%s", err.msg);
    for (int i = 0; i < 3; i++) {
        char name[64];
        snprintf(name, sizeof name, "f_%04d.png", 7 + i);
        WbImage got, want;
        cr_assert_eq(wb_png_read(in_dir(name), &got, &err), WB_OK, "%s", err.msg);
        cr_assert_eq(wb_image_alloc(&want, 20, 10, &err), WB_OK);
        pattern(&want, i, true);
        cr_expect_eq(memcmp(got.px, want.px, 20 * 10 * 4), 0, "%s", name);
        wb_image_free(&got);
        wb_image_free(&want);
    }
    expect_probe(in_dir("f_0007.png"), "stream=pix_fmt", "rgba");
    /* Opaque scenes write RGB; commit=false removes what was written. */
    snprintf(pat, sizeof pat, "%s/g_%%d.png", dir);
    o = options(pat, 20, 10, false);
    cr_assert_eq(write_clip(&o, 2, true, &err), WB_OK, "%s", err.msg);
    expect_probe(in_dir("g_1.png"), "stream=pix_fmt", "rgb24");
    snprintf(pat, sizeof pat, "%s/h_%%d.png", dir);
    o = options(pat, 20, 10, false);
    cr_assert_eq(write_clip(&o, 2, false, &err), WB_OK, "%s", err.msg);
    cr_expect(!exists(in_dir("h_0.png")) && !exists(in_dir("h_1.png")));
}

/* Run a y4m clip with stdout redirected into `file`. */
static WbStatus y4m_to_file(const char *file, const char *pix_fmt, int n, WbError *err)
{
    fflush(stdout);
    int saved = dup(1);
    int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert(saved >= 0 && fd >= 0);
    cr_assert(dup2(fd, 1) == 1);
    close(fd);
    WbSinkOptions o = options("-", 48, 32, false);
    o.pix_fmt = pix_fmt;
    WbStatus st = write_clip(&o, n, true, err);
    dup2(saved, 1);
    close(saved);
    return st;
}

Test(sink, y4m_on_stdout)
{
    const char *file = in_dir("out.y4m");
    WbError err;
    cr_assert_eq(y4m_to_file(file, NULL, 4, &err), WB_OK, "%s", err.msg);
    FILE *f = fopen(file, "rb");
    char line[200] = "";
    cr_assert_not_null(fgets(line, sizeof line, f));
    fclose(f);
    cr_expect(strncmp(line, "YUV4MPEG2 W48 H32 F30:1 ", 24) == 0, "header: %s", line);
    cr_expect_not_null(strstr(line, "C420"), "header: %s", line);
    cr_expect_not_null(strstr(line, "XCOLORRANGE=LIMITED"), "header: %s", line);
    expect_probe(file, "stream=nb_read_frames", "4");
    expect_probe(file, "stream=pix_fmt", "yuv420p");
    uint8_t *px = decode_first(file, NULL, 48, 32);
    expect_close(px, 48, 48, 32, false, 16, 3.0, false, "y4m");
    free(px);
    cr_assert_eq(y4m_to_file(file, "yuv444p", 2, &err), WB_OK, "%s", err.msg);
    expect_probe(file, "stream=pix_fmt", "yuv444p");
    expect_probe(file, "stream=nb_read_frames", "2");
}

/* Two buffers written in turn, as the frame loop does: frame k changes a
 * few 16×8 tiles of buffer k % 2 (random colours) and frame 5 is buffer 0
 * sent again unchanged.  With `damage` each write says which tiles
 * changed in its buffer (drop: leaving the first one out); without, it
 * says nothing.  Lossless FFV1 over yuv420p keeps the sink's conversion;
 * returns the whole clip decoded to raw yuv420p. */
static char *damaged_clip(const char *name, bool damage, bool drop, size_t *len)
{
    enum { W = 70, H = 38, TW = 16, TH = 8, NX = (W + TW - 1) / TW, NY = (H + TH - 1) / TH };
    const char *path = in_dir(name);
    WbSinkOptions o = options(path, W, H, false);
    o.pix_fmt = "yuv420p";
    WbError err;
    WbSink *s;
    cr_assert_eq(wb_sink_open(&s, &o, &err), WB_OK, "%s", err.msg);
    WbImage buf[2];
    for (int b = 0; b < 2; b++) {
        cr_assert_eq(wb_image_alloc(&buf[b], W, H, &err), WB_OK);
        pattern(&buf[b], b, false);
    }
    uint64_t rng = 7;
    for (int k = 0; k < 6; k++) {
        WbImage *img = &buf[k % 2];
        uint8_t flags[NX * NY] = {0};
        WbDamage d = wb_damage_init();
        if (k == 5) {
            d.kind = WB_DAMAGE_NONE;
        } else {
            bool first = true;
            for (int t = 0; t < NX * NY; t++) {
                rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                if ((rng >> 61) > 1 || k < 2)
                    continue;
                for (int y = t / NX * TH; y < H && y < (t / NX + 1) * TH; y++)
                    for (int x = t % NX * TW; x < W && x < (t % NX + 1) * TW; x++)
                        memcpy(wb_image_row(img, y) + 4 * x,
                               (uint8_t[]){(uint8_t)(rng >> 20), (uint8_t)(rng >> 30),
                                           (uint8_t)(rng >> 40), 255},
                               4);
                flags[t] = !(drop && first);
                first = false;
            }
            wb_damage_set_tiles(&d, TW, TH, NX, NY, flags);
        }
        cr_assert_eq(wb_sink_write(s, img, damage ? &d : NULL, &err), WB_OK, "%s", err.msg);
        wb_damage_free(&d);
    }
    cr_assert_eq(wb_sink_close(s, true, &err), WB_OK, "%s", err.msg);
    for (int b = 0; b < 2; b++)
        wb_image_free(&buf[b]);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "ffmpeg -v error -i '%s' -f rawvideo -pix_fmt yuv420p -", path);
    return run(cmd, len);
}

Test(sink, damage_converts_only_what_changed_with_the_same_result)
{
    /* The frames converted tile by tile over each buffer's last conversion
     * equal the frames converted whole; a damage that leaves a changed tile
     * out shows (else this would prove nothing). */
    size_t n_whole, n_damaged, n_dropped;
    char *whole = damaged_clip("whole.mkv", false, false, &n_whole);
    char *damaged = damaged_clip("damaged.mkv", true, false, &n_damaged);
    char *dropped = damaged_clip("dropped.mkv", true, true, &n_dropped);
    const size_t frame = 70 * 38 + 2 * 35 * 19;
    cr_assert_eq(n_whole, 6 * frame);
    cr_assert_eq(n_damaged, n_whole);
    cr_expect_eq(memcmp(damaged, whole, n_whole), 0);
    cr_assert_eq(n_dropped, n_whole);
    cr_expect_neq(memcmp(dropped, whole, n_whole), 0);
    free(whole);
    free(damaged);
    free(dropped);
}

/* ---- nothing lost ----------------------------------------------------- */

Test(sink, temp_name_until_close_then_rename)
{
    const char *path = in_dir("t.mkv");
    WbSinkOptions o = options(path, 16, 16, false);
    WbSink *s;
    WbError err;
    cr_assert_eq(wb_sink_open(&s, &o, &err), WB_OK, "%s", err.msg);
    WbImage img;
    cr_assert_eq(wb_image_alloc(&img, 16, 16, &err), WB_OK);
    pattern(&img, 0, false);
    cr_assert_eq(wb_sink_write(s, &img, NULL, &err), WB_OK, "%s", err.msg);
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s/.t.mkv.%ld.tmp", dir, (long)getpid());
    cr_expect(exists(tmp), "temporary %s missing", tmp);
    cr_expect(!exists(path), "final name exists before close");
    WbImage wrong;
    cr_assert_eq(wb_image_alloc(&wrong, 8, 8, &err), WB_OK);
    cr_expect_eq(wb_sink_write(s, &wrong, NULL, &err), WB_E_INPUT);
    wb_image_free(&wrong);
    cr_assert_eq(wb_sink_close(s, true, &err), WB_OK, "%s", err.msg);
    wb_image_free(&img);
    expect_dir_holds_only("t.mkv");
}

Test(sink, commit_false_leaves_nothing)
{
    const char *kinds[] = {"a.mp4", "a.webm", "a.mov", "a.mkv", "a.gif", "a.webp"};
    for (int i = 0; i < 6; i++) {
        WbSinkOptions o = options(in_dir(kinds[i]), 16, 16, false);
        WbError err;
        cr_expect_eq(write_clip(&o, 2, false, &err), WB_OK, "%s: %s", kinds[i], err.msg);
    }
    expect_dir_holds_only(NULL);
}

Test(sink, zero_frames_is_an_error_and_no_file)
{
    WbSinkOptions o = options(in_dir("z.mp4"), 16, 16, false);
    WbError err;
    cr_expect_eq(write_clip(&o, 0, true, &err), WB_E_IO);
    cr_expect_not_null(strstr(err.msg, "no frames"), "%s", err.msg);
    cr_expect_not_null(strstr(err.msg, "z.mp4"), "%s", err.msg);
    expect_dir_holds_only(NULL);
}

Test(sink, interrupted_after_some_frames_is_playable)
{
    /* What the CLI does on SIGINT: stop writing, close(commit=true). */
    const char *path = in_dir("part.mp4");
    WbSinkOptions o = options(path, 32, 32, false);
    WbError err;
    cr_assert_eq(write_clip(&o, 1, true, &err), WB_OK, "%s", err.msg);
    expect_probe(path, "stream=nb_read_frames", "1");
}

Test(sink, dev_full_is_an_io_error_naming_it)
{
    WbSinkOptions o = options("/dev/full", 320, 240, false);
    WbError err;
    WbSink *s;
    cr_assert_eq(wb_sink_open(&s, &o, &err), WB_OK, "%s", err.msg);
    WbImage img;
    cr_assert_eq(wb_image_alloc(&img, 320, 240, &err), WB_OK);
    WbStatus st = WB_OK;
    for (int i = 0; i < 4 && st == WB_OK; i++)
        st = wb_sink_write(s, &img, NULL, &err);
    WbError cerr;
    WbStatus cst = wb_sink_close(s, true, &cerr);
    if (st == WB_OK) {
        st = cst;
        err = cerr;
    }
    wb_image_free(&img);
    cr_expect_eq(st, WB_E_IO);
    cr_expect_not_null(strstr(err.msg, "/dev/full"), "%s", err.msg);
}

Test(sink, unwritable_places_are_io_errors)
{
    WbError err;
    WbSinkOptions o = options("/nonexistent-dir/a.mp4", 16, 16, false);
    cr_expect_eq(wb_sink_preflight(&o, &err), WB_E_IO);
    cr_expect_not_null(strstr(err.msg, "/nonexistent-dir/a.mp4"), "%s", err.msg);
    WbSink *s;
    cr_expect_eq(wb_sink_open(&s, &o, &err), WB_E_IO);
    /* A regular file where a folder should be. */
    FILE *f = fopen(in_dir("file"), "w");
    fclose(f);
    char p[600];
    snprintf(p, sizeof p, "%s/file/a.webm", dir);
    o.path = p;
    cr_expect_eq(wb_sink_preflight(&o, &err), WB_E_IO);
    cr_expect_not_null(strstr(err.msg, p), "%s", err.msg);
    /* A folder as the output. */
    o.path = dir;
    char d[600];
    snprintf(d, sizeof d, "%s/sub.mkv", dir);
    mkdir(d, 0755);
    o.path = d;
    cr_expect_eq(wb_sink_preflight(&o, &err), WB_E_IO);
    /* Where creating fails at open time even for root. */
    o.path = "/proc/wobble-test.mp4";
    cr_expect_eq(wb_sink_open(&s, &o, &err), WB_E_IO);
    cr_expect_not_null(strstr(err.msg, "/proc/wobble-test.mp4"), "%s", err.msg);
}

Test(sink, preflight_rejects_bad_knobs_and_writes_nothing)
{
    WbError err;
    WbSinkOptions o = options(in_dir("a.mp4"), 16, 16, false);
    o.codec = "nosuchcodec";
    cr_expect_eq(wb_sink_preflight(&o, &err), WB_E_INPUT);
    cr_expect_not_null(strstr(err.msg, "nosuchcodec"), "%s", err.msg);
    o.codec = NULL;
    o.pix_fmt = "yuva420p";
    cr_expect_eq(wb_sink_preflight(&o, &err), WB_E_INPUT);
    cr_expect_not_null(strstr(err.msg, "yuva420p"), "%s", err.msg);
    cr_expect_not_null(strstr(err.msg, "yuv420p"), "supported ones listed: %s", err.msg);
    o.pix_fmt = "notapixfmt";
    cr_expect_eq(wb_sink_preflight(&o, &err), WB_E_INPUT);
    o.pix_fmt = NULL;
    o.preset = "ludicrous";
    cr_expect_eq(wb_sink_preflight(&o, &err), WB_E_INPUT);
    cr_expect_not_null(strstr(err.msg, "veryfast"), "%s", err.msg);
    o.preset = NULL;
    o.crf = 52;
    cr_expect_eq(wb_sink_preflight(&o, &err), WB_E_INPUT);
    o.crf = -1;
    o.codec = "ffv1"; /* not storable in mp4 */
    cr_expect_eq(wb_sink_preflight(&o, &err), WB_E_INPUT);
    o.codec = "libx264";
    o.width = 0;
    cr_expect_eq(wb_sink_preflight(&o, &err), WB_E_INPUT);
    o.width = 16;
    o.fps_num = 0;
    cr_expect_eq(wb_sink_preflight(&o, &err), WB_E_INPUT);
    o.fps_num = 30;
    cr_expect_eq(wb_sink_preflight(&o, &err), WB_OK, "%s", err.msg);
    WbSinkOptions g = options(in_dir("a.gif"), 16, 16, false);
    g.codec = "libx264";
    cr_expect_eq(wb_sink_preflight(&g, &err), WB_E_INPUT);
    WbSinkOptions y = options("-", 16, 16, false);
    y.pix_fmt = "rgba";
    cr_expect_eq(wb_sink_preflight(&y, &err), WB_E_INPUT);
    expect_dir_holds_only(NULL);
}

Test(sink, codec_override_in_matroska)
{
    const char *path = in_dir("h.mkv");
    WbSinkOptions o = options(path, 32, 32, false);
    o.codec = "libx264";
    WbError err;
    cr_assert_eq(write_clip(&o, 3, true, &err), WB_OK, "%s", err.msg);
    expect_probe(path, "stream=codec_name", "h264");
    expect_probe(path, "stream=pix_fmt", "yuv420p");
    expect_probe(path, "stream=nb_read_frames", "3");
}
