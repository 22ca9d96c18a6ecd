/* export.c — wobble export's loop: simulate a range, write its motion. */
#include "run/export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/motion_files.h"

typedef struct Files {
    char obj[1100], pc2[1100], csv[1100];
    WbPc2 *pc2w;
    WbText csvw;
    bool csv_open;
    float *rest;               /* the first frame's points, for the OBJ */
    uint32_t *tris;
    size_t n, n_tris;
} Files;

static WbStatus open_files(Files *fs, const WbExport *e, const WbMotion *m, WbError *err)
{
    WbStatus st = WB_OK;
    if (m->n_points) {
        fs->n = m->n_points;
        fs->n_tris = m->n_tris;
        fs->rest = malloc(3 * fs->n * sizeof *fs->rest);
        fs->tris = malloc((3 * fs->n_tris + 1) * sizeof *fs->tris);
        if (!fs->rest || !fs->tris)
            return wb_error_set(err, WB_E_IO, "out of memory");
        memcpy(fs->rest, m->points, 3 * fs->n * sizeof *fs->rest);
        memcpy(fs->tris, m->tris, 3 * fs->n_tris * sizeof *fs->tris);
        st = wb_pc2_open(&fs->pc2w, fs->pc2, fs->n, (float)e->first, 1.0f, err);
    }
    if (!st && m->n_rows) {
        st = wb_text_open(&fs->csvw, fs->csv, err);
        fs->csv_open = st == WB_OK;
        if (!st)
            fprintf(fs->csvw.f, "frame,time,%s\n", m->columns);
    }
    return st;
}

static void csv_rows(Files *fs, const WbMotion *m, int64_t f, double t)
{
    for (size_t i = 0; i < m->n_rows; i++) {
        const WbTrackRow *r = &m->rows[i];
        if (m->row_b)
            fprintf(fs->csvw.f, "%lld,%.6f,%d,%d,%.9g,%.9g,%.9g\n", (long long)f, t, r->a, r->b,
                    r->v[0], r->v[1], r->v[2]);
        else
            fprintf(fs->csvw.f, "%lld,%.6f,%d,%.9g,%.9g,%.9g\n", (long long)f, t, r->a, r->v[0],
                    r->v[1], r->v[2]);
    }
}

static WbStatus finish(Files *fs, bool ok, WbError *err)
{
    WbStatus st = ok ? WB_OK : WB_E_IO;
    if (fs->pc2w) {
        if (!st)
            st = wb_pc2_finish(fs->pc2w, err);
        else
            wb_pc2_abort(fs->pc2w);
    }
    if (fs->csv_open) {
        if (!st)
            st = wb_text_finish(&fs->csvw, err);
        else
            wb_text_abort(&fs->csvw);
    }
    if (!st && fs->rest)
        st = wb_obj_write(fs->obj, fs->rest, fs->n, fs->tris, fs->n_tris, err);
    free(fs->rest);
    free(fs->tris);
    return ok ? st : WB_OK;
}

WbStatus wb_export_run(const WbExport *e, WbExportResult *res, WbError *err)
{
    const WbRunner *r = e->runner;
    *res = (WbExportResult){0};
    if (!r->motion)
        return wb_error_set(err, WB_E_INPUT, "export: nothing to export from a %s scene (no "
                            "mesh, bones or rope nodes)",
                            e->scene->kind == WB_KIND_PHOTO ? "photo" : "this");
    Files fs;
    memset(&fs, 0, sizeof fs);
    snprintf(fs.obj, sizeof fs.obj, "%s.obj", e->base);
    snprintf(fs.pc2, sizeof fs.pc2, "%s.pc2", e->base);
    snprintf(fs.csv, sizeof fs.csv, "%s.csv", e->base);
    double fps = e->scene->output.fps;
    WbStatus st = WB_OK;
    for (int64_t f = e->first; !st && f < e->end; f++) {
        st = r->advance(r->self, wb_runner_step_for_frame(f, fps, r->rate), err);
        if (st) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            snprintf(err->msg, sizeof err->msg, "frame %lld: %.990s", (long long)f, msg);
            break;
        }
        WbMotion m;
        st = r->motion(r->self, &m, err);
        if (!st && f == e->first) {
            st = open_files(&fs, e, &m, err);
            res->points = m.n_points;
            res->rows = m.n_rows;
        }
        if (!st && fs.pc2w)
            st = wb_pc2_add(fs.pc2w, m.points, err);
        if (!st && fs.csv_open)
            csv_rows(&fs, &m, f, (double)f / fps);
        if (!st)
            res->frames++;
        if (!st && e->stop && *e->stop) {
            res->interrupted = true;
            break;
        }
    }
    if (st || res->interrupted) {
        finish(&fs, false, err);
        return st;
    }
    return finish(&fs, true, err);
}
