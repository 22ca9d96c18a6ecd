/* keys.h — what the scene's key tables share; private to src/scene.
 *
 * The scene format is one WbSchema table per block (scene/schema.h), kept
 * with the kind it describes:
 *   keys_scene.c     the document: wobble, kind, seed, output, the kind
 *                    blocks, timeline, and the rules that span blocks;
 *   keys_photo.c     photo, and its actions grab, release, pin, unpin;
 *   keys_rope.c      rope, and its action cut;
 *   keys_jiggle.c    jiggle, and its actions reseed, shake;
 *   keys_cloth.c     cloth, and its actions release, wind;
 *   keys_timeline.c  the timeline (time + one action per event, which
 *                    actions each kind has) and keyframe lists {time, to, ease}.
 * scene_load.c reads the text and binds it through wb_keys_scene.  A new kind
 * is a keys_KIND.c, a row in the document and rows in the action table.
 * An action's schema binds into a WbEvent; its `init`, when set, fills the
 * event's defaults before binding.
 */
#ifndef WB_SCENE_KEYS_H
#define WB_SCENE_KEYS_H

#include <stddef.h>
#include <stdio.h>

#include "core/error.h"
#include "scene/node.h"
#include "scene/scene.h"
#include "scene/schema.h"

/* Table shorthands: a member's offset, a table's rows and count. */
#define OFF(T, m) offsetof(T, m)
#define FIELDS(a) .fields = (a), .n = sizeof(a) / sizeof *(a)
/* The T at byte offset `off` of base (a field's value). */
#define RAT(base, off, T) ((T *)(void *)((char *)(base) + (off)))
#define RCAT(base, off, T) ((const T *)(const void *)((const char *)(base) + (off)))

/* Times on the timeline: seconds, non-negative, below a bound that keeps
 * arithmetic on them exact enough. */
#define TIME_MAX 1e6
/* World coordinates (rope and cloth metres, jiggle units): this bound only
 * keeps arithmetic sane. */
#define WORLD_MAX 1e4

/* ---- keyframes {time, to, ease} (keys_timeline.c) ---- */

extern const char *const wb_keys_ease_names[];

/* The `ease` row every keyframe table ends with. */
#define KEY_EASE_FIELD                                                           \
    {.key = "ease", .type = WB_FIELD_ENUM, .offset = OFF(WbKey, ease),           \
     .names = wb_keys_ease_names, .def = "in-out",                               \
     .doc = "easing of the segment that ends at this key"}

/* A keyframe's defaults (ease in-out); the `init` of keyframe tables. */
void wb_keys_key_init(void *key);

/* A WbKeyList field (at most WB_SCENE_MAX_KEYS keys, times increasing),
 * each key bound by the field's `sub` table. */
WbStatus wb_keys_key_list_bind(const WbField *f, const WbNode *v, void *base, WbBind *b);
void wb_keys_key_list_print(const WbField *f, const void *base, FILE *out, int indent);
void wb_keys_key_list_keys(const WbField *f, const char *path, WbKeyFn fn, void *ud);

/* The row of a WbKeyList member m of T whose keys `table` binds. */
#define KEY_LIST(T, m, table)                                                    \
    .type = WB_FIELD_CUSTOM, .offset = OFF(T, m), .sub = (table),                \
    .bind = wb_keys_key_list_bind, .print = wb_keys_key_list_print,              \
    .keys = wb_keys_key_list_keys, .type_name = "list of keys", .def = "[]"

/* ---- the timeline field of the document (keys_timeline.c) ---- */

/* Binds WbScene.events (sorted by time) for the scene's kind, which is
 * bound before it (WB_FIELD_EARLY). */
WbStatus wb_keys_timeline_bind(const WbField *f, const WbNode *v, void *base, WbBind *b);
void wb_keys_timeline_print(const WbField *f, const void *base, FILE *out, int indent);
void wb_keys_timeline_keys(const WbField *f, const char *path, WbKeyFn fn, void *ud);

/* ---- the tables ---- */

extern const WbSchema wb_keys_scene;  /* the document (WbScene) */

extern const WbSchema wb_keys_photo;  /* WbPhotoDef */
extern const WbSchema wb_keys_grab, wb_keys_release, wb_keys_pin, wb_keys_unpin;

extern const WbSchema wb_keys_rope;   /* WbRopeSceneDef */
extern const WbSchema wb_keys_cut;

extern const WbSchema wb_keys_jiggle; /* WbJiggleSceneDef */
extern const WbSchema wb_keys_reseed, wb_keys_shake;

extern const WbSchema wb_keys_cloth;  /* WbClothSceneDef */
extern const WbSchema wb_keys_cloth_release, wb_keys_cloth_wind, wb_keys_cloth_teleport;

/* Rules of a whole bound scene of kind rope / cloth: blocks of another kind,
 * and events that name a rope link or a cloth pin (errors at the event). */
WbStatus wb_keys_rope_scene_check(const WbScene *s, const WbNode *map, WbBind *b);
WbStatus wb_keys_cloth_scene_check(const WbScene *s, const WbNode *map, WbBind *b);

#endif
