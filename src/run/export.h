/* export.h — baked motion out of wobble (wobble export): each frame of a
 * range simulated (no drawing) and written for other tools through the
 * runner's motion (runner.h):
 *
 *   BASE.obj  the mesh at the range's first frame (cloth, jiggle 3d)
 *   BASE.pc2  its vertices at every frame of the range, in the OBJ's order:
 *             start frame = the range's first, one sample per frame
 *   BASE.csv  the tracks: frame,time,rope,node,x,y,z (rope) or
 *             frame,time,bone,x,y,z (jiggle), one row per node or bone
 *
 * All files appear together at the end (each renamed from a temporary
 * name); an error or a stop leaves none.
 */
#ifndef WB_EXPORT_H
#define WB_EXPORT_H

#include <signal.h>
#include <stdint.h>

#include "core/error.h"
#include "run/runner.h"
#include "scene/scene.h"

typedef struct WbExport {
    const WbScene *scene;
    const WbRunner *runner;    /* at or before the range's first frame */
    const char *base;          /* BASE: the files are BASE.obj, BASE.pc2, BASE.csv */
    int64_t first, end;        /* frames [first, end) */
    const volatile sig_atomic_t *stop; /* non-zero: stop, write nothing; or NULL */
} WbExport;

typedef struct WbExportResult {
    int64_t frames;
    size_t points, rows;       /* mesh vertices and track rows per frame */
    bool interrupted;
} WbExportResult;

/* Errors: the runner's ("frame N: ..."), WB_E_INPUT when the kind has
 * nothing to export (photo), WB_E_IO for the files. */
WbStatus wb_export_run(const WbExport *e, WbExportResult *res, WbError *err);

#endif
