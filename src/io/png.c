#include "io/png.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <png.h>

#include "io/outpath.h"

/* libpng reports errors through a callback that must not return; it keeps
 * the message here and longjmps back to the caller's setjmp. */
typedef struct PngJmp {
    jmp_buf jmp;
    char msg[256];
} PngJmp;

static void on_png_error(png_structp png, png_const_charp msg)
{
    PngJmp *j = png_get_error_ptr(png);
    snprintf(j->msg, sizeof j->msg, "%s", msg);
    longjmp(j->jmp, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

/* libpng's own writer says only "Write Error" on a short fwrite: say why
 * (a full disk is "No space left on device"). */
static void png_write_data(png_structp png, png_bytep data, size_t n)
{
    FILE *f = png_get_io_ptr(png);
    if (fwrite(data, 1, n, f) != n)
        png_error(png, strerror(errno));
}

static void png_flush_data(png_structp png) { (void)png; }

/* The libpng part of a write, into an open FILE; returns false with j->msg
 * set on failure.  Kept apart so the setjmp frame holds no locals that
 * change after setjmp. */
static bool png_encode(FILE *f, const WbImage *img, bool alpha, PngJmp *j)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, j, on_png_error,
                                              on_png_warning);
    if (!png) {
        snprintf(j->msg, sizeof j->msg, "out of memory");
        return false;
    }
    png_infop info = png_create_info_struct(png);
    if (!info || setjmp(j->jmp)) {
        if (!info)
            snprintf(j->msg, sizeof j->msg, "out of memory");
        png_destroy_write_struct(&png, &info);
        return false;
    }
    png_set_write_fn(png, f, png_write_data, png_flush_data);
    /* Level 6 is zlib's default: a fair size for a fair time. */
    png_set_compression_level(png, 6);
    png_set_IHDR(png, info, (png_uint_32)img->w, (png_uint_32)img->h, 8,
                 alpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    /* For RGB output the rows still hold 4 bytes per pixel: libpng strips the
     * 4th ("filler") byte while writing, so no copy is needed. */
    if (!alpha)
        png_set_filler(png, 0, PNG_FILLER_AFTER);
    for (int y = 0; y < img->h; y++)
        png_write_row(png, wb_image_row(img, y));
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return true;
}

WbStatus wb_png_write(const char *path, const WbImage *img, bool alpha, WbError *err)
{
    char tmp[4200];
    bool direct = wb_outpath_is_special(path);
    if (!direct) {
        WbStatus st = wb_outpath_temp(path, tmp, sizeof tmp, err);
        if (st)
            return st;
    } else {
        snprintf(tmp, sizeof tmp, "%s", path);
    }
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return wb_error_set(err, WB_E_IO, "cannot write '%s': %s", path, strerror(errno));
    PngJmp j = {.msg = ""};
    bool ok = png_encode(f, img, alpha, &j);
    int wr_errno = ferror(f) ? errno : 0;
    if (fclose(f) != 0 && ok) {
        ok = false;
        snprintf(j.msg, sizeof j.msg, "%s", strerror(errno));
    }
    if (!ok || wr_errno) {
        if (!direct)
            unlink(tmp);
        return wb_error_set(err, WB_E_IO, "cannot write '%s': %s", path,
                            j.msg[0] ? j.msg : strerror(wr_errno));
    }
    return direct ? WB_OK : wb_outpath_commit(tmp, path, err);
}

/* Decode an open PNG into img; false with j->msg on failure. */
static bool png_decode(FILE *f, WbImage *img, PngJmp *j, WbError *err)
{
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, j, on_png_error,
                                             on_png_warning);
    if (!png) {
        snprintf(j->msg, sizeof j->msg, "out of memory");
        return false;
    }
    png_infop info = png_create_info_struct(png);
    if (!info || setjmp(j->jmp)) {
        if (!info)
            snprintf(j->msg, sizeof j->msg, "out of memory");
        png_destroy_read_struct(&png, &info, NULL);
        wb_image_free(img);
        return false;
    }
    png_init_io(png, f);
    /* Only the pixels are wanted (tRNS is part of them).  Skip every other
     * ancillary chunk, known or not, unread: libpng allocates some (eXIf)
     * at their declared length before reading them, so an 80-byte file
     * could otherwise ask for 2 GB, and none of them changes a pixel. */
    static const png_byte skip[] = "bKGD\0cHRM\0cICP\0eXIf\0gAMA\0hIST\0iCCP\0iTXt\0"
                                   "oFFs\0pCAL\0pHYs\0sBIT\0sCAL\0sPLT\0sRGB\0tEXt\0"
                                   "tIME\0zTXt";
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, skip, (int)(sizeof skip / 5));
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info);
    png_uint_32 h = png_get_image_height(png, info);
    int ct = png_get_color_type(png, info);
    /* Normalize every layout to 8-bit RGBA: palette and low-bit grey expand,
     * tRNS becomes an alpha channel, 16-bit samples round (scale, not
     * truncate), grey copies to R,G,B, and an opaque alpha is added last. */
    png_set_expand(png);
    png_set_scale_16(png);
    if (ct == PNG_COLOR_TYPE_GRAY || ct == PNG_COLOR_TYPE_GRAY_ALPHA)
        png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (w > 32768 || h > 32768 || png_get_rowbytes(png, info) != (size_t)w * 4) {
        snprintf(j->msg, sizeof j->msg, "unsupported size or layout (%ux%u)", (unsigned)w,
                 (unsigned)h);
        png_destroy_read_struct(&png, &info, NULL);
        return false;
    }
    if (wb_image_alloc(img, (int)w, (int)h, err) != WB_OK) {
        snprintf(j->msg, sizeof j->msg, "%.200s", err ? err->msg : "out of memory");
        png_destroy_read_struct(&png, &info, NULL);
        return false;
    }
    for (int p = 0; p < passes; p++)
        for (png_uint_32 y = 0; y < h; y++)
            png_read_row(png, wb_image_row(img, (int)y), NULL);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    return true;
}

WbStatus wb_png_read(const char *path, WbImage *out, WbError *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return wb_error_set(err, WB_E_INPUT, "cannot read image '%s': %s", path, strerror(errno));
    unsigned char sig[8];
    if (fread(sig, 1, 8, f) != 8 || png_sig_cmp(sig, 0, 8) != 0) {
        fclose(f);
        return wb_error_set(err, WB_E_INPUT, "cannot read image '%s': not a PNG file", path);
    }
    rewind(f);
    PngJmp j = {.msg = ""};
    bool ok = png_decode(f, out, &j, err);
    fclose(f);
    if (!ok)
        return wb_error_set(err, WB_E_INPUT, "cannot read image '%s': %s", path, j.msg);
    return WB_OK;
}
