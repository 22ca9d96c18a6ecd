/* scene_load.c — reading a scene: load, override, print and the key list.
 *
 * Loading is three steps, each reporting file:line:col:
 *   1. YAML text → node tree (node.c);
 *   2. every --set key.path=value edits the tree (so overrides get exactly
 *      the validation the file gets);
 *   3. the tree binds to WbScene through the key tables (keys_*.c, one per
 *      kind, and the document's in keys_scene.c; schema.c binds them).
 * Nothing here knows a key: printing and the key list walk the same tables.
 */
#include "scene/scene_load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/keys.h"
#include "scene/node.h"
#include "scene/schema.h"

static void note_place(const WbNode *v, WbPlace *at)
{
    if (!v)
        return;
    *at = (WbPlace){v->line, v->col, v->src && v->src->is_set, ""};
    /* A --set typed as text shows under its message, as in the file. */
    if (at->set && !v->src->option)
        snprintf(at->source, sizeof at->source, "%s", v->src->text);
}

static WbStatus load_text(const char *name, const char *text, size_t len,
                          const char *const *options, const char *const *sets, size_t n_sets,
                          WbScene *out, WbError *err)
{
    wb_scene_default(out);
    snprintf(out->path, sizeof out->path, "%s", name);
    WbSource src = {.name = name, .text = text, .len = len};
    WbSource *set_src = n_sets ? calloc(n_sets, sizeof *set_src) : NULL;
    if (n_sets && !set_src)
        return wb_error_set(err, WB_E_IO, "out of memory");

    WbNode *root = NULL;
    WbStatus st = wb_node_parse(&src, text, len, 0, &root, err);
    if (!st && (!root || wb_node_is_null(root)))
        st = wb_source_error(err, &src, 1, 1,
                             "empty scene: expected a mapping that starts with 'wobble: 1'");
    if (!st && root->kind != WB_NODE_MAP) {
        char found[128];
        wb_node_describe(root, found, sizeof found);
        st = wb_node_error(err, root,
                           "a scene is a mapping of keys (wobble, kind, output, ...), found %s",
                           found);
    }
    for (size_t i = 0; !st && i < n_sets; i++) {
        set_src[i] = (WbSource){"--set", sets[i], strlen(sets[i]), true,
                                options ? options[i] : NULL};
        st = wb_node_override(&root, &set_src[i], err);
    }
    if (!st) {
        /* The folder of the scene file, which relative paths start from. */
        char dir[WB_PATH_MAX] = "";
        const char *slash = strrchr(name, '/');
        if (slash && (size_t)(slash - name) < sizeof dir) {
            size_t n = slash == name ? 1 : (size_t)(slash - name);
            memcpy(dir, name, n);
            dir[n] = '\0';
        }
        WbBind b = {.err = err, .dir = dir};
        st = wb_schema_bind(&wb_keys_scene, root, out, &b);
    }
    if (!st) {
        /* The run decodes these pictures: it names the key's place when
         * one cannot be read. */
        const WbNode *photo = wb_node_get(root, "photo", NULL);
        note_place(wb_node_get(photo, "image", NULL), &out->photo_image_at);
        note_place(wb_node_get(photo, "mask", NULL), &out->photo_mask_at);
        note_place(wb_node_get(wb_node_get(root, "jiggle", NULL), "weights", NULL),
                   &out->jiggle_weights_at);
        note_place(wb_node_get(wb_node_get(root, "output", NULL), "background", NULL),
                   &out->output_background_at);
    }
    wb_node_free(root);
    free(set_src);
    if (st)
        wb_scene_free(out);
    return st;
}

WbStatus wb_scene_load_string_from(const char *name, const char *text, const char *const *sets,
                                   const char *const *options, size_t n_sets, WbScene *out,
                                   WbError *err)
{
    return load_text(name, text, strlen(text), options, sets, n_sets, out, err);
}

WbStatus wb_scene_load_string(const char *name, const char *text, const char *const *sets,
                              size_t n_sets, WbScene *out, WbError *err)
{
    return wb_scene_load_string_from(name, text, sets, NULL, n_sets, out, err);
}

/* A scene is a page or two of text; anything past this is not one (and a
 * device such as /dev/zero would otherwise be read until memory ran out). */
#define SCENE_MAX_BYTES (16u << 20)

/* The whole of f; NULL with errno set on failure (EFBIG past
 * SCENE_MAX_BYTES).  Reading stops early at a NUL byte: the caller refuses
 * such a file as not text, however long it is. */
static char *read_all(FILE *f, size_t *len)
{
    size_t cap = 1 << 14, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        bool nul = memchr(buf + n, '\0', got) != NULL;
        n += got;
        if (n < cap - 1 || nul)
            break;
        if (cap >= SCENE_MAX_BYTES) {
            int c = fgetc(f);
            if (c == EOF)
                break;
            free(buf);
            errno = EFBIG;
            return NULL;
        }
        char *more = realloc(buf, cap * 2);
        if (!more) {
            free(buf);
            errno = ENOMEM;
            return NULL;
        }
        buf = more;
        cap *= 2;
    }
    if (buf && ferror(f)) {
        free(buf);
        return NULL;
    }
    if (buf) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

WbStatus wb_scene_load(const char *path, const char *const *sets, size_t n_sets, WbScene *out,
                       WbError *err)
{
    return wb_scene_load_from(path, sets, NULL, n_sets, out, err);
}

WbStatus wb_scene_load_from(const char *path, const char *const *sets, const char *const *options,
                            size_t n_sets, WbScene *out, WbError *err)
{
    wb_scene_default(out);
    bool is_stdin = !strcmp(path, "-");
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return wb_error_set(err, WB_E_INPUT, "cannot open scene '%s': %s", path, strerror(errno));
    size_t len = 0;
    errno = 0;
    char *text = read_all(f, &len);
    int read_errno = errno;
    if (!is_stdin)
        fclose(f);
    if (!text && read_errno == EFBIG)
        return wb_error_set(err, WB_E_INPUT, "scene '%s' is not a scene file (%u MiB or more)",
                            path, SCENE_MAX_BYTES >> 20);
    if (!text && read_errno == EISDIR)
        return wb_error_set(err, WB_E_INPUT, "cannot read scene '%s': %s", path,
                            strerror(read_errno));
    if (!text)
        return wb_error_set(err, WB_E_IO, "cannot read scene '%s': %s", path,
                            strerror(read_errno ? read_errno : EIO));
    if (memchr(text, '\0', len)) {
        free(text);
        return wb_error_set(err, WB_E_INPUT, "scene '%s' is not a text file (it contains NUL bytes)",
                            path);
    }
    WbStatus st =
        load_text(is_stdin ? "<stdin>" : path, text, len, options, sets, n_sets, out, err);
    if (is_stdin)
        snprintf(out->path, sizeof out->path, "-");
    free(text);
    return st;
}

void wb_scene_print(const WbScene *s, FILE *f)
{
    wb_schema_print(&wb_keys_scene, s, f, 0, false);
}

void wb_scene_keys(void (*cb)(const char *path, const char *type, const char *def,
                              const char *doc, void *ud),
                   void *ud)
{
    wb_schema_keys(&wb_keys_scene, "", cb, ud);
}
