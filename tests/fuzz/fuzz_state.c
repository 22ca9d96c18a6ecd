/* fuzz_state.c — the state file (io/state.c) as render --state reads it:
 * wb_snapshot_restore opens it, checks magic, format, checksums, index and
 * trailer, the version and scene hashes, kind, fps and frame count, finds
 * the last snapshot, checks its size and CRC and loads its fields over a
 * new runner; then the runner takes a few frames' steps from there.
 *
 * Input: any file.  The scene is chosen by the header's kind field (bytes
 * 12..15, modulo 4): one small example each, as the seeds were baked
 * (tests/fuzz/state_seeds.sh).  Every input runs twice:
 *   1. as it is, so the checks themselves are fuzzed;
 *   2. with the header's kind, hashes, fps and frame count set to the
 *      scene's and every CRC recomputed (where the trailer, index and
 *      snapshot heads allow), so mutations reach the field loader and the
 *      runner behind the checksums — a file anyone can forge.
 *
 * Properties checked besides the sanitizers: an error is WB_E_INPUT (or
 * WB_E_IO for memory), or from the steps after a load WB_E_DIVERGED; never a
 * crash or a hang.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fuzz_file.h"
#include "io/state.h"
#include "run/runner.h"
#include "run/snapshot.h"
#include "scene/scene_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The scenes, by WbKind; the seeds are `wobble bake FILE --set ...` of
 * the same (run from the repository's top, as tests/fuzz/run.sh does).
 * Chosen cheap to build, as every input builds one twice: a 48x36 photo,
 * a jiggle without a weight map, a coarse cloth. */
static const struct {
    const char *file;
    const char *sets[4];
} SCENES[4] = {
    [WB_KIND_PHOTO] = {"examples/photo-grab.yaml",
                       {"output.duration=0.5", "photo.image=tests/fuzz/state-photo.png",
                        "output.width=48", "photo.grid=8"}},
    [WB_KIND_JIGGLE] = {"examples/jiggle-1d.yaml", {"output.duration=0.5", "jiggle.window=1"}},
    [WB_KIND_CLOTH] = {"examples/cloth-flag-wind.yaml", {"output.duration=0.3", "cloth.grid=4"}},
    [WB_KIND_ROPE] = {"examples/rope-cut.yaml", {"output.duration=0.8"}},
};

static WbScene scenes[4];
static WbStateInfo wants[4];
static int loaded[4];

static size_t n_sets(int k)
{
    size_t n = 0;
    while (n < 4 && SCENES[k].sets[n])
        n++;
    return n;
}

static const WbScene *scene_for(int k)
{
    if (!loaded[k]) {
        WbError err;
        wb_error_clear(&err);
        if (wb_scene_load(SCENES[k].file, SCENES[k].sets, n_sets(k), &scenes[k], &err)) {
            fprintf(stderr, "fuzz_state: %s: %s (run from the repository's top)\n",
                    SCENES[k].file, err.msg);
            abort();
        }
        wants[k] = (WbStateInfo){
            .kind = (uint32_t)k,
            .scene_hash = wb_snapshot_scene_hash(&scenes[k]),
            .version_hash = wb_state_version_hash(),
            .fps = scenes[k].output.fps,
            .frames = wb_runner_frame_count(&scenes[k].output),
        };
        loaded[k] = 1;
    }
    return &scenes[k];
}

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Make the file one the checks accept as far as its structure allows: the
 * header tied to scene k, the trailer, index and snapshot CRCs right. */
static void forge(uint8_t *d, size_t n, int k)
{
    if (n < 64 + 16)
        return;
    const WbStateInfo *w = &wants[k];
    put_u32(d + 12, w->kind);
    put_u64(d + 16, w->scene_hash);
    put_u64(d + 24, w->version_hash);
    uint64_t fb;
    memcpy(&fb, &w->fps, 8);
    put_u64(d + 32, fb);
    put_u64(d + 40, (uint64_t)w->frames);
    put_u32(d + 60, wb_crc32(0, d, 60));
    uint8_t *t = d + n - 16;
    put_u32(t + 8, wb_crc32(0, t, 8));
    uint64_t at = get_u64(t);
    if (at > n - 16 || n - 16 - at < 12)
        return;
    uint64_t count = (n - 16 - at - 12) / 16;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t off = get_u64(d + at + 16 + 16 * i);
        if (off >= at || at - off < 36)
            continue;
        uint64_t len = get_u64(d + off + 24);
        if (len <= at - off - 36)
            put_u32(d + off + 32 + len, wb_crc32(wb_crc32(0, d + off, 32), d + off + 32, len));
    }
    put_u32(d + at + 8 + 16 * count, wb_crc32(0, d + at, 8 + 16 * count));
}

static void run_one(const uint8_t *d, size_t n, int k)
{
    const WbScene *scene = scene_for(k);
    const char *path = fuzz_file_write(d, n, "state.wbs");
    WbRunner r;
    WbError err;
    wb_error_clear(&err);
    WbRunnerOptions ro = {.aa = 1};
    if (wb_runner_create(&r, scene, &ro, &err))
        abort(); /* the example itself must build */
    int64_t from = -1;
    WbStatus st = wb_snapshot_restore(&r, scene, path, INT64_MAX, &from, &err);
    if (st == WB_OK) {
        /* A restored runner continues: a few frames' steps from there. */
        int64_t frames = wants[k].frames;
        for (int64_t i = 1; !st && i <= 3 && from < frames - i; i++)
            st = r.advance(r.self, wb_runner_step_for_frame(from + i, scene->output.fps, r.rate),
                           &err);
        if (st && st != WB_E_DIVERGED)
            abort();
    } else if (st != WB_E_INPUT && st != WB_E_IO) {
        abort();
    } else if (!err.msg[0]) {
        abort();
    }
    r.destroy(r.self);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int k = size >= 16 ? data[12] & 3 : WB_KIND_ROPE;
    run_one(data, size, k);
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        abort();
    memcpy(copy, data, size);
    forge(copy, size, k);
    run_one(copy, size, k);
    free(copy);
    return 0;
}
