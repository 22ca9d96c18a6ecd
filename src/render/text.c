/* text.c — FreeType glyphs blended onto a WbImage (see text.h). */
#include "render/text.h"

#include <math.h>
#include <stdlib.h>

#include <ft2build.h>
#include FT_FREETYPE_H

#include "render/texture.h"

struct WbFont {
    FT_Library lib;
    FT_Face face;
    long size26; /* current em size in 1/64 px, 0 = none set yet */
};

const char *wb_font_default_path(void)
{
    const char *env = getenv("WOBBLE_FONT");
    return env && *env ? env : WB_FONT_DEFAULT_PATH;
}

WbStatus wb_font_open(const char *path, WbFont **out, WbError *err)
{
    if (!path)
        path = wb_font_default_path();
    WbFont *f = calloc(1, sizeof *f);
    if (!f)
        return wb_error_set(err, WB_E_IO, "font %s: out of memory", path);
    if (FT_Init_FreeType(&f->lib)) {
        free(f);
        return wb_error_set(err, WB_E_IO, "font %s: FreeType failed to initialize", path);
    }
    FT_Error e = FT_New_Face(f->lib, path, 0, &f->face);
    if (e) {
        FT_Done_FreeType(f->lib);
        free(f);
        if (e == FT_Err_Cannot_Open_Resource)
            return wb_error_set(err, WB_E_IO,
                                "font %s: cannot open it (install fonts-dejavu-core, or point "
                                "WOBBLE_FONT at a .ttf file)",
                                path);
        return wb_error_set(err, WB_E_IO, "font %s: not a font FreeType can read (error %d)", path,
                            (int)e);
    }
    *out = f;
    return WB_OK;
}

void wb_font_close(WbFont *f)
{
    if (!f)
        return;
    FT_Done_Face(f->face);
    FT_Done_FreeType(f->lib);
    free(f);
}

uint32_t wb_utf8_next(const char **s)
{
    const unsigned char *p = (const unsigned char *)*s;
    if (!p[0])
        return 0;
    int n;
    uint32_t c;
    if (p[0] < 0x80) {
        *s += 1;
        return p[0];
    } else if ((p[0] & 0xE0) == 0xC0) {
        n = 1, c = p[0] & 0x1F;
    } else if ((p[0] & 0xF0) == 0xE0) {
        n = 2, c = p[0] & 0x0F;
    } else if ((p[0] & 0xF8) == 0xF0) {
        n = 3, c = p[0] & 0x07;
    } else {
        *s += 1;
        return 0xFFFD;
    }
    for (int i = 1; i <= n; i++) {
        if ((p[i] & 0xC0) != 0x80) {
            *s += 1;
            return 0xFFFD;
        }
        c = c << 6 | (p[i] & 0x3F);
    }
    /* Overlong forms, surrogates and values past U+10FFFF are malformed. */
    static const uint32_t min[4] = {0, 0x80, 0x800, 0x10000};
    if (c < min[n] || (c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF) {
        *s += 1;
        return 0xFFFD;
    }
    *s += n + 1;
    return c;
}

static void set_size(WbFont *f, double size_px)
{
    long s = lround(size_px * 64.0);
    if (s < 64)
        s = 64;
    if (s != f->size26) {
        FT_Set_Char_Size(f->face, 0, s, 72, 72); /* 72 dpi: points are pixels */
        f->size26 = s;
    }
}

/* Light hinting: outlines snap vertically only, which keeps stems crisp
 * without distorting the horizontal spacing a label's width depends on. */
#define LOAD_FLAGS (FT_LOAD_DEFAULT | FT_LOAD_TARGET_LIGHT)

/* Walk the string: for each glyph its index and the pen x (1/64 px) where
 * it starts.  Calls `fn` when non-NULL; returns the final pen x. */
typedef void (*GlyphFn)(WbFont *f, FT_UInt glyph, long pen26, void *ctx);

static long layout(WbFont *f, const char *s, GlyphFn fn, void *ctx)
{
    long pen = 0;
    FT_UInt prev = 0;
    bool kern = FT_HAS_KERNING(f->face);
    for (uint32_t c; (c = wb_utf8_next(&s));) {
        FT_UInt g = FT_Get_Char_Index(f->face, c);
        if (kern && prev && g) {
            FT_Vector k;
            if (!FT_Get_Kerning(f->face, prev, g, FT_KERNING_DEFAULT, &k))
                pen += k.x;
        }
        if (FT_Load_Glyph(f->face, g, LOAD_FLAGS))
            continue;
        if (fn)
            fn(f, g, pen, ctx);
        pen += f->face->glyph->advance.x;
        prev = g;
    }
    return pen;
}

void wb_text_measure(WbFont *f, const char *utf8, double size_px, WbTextMetrics *m)
{
    set_size(f, size_px);
    m->width = layout(f, utf8, NULL, NULL) / 64.0;
    m->ascent = f->face->size->metrics.ascender / 64.0;
    m->descent = -f->face->size->metrics.descender / 64.0;
}

typedef struct DrawCtx {
    WbImage *img;
    int ox, oy;      /* baseline origin, whole pixels */
    bool vertical;
    uint8_t rgb[3];
    int alpha;       /* 0..255 */
} DrawCtx;

/* Blend coverage cov (0..255) of the colour onto image pixel (x, y). */
static void blend(const DrawCtx *d, int x, int y, int cov)
{
    if (x < 0 || y < 0 || x >= d->img->w || y >= d->img->h || cov <= 0)
        return;
    uint8_t *p = wb_image_row(d->img, y) + 4 * x;
    int a = (cov * d->alpha + 127) / 255; /* weight, 0..255 */
    for (int k = 0; k < 3; k++)
        p[k] = (uint8_t)(p[k] + ((d->rgb[k] - p[k]) * a + (d->rgb[k] > p[k] ? 127 : -127)) / 255);
    p[3] = (uint8_t)(p[3] + ((255 - p[3]) * a + 127) / 255);
}

static void draw_glyph(WbFont *f, FT_UInt glyph, long pen26, void *ctx)
{
    DrawCtx *d = ctx;
    FT_GlyphSlot slot = f->face->glyph;
    if (slot->format != FT_GLYPH_FORMAT_BITMAP && FT_Render_Glyph(slot, FT_RENDER_MODE_NORMAL))
        return;
    const FT_Bitmap *b = &slot->bitmap;
    if (b->pixel_mode != FT_PIXEL_MODE_GRAY)
        return;
    /* Bitmap pixel (i, j) in text space: u = pen + left + i along the
     * baseline, v = j − top below it. */
    int u0 = (int)((pen26 + 32) >> 6) + slot->bitmap_left;
    int v0 = -slot->bitmap_top;
    for (unsigned j = 0; j < b->rows; j++) {
        const unsigned char *row = b->buffer + (long)j * b->pitch;
        for (unsigned i = 0; i < b->width; i++) {
            int u = u0 + (int)i, v = v0 + (int)j;
            /* Vertical: turned 90° counter-clockwise, (u, v) → (v, −u). */
            if (d->vertical)
                blend(d, d->ox + v, d->oy - u - 1, row[i]);
            else
                blend(d, d->ox + u, d->oy + v, row[i]);
        }
    }
    (void)glyph;
}

void wb_text_draw(WbImage *img, WbFont *f, const char *utf8, double size_px, double x, double y,
                  WbTextAlign align, bool vertical, uint32_t rgba)
{
    if (!*utf8)
        return;
    double shift = 0.0;
    if (align != WB_ALIGN_LEFT) {
        WbTextMetrics m;
        wb_text_measure(f, utf8, size_px, &m);
        shift = align == WB_ALIGN_CENTER ? 0.5 * m.width : m.width;
    }
    set_size(f, size_px);
    DrawCtx d = {.img = img, .vertical = vertical, .alpha = (int)WB_RGBA_A(rgba)};
    d.rgb[0] = (uint8_t)WB_RGBA_R(rgba);
    d.rgb[1] = (uint8_t)WB_RGBA_G(rgba);
    d.rgb[2] = (uint8_t)WB_RGBA_B(rgba);
    if (vertical) {
        d.ox = (int)lround(x);
        d.oy = (int)lround(y + shift);
    } else {
        d.ox = (int)lround(x - shift);
        d.oy = (int)lround(y);
    }
    layout(f, utf8, draw_glyph, &d);
}
