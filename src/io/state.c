/* state.c — the state file container (state.h): header, snapshots with a
 * CRC-32 each, an index and a trailer; every number little-endian. */
#include "io/state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/hash.h"
#include "io/outpath.h"

#define HEADER_BYTES 64
#define SNAP_HEAD 32
#define TRAILER_BYTES 16
static const char MAGIC[8] = {'W', 'B', 'S', 'T', 'A', 'T', 'E', '\0'};

/* ---------------------------------------------------------------- CRC-32 */

uint32_t wb_crc32(uint32_t crc, const void *data, size_t n)
{
    static uint32_t table[256];
    static int ready;
    if (!ready) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
        ready = 1;
    }
    const unsigned char *p = data;
    crc = ~crc;
    for (size_t i = 0; i < n; i++)
        crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

uint64_t wb_state_version_hash(void)
{
    char v[64];
    int n = snprintf(v, sizeof v, "wobble %s state %d", WB_VERSION, WB_STATE_FORMAT);
    return wb_fnv1a(WB_FNV1A_SEED, v, (size_t)n);
}

/* ---------------------------------------------------------------- bytes */

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)p[i] << (8 * i);
    return v;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static bool host_le(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* Copy n elements of `size` bytes, reversing each one's bytes on a
 * big-endian host (the file is little-endian). */
static void copy_le(unsigned char *dst, const unsigned char *src, size_t n, size_t size)
{
    if (host_le() || size == 1) {
        memcpy(dst, src, n * size);
        return;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < size; k++)
            dst[i * size + k] = src[i * size + size - 1 - k];
}

/* ---------------------------------------------------------------- payload */

void wb_state_buf_free(WbStateBuf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

static unsigned char *buf_grow(WbStateBuf *b, size_t add)
{
    if (b->failed)
        return NULL;
    if (b->len + add > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + add)
            cap *= 2;
        unsigned char *d = realloc(b->data, cap);
        if (!d) {
            b->failed = true;
            snprintf(b->what, sizeof b->what, "out of memory for a %zu-byte snapshot", cap);
            return NULL;
        }
        b->data = d;
        b->cap = cap;
    }
    unsigned char *p = b->data + b->len;
    b->len += add;
    return p;
}

static void save_visit(WbFields *f, const char *name, WbFieldType t, void *data, size_t count)
{
    WbStateBuf *b = ((WbStateSaver *)f)->buf;
    size_t nl = strlen(name), es = wb_field_size(t);
    if (nl > 255) {
        b->failed = true;
        snprintf(b->what, sizeof b->what, "field name '%.40s...' is too long", name);
        return;
    }
    unsigned char *p = buf_grow(b, 1 + nl + 1 + 8 + count * es);
    if (!p)
        return;
    *p++ = (unsigned char)nl;
    memcpy(p, name, nl);
    p += nl;
    *p++ = (unsigned char)t;
    put_u64(p, count);
    p += 8;
    if (count)
        copy_le(p, data, count, es);
}

void wb_state_saver_init(WbStateSaver *s, WbStateBuf *b)
{
    s->f = (WbFields){.visit = save_visit, .loading = false};
    s->buf = b;
}

static void load_fail(WbStateBuf *b, const char *name, const char *fmt, const char *got)
{
    b->failed = true;
    snprintf(b->what, sizeof b->what, "field '%.60s': %.100s%.60s", name, fmt, got ? got : "");
}

static void load_visit(WbFields *f, const char *name, WbFieldType t, void *data, size_t count)
{
    WbStateBuf *b = ((WbStateLoader *)f)->buf;
    if (b->failed)
        return;
    size_t nl = strlen(name), es = wb_field_size(t);
    const unsigned char *p = b->data + b->pos, *end = b->data + b->len;
    if (end - p < 1 || (size_t)(end - p) < 1 + (size_t)p[0] + 9) {
        load_fail(b, name, "missing (the snapshot ends early)", NULL);
        return;
    }
    char got[256];
    memcpy(got, p + 1, p[0]);
    got[p[0]] = '\0';
    if (p[0] != nl || memcmp(p + 1, name, nl) != 0) {
        load_fail(b, name, "expected here, found field ", got);
        return;
    }
    p += 1 + nl;
    if (*p != (unsigned char)t) {
        load_fail(b, name, "has another element type", NULL);
        return;
    }
    uint64_t n = get_u64(p + 1);
    p += 9;
    if (n != count) {
        char msg[96];
        snprintf(msg, sizeof msg, "has %llu elements, the scene needs %zu", (unsigned long long)n,
                 count);
        load_fail(b, name, msg, NULL);
        return;
    }
    if ((size_t)(end - p) / (es ? es : 1) < count) {
        load_fail(b, name, "is cut short", NULL);
        return;
    }
    if (count)
        copy_le(data, p, count, es);
    b->pos = (size_t)(p - b->data) + count * es;
}

void wb_state_loader_init(WbStateLoader *l, WbStateBuf *b)
{
    l->f = (WbFields){.visit = load_visit, .loading = true};
    l->buf = b;
    b->pos = 0;
    b->failed = false;
    b->what[0] = '\0';
}

/* ---------------------------------------------------------------- writer */

typedef struct IndexEntry {
    int64_t frame;
    uint64_t offset;
} IndexEntry;

struct WbStateWriter {
    FILE *f;
    char path[1024], tmp[1100];
    uint64_t offset;           /* bytes written */
    IndexEntry *index;
    uint32_t n, cap;
    WbStateInfo info;
};

static WbStatus write_bytes(WbStateWriter *w, const void *p, size_t n, WbError *err)
{
    if (n && fwrite(p, 1, n, w->f) != n)
        return wb_error_set(err, WB_E_IO, "cannot write state '%s': %s", w->path, strerror(errno));
    w->offset += n;
    return WB_OK;
}

static void encode_header(unsigned char *h, const WbStateInfo *info)
{
    memset(h, 0, HEADER_BYTES);
    memcpy(h, MAGIC, 8);
    put_u32(h + 8, WB_STATE_FORMAT);
    put_u32(h + 12, info->kind);
    put_u64(h + 16, info->scene_hash);
    put_u64(h + 24, info->version_hash);
    uint64_t fb;
    memcpy(&fb, &info->fps, 8);
    put_u64(h + 32, fb);
    put_u64(h + 40, (uint64_t)info->frames);
    put_u32(h + 48, info->every);
    put_u32(h + 52, info->snapshots);
    put_u32(h + 60, wb_crc32(0, h, 60));
}

WbStatus wb_state_writer_open(WbStateWriter **out, const char *path, const WbStateInfo *info,
                              WbError *err)
{
    *out = NULL;
    WbStateWriter *w = calloc(1, sizeof *w);
    if (!w)
        return wb_error_set(err, WB_E_IO, "out of memory");
    if (strlen(path) >= sizeof w->path) {
        free(w);
        return wb_error_set(err, WB_E_INPUT, "state path is too long");
    }
    snprintf(w->path, sizeof w->path, "%s", path);
    WbStatus st = wb_outpath_temp(path, w->tmp, sizeof w->tmp, err);
    if (st) {
        free(w);
        return st;
    }
    w->f = fopen(w->tmp, "wb");
    if (!w->f) {
        st = wb_error_set(err, WB_E_IO, "cannot write state '%s': %s", path, strerror(errno));
        free(w);
        return st;
    }
    unsigned char h[HEADER_BYTES];
    w->info = *info;
    w->info.snapshots = 0;
    encode_header(h, &w->info);
    st = write_bytes(w, h, sizeof h, err);
    if (st) {
        wb_state_writer_abort(w);
        return st;
    }
    *out = w;
    return WB_OK;
}

WbStatus wb_state_writer_add(WbStateWriter *w, int64_t frame, int64_t step,
                             const WbStateBuf *payload, WbError *err)
{
    if (w->n == w->cap) {
        uint32_t cap = w->cap ? 2 * w->cap : 64;
        IndexEntry *ix = realloc(w->index, cap * sizeof *ix);
        if (!ix)
            return wb_error_set(err, WB_E_IO, "out of memory");
        w->index = ix;
        w->cap = cap;
    }
    w->index[w->n++] = (IndexEntry){frame, w->offset};
    unsigned char h[SNAP_HEAD];
    memset(h, 0, sizeof h);
    memcpy(h, "SNAP", 4);
    put_u64(h + 8, (uint64_t)frame);
    put_u64(h + 16, (uint64_t)step);
    put_u64(h + 24, payload->len);
    uint32_t crc = wb_crc32(0, h, sizeof h);
    crc = wb_crc32(crc, payload->data, payload->len);
    unsigned char c[4];
    put_u32(c, crc);
    WbStatus st = write_bytes(w, h, sizeof h, err);
    if (!st)
        st = write_bytes(w, payload->data, payload->len, err);
    if (!st)
        st = write_bytes(w, c, 4, err);
    return st;
}

WbStatus wb_state_writer_finish(WbStateWriter *w, WbError *err)
{
    size_t n = 8 + 16 * (size_t)w->n;
    unsigned char *ix = malloc(n + 4);
    if (!ix) {
        wb_state_writer_abort(w);
        return wb_error_set(err, WB_E_IO, "out of memory");
    }
    memcpy(ix, "INDX", 4);
    put_u32(ix + 4, w->n);
    for (uint32_t i = 0; i < w->n; i++) {
        put_u64(ix + 8 + 16 * i, (uint64_t)w->index[i].frame);
        put_u64(ix + 16 + 16 * i, w->index[i].offset);
    }
    put_u32(ix + n, wb_crc32(0, ix, n));
    uint64_t at = w->offset;
    WbStatus st = write_bytes(w, ix, n + 4, err);
    free(ix);
    unsigned char t[TRAILER_BYTES];
    put_u64(t, at);
    put_u32(t + 8, wb_crc32(0, t, 8));
    memcpy(t + 12, "WEND", 4);
    if (!st)
        st = write_bytes(w, t, sizeof t, err);
    /* the snapshot count goes into the header now that it is known */
    if (!st) {
        unsigned char h[HEADER_BYTES];
        w->info.snapshots = w->n;
        encode_header(h, &w->info);
        if (fseek(w->f, 0, SEEK_SET) != 0 || fwrite(h, 1, sizeof h, w->f) != sizeof h)
            st = wb_error_set(err, WB_E_IO, "cannot write state '%s': %s", w->path,
                              strerror(errno));
    }
    if (st) {
        wb_state_writer_abort(w);
        return st;
    }
    FILE *f = w->f;
    w->f = NULL;
    int bad = ferror(f) || fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad) {
        st = wb_error_set(err, WB_E_IO, "write error on state '%s': %s", w->path, strerror(errno));
        remove(w->tmp);
    } else {
        st = wb_outpath_commit(w->tmp, w->path, err);
    }
    free(w->index);
    free(w);
    return st;
}

void wb_state_writer_abort(WbStateWriter *w)
{
    if (!w)
        return;
    if (w->f)
        fclose(w->f);
    remove(w->tmp);
    free(w->index);
    free(w);
}

/* ---------------------------------------------------------------- reader */

struct WbStateReader {
    FILE *f;
    char path[1024];
    WbStateInfo info;
    IndexEntry *index;
    uint64_t size;
};

static WbStatus bad(WbStateReader *r, WbError *err, const char *what)
{
    return wb_error_set(err, WB_E_INPUT, "state '%s': %s", r->path, what);
}

static WbStatus read_at(WbStateReader *r, uint64_t at, void *p, size_t n, WbError *err)
{
    if (at > r->size || n > r->size - at)
        return bad(r, err, "truncated (a part lies past the end of the file)");
    if (fseeko(r->f, (off_t)at, SEEK_SET) != 0 || fread(p, 1, n, r->f) != n)
        return wb_error_set(err, WB_E_INPUT, "state '%s': read error: %s", r->path,
                            ferror(r->f) ? strerror(errno) : "unexpected end of file");
    return WB_OK;
}

static WbStatus read_header(WbStateReader *r, WbError *err)
{
    unsigned char h[HEADER_BYTES];
    if (r->size == 0)
        return bad(r, err, "empty file");
    WbStatus st = read_at(r, 0, h, r->size < 8 ? (size_t)r->size : 8, err);
    if (st)
        return st;
    if (r->size < 8 || memcmp(h, MAGIC, 8) != 0)
        return bad(r, err, "not a wobble state file (no WBSTATE header; make one with wobble bake)");
    if (r->size < HEADER_BYTES)
        return bad(r, err, "truncated (shorter than its header)");
    if ((st = read_at(r, 0, h, sizeof h, err)))
        return st;
    if (get_u32(h + 60) != wb_crc32(0, h, 60))
        return bad(r, err, "corrupt header (checksum mismatch)");
    uint32_t fmt = get_u32(h + 8);
    if (fmt != WB_STATE_FORMAT)
        return wb_error_set(err, WB_E_INPUT,
                            "state '%s': format %u, this wobble reads format %d; bake it again",
                            r->path, fmt, WB_STATE_FORMAT);
    r->info.kind = get_u32(h + 12);
    r->info.scene_hash = get_u64(h + 16);
    r->info.version_hash = get_u64(h + 24);
    uint64_t fb = get_u64(h + 32);
    memcpy(&r->info.fps, &fb, 8);
    r->info.frames = (int64_t)get_u64(h + 40);
    r->info.every = get_u32(h + 48);
    return WB_OK;
}

static WbStatus read_index(WbStateReader *r, WbError *err)
{
    unsigned char t[TRAILER_BYTES];
    if (r->size < HEADER_BYTES + TRAILER_BYTES)
        return bad(r, err, "truncated (no index: the bake did not finish)");
    WbStatus st = read_at(r, r->size - TRAILER_BYTES, t, sizeof t, err);
    if (st)
        return st;
    if (memcmp(t + 12, "WEND", 4) != 0)
        return bad(r, err, "truncated or unfinished (no end marker)");
    if (get_u32(t + 8) != wb_crc32(0, t, 8))
        return bad(r, err, "corrupt trailer (checksum mismatch)");
    uint64_t at = get_u64(t);
    unsigned char head[8];
    if ((st = read_at(r, at, head, 8, err)))
        return st;
    if (memcmp(head, "INDX", 4) != 0)
        return bad(r, err, "corrupt index (no INDX marker where the trailer points)");
    uint32_t n = get_u32(head + 4);
    size_t bytes = 8 + 16 * (size_t)n;
    if (n == 0 || at + bytes + 4 + TRAILER_BYTES != r->size)
        return bad(r, err, "corrupt index (its size does not match the file)");
    unsigned char *ix = malloc(bytes + 4);
    r->index = malloc(n * sizeof *r->index);
    if (!ix || !r->index) {
        free(ix);
        return wb_error_set(err, WB_E_IO, "out of memory");
    }
    st = read_at(r, at, ix, bytes + 4, err);
    if (!st && get_u32(ix + bytes) != wb_crc32(0, ix, bytes))
        st = bad(r, err, "corrupt index (checksum mismatch)");
    for (uint32_t i = 0; !st && i < n; i++) {
        r->index[i].frame = (int64_t)get_u64(ix + 8 + 16 * i);
        r->index[i].offset = get_u64(ix + 16 + 16 * i);
        if ((i > 0 && r->index[i].frame <= r->index[i - 1].frame) || r->index[i].offset >= at)
            st = bad(r, err, "corrupt index (snapshots out of order)");
    }
    free(ix);
    r->info.snapshots = n;
    return st;
}

WbStatus wb_state_reader_open(WbStateReader **out, const char *path, WbError *err)
{
    *out = NULL;
    WbStateReader *r = calloc(1, sizeof *r);
    if (!r)
        return wb_error_set(err, WB_E_IO, "out of memory");
    snprintf(r->path, sizeof r->path, "%s", path);
    struct stat sb;
    r->f = fopen(path, "rb");
    WbStatus st = WB_OK;
    if (!r->f || fstat(fileno(r->f), &sb) != 0)
        st = wb_error_set(err, WB_E_INPUT, "cannot read state '%s': %s", path, strerror(errno));
    else if (!S_ISREG(sb.st_mode))
        st = bad(r, err, "not a regular file");
    if (!st) {
        r->size = (uint64_t)sb.st_size;
        st = read_header(r, err);
    }
    if (!st)
        st = read_index(r, err);
    if (st) {
        wb_state_reader_close(r);
        return st;
    }
    *out = r;
    return WB_OK;
}

const WbStateInfo *wb_state_reader_info(const WbStateReader *r) { return &r->info; }

const char *wb_state_reader_path(const WbStateReader *r) { return r->path; }

int64_t wb_state_reader_frame(const WbStateReader *r, uint32_t i) { return r->index[i].frame; }

int wb_state_reader_find(const WbStateReader *r, int64_t frame)
{
    int found = -1;
    for (uint32_t i = 0; i < r->info.snapshots && r->index[i].frame <= frame; i++)
        found = (int)i;
    return found;
}

WbStatus wb_state_reader_load(WbStateReader *r, uint32_t i, int64_t *step, WbStateBuf *payload,
                              WbError *err)
{
    unsigned char h[SNAP_HEAD];
    uint64_t at = r->index[i].offset;
    char what[160];
    WbStatus st = read_at(r, at, h, sizeof h, err);
    if (st)
        return st;
    snprintf(what, sizeof what, "snapshot of frame %lld: ", (long long)r->index[i].frame);
    if (memcmp(h, "SNAP", 4) != 0 || (int64_t)get_u64(h + 8) != r->index[i].frame)
        return wb_error_set(err, WB_E_INPUT, "state '%s': %scorrupt (no SNAP header where the "
                            "index points)", r->path, what);
    uint64_t n = get_u64(h + 24);
    if (n > r->size - at - SNAP_HEAD || r->size - at - SNAP_HEAD - n < 4)
        return wb_error_set(err, WB_E_INPUT, "state '%s': %scorrupt (its size runs past the "
                            "file)", r->path, what);
    free(payload->data);
    memset(payload, 0, sizeof *payload);
    payload->data = malloc(n + 4 ? n + 4 : 1);
    if (!payload->data)
        return wb_error_set(err, WB_E_IO, "out of memory for a %llu-byte snapshot",
                            (unsigned long long)n);
    payload->cap = n + 4;
    st = read_at(r, at + SNAP_HEAD, payload->data, n + 4, err);
    if (st)
        return st;
    uint32_t crc = wb_crc32(wb_crc32(0, h, sizeof h), payload->data, n);
    if (crc != get_u32(payload->data + n))
        return wb_error_set(err, WB_E_INPUT, "state '%s': %scorrupt (checksum mismatch)", r->path,
                            what);
    payload->len = n;
    *step = (int64_t)get_u64(h + 16);
    return WB_OK;
}

void wb_state_reader_close(WbStateReader *r)
{
    if (!r)
        return;
    if (r->f)
        fclose(r->f);
    free(r->index);
    free(r);
}
