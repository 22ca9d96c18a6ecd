/* resume.c — the resume journal of a PNG sequence (resume.h). */
#include "io/resume.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hash.h"
#include "core/image.h"
#include "io/outpath.h"
#include "io/png.h"
#include "io/sink_pngseq.h"

#define HEAD "wobble-resume 1 "

struct WbResume {
    char pattern[4096];
    char path[4300];
    int fd;
};

/* Size and FNV-1a of a file's bytes; false when it cannot be read. */
static bool file_hash(const char *path, uint64_t *size, uint64_t *hash)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    unsigned char buf[65536];
    size_t n;
    *size = 0;
    *hash = WB_FNV1A_SEED;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        *hash = wb_fnv1a(*hash, buf, n);
        *size += n;
    }
    bool ok = !ferror(f);
    fclose(f);
    return ok;
}

/* Is frame n's file the one the journal recorded, and a w×h PNG? */
static bool frame_ok(const char *pattern, int64_t n, uint64_t size, uint64_t hash, int w, int h)
{
    char name[4200];
    uint64_t s, x;
    if (wb_pngseq_name(pattern, n, name, sizeof name, NULL) || !file_hash(name, &s, &x) ||
        s != size || x != hash)
        return false;
    WbImage img = {0};
    bool ok = wb_png_read(name, &img, NULL) == WB_OK && img.w == w && img.h == h;
    wb_image_free(&img);
    return ok;
}

/* The verified frames of an existing journal, as its text to keep. */
static char *verified(const char *path, const char *pattern, int64_t first, int64_t end,
                      const char *key, int w, int h, int64_t *done)
{
    *done = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *keep = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&keep, &len);
    char line[8192];
    bool head = fgets(line, sizeof line, f) && strncmp(line, HEAD, strlen(HEAD)) == 0 &&
                strlen(line) == strlen(HEAD) + strlen(key) + 1 &&
                strncmp(line + strlen(HEAD), key, strlen(key)) == 0;
    while (m && head && first + *done < end && fgets(line, sizeof line, f)) {
        long long n;
        unsigned long long size, hash;
        char tail;
        size_t l = strlen(line);
        if (l == 0 || line[l - 1] != '\n' ||
            sscanf(line, "frame %lld %llu %16llx%c", &n, &size, &hash, &tail) != 4 ||
            tail != '\n' || n != first + *done || !frame_ok(pattern, n, size, hash, w, h))
            break;
        fputs(line, m);
        (*done)++;
    }
    fclose(f);
    if (m)
        fclose(m);
    return keep;
}

WbStatus wb_resume_open(WbResume **out, const char *pattern, int64_t first, int64_t end,
                        const char *key, int w, int h, int64_t *done, WbError *err)
{
    *out = NULL;
    *done = 0;
    WbResume *r = calloc(1, sizeof *r);
    if (!r)
        return wb_error_set(err, WB_E_IO, "out of memory");
    r->fd = -1;
    snprintf(r->pattern, sizeof r->pattern, "%s", pattern);
    char name[4200];
    WbStatus st = wb_pngseq_name(pattern, first, name, sizeof name, err);
    if (!st && (size_t)snprintf(r->path, sizeof r->path, "%s.resume", name) >= sizeof r->path)
        st = wb_error_set(err, WB_E_INPUT, "output pattern '%s' is too long", pattern);
    if (st) {
        free(r);
        return st;
    }
    char *keep = verified(r->path, pattern, first, end, key, w, h, done);
    /* the journal starts again from what was verified: a torn or stale tail
     * is dropped, so lines always follow on from the frames before them */
    char tmp[4400];
    st = wb_outpath_temp(r->path, tmp, sizeof tmp, err);
    FILE *f = st ? NULL : fopen(tmp, "w");
    if (!st && !f)
        st = wb_error_set(err, WB_E_IO, "cannot write resume journal '%s': %s", r->path,
                          strerror(errno));
    if (!st) {
        fprintf(f, "%s%s\n%s", HEAD, key, keep ? keep : "");
        bool bad = ferror(f) != 0;
        bad |= fclose(f) != 0;
        if (bad) {
            remove(tmp);
            st = wb_error_set(err, WB_E_IO, "write error on resume journal '%s'", r->path);
        } else {
            st = wb_outpath_commit(tmp, r->path, err);
        }
    }
    free(keep);
    if (!st) {
        r->fd = open(r->path, O_WRONLY | O_APPEND);
        if (r->fd < 0)
            st = wb_error_set(err, WB_E_IO, "cannot write resume journal '%s': %s", r->path,
                              strerror(errno));
    }
    if (st) {
        free(r);
        return st;
    }
    *out = r;
    return WB_OK;
}

WbStatus wb_resume_add(WbResume *r, int64_t frame, WbError *err)
{
    char name[4200], line[128];
    uint64_t size, hash;
    WbStatus st = wb_pngseq_name(r->pattern, frame, name, sizeof name, err);
    if (st)
        return st;
    if (!file_hash(name, &size, &hash))
        return wb_error_set(err, WB_E_IO, "cannot read back frame '%s': %s", name,
                            strerror(errno));
    int n = snprintf(line, sizeof line, "frame %lld %llu %016llx\n", (long long)frame,
                     (unsigned long long)size, (unsigned long long)hash);
    /* one write: a line is in the journal whole or, after a kill, torn and
     * then ignored */
    if (write(r->fd, line, (size_t)n) != n)
        return wb_error_set(err, WB_E_IO, "write error on resume journal '%s': %s", r->path,
                            strerror(errno));
    return WB_OK;
}

const char *wb_resume_path(const WbResume *r) { return r->path; }

WbStatus wb_resume_close(WbResume *r, bool complete, WbError *err)
{
    if (!r)
        return WB_OK;
    WbStatus st = WB_OK;
    if (r->fd >= 0 && close(r->fd) != 0)
        st = wb_error_set(err, WB_E_IO, "write error on resume journal '%s': %s", r->path,
                          strerror(errno));
    if (!st && complete && unlink(r->path) != 0)
        st = wb_error_set(err, WB_E_IO, "cannot remove resume journal '%s': %s", r->path,
                          strerror(errno));
    free(r);
    return st;
}
