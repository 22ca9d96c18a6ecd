/* snapshot.c — bake a runner into a state file, restore one from it. */
#include "run/snapshot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "io/state.h"
#include "scene/scene_load.h"

/* The bytes of a file the scene reads, into the hash (its absence too). */
static uint64_t hash_file(uint64_t h, const char *path)
{
    h = wb_fnv1a(h, "\0file", 5);
    if (!path[0])
        return h;
    FILE *f = fopen(path, "rb");
    if (!f)
        return wb_fnv1a(h, "missing", 7);
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        h = wb_fnv1a(h, buf, n);
    fclose(f);
    return h;
}

uint64_t wb_snapshot_scene_hash(const WbScene *scene)
{
    /* The effective scene as printed, with the input files' paths left
     * out: a chunk may run from another folder, and what matters is what
     * the files hold. */
    WbScene *copy = malloc(sizeof *copy);
    uint64_t h = WB_FNV1A_SEED;
    char *text = NULL;
    size_t len = 0;
    FILE *m = copy ? open_memstream(&text, &len) : NULL;
    if (m) {
        *copy = *scene;
        copy->path[0] = copy->photo.image[0] = copy->photo.mask[0] = '\0';
        copy->jiggle.weights[0] = '\0';
        wb_scene_print(copy, m);
        fclose(m);
        h = wb_fnv1a(h, text, len);
    } else {
        h = wb_fnv1a(h, scene, sizeof *scene); /* out of memory: still deterministic */
    }
    free(text);
    free(copy);
    if (scene->kind == WB_KIND_PHOTO) {
        h = hash_file(h, scene->photo.image);
        h = hash_file(h, scene->photo.mask);
    } else if (scene->kind == WB_KIND_JIGGLE) {
        h = hash_file(h, scene->jiggle.weights);
    }
    return h;
}

int64_t wb_snapshot_every(const WbScene *scene, int64_t every)
{
    if (every > 0)
        return every;
    int64_t k = (int64_t)floor(WB_SNAPSHOT_SECONDS * scene->output.fps + 1e-9);
    return k < 1 ? 1 : k;
}

static WbStateInfo scene_info(const WbScene *scene, int64_t every)
{
    return (WbStateInfo){
        .kind = (uint32_t)scene->kind,
        .scene_hash = wb_snapshot_scene_hash(scene),
        .version_hash = wb_state_version_hash(),
        .fps = scene->output.fps,
        .frames = wb_runner_frame_count(&scene->output),
        .every = (uint32_t)every,
    };
}

static void prefix_frame(WbError *err, int64_t f)
{
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    snprintf(err->msg, sizeof err->msg, "frame %lld: %.990s", (long long)f, msg);
}

WbStatus wb_bake_run(const WbBake *b, WbBakeResult *res, WbError *err)
{
    const WbRunner *r = b->runner;
    *res = (WbBakeResult){0};
    if (!r->fields)
        return wb_error_set(err, WB_E_INPUT, "this scene kind cannot be baked");
    if (b->every < 1 || b->every > UINT32_MAX)
        return wb_error_set(err, WB_E_INPUT, "--every %lld is out of range",
                            (long long)b->every);
    WbStateInfo info = scene_info(b->scene, b->every);
    res->frames = info.frames;
    WbStateWriter *w;
    WbStatus st = wb_state_writer_open(&w, b->path, &info, err);
    if (st)
        return st;
    WbStateBuf buf = {0};
    const WbOutputDef *out = &b->scene->output;
    double idle_since = -1;
    res->end_frame = info.frames;
    res->settled_at = -1;
    /* Frame by frame, as the frame loop goes, to find where the scene stops
     * (until_settled) and when it first settled; a snapshot every K frames. */
    for (int64_t f = 0; f < info.frames; f++) {
        int64_t step = wb_runner_step_for_frame(f, info.fps, r->rate);
        st = r->advance(r->self, step, err);
        if (st) {
            prefix_frame(err, f);
            break;
        }
        if (f % b->every == 0) {
            buf.len = 0;
            WbStateSaver sv;
            wb_state_saver_init(&sv, &buf);
            r->fields(r->self, &sv.f);
            if (buf.failed) {
                st = wb_error_set(err, WB_E_IO, "state '%s': frame %lld: %s", b->path,
                                  (long long)f, buf.what);
                break;
            }
            st = wb_state_writer_add(w, f, step, &buf, err);
            if (st)
                break;
            res->snapshots++;
            res->bytes = buf.len;
            if (b->progress)
                b->progress(b->ctx, f, info.frames);
        }
        double t = (double)f / info.fps;
        bool idle = r->idle(r->self);
        if (idle && idle_since < 0) {
            idle_since = t;
            if (res->settled_at < 0)
                res->settled_at = t;
        } else if (!idle) {
            idle_since = -1;
        }
        if (out->until_settled && idle_since >= 0 && t - idle_since >= out->settle_hold - 1e-9) {
            res->end_frame = f + 1;
            break;
        }
        if (b->stop && *b->stop) {
            res->interrupted = true;
            break;
        }
    }
    wb_state_buf_free(&buf);
    if (st || res->interrupted) {
        wb_state_writer_abort(w);
        return st;
    }
    return wb_state_writer_finish(w, err);
}

/* Does the file belong to this scene and this wobble? */
static WbStatus check_info(const WbStateInfo *got, const WbStateInfo *want, const char *path,
                           WbError *err)
{
    if (got->version_hash != want->version_hash)
        return wb_error_set(err, WB_E_INPUT,
                            "state '%s' was made by another version of wobble (this is %s); "
                            "bake it again", path, WB_VERSION);
    if (got->kind != want->kind)
        return wb_error_set(err, WB_E_INPUT,
                            "state '%s' holds another kind of scene; bake this scene", path);
    if (got->scene_hash != want->scene_hash || got->fps != want->fps ||
        got->frames != want->frames)
        return wb_error_set(err, WB_E_INPUT,
                            "state '%s' was baked from another scene: the scene file, its "
                            "input files or the options that change it (--set, --fps, --size, "
                            "--duration, --seed) differ; bake it again with the same ones",
                            path);
    return WB_OK;
}

WbStatus wb_snapshot_restore(const WbRunner *r, const WbScene *scene, const char *path,
                             int64_t frame, int64_t *from, WbError *err)
{
    if (!r->fields)
        return wb_error_set(err, WB_E_INPUT, "this scene kind cannot start from a state");
    WbStateReader *rd;
    WbStatus st = wb_state_reader_open(&rd, path, err);
    if (st)
        return st;
    WbStateInfo want = scene_info(scene, 1);
    st = check_info(wb_state_reader_info(rd), &want, path, err);
    int i = st ? -1 : wb_state_reader_find(rd, frame);
    if (!st && i < 0)
        st = wb_error_set(err, WB_E_INPUT, "state '%s' has no snapshot at or before frame %lld",
                          path, (long long)frame);
    WbStateBuf buf = {0};
    int64_t step = 0;
    if (!st)
        st = wb_state_reader_load(rd, (uint32_t)i, &step, &buf, err);
    if (!st) {
        *from = wb_state_reader_frame(rd, (uint32_t)i);
        int64_t want_step = wb_runner_step_for_frame(*from, scene->output.fps, r->rate);
        WbStateLoader ld;
        wb_state_loader_init(&ld, &buf);
        r->fields(r->self, &ld.f);
        if (!buf.failed && buf.pos != buf.len)
            snprintf(buf.what, sizeof buf.what, "%zu bytes left over after the last field",
                     buf.len - buf.pos);
        if (buf.failed || buf.pos != buf.len || step != want_step)
            st = wb_error_set(err, WB_E_INPUT, "state '%s': snapshot of frame %lld does not fit "
                              "this scene: %s", path, (long long)*from,
                              step != want_step ? "it was taken at another step" : buf.what);
    }
    wb_state_buf_free(&buf);
    wb_state_reader_close(rd);
    return st;
}
