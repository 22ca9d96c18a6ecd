/* Image input, masks and libpng: every format decoded back to known pixels.
 * Inputs are produced at test time by the ffmpeg CLI from PNGs this file
 * writes, so the expected pixels are known exactly. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <png.h>

#include "io/image_load.h"
#include "io/png.h"

#define TMPDIR_TEMPLATE "/tmp/wb_io_XXXXXX"
#include "tmpdir.h"

/* Run "ffmpeg -y -v error -i IN ARGS OUT" inside the temp dir. */
static void ffmpeg_convert(const char *in, const char *args, const char *out)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd '%s' && timeout 20 ffmpeg -nostdin -y -v error -i '%s' %s '%s'", dir, in,
             args, out);
    cr_assert_eq(system(cmd), 0, "ffmpeg failed: %s", cmd);
}

/* An exact palette for few-colour pictures (swscale's pal8 would dither). */
#define PALETTE_VF "-vf 'split[a][b];[a]palettegen[p];[b][p]paletteuse=dither=none'"

typedef void (*Pattern)(int x, int y, uint8_t px[4]);

/* A smooth-ish colour pattern with varying alpha (every byte value used). */
static void pat_rgba(int x, int y, uint8_t p[4])
{
    p[0] = (uint8_t)(x * 7);
    p[1] = (uint8_t)(y * 13);
    p[2] = (uint8_t)((x + y) * 3);
    p[3] = (uint8_t)(255 - ((x * y) & 127));
}

static void pat_rgb(int x, int y, uint8_t p[4])
{
    pat_rgba(x, y, p);
    p[3] = 255;
}

static void pat_grey(int x, int y, uint8_t p[4])
{
    p[0] = p[1] = p[2] = (uint8_t)(x * 5 + y * 11);
    p[3] = 255;
}

/* 8×8 blocks of the 8 colours whose channels are 0 or 255 (any palette
 * holds them exactly). */
static void pat_blocks(int x, int y, uint8_t p[4])
{
    int c = (x / 8 + y / 8 * 3) % 8;
    p[0] = c & 1 ? 255 : 0;
    p[1] = c & 2 ? 255 : 0;
    p[2] = c & 4 ? 255 : 0;
    p[3] = 255;
}

/* Smooth enough for JPEG to keep. */
static void pat_smooth(int x, int y, uint8_t p[4])
{
    p[0] = (uint8_t)(x * 4);
    p[1] = (uint8_t)(y * 4);
    p[2] = (uint8_t)(128 + (x - y));
    p[3] = 255;
}

static WbImage make_image(int w, int h, Pattern pat)
{
    WbImage img;
    WbError err;
    cr_assert_eq(wb_image_alloc(&img, w, h, &err), WB_OK);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            pat(x, y, wb_image_row(&img, y) + 4 * x);
    return img;
}

static void write_pattern_png(const char *name, int w, int h, Pattern pat, bool alpha)
{
    WbImage img = make_image(w, h, pat);
    WbError err;
    cr_assert_eq(wb_png_write(in_dir(name), &img, alpha, &err), WB_OK, "%s", err.msg);
    wb_image_free(&img);
}

/* Load `name`, compare with `pat`: max abs difference per channel <= tol
 * (and mean <= mean_tol). */
static void expect_load(const char *name, int w, int h, Pattern pat, int tol, double mean_tol,
                        bool want_alpha)
{
    WbImage img;
    WbError err;
    bool alpha = !want_alpha;
    cr_assert_eq(wb_image_load(in_dir(name), &img, &alpha, &err), WB_OK, "%s: %s", name,
                 err.msg);
    cr_assert_eq(img.w, w, "%s width", name);
    cr_assert_eq(img.h, h, "%s height", name);
    cr_expect_eq(alpha, want_alpha, "%s has_alpha", name);
    int maxd = 0;
    double sum = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t want[4];
            pat(x, y, want);
            const uint8_t *got = wb_image_row(&img, y) + 4 * x;
            for (int c = 0; c < 4; c++) {
                int d = abs(got[c] - want[c]);
                maxd = d > maxd ? d : maxd;
                sum += d;
            }
        }
    double mean = sum / (4.0 * w * h);
    cr_expect_leq(maxd, tol, "%s: max difference %d > %d", name, maxd, tol);
    cr_expect_leq(mean, mean_tol, "%s: mean difference %g > %g", name, mean, mean_tol);
    wb_image_free(&img);
}

/* A 16-bit PNG (grey or RGBA) written with libpng itself, each sample the
 * pattern's 8-bit value times 257 (so it maps back to 8 bits exactly). */
static void write_png16(const char *name, int w, int h, Pattern pat, bool rgba)
{
    FILE *f = fopen(in_dir(name), "wb");
    cr_assert_not_null(f);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 16,
                 rgba ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    int ch = rgba ? 4 : 1;
    unsigned char *row = malloc((size_t)w * (size_t)ch * 2);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            uint8_t p[4];
            pat(x, y, p);
            for (int c = 0; c < ch; c++) {
                row[(x * ch + c) * 2] = p[c];     /* big-endian v*257 = (v, v) */
                row[(x * ch + c) * 2 + 1] = p[c];
            }
        }
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(row);
    cr_assert_eq(fclose(f), 0);
}

TestSuite(io, .init = make_dir, .fini = remove_dir);

Test(io, png_rgba_round_trip_is_bit_exact)
{
    write_pattern_png("a.png", 37, 23, pat_rgba, true);
    WbImage img;
    WbError err;
    cr_assert_eq(wb_png_read(in_dir("a.png"), &img, &err), WB_OK, "%s", err.msg);
    WbImage want = make_image(37, 23, pat_rgba);
    cr_assert_eq(img.w, 37);
    cr_assert_eq(img.h, 23);
    for (int y = 0; y < 23; y++)
        cr_assert_eq(memcmp(wb_image_row(&img, y), wb_image_row(&want, y), 37 * 4), 0, "row %d", y);
    wb_image_free(&img);
    wb_image_free(&want);
    expect_load("a.png", 37, 23, pat_rgba, 0, 0, true);
}

Test(io, png_rgb_write_drops_alpha_and_reads_opaque)
{
    write_pattern_png("rgb.png", 20, 10, pat_rgba, false);
    expect_load("rgb.png", 20, 10, pat_rgb, 0, 0, false);
    /* The file really is colour type 2 (RGB): IHDR byte 25. */
    FILE *f = fopen(in_dir("rgb.png"), "rb");
    unsigned char hdr[26];
    cr_assert_eq(fread(hdr, 1, 26, f), 26);
    fclose(f);
    cr_expect_eq(hdr[24], 8);
    cr_expect_eq(hdr[25], 2);
}

Test(io, png_write_is_deterministic_and_leaves_no_temp)
{
    write_pattern_png("d1.png", 16, 16, pat_rgba, true);
    write_pattern_png("d2.png", 16, 16, pat_rgba, true);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", in_dir("d1.png"), in_dir("d2.png"));
    cr_expect_eq(system(cmd), 0, "two writes of one image differ");
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s' | grep tmp)\"", dir);
    cr_expect_eq(system(cmd), 0, "a temporary file was left behind");
}

Test(io, png_write_failures_are_io_errors_naming_the_path)
{
    WbImage img = make_image(8, 8, pat_rgba);
    WbError err;
    cr_expect_eq(wb_png_write("/nonexistent-dir/x.png", &img, true, &err), WB_E_IO);
    cr_expect_not_null(strstr(err.msg, "/nonexistent-dir/x.png"), "%s", err.msg);
    cr_expect_eq(wb_png_write("/dev/full", &img, true, &err), WB_E_IO);
    cr_expect_not_null(strstr(err.msg, "/dev/full"), "%s", err.msg);
    wb_image_free(&img);
}

Test(io, png_read_rejects_non_png)
{
    FILE *f = fopen(in_dir("fake.png"), "wb");
    fputs("this is not a png", f);
    fclose(f);
    WbImage img;
    WbError err;
    cr_expect_eq(wb_png_read(in_dir("fake.png"), &img, &err), WB_E_INPUT);
    cr_expect_not_null(strstr(err.msg, "fake.png"), "%s", err.msg);
    cr_expect_eq(wb_png_read(in_dir("missing.png"), &img, &err), WB_E_INPUT);
}

Test(io, png_read_expands_16bit_grey)
{
    write_png16("g16.png", 24, 12, pat_grey, false);
    WbImage img;
    WbError err;
    cr_assert_eq(wb_png_read(in_dir("g16.png"), &img, &err), WB_OK, "%s", err.msg);
    for (int y = 0; y < 12; y++)
        for (int x = 0; x < 24; x++) {
            uint8_t want[4];
            pat_grey(x, y, want);
            cr_assert_eq(memcmp(wb_image_row(&img, y) + 4 * x, want, 4), 0, "(%d,%d)", x, y);
        }
    wb_image_free(&img);
}

Test(io, load_png_16bit_rgba)
{
    write_png16("s16.png", 30, 20, pat_rgba, true);
    expect_load("s16.png", 30, 20, pat_rgba, 0, 0, true);
}

Test(io, load_png_grey_8_and_16)
{
    write_pattern_png("g.png", 30, 20, pat_grey, false);
    ffmpeg_convert("g.png", "-pix_fmt gray", "g8.png");
    write_png16("g16.png", 30, 20, pat_grey, false);
    expect_load("g8.png", 30, 20, pat_grey, 0, 0, false);
    expect_load("g16.png", 30, 20, pat_grey, 0, 0, false);
}

Test(io, load_png_palette)
{
    write_pattern_png("b.png", 40, 24, pat_blocks, false);
    ffmpeg_convert("b.png", PALETTE_VF, "pal.png");
    expect_load("pal.png", 40, 24, pat_blocks, 0, 0, false);
}

Test(io, load_jpeg)
{
    write_pattern_png("j.png", 64, 48, pat_smooth, false);
    ffmpeg_convert("j.png", "-q:v 2", "j.jpg");
    expect_load("j.jpg", 64, 48, pat_smooth, 24, 3.0, false);
}

Test(io, load_webp_lossless_with_alpha)
{
    write_pattern_png("w.png", 33, 21, pat_rgba, true);
    ffmpeg_convert("w.png", "-c:v libwebp -lossless 1", "w.webp");
    expect_load("w.webp", 33, 21, pat_rgba, 0, 0, true);
}

Test(io, load_bmp_and_tiff)
{
    write_pattern_png("b.png", 31, 17, pat_rgb, false);
    ffmpeg_convert("b.png", "", "b.bmp");
    ffmpeg_convert("b.png", "", "b.tiff");
    expect_load("b.bmp", 31, 17, pat_rgb, 0, 0, false);
    expect_load("b.tiff", 31, 17, pat_rgb, 0, 0, false);
    write_pattern_png("ba.png", 31, 17, pat_rgba, true);
    ffmpeg_convert("ba.png", "", "ba.tiff");
    expect_load("ba.tiff", 31, 17, pat_rgba, 0, 0, true);
}

static void pat_black(int x, int y, uint8_t p[4])
{
    p[0] = p[1] = p[2] = 0;
    p[3] = 255;
}

Test(io, load_gif_first_frame)
{
    /* Two frames; the second is black, so only the first matches. */
    write_pattern_png("seq_0.png", 40, 24, pat_blocks, false);
    write_pattern_png("seq_1.png", 40, 24, pat_black, false);
    ffmpeg_convert("seq_%d.png", PALETTE_VF, "anim.gif");
    expect_load("anim.gif", 40, 24, pat_blocks, 0, 0, false);
}

/* ---- EXIF orientation ----------------------------------------------- */

/* 32×16 with four flat quadrants: TL red, TR green, BL blue, BR white. */
static void pat_quads(int x, int y, uint8_t p[4])
{
    static const uint8_t q[4][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255}};
    int i = (x >= 16) + 2 * (y >= 8);
    memcpy(p, q[i], 3);
    p[3] = 255;
}

/* Copy src.jpg to dst with an APP1 Exif segment holding Orientation = o
 * (little- or big-endian TIFF) inserted right after SOI. */
static void add_exif(const char *src, const char *dst, int o, bool le)
{
    FILE *f = fopen(in_dir(src), "rb");
    cr_assert_not_null(f);
    static unsigned char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    cr_assert(n > 2 && n < sizeof buf);
    unsigned char app1[2 + 2 + 6 + 8 + 2 + 12 + 4];
    unsigned char *p = app1;
    *p++ = 0xFF;
    *p++ = 0xE1;
    unsigned len = sizeof app1 - 2;
    *p++ = (unsigned char)(len >> 8);
    *p++ = (unsigned char)len;
    memcpy(p, "Exif\0\0", 6);
    p += 6;
    unsigned char le_tiff[] = {'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0,
                               (unsigned char)o, 0, 0, 0, 0, 0, 0, 0};
    unsigned char be_tiff[] = {'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1,
                               0, (unsigned char)o, 0, 0, 0, 0, 0, 0};
    memcpy(p, le ? le_tiff : be_tiff, sizeof le_tiff);
    f = fopen(in_dir(dst), "wb");
    cr_assert_not_null(f);
    fwrite(buf, 1, 2, f);
    fwrite(app1, 1, sizeof app1, f);
    fwrite(buf + 2, 1, n - 2, f);
    cr_assert_eq(fclose(f), 0);
}

Test(io, exif_orientation_all_eight)
{
    write_pattern_png("q.png", 32, 16, pat_quads, false);
    ffmpeg_convert("q.png", "-q:v 2", "q.jpg");
    /* Which source quadrant (0 TL, 1 TR, 2 BL, 3 BR) shows at each output
     * quadrant (TL, TR, BL, BR) after orientation o. */
    static const int want[9][4] = {
        {0}, {0, 1, 2, 3}, {1, 0, 3, 2}, {3, 2, 1, 0}, {2, 3, 0, 1},
        {0, 2, 1, 3}, {2, 0, 3, 1}, {3, 1, 2, 0}, {1, 3, 0, 2},
    };
    for (int o = 1; o <= 8; o++)
        for (int le = 0; le < 2; le++) {
            char name[32];
            snprintf(name, sizeof name, "o%d%s.jpg", o, le ? "le" : "be");
            add_exif("q.jpg", name, o, le);
            cr_assert_eq(wb_image_exif_orientation(in_dir(name)), o, "%s", name);
            WbImage img;
            WbError err;
            cr_assert_eq(wb_image_load(in_dir(name), &img, NULL, &err), WB_OK, "%s", err.msg);
            bool swap = o >= 5;
            cr_assert_eq(img.w, swap ? 16 : 32, "%s", name);
            cr_assert_eq(img.h, swap ? 32 : 16, "%s", name);
            for (int q = 0; q < 4; q++) {
                int cx = (q & 1 ? 3 : 1) * img.w / 4, cy = (q & 2 ? 3 : 1) * img.h / 4;
                const uint8_t *got = wb_image_row(&img, cy) + 4 * cx;
                uint8_t exp[4];
                pat_quads(want[o][q] & 1 ? 24 : 8, want[o][q] & 2 ? 12 : 4, exp);
                for (int c = 0; c < 3; c++)
                    cr_expect_leq(abs(got[c] - exp[c]), 40, "%s quadrant %d channel %d: %d vs %d",
                                  name, q, c, got[c], exp[c]);
            }
            wb_image_free(&img);
        }
}

Test(io, exif_orientation_absent_or_garbage_is_1)
{
    write_pattern_png("q.png", 32, 16, pat_quads, false);
    ffmpeg_convert("q.png", "", "plain.jpg");
    cr_expect_eq(wb_image_exif_orientation(in_dir("plain.jpg")), 1);
    cr_expect_eq(wb_image_exif_orientation(in_dir("q.png")), 1);
    add_exif("plain.jpg", "bad.jpg", 9, true);
    cr_expect_eq(wb_image_exif_orientation(in_dir("bad.jpg")), 1);
    cr_expect_eq(wb_image_exif_orientation(in_dir("nothing.jpg")), 1);
}

/* ---- failures ---------------------------------------------------------- */

static void expect_input_error(const char *name)
{
    WbImage img;
    WbError err;
    bool alpha = true;
    cr_expect_eq(wb_image_load(in_dir(name), &img, &alpha, &err), WB_E_INPUT, "%s", name);
    char want[600];
    snprintf(want, sizeof want, "cannot read image '%s': ", in_dir(name));
    cr_expect_not_null(strstr(err.msg, want), "message was: %s", err.msg);
    cr_expect_null(img.px);
}

Test(io, missing_corrupt_and_unsupported_files)
{
    expect_input_error("missing.jpg");
    /* A PNG cut short in its pixel data. */
    write_pattern_png("full.png", 64, 64, pat_rgba, true);
    FILE *f = fopen(in_dir("full.png"), "rb");
    static unsigned char buf[65536];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    f = fopen(in_dir("cut.png"), "wb");
    fwrite(buf, 1, n / 3, f);
    fclose(f);
    expect_input_error("cut.png");
    f = fopen(in_dir("junk.jpg"), "wb");
    for (int i = 0; i < 4000; i++)
        fputc((i * 7919) & 255, f);
    fclose(f);
    expect_input_error("junk.jpg");
    f = fopen(in_dir("empty.png"), "wb");
    fclose(f);
    expect_input_error("empty.png");
    /* Audio only: readable, but holds no picture. */
    char cmd[600];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && timeout 20 ffmpeg -nostdin -y -v error -f lavfi -i sine=d=0.1 tone.wav", dir);
    cr_assert_eq(system(cmd), 0);
    expect_input_error("tone.wav");
}

Test(io, path_with_percent_is_one_file)
{
    write_pattern_png("shot%03d.png", 10, 10, pat_rgba, true);
    expect_load("shot%03d.png", 10, 10, pat_rgba, 0, 0, true);
}

/* ---- masks ------------------------------------------------------------- */

Test(io, mask_from_grey_and_from_alpha)
{
    write_pattern_png("g.png", 20, 10, pat_grey, false);
    ffmpeg_convert("g.png", "-pix_fmt gray", "mask.png");
    float *wt;
    int w, h;
    WbError err;
    cr_assert_eq(wb_mask_load(in_dir("mask.png"), &wt, &w, &h, &err), WB_OK, "%s", err.msg);
    cr_assert_eq(w, 20);
    cr_assert_eq(h, 10);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t p[4];
            pat_grey(x, y, p);
            cr_assert_float_eq(wt[y * w + x], p[0] / 255.0f, 1e-6f, "(%d,%d)", x, y);
        }
    free(wt);
    write_pattern_png("a.png", 20, 10, pat_rgba, true);
    cr_assert_eq(wb_mask_load(in_dir("a.png"), &wt, &w, &h, &err), WB_OK, "%s", err.msg);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t p[4];
            pat_rgba(x, y, p);
            cr_assert_float_eq(wt[y * w + x], p[3] / 255.0f, 1e-6f, "(%d,%d)", x, y);
        }
    free(wt);
    cr_expect_eq(wb_mask_load(in_dir("nope.png"), &wt, &w, &h, &err), WB_E_INPUT);
    cr_expect_null(wt);
}
