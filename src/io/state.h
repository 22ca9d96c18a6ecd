/* state.h — the state file: snapshots of a simulation, versioned,
 * little-endian, checksummed (wobble bake writes it, render --state and
 * export read it).  The layout is documented in wobble(1), STATE FORMAT:
 *
 *   header   64 bytes: "WBSTATE\0", u32 format (1), u32 kind, u64 scene
 *            hash, u64 version hash, f64 fps, u64 frames, u32 every,
 *            u32 snapshots (0 while writing), u32 reserved, u32 CRC-32 of
 *            bytes 0..59
 *   snapshot "SNAP", u32 0, u64 frame, u64 step, u64 payload bytes P,
 *            payload, u32 CRC-32 of the snapshot's bytes before it
 *   index    "INDX", u32 count, count × (u64 frame, u64 offset), u32 CRC-32
 *   trailer  u64 index offset, u32 CRC-32 of those 8 bytes, "WEND"
 *
 * A payload is a list of fields (core/fields.h): u8 name length, the name,
 * u8 type, u64 count, count elements little-endian.
 *
 * Writing goes to a temporary name in the output's folder, renamed over
 * the path by wb_state_writer_finish (outpath.h), so a reader never sees a
 * half-written file under the real name.  Every reading failure is
 * WB_E_INPUT with a message naming the file and what is wrong with it.
 */
#ifndef WB_STATE_H
#define WB_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/fields.h"

#define WB_STATE_FORMAT 1

/* What a state file is tied to. */
typedef struct WbStateInfo {
    uint32_t kind;             /* WbSceneKind */
    uint64_t scene_hash;       /* of the effective scene and its input files */
    uint64_t version_hash;     /* of the wobble version and the format */
    double fps;
    int64_t frames;            /* frames in the scene */
    uint32_t every;            /* a snapshot every this many frames */
    uint32_t snapshots;        /* how many (when read) */
} WbStateInfo;

/* CRC-32 (IEEE 802.3, the zlib/PNG one) of n bytes, continuing crc (0 to
 * start). */
uint32_t wb_crc32(uint32_t crc, const void *data, size_t n);

/* The version hash this build writes and accepts. */
uint64_t wb_state_version_hash(void);

/* ---- a payload in memory --------------------------------------------- */

typedef struct WbStateBuf {
    unsigned char *data;
    size_t len, cap, pos;      /* pos: the reading position */
    bool failed;               /* out of memory, or a field that does not fit */
    char what[256];            /* why, when failed */
} WbStateBuf;

void wb_state_buf_free(WbStateBuf *b);

/* A visitor that appends every field to b (saving). */
typedef struct WbStateSaver {
    WbFields f;
    WbStateBuf *buf;
} WbStateSaver;
void wb_state_saver_init(WbStateSaver *s, WbStateBuf *b);

/* A visitor that reads fields from b in order and overwrites the kind's
 * (loading); a name, type or count that differs, or a short buffer, sets
 * b->failed with the field named. */
typedef struct WbStateLoader {
    WbFields f;
    WbStateBuf *buf;
} WbStateLoader;
void wb_state_loader_init(WbStateLoader *l, WbStateBuf *b);

/* ---- writing ----------------------------------------------------------- */

typedef struct WbStateWriter WbStateWriter;

/* Create the temporary file for `path` and write the header.  WB_E_IO
 * naming the path on failure. */
WbStatus wb_state_writer_open(WbStateWriter **w, const char *path, const WbStateInfo *info,
                              WbError *err);
/* Append one snapshot (frame, step and its payload). */
WbStatus wb_state_writer_add(WbStateWriter *w, int64_t frame, int64_t step,
                             const WbStateBuf *payload, WbError *err);
/* Write the index and trailer, flush, and rename onto the path. */
WbStatus wb_state_writer_finish(WbStateWriter *w, WbError *err);
/* Drop an unfinished file (the temporary is removed). */
void wb_state_writer_abort(WbStateWriter *w);

/* ---- reading ----------------------------------------------------------- */

typedef struct WbStateReader WbStateReader;

/* Open `path`, check its header, trailer and index.  Errors (WB_E_INPUT,
 * file named): missing or unreadable, not a state file, another format,
 * truncated (no trailer), a checksum that does not match. */
WbStatus wb_state_reader_open(WbStateReader **r, const char *path, WbError *err);
const WbStateInfo *wb_state_reader_info(const WbStateReader *r);
const char *wb_state_reader_path(const WbStateReader *r);
/* Snapshot i (0-based, by frame order): its frame. */
int64_t wb_state_reader_frame(const WbStateReader *r, uint32_t i);
/* The last snapshot at or before `frame`, -1 when none. */
int wb_state_reader_find(const WbStateReader *r, int64_t frame);
/* Read snapshot i into payload (replacing its contents) and its step;
 * WB_E_INPUT when it is short or its checksum fails. */
WbStatus wb_state_reader_load(WbStateReader *r, uint32_t i, int64_t *step, WbStateBuf *payload,
                              WbError *err);
void wb_state_reader_close(WbStateReader *r);

#endif
