/* yuv.h — straight RGBA8 to 8-bit 4:2:0 YUV, BT.709 limited range.
 *
 * The one conversion every yuv420p/yuva420p output uses (H.264, VP9, y4m):
 * faster than swscale's generic path and sited the way the streams are
 * tagged.  Luma per pixel:
 *   Y  = 16 + 219·(0.2126 R + 0.7152 G + 0.0722 B)/255
 * Chroma per 2×2 block, from the block's filtered RGB (the transform is
 * linear, so filtering RGB first equals filtering Cb/Cr):
 *   Cb = 128 + 224·(B - Y')/(1.8556·255),  Cr = 128 + 224·(R - Y')/(1.5748·255)
 * with Y' = 0.2126 R + 0.7152 G + 0.0722 B.  The chroma filter is
 * [1 2 1]/4 across columns 2i-1, 2i, 2i+1 (co-sited with the even column,
 * "left" siting as in MPEG-2/H.264) and the mean of rows 2j and 2j+1
 * (halfway between them).  Edges repeat the last column/row.  Fixed point
 * with 16 fractional bits, rounded to nearest; the result does not depend
 * on the platform or the optimizer.
 */
#ifndef WB_YUV_H
#define WB_YUV_H

#include <stdbool.h>
#include <stdint.h>

#include "core/damage.h"
#include "core/image.h"

/* Convert src (w×h) into planes Y (w×h), U and V (ceil(w/2)×ceil(h/2)) and,
 * when planes[3] is not NULL, A (w×h, copied).  linesize in bytes; only the
 * first w (or ceil(w/2)) bytes of each plane row are written.  Picks the
 * fastest path this CPU runs (see WbYuvPath); every path gives the same
 * bytes. */
void wb_rgba_to_yuv420(const WbImage *src, uint8_t *const planes[4], const int linesize[4]);

/* The same over what an earlier conversion of this image left in the
 * planes: only the pixels `damage` flags (and the chroma samples that read
 * them) are converted again; NULL or WB_DAMAGE_ALL converts everything,
 * WB_DAMAGE_NONE nothing.  The planes then hold what wb_rgba_to_yuv420
 * would write, provided the damage covers every pixel that changed since
 * that earlier conversion.  A grid that does not fit the image or has odd
 * tile sizes (which would split a chroma block) converts everything. */
void wb_rgba_to_yuv420_damage(const WbImage *src, uint8_t *const planes[4], const int linesize[4],
                              const WbDamage *damage);

/* The implementations behind wb_rgba_to_yuv420, for tests and benchmarks. */
typedef enum WbYuvPath {
    WB_YUV_BASELINE, /* a luma pass, then a chroma pass; SSE2 where built */
    WB_YUV_AVX2,     /* one pass per row pair, 16 columns a step (x86-64) */
    WB_YUV_AVX512,   /* the same, 32 columns a step (x86-64, AVX-512 BW); not
                        the default (see yuv.c) */
    WB_YUV_PATHS     /* how many */
} WbYuvPath;

/* True when this build and CPU can run path (within WOBBLE_SIMD's cap). */
bool wb_yuv_path_available(WbYuvPath path);

/* wb_rgba_to_yuv420 through path; a path that is not available falls back
 * to WB_YUV_BASELINE. */
void wb_rgba_to_yuv420_path(WbYuvPath path, const WbImage *src, uint8_t *const planes[4],
                            const int linesize[4]);
void wb_rgba_to_yuv420_damage_path(WbYuvPath path, const WbImage *src, uint8_t *const planes[4],
                                   const int linesize[4], const WbDamage *damage);

#endif
