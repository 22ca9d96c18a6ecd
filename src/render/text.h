/* text.h — antialiased text on a WbImage, through FreeType 2.
 *
 * Why FreeType rather than a bitmap font: chart labels are read at several
 * sizes (title, axis titles, tick numbers), and outline fonts rendered with
 * light hinting (vertical snapping only, so stems are crisp and spacing stays
 * true) and 256-level coverage look right at every one of them.
 *
 * The font file: `WOBBLE_FONT` when set and non-empty, else Debian's
 * DejaVu Sans (package fonts-dejavu-core) at WB_FONT_DEFAULT_PATH.
 *
 * Geometry (pixels, x right, y down, like the rasterizer):
 *   - a string is laid out along its BASELINE from a pen position; advances
 *     and kerning (when the face has a kern table) move the pen in 1/64 px,
 *     each glyph's bitmap is placed at the whole pixel nearest its pen;
 *   - ascent and descent are the face's (not the string's ink), so labels of
 *     one size line up whatever letters they hold;
 *   - a VERTICAL string is the horizontal one turned 90° counter-clockwise:
 *     it reads bottom to top, its baseline runs up from the anchor and the
 *     glyphs' tops point to −x (the usual y-axis title).
 *
 * Colour: glyph coverage c ∈ [0, 1] blends the straight-alpha colour over the
 * image's pixel, out = dst + c·a·(src − dst), alpha raised toward 255 by the
 * same weight.  Blending is in the image's (sRGB) values, like most text
 * renderers; the result is deterministic.
 *
 * Strings are UTF-8; malformed bytes draw as U+FFFD, characters the font
 * lacks as its .notdef box.
 */
#ifndef WB_TEXT_H
#define WB_TEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "core/image.h"

#define WB_FONT_DEFAULT_PATH "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

/* An open font face (opaque; owns FreeType's library and face). */
typedef struct WbFont WbFont;

typedef enum WbTextAlign { WB_ALIGN_LEFT, WB_ALIGN_CENTER, WB_ALIGN_RIGHT } WbTextAlign;

/* A laid-out string's extent at one size, pixels.  width is the pen's
 * advance (0 for ""); ascent > 0 above the baseline, descent > 0 below it. */
typedef struct WbTextMetrics {
    double width, ascent, descent;
} WbTextMetrics;

/* The path wb_font_open(NULL, ...) uses: $WOBBLE_FONT or the default. */
const char *wb_font_default_path(void);

/* Open a TrueType/OpenType font file (path NULL = wb_font_default_path()).
 * WB_E_IO naming the path when it is missing or not a font (with a hint to
 * install fonts-dejavu-core or set WOBBLE_FONT).  Close with wb_font_close. */
WbStatus wb_font_open(const char *path, WbFont **out, WbError *err);
void wb_font_close(WbFont *f);

/* Extent of utf8 at size_px (the em size in pixels, > 0). */
void wb_text_measure(WbFont *f, const char *utf8, double size_px, WbTextMetrics *m);

/* Draw utf8 at size_px in colour rgba (straight, WB_RGBA packing from
 * render/texture.h).  (x, y) is a point on the baseline: the string's start,
 * middle or end as `align` says.  Clipped to the image.  A glyph FreeType
 * cannot load or render is skipped (it has no ink to give). */
void wb_text_draw(WbImage *img, WbFont *f, const char *utf8, double size_px, double x, double y,
                  WbTextAlign align, bool vertical, uint32_t rgba);

/* Decode one UTF-8 character at *s, advancing *s past it; malformed or
 * truncated sequences give U+FFFD and advance one byte.  0 at the end. */
uint32_t wb_utf8_next(const char **s);

#endif
