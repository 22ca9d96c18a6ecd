/* motion_files.c — OBJ, PC2 and CSV files for wobble export. */
#include "io/motion_files.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io/outpath.h"

WbStatus wb_text_open(WbText *t, const char *path, WbError *err)
{
    memset(t, 0, sizeof *t);
    if (strlen(path) >= sizeof t->path)
        return wb_error_set(err, WB_E_INPUT, "output path '%s' is too long", path);
    snprintf(t->path, sizeof t->path, "%s", path);
    WbStatus st = wb_outpath_temp(path, t->tmp, sizeof t->tmp, err);
    if (st)
        return st;
    t->f = fopen(t->tmp, "wb");
    if (!t->f)
        return wb_error_set(err, WB_E_IO, "cannot write '%s': %s", path, strerror(errno));
    return WB_OK;
}

WbStatus wb_text_finish(WbText *t, WbError *err)
{
    int bad = ferror(t->f);
    bad |= fclose(t->f) != 0;
    t->f = NULL;
    if (bad) {
        remove(t->tmp);
        return wb_error_set(err, WB_E_IO, "write error on '%s': %s", t->path, strerror(errno));
    }
    return wb_outpath_commit(t->tmp, t->path, err);
}

void wb_text_abort(WbText *t)
{
    if (t->f) {
        fclose(t->f);
        t->f = NULL;
        remove(t->tmp);
    }
}

WbStatus wb_obj_write(const char *path, const float *xyz, size_t n, const uint32_t *tris,
                      size_t n_tris, WbError *err)
{
    WbText t;
    WbStatus st = wb_text_open(&t, path, err);
    if (st)
        return st;
    fprintf(t.f, "# wobble %s: the mesh at the first exported frame\n", WB_VERSION);
    for (size_t i = 0; i < n; i++)
        fprintf(t.f, "v %.9g %.9g %.9g\n", (double)xyz[3 * i], (double)xyz[3 * i + 1],
                (double)xyz[3 * i + 2]);
    for (size_t i = 0; i < n_tris; i++)
        fprintf(t.f, "f %u %u %u\n", tris[3 * i] + 1, tris[3 * i + 1] + 1, tris[3 * i + 2] + 1);
    return wb_text_finish(&t, err);
}

/* ---------------------------------------------------------------- PC2 */

struct WbPc2 {
    WbText t;
    size_t n;
    int32_t samples;
    unsigned char *row;        /* 12·n bytes of one sample, little-endian */
};

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void putf(unsigned char *p, float f)
{
    uint32_t v;
    memcpy(&v, &f, 4);
    put32(p, v);
}

static WbStatus put(WbPc2 *p, const void *b, size_t n, WbError *err)
{
    if (fwrite(b, 1, n, p->t.f) != n)
        return wb_error_set(err, WB_E_IO, "cannot write '%s': %s", p->t.path, strerror(errno));
    return WB_OK;
}

static void header(unsigned char h[32], size_t n, float start, float rate, int32_t samples)
{
    memcpy(h, "POINTCACHE2", 12); /* with its NUL */
    put32(h + 12, 1);
    put32(h + 16, (uint32_t)n);
    putf(h + 20, start);
    putf(h + 24, rate);
    put32(h + 28, (uint32_t)samples);
}

WbStatus wb_pc2_open(WbPc2 **out, const char *path, size_t n, float start, float rate,
                     WbError *err)
{
    *out = NULL;
    if (n > INT32_MAX / 12)
        return wb_error_set(err, WB_E_INPUT, "'%s': %zu points are too many for PC2", path, n);
    WbPc2 *p = calloc(1, sizeof *p);
    if (!p || !(p->row = malloc(12 * (n ? n : 1)))) {
        free(p);
        return wb_error_set(err, WB_E_IO, "out of memory");
    }
    p->n = n;
    WbStatus st = wb_text_open(&p->t, path, err);
    unsigned char h[32];
    header(h, n, start, rate, 0);
    if (!st)
        st = put(p, h, sizeof h, err);
    if (st) {
        wb_pc2_abort(p);
        return st;
    }
    *out = p;
    return WB_OK;
}

WbStatus wb_pc2_add(WbPc2 *p, const float *xyz, WbError *err)
{
    for (size_t i = 0; i < 3 * p->n; i++)
        putf(p->row + 4 * i, xyz[i]);
    WbStatus st = put(p, p->row, 12 * p->n, err);
    if (!st)
        p->samples++;
    return st;
}

WbStatus wb_pc2_finish(WbPc2 *p, WbError *err)
{
    unsigned char c[4];
    put32(c, (uint32_t)p->samples);
    WbStatus st = WB_OK;
    if (fseek(p->t.f, 28, SEEK_SET) != 0)
        st = wb_error_set(err, WB_E_IO, "cannot seek in '%s'", p->t.path);
    if (!st)
        st = put(p, c, 4, err);
    if (!st)
        st = wb_text_finish(&p->t, err);
    else
        wb_text_abort(&p->t);
    free(p->row);
    free(p);
    return st;
}

void wb_pc2_abort(WbPc2 *p)
{
    if (!p)
        return;
    wb_text_abort(&p->t);
    free(p->row);
    free(p);
}
