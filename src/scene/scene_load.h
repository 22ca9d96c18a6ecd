/* scene_load.h — reading, overriding, printing and listing scene files.
 *
 * The scene format (YAML; JSON parses as YAML) is described key by key by
 * wb_scene_keys(); the man page documents the same list.  Loading is:
 * text → node tree (scene/node.h) → each --set applied to the tree → bound to
 * WbScene through the key tables of keys_*.c, one per kind (scene/schema.h).
 */
#ifndef WB_SCENE_LOAD_H
#define WB_SCENE_LOAD_H

#include <stddef.h>
#include <stdio.h>

#include "core/error.h"
#include "scene/scene.h"

/* Precedence: built-in default < photo.preset < keys in the file < --set.
 * Every input problem is WB_E_INPUT with err->file/line/col (1-based; file
 * "--set" and the column inside "key=value" for overrides) and the source
 * line for a caret.  A file that cannot be read is WB_E_INPUT ("cannot open
 * scene 'x': ...").  On failure *out holds nothing to free. */

/* Set photo->frequency and photo->bounce to the preset's values
 * (WB_PRESET_NONE changes nothing). */
void wb_photo_preset_apply(WbPhotoDef *photo, WbPreset preset);

/* Load the scene file `path` ("-" = stdin), apply each "key.path=value" of
 * sets[0..n_sets) to it, validate, and fill *out (free with wb_scene_free).
 * Relative paths in the file resolve against the file's folder; paths given
 * with --set against the current directory. */
WbStatus wb_scene_load(const char *path, const char *const *sets, size_t n_sets,
                       WbScene *out, WbError *err);

/* Same from text; `name` plays the file's part in messages and paths. */
WbStatus wb_scene_load_string(const char *name, const char *text,
                              const char *const *sets, size_t n_sets,
                              WbScene *out, WbError *err);

/* The same, where options[i] (when options and it are not NULL) is the
 * command-line option that built sets[i] ("--fps" for "output.fps=30"):
 * a message about that override names the option instead of showing a
 * --set the user never typed. */
WbStatus wb_scene_load_from(const char *path, const char *const *sets,
                            const char *const *options, size_t n_sets, WbScene *out,
                            WbError *err);
WbStatus wb_scene_load_string_from(const char *name, const char *text,
                                   const char *const *sets, const char *const *options,
                                   size_t n_sets, WbScene *out, WbError *err);

/* Print the effective scene (every key, defaults included) as YAML that loads
 * back to the same scene.  Values implied by photo.preset are printed as
 * comments.  The caller checks ferror(f). */
void wb_scene_print(const WbScene *scene, FILE *f);

/* Call cb once for every documented scene key, in file order: path
 * ("output.width", "timeline[].grab.at", "timeline[].grab.path[].ease"),
 * type ("number in (0, 100]", "euler | exact", ...), default as written in a
 * scene ("required" for keys that must be given, "" for blocks and events)
 * and a one-line doc. */
void wb_scene_keys(void (*cb)(const char *path, const char *type, const char *def,
                              const char *doc, void *ud),
                   void *ud);

#endif
