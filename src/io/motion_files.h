/* motion_files.h — baked motion for other tools (wobble export): a Wavefront
 * OBJ mesh, a PC2 point cache, a CSV of tracks.  Each file is written under
 * a temporary name and renamed into place when complete; every write is
 * checked (WB_E_IO naming the path).
 *
 * PC2 (the point cache Blender's Mesh Cache modifier and 3ds Max read), all
 * little-endian: char[12] "POINTCACHE2\0", i32 version 1, i32 points,
 * f32 start frame, f32 sample rate (frames per sample), i32 samples, then
 * per sample per point f32 x, y, z.
 */
#ifndef WB_MOTION_FILES_H
#define WB_MOTION_FILES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"

/* OBJ: one "v x y z" per point (%.9g: float exact), one "f a b c" per
 * triangle (1-based), in the given orders. */
WbStatus wb_obj_write(const char *path, const float *xyz, size_t n, const uint32_t *tris,
                      size_t n_tris, WbError *err);

typedef struct WbPc2 WbPc2;

/* Start a PC2 of n points; samples are counted as they are added. */
WbStatus wb_pc2_open(WbPc2 **out, const char *path, size_t n, float start, float rate,
                     WbError *err);
/* One sample: n points, 3 floats each. */
WbStatus wb_pc2_add(WbPc2 *p, const float *xyz, WbError *err);
/* Write the sample count, close, rename into place. */
WbStatus wb_pc2_finish(WbPc2 *p, WbError *err);
/* Drop it (the temporary file is removed). */
void wb_pc2_abort(WbPc2 *p);

/* A text file under a temporary name: wb_text_open gives the stream,
 * wb_text_finish checks and renames it, wb_text_abort drops it. */
typedef struct WbText {
    FILE *f;
    char path[1024], tmp[1100];
} WbText;
WbStatus wb_text_open(WbText *t, const char *path, WbError *err);
WbStatus wb_text_finish(WbText *t, WbError *err);
void wb_text_abort(WbText *t);

#endif
