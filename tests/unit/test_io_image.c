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

/* Which source quadrant (0 TL, 1 TR, 2 BL, 3 BR) shows at each output
 * quadrant (TL, TR, BL, BR) after orientation o. */
static const int quad_want[9][4] = {
    {0}, {0, 1, 2, 3}, {1, 0, 3, 2}, {3, 2, 1, 0}, {2, 3, 0, 1},
    {0, 2, 1, 3}, {2, 0, 3, 1}, {3, 1, 2, 0}, {1, 3, 0, 2},
};

/* wb_image_exif_orientation(name) is o, and wb_image_load turns the stored
 * pat_quads picture so each quadrant lands where orientation o puts it (to
 * within tol per channel: a JPEG blurs the edges). */
static void expect_oriented(const char *name, int o, int tol)
{
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
        pat_quads(quad_want[o][q] & 1 ? 24 : 8, quad_want[o][q] & 2 ? 12 : 4, exp);
        for (int c = 0; c < 3; c++)
            cr_expect_leq(abs(got[c] - exp[c]), tol, "%s quadrant %d channel %d: %d vs %d", name,
                          q, c, got[c], exp[c]);
    }
    /* Lossless formats: every pixel, not just the quadrant centres. */
    if (tol == 0)
        for (int y = 0; y < img.h; y++)
            for (int x = 0; x < img.w; x++) {
                int sx, sy, w = 32, h = 16;
                switch (o) {
                case 1: sx = x; sy = y; break;
                case 2: sx = w - 1 - x; sy = y; break;
                case 3: sx = w - 1 - x; sy = h - 1 - y; break;
                case 4: sx = x; sy = h - 1 - y; break;
                case 5: sx = y; sy = x; break;
                case 6: sx = y; sy = h - 1 - x; break;
                case 7: sx = w - 1 - y; sy = h - 1 - x; break;
                default: sx = w - 1 - y; sy = x; break;
                }
                uint8_t exp[4];
                pat_quads(sx, sy, exp);
                cr_assert_eq(memcmp(wb_image_row(&img, y) + 4 * x, exp, 4), 0,
                             "%s pixel (%d,%d)", name, x, y);
            }
    wb_image_free(&img);
}

/* A 26-byte TIFF block: header, IFD0 with the one entry Orientation = o
 * (SHORT), no next IFD.  The value sits at bytes 18..19. */
#define EXIF_TIFF_LEN 26
static void exif_tiff(unsigned char out[EXIF_TIFF_LEN], int o, bool le)
{
    unsigned char le_tiff[] = {'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0,
                               (unsigned char)o, 0, 0, 0, 0, 0, 0, 0};
    unsigned char be_tiff[] = {'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1,
                               0, (unsigned char)o, 0, 0, 0, 0, 0, 0};
    memcpy(out, le ? le_tiff : be_tiff, EXIF_TIFF_LEN);
}

/* The whole of file name (at most 64 KiB) into buf; its size. */
static size_t slurp(const char *name, unsigned char *buf, size_t cap)
{
    FILE *f = fopen(in_dir(name), "rb");
    cr_assert_not_null(f, "%s", name);
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    cr_assert(n > 0 && n < cap, "%s: %zu bytes", name, n);
    return n;
}

static void spit(const char *name, const void *buf, size_t n)
{
    FILE *f = fopen(in_dir(name), "wb");
    cr_assert_not_null(f, "%s", name);
    cr_assert_eq(fwrite(buf, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void put_le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static void put16(unsigned char *p, unsigned v, bool le)
{
    p[le ? 0 : 1] = (unsigned char)v;
    p[le ? 1 : 0] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v, bool le)
{
    if (le)
        put_le32(p, v);
    else
        put_be32(p, v);
}

/* Copy src.jpg to dst with an APP1 Exif segment holding Orientation = o
 * (little- or big-endian TIFF) inserted right after SOI. */
static void add_exif(const char *src, const char *dst, int o, bool le)
{
    static unsigned char buf[1 << 16], out[(1 << 16) + 64];
    size_t n = slurp(src, buf, sizeof buf);
    cr_assert(n > 2);
    unsigned char *p = out;
    memcpy(p, buf, 2);
    p += 2;
    *p++ = 0xFF;
    *p++ = 0xE1;
    unsigned len = 2 + 6 + EXIF_TIFF_LEN;
    *p++ = (unsigned char)(len >> 8);
    *p++ = (unsigned char)len;
    memcpy(p, "Exif\0\0", 6);
    p += 6;
    exif_tiff(p, o, le);
    p += EXIF_TIFF_LEN;
    memcpy(p, buf + 2, n - 2);
    spit(dst, out, (size_t)(p - out) + n - 2);
}

Test(io, exif_orientation_all_eight)
{
    write_pattern_png("q.png", 32, 16, pat_quads, false);
    ffmpeg_convert("q.png", "-q:v 2", "q.jpg");
    for (int o = 1; o <= 8; o++)
        for (int le = 0; le < 2; le++) {
            char name[32];
            snprintf(name, sizeof name, "o%d%s.jpg", o, le ? "le" : "be");
            add_exif("q.jpg", name, o, le);
            expect_oriented(name, o, 40);
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

/* PNG: standard CRC-32 (the one PNG chunks carry). */
static uint32_t png_crc(const unsigned char *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xFFFFFFFFu;
}

/* Append a PNG chunk {length, type, data, CRC} at p; returns the end. */
static unsigned char *png_chunk(unsigned char *p, const char *type, const void *data, size_t n)
{
    put_be32(p, (uint32_t)n);
    memcpy(p + 4, type, 4);
    memcpy(p + 8, data, n);
    put_be32(p + 8 + n, png_crc(p + 4, 4 + n));
    return p + 12 + n;
}

/* Copy src.png to dst with an eXIf chunk (Orientation = o, optionally
 * behind "Exif\0\0") before the first IDAT, or after it when late.
 * Returns the file offset just past the orientation entry. */
static size_t add_png_exif(const char *src, const char *dst, int o, bool le, bool prefix,
                           bool late)
{
    static unsigned char buf[1 << 16], out[(1 << 16) + 128];
    size_t n = slurp(src, buf, sizeof buf), pos = 8, entry_end = 0;
    cr_assert_eq(memcmp(buf, "\x89PNG\r\n\x1a\n", 8), 0);
    unsigned char payload[6 + EXIF_TIFF_LEN];
    size_t pn = prefix ? 6 : 0;
    memcpy(payload, "Exif\0\0", 6);
    exif_tiff(payload + pn, o, le);
    pn += EXIF_TIFF_LEN;
    unsigned char *p = out;
    memcpy(p, buf, 8);
    p += 8;
    bool done = false;
    while (pos + 12 <= n) {
        size_t len = (size_t)buf[pos] << 24 | (size_t)buf[pos + 1] << 16 |
                     (size_t)buf[pos + 2] << 8 | buf[pos + 3];
        bool idat = memcmp(buf + pos + 4, "IDAT", 4) == 0;
        if (idat && !done && !late) {
            entry_end = (size_t)(p - out) + 8 + (pn - EXIF_TIFF_LEN) + 22;
            p = png_chunk(p, "eXIf", payload, pn);
            done = true;
        }
        memcpy(p, buf + pos, 12 + len);
        p += 12 + len;
        pos += 12 + len;
        if (idat && !done && late && memcmp(buf + pos + 4, "IDAT", 4) != 0) {
            entry_end = (size_t)(p - out) + 8 + (pn - EXIF_TIFF_LEN) + 22;
            p = png_chunk(p, "eXIf", payload, pn);
            done = true;
        }
    }
    cr_assert(done && pos == n, "%s: chunk walk", src);
    spit(dst, out, (size_t)(p - out));
    return entry_end;
}

/* Copy the simple-format WebP src (one VP8L chunk) to dst as the extended
 * format: VP8X (EXIF flag set), the VP8L chunk, then when odd an unknown
 * chunk of odd size (so the walk must skip its pad byte), then the EXIF
 * chunk (Orientation = o, optionally behind "Exif\0\0"). */
static void add_webp_exif(const char *src, const char *dst, int o, bool le, bool prefix, bool odd)
{
    static unsigned char buf[1 << 16], out[(1 << 16) + 128];
    size_t n = slurp(src, buf, sizeof buf);
    cr_assert_eq(memcmp(buf, "RIFF", 4), 0);
    cr_assert_eq(memcmp(buf + 8, "WEBPVP8L", 8), 0, "%s is not a simple lossless WebP", src);
    unsigned char *p = out + 12;
    memcpy(p, "VP8X", 4);
    put_le32(p + 4, 10);
    memset(p + 8, 0, 10);
    p[8] = 0x08; /* EXIF */
    p[12] = 31;  /* canvas width - 1, 24-bit LE */
    p[15] = 15;  /* canvas height - 1 */
    p += 18;
    memcpy(p, buf + 12, n - 12);
    p += n - 12;
    if (odd) {
        memcpy(p, "wbXX", 4);
        put_le32(p + 4, 3);
        memcpy(p + 8, "abc\0", 4); /* 3 bytes + pad */
        p += 12;
    }
    size_t pn = prefix ? 6 : 0;
    memcpy(p, "EXIF", 4);
    put_le32(p + 4, (uint32_t)(pn + EXIF_TIFF_LEN));
    memcpy(p + 8, "Exif\0\0", 6);
    exif_tiff(p + 8 + pn, o, le);
    p += 8 + pn + EXIF_TIFF_LEN; /* even either way */
    memcpy(out, "RIFF", 4);
    put_le32(out + 4, (uint32_t)(p - out - 8));
    memcpy(out + 8, "WEBP", 4);
    spit(dst, out, (size_t)(p - out));
}

/* A baseline TIFF of pat_quads by hand: 32×16 RGB, 8 bits, uncompressed,
 * one strip, Orientation = o in IFD0.  IFD0 comes right after the header,
 * or (ifd_last) after the pixels as many writers do.  When o is 0 there is
 * no Orientation entry. */
static void write_tiff(const char *name, int o, bool le, bool ifd_last)
{
    enum { W = 32, H = 16, NPIX = W * H * 3 };
    static const unsigned tags[][3] = {/* tag, type (3 SHORT, 4 LONG), value */
        {256, 3, W}, {257, 3, H}, {258, 3, 0}, {259, 3, 1}, {262, 3, 2}, {273, 4, 0},
        {274, 3, 0}, {277, 3, 3}, {278, 3, H}, {279, 4, NPIX}, {284, 3, 1}};
    int ntags = 11 - (o == 0);
    size_t ifd_len = 2 + 12 * (size_t)ntags + 4;
    size_t ifd = ifd_last ? 8 + NPIX : 8;
    size_t pix = ifd_last ? 8 : 8 + ifd_len;
    size_t bps = ifd_last ? ifd + ifd_len : pix + NPIX; /* BitsPerSample 8,8,8 */
    static unsigned char out[8 + NPIX + 256];
    size_t size = 8 + NPIX + ifd_len + 6;
    memset(out, 0, sizeof out);
    memcpy(out, le ? "II*\0" : "MM\0*", 4);
    put32(out + 4, (uint32_t)ifd, le);
    put16(out + ifd, (unsigned)ntags, le);
    unsigned char *e = out + ifd + 2;
    for (int i = 0; i < 11; i++) {
        unsigned tag = tags[i][0], type = tags[i][1], v = tags[i][2];
        if (tag == 274 && o == 0)
            continue;
        v = tag == 258 ? (unsigned)bps : tag == 273 ? (unsigned)pix : tag == 274 ? (unsigned)o : v;
        put16(e, tag, le);
        put16(e + 2, type, le);
        put32(e + 4, tag == 258 ? 3 : 1, le);
        if (type == 3 && tag != 258)
            put16(e + 8, v, le);
        else
            put32(e + 8, v, le);
        e += 12;
    }
    for (int c = 0; c < 3; c++)
        put16(out + bps + 2 * (size_t)c, 8, le);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint8_t px[4];
            pat_quads(x, y, px);
            memcpy(out + pix + ((size_t)y * W + (size_t)x) * 3, px, 3);
        }
    spit(name, out, size);
}

Test(io, exif_orientation_png_all_eight)
{
    write_pattern_png("q.png", 32, 16, pat_quads, false);
    for (int o = 1; o <= 8; o++)
        for (int le = 0; le < 2; le++)
            for (int prefix = 0; prefix < 2; prefix++) {
                char name[32];
                snprintf(name, sizeof name, "o%d%s%s.png", o, le ? "le" : "be", prefix ? "x" : "");
                add_png_exif("q.png", name, o, le, prefix, false);
                expect_oriented(name, o, 0);
            }
}

Test(io, exif_orientation_webp_all_eight)
{
    write_pattern_png("q.png", 32, 16, pat_quads, false);
    ffmpeg_convert("q.png", "-c:v libwebp -lossless 1", "q.webp");
    expect_oriented("q.webp", 1, 0);
    for (int o = 1; o <= 8; o++)
        for (int le = 0; le < 2; le++)
            for (int variant = 0; variant < 3; variant++) {
                char name[32];
                snprintf(name, sizeof name, "o%d%s%d.webp", o, le ? "le" : "be", variant);
                add_webp_exif("q.webp", name, o, le, variant == 1, variant == 2);
                expect_oriented(name, o, 0);
            }
}

Test(io, exif_orientation_tiff_all_eight)
{
    write_tiff("none.tiff", 0, true, false);
    expect_oriented("none.tiff", 1, 0);
    for (int o = 1; o <= 8; o++)
        for (int le = 0; le < 2; le++)
            for (int last = 0; last < 2; last++) {
                char name[32];
                snprintf(name, sizeof name, "o%d%s%s.tiff", o, le ? "le" : "be", last ? "z" : "");
                write_tiff(name, o, le, last);
                expect_oriented(name, o, 0);
            }
}

Test(io, exif_orientation_follows_the_bytes_not_the_name)
{
    write_pattern_png("q.png", 32, 16, pat_quads, false);
    add_png_exif("q.png", "png.jpg", 6, true, false, false);
    expect_oriented("png.jpg", 6, 0);
    write_tiff("tiff.png", 8, false, false);
    expect_oriented("tiff.png", 8, 0);
    ffmpeg_convert("q.png", "-q:v 2", "q.jpg");
    add_exif("q.jpg", "jpeg.webp", 3, true);
    expect_oriented("jpeg.webp", 3, 40);
}

Test(io, exif_orientation_png_after_idat_is_ignored)
{
    /* eXIf must precede IDAT; a late one is not read (and FFmpeg does not
     * apply it either, so the stored picture comes out as it is). */
    write_pattern_png("q.png", 32, 16, pat_quads, false);
    add_png_exif("q.png", "late.png", 6, true, false, true);
    expect_oriented("late.png", 1, 0);
}

/* Every prefix of file name (as cut.bin) gives 1, or o once the cut is at
 * or past byte `needed` (0: the whole file is needed); every single-byte
 * corruption of its first `span` bytes gives some value in 1..8 (under
 * ASan: and no bad read). */
static void expect_cuts_and_garbage(const char *name, int o, size_t needed, size_t span)
{
    static unsigned char buf[1 << 16];
    size_t n = slurp(name, buf, sizeof buf);
    cr_assert_eq(wb_image_exif_orientation(in_dir(name)), o, "%s", name);
    for (size_t len = 0; len < n; len++) {
        spit("cut.bin", buf, len);
        int got = wb_image_exif_orientation(in_dir("cut.bin"));
        int want = needed && len >= needed ? o : 1;
        cr_assert_eq(got, want, "%s cut to %zu bytes: %d, expected %d", name, len, got, want);
    }
    span = span < n ? span : n;
    static const unsigned char junk[] = {0x00, 0xFF, 0x7F, 0x80, 0x01};
    for (size_t i = 0; i < span; i++)
        for (size_t j = 0; j < sizeof junk; j++) {
            unsigned char keep = buf[i];
            buf[i] = junk[j];
            spit("bad.bin", buf, n);
            buf[i] = keep;
            int got = wb_image_exif_orientation(in_dir("bad.bin"));
            cr_assert(got >= 1 && got <= 8, "%s byte %zu = %u: %d", name, i, junk[j], got);
        }
}

Test(io, exif_orientation_cut_or_corrupt_files)
{
    write_pattern_png("q.png", 32, 16, pat_quads, false);
    /* PNG: the eXIf chunk's own length bounds the block, so the rest of the
     * file is not needed once the entry is in. */
    size_t need = add_png_exif("q.png", "p.png", 6, true, false, false);
    expect_cuts_and_garbage("p.png", 6, need, need + 16);
    need = add_png_exif("q.png", "px.png", 7, false, true, false);
    expect_cuts_and_garbage("px.png", 7, need, need + 16);
    /* WebP: the EXIF chunk is the last one and must be whole. */
    ffmpeg_convert("q.png", "-c:v libwebp -lossless 1", "q.webp");
    add_webp_exif("q.webp", "w.webp", 5, true, false, true);
    expect_cuts_and_garbage("w.webp", 5, 0, 4096);
    /* TIFF: IFD0 first (the Orientation entry is the 7th, ending at byte
     * 8 + 2 + 7·12), then IFD0 last (needs all of IFD0's entries up to it). */
    write_tiff("t.tiff", 8, false, false);
    expect_cuts_and_garbage("t.tiff", 8, 8 + 2 + 7 * 12, 200);
    write_tiff("tz.tiff", 2, true, true);
    expect_cuts_and_garbage("tz.tiff", 2, 8 + 32 * 16 * 3 + 2 + 7 * 12, 0);
    /* JPEG: APP1 comes first, the entry ends 2 + 4 + 6 + 22 bytes in. */
    ffmpeg_convert("q.png", "", "q.jpg");
    add_exif("q.jpg", "j.jpg", 4, true);
    expect_cuts_and_garbage("j.jpg", 4, 2 + 4 + 6 + 22, 64);
    /* Pure junk behind each magic. */
    static const char *const magic[] = {"\xFF\xD8\xFF", "\x89PNG\r\n\x1a\n", "RIFF\xFF\xFF\xFF\x7FWEBP",
                                        "II*\0", "MM\0*"};
    static const size_t mlen[] = {3, 8, 12, 4, 4};
    for (int m = 0; m < 5; m++)
        for (unsigned fill = 0; fill < 256; fill += 51) {
            unsigned char junk[256];
            memset(junk, (int)fill, sizeof junk);
            memcpy(junk, magic[m], mlen[m]);
            spit("junk.bin", junk, sizeof junk);
            cr_expect_eq(wb_image_exif_orientation(in_dir("junk.bin")), 1, "magic %d fill %u", m,
                         fill);
        }
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
